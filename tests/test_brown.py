"""`zoo.languages.en.brown`: the Brown corpus's conventions (`"en_brown"`)
as a tagger trained on it reads running text, registered with
`zoo.tasks.conventions`; a tagger uses them only where its preprocessor
names them."""

import pytest

import zoo
from zoo.languages.en import brown


@pytest.mark.parametrize(
    "word, tag, form",
    [
        ("https://x.co/a", "X", "address"),
        ("me@example.org", "X", "address"),
        ("@united", "NOUN", "Smith"),
        ("$AAPL", "NOUN", "Smith"),
        ("#DeflateGate", "NOUN", "DeflateGate"),
        ("RT", "X", "!"),
        ("3,000", "NUM", "3,000"),
        ("!!!", ".", "!"),
        ("😂", "X", "!"),
        ("&amp;", None, "&"),
        ("$", None, "$"),  # a dollar sign: the model's
        ("dog", None, "dog"),
    ],
)
def test_what_brown_never_shows_is_tagged_by_rule_and_read_as_brown(
    word, tag, form
):
    assert brown.universal_rule(word) == tag
    assert brown.model_form(word) == form


def test_a_sentence_is_read_in_browns_spelling():
    words = ['"', "Mr", "Smith", '"', "-", "10", "%", "“", "x", "”", '"']
    assert brown.model_forms(words) == [
        "``", "Mr.", "Smith", "''", "--", "10", "percent", "``", "x", "''",
        "``",
    ]  # fmt: skip


def test_the_conventions_are_registered_by_name_and_tag_set():
    conventions = zoo.tasks.conventions.get("en_brown")
    assert conventions is brown.BROWN
    assert conventions.forms(["-"]) == ["--"]
    assert conventions.rule("#tag") == "NOUN"
    assert zoo.tasks.conventions.for_labels(["", *brown.UNIVERSAL]) == (
        "en_brown"
    )
    assert zoo.tasks.conventions.for_labels(["", "B-PER", "O"]) is None
    with pytest.raises(ValueError, match=r"must be one of \['en_brown'"):
        zoo.tasks.conventions.get("en_ptb")
    with pytest.raises(TypeError, match="must be a zoo.tasks.conventions"):
        zoo.tasks.conventions.register("en_brown")


def _tagger(conventions):
    vocabulary = zoo.layers.TokenVocabulary(["the", "address", "--", "!"])
    backbone = zoo.stacked_lstm(
        1, 4, vocabulary_size=vocabulary.vocabulary_size, embedding_dim=4
    )
    labels = ["", *sorted(brown.UNIVERSAL)]
    preprocessor = zoo.tasks.TaggerPreprocessor(
        vocabulary, labels, conventions=conventions
    )
    return zoo.tasks.Tagger(backbone, preprocessor)


def test_a_tagger_reads_by_the_conventions_its_preprocessor_names():
    words = [["see", "https://x.co/a", "3,000", "#tag", "😂"]]
    ruled = [t for _, t in _tagger("en_brown").tag(words)[0]]
    assert ruled[1:] == ["X", "NUM", "NOUN", "X"]
    plain = _tagger(None)
    assert plain.text_conventions() is None
    # Without conventions the model's own tags stand, whatever they are.
    assert [w for w, _ in plain.tag(words)[0]] == words[0]
