"""`zoo.pos_tag` and `zoo.pos_tag_sents` take NLTK's arguments (`tagset`,
`lang`) and return NLTK's shapes, so a script swaps the import; what the
presets cannot answer in is refused in one line naming the argument."""

import pytest

import harness
import zoo
from recipes.tagging import cli as tagging_cli
from zoo.languages.en import ud


def test_nltks_arguments_and_shapes():
    sentence = ["The", "cat", "sat", "on", "the", "mat", "."]
    tagged = zoo.pos_tag(sentence)
    assert [w for w, _ in tagged] == sentence
    assert all(isinstance(pair, tuple) and len(pair) == 2 for pair in tagged)
    # The default preset answers UD's 17 tags, and the 12 universal ones
    # and Penn Treebank's as asked, in NLTK's order: tokens, tagset, lang.
    assert {t for _, t in tagged} <= ud.UPOS
    universal = [(w, ud.UPOS_TO_UNIVERSAL[t]) for w, t in tagged]
    assert zoo.pos_tag(sentence, "universal", "eng") == universal
    assert zoo.pos_tag(sentence, tagset="universal") == universal
    ptb = zoo.pos_tag(sentence, "ptb")
    assert [t for _, t in ptb][:2] == ["DT", "NN"]
    assert zoo.pos_tag_sents([sentence, ["A", "dog"]], None, "eng")[0] == (
        tagged
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"tagset": "en-ptb"}, r"`tagset` must be one of \[None, 'univ"),
        ({"tagset": "brown"}, r"'ptb'\] for the tagger .* received 'brown'"),
        ({"lang": "rus"}, r"`lang` must be one of \['eng'\].*'rus'"),
    ],
)
def test_what_the_presets_cannot_answer_in_is_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        zoo.pos_tag("The cat sat .", **kwargs)
    with pytest.raises(ValueError, match=message):
        zoo.pos_tag_sents(["The cat sat ."], **kwargs)


def test_the_universal_view_needs_a_universal_tagger():
    vocabulary = zoo.layers.TokenVocabulary(["the", "cat"])
    tagger = zoo.tasks.Tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=vocabulary.vocabulary_size),
        zoo.tasks.TaggerPreprocessor(vocabulary, ["", "B-PER", "O"]),
    )
    assert len(zoo.pos_tag(["the", "cat"], preset=tagger)) == 2
    with pytest.raises(ValueError, match=r"one of \[None\] for the tagger"):
        zoo.pos_tag(["the", "cat"], tagset="universal", preset=tagger)


def test_predict_answers_in_the_view_asked(tmp_path, capsys):
    text = tmp_path / "in.txt"
    text.write_text("I don't know.\n")
    predict = ["predict", "--model", "pos_en_ud_fast", "--input", str(text)]
    tagging_cli.main(predict + ["--tagset", "ptb"])
    assert capsys.readouterr().out.split() == [
        "I/PRP", "do/VBP", "n't/RB", "know/VB", "./."
    ]  # fmt: skip
    # One line (`harness.run_cli` prints it and exits 2).
    with pytest.raises(harness.UsageError) as error:
        tagging_cli.main(predict + ["--tagset", "brown"])
    assert str(error.value) == (
        "--tagset brown: the model answers in universal, ptb (or no "
        "--tagset: its own)"
    )
