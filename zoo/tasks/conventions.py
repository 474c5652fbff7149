"""Text conventions of a training corpus: how a tagger reads text that
the corpus writes otherwise, and the tags of tokens it never shows.

A tagger trained on a corpus (Brown, 1961) has never seen a URL, an
emoji or a `#hashtag`, and writes some words its own way (`--` for a
dash). Its preprocessor names the corpus's conventions
(`TaggerPreprocessor(conventions="en_brown")`, saved with the model);
the conventions say what the model reads in place of each word
(`forms`) and which tokens take a tag by rule (`rule`), how raw text is
split into its words (`split`), and which views of its tags a user may
ask for (`tagsets`: UD's 17 tags, the 12 universal ones, Penn
Treebank's). The language packages register theirs (`zoo.languages.en`
registers `"en_brown"` and `"en_ud"`); this module knows no language.
"""

import dataclasses
import typing

_REGISTERED = {}
# Between two tag columns joined in one label (a treebank's UPOS and
# XPOS: `PRON|PRP$`), which a tagger learns as one tag and its
# conventions' `tagsets` read apart.
LABEL_JOIN = "|"


@dataclasses.dataclass(frozen=True)
class Conventions:
    """A corpus's conventions.

    Attributes:
        name: the name a preprocessor records (`"en_brown"`).
        forms: `words -> words`: what the model reads for a sentence's
            words (as many), in the corpus's spelling.
        rule: `word -> tag or None`: the tag of a token the corpus never
            shows (a URL, a number), else None (the model's tag stands).
        description: one line for the docs and error messages.
        labels: the corpus's tag set: a tagger of the first release's
            preset format with exactly these tags (column 0, the padding,
            aside) read text by these conventions (`for_labels`).
        split: `text -> words`: raw text as the corpus splits it into
            words; None: `zoo.text.tokenize` (punctuation split off).
        tagsets: `{name: (label -> tag)}`: the views of a tagger's
            labels a user may ask for (`Tagger.tag(..., tagset=name)`);
            the view None is the labels as they are unless named here.
            A view may refuse a label it cannot read (a `KeyError`):
            the tagger does not offer it (`tagsets_of`).
    """

    name: str
    forms: typing.Callable
    rule: typing.Callable
    description: str = ""
    labels: frozenset = frozenset()
    split: typing.Callable | None = None
    tagsets: typing.Mapping = dataclasses.field(default_factory=dict)

    def views(self, labels):
        """`{tagset: [tag per label]}` for a tagger's `labels` (column 0,
        the padding, as it is): the view None always, and each of
        `tagsets` that reads every label."""
        views = {None: list(labels)}
        for name, view in self.tagsets.items():
            try:
                views[name] = [labels[0]] + [view(x) for x in labels[1:]]
            except KeyError:
                continue
        return views


def register(conventions):
    """Registers `conventions` under its name; returns it."""
    if not isinstance(conventions, Conventions):
        raise TypeError(
            "`conventions` must be a zoo.tasks.conventions.Conventions; "
            f"received {type(conventions).__name__}."
        )
    _REGISTERED[conventions.name] = conventions
    return conventions


def get(name):
    """The registered conventions called `name`; a `ValueError` naming
    the registered ones otherwise."""
    if name not in _REGISTERED:
        raise ValueError(
            f"`conventions` must be one of {sorted(_REGISTERED)} (registered "
            f"by zoo.languages); received {name!r}."
        )
    return _REGISTERED[name]


def names():
    """The registered names, sorted."""
    return sorted(_REGISTERED)


def for_labels(labels):
    """The name of the registered conventions whose tag set is `labels`
    (column 0, the padding, aside), or None: what a tagger of the first
    release's preset format read text by (`zoo.tasks.convert`)."""
    found = set(list(labels)[1:])
    for conventions in _REGISTERED.values():
        if conventions.labels and found == conventions.labels:
            return conventions.name
    return None
