"""What the benchmark scripts share beyond `benchmarks/peers.py`'s helpers.

The timing, FLOP and machine helpers (`matmul_peak`, `timed_block`,
`flops_per_token`, `machine_info`, `versions`, `KerasContender`, `SHAPES`)
live in `benchmarks/peers.py` and are imported from there; this module
holds the few things the newer scripts need on top: the command line as
the README quotes it, the accelerator Keras runs on, and the default
result path.

A script run as `python benchmarks/NAME.py` has `benchmarks/` on its path,
not the repository root; each script puts the root first before importing
`benchmarks.*` (see the top of `benchmarks/regularisation.py`).
"""

import pathlib
import sys

import keras

RESULTS = pathlib.Path("benchmarks/results")


def command_line(argv=None):
    """The command that ran this script, prefixed by `KERAS_BACKEND=...`
    when the backend is not the default TensorFlow (as peers.py prints)."""
    args = sys.argv[1:] if argv is None else list(argv)
    command = "python " + " ".join([sys.argv[0], *args])
    backend = keras.backend.backend()
    if backend != "tensorflow":
        command = f"KERAS_BACKEND={backend} " + command
    return command


def accelerator():
    """`"gpu"` when the Keras backend sees a GPU, else `"cpu"`."""
    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        return (
            "gpu" if any(d.platform == "gpu" for d in jax.devices()) else "cpu"
        )
    if backend == "torch":
        import torch

        return "gpu" if torch.cuda.is_available() else "cpu"
    if backend == "tensorflow":
        import tensorflow as tf

        return "gpu" if tf.config.list_physical_devices("GPU") else "cpu"
    return "cpu"


def default_output(stem, quick=False):
    """`benchmarks/results/<stem>_<cpu|gpu>_<backend>.json`; a `--quick`
    smoke test gets a `_quick` suffix so it never overwrites a real run."""
    backend = keras.backend.backend()
    suffix = "_quick" if quick else ""
    return str(RESULTS / f"{stem}_{accelerator()}_{backend}{suffix}.json")


def pyplot():
    """matplotlib's pyplot on the Agg backend, or None when not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot written")
        return None
    return plt
