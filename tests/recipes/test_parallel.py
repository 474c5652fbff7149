"""`recipes.data.parallel`: verse pairs of two SWORD modules (faked
here), split by whole books, and a user's two line-aligned files."""

import pytest

from recipes.data import cache
from recipes.data import parallel
from recipes.data import sword
from recipes.data.errors import DataError


def verse(book, chapter, number, text):
    return sword.Verse(book, 0, chapter, number, text)


@pytest.fixture
def fake_modules(monkeypatch, tmp_path):
    """Two fake SWORD modules (`verses`, `fingerprint`), a data cache in
    `tmp_path`; returns the modules' verses and the calls of `verses`."""
    modules = {
        "es": [verse("Gen", 1, 1, "En el principio"), verse("Gen", 1, 2, "Y")],
        "en": [
            verse("Gen", 1, 1, "In the beginning"),
            verse("Gen", 1, 3, "God said"),  # the other module lacks it
            verse("Ruth", 1, 1, "In the days"),
        ],
    }
    calls = []

    def verses(name, root=None):
        calls.append(name)
        return modules[name]

    monkeypatch.setattr(sword, "verses", verses)
    monkeypatch.setattr(
        sword, "fingerprint", lambda name, root=None: repr(modules[name])
    )
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    return modules, calls


def test_verses_pair_by_book_chapter_and_verse(fake_modules):
    modules, _ = fake_modules
    pairs = parallel.verse_pairs("es", "en")
    assert pairs == [
        parallel.Pair("En el principio", "In the beginning", "Gen", 1, 1)
    ]
    modules["es"] = [verse("Exod", 1, 1, "Estos")]
    with pytest.raises(DataError, match="share no verse"):
        parallel.verse_pairs("es", "en")


def test_pairs_are_read_once_then_cached_and_checked(fake_modules, tmp_path):
    modules, calls = fake_modules
    first = parallel.verse_pairs("es", "en")
    assert calls == ["es", "en"]
    assert parallel.verse_pairs("es", "en") == first
    assert calls == ["es", "en"]  # from the cache, checksummed
    # A changed module (its fingerprint) is read anew.
    modules["en"] = [*modules["en"], verse("Gen", 1, 2, "And")]
    assert len(parallel.verse_pairs("es", "en")) == 2
    assert calls == ["es", "en", "es", "en"]
    (cached,) = [
        path
        for path in (tmp_path / "cache").rglob("pairs.json")
        if "And" in path.read_text(encoding="utf-8")
    ]
    cached.write_text(cached.read_text().replace("And", "But"))
    with pytest.raises(DataError, match="fail their checksum"):
        parallel.verse_pairs("es", "en")


def test_dev_and_test_are_whole_books():
    pairs = [
        parallel.Pair(f"s{i}", f"t{i}", book, 1, i)
        for i, book in enumerate(["Gen", "Josh", "Ruth", "Gen", "Acts", "Col"])
    ]
    train, dev, test = parallel.split_by_books(pairs)
    assert [p.book for p in train] == ["Gen", "Gen"]
    assert [p.book for p in dev] == ["Josh", "Col"]
    assert [p.book for p in test] == ["Ruth", "Acts"]
    with pytest.raises(DataError, match="in both the dev and the test"):
        parallel.split_by_books(pairs, dev=("Ruth",), test=("Ruth",))
    with pytest.raises(DataError, match="the dev split is empty"):
        parallel.split_by_books(pairs, dev=("Mark",))


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


def test_two_files_pair_line_by_line(tmp_path):
    source = write(tmp_path / "a.es", "hola\n\nadiós\n")
    target = write(tmp_path / "a.en", "hello\n\ngoodbye\n")
    pairs = parallel.read_files(source, target)
    assert [(p.source, p.target, p.line) for p in pairs] == [
        ("hola", "hello", 1),
        ("adiós", "goodbye", 3),
    ]


@pytest.mark.parametrize(
    "source,target,message",
    [
        ("uno\ndos\n", "one\n", "has 2 lines and"),
        ("uno\n\n", "one\ntwo\n", "a.es, line 2: empty"),
        ("", "", "no sentence pair"),
        (b"ni\xf1o\n", "child\n", r"a\.es:1: not UTF-8 \(byte 0xf1\)"),
    ],
)
def test_bad_parallel_files_are_one_clear_error(
    tmp_path, source, target, message
):
    left = tmp_path / "a.es"
    if isinstance(source, bytes):
        left.write_bytes(source)
    else:
        write(left, source)
    right = write(tmp_path / "a.en", target)
    with pytest.raises(DataError, match=message):
        parallel.read_files(left, right)
    with pytest.raises(
        DataError, match=r"missing\.es: cannot read a parallel text .*No such"
    ):
        parallel.read_files(tmp_path / "missing.es", right)


def test_lines_split_at_newlines_only(tmp_path):
    # U+2028 and a form feed are characters of a line, not line ends.
    source = write(tmp_path / "a.es", "uno\u2028dos\r\ntres\x0c\n")
    target = write(tmp_path / "a.en", "one two\nthree\n")
    pairs = parallel.read_files(source, target)
    assert [(p.source, p.target) for p in pairs] == [
        ("uno\u2028dos", "one two"),
        ("tres\x0c".strip(), "three"),
    ]
