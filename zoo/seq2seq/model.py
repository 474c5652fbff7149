"""`Seq2Seq`: a stacked-RNN encoder-decoder with optional attention."""

import copy

import keras
import numpy as np

from zoo import cells
from zoo import spec as spec_lib
from zoo import validation as v
from zoo._package import PACKAGE
from zoo.layers.stacked_rnn import StackedRNN
from zoo.layers.token_embedding import TokenEmbedding
from zoo.seq2seq.layers import BIDIRECTIONAL_MERGES
from zoo.seq2seq.layers import BRIDGES
from zoo.seq2seq.layers import SCORES
from zoo.seq2seq.layers import ApplyMask
from zoo.seq2seq.layers import PaddingMask
from zoo.seq2seq.layers import SourceAttention
from zoo.seq2seq.layers import StateBridge

# What the encoder and decoder dicts take: the options of a stack's layer
# plan (`zoo.spec.ARGUMENTS`); the model sets how the stacks return.
ENCODER_OPTIONS = spec_lib.ARGUMENTS
DECODER_OPTIONS = tuple(
    o for o in ENCODER_OPTIONS if o not in ("bidirectional", "merge_mode")
)
ATTENTIONS = (None, *SCORES)
# The decoder's dropout masks get seeds far from the encoder's
# (`StackedRNN` offsets its layers' seeds by 1000 each).
DECODER_SEED_OFFSET = 100_000
# Weights whose initial value is a choice, not a draw, and that
# `param_init` leaves alone: layer normalisation's scale and offset, the
# cosine score's sharpness, a highway gate's bias (its carry preference).
_CHOSEN_INITIAL_VALUES = ("gamma", "beta", "sharpness", "gate/bias")


def _stack_options(name, options, allowed):
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(
            f"`{name}` must be a dict of zoo.layers.StackedRNN arguments or "
            f"None; received {name}={options!r} of type "
            f"{type(options).__name__}."
        )
    unknown = sorted(k for k in options if k not in allowed)
    if unknown:
        hint = ""
        if name == "decoder" and "bidirectional" in unknown:
            hint = (
                " The decoder reads the target left to right, one step at "
                "a time, so it cannot be bidirectional."
            )
        raise ValueError(
            f"`{name}` got unknown option(s) {unknown}; allowed: "
            f"{list(allowed)}.{hint} Received {name}={options!r}."
        )
    # Lists, not tuples: the config must equal itself after a JSON trip.
    return {
        key: list(value) if isinstance(value, tuple) else copy.deepcopy(value)
        for key, value in options.items()
    }


def _stack(role, options, seed, name):
    try:
        return StackedRNN(
            **options,
            return_sequences=True,
            return_state=True,
            seed=seed,
            name=name,
        )
    except (TypeError, ValueError) as error:
        raise type(error)(f"In `{role}`: {error}") from error


def _encode(parts, source_ids):
    """Source ids -> [encoder outputs, source mask, *decoder states]."""
    source_mask = parts["source_mask"](source_ids)
    x = parts["source_embedding"](source_ids)
    outputs, *states = parts["encoder"](x, mask=source_mask)
    outputs = parts["encoder_outputs"](outputs, mask=source_mask)
    return [outputs, source_mask, *parts["bridge"](states)]


def _decode(parts, target_ids, states, encoder_outputs, source_mask):
    """Target ids and decoder states -> (probabilities, new states)."""
    target_mask = parts["target_mask"](target_ids)
    x = parts["target_embedding"](target_ids)
    y, *states = parts["decoder"](x, initial_state=states, mask=target_mask)
    if parts["attention"] is not None:
        context = parts["attention"](
            y, encoder_outputs, query_mask=target_mask, values_mask=source_mask
        )
        y = parts["attention_output"](parts["attention_concat"]([y, context]))
    return parts["output"](y), states


