import keras

from zoo import validation as v
from zoo._package import PACKAGE
from zoo.layers.skip_wrapper import SkipWrapper


@keras.saving.register_keras_serializable(package=PACKAGE)
class HighwayWrapper(SkipWrapper):
    """A gated skip connection: `y = g * f(x) + (1 - g) * P x`.

    The transform gate `g = sigmoid(x W_g + b_g)` is computed from the
    layer's input (Srivastava et al. 2015; Zhang et al. 2016 for highway
    LSTMs). A negative `gate_bias` starts the block close to the identity
    (carrying its input), which is what lets deep stacks train. `P` is the
    identity or a learned projection, as for `zoo.layers.ResidualWrapper`.

    Args:
        layer: a `keras.layers.Layer` over sequences.
        gate_bias: initial bias of the transform gate; -1.0 starts with
            about 27% transform, 73% carry.
        projection: `"auto"`, `"always"` or `None`, as for
            `zoo.layers.ResidualWrapper`.

    Call arguments: those of `zoo.layers.ResidualWrapper` (`sequences`,
    `initial_state`, `mask`, `training`); masks, `Bidirectional` and
    `return_state` work as they do there.

    Example:
    ```python
    x = keras.Input((None, 32))
    gru = keras.layers.GRU(32, return_sequences=True)
    y = zoo.layers.HighwayWrapper(gru, gate_bias=-2.0)(x)  # 12% transform
    ```
    """

    def __init__(self, layer, gate_bias=-1.0, projection="auto", **kwargs):
        super().__init__(layer, projection=projection, **kwargs)
        self.gate_bias = v.check_number("gate_bias", gate_bias, float)
        self.gate = None

    def _build_skip(self, in_width, out_width):
        self.gate = keras.layers.Dense(
            out_width,
            activation="sigmoid",
            bias_initializer=keras.initializers.Constant(self.gate_bias),
            name="gate",
        )
        self.gate.build((None, in_width))

    def _combine(self, outputs, skip_inputs, skip):
        gate = self.gate(skip_inputs)
        return gate * outputs + (1.0 - gate) * skip

    def get_config(self):
        config = super().get_config()
        config["gate_bias"] = self.gate_bias
        return config
