"""Which backend's kernels a call uses: the one place that imports a
framework's module of `zoo.kernels`.

Keras's layers ask their backend module for a fused kernel
(`backend.lstm`, `backend.gru`) and each backend answers for itself; the
zoo does the same with one module per framework, `<backend>_backend.py`,
each importing its framework once at its top and holding its state
(caches, compiled versions) in one `Kernels` object, `KERNELS`. Only the
active backend's module is ever imported (`importlib`, keyed by
`keras.backend.backend()`), so a TensorFlow process never imports
PyTorch, nor PyTorch JAX. A backend without a module (NumPy, OpenVINO)
gets `zoo.kernels.base.Kernels`: no fused kernel, calls as they are.
"""

import importlib

import keras

from zoo import validation
from zoo.kernels import base
from zoo.kernels import planning

# The module of each backend that has something to hold.
MODULES = {
    "tensorflow": "zoo.kernels.tensorflow_backend",
    "jax": "zoo.kernels.jax_backend",
    "torch": "zoo.kernels.torch_backend",
}
# Each backend's `Kernels` once loaded, as `sys.modules` holds modules: a
# plain dict, which `torch.compile` reads without a warning or a graph
# break where it traces a stack's call (it warns at `functools.cache`).
_LOADED = {}


def for_backend(name):
    """The `Kernels` object of backend `name` (imports its module)."""
    kernels = _LOADED.get(name)
    if kernels is None:
        module = MODULES.get(name)
        if module is None:
            kernels = base.Kernels()
        else:
            kernels = importlib.import_module(module).KERNELS
        kernels = _LOADED.setdefault(name, kernels)
        validation.register_backend(name, kernels)
    return kernels


def active():
    """The `Kernels` object of the current Keras backend."""
    return for_backend(keras.backend.backend())


def plan(stack, mask, initial_states, training, dtype):
    """The runs to fuse for this call: (dict start -> stop, lengths).

    `lengths` is None without a mask; with a right-padded mask (on a
    backend whose kernels take one: PyTorch) it holds each row's length.
    Initial states and `return_state` are fused where the kernels take
    them (PyTorch). The stack still falls back, run by run, where a
    kernel declines the call (`StackedRNN._call_fused`).
    """
    if not planning.enabled():
        return {}, None
    kernels = active()
    has_states = initial_states is not None or stack.return_state
    if has_states and not kernels.takes_states:
        return {}, None
    if mask is not None and not kernels.takes_masks:
        return {}, None
    if not kernels.dtype_ok(dtype):
        return {}, None
    selected = {}
    for start, stop in planning.dropout_pieces(stack, training):
        first = stack.stack_layers[start]
        bidirectional = len(first.directions) == 2
        if kernels.supports(first.cell.name, stop - start, bidirectional):
            selected[start] = stop
    if not selected or mask is None:
        return selected, None
    # Read the mask's values only when a run could use them.
    lengths = kernels.padded_lengths(mask)
    if lengths is None:
        return {}, None
    return selected, lengths
