"""Written tokens as spoken words: numbers, ordinals, years, money,
percentages and common abbreviations, before a word is pronounced.

    verbalize(["I", "paid", "$", "3.50", "in", "1984", "."])
    # [("I", ["I"]), ("paid", ["paid"]), ("$3.50", ["three", "dollars",
    #  "fifty", "cents"]), ("in", ["in"]), ("1984", ["nineteen",
    #  "eighty", "four"]), (".", [])]

Each token keeps its place and gets the words it is read as (a
number's in lower case; none for punctuation; a sign read with its
number joins it): `1,024` -> one thousand and twenty-four; `3.5` -> three point
five; `21st` -> twenty-first; a year-like number (1100-2099, not money
or a percentage) -> nineteen eighty-four; `$3.50`, `£5`, `€20`, `¥100`
-> the amount and its unit; `50%` -> fifty percent; `Dr.`, `Mr.`, `St.`,
`e.g.`, `etc.` and the like -> their words; a `@mention`, `#hashtag` or
`$cashtag` -> its name; an HTML entity -> what it stands for (`&amp;` ->
and, `&#39;` -> nothing); a URL or an e-mail address -> nothing (it
is passed through as written, not read out). Other tokens are read as
they are.

The numbers are written out by `num2words` (LGPL-2.1, a maintained
library with ordinals and years; the issue's suggestion beside
`inflect`), in English; the money and the table of abbreviations are
here, because `num2words`' currency form reads a whole number as cents.
"""

import html
import re

from num2words import num2words

_CASHTAG = re.compile(r"^\$[A-Za-z][A-Za-z.]*$")
_ADDRESS = re.compile(r"^(?:https?://|www\.)|^[\w.+\-]+@\w")
_INTEGER = re.compile(r"^\d{1,3}(?:,\d{3})+$|^\d+$")
_DECIMAL = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)\.\d+$")
_ORDINAL = re.compile(r"^(\d+)(st|nd|rd|th)$", re.IGNORECASE)
_CURRENCY = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "€": ("euro", "euros", "cent", "cents"),
    "¥": ("yen", "yen", "sen", "sen"),
}
# Abbreviations read as words, with their full stop (one token `Dr.` as
# zoo.text keeps titles, or `Dr` and `.`); lower-case keys. A pair is read by
# what follows: a capitalised name (`St. Paul`, `Dr. Who`) its first,
# anything else its second (`Baker St.`, `Mulholland Dr.`).
ABBREVIATIONS = {
    "mr": "mister",
    "mrs": "missus",
    "ms": "miz",
    "dr": ("doctor", "drive"),
    "prof": "professor",
    "st": ("saint", "street"),
    "jr": "junior",
    "sr": "senior",
    "vs": "versus",
    "etc": "et cetera",
    "e.g.": "for example",
    "i.e.": "that is",
    "approx": "approximately",
    "dept": "department",
    "govt": "government",
    "no": None,  # "No." is "number" only before a number (below)
}
_NUMBER_WORD = "number"


def number_words(text, kind="cardinal"):
    """`num2words` of a number written in `text` (`1,024`, `3.5`), as a
    list of lower-case words (commas and hyphens dropped)."""
    value = text.replace(",", "")
    number = float(value) if "." in value else int(value)
    if kind == "year":
        spoken = num2words(number, to="year")
    elif kind == "ordinal":
        spoken = num2words(number, to="ordinal")
    else:
        spoken = num2words(number)
    return spoken.replace(",", " ").replace("-", " ").lower().split()


def money_words(amount, sign):
    """`3.50` after `$`: three dollars fifty cents (a whole amount: its
    unit alone; cents alone: the cents)."""
    one, many, small, smalls = _CURRENCY[sign]
    whole, _, fraction = amount.replace(",", "").partition(".")
    units = int(whole or 0)
    cents = int((fraction + "00")[:2]) if fraction else 0
    words = []
    if units or not cents:
        words += number_words(str(units)) + [one if units == 1 else many]
    if cents:
        words += number_words(str(cents)) + [small if cents == 1 else smalls]
    return words


def is_number(token):
    """Whether `token` is a number the verbalizer reads (`1,024`, `3.5`,
    `21st`)."""
    return bool(
        _INTEGER.match(token) or _DECIMAL.match(token) or _ORDINAL.match(token)
    )


def _year_like(token):
    return bool(re.fullmatch(r"\d{4}", token)) and 1100 <= int(token) <= 2099


def verbalize(tokens):
    """`[(token, words), ...]`: the tokens of `tokens` (as
    `zoo.text.tokenize(..., split_punctuation=True)` splits text) with the
    words each is read as (see the module's docstring). A sign read with
    its number joins it (`$`, `3.50` -> `$3.50`; `50`, `%` -> `50%`), as
    does the full stop of an abbreviation (`Dr`, `.` -> `Dr.`), so no
    token is left that says nothing."""
    tokens = list(tokens)
    result = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        written, words, used = _read(tokens, i, token, after)
        result.append((written, words))
        i += used
    return result


def _read(tokens, i, token, after):
    """`(written, words, tokens used)` for the token at `i`."""
    if token in _CURRENCY and is_number(after) and not _ORDINAL.match(after):
        words = money_words(after, token)
        used = 2
        if i + 2 < len(tokens) and tokens[i + 2] == "%":
            return token + after + "%", [*words, "percent"], 3
        return token + after, words, used
    if is_number(token):
        ordinal = _ORDINAL.match(token)
        if ordinal:
            words = number_words(ordinal.group(1), "ordinal")
        elif _year_like(token) and after != "%":
            words = number_words(token, "year")
        else:
            words = number_words(token)
        if after == "%":
            return token + "%", [*words, "percent"], 2
        return token, words, 1
    lower = token.lower()
    # `Dr.` whole (zoo.text keeps titles with their full stop) or split.
    whole = lower.endswith(".") and lower[:-1] in ABBREVIATIONS
    if whole or (lower in ABBREVIATIONS and (after == "." or "." in lower)):
        spoken = ABBREVIATIONS[lower[:-1] if whole else lower]
        following = after if whole else tokens_after(tokens, i)
        if isinstance(spoken, tuple):
            spoken = spoken[0] if following[:1].isupper() else spoken[1]
        if spoken is None:  # "No." before a number
            spoken = _NUMBER_WORD if is_number(following) else None
        if spoken is not None:
            if after == "." and not whole:
                return token + ".", spoken.split(), 2
            return token, spoken.split(), 1
    if token.startswith("&") and token.endswith(";") and len(token) > 2:
        meant = html.unescape(token)  # an HTML entity: what it stands for
        if meant != token:
            return token, _read([meant], 0, meant, "")[1], 1
    if token == "&":
        return token, ["and"], 1
    if _ADDRESS.match(token):
        return token, [], 1  # a URL or an e-mail address: not read out
    if token[:1] in "@#" and len(token) > 1 or _CASHTAG.match(token):
        return token, [token[1:]], 1  # a @mention, #hashtag, $cashtag
    return token, [token] if any(c.isalnum() for c in token) else [], 1


def tokens_after(tokens, i):
    """The token after `tokens[i]`'s full stop, or ""."""
    return tokens[i + 2] if i + 2 < len(tokens) else ""
