"""The Brown corpus's conventions (`"en_brown"`), as a tagger trained on
it reads running text: what Brown (1961) writes otherwise (a dash `--`,
`Mr.`, `percent`, opening and closing quotes) and the universal tags of
what it never shows (URLs, e-mail addresses, emoji, `@mentions`,
`#hashtags`, numbers), by the conventions of UD English EWT mapped to
the 12 universal tags. Registered with `zoo.tasks.conventions` on
import; a `zoo.tasks.TaggerPreprocessor(conventions="en_brown")` uses it.
"""

import html
import re
import unicodedata

from zoo.tasks import conventions

# The 12 universal tags (Petrov, Das and McDonald 2012), as the Brown
# corpus is mapped to them (`recipes.data.brown`).
UNIVERSAL = frozenset(
    ("ADJ", "ADP", "ADV", "CONJ", "DET", "NOUN", "NUM", "PRON", "PRT", "VERB",
     ".", "X")
)  # fmt: skip
_ADDRESS = re.compile(r"^(?:https?://|www\.)\S+$|^[\w.+\-]+@\w[\w\-.]*$")
_NUMBER = re.compile(r"^[+\-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?$")


def universal_rule(word):
    """The universal tag of a token the training corpus never shows (its
    tag by the conventions of UD English EWT mapped to the 12 tags: a
    URL, an e-mail address, an emoji or the retweet mark `RT` `X`; a
    `@mention`, `#hashtag` or `$cashtag` `NOUN`; a number `NUM`; a run of
    marks `.`), or None: the model's tag stands."""
    if word == "RT" or _ADDRESS.match(word):
        return "X"
    if (
        word[:1] in "@#$"
        and len(word) > 1
        and word[1:].replace("_", "").isalnum()
        and (word[0] != "$" or word[1].isalpha())
    ):
        return "NOUN"
    if _NUMBER.match(word):
        return "NUM"
    if len(word) > 1 and all(unicodedata.category(c)[0] == "P" for c in word):
        return "."  # a run of marks (`!!!`, `?!`), where Brown has one
    if (
        word
        and all(
            unicodedata.category(c) in ("So", "Sk", "Cf", "Mn") for c in word
        )
        and any(unicodedata.category(c) == "So" for c in word)
    ):
        return "X"
    return None


def model_form(word):
    """What a universal tagger reads for a token its corpus never shows
    (`universal_rule` tags it): a `@mention` or `$cashtag` as a name
    (`Smith`), a `#hashtag` as its word, a URL or an e-mail address as a
    noun (`address`), the retweet mark `RT` or an emoji as a mark (`!`),
    an HTML entity as what it stands for (`&amp;` -> `&`); any other word
    as it is."""
    if word[:1] == "&" and word[-1:] == ";" and len(word) > 2:
        return html.unescape(word)
    rule = universal_rule(word)
    if rule is None or rule == "NUM":
        return word
    if rule == ".":
        return word[0]
    if word[:1] in "@$":
        return "Smith"
    if word[:1] == "#":
        return word[1:]
    return "address" if _ADDRESS.match(word) else "!"


# Brown's spelling of what running text writes otherwise: a dash `--`, a
# British title without its period, `percent`.
_BROWN_FORMS = {
    "-": "--", "–": "--", "—": "--", "%": "percent",
    "Mr": "Mr.", "Mrs": "Mrs.", "Dr": "Dr.", "St": "St.",
}  # fmt: skip


def model_forms(words):
    """`model_form` of each word of a sentence, in Brown's spelling where
    running text writes it otherwise (`_BROWN_FORMS`), and straight double
    quotes as Brown's opening and closing ones (` `` ` and `''`), taken in
    turn."""
    forms = []
    opened = False
    for word in words:
        if word in ('"', "“", "”"):
            opened = word == "“" or (word == '"' and not opened)
            forms.append("``" if opened else "''")
            continue
        forms.append(_BROWN_FORMS.get(word) or model_form(word))
    return forms


def universal(label):
    """The 12-tag view of a label: the label itself, a universal tag; a
    `KeyError` for any other (a tagger of Brown's full tag set)."""
    if label not in UNIVERSAL:
        raise KeyError(label)
    return label


BROWN = conventions.register(
    conventions.Conventions(
        name="en_brown",
        forms=model_forms,
        rule=universal_rule,
        description="the Brown corpus (1961) mapped to the 12 universal tags",
        labels=UNIVERSAL,
        tagsets={"universal": universal},
    )
)
