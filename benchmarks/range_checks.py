"""What the library's range checks cost a compiled train step.

    python benchmarks/range_checks.py [--quick] [--cell lstm --units 128 ...]

Issue 30 made ids, tags and shapes checked where they enter the library:
`zoo.layers.TokenEmbedding` checks token ids (`zoo.validation.check_ids`)
and `zoo.layers.StackedRNN` the time axis and the mask's shape
(`zoo.kernels.planning.check_inputs`). The id check reads values where
the ids are concrete: on PyTorch (eager unless `jit_compile=True`) at
every step. On TensorFlow a train step is traced and compiled, and the
check is skipped while tracing (TensorFlow's gather checks on CPU); on
JAX the compiled step compares the ids with the range itself and calls
back to the host only when one is out of it (JAX would gather it as
NaN).

This script builds two identical token-input models (`zoo.stacked_rnn`
backbone, a softmax per step, sparse cross-entropy, Adam): one runs as the
library ships it, the other with both checks replaced by no-ops around
each of its calls (its first, tracing call included). Both are compiled
and warmed up, then timed in turns in one process
(`diagnostics.timing.round_robin`, `train_on_batch` steps); it prints the
median step time of each, the ratio checked / unchecked and the command.
Results go to stdout and to `benchmarks/results/range_checks_<device>_
<backend>[_quick].json`.
"""

import argparse
import contextlib
import os
import pathlib
import statistics
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402
import numpy as np  # noqa: E402

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from diagnostics import timing  # noqa: E402


@contextlib.contextmanager
def unchecked():
    """The library with its id and shape checks replaced by no-ops."""
    planning = zoo.kernels.planning
    saved = zoo.validation.check_ids, planning.check_inputs
    zoo.validation.check_ids = lambda name, ids, *args, **kwargs: ids
    planning.check_inputs = lambda *args, **kwargs: None
    try:
        yield
    finally:
        zoo.validation.check_ids, planning.check_inputs = saved


def build(args):
    backbone = zoo.stacked_rnn(
        args.cell,
        args.layers,
        args.units,
        vocabulary_size=args.vocabulary,
        embedding_dim=args.embedding_dim,
    )
    outputs = keras.layers.Dense(args.tags, activation="softmax")(
        backbone.output
    )
    model = keras.Model(backbone.input, outputs)
    model.compile(
        keras.optimizers.Adam(1e-3), "sparse_categorical_crossentropy"
    )
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cell", default="lstm", choices=sorted(zoo.cells.NAMES)
    )
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--vocabulary", type=int, default=10_000)
    parser.add_argument("--embedding-dim", type=int, default=64)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument(
        "--rounds", type=int, default=9, help="turns of the two models"
    )
    parser.add_argument(
        "--calls", type=int, default=10, help="train steps timed per turn"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke test: small shapes, 9 rounds of 5 calls",
    )
    parser.add_argument("--output", default=None)
    args = parser.parse_args(argv)
    if args.quick:
        args.units, args.batch, args.steps = 32, 16, 20
        args.rounds, args.calls = 9, 5
    command, versions, default = _common.print_header(
        argv, "range_checks", args.quick
    )

    rng = np.random.default_rng(0)
    x = rng.integers(1, args.vocabulary, size=(args.batch, args.steps))
    y = rng.integers(0, args.tags, size=(args.batch, args.steps))
    x, y = x.astype("int32"), y.astype("int32")
    keras.utils.set_random_seed(0)
    checked = build(args)
    keras.utils.set_random_seed(0)
    with unchecked():
        plain = build(args)

    def checked_step():
        checked.train_on_batch(x, y)

    def unchecked_step():
        with unchecked():
            plain.train_on_batch(x, y)

    for _ in range(2):  # trace, compile and warm up
        checked_step()
        unchecked_step()
    # The checks still refuse a bad id outside a compiled step.
    try:
        checked(np.array([[args.vocabulary]], "int32"))
        refused = False
    except ValueError:
        refused = True
    samples = timing.round_robin(
        {
            "checked": [(checked_step, args.calls)],
            "unchecked": [(unchecked_step, args.calls)],
        },
        args.rounds,
    )
    medians = {k: statistics.median(v[0]) for k, v in samples.items()}
    ratio = medians["checked"] / medians["unchecked"]
    result = {
        "command": command,
        "config": vars(args),
        "backend": keras.backend.backend(),
        "device": _common.accelerator(),
        "machine": timing.machine_info(),
        "versions": versions,
        "median_step_seconds": medians,
        "samples_seconds": {k: v[0] for k, v in samples.items()},
        "ratio_checked_over_unchecked": ratio,
        "eager_call_refuses_a_bad_id": refused,
    }
    print(
        f"\nmedian train step: checked {medians['checked'] * 1e3:.2f} ms, "
        f"unchecked {medians['unchecked'] * 1e3:.2f} ms; ratio "
        f"{ratio:.3f} ({keras.backend.backend()}, {_common.accelerator()})"
    )
    print("command:", command)
    return _common.write_result(args.output or default, result)


if __name__ == "__main__":
    main()
