"""English text as UD English (EWT, GUM) splits it into words.

`split_words` is `zoo.text.tokenize(text, lowercase=False,
split_punctuation=True)`, the one language-independent tokeniser, with
English clitics then split off the tokens it gives, as the UD English
treebanks write them (their multiword tokens), case kept:

- `n't` and `'s`, `'m`, `'re`, `'ve`, `'ll`, `'d` after a letter (or an
  abbreviation's period: `Inc.'s`): `don't` -> `do` `n't`, `can't` ->
  `ca` `n't`, `won't` -> `wo` `n't`, `I'm` -> `I` `'m`, `John's` ->
  `John` `'s`, `should've` -> `should` `'ve`, `wouldn't've` -> `would`
  `n't` `'ve`, `DON'T` -> `DO` `N'T`; with `'` or `’`;
- `cannot` -> `can` `not`, `gonna` -> `gon` `na`, `wanna` -> `wan` `na`,
  `gotta` -> `got` `ta`, `outta` -> `out` `ta`, `dunno` -> `du` `n` `no`;
- the same contractions written without their apostrophe, as EWT splits
  them (`dont` -> `do` `nt`, `cant` -> `ca` `nt`, `im` -> `i` `m`,
  `thats` -> `that` `s`; `IM`, an instant message, stays whole); not
  `its`, `lets`, `id`, `ill`, `hes`, `were`, `well`, which are words of
  their own more often;
- a number and the unit written on to it (`5kg` -> `5` `kg`, `10K` ->
  `10` `K`, `2x` -> `2` `x`; `21st`, `1990s` and `3D` stay whole).

A plural's possessive apostrophe is already its own token (`dogs'` ->
`dogs` `'`: `zoo.text.tokenize` splits an apostrophe that ends a word).
Nothing else is split: `y'all`, `o'clock`, `O'Brien`, `ma'am`,
`rock'n'roll`, a decade's `'s` (`80's`) and `kinda` stay whole, as in
EWT.
"""

import re

from zoo import text as text_lib
from zoo import validation as v

# A clitic at a token's end, after a letter or an abbreviation's period
# (greedy: the longest stem, so `don't` is `do` `n't`, not `don` `'t`).
_CLITIC = re.compile(
    r"(?P<stem>.*[^\W\d_]\.?)(?P<clitic>n['’]t|['’](?:s|m|d|ll|re|ve))",
    re.IGNORECASE,
)
# Whole words UD English writes as several: where each part ends.
_SPLIT_AT = {
    "cannot": (3,),
    "gonna": (3,),
    "wanna": (3,),
    "gotta": (3,),
    "outta": (3,),
    "dunno": (2, 3),
}
# Contractions written without their apostrophe, split as EWT splits them.
_BARE = {
    **{
        f"{verb}nt": (len(verb),)
        for verb in (
            "do does did is was were are has have had could would should "
            "ca wo ai"
        ).split()
    },
    "im": (1,),
    "ive": (1,),
    "thats": (4,),
    "whats": (4,),
    "theres": (5,),
    "youre": (3,),
    "theyre": (4,),
}


# A number with its unit written on to it, which UD English writes apart
# (`5kg` -> `5` `kg`, `13.9M` -> `13.9` `M`); not an ordinal (`21st`) or
# a decade (`1990s`).
_NUMBER_AND_UNIT = re.compile(
    r"(?P<number>\d+(?:[.,]\d+)*)(?P<unit>"
    + "|".join(
        "k K m M b B bn mn mm cm km kg mg g lb lbs oz ft mi mph kph ml "
        "Hz kHz MHz GHz hz kb KB mb MB gb GB tb TB x hr hrs min mins sec "
        "secs yr yrs".split()
    )
    + ")"
)


def _cut(token, ends):
    starts = (0, *ends)
    return [token[a:b] for a, b in zip(starts, (*ends, len(token)))]


def _words(token):
    """One token of `zoo.text.tokenize` as English words."""
    clitics = []
    while match := _CLITIC.fullmatch(token):
        token = match["stem"]
        clitics.insert(0, match["clitic"])
    lower = token.lower()
    if lower in _SPLIT_AT:
        words = _cut(token, _SPLIT_AT[lower])
    elif lower in _BARE and token != "IM":
        words = _cut(token, _BARE[lower])
    elif match := _NUMBER_AND_UNIT.fullmatch(token):
        words = [match["number"], match["unit"]]
    else:
        words = [token]
    return words + clitics


def split_words(text):
    """English `text` split into words as UD English splits it.

    Args:
        text: a string of raw English text.

    Returns:
        The list of its words and punctuation, in their own case:
        `zoo.text.tokenize`'s tokens with English clitics split off
        (`"I don't know."` -> `I`, `do`, `n't`, `know`, `.`).

    Raises:
        TypeError: if `text` is not a string.
    """
    if not isinstance(text, str):
        v.fail("text", text, "a string", wrong_type=True)
    tokens = text_lib.tokenize(text, lowercase=False, split_punctuation=True)
    return [word for token in tokens for word in _words(token)]
