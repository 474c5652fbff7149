"""The NumPy float32 functions the engine's layers share: activations,
softmax, layer norm, and reading a Keras variable once.

Every function takes and returns float32 arrays. The sigmoid is written
as `0.5 * tanh(0.5 x) + 0.5`: one ufunc that never overflows (`exp(-x)`
does for x below -88 in float32), equal to `1 / (1 + exp(-x))` to
float32's rounding.
"""

import keras
import numpy as np

FLOAT = np.float32


# The most bytes of a layer's intermediate values that the engine holds
# at once over a long input: a recurrent layer's projected inputs (`x W
# + b`) are computed a block of steps at a time, just ahead of its loop,
# and a character encoder reads a batch's words a chunk at a time. One
# sentence of 200,000 words would otherwise hold 800 MB of projections
# for each 128-unit bidirectional LSTM layer. An ordinary batch of
# sentences fits in one block, computed as it always was.
BLOCK_BYTES = 16 << 20


def block_steps(width):
    """How many rows of `width` float32 values fit in `BLOCK_BYTES`: at
    least one."""
    return max(1, BLOCK_BYTES // (4 * max(1, width)))


def array(variable):
    """A Keras variable (or tensor) as a C-contiguous float32 array: read
    once, when the engine compiles a model."""
    value = keras.ops.convert_to_numpy(variable)
    return np.ascontiguousarray(value, dtype=FLOAT)


def sigmoid(x, out=None):
    """`1 / (1 + exp(-x))`, as `0.5 * tanh(0.5 x) + 0.5`."""
    out = np.multiply(x, 0.5, out=out)
    np.tanh(out, out=out)
    out *= 0.5
    out += 0.5
    return out


class Matrix:
    """A weight matrix `w` for `x @ w`, multiplied by column blocks where
    `x` has a few rows.

    OpenBLAS multiplies a few rows by a matrix of a megabyte or more far
    below its speed: 5 rows by a 256 x 1024 float32 matrix take 140 µs,
    the same by 4 blocks of 256 columns 38 µs (measured on a 2-core AMD
    EPYC, OpenBLAS 0.3.31); one row, or many, are as fast either way. A
    beam's hypotheses, a small batch and a word's letters are such rows.
    """

    BLOCK = 256
    FEW = range(2, 25)

    def __init__(self, w):
        self.w = np.ascontiguousarray(w, dtype=FLOAT)
        self.blocks = []
        columns = self.w.shape[-1]
        if self.w.ndim == 2 and self.w.nbytes >= 1 << 20 and columns > 256:
            self.blocks = [
                (a, np.ascontiguousarray(self.w[:, a : a + self.BLOCK]))
                for a in range(0, columns, self.BLOCK)
            ]

    def dot(self, x, out=None):
        """`x @ w` for `(rows, features)` inputs (into `out`)."""
        if self.blocks and len(x) in self.FEW:
            if out is None:
                out = np.empty((len(x), self.w.shape[1]), FLOAT)
            for a, block in self.blocks:
                np.matmul(x, block, out=out[:, a : a + block.shape[1]])
            return out
        return np.matmul(x, self.w, out=out)


def sigmoid_of_halved(x):
    """`sigmoid(2 x)` in place, `0.5 * tanh(x) + 0.5`: the sigmoid of a
    gate whose weights were halved when read."""
    np.tanh(x, out=x)
    x *= 0.5
    x += 0.5
    return x


def gru_step(x, hu, h, units, out):
    """One step of a `reset_after` GRU (weights read by `zoo.engine`, its
    gates halved) from the projected inputs `x` and the recurrent
    projection `hu` (recurrent bias added) of the states `h`: the new
    states, written to `out`."""
    gates = x[..., : 2 * units] + hu[..., : 2 * units]
    sigmoid_of_halved(gates)
    candidate = gates[..., units:] * hu[..., 2 * units :]
    candidate += x[..., 2 * units :]
    np.tanh(candidate, out=candidate)
    np.subtract(h, candidate, out=out)
    out *= gates[..., :units]
    out += candidate
    return out


def _hard_sigmoid(x):
    return np.clip(x * FLOAT(1 / 6) + FLOAT(0.5), 0, 1).astype(FLOAT)


def _elu(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0))).astype(FLOAT)


def _selu(x):
    alpha, scale = FLOAT(1.6732632423543772), FLOAT(1.0507009873554805)
    return scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _relu(x):
    return np.maximum(x, 0, dtype=FLOAT)


def _silu(x):
    return x * sigmoid(x)


def _softplus(x):
    return np.logaddexp(x, 0, dtype=FLOAT)


def softmax(x, axis=-1):
    """Softmax over `axis`, shifted by the max (no overflow)."""
    shifted = x - x.max(axis=axis, keepdims=True)
    np.exp(shifted, out=shifted)
    shifted /= shifted.sum(axis=axis, keepdims=True)
    return shifted


def log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    shifted -= np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted


# The elementwise activations by Keras function (`layer.activation`).
_ELEMENTWISE = {
    keras.activations.linear: None,
    keras.activations.tanh: np.tanh,
    keras.activations.sigmoid: sigmoid,
    keras.activations.relu: _relu,
    keras.activations.hard_sigmoid: _hard_sigmoid,
    keras.activations.softsign: lambda x: x / (1 + np.abs(x)),
    keras.activations.elu: _elu,
    keras.activations.selu: _selu,
    keras.activations.silu: _silu,
    keras.activations.softplus: _softplus,
    keras.activations.exponential: np.exp,
}


def activation(function, where):
    """The NumPy form of a Keras activation function: an elementwise
    function, None for linear, or `softmax`.

    Raises `NotImplementedError` naming the activation and `where` (the
    layer) for another one, so callers fall back to Keras.
    """
    if function is keras.activations.softmax:
        return softmax
    if function in _ELEMENTWISE:
        return _ELEMENTWISE[function]
    name = getattr(function, "__name__", repr(function))
    raise NotImplementedError(
        f"zoo.engine has no NumPy form of activation {name!r} ({where})."
    )


def apply(function, x):
    """`function(x)` for an `activation` result (None: identity)."""
    return x if function is None else function(x)


def is_tanh(function):
    return function is np.tanh


def is_sigmoid(function):
    return function is sigmoid


class LayerNorm:
    """`keras.layers.LayerNormalization` over the last axis, at inference:
    `(x - mean) / sqrt(var + epsilon) * gamma + beta`."""

    def __init__(self, layer):
        axis = layer.axis
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if axes != [-1] or getattr(layer, "rms_scaling", False):
            raise NotImplementedError(
                f"zoo.engine runs LayerNormalization over the last axis "
                f"only (layer {layer.name!r}: axis={axis!r})."
            )
        self.epsilon = FLOAT(layer.epsilon)
        self.gamma = array(layer.gamma) if layer.scale else None
        self.beta = array(layer.beta) if layer.center else None

    def __call__(self, x):
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        variance = np.square(centred).mean(axis=-1, keepdims=True)
        variance += self.epsilon
        np.sqrt(variance, out=variance)
        centred /= variance
        if self.gamma is not None:
            centred *= self.gamma
        if self.beta is not None:
            centred += self.beta
        return centred
