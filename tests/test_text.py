"""`zoo.text`, the one normaliser, on text in several scripts: what the
vocabulary is built with is what training and inference look up with."""

import keras
import pytest

import zoo
from zoo import text

# Capitalised forms and the lower-case forms a corpus would hold.
WORDS = [
    ("Москва", "москва"),  # Cyrillic
    ("ÜBER", "über"),  # Latin with a diaeresis
    ("ΑΘΗΝΑ", "αθηνα"),  # Greek
    ("BİR", "bir"),  # Turkish capital dotted I
    ("İSTANBUL", "istanbul"),
    ("E\u0301LAN", "élan"),  # decomposed accent (NFD) vs composed
    ("ŁÓDŹ", "łódź"),  # Polish
    ("ՀԱՅԱՍՏԱՆ", "հայաստան"),  # Armenian
]


@pytest.mark.parametrize("capital, lower", WORDS)
def test_capital_and_lower_case_forms_are_one_token(capital, lower):
    assert text.normalize(capital) == text.normalize(lower) == lower


def test_dotless_capital_i_follows_pythons_locale_free_rule():
    # Documented: `I` lower-cases to `i`, never to Turkish `ı`.
    assert text.normalize("AÇIK") == "açik"
    assert text.normalize("açık") == "açık"


def test_a_vocabulary_built_from_lower_case_text_finds_the_capitals(tmp_path):
    tokens = text.build_vocabulary([" ".join(lower for _, lower in WORDS)])
    vocabulary = zoo.layers.TokenVocabulary(tokens, name="vocabulary")
    capitals = [capital for capital, _ in WORDS]
    ids = vocabulary.encode([capitals])[0].tolist()
    assert 1 not in ids  # no [UNK]
    assert ids == vocabulary.encode([" ".join(capitals)])[0].tolist()
    # The same after the model's file is saved and reloaded.
    inputs = keras.Input((None,), dtype="int32")
    model = keras.Model(inputs, vocabulary(inputs))
    model.save(tmp_path / "m.keras")
    reloaded = keras.saving.load_model(tmp_path / "m.keras", safe_mode=True)
    again = reloaded.get_layer("vocabulary").encode([capitals])[0].tolist()
    assert again == ids


@pytest.mark.parametrize(
    "string, tokens",
    [
        ("Pass the butter!", ["Pass", "the", "butter", "!"]),
        ("I don't know...", ["I", "don't", "know", "..."]),
        ("3.5% of U.S. sales", ["3.5", "%", "of", "U.S.", "sales"]),
        ('a well-known "word"', ["a", "well-known", '"', "word", '"']),
        ("(İstanbul’s)", ["(", "İstanbul’s", ")"]),
        # Titles and abbreviations keep their period, as Brown has them;
        # a sentence's last `no.` is not `No. 5`.
        ("Mr. Smith met Dr. Who.", ["Mr.", "Smith", "met", "Dr.", "Who", "."]),
        (
            "Apple Inc.'s No. 5 said no.",
            ["Apple", "Inc.'s", "No.", "5", "said", "no", "."],
        ),
        # Cashtags and HTML entities (as tweets carry them) stay whole; a
        # dollar amount does not.
        ("$AAPL &amp; $5", ["$AAPL", "&amp;", "$", "5"]),
        ("x&y; a &b", ["x", "&", "y", ";", "a", "&", "b"]),
        # A URL stays whole whatever the case of its scheme.
        ("see https://keras.io/api.", ["see", "https://keras.io/api", "."]),
        ("see HTTP://FOO.BAR/X now", ["see", "HTTP://FOO.BAR/X", "now"]),
        ("Https://Foo.bar, ok", ["Https://Foo.bar", ",", "ok"]),
    ],
)
def test_split_punctuation_splits_a_string_as_treebanks_do(string, tokens):
    got = text.tokenize(string, lowercase=False, split_punctuation=True)
    assert got == tokens
    # Without it, whitespace only; a list of words is never re-split.
    assert text.tokenize(string, lowercase=False) == string.split()
    assert (
        text.tokenize(string.split(), lowercase=False, split_punctuation=True)
        == string.split()
    )
