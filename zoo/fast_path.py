"""Which recurrent layers can use a fused (cuDNN) kernel, and why not.

The rules follow Keras 3.15's own dispatch (`keras.layers.LSTM` / `GRU`
`inner_loop` and each backend's `rnn.py`):

- A fused cuDNN kernel exists only on a GPU. On CPU, LSTM and SimpleRNN
  run the generic time loop around the cell on every backend (so does GRU
  on TensorFlow and PyTorch; see JAX below).
- TensorFlow: cuDNN LSTM and GRU; masks must be right-padded.
- JAX: cuDNN LSTM (`jax.experimental.rnn`), not with a mask. GRU has no
  cuDNN kernel in JAX; without a mask Keras runs a `lax.scan` with the
  input projection hoisted out of the loop, on any device.
- PyTorch: cuDNN LSTM and GRU, not with a mask. Inside a
  `zoo.layers.StackedRNN`, runs of plain LSTM / GRU layers also run as one
  `nn.LSTM` / `nn.GRU(num_layers=L)` call on CPU and GPU (`zoo.kernels`),
  and on JAX GPUs runs of LSTM layers as one
  `jax.experimental.rnn.lstm(num_layers=L)` call; each entry's `"run"`
  names the stack layers that share a call.
- All backends need `activation="tanh"`, `recurrent_activation="sigmoid"`,
  `use_bias=True`, `unroll=False`, `use_cudnn` not False and
  `recurrent_dropout == 0`; GRU also needs `reset_after=True`.
- SimpleRNN never has a fused kernel.

`recurrent_dropout > 0` is the only regulariser in this library that
leaves the fused path: Keras then switches the cell to a per-gate
implementation. Use `inter_layer_dropout` (time-locked, between layers) or
`weight_drop` (DropConnect on the recurrent kernel) instead; both keep it.
"""

import keras

from zoo import cells
from zoo.walk import iter_layers

BACKENDS = ("tensorflow", "jax", "torch")


def kernel_reasons(layer):
    """Reasons that rule out a fused kernel on every backend."""
    record = cells.of_layer(layer)
    if record is None:
        return [f"{type(layer).__name__} is not a Keras LSTM or GRU"]
    if not record.cudnn_backends:
        name = record.keras_class.__name__
        return [f"{name} has no fused kernel on any backend"]
    cell = layer.cell
    reasons = []
    if cell.recurrent_dropout > 0:
        reasons.append(
            f"recurrent_dropout={cell.recurrent_dropout} > 0: use "
            f"weight_drop={cell.recurrent_dropout} instead (DropConnect on "
            "the recurrent kernel, the same hidden-to-hidden path, fused), "
            "or inter_layer_dropout"
        )
    if cell.activation is not keras.activations.tanh:
        reasons.append(f"activation={cell.activation.__name__}, not tanh")
    if cell.recurrent_activation is not keras.activations.sigmoid:
        reasons.append(
            "recurrent_activation="
            f"{cell.recurrent_activation.__name__}, not sigmoid"
        )
    if not cell.use_bias:
        reasons.append("use_bias=False")
    if layer.unroll:
        reasons.append("unroll=True")
    if layer.use_cudnn is False:
        reasons.append("use_cudnn=False")
    if record is cells.GRU and not cell.reset_after:
        reasons.append("GRU reset_after=False")
    return reasons


def _backend_entry(layer, backend, reasons, run=None):
    """What runs `layer` on `backend`: `fused` (a fused kernel on some
    device), `reason` (why not, or the conditions that still apply), and
    `cpu` / `gpu`, a few words each for what runs on that device."""
    cell = cells.of_layer(layer)
    if reasons:
        return {
            "fused": False,
            "reason": "; ".join(reasons),
            "cpu": "loop",
            "gpu": "loop",
        }
    dtype = keras.backend.standardize_dtype(layer.compute_dtype)
    if backend == "torch" and run is not None:
        count = run[1] - run[0]
        call = f"zoo nn.{cell.torch_module}"
        on_cpu = cells.fused_dtype("torch", dtype, "cpu")
        reason = (
            f"{'CPU and GPU' if on_cpu else 'GPU'}: one nn.{cell.torch_module}"
            f"(num_layers={count}) call for stack layers {run[0]}-"
            f"{run[1] - 1} (zoo.fused); masks only if right-padded; input "
            "dropout in training cuts the run before its layer"
        )
        if not on_cpu:
            reason += (
                f"; {dtype} on CPU: PyTorch's fused CPU RNN runs float32 and "
                "bfloat16 only, so the CPU runs Keras's loop (use "
                "mixed_bfloat16 there)"
            )
        return {
            "fused": True,
            "reason": reason,
            "cpu": call if on_cpu else "loop",
            "gpu": call,
        }
    if backend == "jax" and backend not in cell.cudnn_backends:
        return {
            "fused": False,
            "reason": f"JAX has no cuDNN {cell.keras_class.__name__} (Keras "
            "uses a lax.scan with "
            "the input projection hoisted, if there is no mask)",
            "cpu": "scan",
            "gpu": "scan",
        }
    if backend == "tensorflow":
        condition = "cuDNN on GPU only; a mask must be right-padded"
    else:
        condition = (
            "cuDNN on GPU only; not with a mask (masked batches fall back)"
        )
    gpu = "cuDNN"
    # States are fused on PyTorch only (`zoo.kernels.dispatch.plan`).
    multi_layer = run is not None and run[1] - run[0] > 1 and not run[2]
    if (
        backend == "jax"
        and multi_layer
        and cells.fused_dtype("jax", dtype, "gpu")
    ):
        condition += (
            f"; stack layers {run[0]}-{run[1] - 1} run as one "
            f"jax.experimental.rnn.lstm(num_layers={run[1] - run[0]}) call"
            " (not when called with an initial state)"
        )
        gpu = f"cuDNN x{run[1] - run[0]}"
    return {"fused": True, "reason": condition, "cpu": "loop", "gpu": gpu}


