"""Fused multi-layer calls for runs of plain LSTM / GRU layers.

`zoo.layers.StackedRNN` looks for runs of consecutive layers that a
multi-layer kernel can compute in one call (PyTorch's `nn.LSTM(num_layers=
L)`, `jax.experimental.rnn.lstm(num_layers=L)`): plain LSTM or GRU layers
(weight-drop variants included), all unidirectional or all bidirectional
with `merge_mode="concat"`, of one width, nothing between them, every one
eligible for the fused kernel (see `zoo.fast_path`). The weights stay in
the layers' own `kernel` / `recurrent_kernel` / `bias` variables; this
module only repacks them into the kernel's layout for each call, so the
`.keras` files are the same with or without it, and the outputs are the
same up to float rounding (tests check this against the per-layer path
and against `zoo.reference`).

Where the kernel is used:

- PyTorch backend, CPU and GPU: `torch.nn.LSTM` / `torch.nn.GRU` with
  `num_layers` equal to the run's length (cuDNN on GPU, PyTorch's own
  kernel on CPU), in float32, bfloat16, or float16 on a GPU. A run of one
  layer is fused too: on this backend Keras itself has no CPU kernel and
  runs a Python-level time loop. A right-padded mask (every row's real
  steps first, at least one) is taken with Keras's values on padded steps
  (the last real output, or zeros in a bidirectional layer): on a CPU the
  kernel runs on the padded rows in groups of similar length
  (`length_groups`; a packed sequence is much slower there); on a GPU,
  and wherever states go in or out (`initial_state`, `return_state`: each
  row's final states are at its own last real step), it gets a packed
  sequence. Any other mask falls back.
- JAX backend, GPU only: `jax.experimental.rnn.lstm(num_layers=L)` (cuDNN)
  for runs of two or more float32 LSTM layers without a mask. JAX has no
  cuDNN GRU, and for a one-layer run Keras already makes the same call.
- TensorFlow: never (Keras's own per-layer cuDNN call on a GPU; on a CPU no
  TensorFlow kernel beat Keras's loop, see benchmarks/README.md).

An initial state and `return_state` are fused on PyTorch (the kernel's
`hx` and final states, in Keras's state order); on JAX they fall back.
Everything else falls back to calling the layers one by one, automatically:
`output="all"` (every layer's output is needed; runs of one only),
residual and highway layers (runs of one, the wrapper's skip path added
after the call), something between layers (layer norm, dropout; the run
is split there), input
`dropout` of a bidirectional layer while training (a unidirectional
layer's starts a new run, its mask applied to the run's input as Keras's
cuDNN path does), `go_backwards`, `stateful`. `zoo.fast_path_report` says
which layers form a run. Set the environment variable `ZOO_FUSED=0`, or
use `with zoo.fused.disabled():`, to turn the multi-layer path off.
"""

import contextlib
import os
import threading
import warnings

import keras
from keras import ops

from zoo import cells
from zoo.fast_path import kernel_reasons
from zoo.walk import directions

_STATE = threading.local()
_TORCH_MODULES = {}


@contextlib.contextmanager
def disabled():
    """Within this context, stacks call their layers one by one."""
    previous = getattr(_STATE, "disabled", False)
    _STATE.disabled = True
    try:
        yield
    finally:
        _STATE.disabled = previous


def enabled():
    """Whether the multi-layer path is on (`ZOO_FUSED`, `disabled()`)."""
    if getattr(_STATE, "disabled", False):
        return False
    return os.environ.get("ZOO_FUSED", "1").strip().lower() not in (
        "0",
        "false",
        "no",
        "off",
    )


def static_reasons(layer, backward=False):
    """Why `layer` can never join a fused run (empty if it can).

    `backward=True` for the backward layer of a `Bidirectional`, whose
    `go_backwards=True` the multi-layer kernels do themselves.
    """
    reasons = list(kernel_reasons(layer))
    cell = cells.of_layer(layer)
    if cell is None or not cell.multi_layer_backends:
        return reasons or [f"{type(layer).__name__} is not an LSTM or GRU"]
    # `return_state` is not among them: the stack asks its layers for
    # their states, and a fused call returns them (PyTorch backend).
    flags = ["stateful", "go_backwards"]
    for flag in flags[:1] if backward else flags:
        if getattr(layer, flag, False):
            reasons.append(f"{flag}=True")
    if layer.activity_regularizer is not None:
        # The multi-layer call skips the layer's `__call__`, where Keras
        # adds the activity loss.
        reasons.append("activity_regularizer (added in the layer's call)")
    return reasons


