"""Parallel text for translation: Bible verses aligned across two SWORD
modules, split by whole books, or a user's two line-aligned files.

`verse_pairs("sparv", "web")` pairs each verse of the Reina-Valera 1909
(Spanish) with the same verse (book, chapter, verse) of the World English
Bible, both read by `recipes.data.sword` (Debian's `sword-text-sparv`
and `sword-text-web`, public domain): 31,077 pairs; a verse that only
one of them has, or that is empty in one, is left out. The Spanish
module counts verses by the KJV's scheme and the WEB by the NRSVA's;
they agree on every book of the Protestant canon except in a few
chapters' numbering, whose verses then pair wrongly (kept: a translation
system sees such noise in any corpus).

`split_by_books`: the development and test sets are whole books
(`DEV_BOOKS`, `TEST_BOOKS`), chosen so that neither has a close parallel
in training (no gospel, no book of Kings or Chronicles, whose verses
retell each other's), so no verse's neighbours, and no retelling of it,
are trained on. About 4% and 5% of the verses.

`read_files(source, target)`: a user's parallel text, one sentence a line
in each UTF-8 file, line `i` of one the translation of line `i` of the
other.
"""

import dataclasses
import json
import pathlib

from harness import files
from recipes.data import cache
from recipes.data import conllu
from recipes.data import sword
from recipes.data.errors import DataError
from zoo.subwords import Subwords

DEV_BOOKS = ("Josh", "Lam", "Amos", "Nah", "Hab", "Col", "Titus", "1Pet")
TEST_BOOKS = ("Ruth", "Esth", "Jonah", "Acts", "Phil", "Jas")
# The cached pairs' file and its format (a new format, a new folder).
PAIRS_FILE = "pairs.json"
PAIRS_FORMAT = "pairs-1"


@dataclasses.dataclass(frozen=True)
class Pair:
    """A source sentence, its translation and where it is from (`book`
    an OSIS name, `""` for a user's files; `line` its verse or line)."""

    source: str
    target: str
    book: str = ""
    chapter: int = 0
    line: int = 0

    def reversed(self):
        """The pair the other way round (target to source)."""
        return dataclasses.replace(self, source=self.target, target=self.source)


def verse_pairs(source="sparv", target="web", root=None):
    """The verses two SWORD modules both have, paired, in the target's
    order.

    Read once from the modules and kept in the data cache
    (`parallel/SOURCE-TARGET-DIGEST/pairs.json`, `DIGEST` from both
    modules' files, `recipes.data.sword.fingerprint`), checked against
    its `SHA256SUMS` on every later use.

    Raises:
        DataError: a module is not installed (naming its Debian package)
            or damaged (`recipes.data.sword.verses`), the two share no
            verse, or the cached pairs fail their checksum.
    """
    key = files.digest(
        [
            PAIRS_FORMAT,
            sword.fingerprint(source, root),
            sword.fingerprint(target, root),
        ]
    )[:16]
    name = "".join(c if c.isalnum() else "_" for c in f"{source}-{target}")

    def write(folder):
        rows = [
            dataclasses.astuple(pair)
            for pair in _read_pairs(source, target, root)
        ]
        (folder / PAIRS_FILE).write_text(
            json.dumps(rows, ensure_ascii=False), encoding="utf-8"
        )

    folder = cache.converted(
        cache.folder("parallel") / f"{name}-{key}",
        [PAIRS_FILE],
        write,
        "verse pairs",
    )
    rows = json.loads((folder / PAIRS_FILE).read_text(encoding="utf-8"))
    return [Pair(*row) for row in rows]


def _read_pairs(source, target, root):
    found = {
        (v.book, v.chapter, v.verse): v.text for v in sword.verses(source, root)
    }
    pairs = [
        Pair(found[key], v.text, v.book, v.chapter, v.verse)
        for v in sword.verses(target, root)
        if (key := (v.book, v.chapter, v.verse)) in found
    ]
    if not pairs:
        raise DataError(
            f"SWORD modules {source!r} and {target!r} share no verse: "
            "they cannot be paired"
        )
    return pairs


