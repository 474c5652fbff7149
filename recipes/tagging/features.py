"""The tagger's token features that are not learned: `--gazetteer`
(names by type, `recipes.data.gazetteers`) and `--word-shape`, as one
`zoo.layers.TokenFeatures` layer saved with the model."""

import harness
import zoo
from recipes.data import gazetteers


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
