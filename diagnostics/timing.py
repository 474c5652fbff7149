"""How the diagnostics and the benchmarks time things: one copy.

`python -m diagnostics cost` and the scripts in `benchmarks/` (`peers.py`,
`depth.py`, `regularisation.py`, `cpu_options.py`, `gpu.py`) measure with
these helpers:

- `timed_block`: one sample, the mean seconds per call over a block of
  back-to-back calls;
- `round_robin`: many functions timed in turns, one block each per round,
  in order on even rounds and reversed on odd ones, so the drift of a
  shared, noisy machine spreads over all of them alike;
- `peak_rss_mb`: this process's peak resident memory;
- `machine_info`, `versions`: what the numbers were measured on;
- `quiet_tensorflow`: no retracing warnings while many models are built.

Every function runs on any Keras backend; only `versions` imports Keras.
"""

import contextlib
import logging
import os
import pathlib
import platform
import resource
import statistics
import sys
import time

import numpy as np


def timed_block(function, calls):
    """Mean seconds per call of `calls` back-to-back calls of `function()`."""
    start = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - start) / calls


def round_robin(blocks, repeats, label="round"):
    """Times every entry of `blocks` in turns; its samples.

    `blocks` maps a key to a list of `(function, calls)`. Each of `repeats`
    rounds visits every key once, in order on even rounds and reversed on
    odd ones, and times each of its blocks once (`timed_block`). Returns
    `{key: [samples of each block]}`: per block, one sample (seconds per
    call) per round. Prints one line per round.
    """
    samples = {key: [[] for _ in entries] for key, entries in blocks.items()}
    keys = list(blocks)
    start = time.perf_counter()
    for repeat in range(repeats):
        for key in keys if repeat % 2 == 0 else reversed(keys):
            for (function, calls), times in zip(blocks[key], samples[key]):
                times.append(timed_block(function, calls))
        took = time.perf_counter() - start
        print(f"{label} {repeat + 1}/{repeats} done ({took:.1f} s)", flush=True)
    return samples


def medians(samples):
    """`round_robin`'s samples as medians: `{key: [median of each block]}`."""
    return {
        key: [statistics.median(times) for times in per_block]
        for key, per_block in samples.items()
    }


def peak_rss_mb():
    """This process's peak resident memory so far, in MB (VmHWM on Linux,
    else `ru_maxrss`)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024**2 if sys.platform == "darwin" else 1024)


def machine_info():
    """Platform, processor, CPU count and model, Python version."""
    info = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return info


def versions():
    """Keras, its backend and the backend's version, NumPy."""
    # Imported here: importing Keras fixes its backend, which a script
    # chooses (KERAS_BACKEND) after importing this module.
    import keras

    backend = keras.backend.backend()
    out = {"keras": keras.__version__, "backend": backend}
    if backend in ("tensorflow", "jax", "torch"):
        out[backend] = __import__(backend).__version__
    out["numpy"] = np.__version__
    return out


@contextlib.contextmanager
def quiet_tensorflow():
    """TensorFlow's logger at ERROR inside the block (it warns about
    retracing when it traces many models' train steps), as it was after."""
    logger = logging.getLogger("tensorflow")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)