def _entry_ok(layer):
    """Whether stack layer `layer` (a `zoo.layers.StackLayer`) could join
    a fused run: plain LSTM / GRU layers, a bidirectional one concatenated
    (a residual / highway wrapper is added after the call)."""
    rnn = layer.recurrent
    if layer.wrapped and getattr(layer.block, "layer", None) is not rnn:
        return False
    if isinstance(rnn, keras.layers.Bidirectional):
        forward, backward = layer.directions
        return (
            rnn.merge_mode == "concat"
            and not static_reasons(forward)
            and not static_reasons(backward, backward=True)
            and cells.of_layer(forward) == cells.of_layer(backward)
            and forward.cell.units == backward.cell.units
        )
    return not static_reasons(rnn)


def _signature(layer):
    return (layer.cell, layer.spec.units, len(layer.directions))


def _joins(stack, run, layer):
    """Whether `layer` can extend `run`, the fused run right below it.

    A residual / highway layer adds its input to its output: it is a run
    of its own (the wrapper's merge follows the call)."""
    first, below = run[0], run[-1]
    return (
        not layer.wrapped
        and not first.wrapped
        and _signature(layer) == _signature(first)
        and not below.after
        and below.directions[0].return_sequences
        and stack.output_mode != "all"
    )


def candidate_runs(stack):
    """Maximal runs of layers that could be fused, ignoring the backend.

    Returns a list of `(start, stop)` index pairs (stop exclusive) over
    `stack.stack_layers`. A run holds layers of one cell, width and
    directionality (bidirectional ones with `merge_mode="concat"`), with no
    layer between one and the next; a residual or highway layer, and with
    `output="all"` every layer, is a run of one.
    """
    runs, run = [], []
    for layer in stack.stack_layers:
        ok = _entry_ok(layer)
        if run and not (ok and _joins(stack, run, layer)):
            runs.append((run[0].index, run[-1].index + 1))
            run = []
        if ok:
            run.append(layer)
    if run:
        runs.append((run[0].index, run[-1].index + 1))
    return runs


def _jax_on_gpu():
    import jax

    return jax.default_backend() == "gpu"


def backend_supports(cell, length, bidirectional, backend=None):
    """Whether this backend (on this machine) has a kernel for the run.

    `cell` is a name of `zoo.cells`; its `multi_layer_backends` say where
    a kernel exists.
    """
    backend = backend or keras.backend.backend()
    if backend not in cells.get(cell).multi_layer_backends:
        return False
    if backend == "jax":
        # Keras itself already makes one cuDNN call per (bi)layer.
        return length >= 2 and _jax_on_gpu()
    return True


def check_inputs(sequences, mask=None):
    """Raises a `ValueError` naming `inputs` or `mask` when their shapes
    cannot be read by a stack: an empty time axis, or a mask that is not
    `(batch, timesteps)` of the inputs.

    Reads static shapes only (concrete in an eager call, possibly None
    while traced), so it costs nothing in a compiled step. Without it the
    backends fail deep inside (TensorFlow's `StridedSlice`, JAX's "scan
    got values with different leading axis sizes", PyTorch's "index 6 is
    out of bounds").
    """
    shape = tuple(sequences.shape)
    if len(shape) == 3 and shape[1] == 0:
        raise ValueError(
            f"`inputs` of shape {shape} has no timesteps: a stack reads "
            "(batch, timesteps, features) with at least one timestep; "
            "drop empty sequences or pad them to length 1 (masked)."
        )
    if mask is None:
        return
    mask_shape = tuple(mask.shape)
    expected = shape[:2]
    fits = len(mask_shape) == 2 and all(
        a is None or b is None or a == b for a, b in zip(mask_shape, expected)
    )
    if not fits:
        raise ValueError(
            f"`mask` of shape {mask_shape} does not fit inputs of shape "
            f"{shape}: it must be (batch, timesteps) = {expected}, one "
            "boolean a step."
        )


def right_padded_lengths(mask):
    """Per-row lengths if `mask` is right-padded with no empty row, else None.

    Eager (PyTorch backend) only: the check reads the mask's values.
    """
    mask = ops.cast(mask, "int32")
    lengths = ops.sum(mask, axis=1)
    steps = ops.arange(ops.shape(mask)[1], dtype="int32")
    expected = ops.cast(steps[None, :] < lengths[:, None], "int32")
    if bool(ops.all(ops.equal(mask, expected))) and bool(ops.all(lengths > 0)):
        return lengths
    return None


