"""Fused multi-layer calls for runs of plain LSTM / GRU layers.

`zoo.layers.StackedRNN` looks for runs of consecutive layers that a
multi-layer kernel can compute in one call (PyTorch's `nn.LSTM(num_layers=
L)`, `jax.experimental.rnn.lstm(num_layers=L)`): plain LSTM or GRU layers
(weight-drop variants included) of one width, nothing between them, every
one eligible for the fused kernel (see `zoo.fast_path`). The weights stay
in the layers' own `kernel` / `recurrent_kernel` / `bias` variables; this
module only repacks them into the kernel's layout for each call, so the
`.keras` files are the same with or without it, and the outputs are the
same up to float rounding (tests check this against the per-layer path
and against `zoo.reference`).

Where the kernel is used:

- PyTorch backend, CPU and GPU: `torch.nn.LSTM` / `torch.nn.GRU` with
  `num_layers` equal to the run's length (cuDNN on GPU, PyTorch's own
  kernel on CPU), in float32, or float16 / bfloat16 on a GPU. A run of
  one layer is fused too: on this backend Keras itself has no CPU kernel
  and runs a Python-level time loop.
- JAX backend, GPU only: `jax.experimental.rnn.lstm(num_layers=L)` (cuDNN)
  for runs of two or more float32 LSTM layers. JAX has no cuDNN GRU, and
  a one-layer run is what Keras already does on its own.
- TensorFlow: never (Keras's own per-layer cuDNN call on a GPU; on a CPU no
  TensorFlow kernel beat Keras's loop, see benchmarks/README.md).

Everything else falls back to calling the layers one by one, automatically:
a mask, an initial state, `return_state`, `output="all"` (every layer's
output is needed; runs of one only), bidirectional or wrapped (residual,
highway) layers, something between layers (layer norm, dropout), input
`dropout` while training, `go_backwards`, `stateful`. `zoo.fast_path_report`
says which layers form a run. Set the environment variable `ZOO_FUSED=0`,
or use `with zoo.fused.disabled():`, to turn the multi-layer path off.
"""

import contextlib
import os
import threading
import warnings

import keras
from keras import ops

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


def _cell_name(layer):
    if isinstance(layer, keras.layers.LSTM):
        return "lstm"
    if isinstance(layer, keras.layers.GRU):
        return "gru"
    return None


def static_reasons(layer):
    """Why `layer` can never join a fused run (empty if it can)."""
    from zoo.fast_path import kernel_reasons

    reasons = list(kernel_reasons(layer))
    if _cell_name(layer) is None:
        return reasons or [f"{type(layer).__name__} is not an LSTM or GRU"]
    for flag in ("stateful", "go_backwards", "return_state"):
        if getattr(layer, flag, False):
            reasons.append(f"{flag}=True")
    return reasons


def _jax_on_gpu():
    import jax

    return jax.default_backend() == "gpu"


def backend_supports(cell, length, backend=None):
    """Whether this backend (on this machine) has a kernel for the run."""
    backend = backend or keras.backend.backend()
    if backend == "torch":
        return True
    if backend == "jax":
        return cell == "lstm" and length >= 2 and _jax_on_gpu()
    return False


def candidate_runs(stack):
    """Maximal runs of layers that could be fused, ignoring the backend.

    Returns a list of `(start, stop)` index pairs (stop exclusive) over
    `stack.recurrent_layers`. A run holds layers of one cell and width,
    each a bare layer (not bidirectional or wrapped) with no layer between
    it and the next one in the run.
    """
    runs, start = [], None
    layers = stack.recurrent_layers
    for index, layer in enumerate(layers):
        ok = stack.blocks[index] is layer and not static_reasons(layer)
        if ok and start is not None:
            first = layers[start]
            previous = layers[index - 1]
            joins = (
                _cell_name(layer) == _cell_name(first)
                and layer.cell.units == first.cell.units
                and not stack.between_layers[index - 1]
                and previous.return_sequences
                and stack.output_mode != "all"
            )
            if not joins:
                runs.append((start, index))
                start = None
        if ok and start is None:
            start = index
        if not ok and start is not None:
            runs.append((start, index))
            start = None
    if start is not None:
        runs.append((start, len(layers)))
    return runs