@keras.saving.register_keras_serializable(package=PACKAGE)
class Seq2Seq(keras.Model):
    """A stacked-RNN encoder-decoder over token ids, with teacher forcing.

    The source ids are embedded and read by an encoder
    `zoo.layers.StackedRNN`; a bridge turns its final states into the
    first states of a decoder `StackedRNN` (unidirectional), which reads
    the target ids shifted right (teacher forcing). With `attention`, each
    decoder output `h_t` attends over the top encoder layer's outputs
    (padding masked) and the Luong output `tanh(W_c [h_t; c_t])` replaces
    it. A softmax over the target vocabulary follows. There is no input
    feeding (the attentional vector is not fed to the next step), so
    teacher-forced training runs each stack over the whole sequence at once
    and attends for all decoder steps in parallel.

    Ids: id 0 is padding in both vocabularies (`Embedding(mask_zero=True)`)
    and sequences are right-padded; an id outside `[0, vocabulary_size)`
    is a `ValueError` in an eager call and in the decoders
    (`zoo.layers.TokenEmbedding`, `zoo.greedy_decode`, `zoo.beam_search`,
    `compiled_decoder`); the masks are computed once
    (`zoo.seq2seq.PaddingMask`) and passed explicitly to each stack and to
    the attention. The start and end ids are the caller's choice (never
    0); reserving id 1 for out-of-vocabulary tokens is the suggested
    convention (`zoo.seq2seq.shift_targets` builds the decoder inputs and
    targets).

    The model is functional (a `keras.Model` subclass whose constructor
    arguments are its config), so it saves to `.keras`, reloads with
    `safe_mode=True` and shows every layer in `summary()`. Layer names
    (for `get_layer`): `f"{name}_source_embedding"`, `_target_embedding`,
    `_source_mask`, `_target_mask`, `_encoder` and `_decoder` (the
    `StackedRNN`s), `_memory` (the encoder outputs, zeroed at padding),
    `_bridge`, `_attention`, `_attention_concat`, `_attention_output`
    and `_output` (the softmax).

    Bridges (`zoo.seq2seq.StateBridge` has the details):

    - `"copy"`: decoder layer `l` starts from encoder layer `l`'s final
      state. Needs equal depths, LSTM with LSTM (`[h, c]`) or GRU/SimpleRNN
      with GRU/SimpleRNN (`[h]`), and equal widths after the bidirectional
      merge; otherwise a `ValueError` names both sides.
    - `"zeros"`: the decoder starts from zeros (then it sees the source only
      through attention, so it needs `attention`).
    - `"dense"`: each decoder state is `tanh(W x + b)` of its source
      encoder layer's states, so widths, depths and cells may differ.
      With `E` encoder and `D` decoder layers, decoder layer `j` reads
      encoder layer `ceil((j + 1) * E / D) - 1` (`model.bridge_sources`):
      equal depths pair layer by layer and the top layers always meet;
      E=4, D=2 reads encoder layers 1 and 3; E=2, D=4 reads 0, 0, 1, 1.

    A bidirectional encoder layer's forward and backward final states are
    merged by `bidirectional_merge`: `"concat+dense"` (concatenate, then
    `tanh(Dense)` to the decoder width; under `"dense"` the bridge's own
    projection reads the concatenation) or `"sum"` (under `"copy"` the
    encoder layer's `units` must equal the decoder layer's).

    Args:
        source_vocabulary_size: number of source ids (0 is padding).
        target_vocabulary_size: number of target ids (0 is padding).
        embedding_dim: width of both embeddings.
        encoder: dict of `zoo.layers.StackedRNN` arguments for the
            encoder: `cell`, `num_layers`, `units` (scalar or per layer),
            `bidirectional`, `merge_mode` (how the output sequence of a
            bidirectional layer merges), `dropout`, `recurrent_dropout`,
            `inter_layer_dropout`, `weight_drop`, `residual`, `highway`,
            `layer_norm`. `None` for the `StackedRNN` defaults (two
            128-unit LSTM layers).
        decoder: the same for the decoder, without `bidirectional` and
            `merge_mode`.
        bridge: `"copy"`, `"zeros"` or `"dense"`.
        bidirectional_merge: `"concat+dense"` or `"sum"`.
        attention: `None`, `"dot"`, `"general"`, `"additive"` or `"cosine"`
            (`zoo.seq2seq.SourceAttention`); `"dot"` needs the decoder's
            top `units` to equal the encoder's top output width.
        param_init: `None` (each layer's Keras initialisers) or a positive
            float `a`: every weight starts uniform in `[-a, a]` (kernels,
            recurrent kernels, embeddings, biases; not the weights whose
            start is a choice: layer normalisation's scale and offset,
            the cosine sharpness, a highway gate's bias), OpenNMT-py's
            `param_init` (Luong et al. 2015 used 0.1). Keras's smaller
            starts (embeddings in +-0.05, Glorot kernels, +-0.027 for an
            8,000-way softmax) left a translation model at the target's
            unigram loss for hundreds of steps, where 0.1 left it within
            50 (docs/recipes.md, "the initialisation").
        seed: optional integer seed for the dropout masks (and the
            `param_init` draws; without it they follow the global seed,
            `keras.utils.set_random_seed`).
        name: model name, the prefix of every layer name.

    Call arguments:
        inputs: `(source_ids, target_input_ids)`, two right-padded
            `(batch, steps)` integer arrays; the target inputs start with
            the start id (teacher forcing).
        training: whether dropout is active.

    Returns:
        `(batch, target_steps, target_vocabulary_size)` probabilities.

    Example:
    ```python
    model = zoo.Seq2Seq(
        30, 45, embedding_dim=64,
        encoder={"cell": "lstm", "num_layers": 2, "units": 128,
                 "bidirectional": True},
        decoder={"cell": "lstm", "num_layers": 2, "units": 128},
        attention="general",
    )
    probabilities = model((source_ids, target_input_ids))
    ids, scores = zoo.beam_search(model, source_ids, start_id=2, end_id=3,
                                  max_length=30)
    ```
    """

    def __init__(
        self,
        source_vocabulary_size,
        target_vocabulary_size,
        *,
        embedding_dim=128,
        encoder=None,
        decoder=None,
        bridge="copy",
        bidirectional_merge="concat+dense",
        attention=None,
        param_init=None,
        seed=None,
        name="seq2seq",
        **kwargs,
    ):
        v.check_positive_int("source_vocabulary_size", source_vocabulary_size)
        v.check_positive_int("target_vocabulary_size", target_vocabulary_size)
        v.check_positive_int("embedding_dim", embedding_dim)
        v.check_choice("bridge", bridge, BRIDGES)
        v.check_choice(
            "bidirectional_merge", bidirectional_merge, BIDIRECTIONAL_MERGES
        )
        v.check_choice("attention", attention, ATTENTIONS)
        if param_init is not None:
            param_init = v.check_number(
                "param_init", param_init, float, 0.0, low_inclusive=False
            )
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or seed < 0
        ):
            raise TypeError(
                "`seed` must be a non-negative integer or None; received "
                f"seed={seed!r}."
            )
        if bridge == "zeros" and attention is None:
            raise ValueError(
                "With bridge='zeros' and attention=None the decoder never "
                "sees the source; pass attention='dot', 'general' or "
                "'additive', or use bridge='copy' or 'dense'. Received "
                "bridge='zeros', attention=None."
            )
        encoder_options = _stack_options("encoder", encoder, ENCODER_OPTIONS)
        decoder_options = _stack_options("decoder", decoder, DECODER_OPTIONS)
        decoder_seed = None if seed is None else seed + DECODER_SEED_OFFSET
        encoder_stack = _stack(
            "encoder", encoder_options, seed, f"{name}_encoder"
        )
        decoder_stack = _stack(
            "decoder", decoder_options, decoder_seed, f"{name}_decoder"
        )
        encoder_specs = encoder_stack.layer_specs
        decoder_specs = decoder_stack.layer_specs
        top_width = encoder_specs[-1].output_width
        top_units = decoder_specs[-1].units
        if attention == "dot" and top_width != top_units:
            raise ValueError(
                "attention='dot' scores h_t . e_s, so the decoder's top "
                "layer must be as wide as the encoder's top output; "
                f"received decoder units={top_units} and encoder output "
                f"width {top_width}. Use attention='general' or "
                "'additive', or make the widths equal."
            )
        parts = {
            "source_mask": PaddingMask(name=f"{name}_source_mask"),
            "target_mask": PaddingMask(name=f"{name}_target_mask"),
            "source_embedding": TokenEmbedding(
                source_vocabulary_size,
                embedding_dim,
                mask_zero=True,
                name=f"{name}_source_embedding",
            ),
            "target_embedding": TokenEmbedding(
                target_vocabulary_size,
                embedding_dim,
                mask_zero=True,
                name=f"{name}_target_embedding",
            ),
            "encoder": encoder_stack,
            "encoder_outputs": ApplyMask(name=f"{name}_memory"),
            "bridge": StateBridge(
                bridge,
                [s.cell for s in encoder_specs],
                [s.units for s in encoder_specs],
                [s.bidirectional for s in encoder_specs],
                [s.cell for s in decoder_specs],
                [s.units for s in decoder_specs],
                merge=bidirectional_merge,
                name=f"{name}_bridge",
            ),
            "decoder": decoder_stack,
            "attention": None,
            # The softmax runs in float32 even under mixed precision.
            "output": keras.layers.Dense(
                target_vocabulary_size,
                activation="softmax",
                dtype="float32",
                name=f"{name}_output",
            ),
        }
        if attention is not None:
            parts["attention"] = SourceAttention(
                attention, name=f"{name}_attention"
            )
            parts["attention_concat"] = keras.layers.Concatenate(
                name=f"{name}_attention_concat"
            )
            parts["attention_output"] = keras.layers.Dense(
                top_units,
                activation="tanh",
                use_bias=False,
                name=f"{name}_attention_output",
            )

        source_ids = keras.Input(
            (None,), dtype="int32", name=f"{name}_source_ids"
        )
        target_ids = keras.Input(
            (None,), dtype="int32", name=f"{name}_target_input_ids"
        )
        encoder_outputs, source_mask, *states = _encode(parts, source_ids)
        probabilities, _ = _decode(
            parts, target_ids, states, encoder_outputs, source_mask
        )
        super().__init__(
            inputs=[source_ids, target_ids],
            outputs=probabilities,
            name=name,
            **kwargs,
        )
        self.source_vocabulary_size = source_vocabulary_size
        self.target_vocabulary_size = target_vocabulary_size
        self.embedding_dim = embedding_dim
        self.bridge = bridge
        self.bidirectional_merge = bidirectional_merge
        self.attention = attention
        self.param_init = param_init
        self.seed = seed
        if param_init is not None:
            _draw_uniform(self.weights, param_init, seed)
        # Plain, untracked copies: these are config, not state.
        object.__setattr__(self, "_encoder_options", encoder_options)
        object.__setattr__(self, "_decoder_options", decoder_options)
        object.__setattr__(self, "_part_names", {})
        object.__setattr__(self, "_inference_models", {})
        for key, layer in parts.items():
            if layer is not None:
                self._part_names[key] = layer.name

    def _parts(self):
        parts = {"attention": None}
        graph = {layer.name for layer in self.layers}
        for key, layer_name in self._part_names.items():
            if layer_name in graph or key != "encoder_outputs":
                parts[key] = self.get_layer(layer_name)
            else:
                # Without attention the teacher-forced graph never reads
                # the encoder outputs, so their (weightless) `ApplyMask`
                # is not in it; the encoder model gets a fresh one.
                parts[key] = ApplyMask(name=layer_name)
        return parts

    @property
    def bridge_sources(self):
        """The encoder layer that starts each decoder layer (None: zeros)."""
        return list(self.get_layer(self._part_names["bridge"]).sources)

    @property
    def decoder_state_shapes(self):
        """`(units,)` of each decoder state, in `return_state` order."""
        decoder = self.get_layer(self._part_names["decoder"])
        return [
            (spec.units,)
            for spec in decoder.layer_specs
            for _ in cells.get(spec.cell).state_names
        ]

    @property
    def encoder_output_width(self):
        """Width of the top encoder layer's output (what attention reads)."""
        encoder = self.get_layer(self._part_names["encoder"])
        return encoder.layer_specs[-1].output_width

    def encoder_model(self):
        """The encoder as a functional model sharing this model's weights.

        Returns:
            A `keras.Model` mapping `(batch, steps)` source ids to
            `[encoder_outputs, source_mask, *decoder_states]`: the top
            encoder layer's `(batch, steps, encoder_output_width)` outputs
            (zero at padding, no Keras mask attached), the `(batch, steps)`
            boolean source mask and the decoder's initial states after the
            bridge (`decoder_state_shapes`). Built once and cached; it
            saves and reloads on its own.
        """
        if "encoder" not in self._inference_models:
            source_ids = keras.Input(
                (None,), dtype="int32", name=f"{self.name}_source_ids"
            )
            self._inference_models["encoder"] = keras.Model(
                source_ids,
                _encode(self._parts(), source_ids),
                name=f"{self.name}_encoder_model",
            )
        return self._inference_models["encoder"]

    def decoder_step_model(self):
        """One decoder step as a functional model sharing these weights.

        Returns:
            A `keras.Model` mapping `[previous_ids, encoder_outputs,
            source_mask, *states]` (`(batch, 1)` ids, then the encoder
            model's outputs or the previous step's states) to
            `[probabilities, *new_states]`, the probabilities
            `(batch, 1, target_vocabulary_size)`. Feeding the target
            inputs one step at a time gives the teacher-forced outputs.
            Without attention the encoder outputs and mask are accepted
            and unused. Built once and cached; it saves and reloads on
            its own. Pass tensors (`keras.ops.convert_to_tensor`): Keras
            refuses an input list that mixes NumPy arrays and tensors.
        """
        if "step" not in self._inference_models:
            prefix = self.name
            previous_ids = keras.Input(
                (1,), dtype="int32", name=f"{prefix}_previous_ids"
            )
            encoder_outputs = keras.Input(
                (None, self.encoder_output_width),
                name=f"{prefix}_encoder_outputs",
            )
            source_mask = keras.Input(
                (None,), dtype="bool", name=f"{prefix}_source_mask"
            )
            states = [
                keras.Input(shape, name=f"{prefix}_state{i}")
                for i, shape in enumerate(self.decoder_state_shapes)
            ]
            probabilities, new_states = _decode(
                self._parts(),
                previous_ids,
                states,
                encoder_outputs,
                source_mask,
            )
            self._inference_models["step"] = keras.Model(
                [previous_ids, encoder_outputs, source_mask, *states],
                [probabilities, *new_states],
                name=f"{prefix}_decoder_step",
            )
        return self._inference_models["step"]

    def attention_weights(self, source_ids, target_inputs):
        """Where the decoder looked: the `(batch, target_steps,
        source_steps)` attention weights of teacher-forced decoding.

        Args:
            source_ids: `(batch, source_steps)` source ids (0 padding).
            target_inputs: `(batch, target_steps)` decoder inputs, the
                start id then the target's ids (`shift_targets`' first
                output), e.g. a decoded output behind the start id.

        Returns:
            The weights as a backend tensor: each row of a real target
            step sums to 1 over the real source steps (0 on padding).

        Raises:
            ValueError: the model has no attention.
        """
        if self.attention is None:
            raise ValueError(
                "attention_weights: this model has attention=None; only a "
                "model with attention has weights to show."
            )
        parts = self._parts()
        source_ids = keras.ops.convert_to_tensor(source_ids, "int32")
        target_inputs = keras.ops.convert_to_tensor(target_inputs, "int32")
        encoder_outputs, source_mask, *states = self.encoder_model()(source_ids)
        target_mask = parts["target_mask"](target_inputs)
        x = parts["target_embedding"](target_inputs)
        y, *_ = parts["decoder"](x, initial_state=states, mask=target_mask)
        return parts["attention"].attention_weights(
            y, encoder_outputs, source_mask
        )

    def get_config(self):
        return {
            "name": self.name,
            "trainable": self.trainable,
            "source_vocabulary_size": self.source_vocabulary_size,
            "target_vocabulary_size": self.target_vocabulary_size,
            "embedding_dim": self.embedding_dim,
            "encoder": copy.deepcopy(self._encoder_options),
            "decoder": copy.deepcopy(self._decoder_options),
            "bridge": self.bridge,
            "bidirectional_merge": self.bidirectional_merge,
            "attention": self.attention,
            "param_init": self.param_init,
            "seed": self.seed,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**copy.deepcopy(config))


