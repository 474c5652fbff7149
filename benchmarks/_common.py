"""What the benchmark scripts share: the command line as the README
quotes it, the accelerator Keras runs on, the default result path and
the flags that choose it (`add_result_arguments`), the machine's
matrix-multiply peak (`matmul_peak`, read at a run's start and end:
`peak_at_start`, `peak_at_end`), the versions measured with, PyTorch
when installed, result files (`save_json`, `write_result`) and plots.

The timing and machine helpers (`timed_block`, `round_robin`,
`machine_info`, `versions`, `peak_rss_mb`) are `diagnostics.timing`'s,
shared with `python -m diagnostics cost`; the contenders and the FLOP
count (`KerasContender`, `TorchContender`, `flops_per_token`, `SHAPES`)
are `benchmarks/peers.py`'s, which imports this module (never the other
way round).

A script run as `python benchmarks/NAME.py` has `benchmarks/` on its path,
not the repository root; each script puts the root first before importing
`benchmarks.*` (see the top of `benchmarks/regularisation.py`).
"""

import json
import pathlib
import statistics
import sys
import time

import keras
import numpy as np

from diagnostics import timing
from harness import plots

try:
    import torch
except ImportError:  # optional benchmark dependency
    torch = None

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


def default_output(stem, quick=False, device=None):
    """`benchmarks/results/<stem>_<cpu|gpu>_<backend>.json` (`device`, or
    the accelerator Keras runs on); a `--quick` smoke test gets a
    `_quick` suffix so it never overwrites a real run."""
    backend = keras.backend.backend()
    suffix = "_quick" if quick else ""
    device = device or accelerator()
    return str(RESULTS / f"{stem}_{device}_{backend}{suffix}.json")


def add_result_arguments(parser, stem, quick, quick_file=True):
    """Adds `--output` (the JSON result file; the plot goes next to it)
    and `--quick` (a smoke test; `quick` says what it shrinks) to a timing
    script's `parser`. `quick_file`: a quick run has a file of its own
    (`default_output`)."""
    suffix = ", _quick.json with --quick" if quick_file else ""
    parser.add_argument(
        "--output",
        default=None,
        help=f"JSON path (default benchmarks/results/{stem}_<cpu|gpu>_"
        f"<backend>.json{suffix}); the plot goes next to it as .png",
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"smoke test: {quick}"
    )


def pyplot():
    """matplotlib's pyplot (`harness.plots.pyplot`), or None when it is
    not installed (a GPU machine's image may lack it)."""
    try:
        return plots.pyplot()
    except ImportError:
        print("matplotlib is not installed: no plot written")
        return None


def versions():
    """`diagnostics.timing.versions()` and the PyTorch contender's."""
    return {
        **timing.versions(),
        "torch (contender)": torch.__version__ if torch else None,
    }


def matmul_peak(n=2048, calls=10):
    """Median fp32 FLOP/s of n x n matmuls (PyTorch if present, else NumPy)."""
    if torch is not None:
        a, b = torch.randn(n, n), torch.randn(n, n)

        def run():
            torch.mm(a, b)

        source = f"torch.mm {n}x{n} fp32 ({torch.get_num_threads()} threads)"
    else:
        rng = np.random.default_rng(0)
        a = rng.normal(size=(n, n)).astype("float32")
        b = rng.normal(size=(n, n)).astype("float32")

        def run():
            a @ b

        source = f"numpy matmul {n}x{n} fp32"
    run()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return 2 * n**3 / statistics.median(times), source


# What a run on a GPU prints under the peak it measured at the start.
CPU_PEAK_NOTE = (
    "note: the matmul peak above is the CPU's; on a GPU read the GFLOP/s "
    "column, not the % of CPU peak"
)


def peak_at_start(on_gpu=False, note=CPU_PEAK_NOTE):
    """Measures the matmul peak at the start of a run and prints it, then
    `note` when the run is on a GPU (the peak is the CPU's).

    Returns `(peak, source)`, as `matmul_peak` does: pass them to
    `peak_at_end` when the run is done.
    """
    peak, source = matmul_peak()
    print(f"matmul peak (start): {peak / 1e9:.1f} GFLOP/s, {source}")
    if on_gpu:
        print(note)
    return peak, source


def peak_at_end(peak_start, source):
    """Measures the matmul peak again at the end of a run and prints it.

    Returns `(used, record)`: the median of the start and end readings, and
    the `matmul_peak_flops` entry of a result file.
    """
    peak_end, _ = matmul_peak()
    peak = statistics.median([peak_start, peak_end])
    print(
        f"matmul peak (end): {peak_end / 1e9:.1f} GFLOP/s; "
        f"using the median {peak / 1e9:.1f}"
    )
    record = {"start": peak_start, "end": peak_end, "used": peak}
    return peak, {**record, "source": source}


def save_json(path, output):
    """Writes `output` to `path` as JSON (its folder made if need be);
    returns `output`."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(output, indent=2) + "\n")
    return output


def write_result(path, output, png=None):
    """Writes a result file (JSON) and says where it and its plot went."""
    save_json(path, output)
    print(f"\nwrote {path}" + (f" and {png}" if png else ""))
    return output


def print_header(argv, stem, quick):
    """Prints the command, machine and versions at the start of a run.

    Returns `(command, versions, default output path)`; PyTorch, when
    installed, only measures the matmul peak in these scripts.
    """
    command = command_line(argv)
    info = timing.versions()
    info["torch (matmul peak)"] = torch.__version__ if torch else None
    print("command:", command)
    print("machine:", json.dumps(timing.machine_info()))
    print("versions:", json.dumps(info))
    return command, info, default_output(stem, quick)


def save_figure(fig, title, path):
    """Titles, lays out, saves (110 dpi) and closes a figure; its path."""
    plt = plots.pyplot()
    plots.fit_title(fig, title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)