def plan(stack, mask, initial_states, training, dtype):
    """The runs to fuse for this call (dict start -> stop)."""
    if not enabled() or mask is not None or initial_states is not None:
        return {}
    if stack.return_state:
        return {}
    backend = keras.backend.backend()
    selected = {}
    for start, stop in candidate_runs(stack):
        layers = stack.recurrent_layers[start:stop]
        if training and any(layer.cell.dropout > 0 for layer in layers):
            continue
        cell = _cell_name(layers[0])
        if not backend_supports(cell, stop - start, backend):
            continue
        if not _dtype_ok(backend, dtype):
            continue
        selected[start] = stop
    return selected


def _dtype_ok(backend, dtype):
    dtype = keras.backend.standardize_dtype(dtype)
    if dtype == "float32":
        return True
    if backend == "torch" and dtype in ("float16", "bfloat16"):
        import torch

        return torch.cuda.is_available() or dtype == "bfloat16"
    return False


def call_run(layers, x):
    """Runs `layers` (a fused run) on `x`; returns the top layer's output."""
    backend = keras.backend.backend()
    if backend == "torch":
        y = _torch_run(layers, x)
    elif backend == "jax":
        y = _jax_run(layers, x)
    else:  # pragma: no cover - plan() never selects a run here
        raise NotImplementedError(f"no fused kernel on {backend}")
    if not layers[-1].return_sequences:
        y = y[:, -1]
    return y


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


def _torch_module(cell, input_size, units, num_layers):
    """A parameterless (meta-device) nn.LSTM / nn.GRU to call functionally."""
    import torch

    key = (cell, input_size, units, num_layers)
    if key not in _TORCH_MODULES:
        kind = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU
        _TORCH_MODULES[key] = kind(
            input_size,
            units,
            num_layers=num_layers,
            batch_first=True,
            device="meta",
        )
    return _TORCH_MODULES[key]


def _torch_run(layers, x):
    import torch

    cell = _cell_name(layers[0])
    convert = keras_to_torch_lstm if cell == "lstm" else keras_to_torch_gru
    params = {}
    for j, layer in enumerate(layers):
        c = layer.cell
        weights = [
            _tensor(w, x.dtype) for w in (c.kernel, c.recurrent_kernel, c.bias)
        ]
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        for name, value in zip(names, convert(*weights)):
            params[f"{name}_l{j}"] = value
    module = _torch_module(cell, x.shape[-1], layers[0].cell.units, len(layers))
    with warnings.catch_warnings():
        # cuDNN copies weights that are not one contiguous block; that copy
        # is the cost of keeping Keras's per-layer variables.
        warnings.simplefilter("ignore", UserWarning)
        y, _ = torch.func.functional_call(module, params, (x,))
    return y


def keras_to_cudnn_flat(layers, dtype="float32"):
    """Packs a run of Keras LSTM layers into cuDNN's flat weight vector.

    The layout of `jax.experimental.rnn`: every layer's `W_ih` (4H, in)
    then `W_hh` (4H, H), row-major, then every layer's `b_ih`, `b_hh`.
    Keras's gate order i, f, c, o is cuDNN's i, f, g, o.
    """
    matrices, biases = [], []
    for layer in layers:
        c = layer.cell
        w_ih, w_hh, b_ih, b_hh = keras_to_torch_lstm(
            *(_tensor(w, dtype) for w in (c.kernel, c.recurrent_kernel, c.bias))
        )
        matrices += [ops.reshape(w_ih, (-1,)), ops.reshape(w_hh, (-1,))]
        biases += [b_ih, b_hh]
    return ops.concatenate(matrices + biases, axis=0)


def _jax_run(layers, x):
    import jax.numpy as jnp
    from jax.experimental import rnn

    units = layers[0].cell.units
    batch = x.shape[0]
    zeros = jnp.zeros((len(layers), batch, units), x.dtype)
    y, _, _ = rnn.lstm(
        x,
        zeros,
        zeros,
        keras_to_cudnn_flat(layers, x.dtype),
        jnp.full((batch,), x.shape[1], dtype=jnp.int32),
        input_size=x.shape[-1],
        hidden_size=units,
        num_layers=len(layers),
        dropout=0.0,
        bidirectional=False,
    )
    return y
