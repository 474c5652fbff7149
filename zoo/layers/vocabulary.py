"""Layers that carry a model's vocabulary and label names in its file."""

import collections
import unicodedata

import keras
import numpy as np

from zoo import options
from zoo import text as text_lib
from zoo._package import PACKAGE


class _PassThrough(keras.layers.Layer):
    """A layer that returns its inputs and their mask unchanged: what
    `TokenVocabulary` and `LabelNames` compute (they only carry data)."""

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_mask(self, inputs, mask=None):
        return mask


@keras.saving.register_keras_serializable(package=PACKAGE)
class TokenVocabulary(_PassThrough):
    """Passes token ids through and keeps the tokens they stand for.

    The first layer of a model that reads token ids, so that a saved
    `.keras` file says how to turn text into its inputs: `encode` applies
    `zoo.text.normalize` with the same settings as when the vocabulary was
    built. Id 0 is padding, id 1 is `[UNK]`, id `i + 2` is `tokens[i]`.

    Args:
        tokens: list of distinct strings (without the two special ones).
        lowercase: lower-case tokens before the lookup.
        strip_punctuation: remove punctuation before the lookup.

    Example:
    ```python
    vocabulary = zoo.layers.TokenVocabulary(["the", "cat"])
    vocabulary.encode(["The cat sat"])  # [[2, 3, 1]]
    ```
    """

    def __init__(
        self, tokens, lowercase=True, strip_punctuation=False, **kwargs
    ):
        super().__init__(**kwargs)
        tokens = list(tokens)
        if not tokens:
            raise ValueError(
                "`tokens` must hold at least one token (ids 0 and 1, "
                "padding and [UNK], are added to them); received []."
            )
        bad = [t for t in tokens if not isinstance(t, str) or not t]
        if bad:
            raise ValueError(
                "`tokens` must be non-empty strings; received "
                f"{bad[:3]!r} among them."
            )
        if len(set(tokens)) != len(tokens) or text_lib.OOV in tokens:
            raise ValueError(
                "`tokens` must be distinct and must not contain "
                f"{text_lib.OOV!r}."
            )
        self.tokens = tokens
        self.lowercase = bool(lowercase)
        self.strip_punctuation = bool(strip_punctuation)
        self._ids = {t: i + 2 for i, t in enumerate(tokens)}

    @property
    def vocabulary_size(self):
        """Number of ids, the two special ones included."""
        return len(self.tokens) + 2

    def get_vocabulary(self):
        """Every token by id: `["", "[UNK]", *tokens]`."""
        return [*text_lib.SPECIALS, *self.tokens]

    def tokenize(self, text):
        """`zoo.text.tokenize` with this vocabulary's settings."""
        return text_lib.tokenize(
            text,
            lowercase=self.lowercase,
            strip_punctuation=self.strip_punctuation,
        )

    def ids(self, tokens):
        """Ids of tokens already split (normalised here)."""
        return [
            self._ids.get(
                text_lib.normalize(
                    t,
                    lowercase=self.lowercase,
                    strip_punctuation=self.strip_punctuation,
                ),
                1,
            )
            for t in tokens
        ]

    def encode(self, texts, max_length=None):
        """A `(len(texts), width)` int32 array of ids, 0-padded.

        `texts` holds strings (whitespace-split and normalised) or lists
        of tokens (normalised one by one, never split or dropped, so that
        row `i` has one id per token, as a tagger needs). `width` is the
        longest row, cut to `max_length` if given.
        """
        rows = [
            self.ids(t) if not isinstance(t, str) else self.text_ids(t)
            for t in texts
        ]
        if max_length is not None:
            rows = [r[:max_length] for r in rows]
        width = max((len(r) for r in rows), default=0)
        out = np.zeros((len(rows), max(width, 1)), "int32")
        for i, row in enumerate(rows):
            out[i, : len(row)] = row
        return out

    def text_ids(self, text):
        """Ids of a string: `tokenize`d (empty tokens dropped), looked up."""
        return [self._ids.get(t, 1) for t in self.tokenize(text)]

    def get_config(self):
        return {
            **super().get_config(),
            "tokens": list(self.tokens),
            "lowercase": self.lowercase,
            "strip_punctuation": self.strip_punctuation,
        }