def split_by_books(pairs, dev=DEV_BOOKS, test=TEST_BOOKS):
    """`(train, dev, test)`: the pairs of the `dev` books, of the `test`
    books, and of every other book.

    Raises:
        DataError: a split comes out empty (the modules lack its books).
    """
    if set(dev) & set(test):
        raise DataError(
            f"books {sorted(set(dev) & set(test))} are in both the dev and "
            "the test split"
        )
    parts = {"train": [], "dev": [], "test": []}
    for pair in pairs:
        name = (
            "dev"
            if pair.book in dev
            else "test"
            if pair.book in test
            else "train"
        )
        parts[name].append(pair)
    for name, books in (("dev", dev), ("test", test), ("train", None)):
        if not parts[name]:
            raise DataError(
                f"the {name} split is empty"
                + (
                    f": the modules have none of the books {list(books)}"
                    if books
                    else ""
                )
            )
    return parts["train"], parts["dev"], parts["test"]


def read_files(source, target):
    """The pairs of two line-aligned UTF-8 files (line `i` of `source`
    translates to line `i` of `target`); a pair with an empty side is an
    error naming the line.

    Raises:
        DataError: a file missing or not UTF-8, the two of different
            lengths, an empty line on one side, or no pair at all.
    """
    sides = [_lines(path) for path in (source, target)]
    if len(sides[0]) != len(sides[1]):
        raise DataError(
            f"{source} has {len(sides[0])} lines and {target} "
            f"{len(sides[1])}: parallel files need one line each per pair"
        )
    pairs = []
    for number, (left, right) in enumerate(zip(*sides), 1):
        if not left.strip() and not right.strip():
            continue
        for path, text in ((source, left), (target, right)):
            if not text.strip():
                raise DataError(
                    f"{path}, line {number}: empty, but the other file's "
                    "line is not (each pair needs both sides)"
                )
        pairs.append(Pair(left.strip(), right.strip(), line=number))
    if not pairs:
        raise DataError(f"{source} and {target}: no sentence pair in them")
    return pairs


def _lines(path):
    """The lines of a UTF-8 file, split at `\\n` only (`str.splitlines`
    would also split at U+2028, `\\x85`, form feeds..., which scraped
    text holds, and misalign the two files); a final `\\r` is dropped."""
    lines = conllu.read_text(path, "a parallel text").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


SUBWORD_FILES = ("source.model", "target.model")


def subword_models(
    train, vocabulary_size, model_type="unigram", cache_dir=None
):
    """`(source, target)` `zoo.subwords.Subwords` learned from the
    training pairs' two sides (never dev or test text), each with up to
    `vocabulary_size` pieces: learned once per training text and
    settings into `cache.folder("subwords") / DIGEST` (`source.model`,
    `target.model`, `SHA256SUMS`, checked on every use), so a rerun and
    a resumed run read the same pieces.

    Raises:
        DataError: a cached model fails its checksum, or SentencePiece
            cannot learn that many pieces from a side (fewer pieces than
            the side has characters).
    """

    key = files.digest(
        [[(p.source, p.target) for p in train], vocabulary_size, model_type]
    )[:24]
    base = pathlib.Path(cache_dir or cache.folder("subwords"))

    def learn(folder):
        for name, side in zip(SUBWORD_FILES, ("source", "target")):
            try:
                model = Subwords.train(
                    [getattr(p, side) for p in train],
                    vocabulary_size,
                    model_type,
                )
            except ValueError as error:
                raise DataError(f"the {side} side: {error}") from None
            (folder / name).write_bytes(model.proto)

    folder = cache.converted(
        base / f"{model_type}-{vocabulary_size}-{key}",
        SUBWORD_FILES,
        learn,
        "subword models",
    )
    return tuple(Subwords((folder / n).read_bytes()) for n in SUBWORD_FILES)
