"""Character-level word encoders: one vector per word from its characters.

`CharacterEncoder` reads character ids of shape `(batch, words, chars)`
and returns one vector per word, `(batch, words, width)`, to concatenate
with a word embedding (Lample et al. 2016 for the recurrent encoder, Ma &
Hovy 2016 for the convolutional one, both side by side as the strongest
morphologically rich taggers read characters). Text handling (splitting
words into character ids) is left to the caller.
"""

import keras
from keras import ops

from zoo import options
from zoo import validation as v
from zoo._package import PACKAGE
from zoo.layers import shapes
from zoo.layers.stacked_rnn import StackedRNN

KINDS = options.CHARACTER_KINDS
# A tanh output is never below -1: the value masked characters take
# before the max-pool, safe in every float dtype.
_BELOW_TANH = -2.0


@keras.saving.register_keras_serializable(package=PACKAGE)
class CharacterEncoder(keras.layers.Layer):
    """Encodes each word's characters into one vector.

    Each word's character ids go through an `Embedding`, then either a
    `zoo.layers.StackedRNN` over the characters (`kind="rnn"`: its last
    output, both directions' final states concatenated when
    bidirectional) or `Conv1D` layers with a max-pool over the real
    characters (`kind="cnn"`), or both from the one embedding, their
    vectors concatenated (`kind="both"`: the recurrent encoder reads a
    word's order, the convolutions its n-grams wherever they sit).

    Character id 0 is padding; a word whose ids are all 0 is a padded word:
    its vector is all zeros and the output mask is False there. Padding
    characters and padding words change nothing for the real words: a word
    gives the same vector however much padding surrounds it (characters
    must be right-padded for the recurrent encoder, as for any masked
    `StackedRNN`).

    The `char_*` arguments and `kind` (the option `char_kind`) are
    declared, with their defaults and allowed values, in
    `zoo.options.CHARACTER_OPTIONS`.

    Args:
        char_vocabulary_size: character ids are below this; 0 is padding.
        char_embedding_dim: width of the character embedding.
        char_units: `kind="rnn"`: hidden size of each recurrent layer (one
            direction; the output is `2 * char_units` wide when the top
            layer is bidirectional). `kind="cnn"`: filters of each
            convolution (the output width). `kind="both"`: each, so the
            output is the two widths added.
        num_layers: recurrent layers (or convolutions) over the characters.
        bidirectional: the recurrent encoder (`kind="rnn"` or `"both"`):
            read each word both ways (bool, or one per layer).
        cell: the recurrent encoder: `"lstm"`, `"gru"` or `"simple_rnn"`,
            or one per layer.
        dropout: input dropout of each layer, one mask per word (scalar
            or one per layer): `StackedRNN`'s `dropout` (it keeps the fused
            kernel) and/or `SpatialDropout1D` before each convolution.
        kind: `"rnn"` (default), `"cnn"` or `"both"`.
        char_kernel_size: the convolutions (`kind="cnn"` or `"both"`):
            characters each convolution sees.
        seed: optional integer seed of the dropout masks.

    Attributes:
        embedding: the character `keras.layers.Embedding`.
        stack: the `StackedRNN` (`kind="rnn"` or `"both"`), else None.
        convolutions: the `Conv1D` layers (`kind="cnn"` or `"both"`),
            else `[]`.
        sublayers: the layers above, what `zoo.fast_path_report` and
            `zoo.reset_states` walk (so the report lists the stack's
            recurrent layers).

    Call arguments:
        inputs: integer character ids, `(batch, words, chars)`; any of the
            three dimensions may be unknown.
        training: whether dropout is active.

    Returns:
        `(batch, words, output_dim)` float vectors, with the mask
        `(batch, words)`: True where a word has at least one character.

    Example:
    ```python
    words = keras.Input((None,), dtype="int32")
    chars = keras.Input((None, None), dtype="int32")
    x = keras.layers.Concatenate()([
        keras.layers.Embedding(1000, 64, mask_zero=True)(words),
        CharacterEncoder(100, char_units=25)(chars),
    ])
    y = zoo.layers.StackedRNN("lstm", 64, 1, return_sequences=True)(x)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(
        self,
        char_vocabulary_size,
        char_embedding_dim=32,
        char_units=32,
        num_layers=1,
        *,
        bidirectional=True,
        cell="lstm",
        dropout=0.0,
        kind="rnn",
        char_kernel_size=3,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        # Required here (for `zoo.stacked_rnn`, None means no encoder).
        if char_vocabulary_size is None:
            size = options.get("char_vocabulary_size")
            v.fail(
                "char_vocabulary_size",
                None,
                v.describe_number(int, size.low),
                wrong_type=True,
            )
        # The character options, then the stack's.
        for name, value in (
            ("char_vocabulary_size", char_vocabulary_size),
            ("char_embedding_dim", char_embedding_dim),
            ("char_units", char_units),
        ):
            options.validate(name, value)
        v.check_positive_int("num_layers", num_layers)
        options.get("char_kind").check("kind", kind)
        v.check_positive_int("char_kernel_size", char_kernel_size)
        for name, value in (
            ("bidirectional", bidirectional),
            ("cell", cell),
            ("dropout", dropout),
            ("seed", seed),
        ):
            options.validate(name, value)
        self.char_vocabulary_size = char_vocabulary_size
        self.char_embedding_dim = char_embedding_dim
        self.char_units = char_units
        self.num_layers = num_layers
        self.bidirectional = bidirectional
        self.cell = cell
        self.dropout = dropout
        self.kind = kind
        self.char_kernel_size = char_kernel_size
        self.seed = seed
        self.supports_masking = True

        # The mask is computed from the ids (and adjusted for empty
        # words) here, so the embedding attaches none.
        self.embedding = keras.layers.Embedding(
            char_vocabulary_size,
            char_embedding_dim,
            name=f"{self.name}_embedding",
        )
        self.stack = None
        self.convolutions = []
        self.dropouts = []
        self.output_dim = 0
        if kind in ("rnn", "both"):
            self.stack = StackedRNN(
                cell,
                units=char_units,
                num_layers=num_layers,
                bidirectional=bidirectional,
                dropout=dropout,
                return_sequences=False,
                seed=seed,
                name=f"{self.name}_stack",
            )
            self.output_dim += self.stack.layer_specs[-1].output_width
        if kind in ("cnn", "both"):
            rates = v.per_layer("dropout", dropout, num_layers, v.check_rate)
            for index, rate in enumerate(rates):
                self.dropouts.append(
                    keras.layers.SpatialDropout1D(
                        rate,
                        # Apart from the recurrent encoder's masks.
                        seed=None
                        if seed is None
                        else seed + 1000 * index + 500 * (kind == "both"),
                        name=f"{self.name}_dropout{index}",
                    )
                )
                self.convolutions.append(
                    keras.layers.Conv1D(
                        char_units,
                        char_kernel_size,
                        padding="same",
                        activation="tanh",
                        name=f"{self.name}_conv{index}",
                    )
                )
            self.output_dim += char_units

    @property
    def sublayers(self):
        """The embedding, then the stack and/or the convolutions (what
        `zoo.fast_path_report` and `zoo.reset_states` walk)."""
        stack = [self.stack] if self.stack is not None else []
        return [self.embedding, *stack, *self.convolutions]

    def _check_shape(self, input_shape):
        shapes.check_rank_3("CharacterEncoder", input_shape, shapes.CHARACTERS)

    def build(self, input_shape):
        self._check_shape(input_shape)
        chars = input_shape[2]
        self.embedding.build((None, chars))
        shape = (None, chars, self.char_embedding_dim)
        if self.stack is not None:
            self.stack.build(shape)
        for conv in self.convolutions:
            conv.build(shape)
            shape = (None, chars, self.char_units)
        self.built = True

    def call(self, inputs, training=None):
        ids = ops.cast(inputs, "int32")
        shape = ops.shape(ids)
        flat = ops.reshape(ids, (-1, shape[2]))
        char_mask = ops.not_equal(flat, 0)
        word_mask = ops.any(char_mask, axis=1)
        x = self.embedding(flat)
        parts = []
        if self.stack is not None:
            # An all-False row is not something every kernel takes (cuDNN
            # needs lengths >= 1, the PyTorch fused path falls back): an
            # empty word reads its first (padding) character instead, and
            # its vector is zeroed below.
            empty = ops.logical_not(word_mask)[:, None]
            stack_mask = ops.concatenate(
                [ops.logical_or(char_mask[:, :1], empty), char_mask[:, 1:]],
                axis=1,
            )
            parts.append(self.stack(x, mask=stack_mask, training=training))
        if self.convolutions:
            parts.append(self._convolve(x, char_mask, training))
        vectors = parts[0] if len(parts) == 1 else ops.concatenate(parts, -1)
        vectors = ops.where(
            word_mask[:, None], vectors, ops.zeros_like(vectors)
        )
        return ops.reshape(vectors, (shape[0], shape[1], self.output_dim))

    def _convolve(self, x, char_mask, training):
        keep = ops.cast(char_mask, x.dtype)[:, :, None]
        for dropout, conv in zip(self.dropouts, self.convolutions):
            # Zeroed padding reads like the convolution's own "same"
            # padding, so extra padding characters change nothing.
            x = conv(dropout(x * keep, training=training))
        below = ops.full_like(x, _BELOW_TANH)
        return ops.max(ops.where(char_mask[:, :, None], x, below), axis=1)

    def compute_output_shape(self, input_shape):
        self._check_shape(input_shape)
        return (input_shape[0], input_shape[1], self.output_dim)

    def compute_mask(self, inputs, mask=None):
        word_mask = ops.any(ops.not_equal(inputs, 0), axis=-1)
        if mask is not None and len(mask.shape) == 2:
            word_mask = ops.logical_and(word_mask, ops.cast(mask, "bool"))
        return word_mask

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "char_vocabulary_size": self.char_vocabulary_size,
                "char_embedding_dim": self.char_embedding_dim,
                "char_units": self.char_units,
                "num_layers": self.num_layers,
                "bidirectional": self.bidirectional,
                "cell": self.cell,
                "dropout": self.dropout,
                "kind": self.kind,
                "char_kernel_size": self.char_kernel_size,
                "seed": self.seed,
            }
        )
        return config