def _draw_uniform(weights, limit, seed):
    """Sets each of `weights` uniform in `[-limit, limit]`, except those in
    `_CHOSEN_INITIAL_VALUES`, from `seed` (None: NumPy's global state,
    which `keras.utils.set_random_seed` seeds)."""
    draw = np.random if seed is None else np.random.default_rng(seed)
    for weight in weights:
        if weight.path.endswith(_CHOSEN_INITIAL_VALUES):
            continue
        values = draw.uniform(-limit, limit, tuple(weight.shape))
        weight.assign(
            values.astype(keras.backend.standardize_dtype(weight.dtype))
        )


def build_seq2seq(
    source_vocabulary_size,
    target_vocabulary_size,
    cell="lstm",
    num_layers=2,
    units=128,
    *,
    bidirectional=False,
    embedding_dim=128,
    bridge="copy",
    bidirectional_merge="concat+dense",
    attention=None,
    encoder=None,
    decoder=None,
    param_init=None,
    seed=None,
    name="seq2seq",
    **stack_options,
):
    """Builds a `zoo.Seq2Seq` whose encoder and decoder share options.

    `cell`, `num_layers`, `units` and every other `StackedRNN` option in
    `stack_options` (`dropout`, `recurrent_dropout`,
    `inter_layer_dropout`, `weight_drop`, `residual`, `highway`,
    `layer_norm`) go to both stacks; `bidirectional` goes to the encoder
    only; the `encoder` / `decoder` dicts override either side.

    Args:
        source_vocabulary_size: number of source ids (0 is padding).
        target_vocabulary_size: number of target ids (0 is padding).
        cell: `"lstm"`, `"gru"` or `"simple_rnn"` (or one per layer).
        num_layers: depth of each stack.
        units: hidden size (or one per layer) of each stack.
        bidirectional: whether the encoder is bidirectional.
        embedding_dim, bridge, bidirectional_merge, attention: as for
            `zoo.Seq2Seq`.
        param_init, seed, name: as for `zoo.Seq2Seq`.
        encoder: dict of encoder options overriding the shared ones.
        decoder: dict of decoder options overriding the shared ones.
        **stack_options: options for both stacks.

    Returns:
        A `zoo.Seq2Seq`.

    Example:
    ```python
    model = zoo.build_seq2seq(30, 45, "lstm", 2, 128, bidirectional=True,
                              attention="general", dropout=0.2)
    ```
    """
    unknown = sorted(k for k in stack_options if k not in DECODER_OPTIONS)
    if unknown:
        raise ValueError(
            f"build_seq2seq got unknown option(s) {unknown}; options shared "
            f"by both stacks: {list(DECODER_OPTIONS)}."
        )
    for side, given in (("encoder", encoder), ("decoder", decoder)):
        if given is not None and not isinstance(given, dict):
            raise v.ArgumentTypeError(
                f"`{side}` must be a dict of {side} options overriding the "
                f"shared ones (e.g. {side}={{'units': 256}}), or None; "
                f"received {side}={given!r} of type {type(given).__name__}. "
                f"The cell of both stacks is `cell`."
            )
    shared = dict(cell=cell, num_layers=num_layers, units=units)
    shared.update(stack_options)
    return Seq2Seq(
        source_vocabulary_size,
        target_vocabulary_size,
        embedding_dim=embedding_dim,
        encoder={**shared, "bidirectional": bidirectional, **(encoder or {})},
        decoder={**shared, **(decoder or {})},
        bridge=bridge,
        bidirectional_merge=bidirectional_merge,
        attention=attention,
        param_init=param_init,
        seed=seed,
        name=name,
    )


