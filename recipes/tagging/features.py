"""The tagger's token features that are not learned: `--gazetteer`
(names by type, `recipes.data.gazetteers`) and `--word-shape`, as one
`zoo.layers.TokenFeatures` layer saved with the model."""

import harness
import zoo
from recipes.data import conllu
from recipes.data import gazetteers

# Marked pieces of words (`--mark-pieces`) in more than this share of the
# training tokens or of a saved tagger's vocabulary say it was marked
# ("C++" or a lone "+" are words, not pieces).
MARKED_SHARE = 0.01


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


def _marked_share(tokens):
    tokens = list(tokens)
    mark = conllu.PIECE_MARK
    marked = sum(len(t) > 1 and (t[0] == mark or t[-1] == mark) for t in tokens)
    return marked / max(len(tokens), 1)


def check_init_pieces(config, train, vocabulary):
    """An `--init-from` tagger reads pieces of words as it was trained
    to: marked (`bileş+ +en`, `--mark-pieces`) or bare. Refused, with the
    flag to pass, when one of the training data and its vocabulary is
    marked (over `MARKED_SHARE` of the tokens) and the other is not: it
    would read most pieces as unknown words."""
    data = _marked_share(w for words, _ in train for w in words)
    saved = _marked_share(vocabulary.tokens)
    if (data > MARKED_SHARE) == (saved > MARKED_SHARE):
        return
    how, fix = (
        ("marked", "--mark-pieces")
        if saved > MARKED_SHARE
        else ("bare", "--no-mark-pieces")
    )
    raise harness.UsageError(
        f"--init-from {config.init_from}: that tagger was trained on "
        f"{how} pieces of words ({saved:.1%} of its vocabulary marked "
        f"'{conllu.PIECE_MARK}', against {data:.1%} of these training "
        f"tokens); pass {fix} to give it the tokens it reads"
    )
