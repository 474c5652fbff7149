import keras
from keras import ops

from zoo import options
from zoo import validation as v
from zoo._package import PACKAGE
from zoo.layers import shapes
from zoo.layers.characters import CharacterEncoder
from zoo.layers.stacked_rnn import StackedRNN


def reverse_padded(x, mask):
    """Each row of `x` (`(batch, timesteps, ...)`) reversed within its
    real steps, right padding left where it is: `[a, b, c, pad]` becomes
    `[c, b, a, pad]`. Applying it twice gives `x` back.

    A plain flip would put the padding first; this keeps every sequence
    right-padded, as the fused kernels read them. The rows are gathered
    as one `take` over `(batch * timesteps, ...)`: on PyTorch that is an
    index select whose gradient is an index add, where `take_along_axis`
    with an index broadcast to every feature cost three times as much
    (on JAX and TensorFlow it is no slower).
    """
    steps = ops.shape(mask)[1]
    lengths = ops.sum(ops.cast(mask, "int32"), axis=1, keepdims=True)
    positions = ops.arange(steps, dtype="int32")[None, :]
    index = ops.where(positions < lengths, lengths - 1 - positions, positions)
    features = tuple(x.shape[2:])
    if None in features:  # unknown feature sizes: gather along the axis
        for _ in features:
            index = index[..., None]
        return ops.take_along_axis(x, index, axis=1)
    rows = ops.arange(ops.shape(x)[0], dtype="int32")[:, None] * steps
    flat = ops.reshape(index + rows, (-1,))
    gathered = ops.take(ops.reshape(x, (-1, *features)), flat, axis=0)
    return ops.reshape(gathered, ops.shape(x))


