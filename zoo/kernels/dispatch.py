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

from zoo.kernels import base

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
    return kernels


def active():
    """The `Kernels` object of the current Keras backend."""
    return for_backend(keras.backend.backend())
