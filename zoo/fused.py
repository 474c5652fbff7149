"""The multi-layer path's public names, kept where they were.

The code lives in `zoo.kernels` (planning in `zoo.kernels.planning`, the
weight layouts in `zoo.kernels.weights`, each framework's kernels in its
own module); this module keeps the names that code, tests and benchmarks
reach as `zoo.fused.NAME`: the switch (`disabled()`, `enabled()`,
`ZOO_FUSED=0`), the planning functions, the weight conversions and
`call_run`, the active backend's fused call. `length_groups` is the
PyTorch backend's and is looked up on first use, so importing this module
imports no framework.

These are re-exports: replacing one here changes nothing a stack calls.
To count or stub the kernel calls, set `call_run` on the active kernels
(`zoo.kernels.dispatch.active()`); to skip the shape checks, replace
`zoo.kernels.planning.check_inputs`.

Example:
```python
with zoo.fused.disabled():
    per_layer = model(x)   # every layer of every stack on its own
```
"""

from zoo.kernels import dispatch
from zoo.kernels.dispatch import plan
from zoo.kernels.planning import candidate_runs
from zoo.kernels.planning import check_inputs
from zoo.kernels.planning import disabled
from zoo.kernels.planning import enabled
from zoo.kernels.planning import right_padded_lengths
from zoo.kernels.planning import static_reasons
from zoo.kernels.weights import keras_to_cudnn_flat
from zoo.kernels.weights import keras_to_torch_gru
from zoo.kernels.weights import keras_to_torch_lstm

__all__ = [
    "backend_supports",
    "call_run",
    "candidate_runs",
    "check_inputs",
    "disabled",
    "enabled",
    "keras_to_cudnn_flat",
    "keras_to_torch_gru",
    "keras_to_torch_lstm",
    "plan",
    "right_padded_lengths",
    "static_reasons",
]


def call_run(
    entries, x, lengths=None, training=None, initial_state=None,
    return_state=False,
):  # fmt: skip
    """Runs a fused run of stack entries on `x` with the active backend's
    kernels (`zoo.kernels.base.Kernels.call_run`, whose arguments these
    are); raises `NotImplementedError` where the backend has none."""
    return dispatch.active().call_run(
        entries,
        x,
        lengths,
        training,
        initial_state=initial_state,
        return_state=return_state,
    )


def backend_supports(cell, length, bidirectional, backend=None):
    """Whether `backend` (default: the active one), on this machine, has
    a kernel for a run of `length` layers of `cell` (a `zoo.cells`
    name)."""
    kernels = dispatch.for_backend(backend) if backend else dispatch.active()
    return kernels.supports(cell, length, bidirectional)


def __getattr__(name):
    """`length_groups`: the PyTorch backend's, loaded on first use."""
    if name == "length_groups":
        return dispatch.for_backend("torch").length_groups
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
