"""`TokenFeatures`: a tagger's per-token features that are not learned
(word shape, gazetteer matches), kept in the model so that a saved file
computes them for new text."""

import re
import unicodedata

import keras
import numpy as np

from zoo._package import PACKAGE
from zoo.layers.vocabulary import _PassThrough

# Word shape: what lower-casing the vocabulary hides and the CRF's
# hand-written features read (Ratinov and Roth 2009; the WNUT-16
# baselines), one 0/1 feature each.
SHAPES = (
    "capitalised",  # first character upper-case
    "all_capitals",  # two or more letters, none lower-case
    "lower",  # every cased character lower-case
    "number",  # digits only
    "has_digit",
    "punctuation",  # punctuation marks only
    "mention",  # @name
    "hashtag",  # #word
    "address",  # a URL or an e-mail address
)
_ADDRESS = re.compile(r"^(?:https?://|www\.)\S+$|^[\w.+\-]+@\w[\w\-.]*\.\w+$")


def word_shape(word):
    """The `SHAPES` features of one word, a tuple of 0/1."""
    letters = [c for c in word if c.isalpha()]
    return (
        int(word[:1].isupper()),
        int(len(letters) > 1 and not any(c.islower() for c in letters)),
        int(word.islower()),
        int(word.isdigit()),
        int(any(c.isdigit() for c in word)),
        int(all(unicodedata.category(c)[0] == "P" for c in word)),
        int(len(word) > 1 and word[0] == "@"),
        int(len(word) > 1 and word[0] == "#"),
        int(bool(_ADDRESS.match(word))),
    )


def match_key(word):
    """How a word is compared with gazetteer entries: NFC, case-folded,
    a leading `#` or `@` dropped (`#London` and `@nike` match `london`
    and `nike`)."""
    word = unicodedata.normalize("NFC", word).casefold()
    if len(word) > 1 and word[0] in "#@":
        word = word[1:]
    return word


def phrase_key(phrase):
    """An entry's words as `match_key` reads them, joined by one space."""
    return " ".join(match_key(w) for w in phrase.split())


@keras.saving.register_keras_serializable(package=PACKAGE)
class TokenFeatures(_PassThrough):
    """Passes per-token float features through and keeps how to compute
    them from words: the layer on the `features` input of a tagger built
    with `zoo.stacked_rnn(..., token_features=layer.num_features)`.

    Two kinds of features, each 0 or 1 per token:

    - word shape (`shape=True`): the `SHAPES` of the word as written
      (capitalised, all capitals, digits, a `@mention`, a `#hashtag`, a
      URL, ...), which a lower-cased vocabulary does not see;
    - gazetteer matches: for each entry type (say `"location"`), `B-type`
      on the first word of every span of the sentence that is an entry
      of that type and `I-type` on its other words. Every matching span
      counts, nested and overlapping ones too (`"new york city"` and
      `"york"`); words are compared by `match_key` (case-folded, `#`
      and `@` dropped), so the lists need not match the text's case.

    The entries are saved in the layer's config (a saved model reads new
    text without the files they came from).

    Args:
        gazetteer: `{type: [phrase, ...]}`, phrases as words separated
            by spaces; `None` or `{}` for none.
        shape: include the word-shape features.

    Example:
    ```python
    features = zoo.layers.TokenFeatures({"location": ["new york"]})
    features.encode([["I", "love", "New", "York"]])[0, :, -2:]
    # B-location, I-location: [[0, 0], [0, 0], [1, 0], [0, 1]]
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(self, gazetteer=None, shape=True, **kwargs):
        super().__init__(**kwargs)
        gazetteer = {} if gazetteer is None else gazetteer
        if not isinstance(gazetteer, dict):
            raise TypeError(
                "`gazetteer` must be a dict {type: [phrase, ...]} or None; "
                f"received {type(gazetteer).__name__}."
            )
        if not isinstance(shape, bool):
            raise TypeError(
                f"`shape` must be True or False; received {shape!r}."
            )
        entries = {}
        for kind, phrases in gazetteer.items():
            if not isinstance(kind, str) or not kind.strip():
                raise ValueError(
                    "`gazetteer`'s types must be non-empty strings; "
                    f"received {kind!r}."
                )
            if isinstance(phrases, str) or not isinstance(
                phrases, (list, tuple)
            ):
                raise TypeError(
                    f"`gazetteer[{kind!r}]` must be a list of phrases; "
                    f"received {type(phrases).__name__}."
                )
            keys = set()
            for phrase in phrases:
                if not isinstance(phrase, str) or not phrase.split():
                    raise ValueError(
                        f"`gazetteer[{kind!r}]` must hold non-empty "
                        f"strings; received {phrase!r} among them."
                    )
                keys.add(phrase_key(phrase))
            if not keys:
                raise ValueError(
                    f"`gazetteer[{kind!r}]` is empty: give each type at "
                    "least one phrase, or leave the type out."
                )
            entries[kind] = sorted(keys)
        if not shape and not entries:
            raise ValueError(
                "`TokenFeatures` needs `shape=True` or a non-empty "
                "`gazetteer`: with neither it has no feature."
            )
        self.gazetteer = entries
        self.shape = shape
        self.types = sorted(entries)
        self._types = {}  # phrase key -> the column of each of its types
        for t, kind in enumerate(self.types):
            for key in entries[kind]:
                self._types.setdefault(key, []).append(t)
        # Every entry's proper prefixes (`"new"` of `"new york city"`): a
        # span that is none of them starts no longer entry, so the search
        # from a word stops there.
        self._prefixes = set()
        for key in self._types:
            words = key.split(" ")
            for n in range(1, len(words)):
                self._prefixes.add(" ".join(words[:n]))

    @property
    def feature_names(self):
        """The name of each feature column, in order."""
        shapes = list(SHAPES) if self.shape else []
        return shapes + [f"{p}-{kind}" for kind in self.types for p in "BI"]

    @property
    def num_features(self):
        """The width of the features: `len(feature_names)`."""
        return len(self.feature_names)

    def features(self, words):
        """A `(len(words), num_features)` float32 array for one sentence
        (a list of words)."""
        out = np.zeros((len(words), self.num_features), "float32")
        offset = 0
        if self.shape:
            offset = len(SHAPES)
            for i, word in enumerate(words):
                out[i, :offset] = word_shape(word)
        if not self._types:
            return out
        keys = [match_key(w) for w in words]
        for start in range(len(keys)):
            span = keys[start]
            for end in range(start + 1, len(keys) + 1):
                for t in self._types.get(span, ()):
                    column = offset + 2 * t
                    out[start, column] = 1.0
                    out[start + 1 : end, column + 1] = 1.0
                if span not in self._prefixes or end == len(keys):
                    break
                span = f"{span} {keys[end]}"
        return out

    def encode(self, sentences, width=None):
        """A `(len(sentences), width, num_features)` float32 array for
        lists of words, 0-padded; `width` defaults to the longest
        sentence."""
        width = width or max((len(s) for s in sentences), default=1) or 1
        out = np.zeros((len(sentences), width, self.num_features), "float32")
        for i, words in enumerate(sentences):
            words = list(words)[:width]
            out[i, : len(words)] = self.features(words)
        return out

    def get_config(self):
        return {
            **super().get_config(),
            "gazetteer": {kind: list(v) for kind, v in self.gazetteer.items()},
            "shape": self.shape,
        }