def plan(stack, mask, initial_states, training, dtype):
    """The runs to fuse for this call: (dict start -> stop, lengths).

    `lengths` is None without a mask; with a right-padded mask (PyTorch
    backend only) it holds each row's length. Initial states and
    `return_state` are fused on the PyTorch backend only.
    """
    if not enabled():
        return {}, None
    backend = keras.backend.backend()
    has_states = initial_states is not None or stack.return_state
    if has_states and backend != "torch":
        return {}, None
    if mask is not None and backend != "torch":
        return {}, None
    if not _dtype_ok(backend, dtype):
        return {}, None
    selected = {}
    for start, stop in _dropout_pieces(stack, training):
        first = stack.stack_layers[start]
        bidirectional = len(first.directions) == 2
        if backend_supports(
            first.cell.name, stop - start, bidirectional, backend
        ):
            selected[start] = stop
    if not selected or mask is None:
        return selected, None
    # Read the mask's values only when a run could use them.
    lengths = _padded_lengths(mask)
    if lengths is None:
        return {}, None
    return selected, lengths


def _outside_compile(function):
    """`function`, run eagerly when `torch.compile` (Keras's
    `jit_compile=True` on PyTorch) traces the call: the multi-layer call is
    one native PyTorch kernel already, and the padding of a mask is read
    from its values (data-dependent branches and sizes, which dynamo would
    trace into, warn about at length and break the graph at anyway).
    Outside a compile, `function` itself. The eager versions are made
    once, outside any traced frame (dynamo does not honour a `disable`
    made while it traces)."""
    if keras.backend.backend() != "torch":
        return function
    import torch

    if not torch.compiler.is_compiling():
        return function
    return _EAGER[function]


def _padded_lengths(mask):
    """`right_padded_lengths`, run outside any `torch.compile` graph."""
    return _outside_compile(right_padded_lengths)(mask)


def _dropout_pieces(stack, training):
    """`candidate_runs`, split so that input dropout stays possible.

    Keras's input `dropout` is one mask per sequence on a layer's input,
    which a multi-layer kernel cannot apply between its layers. While
    training, a run is cut before every layer with `dropout > 0` (the mask
    is then applied to the piece's input, as Keras's own cuDNN path does);
    a bidirectional layer with it (one mask per direction) is not fused.
    """
    pieces = []
    for start, stop in candidate_runs(stack):
        if not training:
            pieces.append((start, stop))
            continue
        piece_start = start
        for layer in stack.stack_layers[start:stop]:
            index = layer.index
            dropout = layer.directions[0].cell.dropout > 0
            if dropout and len(layer.directions) == 2:
                if piece_start < index:
                    pieces.append((piece_start, index))
                piece_start = index + 1
            elif dropout and index > piece_start:
                pieces.append((piece_start, index))
                piece_start = index
        if piece_start < stop:
            pieces.append((piece_start, stop))
    return pieces


def _dtype_ok(backend, dtype):
    """Whether this machine's device runs `dtype` fused (`zoo.cells`)."""
    if backend == "torch":
        import torch

        device = "gpu" if torch.cuda.is_available() else "cpu"
        return cells.fused_dtype("torch", dtype, device)
    return cells.fused_dtype(backend, dtype, "gpu")


def call_run(
    entries, x, lengths=None, training=None, initial_state=None,
    return_state=False,
):  # fmt: skip
    """Runs a fused run of stack entries on `x`; returns the top output
    (and, with `return_state`, the run's final states).

    Args:
        entries: the run's recurrent layers (each `StackLayer.recurrent`:
            LSTM / GRU layers or `Bidirectional` wrappers of them), as
            planned by `plan`.
        x: `(batch, timesteps, features)` input.
        lengths: per-row lengths of a right-padded mask, or None.
        training: the call's training flag (input dropout of the first
            layer, drawn from that layer's own seed generator).
        initial_state: the run's layers' initial states, a flat list in
            `StackedRNN`'s `return_state` order (PyTorch backend only).
        return_state: also return the run's final states, in that order
            (PyTorch backend only): `(output, states)`.
    """
    check_inputs(x)
    first = directions(entries[0])[0]
    if training and first.cell.dropout > 0:
        mask = first.cell.get_dropout_mask(x[:, 0, :])
        first.cell.reset_dropout_mask()
        x = x * ops.expand_dims(mask, 1)
    backend = keras.backend.backend()
    if backend == "torch":
        return _outside_compile(_torch_run)(
            entries, x, lengths, initial_state, return_state
        )
    if initial_state is not None or return_state:
        raise NotImplementedError(f"no fused call with states on {backend}")
    if backend == "jax":
        return _jax_run(entries, x)
    raise NotImplementedError(f"no fused kernel on {backend}")