def _runs_by_layer(model_or_layer):
    """Maps id(recurrent layer) -> its fused run in a stack: `(start, stop,
    has_states)`, `has_states` when the stack returns its states.

    A stack is any layer with `fused_runs()` and `stack_layers`
    (`zoo.layers.StackedRNN`).
    """
    runs = {}
    for layer in iter_layers(model_or_layer):
        if not hasattr(layer, "fused_runs"):
            continue
        has_states = bool(getattr(layer, "return_state", False))
        for start, stop in layer.fused_runs():
            for stacked in layer.stack_layers[start:stop]:
                for direction in stacked.directions:
                    runs[id(direction)] = (start, stop, has_states)
    return runs


DEVICES = ("cpu", "gpu")


class FastPathReport(list):
    """A list of per-layer dicts that prints as a table: one column per
    backend and device kind (`tensorflow/cpu`, ..., `torch/gpu`) saying
    what runs there, then each backend's reasons, in that order.

    In a cell, `loop` is Keras's generic time loop around the cell,
    `scan` JAX's `lax.scan` with the input projection hoisted, `cuDNN`
    the backend's fused kernel (`cuDNN xL`: L layers in one call) and
    `zoo nn.LSTM` the zoo's multi-layer PyTorch call (`zoo.kernels`)."""

    def __str__(self):
        columns = [f"{b}/{d}" for b in BACKENDS for d in DEVICES]
        rows = [("layer", "cell", "run", *columns)]
        notes = []
        for entry in self:
            backends = entry["backends"]
            rows.append(
                (
                    entry["layer"],
                    entry["cell"],
                    entry["run"] or "-",
                    *(backends[b][d] for b in BACKENDS for d in DEVICES),
                )
            )
            reasons = [(b, backends[b]["reason"]) for b in BACKENDS]
            if len({r for _, r in reasons}) == 1:
                notes.append(f"{entry['layer']}: {reasons[0][1]}")
            else:
                notes.append(f"{entry['layer']}:")
                notes += [f"  {b}: {r}" for b, r in reasons if r]
        widths = [max(len(str(row[i])) for row in rows) for i in range(9)]
        lines = [
            "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip()
            for row in rows
        ]
        return "\n".join([*lines, "", *notes])


def fast_path_report(model_or_layer):
    """Reports, per recurrent layer, fused-kernel eligibility per backend.

    Args:
        model_or_layer: a `keras.Model` or layer (including
            `zoo.layers.StackedRNN`, wrappers and `Bidirectional`).

    Returns:
        A `FastPathReport`: a list with one dict per recurrent layer, with
        keys `"layer"` (name), `"cell"` (`"lstm"`, `"gru"`,
        `"simple_rnn"` or the class name), `"run"` (for a layer of a
        `StackedRNN` that can join a multi-layer fused call, the stack
        layer indices of that call, e.g. `"0-2"`; else None) and
        `"backends"` (for each of
        `"tensorflow"`, `"jax"`, `"torch"`: `{"fused": bool, "reason":
        str, "cpu": str, "gpu": str}`: whether a fused kernel can run the
        layer on some device, why not or the conditions that still
        apply, and what runs it on a CPU and on a GPU: `"loop"`,
        `"scan"`, `"cuDNN"` or `"zoo nn.LSTM"` / `"zoo nn.GRU"`).
        `print()` it for a table, one column per backend and device.

    Example:
    ```python
    print(zoo.fast_path_report(zoo.stacked_lstm(2, 64, input_dim=8)))
    ```
    """
    report = FastPathReport()
    runs = _runs_by_layer(model_or_layer)
    for layer in iter_layers(model_or_layer):
        if not isinstance(layer, keras.layers.RNN):
            continue
        record = cells.of_layer(layer)
        cell = record.name if record is not None else type(layer).__name__
        reasons = kernel_reasons(layer)
        run = runs.get(id(layer))
        report.append(
            {
                "layer": layer.name,
                "cell": cell,
                "run": None if run is None else f"{run[0]}-{run[1] - 1}",
                "backends": {
                    b: _backend_entry(layer, b, reasons, run) for b in BACKENDS
                },
            }
        )
    return report
