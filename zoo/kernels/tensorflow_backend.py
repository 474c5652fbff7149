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


KERNELS = TensorFlowKernels()