def _tensor(value, dtype):
    return ops.cast(ops.convert_to_tensor(value), dtype)


def keras_to_torch_lstm(kernel, recurrent_kernel, bias):
    """Keras LSTM weights -> PyTorch's (w_ih, w_hh, b_ih, b_hh).

    Both use the gate order i, f, c (g), o; PyTorch stores matrices
    transposed and has a second bias (zero here).
    """
    return (
        ops.transpose(kernel),
        ops.transpose(recurrent_kernel),
        bias,
        ops.zeros_like(bias),
    )


def _gru_gates(matrix):
    """Keras GRU gate order z, r, h -> PyTorch's r, z, n (last axis)."""
    z, r, h = ops.split(matrix, 3, axis=-1)
    return ops.concatenate([r, z, h], axis=-1)


def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    """Keras GRU (reset_after=True) weights -> PyTorch's layout.

    Keras's bias has shape (2, 3 * units): the input and the recurrent
    bias. Both libraries apply the reset gate after the recurrent matrix
    product (`n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`) and mix with
    `h' = z * h + (1 - z) * n`.
    """
    return (
        ops.transpose(_gru_gates(kernel)),
        ops.transpose(_gru_gates(recurrent_kernel)),
        _gru_gates(bias[0]),
        _gru_gates(bias[1]),
    )


# The weight conversion of each cell with a PyTorch kernel here.
_TO_TORCH = {"lstm": keras_to_torch_lstm, "gru": keras_to_torch_gru}


def _torch_module(cell, input_size, units, num_layers, bidirectional):
    """A parameterless (meta-device) nn.LSTM / nn.GRU to call functionally
    (`cell`: a `zoo.cells.Cell`)."""
    import torch

    key = (cell.name, input_size, units, num_layers, bidirectional)
    if key not in _TORCH_MODULES:
        kind = getattr(torch.nn, cell.torch_module)
        _TORCH_MODULES[key] = kind(
            input_size,
            units,
            num_layers=num_layers,
            batch_first=True,
            bidirectional=bidirectional,
            device="meta",
        )
    return _TORCH_MODULES[key]


def _converted(layer, dtype):
    cell = layer.cell
    convert = _TO_TORCH[cells.of_layer(layer).name]
    return convert(
        *(
            _tensor(w, dtype)
            for w in (cell.kernel, cell.recurrent_kernel, cell.bias)
        )
    )


def _torch_params(entries, dtype, direction=None):
    """The run's weights under nn.LSTM / nn.GRU parameter names: every
    direction, or one `direction` (0 or 1) as a unidirectional module's."""
    params = {}
    names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    for j, rnn in enumerate(entries):
        layers = directions(rnn)
        chosen = range(len(layers)) if direction is None else [direction]
        for d in chosen:
            reverse = d == 1 and direction is None
            suffix = f"_l{j}" + ("_reverse" if reverse else "")
            for name, value in zip(names, _converted(layers[d], dtype)):
                params[name + suffix] = value
    return params


def _torch_call(
    cell, units, params, inputs, num_layers, bidirectional, hx=None
):
    import torch

    # `inputs` may be a packed sequence: the width comes from the weights.
    input_size = params["weight_ih_l0"].shape[1]
    module = _torch_module(cell, input_size, units, num_layers, bidirectional)
    with warnings.catch_warnings():
        # cuDNN copies weights that are not one contiguous block; that copy
        # is the cost of keeping Keras's per-layer variables.
        warnings.simplefilter("ignore", UserWarning)
        args = (inputs,) if hx is None else (inputs, hx)
        return torch.func.functional_call(module, params, args)


def _reverse_within(x, lengths):
    """Each row's first `length` steps reversed, its padding left in place
    (its own inverse)."""
    import torch

    steps = torch.arange(x.shape[1], device=x.device)[None, :]
    lengths = lengths[:, None]
    index = torch.where(steps < lengths, lengths - 1 - steps, steps)
    return torch.gather(x, 1, index[..., None].expand(-1, -1, x.shape[2]))


