"""The JAX backend's kernels: runs of two or more LSTM layers as one
`jax.experimental.rnn.lstm(num_layers=L)` call (cuDNN), on a GPU only,
float32, without a mask or states; and `jax.jit` for
`zoo.inference_function`.

JAX has no cuDNN GRU, and for a one-layer run Keras already makes the
same call (`keras.layers.LSTM` asks `backend.lstm`), so only deeper LSTM
runs gain. The instance holds nothing that a call changes: the calls are
pure functions of their inputs, so threads need no care here.
"""

import jax
import jax.numpy as jnp
import keras
import numpy as np
from jax.experimental import rnn

from zoo import cells
from zoo.kernels import base
from zoo.kernels import weights
from zoo.walk import directions


class _Identities(list):
    """Values that compare equal when they are the same objects."""

    def __eq__(self, other):
        return len(self) == len(other) and all(
            a is b for a, b in zip(self, other)
        )

    def __ne__(self, other):
        return not self == other

    __hash__ = None


class JaxKernels(base.Kernels):
    """The JAX backend's kernels (cuDNN on a GPU)."""

    name = "jax"

    def weights_probe(self, model):
        """`base.Kernels.weights_probe` from the values themselves: a JAX
        array never changes, so every write of a variable (an `assign`,
        `fit`'s state sync) gives it a new array. The arrays are compared
        by identity, and held, so that an id is never reused."""
        variables = list(model.weights)

        def probe():
            return _Identities([variable.value for variable in variables])

        return probe

    def supports(self, cell, length, bidirectional):
        # Keras itself already makes one cuDNN call per (bi)layer.
        return (
            super().supports(cell, length, bidirectional)
            and length >= 2
            and jax.default_backend() == "gpu"
        )

    def dtype_ok(self, dtype):
        return cells.fused_dtype("jax", dtype, "gpu")

    def run(self, entries, x, lengths, initial_state, return_state):
        top = directions(entries[-1])
        count = len(top)
        units = top[0].cell.units
        batch = x.shape[0]
        zeros = jnp.zeros((len(entries) * count, batch, units), x.dtype)
        y, h, _ = rnn.lstm(
            x,
            zeros,
            zeros,
            weights.keras_to_cudnn_flat(entries, x.dtype),
            jnp.full((batch,), x.shape[1], dtype=jnp.int32),
            input_size=x.shape[-1],
            hidden_size=units,
            num_layers=len(entries),
            dropout=0.0,
            bidirectional=count == 2,
        )
        if top[0].return_sequences:
            return y
        if count == 2:
            return jnp.concatenate([h[-2], h[-1]], axis=-1)
        return h[-1]

    def compile_function(self, model, function, jit_compile=False):
        """A `jax.jit` function that takes the model's current variable
        values at each call (through `keras.StatelessScope`), so weights
        trained later are used without recompiling; each new input shape
        compiles once."""
        variables = list(model.variables)

        def stateless(values, *inputs):
            mapping = list(zip(variables, values))
            with keras.StatelessScope(state_mapping=mapping):
                return function(*inputs)

        compiled = jax.jit(stateless)

        def run(*inputs):
            return compiled([x.value for x in variables], *inputs)

        return run

    def check_traced_ids(self, name, ids, size, what, mask, fail):
        """The id check inside a step that JAX traces (`fit`, `predict`,
        `jit`); returns `ids`, which the caller must use in place of its
        own.

        JAX gathers an out-of-range id as a row of NaN, without a word,
        so a traced step checks too: a comparison and a reduction over
        the ids in the compiled graph, and, only when an id is out of
        range, a host callback that raises the same `ValueError` as the
        eager check (JAX re-raises it from the compiled call). The
        callback is a `jax.pure_callback` inside `lax.cond` whose result
        the step uses: no side effect is ordered into the step, so a step
        with good ids runs as fast as without the check
        (`benchmarks/range_checks.py`), and the check cannot be pruned as
        dead code.
        """
        if not isinstance(ids, jax.core.Tracer):
            return ids
        bad = (ids < 0) | (ids >= size)
        if mask is not None and getattr(mask, "shape", None) == ids.shape:
            bad = bad & mask.astype(bool)
            operands = (ids, mask)
        else:
            operands = (ids,)

        def report(values, *maybe_mask):
            fail(
                name,
                np.asarray(values),
                size,
                what,
                np.asarray(maybe_mask[0]) if maybe_mask else None,
            )
            return np.asarray(values)

        def checked(*args):
            return jax.pure_callback(
                report, jax.ShapeDtypeStruct(ids.shape, ids.dtype), *args
            )

        return jax.lax.cond(
            jnp.any(bad), checked, lambda *args: args[0], *operands
        )


KERNELS = JaxKernels()