@keras.saving.register_keras_serializable(package=PACKAGE)
class LabelNames(_PassThrough):
    """Passes class probabilities through and keeps the class names.

    What a tagger's or classifier's preprocessor keeps its label names in
    (`zoo.tasks.TaggerPreprocessor`): `labels[i]` names output column
    `i`; as the last layer of a model of your own, it says the same in
    its saved file.

    Args:
        labels: list of distinct strings, one per output column.
    """

    def __init__(self, labels, **kwargs):
        super().__init__(**kwargs)
        labels = list(labels)
        if not labels or not all(isinstance(x, str) for x in labels):
            raise ValueError(
                "`labels` must be a non-empty list of strings; received "
                f"{labels!r}."
            )
        counts = collections.Counter(labels)
        repeated = sorted(x for x, n in counts.items() if n > 1)
        if repeated:
            raise ValueError(
                "`labels` must name each output column once; received "
                f"{', '.join(map(repr, repeated))} more than once in "
                f"labels={labels!r}."
            )
        self.labels = labels

    def decode(self, probabilities):
        """Names of the most likely classes, same leading shape."""
        ids = np.asarray(probabilities).argmax(axis=-1)
        return np.asarray(self.labels, dtype=object)[ids]

    def get_config(self):
        return {**super().get_config(), "labels": list(self.labels)}


@keras.saving.register_keras_serializable(package=PACKAGE)
class CharacterVocabulary(_PassThrough):
    """Passes character ids through and keeps the characters they stand
    for: the first layer on the character input of a model with
    `zoo.layers.CharacterEncoder`, so the saved file says how to spell
    words into its inputs.

    Words are NFC-normalised but keep their case (capitals are what a
    character model reads names and sentence starts from). Id 0 is
    padding, id 1 an unseen character, id `i + 2` is `characters[i]`. A
    word longer than `max_chars` keeps its first and last `max_chars //
    2` characters (prefixes and suffixes carry the morphology).

    Args:
        characters: list of distinct one-character strings.
        max_chars: the most characters read per word, an integer >= 2
            (`zoo.options.get("max_chars")`).

    Example:
    ```python
    spell = zoo.layers.CharacterVocabulary.from_words(["cat", "dog"])
    spell.encode([["a", "cat"]]).shape  # (1, 2, 8)
    ```
    """

    def __init__(self, characters, max_chars=24, **kwargs):
        super().__init__(**kwargs)
        characters = list(characters)
        bad = [c for c in characters if not isinstance(c, str) or len(c) != 1]
        if bad or len(set(characters)) != len(characters):
            raise ValueError(
                "`characters` must be distinct one-character strings; "
                f"received {(bad or characters)[:3]!r} among them."
            )
        self.characters = characters
        self.max_chars = options.validate("max_chars", max_chars)
        self._ids = {c: i + 2 for i, c in enumerate(characters)}

    @classmethod
    def from_words(cls, words, min_count=1, **kwargs):
        """The characters of `words` seen at least `min_count` times,
        most frequent first (ties by code point)."""
        counts = collections.Counter(
            c for w in words for c in unicodedata.normalize("NFC", w)
        )
        kept = sorted(
            (c for c, n in counts.items() if n >= min_count),
            key=lambda c: (-counts[c], c),
        )
        return cls(kept, **kwargs)

    @property
    def vocabulary_size(self):
        """Number of ids, padding and the unseen character included."""
        return len(self.characters) + 2

    def spell(self, word):
        """The ids of one word's characters (at most `max_chars`)."""
        word = unicodedata.normalize("NFC", word)
        if len(word) > self.max_chars:
            half = self.max_chars // 2
            word = word[:half] + word[-half:]
        return [self._ids.get(c, 1) for c in word]

    def encode(self, sentences, width=None, multiple=8):
        """A `(len(sentences), words, chars)` int32 array for lists of
        words, 0-padded; `words` is the longest sentence (or `width`),
        `chars` the longest word rounded up to a `multiple`."""
        rows = [[self.spell(w) for w in words] for words in sentences]
        words = width or max((len(r) for r in rows), default=1) or 1
        longest = max((len(s) for r in rows for s in r), default=1) or 1
        chars = -(-longest // multiple) * multiple
        out = np.zeros((len(rows), words, chars), "int32")
        for i, row in enumerate(rows):
            for j, ids in enumerate(row[:words]):
                out[i, j, : len(ids)] = ids
        return out

    def get_config(self):
        return {
            **super().get_config(),
            "characters": list(self.characters),
            "max_chars": self.max_chars,
        }