def _torch_run(entries, x, lengths, initial_state=None, return_state=False):
    import torch

    first = directions(entries[0])[0]
    cell, units = cells.of_layer(first), first.cell.units
    bidirectional = len(directions(entries[0])) == 2
    top = directions(entries[-1])
    has_states = initial_state is not None or return_state
    if lengths is not None and x.device.type == "cpu" and not has_states:
        return _torch_run_padded(entries, x, lengths.to(x.device).long())
    inputs = x
    if lengths is not None:
        # The packed sequence's final states are each row's, at its last
        # real step, as Keras's (the padded CPU path has no such states).
        inputs = torch.nn.utils.rnn.pack_padded_sequence(
            x, lengths.cpu(), batch_first=True, enforce_sorted=False
        )
    params = _torch_params(entries, x.dtype)
    hx = None
    if initial_state is not None:
        hx = _torch_states(initial_state, cell, x.dtype)
    y, final = _torch_call(
        cell, units, params, inputs, len(entries), bidirectional, hx
    )
    if not top[0].return_sequences:
        # The final states: the forward direction's at each row's last
        # real step, the backward direction's after the first step.
        h = final if cell.states_per_direction == 1 else final[0]
        y = torch.cat([h[-2], h[-1]], -1) if bidirectional else h[-1]
    elif lengths is not None:
        y, _ = torch.nn.utils.rnn.pad_packed_sequence(
            y, batch_first=True, total_length=x.shape[1]
        )
        y = _keras_padding(y, lengths.to(y.device).long(), top[0])
    if return_state:
        return y, _keras_states(final, cell)
    return y


def _torch_states(states, cell, dtype):
    """Keras's flat state list (per layer and direction: `[h, c]` or `[h]`)
    -> nn.LSTM's `(h_0, c_0)` / nn.GRU's `h_0`, `(layers * directions,
    batch, units)` each."""
    import torch

    states = [_tensor(state, dtype) for state in states]
    if cell.states_per_direction == 1:
        return torch.stack(states)
    return torch.stack(states[0::2]), torch.stack(states[1::2])


def _keras_states(final, cell):
    """nn.LSTM's `(h_n, c_n)` / nn.GRU's `h_n` -> Keras's flat list."""
    if cell.states_per_direction == 1:
        return list(final)
    h, c = final
    return [state for pair in zip(h, c) for state in pair]


def length_groups(lengths):
    """Rows grouped by length: `[(rows, steps), ...]`, the rows as an index
    tensor and `steps` the group's longest length.

    One group when at least half the padded steps are real (a batch from
    length buckets); else groups whose longest row is at most twice their
    shortest (lengths 1, 2, 3-4, 5-8, ...).
    """
    import torch

    longest = int(lengths.max())
    if 2 * int(lengths.sum()) >= longest * len(lengths):
        return [(None, longest)]
    octave = torch.ceil(torch.log2(lengths.double())).long()
    groups = []
    for value in torch.unique(octave).tolist():
        rows = torch.nonzero(octave == value).squeeze(1)
        groups.append((rows, int(lengths[rows].max())))
    return groups


def _torch_run_padded(entries, x, lengths):
    """A masked run on a CPU, without a packed sequence.

    PyTorch's CPU kernel (oneDNN) takes no packed sequence: a packed one
    runs a per-step loop whose backward allocates a full-size gradient for
    every step's slice (1.0-2.4x slower than a padded call,
    `benchmarks/packed.py`). Right padding lets the kernel run over padded
    rows instead: a forward direction's real steps never read the padding
    after them, and a backward direction reads each row reversed within its
    length (`_reverse_within`), so its padding comes after its real steps
    too. So that short rows do not pay for the longest one (a batch of
    words' characters: 4 real of 19 steps on average in the tagger), rows
    run in `length_groups`, each cut to its own longest row. The padded
    steps' values are then replaced by Keras's.
    """
    import torch

    first = directions(entries[0])[0]
    cell, units = cells.of_layer(first), first.cell.units
    top = directions(entries[-1])[0]
    bidirectional = len(directions(entries[0])) == 2
    if bidirectional:
        params = [
            [_torch_params([rnn], x.dtype, d) for d in (0, 1)]
            for rnn in entries
        ]
    else:
        params = _torch_params(entries, x.dtype)
    groups = length_groups(lengths)
    outputs, order = [], []
    for rows, steps in groups:
        if rows is None:
            part, part_lengths = x[:, :steps], lengths
        else:
            part, part_lengths = x[rows, :steps], lengths[rows]
        if bidirectional:
            y = _bidirectional_rows(
                cell, units, params, part, part_lengths, top.return_sequences
            )
        else:
            y, _ = _torch_call(cell, units, params, part, len(entries), False)
            if not top.return_sequences:
                y = _last_step(y, part_lengths)
        if top.return_sequences:
            pad = x.shape[1] - steps
            y = torch.nn.functional.pad(y, (0, 0, 0, pad))
        outputs.append(y)
        order.append(rows)
    y = outputs[0]
    if order[0] is not None:
        y = torch.cat(outputs)[torch.argsort(torch.cat(order))]
    if not top.return_sequences:
        return y
    return _keras_padding(y, lengths, top)


