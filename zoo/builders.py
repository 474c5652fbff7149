"""`Backbone` (and `stacked_rnn`, its builder function): the one
generic stacked-RNN backbone."""

import functools

import keras
import numpy as np

from zoo import options
from zoo import validation as v
from zoo._package import PACKAGE
from zoo.layers.characters import CharacterEncoder
from zoo.layers.contextual_embedding import ContextualEmbedding
from zoo.layers.embedding_dropout import EmbeddingDropout
from zoo.layers.stacked_rnn import StackedRNN
from zoo.layers.token_embedding import TokenEmbedding


def _unique_name(prefix):
    """`prefix`, then `prefix_1`, `prefix_2`, ... as Keras numbers its
    layers (reset by `keras.backend.clear_session()`), so that two
    backbones fit in one model."""
    uid = keras.backend.get_uid(prefix)
    return prefix if uid == 1 else f"{prefix}_{uid - 1}"


def _word_vectors(vectors, vocabulary_size, mask_zero, name):
    """A frozen `keras.layers.Embedding` holding `vectors`."""
    try:
        vectors = np.asarray(vectors, dtype="float32")
    except (TypeError, ValueError):
        vectors = None
    if vectors is None or vectors.ndim != 2 or len(vectors) != vocabulary_size:
        shape = None if vectors is None else vectors.shape
        raise ValueError(
            "`word_vectors` must be a float array of shape (vocabulary_size, "
            f"dim) = ({vocabulary_size}, dim); received shape {shape}."
        )
    if not np.isfinite(vectors).all():
        raise ValueError(
            "`word_vectors` must be finite; received NaN or inf at row "
            f"{int(np.argwhere(~np.isfinite(vectors))[0][0])}."
        )
    layer = keras.layers.Embedding(
        vocabulary_size,
        vectors.shape[1],
        mask_zero=mask_zero,
        trainable=False,
        name=f"{name}_word_vectors",
    )
    layer.build((None, None))
    layer.embeddings.assign(vectors)
    return layer


