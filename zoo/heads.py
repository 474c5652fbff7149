"""Task heads on a zoo backbone: the one place a tagger or a classifier
is put together.

    backbone = zoo.create_model("bilstm_residual_base", vocabulary_size=V)
    tagger = zoo.heads.sequence_tagger(backbone, num_tags=13)
    classifier = zoo.heads.sequence_classifier(
        zoo.stacked_lstm(2, 64, vocabulary_size=V), 5, pooling="attention")

A backbone is a Keras model (or layer) that maps a `(batch, timesteps)`
int tensor of token ids, or `(batch, timesteps, features)` floats, to
`(batch, timesteps, width)` features (or `(batch, width)` for a
classifier with `pooling="last"` on a stack built with
`return_sequences=False`); every zoo builder and registry entry makes
one. The heads thread the backbone's mask: padding never reaches a
pooled vector, and a tagger's output keeps the mask for the loss.

Both heads end in a float32 softmax (it stays float32 under mixed
precision). They map ids to outputs; the task models (`zoo.tasks.Tagger`,
`zoo.tasks.TextClassifier`) are the same graphs (`tagger_graph`,
`classifier_graph`) with a preprocessor that turns raw text into the ids
and the outputs into names.
"""

import keras

from zoo import validation as v
from zoo.layers.bag_of_words import TfIdf
from zoo.layers.crf import CRF
from zoo.layers.pooling import MODES as POOLINGS
from zoo.layers.pooling import SequencePooling

__all__ = [
    "HEADS",
    "POOLINGS",
    "backbone_inputs",
    "classifier_graph",
    "sequence_classifier",
    "sequence_tagger",
    "tagger_graph",
]

HEADS = ("softmax", "crf")


def backbone_inputs(backbone, characters=False, token_features=None):
    """`(inputs, features)`: new `keras.Input`s for `backbone`'s inputs
    (token ids first, named `inputs`; then character ids, `chars`, and
    float token features, `features`, each at most once) and the
    backbone called on them. `characters`: the model reads character ids
    (the backbone must take them); `token_features`: the
    `zoo.layers.TokenFeatures` whose width the backbone's float input
    must have, or None."""
    if not isinstance(backbone, keras.Model) or not hasattr(backbone, "inputs"):
        raise TypeError(
            "`backbone` must be a built Keras model from a zoo builder or "
            f"`zoo.create_model`; received {type(backbone).__name__}."
        )
    try:
        specs = list(backbone.inputs)
    except (AttributeError, ValueError, TypeError) as error:
        raise ValueError(
            "`backbone` must have its inputs defined (build it with "
            f"`input_dim` or `vocabulary_size`); {error}"
        ) from None
    kinds = ["inputs"] + [
        "chars" if "int" in str(spec.dtype) else "features"
        for spec in specs[1:]
    ]
    if (
        len(specs) > 3
        or len(set(kinds)) != len(kinds)
        or (characters and "chars" not in kinds)
        or (token_features is not None and "features" not in kinds)
    ):
        raise ValueError(
            "`backbone` must take token ids (and, with `characters`, "
            "character ids; with `token_features`, float features: one "
            f"input each); it has {len(specs)} inputs."
        )
    if token_features is not None:
        width = specs[kinds.index("features")].shape[-1]
        if width != token_features.num_features:
            raise ValueError(
                f"`token_features` gives {token_features.num_features} "
                f"features a token, but the backbone reads {width} "
                "(build it with token_features=layer.num_features)."
            )
    inputs = [
        keras.Input(shape=tuple(spec.shape[1:]), dtype=spec.dtype, name=n)
        for spec, n in zip(specs, kinds)
    ]
    if len(inputs) > 1:
        return inputs, backbone(inputs)
    return inputs[0], backbone(inputs[0])


def _outputs(
    features, units, seed, dropout, name, crf=False, argument=None, wide=None
):
    """`(outputs, crf)`: the head's dropout and output layer (and the
    `zoo.layers.CRF` on it, or None); with `wide` (a bag-of-words
    tensor), the softmax reads the sum of two logits: `"deep_logits"` of
    the (dropped-out) features and `"wide_logits"` of `wide`."""
    v.check_positive_int(argument or "num_outputs", units)
    v.check_rate("dropout", dropout)
    if dropout:
        features = keras.layers.Dropout(
            dropout, seed=seed, name="head_dropout"
        )(features)
    if wide is not None:
        logits = keras.layers.Add(name="wide_and_deep")(
            [
                keras.layers.Dense(
                    units, dtype="float32", name=f"{part}_logits"
                )(x)
                for part, x in (("deep", features), ("wide", wide))
            ]
        )
        outputs = keras.layers.Activation(
            "softmax", dtype="float32", name=name
        )(logits)
    else:
        outputs = keras.layers.Dense(
            units,
            activation=None if crf else "softmax",
            dtype="float32",
            name="emissions" if crf else name,
        )(features)
    if not crf:
        return outputs, None
    layer = CRF(units, name="crf")
    return layer(outputs), layer