def _bidirectional_rows(cell, units, params, x, lengths, sequences):
    """Bidirectional layers on right-padded rows, one direction at a time.

    Returns the top layer's outputs per step (`sequences`), else its two
    final states side by side, each at the row's last real step of its
    own reading order.
    """
    import torch

    for index, (forward_params, backward_params) in enumerate(params):
        forward, _ = _torch_call(cell, units, forward_params, x, 1, False)
        backward, _ = _torch_call(
            cell, units, backward_params, _reverse_within(x, lengths), 1, False
        )
        if index == len(params) - 1 and not sequences:
            return torch.cat(
                [_last_step(forward, lengths), _last_step(backward, lengths)],
                -1,
            )
        x = torch.cat([forward, _reverse_within(backward, lengths)], -1)
    return x


def _last_step(y, lengths):
    """Each row's output at its last real step: `(batch, features)`."""
    import torch

    return y[torch.arange(y.shape[0], device=y.device), lengths - 1]


def _keras_padding(y, lengths, layer):
    """Keras's outputs on padded steps: zeros where the layer sets
    zero_output_for_mask (a Bidirectional sets it on its layers), else the
    last real output carried over."""
    import torch

    real = torch.arange(y.shape[1], device=y.device)[None, :] < lengths[:, None]
    if layer.zero_output_for_mask:
        return torch.where(real[..., None], y, torch.zeros_like(y))
    last = _last_step(y, lengths)
    return torch.where(real[..., None], y, last[:, None, :])


def keras_to_cudnn_flat(entries, dtype="float32"):
    """Packs a run of Keras LSTM layers into cuDNN's flat weight vector.

    The layout of `jax.experimental.rnn`: for every layer and direction
    (forward, then backward) `W_ih` (4H, in) then `W_hh` (4H, H),
    row-major; then, in the same order, `b_ih`, `b_hh`. Keras's gate order
    i, f, c, o is cuDNN's i, f, g, o.
    """
    matrices, biases = [], []
    for rnn in entries:
        for layer in directions(rnn):
            w_ih, w_hh, b_ih, b_hh = _converted(layer, dtype)
            matrices += [ops.reshape(w_ih, (-1,)), ops.reshape(w_hh, (-1,))]
            biases += [b_ih, b_hh]
    return ops.concatenate(matrices + biases, axis=0)


def _jax_run(entries, x):
    import jax.numpy as jnp
    from jax.experimental import rnn

    top = directions(entries[-1])
    count = len(top)
    units = top[0].cell.units
    batch = x.shape[0]
    zeros = jnp.zeros((len(entries) * count, batch, units), x.dtype)
    y, h, _ = rnn.lstm(
        x,
        zeros,
        zeros,
        keras_to_cudnn_flat(entries, x.dtype),
        jnp.full((batch,), x.shape[1], dtype=jnp.int32),
        input_size=x.shape[-1],
        hidden_size=units,
        num_layers=len(entries),
        dropout=0.0,
        bidirectional=count == 2,
    )
    if top[0].return_sequences:
        return y
    if count == 2:
        return jnp.concatenate([h[-2], h[-1]], axis=-1)
    return h[-1]


# The eager versions `_outside_compile` hands out under `torch.compile`.
_EAGER = {}
if keras.backend.backend() == "torch":
    import torch  # the PyTorch backend's own API

    _EAGER = {
        function: torch.compiler.disable(function)
        for function in (right_padded_lengths, _torch_run)
    }
