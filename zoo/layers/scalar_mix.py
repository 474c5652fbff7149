import keras
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE


@keras.saving.register_keras_serializable(package=PACKAGE)
class ScalarMix(keras.layers.Layer):
    """ELMo's learned mix of all layers: `gamma * sum_l softmax(s)_l h_l`.

    Peters et al. (2018) found that a task-specific, softmax-normalised
    weighting of every layer of a stacked RNN beats using the top layer
    alone, because different layers carry different information. Feed it
    the list that `zoo.layers.StackedRNN(..., output="all")` returns.

    Args:
        initial_scalar_parameters: optional list of initial (pre-softmax)
            weights, one per input; defaults to zeros (an even mix).
        trainable_scalars: whether the mixing scalars are learned; `gamma`
            is always learned.

    Call arguments:
        inputs: a list of tensors of identical shape, one per layer.
        mask: optional list of masks; the first one is kept on the output.

    Example:
    ```python
    x = keras.Input((None, 8))
    layers = zoo.layers.StackedRNN(units=16, num_layers=3, output="all")(x)
    mixed = zoo.layers.ScalarMix()(layers)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(
        self,
        initial_scalar_parameters=None,
        trainable_scalars=True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if initial_scalar_parameters is not None:
            initial_scalar_parameters = [
                float(s) for s in initial_scalar_parameters
            ]
        self.initial_scalar_parameters = initial_scalar_parameters
        v.check_bool("trainable_scalars", trainable_scalars)
        self.trainable_scalars = trainable_scalars
        self.supports_masking = True

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or not all(
            isinstance(s, (list, tuple)) for s in input_shape
        ):
            raise ValueError(
                "ScalarMix expects a list of tensors (one per layer); "
                f"received an input of shape {input_shape}."
            )
        shapes = [tuple(s) for s in input_shape]
        if any(s[1:] != shapes[0][1:] for s in shapes):
            raise ValueError(
                "ScalarMix needs inputs of identical shape; received "
                f"shapes {shapes}. Use merge_mode='sum' or equal `units` "
                "so that every layer has the same width."
            )
        count = len(shapes)
        initial = self.initial_scalar_parameters
        if initial is not None and len(initial) != count:
            raise ValueError(
                "`initial_scalar_parameters` has "
                f"{len(initial)} entries but ScalarMix received {count} "
                f"inputs; received initial_scalar_parameters={initial}."
            )
        self.scalar_parameters = self.add_weight(
            shape=(count,),
            initializer=keras.initializers.Constant(initial or 0.0),
            trainable=self.trainable_scalars,
            name="scalar_parameters",
        )
        self.gamma = self.add_weight(shape=(), initializer="ones", name="gamma")

    def call(self, inputs, mask=None):
        # The softmax runs in float32 under a mixed-precision policy too.
        weights = ops.softmax(ops.cast(self.scalar_parameters, "float32"))
        weights = ops.cast(weights, inputs[0].dtype)
        mixed = weights[0] * inputs[0]
        for index in range(1, len(inputs)):
            mixed = mixed + weights[index] * inputs[index]
        return self.gamma * mixed

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0])

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            return mask[0]
        return mask

    def get_config(self):
        config = super().get_config()
        config["initial_scalar_parameters"] = self.initial_scalar_parameters
        config["trainable_scalars"] = self.trainable_scalars
        return config
