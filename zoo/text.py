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


def _combining_marks():
    """Every combining mark (Unicode's category M: an accent written apart,
    Devanagari's vowel signs and virama, Hebrew's points) as the body of
    a character class: part of a word, though Python's `\\w` leaves them
    out (`हिन्दी` is one word, not six). Those of the first two planes and
    the variation selectors after them."""
    ranges = []
    for code in range(0x20000):
        if unicodedata.category(chr(code)).startswith("M"):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    ranges.append([0xE0100, 0xE01EF])
    return "".join(
        chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in ranges
    )


# A word's character: `\w` or a combining mark.
_LETTER = rf"[\w{_combining_marks()}]"
_ABBREVIATIONS = "|".join(
    "Mr Mrs Ms Messrs Dr St Jr Sr Co Corp Inc Ltd Bros Gen Gov Sen Rep Rev "
    "Prof Capt Col Lt Sgt Maj Mt Ft Ave Blvd vs etc al approx Assoc Dept "
    "dept Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Mon Tue Tues "
    "Wed Thu Thur Thurs Fri".split()
)
# Where a path or a dot file may begin: the start, after whitespace, an
# opening bracket or a quote (a path also after `=`: `PATH=/usr/bin`; a
# command-line flag after whitespace or a bracket only: `"--is`).
_STARTS = r"(?<![^\s(\[{\"'“‘`])"
# One name of a path: letters, digits and `_ ~ + % @ -`, with inner (or
# one leading) dots (`.bashrc`, `foo.tar.gz`), never a last dot (a
# sentence's period).
_NAME = r"\.?[\w~+%@\-]+(?:\.[\w~+%@\-]+)*"
# ... and one ending in a file's extension (`y.txt`, `foo.tar.gz`,
# `foo.c`; not the `r.t` of `w/r.t`).
_FILE = (
    r"(?:[\w~+%@\-]+(?:\.[\w~+%@\-]+)*\.[^\W\d_]\w+"
    r"|[\w~+%@\-]{2,}(?:\.[\w~+%@\-]+)*\.[^\W\d_])"
)
# Not after a character of a path's name (so that a long run of them is
# read once, not once from each of its characters).
_NOT_IN_A_NAME = r"(?<![\w~+%@\-./\\])"
# A sentence's punctuation after a URL or a flag's value, to the space.
_TRAILING = r"(?=[.,;:!?)\]>\"'’”]*(?:\s|$))"
_WORD_OR_PUNCTUATION = re.compile(
    # URL (any scheme, `www.`, `mailto:`) and e-mail address (`root@host`)
    rf"(?<![\w+.\-])(?i:[a-z][a-z\d+.\-]*://|www\.|mailto:)\S+?{_TRAILING}"
    r"|(?<![\w.+\-])[\w.+\-]+@\w[\w\-]*(?:\.\w[\w\-]*)*"
    # dates and times: 2024-12-07T10:30:00Z, 10:30, 10:30:15, the `5` of
    # `5pm` (then `pm`), 12/07/2024, 2024/12/07 (2024-12-07 and
    # 07.12.2024 are words)
    r"|\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+\-]\d\d:?\d\d)?"
    r"(?!\w)"
    r"|\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?(?!\d)"
    r"|\d{1,2}(?=(?i:[ap]\.?m)(?!\w))"
    r"|(?:\d{1,2}/\d{1,2}/(?:\d{4}|\d\d)|\d{4}/\d\d?/\d\d?)(?![\w/])"
    # paths: C:\Users\me, \\server\share, /etc/issue, ./configure,
    # ~/.bashrc, ../x/y.txt, src/zoo/text.py, github.com/keras-team/keras
    rf"|\b[A-Za-z]:[\\/](?:{_NAME}(?:[\\/]{_NAME})*[\\/]?)?"
    rf"|\\\\{_NAME}(?:\\{_NAME})+"
    rf"|(?:{_STARTS}|(?<==))(?:~|\.\.?)?(?:/{_NAME})+/?"
    rf"|{_NOT_IN_A_NAME}(?:{_NAME}/)+{_FILE}(?![\w/\-]|\.\w)"
    rf"|{_NOT_IN_A_NAME}(?:\w[\w\-]*\.)+(?-i:[a-z]{{2,}})(?:/{_NAME})+/?"
    # command-line flags: --system, --foo=bar, -v, -j4; a dot file or an
    # extension (`.bashrc`, `.doc`)
    r"|(?<![^\s(\[{`])(?:--[a-z\d]\w*(?:-\w+)*|-[A-Za-z]\d*(?![\w\-]))"
    rf"(?:=\S*?{_TRAILING})?"
    rf"|{_STARTS}\.[^\W\d_][\w\-]*(?:\.\w+)*"
    r"|(?<!\w)@\w+|#(?!\d+(?!\w))\w+|\$[^\W\d_]\w*"  # @mention, #tag, $tag
    r"|&(?:amp|lt|gt|quot|apos|nbsp|#\d+|#x[\dA-Fa-f]+);"  # HTML entity
    rf"|{_EMOJI}"  # emoji
    # emoticon (`:)`, `;-)`, `:D`), not inside a word or a URL
    r"|(?<![\w:;=])[:;=][\-'’^]?(?:[()\[\]|\\/*]+|[DPpOo])(?![\w])"
    # initialism: U.S., S.O.B, U.S.'s
    r"|(?:[^\W\d_]\.){2,}(?:[^\W\d_](?![\w.])|['’]s(?!\w))?"
    rf"|\b(?:{_ABBREVIATIONS})\.(?:['’]s)?(?!\w)"  # Mr., Inc.'s
    r"|\bNo\.(?=\s*\d)"  # No. 5
    r"|\b[A-Z]\.(?=\s+[A-Z][a-z])"  # a name's initial: George W. Bush
    r"|(?<![\w'’])['’]\d\d(?:s)?(?![\w'’])"  # a year: '67, the '90s
    r"|\b[A-Z]{1,3}&[A-Z]{1,3}(?:['’]s)?\b"  # AT&T, R&D, A&M's
    r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w)"  # 1,000,000.5
    # a word: letters, digits, `_` and combining marks; inner `'`, `’`,
    # `.`, `-` kept (`don't`, `3.5`, `well-known`, `setup.py`, `v1.2.3`)
    rf"|\w{_LETTER}*(?:['’.\-]{_LETTER}+)*"
    r"|(?:\.(?=[!?])|[!?])[.!?]*"  # ?!, .?, !!!? (an ellipsis apart)
    r"|([^\w\s])\1*"  # a run of one other punctuation character
)