def shift_targets(sequences, *, start_id, end_id):
    """Teacher-forcing decoder inputs and targets from target sequences.

    Args:
        sequences: target id sequences without start or end ids: a list of
            lists, or a right-padded 2-D integer array (0 is padding).
        start_id: the id that starts every decoder input.
        end_id: the id that ends every target.

    Returns:
        `(decoder_inputs, decoder_targets)`, two `(batch, longest + 1)`
        int32 arrays, right-padded with 0: `[start, y_1, ..., y_n]` and
        `[y_1, ..., y_n, end]`. Train on `((source_ids, decoder_inputs),
        decoder_targets)` with `sample_weight=decoder_targets != 0`.

    Example:
    ```python
    inputs, targets = zoo.seq2seq.shift_targets([[5, 6], [7]], start_id=2,
                                                end_id=3)
    # inputs  [[2, 5, 6], [2, 7, 0]]; targets [[5, 6, 3], [7, 3, 0]]
    ```
    """
    _check_id("start_id", start_id)
    _check_id("end_id", end_id)
    rows = [[int(t) for t in row if t != 0] for row in sequences]
    steps = max((len(row) for row in rows), default=0) + 1
    inputs = np.zeros((len(rows), steps), "int32")
    targets = np.zeros((len(rows), steps), "int32")
    for i, row in enumerate(rows):
        inputs[i, : len(row) + 1] = [start_id, *row]
        targets[i, : len(row) + 1] = [*row, end_id]
    return inputs, targets


def _check_id(name, value, vocabulary_size=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"`{name}` must be an integer token id; received {name}="
            f"{value!r} of type {type(value).__name__}."
        )
    upper = "" if vocabulary_size is None else f" and < {vocabulary_size}"
    if value < 1 or (vocabulary_size is not None and value >= vocabulary_size):
        raise ValueError(
            f"`{name}` must be >= 1 (0 is padding){upper}; received "
            f"{name}={value!r}."
        )
    return int(value)