@keras.saving.register_keras_serializable(package=PACKAGE)
class BiLMEncoder(keras.layers.Layer):
    """ELMo's encoder: a character-aware word encoder under a forward and
    a separate backward stacked LSTM, returning every layer.

    Each word's characters go through a `zoo.layers.CharacterEncoder`
    (a convolution and a max-pool, `char_kind="cnn"`, as in Peters et
    al., 2018) and a linear projection to `units`: layer 0. A forward
    `zoo.layers.StackedRNN` reads the sentence left to right and a
    backward one, with its own weights, right to left (each row reversed
    within its real words, `reverse_padded`), so each direction sees only
    its own side of a word: the forward state at word `t` has read words
    `1..t`, the backward one words `t..n` (not `bidirectional=True`,
    whose every layer reads both sides, which would let a language model
    see the word it predicts). Both stacks have residual connections
    between layers (from the second layer up) and stay on the fused
    kernels.

    Args:
        char_vocabulary_size: character ids are below this; 0 is padding.
        units: width of the projection and of every LSTM layer.
        num_layers: LSTM layers per direction.
        char_embedding_dim: width of the character embedding.
        char_units: filters of the character convolution.
        char_kernel_size: characters each filter sees.
        dropout: dropout on layer 0 and between the LSTM layers (one
            mask per sequence, `StackedRNN`'s `inter_layer_dropout`).
        residual: residual connections between the LSTM layers.
        seed: optional integer seed of the dropout masks.

    Call arguments:
        inputs: `(batch, words, chars)` integer character ids (a padded
            word has no character).
        training: whether dropout is active.

    Returns:
        A list of `num_layers + 1` tensors `(batch, words, 2 * units)`,
        bottom to top: layer 0 (the projected characters, repeated for
        the two directions, as ELMo does) and each LSTM layer's forward
        and backward outputs concatenated; each with the word mask. The
        language model reads the top layer's two halves
        (`split_directions`); `zoo.layers.ContextualEmbedding` mixes them
        all.

    Example:
    ```python
    chars = keras.Input((None, None), dtype="int32")
    layers = zoo.layers.BiLMEncoder(60, units=64, num_layers=2)(chars)
    mixed = zoo.layers.ScalarMix()(layers)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(
        self,
        char_vocabulary_size,
        units=256,
        num_layers=2,
        *,
        char_embedding_dim=16,
        char_units=128,
        char_kernel_size=3,
        dropout=0.0,
        residual=True,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        v.check_positive_int("units", units)
        v.check_positive_int("num_layers", num_layers)
        v.check_rate("dropout", dropout)
        v.check_bool("residual", residual)
        options.validate("seed", seed)
        self.char_vocabulary_size = char_vocabulary_size
        self.units = units
        self.num_layers = num_layers
        self.char_embedding_dim = char_embedding_dim
        self.char_units = char_units
        self.char_kernel_size = char_kernel_size
        self.dropout = dropout
        self.residual = residual
        self.seed = seed
        self.supports_masking = True
        self.characters = CharacterEncoder(
            char_vocabulary_size,
            char_embedding_dim,
            char_units,
            kind="cnn",
            char_kernel_size=char_kernel_size,
            name=f"{self.name}_characters",
        )
        self.projection = keras.layers.Dense(
            units, name=f"{self.name}_projection"
        )
        self.input_dropout = keras.layers.Dropout(
            dropout, seed=seed, name=f"{self.name}_dropout"
        )
        stack = dict(
            units=units,
            num_layers=num_layers,
            residual=residual if num_layers > 1 else False,
            inter_layer_dropout=dropout,
            return_sequences=True,
            output="all",
        )
        self.forward_stack = StackedRNN(
            "lstm",
            seed=seed,
            name=f"{self.name}_forward",
            **stack,
        )
        self.backward_stack = StackedRNN(
            "lstm",
            seed=None if seed is None else seed + 1,
            name=f"{self.name}_backward",
            **stack,
        )

    @property
    def sublayers(self):
        """The character encoder, the projection and the two stacks (what
        `zoo.fast_path_report` and `zoo.reset_states` walk)."""
        return [
            self.characters,
            self.projection,
            self.forward_stack,
            self.backward_stack,
        ]

    @property
    def output_dim(self):
        """The width of each returned layer: `2 * units`."""
        return 2 * self.units

    def build(self, input_shape):
        shapes.check_rank_3("BiLMEncoder", input_shape, shapes.CHARACTERS)
        self.characters.build(input_shape)
        self.projection.build((None, None, self.characters.output_dim))
        shape = (None, None, self.units)
        self.forward_stack.build(shape)
        self.backward_stack.build(shape)
        self.built = True

    def call(self, inputs, training=None):
        mask = self.characters.compute_mask(inputs)
        x = self.projection(self.characters(inputs, training=training))
        x = self.input_dropout(x, training=training)
        forward = self.forward_stack(x, mask=mask, training=training)
        backward = self.backward_stack(
            reverse_padded(x, mask), mask=mask, training=training
        )
        layers = [ops.concatenate([x, x], axis=-1)]
        for f, b in zip(forward, backward):
            layers.append(
                ops.concatenate([f, reverse_padded(b, mask)], axis=-1)
            )
        return layers

    def fine_tuning_groups(self):
        """ULMFiT's layer groups of this encoder's variables, top first:
        each LSTM layer (forward and backward together), then the
        character encoder and its projection; each a list of variable
        paths, as `zoo.optimizers.DiscriminativeAdam`'s `groups` take."""
        groups = [[] for _ in range(self.num_layers + 1)]
        stacks = (self.forward_stack.name, self.backward_stack.name)
        for variable in self.trainable_variables:
            group = self.num_layers  # the character encoder, projection
            for i in range(self.num_layers):
                if any(f"{s}_layer{i}_" in variable.path for s in stacks):
                    group = self.num_layers - 1 - i
            groups[group].append(variable.path)
        return [group for group in groups if group]

    def split_directions(self, layer):
        """`(forward, backward)` halves of one returned layer."""
        return layer[..., : self.units], layer[..., self.units :]

    def compute_output_shape(self, input_shape):
        shape = (input_shape[0], input_shape[1], 2 * self.units)
        return [shape] * (self.num_layers + 1)

    def compute_mask(self, inputs, mask=None):
        word_mask = self.characters.compute_mask(inputs)
        return [word_mask] * (self.num_layers + 1)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "char_vocabulary_size": self.char_vocabulary_size,
                "units": self.units,
                "num_layers": self.num_layers,
                "char_embedding_dim": self.char_embedding_dim,
                "char_units": self.char_units,
                "char_kernel_size": self.char_kernel_size,
                "dropout": self.dropout,
                "residual": self.residual,
                "seed": self.seed,
            }
        )
        return config
