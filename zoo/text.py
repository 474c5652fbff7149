"""Text to token ids: the one normaliser and vocabulary builder.

Everything that turns text into ids, at training time and at inference,
goes through `normalize`, so the two can never disagree (Python's
`str.lower` is Unicode-aware: `Москва` -> `москва`, `Über` -> `über`,
`ΑΘΗΝΑ` -> `αθηνα`, where Keras's `TextVectorization(standardize="lower")`
lowercases ASCII only).

The rule, decided once: NFC, then `str.lower`, then Turkish/Azeri
capital dotted `İ` as plain `i` (`str.lower` writes `i` plus a combining
dot above, U+0307, which would make `BİR` a different token from `bir`).
Lower-casing is locale-free, as Python's is: capital dotless `I` becomes
`i`, not Turkish `ı` (`AÇIK` -> `açik`), so an all-capitals Turkish word
with `I` matches its lower-case form only if the corpus has it.
`str.casefold` was not chosen: it also rewrites `ß` as `ss` and `ς` as
`σ`, which merges words that differ.

The trained model maps ids to outputs; the vocabulary travels with it in
a `zoo.layers.TokenVocabulary` layer.

Hand-written rather than `keras.layers.TextVectorization` because that
layer runs on TensorFlow only: this works on every Keras backend and
needs nothing but Python.
"""

import collections
import re
import unicodedata

from zoo import validation as v

PAD = ""
OOV = "[UNK]"
SPECIALS = (PAD, OOV)


# What `"İ".lower()` gives: `i` and a combining dot above.
_DOTTED_I = "i\u0307"


def _is_punctuation(char):
    return unicodedata.category(char).startswith("P")


def normalize(token, *, lowercase=True, strip_punctuation=False):
    """One token (or text) as the vocabulary stores it.

    NFC first (so composed and decomposed accents are one token), then
    Unicode lower-casing (`İ` as `i`: the module's docstring says why),
    then, if asked, every Unicode punctuation character removed.
    """
    if not isinstance(token, str):
        raise TypeError(
            f"`token` must be a string; received {token!r} of type "
            f"{type(token).__name__}."
        )
    token = unicodedata.normalize("NFC", token)
    if lowercase:
        token = token.lower().replace(_DOTTED_I, "i")
    if strip_punctuation:
        token = "".join(c for c in token if not _is_punctuation(c))
    return token


# Emoji: a pictograph with its variation selector and skin tone, joined
# to the next by zero-width joiners (a family, a profession), or a pair
# of regional indicators (a flag): one token each, as a reader sees one.
_PICTOGRAPH = (
    r"[\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\u3030\u303d\u3297\u3299"
    r"\U0001f000-\U0001f1e5\U0001f200-\U0001faff]"
    r"[\ufe0e\ufe0f\U0001f3fb-\U0001f3ff\u20e3]*"
)
_EMOJI = (
    rf"(?:[\U0001f1e6-\U0001f1ff]{{2}}|{_PICTOGRAPH}"
    rf"(?:\u200d{_PICTOGRAPH})*|[#*0-9]\ufe0f?\u20e3)"
)
_ABBREVIATIONS = "|".join(
    "Mr Mrs Ms Messrs Dr St Jr Sr Co Corp Inc Ltd Bros Gen Gov Sen Rep Rev "
    "Prof Capt Col Lt Sgt Maj Mt Ft Ave Blvd vs etc Jan Feb Mar Apr Jun Jul "
    "Aug Sep Sept Oct Nov Dec".split()
)
# A URL (to its last character that is not sentence punctuation), an
# e-mail address, a @mention, #hashtag or $cashtag, an HTML entity as
# tweets carry them (`&amp;`), an emoji, an initialism
# (`U.S.`), a title or abbreviation written with its period as the
# treebanks keep it (`Mr.`, `Dr.`, `Inc.`, `Jan.`, `No. 5`), a number with
# thousands separators (`1,000,000.5`), a word
# (letters, digits, `_`; inner `'`, `’`, `.`, `-` kept: `don't`, `3.5`,
# `well-known`) or a run of one punctuation character (`...`).
_WORD_OR_PUNCTUATION = re.compile(
    r"(?i:https?://|www\.)\S+?(?=[.,;:!?)\]\"'’”]*(?:\s|$))"  # URL
    r"|[\w.+\-]+@\w[\w\-]*(?:\.\w[\w\-]*)+"  # e-mail address
    r"|[@#]\w+|\$[^\W\d_]\w*"  # @mention, #hashtag, $cashtag
    r"|&(?:amp|lt|gt|quot|apos|nbsp|#\d+|#x[\dA-Fa-f]+);"  # HTML entity
    rf"|{_EMOJI}"  # emoji
    r"|(?:[^\W\d_]\.){2,}"  # initialism
    rf"|\b(?:{_ABBREVIATIONS})\.(?:['’]s)?(?!\w)"  # Mr., Inc.'s
    r"|\bNo\.(?=\s*\d)"  # No. 5
    r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w)"  # 1,000,000.5
    r"|\w+(?:['’.\-]\w+)*"  # word
    r"|([^\w\s])\1*"  # punctuation
)


def tokenize(
    text, *, lowercase=True, strip_punctuation=False, split_punctuation=False
):
    """Whitespace-split `text` (a string, or a list of tokens already
    split), normalised; tokens that normalise to nothing are dropped.

    `split_punctuation=True` also splits a string's punctuation from its
    words, as treebanks tokenise (`"butter!"` -> `butter`, `!`; `don't`,
    `3.5`, `1,000`, `well-known` and `...` stay whole), and keeps whole
    what a reader sees as one: a URL, an e-mail address, a `@mention`, a
    `#hashtag`, an emoji (a ZWJ sequence, a flag, a skin tone). A list is
    never re-split.
    """
    if isinstance(text, str) and split_punctuation:
        tokens = [
            m.group(0)
            for m in _WORD_OR_PUNCTUATION.finditer(
                unicodedata.normalize("NFC", text)
            )
        ]
    else:
        tokens = text.split() if isinstance(text, str) else list(text)
    normal = (
        normalize(t, lowercase=lowercase, strip_punctuation=strip_punctuation)
        for t in tokens
    )
    return [t for t in normal if t]


def build_vocabulary(
    texts,
    *,
    lowercase=True,
    strip_punctuation=False,
    min_count=1,
    max_tokens=None,
):
    """The tokens of `texts` seen at least `min_count` times, most
    frequent first (ties alphabetically), at most `max_tokens` including
    the two special entries (padding and `[UNK]`), which are not returned.
    """
    v.check_positive_int("min_count", min_count)
    if max_tokens is not None:
        v.check_positive_int("max_tokens", max_tokens)
    counts = collections.Counter(
        token
        for text in texts
        for token in tokenize(
            text, lowercase=lowercase, strip_punctuation=strip_punctuation
        )
    )
    kept = sorted(
        (t for t, c in counts.items() if c >= min_count and t != OOV),
        key=lambda t: (-counts[t], t),
    )
    if max_tokens is not None:
        kept = kept[: max(max_tokens - len(SPECIALS), 0)]
    return kept
