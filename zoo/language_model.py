"""An ELMo-style bidirectional language model, and the layer that mixes
its layers into any model.

    vocabulary = zoo.layers.TokenVocabulary(
        [*zoo.language_model.BOUNDARIES, *words], name="vocabulary")
    characters = zoo.layers.CharacterVocabulary.from_words(
        words, name="characters")
    bilm = zoo.tasks.BiLM.create(
        vocabulary, characters, units=256, num_layers=2)
    zoo.language_model.compile_model(bilm, "adam")
    bilm.fit((word_ids, char_ids), mask, sample_weight=mask)

The model reads a sentence's word ids (its targets) and character ids
(its input), and returns, per word and direction, the negative
log-likelihood (nats) of the next word (forward) and of the previous one
(backward); the sentence's ends are predicted as `<s>` and `</s>`, which
the word vocabulary must hold (`BOUNDARIES`). While training, the softmax
is sampled (`zoo.layers.SampledSoftmax`); in `evaluate` and `predict` it
is exact, so `exp(val_forward_nll)` is the forward perplexity.

The loss is the mean of that output over the real words
(`LanguageModelLoss`, weighted by the mask given as the sample weight);
`y_true` is not read (the targets come from the inputs), pass the mask.

`contextual_embedding(model)` returns a `zoo.layers.ContextualEmbedding`
on the trained model's encoder: ELMo's features, one line in any model.
"""

import keras
from keras import ops

from zoo import optimizers
from zoo._package import PACKAGE
from zoo.layers.bilm import BiLMEncoder
from zoo.layers.contextual_embedding import ContextualEmbedding
from zoo.layers.sampled_softmax import SampledSoftmax
from zoo.layers.vocabulary import CharacterVocabulary
from zoo.layers.vocabulary import TokenVocabulary
from zoo.metrics import TokenMean

__all__ = [
    "BOUNDARIES",
    "LanguageModelLoss",
    "LanguageModelTargets",
    "backward_nll",
    "bilm_graph",
    "check_vocabularies",
    "compile_model",
    "contextual_embedding",
    "encoder_of",
    "forward_nll",
    "metrics",
    "nll",
]

BOUNDARIES = ("<s>", "</s>")


