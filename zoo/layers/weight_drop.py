"""Weight-dropped recurrent layers (DropConnect on the recurrent kernel).

AWD-LSTM (Merity et al. 2017) regularises the hidden-to-hidden weights
instead of the hidden state: one Bernoulli mask on `recurrent_kernel` per
batch, shared by every timestep. Because only the weights change, the
layer's own time loop, including the fused cuDNN kernel, runs unmodified;
this is why weight-drop, unlike `recurrent_dropout`, stays on the fast path.

The layers here subclass `keras.layers.LSTM` / `GRU` / `SimpleRNN` and swap
the cell's recurrent kernel for a dropped copy for the duration of a
training call. The swap bypasses Keras's attribute tracking on purpose
(the dropped copy is a tensor, not a weight to save); it is undone in a
`finally` block, so the saved weights are always the undropped ones.

Note: on a GPU, Keras's `Bidirectional` may call a fused two-direction
kernel that reads the cells' kernels directly, without calling the layers.
`zoo.layers.StackedRNN` handles this by applying the swap around the whole
bidirectional block; if you build `keras.layers.Bidirectional(
zoo.layers.WeightDropLSTM(...))` by hand, wrap its call in
`weight_dropped(...)` the same way, or use `zoo.layers.StackedRNN`.
"""

import contextlib

import keras
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE


@contextlib.contextmanager
def weight_dropped(layers, training):
    """Swaps each weight-drop layer's recurrent kernel for a dropped copy.

    Layers already inside a swap (for example, a layer called by an outer
    block that swapped it) are left alone, so a kernel is dropped once.

    Args:
        layers: weight-drop layers (others are ignored).
        training: the call's training flag; nothing happens unless truthy.
    """
    swapped = []
    try:
        for layer in layers:
            if not (
                training
                and isinstance(layer, WeightDropMixin)
                and layer.weight_drop > 0
                and not layer._weight_drop_active
            ):
                continue
            kernel = layer.cell.recurrent_kernel
            object.__setattr__(
                layer.cell, "recurrent_kernel", layer._drop_kernel(kernel)
            )
            object.__setattr__(layer, "_weight_drop_active", True)
            swapped.append((layer, kernel))
        yield
    finally:
        for layer, kernel in swapped:
            object.__setattr__(layer.cell, "recurrent_kernel", kernel)
            object.__setattr__(layer, "_weight_drop_active", False)


class WeightDropMixin:
    """Adds `weight_drop` (DropConnect on `recurrent_kernel`) to an RNN."""

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(self, units, weight_drop=0.5, weight_drop_seed=None, **kwargs):
        super().__init__(units, **kwargs)  # the Keras layer's
        self.weight_drop = v.check_rate("weight_drop", weight_drop)
        self.weight_drop_seed = weight_drop_seed
        self._weight_drop_generator = keras.random.SeedGenerator(
            weight_drop_seed
        )
        object.__setattr__(self, "_weight_drop_active", False)

    def _drop_kernel(self, kernel):
        keep = keras.random.uniform(
            ops.shape(kernel), seed=self._weight_drop_generator
        )
        keep = ops.cast(keep >= self.weight_drop, kernel.dtype)
        return kernel * keep / (1.0 - self.weight_drop)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        with weight_dropped([self], training):
            return super().call(
                sequences,
                initial_state=initial_state,
                mask=mask,
                training=training,
            )

    def get_config(self):
        config = super().get_config()
        config["weight_drop"] = self.weight_drop
        config["weight_drop_seed"] = self.weight_drop_seed
        return config


_DOC = """`keras.layers.{base}` with DropConnect on its recurrent kernel.

    During training one Bernoulli mask (keep probability `1 - weight_drop`,
    scaled by `1 / (1 - weight_drop)`) is drawn per batch and applied to
    `recurrent_kernel` for every timestep; at inference the kernel is used
    as is. {fast}

    Args:
        units: hidden size.
        weight_drop: drop rate for the recurrent kernel, in [0, 1).
        weight_drop_seed: optional integer seed for the weight mask.
        **kwargs: any other `keras.layers.{base}` argument.

    Example:
    ```python
    x = keras.Input((None, 8))
    y = zoo.layers.{name}(16, weight_drop=0.5, return_sequences=True)(x)
    ```
    """

_FUSED = "The layer keeps Keras's fused cuDNN kernel on GPU."


@keras.saving.register_keras_serializable(package=PACKAGE)
class WeightDropLSTM(WeightDropMixin, keras.layers.LSTM):
    __doc__ = _DOC.format(base="LSTM", fast=_FUSED, name="WeightDropLSTM")


@keras.saving.register_keras_serializable(package=PACKAGE)
class WeightDropGRU(WeightDropMixin, keras.layers.GRU):
    __doc__ = _DOC.format(base="GRU", fast=_FUSED, name="WeightDropGRU")


@keras.saving.register_keras_serializable(package=PACKAGE)
class WeightDropSimpleRNN(WeightDropMixin, keras.layers.SimpleRNN):
    __doc__ = _DOC.format(
        base="SimpleRNN",
        fast="SimpleRNN has no fused kernel on any backend.",
        name="WeightDropSimpleRNN",
    )
