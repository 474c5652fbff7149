import keras

from zoo import validation as v
from zoo._package import PACKAGE
from zoo.layers import shapes


@keras.saving.register_keras_serializable(package=PACKAGE)
class VariationalDropout(keras.layers.Dropout):
    """Time-locked dropout: one mask per sequence, the same at every step.

    Gal & Ghahramani (2016) showed that dropping different units at every
    timestep breaks a recurrent network's memory, while one mask per
    sequence regularises it. This is `keras.layers.Dropout` with
    `noise_shape=(batch, 1, features)`; at inference it is the identity.
    It passes masks through unchanged.

    Args:
        rate: fraction of features to drop, in [0, 1).
        seed: optional integer seed for the mask.

    Call arguments:
        inputs: a `(batch, timesteps, features)` tensor.
        training: whether to drop (defaults to the Keras learning phase).

    Example:
    ```python
    x = keras.Input((None, 16))
    y = zoo.layers.VariationalDropout(0.3)(x)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(self, rate, seed=None, **kwargs):
        kwargs.pop("noise_shape", None)  # fixed by this layer
        v.check_rate("rate", rate)
        super().__init__(rate, noise_shape=(None, 1, None), seed=seed, **kwargs)

    def build(self, input_shape):
        shapes.check_rank_3("VariationalDropout", input_shape)
        super().build(input_shape)

    def get_config(self):
        config = super().get_config()
        config.pop("noise_shape", None)
        return config