def _graph(
    cell,
    num_layers,
    units,
    *,
    input_dim,
    vocabulary_size,
    embedding_dim,
    embedding_dropout,
    mask_zero,
    char_vocabulary_size,
    char_embedding_dim,
    char_units,
    char_kind,
    mask_value,
    sequence_length,
    batch_size,
    return_sequences,
    name,
    contextual,
    word_vectors,
    token_features,
    embedding_rows,
    **stack_options,
):
    """`(inputs, output)` of a stacked-RNN backbone: the graph that a
    `Backbone` is the functional `keras.Model` of (its arguments are
    `Backbone`'s; why one signature is written twice: `Backbone`'s is
    what users and `zoo.options`' tests read)."""
    if (input_dim is None) == (vocabulary_size is None):
        raise ValueError(
            "Pass exactly one of `input_dim` (float features) or "
            "`vocabulary_size` (token ids); received "
            f"input_dim={input_dim!r}, vocabulary_size={vocabulary_size!r}."
        )
    name = name or _unique_name("stacked_rnn")
    if sequence_length is not None:
        v.check_positive_int("sequence_length", sequence_length)
    if vocabulary_size is not None:
        options.validate("vocabulary_size", vocabulary_size)
        options.validate("embedding_dim", embedding_dim)
        options.validate("embedding_dropout", embedding_dropout)
        options.validate("mask_zero", mask_zero)
        options.validate("char_vocabulary_size", char_vocabulary_size)
        if mask_value is not None:
            raise ValueError(
                "`mask_value` masks float inputs; with `vocabulary_size` "
                "the embedding masks token id 0 (`mask_zero`), so pass "
                f"mask_value=None; received mask_value={mask_value!r} with "
                f"vocabulary_size={vocabulary_size!r}."
            )
        inputs = keras.Input(
            (sequence_length,),
            batch_size=batch_size,
            dtype="int32",
            name=f"{name}_token_ids",
        )
        if embedding_rows is not None:
            v.check_positive_int("embedding_rows", embedding_rows)
            if not 2 <= embedding_rows <= vocabulary_size:
                raise ValueError(
                    "`embedding_rows` must be in [2, vocabulary_size]; "
                    f"received embedding_rows={embedding_rows!r} with "
                    f"vocabulary_size={vocabulary_size!r}."
                )
        embedding = TokenEmbedding(
            embedding_rows or vocabulary_size,
            embedding_dim,
            vocabulary_size=vocabulary_size if embedding_rows else None,
            mask_zero=mask_zero,
            name=f"{name}_embedding",
        )
        if embedding_dropout:
            embedding = EmbeddingDropout(
                embedding,
                rate=embedding_dropout,
                seed=stack_options.get("seed"),
                name=f"{name}_embedding_dropout",
            )
        x = embedding(inputs)
        if contextual is not None and not isinstance(
            contextual, ContextualEmbedding
        ):
            raise TypeError(
                "`contextual` must be a `zoo.layers.ContextualEmbedding` "
                "(zoo.language_model.contextual_embedding(bilm)) or None; "
                f"received {type(contextual).__name__}."
            )
        if char_vocabulary_size is not None or contextual is not None:
            chars = keras.Input(
                (sequence_length, None),
                batch_size=batch_size,
                dtype="int32",
                name=f"{name}_char_ids",
            )
        features = [x]
        extra_inputs = []
        if token_features is not None:
            v.check_positive_int("token_features", token_features)
            extra_inputs.append(
                keras.Input(
                    (sequence_length, token_features),
                    batch_size=batch_size,
                    name=f"{name}_token_features",
                )
            )
        if word_vectors is not None:
            features.append(
                _word_vectors(word_vectors, vocabulary_size, mask_zero, name)(
                    inputs
                )
            )
        if char_vocabulary_size is not None:
            options.validate("char_embedding_dim", char_embedding_dim)
            options.validate("char_units", char_units)
            options.validate("char_kind", char_kind)
            spelled = CharacterEncoder(
                char_vocabulary_size,
                char_embedding_dim,
                char_units,
                kind=char_kind,
                seed=stack_options.get("seed"),
                name=f"{name}_characters",
            )(chars)
            features.append(spelled)
        if contextual is not None:
            features.append(contextual(chars))
        # Padding's features are all zeros: `Masking` marks those steps,
        # and the concatenation keeps a step where any input does, so
        # the token ids' mask survives (an input without a mask would
        # make every step real).
        features.extend(
            keras.layers.Masking(0.0, name=f"{name}_token_features_mask")(t)
            for t in extra_inputs
        )
        if len(features) > 1:
            x = keras.layers.Concatenate(name=f"{name}_word_features")(features)
        if char_vocabulary_size is not None or contextual is not None:
            inputs = [inputs, chars, *extra_inputs]
        elif extra_inputs:
            inputs = [inputs, *extra_inputs]
    else:
        if embedding_rows is not None:
            raise ValueError(
                "`embedding_rows` are rows of the token embedding, so they "
                f"need `vocabulary_size`; received input_dim={input_dim!r}."
            )
        if token_features is not None:
            raise ValueError(
                "`token_features` join the word features of token inputs, "
                "so they need `vocabulary_size`; received "
                f"input_dim={input_dim!r}."
            )
        if word_vectors is not None:
            raise ValueError(
                "`word_vectors` are looked up by token id, so they need "
                f"`vocabulary_size`; received input_dim={input_dim!r}."
            )
        if contextual is not None:
            raise ValueError(
                "`contextual` reads the characters of tokens, so it needs "
                f"`vocabulary_size`; received input_dim={input_dim!r}."
            )
        if char_vocabulary_size is not None:
            raise ValueError(
                "`char_vocabulary_size` reads the characters of tokens, so "
                "it needs `vocabulary_size`; received char_vocabulary_size="
                f"{char_vocabulary_size!r} with input_dim={input_dim!r}."
            )
        v.check_positive_int("input_dim", input_dim)
        if embedding_dropout:
            raise ValueError(
                "`embedding_dropout` drops token types, so it needs "
                f"`vocabulary_size`; received embedding_dropout="
                f"{embedding_dropout!r} with input_dim={input_dim!r}."
            )
        inputs = keras.Input(
            (sequence_length, input_dim),
            batch_size=batch_size,
            name=f"{name}_features",
        )
        x = inputs
        options.validate("mask_value", mask_value)
        if mask_value is not None:
            x = keras.layers.Masking(mask_value, name=f"{name}_masking")(x)
    stack = StackedRNN(
        cell,
        units,
        num_layers,
        return_sequences=return_sequences,
        name=f"{name}_stack",
        **stack_options,
    )
    return inputs, stack(x)


# What a `Backbone`'s config holds of `word_vectors`: their shape (the
# values are weights, saved with the weights, not in the config).
_VECTORS_SHAPE = "word_vectors_shape"


