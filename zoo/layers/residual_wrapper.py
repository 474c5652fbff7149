import keras

from zoo._package import PACKAGE
from zoo.layers.skip_wrapper import SkipWrapper


@keras.saving.register_keras_serializable(package=PACKAGE)
class ResidualWrapper(SkipWrapper):
    """Adds a layer's input to its output: `y = f(x) + P x`.

    Residual connections between stacked recurrent layers (Wu et al. 2016,
    GNMT) keep gradients flowing through depth, so stacks of 6-8 layers
    train where plain ones stall. `P` is the identity when the widths match
    and a learned linear map (no bias) when they differ; with
    `projection=None` a mismatch is an error, never a silent skip.

    Masks are passed on to the wrapped layer and kept on the output. The
    wrapper also works inside `keras.layers.Bidirectional` and with
    `return_state=True` (the states pass through untouched).

    Args:
        layer: a `keras.layers.Layer` over sequences, usually a recurrent
            layer with `return_sequences=True`.
        projection: `"auto"`, `"always"` or `None`; see above.

    Call arguments:
        sequences: a `(batch, timesteps, features)` tensor.
        initial_state: optional initial states for a recurrent layer.
        mask: optional `(batch, timesteps)` boolean mask.
        training: passed to the wrapped layer.

    Example:
    ```python
    x = keras.Input((None, 32))
    y = zoo.layers.ResidualWrapper(
        keras.layers.LSTM(32, return_sequences=True))(x)
    ```
    """

    def _combine(self, outputs, skip_inputs, skip):
        return outputs + skip