@keras.saving.register_keras_serializable(package=PACKAGE)
class LanguageModelTargets(keras.layers.Layer):
    """Each word's forward and backward targets from a sentence's word
    ids: the next word's id (`eos_id` after the last word) and the
    previous word's (`bos_id` before the first); 0 on padding.

    Args:
        bos_id, eos_id: the ids of `<s>` and `</s>`.

    Call arguments:
        inputs: `(batch, words)` word ids, right-padded with 0.

    Returns:
        `[forward, backward]`, two `(batch, words)` int32 tensors.
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): Keras only
    # (the NumPy runner refuses a model that holds it).
    serving_form = "keras"

    def __init__(self, bos_id, eos_id, **kwargs):
        super().__init__(**kwargs)
        self.bos_id = int(bos_id)
        self.eos_id = int(eos_id)

    def call(self, inputs):
        ids = ops.cast(inputs, "int32")
        real = ops.not_equal(ids, 0)
        pad = ops.zeros_like(ids[:, :1])
        following = ops.concatenate([ids[:, 1:], pad], axis=1)
        preceding = ops.concatenate([pad, ids[:, :-1]], axis=1)
        eos = ops.full_like(ids, self.eos_id)
        bos = ops.full_like(ids, self.bos_id)
        zero = ops.zeros_like(ids)
        forward = ops.where(
            real, ops.where(ops.equal(following, 0), eos, following), zero
        )
        backward = ops.where(
            real, ops.where(ops.equal(preceding, 0), bos, preceding), zero
        )
        return [forward, backward]

    def compute_output_shape(self, input_shape):
        return [tuple(input_shape), tuple(input_shape)]

    def compute_output_spec(self, inputs):
        # Two distinct tensors: one object twice would be one output of
        # the functional graph, the backward targets in both places.
        return [
            keras.KerasTensor(inputs.shape, dtype="int32") for _ in range(2)
        ]

    def get_config(self):
        return {
            **super().get_config(),
            "bos_id": self.bos_id,
            "eos_id": self.eos_id,
        }


def _boundary_ids(vocabulary):
    ids = {t: i for i, t in enumerate(vocabulary.get_vocabulary())}
    missing = [t for t in BOUNDARIES if t not in ids]
    if missing:
        raise ValueError(
            "`vocabulary` must hold the sentence boundaries "
            f"{list(BOUNDARIES)} (the words a language model predicts "
            f"before the first and after the last word); it lacks {missing}."
        )
    return ids[BOUNDARIES[0]], ids[BOUNDARIES[1]]


def check_vocabularies(vocabulary, characters):
    """Refuses a `vocabulary` that is no `zoo.layers.TokenVocabulary` or
    `characters` that are no `zoo.layers.CharacterVocabulary`, naming
    the argument."""
    if not isinstance(vocabulary, TokenVocabulary):
        raise TypeError(
            "`vocabulary` must be a `zoo.layers.TokenVocabulary`; received "
            f"{type(vocabulary).__name__}."
        )
    if not isinstance(characters, CharacterVocabulary):
        raise TypeError(
            "`characters` must be a `zoo.layers.CharacterVocabulary`; "
            f"received {type(characters).__name__}."
        )


def bilm_graph(encoder, vocabulary, *, dropout=0.1, num_sampled=512, seed=None):
    """`(inputs, nll, softmax)`: an ELMo-style biLM's graph on `encoder`
    (a `zoo.layers.BiLMEncoder`) predicting the words of `vocabulary`
    (what `zoo.tasks.BiLM` is a model of).

    Inputs `(word ids, character ids)`: `(batch, words)` ids of
    `vocabulary` and `(batch, words, chars)` character ids. Layers:
    the encoder, `top_dropout`, `targets` (`LanguageModelTargets`) and
    `softmax` (a `zoo.layers.SampledSoftmax` shared by both directions,
    as in ELMo, and called once for both: while training the two
    directions share each batch's draw of negatives). Output `nll`:
    `(batch, words, 2)` float32, the forward and backward negative
    log-likelihood of each word's targets.

    Args:
        encoder: the `zoo.layers.BiLMEncoder` (the backbone).
        vocabulary: a `zoo.layers.TokenVocabulary` holding `BOUNDARIES`,
            its words ordered by falling frequency (the sampler assumes
            it); the words predicted.
        dropout: dropout before the softmax.
        num_sampled: negatives of the sampled softmax (0: full softmax).
        seed: optional integer seed of dropout and sampling.
    """
    if not isinstance(encoder, BiLMEncoder):
        raise TypeError(
            "`encoder` must be a `zoo.layers.BiLMEncoder`; received "
            f"{type(encoder).__name__}."
        )
    bos_id, eos_id = _boundary_ids(vocabulary)
    words = keras.Input((None,), dtype="int32", name="words")
    chars = keras.Input((None, None), dtype="int32", name="chars")
    layers = encoder(chars)
    top = keras.layers.Dropout(dropout, seed=seed, name="top_dropout")(
        layers[-1]
    )
    forward_targets, backward_targets = LanguageModelTargets(
        bos_id, eos_id, name="targets"
    )(words)
    softmax = SampledSoftmax(
        vocabulary.vocabulary_size,
        num_sampled=num_sampled,
        seed=seed,
        name="softmax",
    )
    # Both directions in one softmax call: `top` (batch, words, 2 *
    # units), the forward half first, against (batch, words, 2) targets.
    # One gather of the kernel's rows a step instead of one per direction
    # (on PyTorch each gather's gradient is a dense (vocabulary, units)
    # array, zeroed, filled and summed), and one draw of negatives that
    # the two directions share (ELMo draws one per direction; each is an
    # unbiased sampled softmax).
    stacked = ops.stack([forward_targets, backward_targets], axis=-1)
    return [words, chars], softmax([top, stacked]), softmax


def encoder_of(model):
    """The `BiLMEncoder` of a language model (a `zoo.tasks.BiLM`: its
    backbone).

    Raises:
        ValueError: `model` is not such a language model (a tagger, a
            classifier ...), naming what it lacks.
    """
    encoder = getattr(model, "backbone", None)
    if not isinstance(encoder, BiLMEncoder):
        name = getattr(model, "name", type(model).__name__)
        raise ValueError(
            f"`model` ({name}) is not a bidirectional language model: its "
            "backbone is no zoo.layers.BiLMEncoder; pass a zoo.tasks.BiLM "
            "(what python -m recipes.language_model saves)"
        )
    return encoder


def contextual_embedding(
    model, frozen=True, dropout=0.0, seed=None, name=None, mix="learned"
):
    """A `zoo.layers.ContextualEmbedding` on the encoder of `model`, a
    trained language model; it reads the character ids that `model`'s
    preprocessor's `characters` spell. `mix`: `"learned"`, `"average"` or
    `"top"` (the layer's)."""
    return ContextualEmbedding(
        encoder_of(model),
        frozen=frozen,
        dropout=dropout,
        seed=seed,
        mix=mix,
        name=name or "contextual",
    )


@keras.saving.register_keras_serializable(package=PACKAGE)
class LanguageModelLoss(keras.losses.Loss):
    """The mean of a language model's `nll` output over both directions
    and the real words (the mask is the sample weight: reduction
    `mean_with_sample_weight`); `y_true` is not read."""

    def __init__(self, name="language_model_loss", **kwargs):
        kwargs.setdefault("reduction", "mean_with_sample_weight")
        super().__init__(name=name, **kwargs)

    def call(self, y_true, y_pred):
        return ops.mean(y_pred, axis=-1)


@keras.saving.register_keras_serializable(package=PACKAGE)
def forward_nll(y_true, y_pred):
    """The forward direction's negative log-likelihood per word."""
    return y_pred[..., 0]


@keras.saving.register_keras_serializable(package=PACKAGE)
def backward_nll(y_true, y_pred):
    """The backward direction's negative log-likelihood per word."""
    return y_pred[..., 1]


@keras.saving.register_keras_serializable(package=PACKAGE)
def nll(y_true, y_pred):
    """Both directions' mean negative log-likelihood per word."""
    return ops.mean(y_pred, axis=-1)


def metrics():
    """New `forward_nll`, `backward_nll` and `nll` (their mean) metrics:
    the mean negative log-likelihood per word over everything evaluated
    (`zoo.metrics.TokenMean`: per word, whatever the batches' widths;
    pass them as `weighted_metrics`, the mask as the sample weight)."""
    return [
        TokenMean(forward_nll, name="forward_nll"),
        TokenMean(backward_nll, name="backward_nll"),
        TokenMean(nll, name="nll"),
    ]


def compile_model(model, optimizer="adam"):
    """`model.compile` with `LanguageModelLoss` and the weighted
    `forward_nll` and `backward_nll` means (`metrics()`; exact per-word
    values in `evaluate`, sampled ones while training). `"adam"` is
    `zoo.optimizers.Adam()` (Keras's Adam, fused on PyTorch)."""
    if optimizer == "adam":
        optimizer = optimizers.Adam()
    model.compile(
        optimizer=optimizer,
        loss=LanguageModelLoss(),
        weighted_metrics=metrics(),
    )
    return model
