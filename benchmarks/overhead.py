"""Overhead of `zoo.layers.StackedRNN` against the same hand-written stack.

    python benchmarks/overhead.py [--cell lstm --layers 3 --units 256 ...]

Builds two models with identical shapes and weights count: the zoo's
`StackedRNN` and the same layers written out as plain Keras
(`keras.layers.LSTM(..., return_sequences=True)` x L), each with a Dense
head per step and MSE/Adam. Both are compiled once and warmed up; then the
script alternates between them (A, B, A, B, ...) in one process, timing
`train_on_batch` steps, and reports the median step time of each and the
ratio zoo / plain. Alternating in one process cancels most of the drift of
a shared, noisy machine. Results go to stdout and to a JSON file.
"""

import argparse
import json
import os
import pathlib
import platform
import statistics
import sys
import time

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402


def plain_model(args):
    inputs = keras.Input((args.steps, args.features))
    x = inputs
    for _ in range(args.layers):
        x = zoo.cells.get(args.cell).keras_class(
            args.units, return_sequences=True
        )(x)
    return keras.Model(inputs, keras.layers.Dense(args.features)(x))


def zoo_model(args):
    inputs = keras.Input((args.steps, args.features))
    x = zoo.layers.StackedRNN(
        args.cell, args.units, args.layers, return_sequences=True
    )(inputs)
    return keras.Model(inputs, keras.layers.Dense(args.features)(x))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cell", default="lstm", choices=sorted(zoo.cells.NAMES)
    )
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--units", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument(
        "--rounds", type=int, default=7, help="alternations of the two models"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="timed train steps per model per round",
    )
    parser.add_argument("--output", default="benchmarks/results/overhead.json")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.batch, args.steps, args.features))
    y = rng.normal(size=(args.batch, args.steps, args.features))
    x, y = x.astype("float32"), y.astype("float32")
    models = {"plain": plain_model(args), "zoo": zoo_model(args)}
    assert models["plain"].count_params() == models["zoo"].count_params()
    for model in models.values():
        model.compile(keras.optimizers.Adam(1e-3), "mse")
        for _ in range(2):  # trace and warm up
            model.train_on_batch(x, y)

    times = {name: [] for name in models}
    for round_index in range(args.rounds):
        order = list(models) if round_index % 2 == 0 else list(models)[::-1]
        for name in order:
            for _ in range(args.repeats):
                start = time.perf_counter()
                models[name].train_on_batch(x, y)
                times[name].append(time.perf_counter() - start)
        print(
            f"round {round_index + 1}/{args.rounds}: "
            + ", ".join(
                f"{n} {statistics.median(t[-args.repeats :]) * 1e3:.1f} ms"
                for n, t in times.items()
            ),
            flush=True,
        )

    medians = {name: statistics.median(t) for name, t in times.items()}
    ratio = medians["zoo"] / medians["plain"]
    tokens = args.batch * args.steps
    result = {
        "command": "python " + " ".join([sys.argv[0], *sys.argv[1:]]),
        "config": vars(args),
        "backend": keras.backend.backend(),
        "keras": keras.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "median_step_seconds": medians,
        "tokens_per_second": {n: tokens / s for n, s in medians.items()},
        "ratio_zoo_over_plain": ratio,
        "samples_per_model": len(times["zoo"]),
    }
    print(json.dumps(result, indent=2))
    print(
        f"\nzoo/plain median step-time ratio: {ratio:.3f} "
        f"({'within' if ratio <= 1.03 else 'OVER'} the 1.03 target)"
    )
    return _common.save_json(args.output, result)


if __name__ == "__main__":
    main()