def _to_config(value):
    """A constructor argument as JSON: Keras objects (a
    `ContextualEmbedding`, an initializer, a regularizer) serialized."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_to_config(x) for x in value]
    if isinstance(value, dict):
        return {k: _to_config(x) for k, x in value.items()}
    return keras.saving.serialize_keras_object(value)


def _from_config(value):
    """`_to_config`'s inverse."""
    if isinstance(value, dict) and "class_name" in value:
        return keras.saving.deserialize_keras_object(value)
    if isinstance(value, list):
        return [_from_config(x) for x in value]
    if isinstance(value, dict):
        return {k: _from_config(x) for k, x in value.items()}
    return value


@keras.saving.register_keras_serializable(package=PACKAGE)
class Backbone(keras.Model):
    """A stacked-RNN backbone: the functional `keras.Model` from token ids
    (and each token's character ids and features) or float features to
    one vector per timestep (or per sequence), whose config is its
    constructor's arguments (keras-hub's `Backbone`): a task model
    (`zoo.tasks.Tagger`, `TextClassifier`) puts a head on it.

    Pass exactly one of `input_dim` (float features, `(batch, timesteps,
    input_dim)`) or `vocabulary_size` (integer token ids, `(batch,
    timesteps)`, embedded by a `zoo.layers.TokenEmbedding` and masked on
    id 0; an id outside `[0, vocabulary_size)` is a `ValueError` when the
    model is called eagerly). The model's output is the
    `zoo.layers.StackedRNN` output: by default one vector per timestep,
    ready for a tagging head or a pooling classifier.

    Args:
        cell: `"lstm"`, `"gru"`, `"simple_rnn"` or one per layer.
        num_layers: depth; `None` infers it from per-layer lists (2 when
            there are none).
        units: hidden size, or one per layer.
        input_dim: feature width of float inputs.
        vocabulary_size: size of the token vocabulary (id 0 is padding
            when `mask_zero=True`).
        embedding_dim: width of the token embedding.
        embedding_dropout: fraction of word types dropped per batch
            (`zoo.layers.EmbeddingDropout`); token inputs only.
        mask_zero: mask token id 0 (token inputs).
        char_vocabulary_size: with token inputs, also read each token's
            characters (a second input, `(batch, timesteps, chars)` ids,
            0 for padding): a `zoo.layers.CharacterEncoder` turns them
            into one vector per token, concatenated with the embedding.
            `None`: tokens only.
        char_embedding_dim: width of the character embedding.
        char_units: width of the character encoder (per direction).
        char_kind: `"rnn"` (a bidirectional LSTM over the characters),
            `"cnn"` (convolutions and a masked max-pool) or `"both"` (the
            two side by side, concatenated). The `char_*`
            arguments are declared in `zoo.options.CHARACTER_OPTIONS`.
        mask_value: for float inputs, mask timesteps whose features all
            equal this value (`keras.layers.Masking`); `None` for no mask.
            Refused with `vocabulary_size` (the embedding masks id 0).
        sequence_length: fixed number of timesteps, or `None` for any.
        batch_size: fixed batch size (needed for `stateful=True`).
        return_sequences: whether the top layer returns every timestep.
        contextual: with token inputs, a `zoo.layers.ContextualEmbedding`
            (ELMo's mix of a pretrained biLM's layers,
            `zoo.language_model.contextual_embedding`): it reads the
            character ids (the second input, spelled by the biLM's
            `characters` vocabulary; `char_vocabulary_size` must then be
            that vocabulary's size, or None for no character encoder of
            the model's own) and its vectors join the word features.
        word_vectors: with token inputs, a `(vocabulary_size, dim)` float
            array of pretrained word vectors (row `i` for token id `i`;
            zeros where a word has none): a second word channel, a frozen
            `keras.layers.Embedding` named `f"{name}_word_vectors"`,
            concatenated with the trained embedding (the recipes'
            `--word-vectors`, read by `recipes.data.vectors`).
        embedding_rows: with token inputs, how many ids have a trained
            embedding row (`None`: all of them): ids from `embedding_rows`
            to `vocabulary_size` (words that only `word_vectors` know)
            read the `[UNK]` row, id 1, in the trained embedding and
            their own rows in `word_vectors`, so a vocabulary extended
            with the vectors' words costs no trained parameters.
        token_features: with token inputs, the width of per-token float
            features that are not learned (word shape, gazetteer matches:
            `zoo.layers.TokenFeatures`), read from one more input,
            `(batch, timesteps, token_features)` named
            `f"{name}_token_features"` (the model's last input), and
            concatenated with the word features. `None`: none.
        name: model name (default `"stacked_rnn"`, then `"stacked_rnn_1"`,
            ... as Keras numbers layers, so two backbones fit in one
            model); the stack layer is `f"{name}_stack"` and its layers
            are named `f"{name}_stack_layer{i}_{part}"`.
        **stack_options: every other `zoo.layers.StackedRNN` argument:
            `bidirectional`, `merge_mode`, `dropout`, `recurrent_dropout`
            (leaves the fused cuDNN path), `inter_layer_dropout`,
            `weight_drop`, `residual`, `highway`, `layer_norm`,
            `return_state`, `output`, `stateful`, `seed`; and Keras's own
            recurrent-layer arguments, passed to every recurrent layer
            (a scalar) or one per layer (a list), as
            `keras.layers.LSTM` / `GRU` / `SimpleRNN` name them
            (`zoo.options.KERAS_RNN_OPTIONS`): `activation`,
            `recurrent_activation` (GRU, LSTM), `use_bias`,
            `kernel_initializer`, `recurrent_initializer`,
            `bias_initializer`, `unit_forget_bias` (LSTM),
            `kernel_regularizer`, `recurrent_regularizer`,
            `bias_regularizer`, `activity_regularizer` (on each recurrent
            layer's output), `kernel_constraint`, `recurrent_constraint`,
            `bias_constraint`, `reset_after` (GRU) and `unroll`. A
            non-tanh `activation`, a non-sigmoid `recurrent_activation`,
            `use_bias=False`, `unroll=True` or `reset_after=False` leaves
            the fused kernel (`zoo.fast_path_report` says so).

    Example:
    ```python
    encoder = zoo.Backbone("lstm", 2, 128, vocabulary_size=10_000)
    encoder = zoo.stacked_rnn("lstm", 2, 128, vocabulary_size=10_000)
    ```
    """

    def __init__(
        self,
        cell="lstm",
        num_layers=None,
        units=128,
        *,
        input_dim=None,
        vocabulary_size=None,
        embedding_dim=64,
        embedding_dropout=0.0,
        mask_zero=True,
        char_vocabulary_size=None,
        char_embedding_dim=32,
        char_units=32,
        char_kind="rnn",
        mask_value=None,
        sequence_length=None,
        batch_size=None,
        return_sequences=True,
        name=None,
        contextual=None,
        word_vectors=None,
        token_features=None,
        embedding_rows=None,
        **stack_options,
    ):
        arguments = dict(locals())  # the named arguments, first
        for key in ("self", "stack_options", "__class__"):
            arguments.pop(key, None)
        trainable = stack_options.pop("trainable", True)
        stack_options.pop("dtype", None)
        name = arguments["name"] = name or _unique_name("stacked_rnn")
        inputs, output = _graph(**arguments, **stack_options)
        super().__init__(inputs, output, name=name)
        if not trainable:  # True would unfreeze the frozen word vectors
            self.trainable = False
        # Untracked: the arguments, not state (a contextual layer among
        # them is tracked where the graph uses it).
        arguments.pop("name")
        object.__setattr__(self, "_arguments", {**arguments, **stack_options})

    @property
    def arguments(self):
        """The constructor's arguments (a copy), `name` excepted."""
        return dict(self._arguments)

    def get_config(self):
        arguments = dict(self._arguments)
        vectors = arguments.pop("word_vectors", None)
        config = {"name": self.name, "trainable": self.trainable}
        config.update({k: _to_config(x) for k, x in arguments.items()})
        if vectors is not None:
            config[_VECTORS_SHAPE] = list(np.shape(vectors))
        return config

    @classmethod
    def from_config(cls, config):
        config = {k: _from_config(x) for k, x in config.items()}
        shape = config.pop(_VECTORS_SHAPE, None)
        if shape is not None:  # the values come with the weights
            config["word_vectors"] = np.zeros(shape, "float32")
        return cls(**config)


# The builder function's name for `Backbone`: `zoo.stacked_rnn(...)`.
stacked_rnn = Backbone


def _variant(cell_name):
    @functools.wraps(stacked_rnn)
    def builder(num_layers=None, units=128, **kwargs):
        return stacked_rnn(cell_name, num_layers, units, **kwargs)

    builder.__name__ = builder.__qualname__ = f"stacked_{cell_name}"
    builder.__doc__ = (
        f"`zoo.stacked_rnn` with `cell={cell_name!r}`; same arguments "
        "without `cell`.\n\n    Example:\n    ```python\n    encoder = "
        f"zoo.stacked_{cell_name}(2, 64, input_dim=16)\n    ```\n"
    )
    return builder


stacked_simple_rnn = _variant("simple_rnn")
stacked_gru = _variant("gru")
stacked_lstm = _variant("lstm")
