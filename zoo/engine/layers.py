"""NumPy forms of the plain layers of the zoo's task models, and their
masks as Keras computes them.

Each class here wraps one built Keras layer, reads its weights once, and
is called by `zoo.engine.graph` as `layer(args, kwargs, mask)`: the
node's arguments (arrays), and the mask Keras would see as the layer's
previous mask (the explicit `mask=` of the call, else the first input's).
It returns `(outputs, output_masks)`. A layer that Keras calls with a
`mask` argument (`takes_mask`) finds it in `kwargs`.

`FACTORIES` maps each Keras class (exactly: a subclass may compute
something else) to its NumPy form.
"""

import keras
import numpy as np

from zoo import validation as v
from zoo.engine import functions as fn
from zoo.engine.stacks import StackPlan
from zoo.layers.crf import CRF
from zoo.layers.embedding_dropout import EmbeddingDropout
from zoo.layers.pooling import SequencePooling
from zoo.layers.stacked_rnn import StackedRNN
from zoo.layers.token_embedding import TokenEmbedding
from zoo.layers.token_features import TokenFeatures
from zoo.layers.variational_dropout import VariationalDropout
from zoo.layers.vocabulary import CharacterVocabulary
from zoo.layers.vocabulary import LabelNames
from zoo.layers.vocabulary import TokenVocabulary

FLOAT = fn.FLOAT


class Layer:
    """The base: passes its first input's mask on (Keras's default for a
    layer that supports masking)."""

    takes_mask = False

    def __init__(self, layer):
        self.name = layer.name

    def __call__(self, args, kwargs, mask):
        return self.call(*args, **kwargs), mask

    def call(self, inputs, **kwargs):
        return inputs


class PassThrough(Layer):
    """Vocabulary and label layers, and dropout (the identity at
    inference): the inputs and their mask, unchanged."""


def check_ids(ids, size, name):
    """Refuses an id outside `[0, size)` (NumPy would wrap a negative
    one) with `zoo.validation`'s message."""
    if ids.size and (ids.min() < 0 or ids.max() >= size):
        v.check_ids(
            "inputs", ids, size, what=f"ids of layer {name!r} ({size} rows)"
        )


def lookup(table, ids, name):
    """`table[ids]`, an id outside the table refused (`check_ids`)."""
    ids = np.asarray(ids)
    if not np.issubdtype(ids.dtype, np.integer):
        ids = ids.astype(np.int32)
    check_ids(ids, len(table), name)
    return np.take(table, ids, axis=0)


class Embedding(Layer):
    """`keras.layers.Embedding` / `zoo.layers.TokenEmbedding` (also inside
    `zoo.layers.EmbeddingDropout`): a lookup; id 0 masked with
    `mask_zero`."""

    def __init__(self, layer):
        super().__init__(layer)
        inner = layer.layer if isinstance(layer, EmbeddingDropout) else layer
        if type(inner) not in (keras.layers.Embedding, TokenEmbedding):
            raise NotImplementedError(
                f"zoo.engine has no NumPy form of {type(inner).__name__} "
                f"(layer {inner.name!r})."
            )
        if getattr(inner, "quantization_mode", None):
            raise NotImplementedError(
                f"zoo.engine does not run quantized layers ({inner.name!r})."
            )
        self.table = fn.array(inner.embeddings)
        self.mask_zero = bool(inner.mask_zero)
        # Ids past the trained rows read [UNK] (TokenEmbedding's
        # `vocabulary_size`).
        self.accepted = getattr(inner, "accepted_ids", inner.input_dim)

    def __call__(self, args, kwargs, mask):
        ids = np.asarray(args[0])
        rows = len(self.table)
        if self.accepted > rows:
            v.check_ids("inputs", ids, self.accepted, what=self.name)
            ids = np.where(ids < rows, ids, 1)
        vectors = lookup(self.table, ids, self.name)
        return vectors, (ids != 0) if self.mask_zero else None


