import copy

import keras
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE


@keras.saving.register_keras_serializable(package=PACKAGE)
class EmbeddingDropout(keras.layers.Wrapper):
    """Drops whole word types from an `Embedding` (AWD-LSTM).

    During training one mask over the vocabulary is drawn per batch: a
    dropped word type has its embedding zeroed at every position where it
    occurs, and kept rows are scaled by `1 / (1 - rate)` (Gal & Ghahramani
    2016; Merity et al. 2017). At inference it is the plain embedding. The
    wrapped embedding's mask (`mask_zero=True`) is kept.

    Args:
        layer: a `keras.layers.Embedding`.
        rate: fraction of word types to drop, in [0, 1).
        seed: optional integer seed for the mask.

    Call arguments:
        inputs: integer token ids, `(batch, timesteps)`.
        training: whether to drop.

    Example:
    ```python
    ids = keras.Input((None,), dtype="int32")
    x = zoo.layers.EmbeddingDropout(
        keras.layers.Embedding(1000, 64, mask_zero=True), rate=0.1)(ids)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(self, layer, rate=0.1, seed=None, **kwargs):
        if not isinstance(layer, keras.layers.Embedding):
            raise TypeError(
                "EmbeddingDropout wraps a keras.layers.Embedding; received "
                f"layer={layer!r} of type {type(layer).__name__}."
            )
        super().__init__(layer, **kwargs)
        self.rate = v.check_rate("rate", rate)
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed)
        self.supports_masking = True

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer.build(input_shape)
        self.built = True

    def call(self, inputs, training=None):
        outputs = self.layer(inputs)
        if not training or self.rate == 0:
            return outputs
        rows = getattr(self.layer, "accepted_ids", self.layer.input_dim)
        keep = keras.random.uniform((rows,), seed=self.seed_generator)
        keep = ops.cast(keep >= self.rate, outputs.dtype) / (1.0 - self.rate)
        scale = ops.take(keep, ops.cast(inputs, "int32"), axis=0)
        return outputs * ops.expand_dims(scale, -1)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def compute_mask(self, inputs, mask=None):
        return self.layer.compute_mask(inputs, mask)

    def get_config(self):
        config = super().get_config()
        config["rate"] = self.rate
        config["seed"] = self.seed
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return super().from_config(copy.deepcopy(config), custom_objects)
