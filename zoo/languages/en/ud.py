"""UD English's conventions (`"en_ud"`), as a tagger trained on the
Universal Dependencies English treebanks (UD 2.x: EWT, and Brown in UD's
conventions, `recipes.data.brown_ud`) reads running text and answers.

A tagger trained so has labels that are UD's 17 UPOS tags (`"PRON"`), or
UPOS and the Penn Treebank tag joined (`"PRON|PRP$"`, `LABEL_JOIN`), as
EWT's XPOS column carries it. Its answers have three views
(`Tagger.tag(..., tagset=...)`, `zoo.pos_tag(tokens, tagset=...)`):

- None: UPOS, the 17 tags (`UPOS`);
- `"universal"`: the 12 universal tags of Petrov, Das and McDonald (2012),
  NLTK's `tagset="universal"`, by `UPOS_TO_UNIVERSAL`;
- `"ptb"`: the Penn Treebank tag (what `nltk.pos_tag` answers by
  default), for a tagger trained on the joined labels only.

Registered with `zoo.tasks.conventions` on import; a
`zoo.tasks.TaggerPreprocessor(conventions="en_ud")` uses it.
"""

from zoo.languages.en import tokens
from zoo.tasks import conventions

# UD's 17 universal part-of-speech tags (UD 2.x).
UPOS = frozenset(
    ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM",
     "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X")
)  # fmt: skip
# UPOS as the 12 universal tags, as the Brown corpus is mapped to them
# (`recipes.data.brown`: subordinators `cs` are ADP there, interjections
# X) and as Petrov et al.'s Penn Treebank map has it (`SYM` X, `POS` and
# `RP` PRT).
UPOS_TO_UNIVERSAL = {
    "ADJ": "ADJ", "ADP": "ADP", "ADV": "ADV", "AUX": "VERB",
    "CCONJ": "CONJ", "DET": "DET", "INTJ": "X", "NOUN": "NOUN",
    "NUM": "NUM", "PART": "PRT", "PRON": "PRON", "PROPN": "NOUN",
    "PUNCT": ".", "SCONJ": "ADP", "SYM": "X", "VERB": "VERB", "X": "X",
}  # fmt: skip
LABEL_JOIN = conventions.LABEL_JOIN


def upos(label):
    """The UPOS tag of a label (`"PRON|PRP$"` -> `"PRON"`); a `KeyError`
    for a label that is not UD's."""
    tag = label.split(LABEL_JOIN, 1)[0]
    if tag not in UPOS:
        raise KeyError(label)
    return tag


def universal(label):
    """The 12-tag view of a label (`"PROPN|NNP"` -> `"NOUN"`)."""
    return UPOS_TO_UNIVERSAL[upos(label)]


def ptb(label):
    """The Penn Treebank tag of a joined label (`"PRON|PRP$"` ->
    `"PRP$"`); a `KeyError` for a label without one (a tagger trained
    on UPOS alone has no Penn Treebank view)."""
    upos(label)
    if LABEL_JOIN not in label:
        raise KeyError(label)
    return label.split(LABEL_JOIN, 1)[1]


def model_forms(words):
    """The words as the model reads them: as they are (UD English's
    treebanks are web text, with URLs, e-mail addresses and emoji)."""
    return list(words)


def no_rule(word):
    """None for every word: the model tags everything (`Conventions.rule`
    is for what a corpus never shows)."""
    return None


UD = conventions.register(
    conventions.Conventions(
        name="en_ud",
        forms=model_forms,
        rule=no_rule,
        description="UD English (2.x): 17 UPOS tags, and Penn Treebank "
        "tags where the labels join them",
        split=tokens.split_words,
        tagsets={None: upos, "universal": universal, "ptb": ptb},
    )
)
