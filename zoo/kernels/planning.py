"""What could run where: which layers of a stack could form a fused run
(`candidate_runs`, cut for input dropout by `dropout_pieces`); which of
them this call's backend takes is `zoo.kernels.dispatch.plan`, from the
backend's answers (a kernel for this cell and depth? this dtype? a mask?
states?), its `zoo.kernels.base.Kernels` object.

Backend-neutral (Keras ops and static shapes only). A run is a
`(start, stop)` pair over `StackedRNN.stack_layers` (stop exclusive):
layers of one cell, width and directionality (bidirectional ones with
`merge_mode="concat"`) with nothing between one and the next.

The switch (`ZOO_FUSED=0`, `disabled()`) lives here too: it says whether
to plan at all. `disabled()` is per thread, as Keras keeps its own scopes
(`keras.StatelessScope`, `keras.name_scope`) per thread: a thread that
measures the per-layer path does not turn the kernel off for the others.
"""

import contextlib
import os
import threading

import keras
from keras import ops

from zoo import cells
from zoo.fast_path import kernel_reasons

_SWITCH = threading.local()  # `disabled` per thread (see the docstring)


@contextlib.contextmanager
def disabled():
    """Within this context, stacks call their layers one by one."""
    previous = getattr(_SWITCH, "disabled", False)
    _SWITCH.disabled = True
    try:
        yield
    finally:
        _SWITCH.disabled = previous


def enabled():
    """Whether the multi-layer path is on (`ZOO_FUSED`, `disabled()`)."""
    if getattr(_SWITCH, "disabled", False):
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


def dropout_pieces(stack, training):
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

    Eager only (the PyTorch backend's kernels): the check reads the mask's
    values.
    """
    mask = ops.cast(mask, "int32")
    lengths = ops.sum(mask, axis=1)
    steps = ops.arange(ops.shape(mask)[1], dtype="int32")
    expected = ops.cast(steps[None, :] < lengths[:, None], "int32")
    if bool(ops.all(ops.equal(mask, expected))) and bool(ops.all(lengths > 0)):
        return lengths
    return None
