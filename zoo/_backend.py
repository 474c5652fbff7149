"""Which Keras backend an `import keras` will load, and whether it is
installed, found before Keras is imported: without it, a missing
TensorFlow (Keras's default backend) fails deep inside Keras with
`No module named 'tensorflow'` and no word on what to do.

Keras reads `KERAS_BACKEND`, else the `backend` of `keras.json` in
`KERAS_HOME` (default `~/.keras`), else uses TensorFlow
(`keras/src/backend/config.py`, Keras 3.15); this follows the same order.
"""

import importlib.util
import json
import os
import pathlib
import sys

BACKENDS = ("tensorflow", "jax", "torch")


def _installed(module):
    try:
        return importlib.util.find_spec(module) is not None
    except (ValueError, ImportError):
        return False


def chosen():
    """`(backend, where it was chosen)`, as Keras will resolve it."""
    if os.environ.get("KERAS_BACKEND"):
        return os.environ["KERAS_BACKEND"], "KERAS_BACKEND"
    home = os.environ.get("KERAS_HOME") or str(pathlib.Path.home() / ".keras")
    path = pathlib.Path(home).expanduser() / "keras.json"
    try:
        backend = json.loads(path.read_text()).get("backend")
    except (OSError, ValueError, AttributeError):
        backend = None
    if backend:
        return backend, str(path)
    return "tensorflow", "Keras's default: KERAS_BACKEND is not set"


def check():
    """Raises `ImportError` (its `name` the backend's module) when the
    backend Keras is about to load is not installed, naming the extra to
    install and the backends that are. Nothing once Keras is imported."""
    if "keras" in sys.modules:
        return
    backend, where = chosen()
    if backend not in BACKENDS or _installed(backend):
        return
    others = [b for b in BACKENDS if b != backend and _installed(b)]
    instead = (
        f", or set KERAS_BACKEND to {' or '.join(others)} (installed here)"
        if others
        else ""
    )
    raise ImportError(
        f"Keras's backend is {backend} ({where}), which is not installed: "
        f"pip install 'stacked-rnn-zoo[{backend}]'{instead}",
        name=backend,
    )
