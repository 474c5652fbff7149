import keras

from zoo import validation as v
from zoo import walk
from zoo._package import PACKAGE
from zoo.layers.bilm import BiLMEncoder
from zoo.layers.scalar_mix import ScalarMix

MIXES = ("learned", "average", "top")


@keras.saving.register_keras_serializable(package=PACKAGE)
class ContextualEmbedding(keras.layers.Layer):
    """ELMo features for any Keras model: a pretrained
    `zoo.layers.BiLMEncoder` whose layers a learned `zoo.layers.ScalarMix`
    (with ELMo's scale `gamma`) mixes into one vector per word.

    Take the encoder of a trained language model
    (`zoo.language_model.contextual_embedding(model)` does) and give the
    layer the same character ids the language model read
    (its `characters` vocabulary spells them). With `trainable=False`
    (the default, `frozen`) the encoder's weights stay as pretrained and
    it runs without dropout; only the mix's scalars and `gamma` learn.

    Args:
        encoder: a `BiLMEncoder` (or its serialised config).
        frozen: keep the encoder's weights fixed (ELMo's recipe) or
            fine-tune them with the task.
        mix: `"learned"` (ELMo's task-specific softmax weights, from an
            even start), `"average"` (even weights, fixed) or `"top"` (the
            top layer alone, as a baseline to the mix); `gamma` is learned
            in each.
        dropout: dropout on the mixed vectors (ELMo uses 0.5 on small
            data).
        seed: optional integer seed of the dropout mask.

    Call arguments:
        inputs: `(batch, words, chars)` character ids.
        training: whether dropout (and, unless frozen, the encoder's own
            dropout) is active.

    Returns:
        `(batch, words, 2 * units)` mixed vectors, with the word mask.

    Example:
    ```python
    bilm = keras.saving.load_model("runs/language_model/model.keras")
    chars = keras.Input((None, None), dtype="int32")
    features = zoo.language_model.contextual_embedding(bilm)(chars)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(
        self,
        encoder,
        frozen=True,
        dropout=0.0,
        seed=None,
        mix="learned",
        **kwargs,
    ):
        super().__init__(**kwargs)
        if isinstance(encoder, dict):
            encoder = keras.saving.deserialize_keras_object(encoder)
        if not isinstance(encoder, BiLMEncoder):
            raise TypeError(
                "`encoder` must be a `zoo.layers.BiLMEncoder` (the "
                "`bilm` layer of a trained language model); received "
                f"{type(encoder).__name__}."
            )
        v.check_bool("frozen", frozen)
        v.check_rate("dropout", dropout)
        v.check_choice("mix", mix, MIXES)
        self.encoder = encoder
        self.frozen = frozen
        self.dropout = dropout
        self.seed = seed
        # Every layer inside, not only the encoder: a layer deserialised
        # with `trainable=False` creates its sublayers trainable, and
        # Keras's setter on it does not always reach them.
        for layer in walk.iter_layers(encoder):
            layer.trainable = not frozen
        self.mix_mode = mix
        count = encoder.num_layers + 1
        initial = None
        if mix == "top":  # softmax weights of 1 on the top layer (to 1e-13)
            initial = [-30.0] * (count - 1) + [0.0]
        self.mix = ScalarMix(
            initial_scalar_parameters=initial,
            trainable_scalars=mix == "learned",
            name=f"{self.name}_mix",
        )
        self.mixed_dropout = keras.layers.Dropout(
            dropout, seed=seed, name=f"{self.name}_dropout"
        )
        self.supports_masking = True

    @property
    def output_dim(self):
        return self.encoder.output_dim

    @property
    def layer_weights(self):
        """The mix's softmax-normalised weight of each encoder layer,
        bottom (characters) to top, as a NumPy array."""
        scalars = keras.ops.convert_to_numpy(self.mix.scalar_parameters)
        scalars = scalars - scalars.max()
        weights = keras.ops.convert_to_numpy(keras.ops.exp(scalars))
        return weights / weights.sum()

    def build(self, input_shape):
        if not self.encoder.built:
            self.encoder.build(input_shape)
        shape = (input_shape[0], input_shape[1], self.encoder.output_dim)
        self.mix.build([shape] * (self.encoder.num_layers + 1))
        self.built = True

    def call(self, inputs, training=None):
        layers = self.encoder(
            inputs, training=False if self.frozen else training
        )
        return self.mixed_dropout(self.mix(layers), training=training)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], input_shape[1], self.encoder.output_dim)

    def compute_mask(self, inputs, mask=None):
        return self.encoder.compute_mask(inputs)[0]

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "encoder": keras.saving.serialize_keras_object(self.encoder),
                "frozen": self.frozen,
                "dropout": self.dropout,
                "seed": self.seed,
                "mix": self.mix_mode,
            }
        )
        return config
