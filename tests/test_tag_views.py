"""A tagger answers in the views of its tags that its corpus's
conventions offer (`zoo.tasks.conventions`): a tagger trained on UD
English's joined tags (`PRON|PRP$`) answers in UD's 17 tags, the 12
universal ones or Penn Treebank's; `predict_tags` keeps the labels as
trained; a view the tagger cannot give is refused, naming those it has."""

import pytest

import zoo
from zoo.languages.en import ud
from zoo.tasks import conventions

JOINED = ["", "DET|DT", "NOUN|NN", "PRON|PRP$", "AUX|VBZ", "PROPN|NNP"]


def _tagger(labels, name="en_ud"):
    vocabulary = zoo.layers.TokenVocabulary(["the", "cat", "my", "is"])
    return zoo.tasks.Tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=vocabulary.vocabulary_size),
        zoo.tasks.TaggerPreprocessor(vocabulary, labels, conventions=name),
    )


def test_ud_views_of_joined_and_upos_labels():
    views = conventions.get("en_ud").views(JOINED)
    assert views == {
        None: ["", "DET", "NOUN", "PRON", "AUX", "PROPN"],
        "universal": ["", "DET", "NOUN", "PRON", "VERB", "NOUN"],
        "ptb": ["", "DT", "NN", "PRP$", "VBZ", "NNP"],
    }
    # UPOS alone: no Penn Treebank view.
    assert set(conventions.get("en_ud").views(["", "PRON", "AUX"])) == {
        None,
        "universal",
    }
    # Every UPOS tag has its 12-tag view, one of the 12.
    assert set(ud.UPOS_TO_UNIVERSAL) == ud.UPOS
    assert (
        set(ud.UPOS_TO_UNIVERSAL.values()) <= zoo.languages.en.brown.UNIVERSAL
    )


def test_brown_views():
    brown = conventions.get("en_brown")
    assert set(brown.views(["", "NOUN", "VERB"])) == {None, "universal"}
    # A tagger of Brown's full tags has no universal view.
    assert set(brown.views(["", "nn", "vb"])) == {None}


def test_a_ud_tagger_answers_in_each_view():
    tagger = _tagger(JOINED)
    assert tagger.tagsets() == (None, "universal", "ptb")
    words = ["the", "cat", "is"]
    labels = tagger.predict_tags([words])[0]
    assert set(labels) <= set(JOINED[1:])
    by_view = {
        tagset: [t for _, t in tagger.tag([words], tagset=tagset)[0]]
        for tagset in tagger.tagsets()
    }
    views = tagger.views()
    for tagset, tags in by_view.items():
        column = {label: j for j, label in enumerate(JOINED)}
        assert tags == [views[tagset][column[x]] for x in labels]
    assert zoo.pos_tag(words, "ptb", preset=tagger) == list(
        zip(words, by_view["ptb"])
    )


def test_a_view_the_tagger_has_not_is_refused():
    upos_only = _tagger(["", "DET", "NOUN"])
    with pytest.raises(
        ValueError, match=r"one of \[None, 'universal'\] .* received 'ptb'"
    ):
        upos_only.tag([["the", "cat"]], tagset="ptb")
    with pytest.raises(ValueError, match=r"`tagset` must be one of \[None\]"):
        _tagger(["", "B-PER", "O"], name=None).tag(
            [["the"]], tagset="universal"
        )


def test_a_ud_tagger_splits_raw_text_as_ud_does():
    words = ["I", "'m", "sure", "they", "do", "n't", "run", "./configure", "."]
    tagged = _tagger(JOINED).tag(["I'm sure they don't run ./configure."])
    assert [w for w, _ in tagged[0]] == words
    # A Brown tagger keeps the contraction whole, as Brown writes it.
    brown = _tagger(["", "NOUN", "VERB"], name="en_brown")
    assert [w for w, _ in brown.tag(["I'm sure."])[0]] == ["I'm", "sure", "."]
