"""The small registered layers that join an encoder stack to a decoder stack.

`PaddingMask` turns token ids into the padding mask, `StateBridge` maps the
encoder's final states to the decoder's initial states and
`SourceAttention` attends from the decoder to the encoder's outputs. Each
one is built from plain config values, so a model holding them saves to
`.keras` and reloads with `safe_mode=True`.
"""

import math

import keras
from keras import ops

from zoo import cells
from zoo import validation as v
from zoo._package import PACKAGE

BRIDGES = ("copy", "zeros", "dense")
BIDIRECTIONAL_MERGES = ("concat+dense", "sum")
SCORES = ("dot", "general", "additive", "cosine")
# The cosine score's learned sharpness starts here: near-uniform weights
# at initialisation (random cosines are ~1/sqrt(width)), and enough range
# to pick one source step out (cosines differ by up to 2).
COSINE_SHARPNESS = 10.0


@keras.saving.register_keras_serializable(package=PACKAGE)
class PaddingMask(keras.layers.Layer):
    """The padding mask of right-padded token ids: `ids != 0`.

    It makes the mask an explicit tensor of the graph, so that it can be
    passed to each layer that needs it (and be an output of an encoder
    model) instead of riding along on `Embedding(mask_zero=True)` outputs.

    Call arguments:
        token_ids: integer ids, any shape; id 0 is padding.

    Returns:
        A boolean tensor of the same shape, `True` at real tokens.

    Example:
    ```python
    ids = keras.Input((None,), dtype="int32")
    mask = zoo.seq2seq.PaddingMask()(ids)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def call(self, token_ids):
        return ops.not_equal(token_ids, ops.zeros_like(token_ids))

    def compute_output_shape(self, token_ids_shape):
        return token_ids_shape

    def compute_output_spec(self, token_ids):
        return keras.KerasTensor(token_ids.shape, dtype="bool")


@keras.saving.register_keras_serializable(package=PACKAGE)
class ApplyMask(keras.layers.Layer):
    """Zeroes a sequence's padded steps and drops its Keras mask.

    The mask becomes explicit: a model that outputs a sequence through this
    layer hands out plain tensors (zero at padding) and the mask as a tensor
    of its own, so feeding its outputs to another model never carries a
    stale mask along (nor raises Keras's "will destroy the mask"
    warning).

    Call arguments:
        inputs: a `(batch, steps, features)` tensor.
        mask: `(batch, steps)` boolean mask; `None` keeps every step.

    Returns:
        The inputs with padded steps set to 0, with no mask attached.

    Example:
    ```python
    outputs = zoo.seq2seq.ApplyMask()(sequence, mask=mask)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return ops.copy(inputs)
        keep = ops.expand_dims(ops.cast(mask, "bool"), -1)
        return ops.where(keep, inputs, ops.zeros_like(inputs))

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_mask(self, inputs, mask=None):
        return None


def bridge_sources(mode, encoder_layers, decoder_layers):
    """Which encoder layer starts each decoder layer.

    Args:
        mode: `"copy"`, `"zeros"` or `"dense"`.
        encoder_layers: the encoder's depth `E`.
        decoder_layers: the decoder's depth `D`.

    Returns:
        A list with one entry per decoder layer: the index of the encoder
        layer whose final state starts it, or `None` for `"zeros"`. For
        `"copy"` (which needs `E == D`) layer `j` reads layer `j`. For
        `"dense"`, decoder layer `j` reads encoder layer
        `ceil((j + 1) * E / D) - 1`: the top layers always meet, equal
        depths pair layer by layer, a deeper encoder feeds evenly spaced
        layers (E=4, D=2: layers 1 and 3) and a deeper decoder reuses
        layers, bottom ones first (E=2, D=4: 0, 0, 1, 1).
    """
    if mode == "zeros":
        return [None] * decoder_layers
    if mode == "copy":
        return list(range(decoder_layers))
    return [
        math.ceil((j + 1) * encoder_layers / decoder_layers) - 1
        for j in range(decoder_layers)
    ]


def _describe(cell, units, bidirectional, merge):
    text = f"cell={cell!r}, units={units}"
    if bidirectional:
        text += f", bidirectional with bidirectional_merge={merge!r}"
    return text


@keras.saving.register_keras_serializable(package=PACKAGE)
class StateBridge(keras.layers.Layer):
    """Maps an encoder stack's final states to a decoder stack's first ones.

    States come and go in `zoo.layers.StackedRNN`'s `return_state` order:
    bottom to top, `[h]` (GRU, SimpleRNN) or `[h, c]` (LSTM) per layer,
    forward then backward for a bidirectional layer.

    A bidirectional encoder layer's two directions are merged first, one
    state tensor at a time (`h` with `h`, `c` with `c`):

    - `"concat+dense"`: `tanh(W [forward; backward] + b)`, a learned
      projection to the decoder layer's width;
    - `"sum"`: `forward + backward` (width `units`).

    Modes (`bridge_sources` says which encoder layer feeds which decoder
    layer):

    - `"copy"`: decoder layer `l` starts from encoder layer `l`'s final
      state. It needs equal depths, the same states per direction (LSTM
      with LSTM; GRU or SimpleRNN with GRU or SimpleRNN) and, after the
      merge, equal widths (a unidirectional or `"sum"` layer must have the
      decoder layer's `units`; `"concat+dense"` projects to it). Without a
      bidirectional layer it has no weights.
    - `"zeros"`: every decoder state starts at zero.
    - `"dense"`: each decoder state tensor is `tanh(W x + b)`, `x` being
      every state tensor of its source encoder layer concatenated: `[h]`
      or `[h; c]`; for a bidirectional layer `[h_fwd; c_fwd; h_bwd;
      c_bwd]` (`"concat+dense"`: this one projection is the merge) or
      `[h_fwd + h_bwd; c_fwd + c_bwd]` (`"sum"`). Widths, depths and cells
      may all differ; decoder layer `j` of `D` reads encoder layer
      `ceil((j + 1) * E / D) - 1` of `E`.

    Args:
        mode: `"copy"`, `"zeros"` or `"dense"`.
        encoder_cells: the encoder's cell per layer.
        encoder_units: the encoder's units (one direction) per layer.
        encoder_bidirectional: whether each encoder layer is bidirectional.
        decoder_cells: the decoder's cell per layer.
        decoder_units: the decoder's units per layer.
        merge: `"concat+dense"` or `"sum"`, for bidirectional layers.

    Call arguments:
        states: the flat list of the encoder's final states.

    Returns:
        The flat list of the decoder's initial states.

    Example:
    ```python
    bridge = zoo.seq2seq.StateBridge(
        "dense", ["lstm", "lstm"], [64, 64], [True, True], ["gru"], [32]
    )
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(
        self,
        mode,
        encoder_cells,
        encoder_units,
        encoder_bidirectional,
        decoder_cells,
        decoder_units,
        merge="concat+dense",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.mode = v.check_choice("bridge", mode, BRIDGES)
        self.merge = v.check_choice(
            "bidirectional_merge", merge, BIDIRECTIONAL_MERGES
        )
        self.encoder_cells = _check_list("encoder_cells", encoder_cells)
        depth = len(self.encoder_cells)
        self.encoder_units = _check_list("encoder_units", encoder_units, depth)
        self.encoder_bidirectional = _check_list(
            "encoder_bidirectional", encoder_bidirectional, depth
        )
        self.decoder_cells = _check_list("decoder_cells", decoder_cells)
        self.decoder_units = _check_list(
            "decoder_units", decoder_units, len(self.decoder_cells)
        )
        for name, values, check in (
            ("encoder_cells", self.encoder_cells, _check_cell),
            ("encoder_units", self.encoder_units, v.check_positive_int),
            ("encoder_bidirectional", self.encoder_bidirectional, v.check_bool),
            ("decoder_cells", self.decoder_cells, _check_cell),
            ("decoder_units", self.decoder_units, v.check_positive_int),
        ):
            for index, value in enumerate(values):
                check(f"{name}[{index}]", value)
        if self.mode == "copy":
            self._check_copy()
        self.sources = bridge_sources(
            self.mode, len(self.encoder_cells), len(self.decoder_cells)
        )
        # projections[j][k]: decoder layer j, state tensor k (h, then c).
        self.projections = []
        for j, (cell, units) in enumerate(
            zip(self.decoder_cells, self.decoder_units)
        ):
            layer = []
            if self._projects(j):
                for part in cells.get(cell).state_names:
                    layer.append(
                        keras.layers.Dense(
                            units,
                            activation="tanh",
                            name=f"{self.name}_layer{j}_{part}",
                        )
                    )
            self.projections.append(layer)

    def _projects(self, j):
        if self.mode == "dense":
            return True
        if self.mode == "zeros":
            return False
        return self.encoder_bidirectional[j] and self.merge == "concat+dense"

    def _check_copy(self):
        encoder_depth = len(self.encoder_cells)
        decoder_depth = len(self.decoder_cells)
        if encoder_depth != decoder_depth:
            raise ValueError(
                "bridge='copy' starts decoder layer l from encoder layer l, "
                "so the encoder and the decoder need the same depth; "
                f"received an encoder with num_layers={encoder_depth} and "
                f"a decoder with num_layers={decoder_depth}. Make them "
                "equal, or use bridge='dense' (a learned projection) or "
                "bridge='zeros'."
            )
        for layer in range(encoder_depth):
            enc_cell = self.encoder_cells[layer]
            dec_cell = self.decoder_cells[layer]
            enc_units = self.encoder_units[layer]
            dec_units = self.decoder_units[layer]
            bidirectional = self.encoder_bidirectional[layer]
            encoder = _describe(enc_cell, enc_units, bidirectional, self.merge)
            decoder = f"cell={dec_cell!r}, units={dec_units}"
            if (
                cells.get(enc_cell).state_names
                != cells.get(dec_cell).state_names
            ):
                raise ValueError(
                    "bridge='copy' needs the same states in encoder and "
                    "decoder layers (LSTM has [h, c]; GRU and SimpleRNN have "
                    f"[h]); layer {layer}: the encoder has {encoder}, the "
                    f"decoder has {decoder}. Use the same cell family or "
                    "bridge='dense'."
                )
            projected = bidirectional and self.merge == "concat+dense"
            if not projected and enc_units != dec_units:
                raise ValueError(
                    "bridge='copy' needs each decoder layer as wide as the "
                    "encoder layer it starts from (after the bidirectional "
                    f"merge); layer {layer}: the encoder has {encoder}, "
                    f"the decoder has {decoder}. Make the widths equal, use "
                    "bidirectional_merge='concat+dense' (which projects) or "
                    "bridge='dense'."
                )

    def _per_layer(self, states):
        """Splits the flat states into (forward, backward) per layer."""
        layers, start = [], 0
        for cell, bidirectional in zip(
            self.encoder_cells, self.encoder_bidirectional
        ):
            count = cells.get(cell).states_per_direction
            forward = list(states[start : start + count])
            start += count
            backward = None
            if bidirectional:
                backward = list(states[start : start + count])
                start += count
            layers.append((forward, backward))
        return layers

    def _expected_states(self):
        return sum(
            cells.get(cell).states_per_direction * (2 if bidirectional else 1)
            for cell, bidirectional in zip(
                self.encoder_cells, self.encoder_bidirectional
            )
        )

    def build(self, states_shape):
        states_shape = list(states_shape)
        if len(states_shape) != self._expected_states():
            raise ValueError(
                f"StateBridge expects {self._expected_states()} encoder "
                "state tensors (return_state order of the encoder stack); "
                f"received {len(states_shape)}."
            )
        layers = self._per_layer(states_shape)
        for j, projections in enumerate(self.projections):
            if not projections:
                continue
            forward, backward = layers[self.sources[j]]
            if self.mode == "copy":
                widths = [[f[-1] + b[-1]] for f, b in zip(forward, backward)]
            else:
                widths = [self._input_widths(forward, backward)] * len(
                    projections
                )
            for dense, width in zip(projections, widths):
                dense.build((None, sum(width)))

    def _input_widths(self, forward, backward):
        if backward is None:
            return [shape[-1] for shape in forward]
        if self.merge == "sum":
            return [shape[-1] for shape in forward]
        return [shape[-1] for shape in forward + backward]

    def call(self, states):
        layers = self._per_layer(states)
        outputs = []
        for j, (cell, units) in enumerate(
            zip(self.decoder_cells, self.decoder_units)
        ):
            count = cells.get(cell).states_per_direction
            if self.mode == "zeros":
                # (batch, 1) zeros broadcast against (units,): no shape
                # arithmetic, so it traces with an unknown batch size.
                batch_zeros = ops.zeros_like(states[0][:, :1])
                zeros = batch_zeros + ops.zeros((units,), batch_zeros.dtype)
                outputs.extend([zeros] * count)
                continue
            forward, backward = layers[self.sources[j]]
            if self.mode == "copy":
                outputs.extend(self._copy(j, forward, backward))
                continue
            parts = forward
            if backward is not None:
                if self.merge == "sum":
                    parts = [f + b for f, b in zip(forward, backward)]
                else:
                    parts = forward + backward
            x = parts[0] if len(parts) == 1 else ops.concatenate(parts, -1)
            outputs.extend(dense(x) for dense in self.projections[j])
        return outputs

    def _copy(self, j, forward, backward):
        if backward is None:
            return forward
        if self.merge == "sum":
            return [f + b for f, b in zip(forward, backward)]
        return [
            dense(ops.concatenate([f, b], -1))
            for dense, f, b in zip(self.projections[j], forward, backward)
        ]

    def compute_output_shape(self, states_shape):
        batch = tuple(states_shape[0])[0]
        return [
            (batch, units)
            for cell, units in zip(self.decoder_cells, self.decoder_units)
            for _ in cells.get(cell).state_names
        ]

    def get_config(self):
        config = super().get_config()
        config.update(
            mode=self.mode,
            encoder_cells=list(self.encoder_cells),
            encoder_units=list(self.encoder_units),
            encoder_bidirectional=list(self.encoder_bidirectional),
            decoder_cells=list(self.decoder_cells),
            decoder_units=list(self.decoder_units),
            merge=self.merge,
        )
        return config


def _check_cell(name, value):
    return v.check_choice(name, value, cells.NAMES)


def _check_list(name, value, length=None):
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(
            f"`{name}` must be a non-empty list with one entry per layer; "
            f"received {name}={value!r}."
        )
    if length is not None and len(value) != length:
        raise ValueError(
            f"`{name}` must have {length} entries (one per layer); "
            f"received {len(value)}: {name}={value!r}."
        )
    return tuple(value)


def _unit(x, epsilon=1e-6):
    """`x` over its L2 norm on the last axis (a zero row stays zero).

    Not `keras.ops.normalize`: it caps the inverse norm at `1 /
    epsilon` (1e7 by default), which is `inf` in float16, so a zero
    (padded) row becomes NaN under `mixed_float16`."""
    norm = ops.sqrt(ops.sum(ops.square(x), axis=-1, keepdims=True))
    return x / (norm + epsilon)


@keras.saving.register_keras_serializable(package=PACKAGE)
class SourceAttention(keras.layers.Layer):
    """Attention from decoder steps to the encoder outputs, padding masked.

    For each query step `t` (a decoder output `h_t`) and each source step
    `s` (an encoder output `e_s`) a score is computed, softmaxed over the
    real source steps only (padding gets weight exactly 0), and the
    context `c_t = sum_s a_ts e_s` is returned. Scores:

    - `"dot"` (Luong): `h_t . e_s`; query and value widths must match.
    - `"general"` (Luong): `h_t W e_s`, with a learned `W`.
    - `"additive"` (Bahdanau): `v . tanh(W_q h_t + W_e e_s)`, with
      `units` hidden units (the query width when `None`).
    - `"cosine"`: `g cos(h_t W, e_s)`, `general`'s score with both sides
      L2-normalised and a learned scalar sharpness `g` (from 10), as in
      query-key normalisation (Henry et al. 2020) and Swin v2's cosine
      attention. Its scores are bounded by `|g|`, which moves slowly: an
      unbounded `general` score over unit-scale (layer-normalised)
      encoder outputs grew so fast under Adam on the translation recipe
      that every step's attention collapsed onto one source piece
      within 100 steps and stayed there (its softmax saturated, so no
      gradient moved it back).

    Every query step is computed at once, so teacher-forced training
    attends for all decoder steps in parallel. A source row with no real
    step gets a zero context (no NaN). The softmax uses no large constant,
    so it works in `mixed_float16` too.

    Args:
        score: `"dot"`, `"general"` or `"additive"`.
        units: hidden size of the additive scorer; `None` for the query
            width. Only for `"additive"`.

    Call arguments:
        query: `(batch, target_steps, query_width)` decoder outputs.
        values: `(batch, source_steps, value_width)` encoder outputs.
        query_mask: ignored apart from being kept on the output (padded
            query steps still get a context).
        values_mask: `(batch, source_steps)` boolean source mask; `None`
            when every step is real.

    Returns:
        The `(batch, target_steps, value_width)` context vectors.

    Example:
    ```python
    attention = zoo.seq2seq.SourceAttention("general")
    context = attention(decoder_outputs, encoder_outputs,
                        values_mask=source_mask)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(self, score="general", units=None, **kwargs):
        super().__init__(**kwargs)
        self.score = v.check_choice("attention", score, SCORES)
        if units is not None:
            v.check_positive_int("units", units)
            if self.score != "additive":
                raise ValueError(
                    "`units` sizes the additive scorer, so it needs "
                    f"score='additive'; received units={units!r} with "
                    f"score={self.score!r}."
                )
        self.units = units
        self.supports_masking = True

    def build(self, query_shape, values_shape):
        query_width, value_width = query_shape[-1], values_shape[-1]
        if query_width is None or value_width is None:
            raise ValueError(
                "SourceAttention needs known feature sizes; received "
                f"query shape {tuple(query_shape)} and values shape "
                f"{tuple(values_shape)}."
            )
        if self.score == "dot" and query_width != value_width:
            raise ValueError(
                "attention='dot' scores h_t . e_s, so the decoder's top "
                "layer must be as wide as the encoder's top output; "
                f"received decoder width {query_width} and encoder output "
                f"width {value_width}. Use attention='general' or "
                "'additive', or make the widths equal."
            )
        if self.score in ("general", "cosine"):
            self.kernel = self.add_weight(
                shape=(query_width, value_width),
                initializer="glorot_uniform",
                name="kernel",
            )
        if self.score == "cosine":
            self.sharpness = self.add_weight(
                shape=(),
                initializer=keras.initializers.Constant(COSINE_SHARPNESS),
                name="sharpness",
            )
        if self.score == "additive":
            units = self.units or query_width
            self.query_kernel = self.add_weight(
                shape=(query_width, units),
                initializer="glorot_uniform",
                name="query_kernel",
            )
            self.value_kernel = self.add_weight(
                shape=(value_width, units),
                initializer="glorot_uniform",
                name="value_kernel",
            )
            self.scale = self.add_weight(
                shape=(units,), initializer="glorot_uniform", name="scale"
            )

    def attention_weights(self, query, values, values_mask=None):
        """The `(batch, target_steps, source_steps)` attention weights."""
        if values_mask is not None:
            values_mask = ops.cast(values_mask, "bool")
            values = ops.where(
                ops.expand_dims(values_mask, -1), values, ops.zeros_like(values)
            )
        if self.score == "additive":
            keys = ops.matmul(values, self.value_kernel)
            queries = ops.matmul(query, self.query_kernel)
            hidden = ops.tanh(
                ops.expand_dims(queries, 2) + ops.expand_dims(keys, 1)
            )
            scores = ops.sum(hidden * self.scale, axis=-1)
        else:
            if self.score != "dot":
                query = ops.matmul(query, self.kernel)
            if self.score == "cosine":
                query = _unit(query) * ops.cast(self.sharpness, query.dtype)
                values = _unit(values)
            scores = ops.matmul(query, ops.transpose(values, (0, 2, 1)))
        if values_mask is None:
            return ops.softmax(scores, axis=-1)
        mask = ops.expand_dims(values_mask, 1)
        # A softmax over the real steps with no large constant: padded
        # scores become the row's minimum, so the shift is the max over
        # real steps, and their exponentials are zeroed afterwards.
        filler = ops.stop_gradient(ops.min(scores, axis=-1, keepdims=True))
        scores = ops.where(mask, scores, filler)
        shift = ops.stop_gradient(ops.max(scores, axis=-1, keepdims=True))
        exps = ops.exp(scores - shift)
        exps = ops.where(mask, exps, ops.zeros_like(exps))
        total = ops.sum(exps, axis=-1, keepdims=True)
        total = ops.where(total > 0, total, ops.ones_like(total))
        return exps / total

    def call(self, query, values, query_mask=None, values_mask=None):
        weights = self.attention_weights(query, values, values_mask)
        if values_mask is not None:
            keep = ops.expand_dims(ops.cast(values_mask, "bool"), -1)
            values = ops.where(keep, values, ops.zeros_like(values))
        return ops.matmul(weights, values)

    def compute_output_shape(self, query_shape, values_shape):
        return (query_shape[0], query_shape[1], values_shape[-1])

    def get_config(self):
        config = super().get_config()
        config.update(score=self.score, units=self.units)
        return config
