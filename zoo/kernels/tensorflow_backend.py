"""The TensorFlow backend's kernels: none for a run of layers, a
`tf.function` for `zoo.inference_function`.

A stack runs Keras's own per-layer calls here: cuDNN on a GPU (Keras's
`backend.lstm` / `gru`), and on a CPU no TensorFlow kernel beat Keras's
loop (benchmarks/README.md). What this module holds is the compiled call.
"""

import tensorflow as tf

from zoo.kernels import base


class TensorFlowKernels(base.Kernels):
    """The TensorFlow backend: no multi-layer kernel, `tf.function`."""

    name = "tensorflow"

    def compile_function(self, model, function, jit_compile=False):
        """A `tf.function` (`reduce_retracing=True`, so new batch sizes
        and lengths soon stop retracing), with XLA when `jit_compile`."""
        return tf.function(
            function, jit_compile=jit_compile, reduce_retracing=True
        )

    def check_traced_ids(self, name, ids, size, what, mask, fail):
        """The id check inside a TensorFlow graph (`fit`, `predict`, a
        `tf.function`, a `tf.data` map).

        TensorFlow's own gather refuses an id at or above the size on
        CPU, but Keras's `ops.take` first wraps negative ids NumPy-style
        (-1 is the last row), so a -1 would pass without a word. An
        `Assert` op in the graph (run by `tf.function`'s automatic
        control dependencies; XLA drops it) fails the step with the same
        words and the first bad id.
        """
        if not isinstance(ids, tf.Tensor) or tf.executing_eagerly():
            return ids
        bad = tf.logical_or(ids < 0, ids >= size)
        if mask is not None and getattr(mask, "shape", None) == ids.shape:
            bad = tf.logical_and(bad, tf.cast(mask, tf.bool))
        tf.debugging.Assert(
            tf.logical_not(tf.reduce_any(bad)),
            [
                f"`{name}` must hold {what} in [0, {size}); received",
                tf.boolean_mask(ids, bad)[:1],
            ],
        )
        return ids


KERNELS = TensorFlowKernels()