def tokenize(
    text, *, lowercase=True, strip_punctuation=False, split_punctuation=False
):
    """Whitespace-split `text` (a string, or a list of tokens already
    split), normalised; tokens that normalise to nothing are dropped.

    `split_punctuation=True` also splits a string's punctuation from its
    words, as treebanks tokenise (`"butter!"` -> `butter`, `!`; `don't`,
    `3.5`, `1,000`, `well-known`, `state-of-the-art`, `...` and `?!`
    stay whole), and keeps whole what a reader sees as one, its
    sentence's punctuation split off its end (`See /etc/issue.` ->
    `See`, `/etc/issue`, `.`; `(v1.2)` -> `(`, `v1.2`, `)`):

    - a URL (any scheme, `www.`, `mailto:`), an e-mail address (also
      `root@localhost`), a `@mention`, a `#hashtag` (`#1` is `#`, `1`), a
      `$cashtag`, an HTML entity, an emoji (a ZWJ sequence, a flag, a skin
      tone), an emoticon (`:)`, `;-)`, `:D`);
    - a path (`/etc/issue`, `./configure`, `~/.bashrc`, `../x/y.txt`,
      `C:\\Users\\me`, `src/zoo/text.py`, `github.com/keras-team/keras`; a
      relative one ends in a file's extension or starts with a domain, so
      `and/or` is `and`, `/`, `or`), a file name (`setup.py`, `.bashrc`),
      a version (`v1.2.3`, `1.0-rc1`), a command-line flag (`--system`,
      `-v`, `-j4`, `--foo=bar` with its value);
    - a date (`2024-12-07`, `12/07/2024`, `07.12.2024`,
      `2024-12-07T10:30:00Z`), a time (`10:30`, `10:30:15`; `3:30pm` is
      `3:30`, `pm` and `5pm` is `5`, `pm`, as UD English writes them), a
      year's `'90s`;
    - an initialism (`U.S.`), a title or abbreviation with its period
      (`Mr.`, `etc.`, `et al.`), a name's initial before a capitalised
      name (`George W. Bush`), `AT&T`;
    - a word with its combining marks (`हिन्दी`, `עִבְרִית`).

    A list is never re-split.
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