class Dense(Layer):
    """`keras.layers.Dense`: `activation(x kernel + bias)` on the last
    axis; the mask passes."""

    def __init__(self, layer):
        super().__init__(layer)
        if getattr(layer, "quantization_mode", None) or getattr(
            layer, "lora_enabled", False
        ):
            raise NotImplementedError(
                f"zoo.engine does not run quantized or LoRA layers "
                f"({layer.name!r})."
            )
        self.kernel = fn.array(layer.kernel)
        self.bias = fn.array(layer.bias) if layer.use_bias else None
        self.activation = fn.activation(
            layer.activation, f"layer {layer.name!r}"
        )

    def call(self, inputs, **kwargs):
        x = np.asarray(inputs, FLOAT)
        y = x.reshape(-1, x.shape[-1]) @ self.kernel
        if self.bias is not None:
            y += self.bias
        y = y.reshape(*x.shape[:-1], y.shape[-1])
        if self.activation is fn.softmax:
            return fn.softmax(y)
        return fn.apply(self.activation, y)


class Concatenate(Layer):
    """`keras.layers.Concatenate`; its mask as Keras's: a step is real
    where any input is (an input without a mask counts as real)."""

    def __init__(self, layer):
        super().__init__(layer)
        self.axis = layer.axis

    def __call__(self, args, kwargs, mask):
        inputs = list(args[0])
        outputs = np.concatenate(inputs, axis=self.axis)
        if mask is None or all(m is None for m in mask):
            return outputs, None
        shape = inputs[0].shape[:-1]
        if any(m is None for m in mask):
            return outputs, np.ones(shape, bool)
        masks = [np.asarray(m, bool) for m in mask]
        if self.axis in (-1, inputs[0].ndim - 1) and all(
            m.shape == shape for m in masks
        ):
            return outputs, np.logical_or.reduce(masks)
        full = [
            np.broadcast_to(m[..., None] if m.ndim < x.ndim else m, x.shape)
            for m, x in zip(masks, inputs)
        ]
        return outputs, np.concatenate(full, axis=self.axis).any(axis=-1)


class LayerNormalization(Layer):
    def __init__(self, layer):
        super().__init__(layer)
        self.norm = fn.LayerNorm(layer)

    def call(self, inputs, **kwargs):
        return self.norm(np.asarray(inputs, FLOAT))


class Masking(Layer):
    """`keras.layers.Masking`: steps whose features all equal
    `mask_value` are masked (and zeroed)."""

    def __init__(self, layer):
        super().__init__(layer)
        self.value = layer.mask_value

    def __call__(self, args, kwargs, mask):
        x = np.asarray(args[0], FLOAT)
        keep = np.any(x != self.value, axis=-1)
        return x * keep[..., None], keep


class Stack(Layer):
    """`zoo.layers.StackedRNN` (`zoo.engine.stacks.StackPlan`)."""

    takes_mask = True

    def __init__(self, layer):
        super().__init__(layer)
        self.plan = StackPlan(layer)
        self.layer_count = len(self.plan.layers)
        self.state_count = sum(self.plan.counts)

    def __call__(self, args, kwargs, mask):
        kwargs = dict(kwargs)
        call_mask = kwargs.pop("mask", None)
        kwargs.pop("training", None)
        outputs = self.plan(*args, mask=call_mask, **kwargs)
        plan = self.plan
        if plan.output_mode == "all":
            output_mask = [mask] * self.layer_count
        else:
            output_mask = mask if plan.return_sequences else None
        if plan.return_state:
            output_mask = [output_mask] + [None] * self.state_count
        return outputs, output_mask


