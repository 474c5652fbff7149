"""The tagger's token features that are not learned: `--gazetteer`
(names by type, `recipes.data.gazetteers`) and `--word-shape`, as one
`zoo.layers.TokenFeatures` layer saved with the model."""

import dataclasses

import harness
import zoo
from recipes.data import datasets
from recipes.data import gazetteers

# An `--init-from` tagger is refused when the other marking of pieces of
# words (`--mark-pieces`) would put this much more of the training tokens
# in its vocabulary.
COVERAGE_GAP = 0.05


def build(config, train):
    """The `zoo.layers.TokenFeatures` that `--gazetteer` and
    `--word-shape` ask for, or None; prints how many names of each type
    the gazetteer holds and how many training words they cover."""
    if not (config.gazetteer or config.word_shape):
        return None
    names = gazetteers.load(config.gazetteer) if config.gazetteer else {}
    try:
        layer = zoo.layers.TokenFeatures(
            names, shape=config.word_shape, name="token_features"
        )
    except (TypeError, ValueError) as error:
        raise harness.UsageError(
            f"--gazetteer {config.gazetteer}: {error}"
        ) from None
    if names:
        tokens = sum(len(words) for words, _ in train)
        marked = sum(layer.features(words).sum(axis=0) for words, _ in train)
        offset = layer.num_features - 2 * len(layer.types)
        counts = ", ".join(
            f"{kind} {len(layer.gazetteer[kind]):,} names, "
            f"{int(marked[offset + 2 * t]):,} matches"
            for t, kind in enumerate(layer.types)
        )
        print(
            f"gazetteer {config.gazetteer}: {counts} in {tokens:,} training "
            "words",
            flush=True,
        )
    return layer


def refuse_with_init(config):
    """`--gazetteer` or `--word-shape` beside `--init-from` is refused:
    the saved tagger keeps the features it was trained with."""
    for flag, value in (
        ("--gazetteer", config.gazetteer),
        ("--word-shape", config.word_shape),
    ):
        if value:
            raise harness.UsageError(
                f"{flag} with --init-from: the saved tagger keeps the token "
                f"features it was trained with; drop {flag}"
            )


def _coverage(sentences, vocabulary):
    """The share of the tokens (repeats counted) with a vocabulary id."""
    ids = [i for words, _ in sentences for i in vocabulary.ids(words)]
    return sum(i > 1 for i in ids) / max(len(ids), 1)


def check_init_pieces(config, train, vocabulary, load):
    """An `--init-from` tagger reads pieces of words as it was trained
    to: marked (`bileş+ +en`, `--mark-pieces`) or bare. On a treebank
    (where the flag applies), the training data are read the other way
    too (`load(config)`); when its vocabulary knows `COVERAGE_GAP` more
    of those tokens than of these, it was trained the other way, would
    read most pieces as unknown words, and is refused with the flag to
    pass."""
    if config.dataset not in datasets.TREEBANKS:
        return
    other = dataclasses.replace(config, mark_pieces=not config.mark_pieces)
    given = _coverage(train, vocabulary)
    flipped = _coverage(load(other).train, vocabulary)
    if flipped <= given + COVERAGE_GAP:
        return
    how = "marked" if other.mark_pieces else "bare"
    fix = "--mark-pieces" if other.mark_pieces else "--no-mark-pieces"
    raise harness.UsageError(
        f"--init-from {config.init_from}: that tagger was trained on {how} "
        f"pieces of words (its vocabulary knows {flipped:.1%} of these "
        f"training tokens {how}, {given:.1%} as read now); pass {fix} to "
        "give it the tokens it reads"
    )