def tagger_graph(
    backbone,
    num_tags,
    *,
    head="softmax",
    dropout=0.0,
    seed=None,
    characters=False,
    token_features=None,
):
    """`(inputs, outputs, crf)` of a tagger on `backbone`: what
    `sequence_tagger` and `zoo.tasks.Tagger` are models of (`crf`: the
    `zoo.layers.CRF`, or None for a softmax head). `characters` and
    `token_features` as `backbone_inputs` takes them."""
    v.check_choice("head", head, HEADS)
    inputs, features = backbone_inputs(backbone, characters, token_features)
    if len(features.shape) != 3:
        raise ValueError(
            "`backbone` must return one vector per timestep for a tagger "
            f"(build it with return_sequences=True); its output has shape "
            f"{tuple(features.shape)}."
        )
    outputs, crf = _outputs(
        features,
        num_tags,
        seed,
        dropout,
        "tags",
        crf=head == "crf",
        argument="num_tags",
    )
    return inputs, outputs, crf


def sequence_tagger(
    backbone,
    num_tags,
    *,
    head="softmax",
    dropout=0.0,
    seed=None,
    name="tagger",
):
    """A softmax (or a CRF) over `num_tags` at every timestep of `backbone`:
    a model of token ids (for raw text in and tag names out, a
    `zoo.tasks.Tagger` on the same backbone, with its preprocessor).

    Args:
        backbone: a model returning `(batch, timesteps, width)`; with
            two inputs (token ids and character ids, `zoo.stacked_rnn(...,
            char_vocabulary_size=...)`) the tagger takes both.
        num_tags: output columns (recipes keep column 0 for padding).
        head: `"softmax"` (independent per-token probabilities) or
            `"crf"` (a `Dense` to emission scores, then a
            `zoo.layers.CRF` named `crf`: the model outputs the
            emissions; train with `model.get_layer("crf").loss`, decode
            with `model.get_layer("crf").decode(emissions, mask)`).
        dropout: dropout on the features before the output layer.
        seed: seed of that dropout.
        name: the model's name.

    Returns:
        A `keras.Model` from the backbone's inputs to probabilities (or
        CRF emission scores) of shape `(batch, timesteps, num_tags)`.
    """
    inputs, outputs, _ = tagger_graph(
        backbone, num_tags, head=head, dropout=dropout, seed=seed
    )
    return keras.Model(inputs, outputs, name=name)


def classifier_graph(
    backbone,
    num_classes,
    *,
    pooling="mean",
    attention_units=64,
    dropout=0.0,
    seed=None,
    wide=None,
    characters=False,
):
    """`(inputs, outputs)` of a classifier on `backbone`: what
    `sequence_classifier` and `zoo.tasks.TextClassifier` are models of."""
    v.check_choice("pooling", pooling, POOLINGS)
    if wide is not None and not isinstance(wide, TfIdf):
        raise TypeError(
            "`wide` must be a `zoo.layers.TfIdf` or None; received "
            f"{type(wide).__name__}."
        )
    inputs, features = backbone_inputs(backbone, characters)
    if len(features.shape) == 2:
        if pooling != "last":
            raise ValueError(
                f"`backbone` returns one vector per sequence (shape "
                f"{tuple(features.shape)}), which only pooling='last' "
                f"takes; received pooling={pooling!r} (build the backbone "
                "with return_sequences=True for it)."
            )
    else:
        features = SequencePooling(
            pooling, attention_units=attention_units, name="pooling"
        )(features)
    bag = None
    if wide is not None:
        bag = wide(inputs[0] if isinstance(inputs, list) else inputs)
    outputs, _ = _outputs(
        features,
        num_classes,
        seed,
        dropout,
        "classes",
        argument="num_classes",
        wide=bag,
    )
    return inputs, outputs


def sequence_classifier(
    backbone,
    num_classes,
    *,
    pooling="mean",
    attention_units=64,
    dropout=0.0,
    seed=None,
    wide=None,
    name="classifier",
):
    """One softmax over `num_classes` per sequence of `backbone`: a model
    of token ids (for raw text in and class names out, a
    `zoo.tasks.TextClassifier` on the same backbone, with its
    preprocessor).

    With `wide` (a `zoo.layers.TfIdf` over the same token ids), a
    wide-and-deep classifier (Cheng et al. 2016): the softmax reads the
    sum of two logits, a linear model of the text's TF-IDF bag of words
    (the `"wide_logits"` Dense layer, no dropout) and the stack's pooled
    vector (`"deep_logits"`, after `dropout`). The branches are separate
    layers so that each can have its own optimiser or rate, as in the
    paper (FTRL for the wide part, AdaGrad for the deep); the recipe
    gives the wide one `--wide-learning-rate`.

    Args:
        backbone: a model returning `(batch, timesteps, width)`, or
            `(batch, width)` (its final state) with `pooling="last"`.
        num_classes: output columns.
        pooling: `"last"`, `"mean"`, `"max"` or `"attention"`
            (`zoo.layers.SequencePooling`; all ignore padding).
        attention_units: hidden size of the attention pooling.
        dropout: dropout on the pooled vector before the softmax.
        seed: seed of that dropout (which the bag of words gets too).
        wide: optional `zoo.layers.TfIdf` (adapted to the training texts)
            reading the token ids.
        name: the model's name.

    Returns:
        A `keras.Model` from the backbone's inputs to probabilities of
        shape `(batch, num_classes)`.
    """
    inputs, outputs = classifier_graph(
        backbone,
        num_classes,
        pooling=pooling,
        attention_units=attention_units,
        dropout=dropout,
        seed=seed,
        wide=wide,
    )
    return keras.Model(inputs, outputs, name=name)