class CRFLayer(Layer):
    """`zoo.layers.CRF`: the emissions as they are, or (`decode=True`) the
    Viterbi tags, `decode`'s NumPy twin."""

    takes_mask = True

    def __init__(self, layer):
        super().__init__(layer)
        self.transitions = fn.array(layer.transitions)
        self.start = fn.array(layer.start_transitions)
        self.end = fn.array(layer.end_transitions)

    def __call__(self, args, kwargs, mask):
        emissions = np.asarray(args[0], FLOAT)
        if kwargs.get("decode"):
            return self.decode(emissions, kwargs.get("mask")), mask
        return emissions, mask

    def decode(self, emissions, mask=None):
        """The Viterbi tags, int32 `(batch, steps)`, 0 at masked steps;
        a masked step is skipped (the path carries over it), as
        `zoo.layers.CRF.decode`."""
        emissions = np.asarray(emissions, FLOAT)
        batch, steps, tags = emissions.shape
        if mask is None:
            mask = np.ones((batch, steps), bool)
        mask = np.asarray(mask, bool)
        score = np.zeros((batch, tags), FLOAT)
        started = np.zeros(batch, bool)
        stay = np.broadcast_to(np.arange(tags, dtype=np.int32), (batch, tags))
        pointers = np.empty((steps, batch, tags), np.int32)
        rows = np.arange(batch)
        for t in range(steps):
            emission, real = emissions[:, t], mask[:, t]
            candidates = score[:, :, None] + self.transitions
            best = candidates.argmax(axis=1)
            chained = np.take_along_axis(candidates, best[:, None], 1)[:, 0]
            chained += emission
            first = self.start + emission
            new = np.where(started[:, None], chained, first)
            score = np.where(real[:, None], new, score)
            chain = (started & real)[:, None]
            pointers[t] = np.where(chain, best, stay)
            started |= real
        tag = np.argmax(score + self.end, axis=1).astype(np.int32)
        path = np.empty((batch, steps), np.int32)
        for t in range(steps - 1, -1, -1):
            path[:, t] = tag
            tag = pointers[t][rows, tag]
        return np.where(mask, path, 0).astype(np.int32)


class Pooling(Layer):
    """`zoo.layers.SequencePooling`: every mode, padding ignored."""

    takes_mask = True

    def __init__(self, layer):
        super().__init__(layer)
        self.mode = layer.mode
        self.scores = layer.return_attention_scores
        if self.mode == "attention":
            self.kernel = fn.array(layer.kernel)
            self.bias = fn.array(layer.bias)
            self.context = fn.array(layer.context)[:, 0]

    def __call__(self, args, kwargs, mask):
        inputs = np.asarray(args[0], FLOAT)
        mask = kwargs.get("mask")
        if mask is None:
            mask = np.ones(inputs.shape[:2], bool)
        mask = np.asarray(mask, bool)
        x = np.where(mask[..., None], inputs, FLOAT(0))
        if self.mode == "attention":
            weights = self._weights(x, mask)
            pooled = np.einsum("bt,btf->bf", weights, x)
            return ((pooled, weights) if self.scores else pooled), None
        parts = {
            "mean": lambda: _mean(x, mask),
            "max": lambda: _max(x, mask),
            "last": lambda: _last(x, mask),
        }
        if self.mode == "concat":
            pooled = np.concatenate(
                [parts[k]() for k in ("last", "max", "mean")], -1
            )
        else:
            pooled = parts[self.mode]()
        return pooled, None

    def _weights(self, x, mask):
        hidden = np.tanh(x @ self.kernel + self.bias)
        scores = hidden @ self.context
        filler = scores.min(axis=1, keepdims=True)
        scores = np.where(mask, scores, filler)
        exps = np.exp(scores - scores.max(axis=1, keepdims=True))
        exps = np.where(mask, exps, FLOAT(0))
        total = exps.sum(axis=1, keepdims=True)
        return exps / np.where(total > 0, total, FLOAT(1))


def _mean(x, mask):
    count = mask.sum(axis=1, keepdims=True).astype(FLOAT)
    return x.sum(axis=1) / np.maximum(count, 1)


def _max(x, mask):
    filler = x.min(axis=1, keepdims=True)
    return np.where(mask[..., None], x, filler).max(axis=1)


def _last(x, mask):
    index = mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)
    return x[np.arange(len(x)), index]


FACTORIES = {
    keras.layers.Dense: Dense,
    keras.layers.Embedding: Embedding,
    TokenEmbedding: Embedding,
    EmbeddingDropout: Embedding,
    keras.layers.Concatenate: Concatenate,
    keras.layers.LayerNormalization: LayerNormalization,
    keras.layers.Masking: Masking,
    StackedRNN: Stack,
    CRF: CRFLayer,
    SequencePooling: Pooling,
    **{
        cls: PassThrough
        for cls in (
            TokenVocabulary,
            CharacterVocabulary,
            TokenFeatures,
            LabelNames,
            keras.layers.Dropout,
            keras.layers.SpatialDropout1D,
            keras.layers.GaussianNoise,
            keras.layers.GaussianDropout,
            VariationalDropout,
        )
    },
}
