"""A stack's train step under each dtype policy, fused and not.

    KERAS_BACKEND=torch OMP_NUM_THREADS=1 python benchmarks/precision.py

What `zoo.fast_path_report` says about mixed precision, measured: a
3-layer LSTM `zoo.StackedRNN` (128 units, a batch of 32 x 50 steps x 64
features, a float32 `Dense` on top) trained with `train_on_batch` under
`float32`, `mixed_bfloat16` and `mixed_float16`, each with the zoo's
multi-layer call allowed and with it off (`zoo.fused.disabled()`), the
six in turns (`diagnostics.timing.round_robin`), medians printed with
what the report says runs. On a PyTorch CPU, float16 is not fused
(`zoo.cells.FUSED_DTYPES`), so its two columns should match.
"""

import argparse
import contextlib
import functools
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from diagnostics import timing  # noqa: E402

POLICIES = ("float32", "mixed_bfloat16", "mixed_float16")


def build(policy):
    """The stack under `policy` (the global policy is reset after)."""
    keras.mixed_precision.set_global_policy(policy)
    try:
        keras.utils.set_random_seed(0)
        inputs = keras.Input((None, 64))
        x = zoo.StackedRNN("lstm", 128, num_layers=3)(inputs)
        outputs = keras.layers.Dense(10, dtype="float32")(x)
        model = keras.Model(inputs, outputs)
        model.compile("adam", "sparse_categorical_crossentropy")
    finally:
        keras.mixed_precision.set_global_policy("float32")
    return model


def step(model, x, y, fused):
    with contextlib.nullcontext() if fused else zoo.fused.disabled():
        model.train_on_batch(x, y)


def runs(model):
    """What `fast_path_report` says about the stack on this backend."""
    backend, device = keras.backend.backend(), _common.accelerator()
    report = zoo.fast_path_report(model)
    return sorted({row["backends"][backend][device] for row in report})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    _common.print_header(sys.argv[1:], "precision", False)
    rng = np.random.default_rng(0)
    x = rng.random((32, 50, 64), dtype="float32")
    y = rng.integers(0, 10, (32,))
    blocks, said = {}, {}
    for policy in POLICIES:
        model = build(policy)
        said[policy] = runs(model)
        for fused in (True, False):
            call = functools.partial(step, model, x, y, fused)
            call()  # build and warm up
            blocks[(policy, fused)] = [(call, 1)]
    medians = timing.medians(timing.round_robin(blocks, args.repeats))
    print(f"\n{_common.command_line()}\n")
    print("| policy | s/step, fused allowed | s/step, ZOO_FUSED off | ratio |")
    print("|---|---|---|---|")
    for policy in POLICIES:
        fused, loop = medians[(policy, True)][0], medians[(policy, False)][0]
        print(f"| {policy} | {fused:.4f} | {loop:.4f} | {loop / fused:.2f} |")
    for policy in POLICIES:
        print(f"{policy}: fast_path_report says {said[policy]}")


if __name__ == "__main__":
    main()
