"""What depth costs: step time, latency, peak memory and parameters.

    python -m diagnostics cost [--depths 1:8 --units 128 --cell lstm]
    python -m diagnostics cost --quick

Tests the claim "time and memory grow linearly with depth; parameters grow
by one layer's worth per layer", in two sweeps over the depth L:

- fixed_width: every layer `--units` wide, so each layer adds its weights;
- fixed_budget: the width per depth from `zoo.width_for_budget`, so every
  stack holds about `--budget-params` parameters (default: the 2-layer
  stack at `--units`): deep-and-narrow against shallow-and-wide.

Each configuration is a unidirectional, plain (no residual) `zoo.stacked_rnn`
on float inputs with a Dense head per step, MSE and Adam, as in
`benchmarks/overhead.py`. Measured, per configuration:

- step_ms: `train_on_batch` on one fixed random batch (forward, backward,
  update), averaged over a block of TRAIN_BLOCK steps; the median of
  `--repeats` blocks. Every model is built and warmed up first, then they
  are timed round-robin, one block each per repeat, in reverse order on odd
  repeats, so the drift of a shared machine spreads over all depths.
- tokens_per_s: batch_size * steps / step time.
- latency_ms: `predict_on_batch` on one sequence (batch 1), the median of
  per-call means over blocks of LATENCY_BLOCK calls, timed the same way.
- peak_mb: how far a fresh Python process's peak resident memory (VmHWM,
  else ru_maxrss) rises while it builds, compiles, trains (warm-up plus
  one block) and runs inference on the configuration, above the same
  process's peak after importing keras and running one tiny op. It counts
  weights, optimizer slots, activations kept for backprop, the traced
  graph and allocator slack; not the framework itself (summary.json's
  memory_baseline_mb). A configuration in both sweeps is probed once.
  `--no-memory` skips it, as `--quick` does.
- params: the stack's parameters as Keras counts them (total_params adds
  the head), so the budget and the per-layer increments are the stack's.

A straight line against depth (slope, intercept, R^2) is fitted to each in
the fixed-width sweep. Output in `--output`: cost.csv/json, fits.json,
summary.json (machine, command) and cost.png.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import keras
import numpy as np

import harness
import zoo
from diagnostics import _shared
from diagnostics import timing
from harness import files
from harness import flags
from harness import plots
from zoo.spec import CELLS

TRAIN_BLOCK = 3  # train steps per timed block
LATENCY_BLOCK = 5  # batch-1 calls per timed block
DEFAULTS = dict(
    depths="1:8", units=128, batch_size=32, steps=50, features=64, repeats=5
)
QUICK = dict(
    depths="1:3", units=32, batch_size=4, steps=8, features=8, repeats=2
)
METRICS = {  # column: (panel title, unit of the fitted slope)
    "step_ms": ("training step (ms)", "ms per layer"),
    "latency_ms": ("batch-1 latency (ms)", "ms per layer"),
    "peak_mb": ("peak memory above baseline (MB)", "MB per layer"),
    "params": ("stack parameters", "parameters per layer"),
}


def parse_args(argv):
    parser = flags.ArgumentParser(
        prog="python -m diagnostics cost",
        description=flags.describe(__doc__),
    )
    add = parser.add_argument

    def told(text, name):  # the default and --quick's, from their tables
        return f"{text} (default: {DEFAULTS[name]}; --quick: {QUICK[name]})"

    add("--depths", help=told("MIN:MAX", "depths"))
    add(
        "--units",
        type=int,
        help=told("width of the fixed-width sweep", "units"),
    )
    add(
        "--budget-params",
        type=int,
        help="stack parameters in the fixed-budget sweep (default: "
        "the 2-layer stack at --units)",
    )
    add(
        "--cell",
        default="lstm",
        choices=CELLS,
        help="the recurrent cell (default: %(default)s)",
    )
    add("--batch-size", type=int, help=told("training batch", "batch_size"))
    add("--steps", type=int, help=told("timesteps per sequence", "steps"))
    add(
        "--features", type=int, help=told("input features per step", "features")
    )
    add(
        "--repeats",
        type=int,
        help=told("timed blocks per configuration", "repeats"),
    )
    add(
        "--memory",
        action=argparse.BooleanOptionalAction,
        help="peak memory, one fresh process per configuration "
        "(default: on; off with --quick)",
    )
    add(
        "--quick",
        action="store_true",
        help="the --quick values above, no memory: seconds (flags still win)",
    )
    add(
        "--seed",
        action=flags.Setting,
        parse=flags.parse_seed,
        default=0,
        help="seed of the weights and data (default: %(default)s)",
    )
    add(
        "--output",
        default="runs/diagnostics/cost",
        help="folder for the plots, tables and fits (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    for key, value in (QUICK if args.quick else DEFAULTS).items():
        if getattr(args, key) is None:  # explicit flags win over --quick
            setattr(args, key, value)
    if args.memory is None:
        args.memory = not args.quick
    return args


def check_args(args):
    """Raises `harness.UsageError` on bad input; returns the list of depths."""
    try:
        low, high = (int(part) for part in args.depths.split(":"))
    except ValueError:
        low = high = 0
    if not 1 <= low <= high:
        raise harness.UsageError(
            "--depths must be MIN:MAX with 1 <= MIN <= MAX (e.g. 1:8); "
            f"received {args.depths!r}"
        )
    for name in ("units", "batch_size", "steps", "features", "repeats"):
        flags.check_range(name, getattr(args, name), low=1)
    flags.check_choice("cell", args.cell, CELLS)
    if args.budget_params is None:
        args.budget_params = zoo.count_params(
            args.cell, args.features, args.units, num_layers=2
        )
    smallest = zoo.count_params(args.cell, args.features, 1, num_layers=high)
    if args.budget_params < smallest:
        raise harness.UsageError(
            f"--budget-params must be >= {smallest} (the {high}-layer "
            f"{args.cell} stack at width 1 on {args.features} features) for "
            f"--depths {args.depths}; received {args.budget_params}"
        )
    return list(range(low, high + 1))


def build(cell, depth, units, features):
    """The stack with a Dense head per step, compiled; `(model, stack)`."""
    stack = zoo.stacked_rnn(
        cell, depth, units, input_dim=features, name=f"L{depth}_u{units}"
    )
    head = keras.layers.Dense(features, name="head")
    model = keras.Model(stack.input, head(stack.output))
    model.compile(keras.optimizers.Adam(1e-3), "mse")
    return model, stack


def batch(batch_size, steps, features, seed):
    """A fixed random batch `(x, y)` and one sequence for latency."""
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=(2, batch_size, steps, features)).astype("float32")
    return x, y, x[:1]


def warm_up(model, data):
    x, y, one = data
    for _ in range(2):
        model.train_on_batch(x, y)
        model.predict_on_batch(one)


def time_round_robin(models, data, repeats):
    """Median seconds per train step and per batch-1 call, per model
    (`timing.round_robin`: one block of each per model and repeat)."""
    x, y, one = data
    blocks = {
        i: [
            (lambda m=model: m.train_on_batch(x, y), TRAIN_BLOCK),
            (lambda m=model: m.predict_on_batch(one), LATENCY_BLOCK),
        ]
        for i, model in enumerate(models)
    }
    result = timing.medians(timing.round_robin(blocks, repeats, "repeat"))
    return [result[i][0] for i in blocks], [result[i][1] for i in blocks]


def _memory_child(spec):
    """Run in a fresh process by `measure_memory`: prints one JSON line."""
    spec = json.loads(spec)
    keras.ops.convert_to_numpy(keras.ops.ones((1,)) + 1)  # start the backend
    baseline = timing.peak_rss_mb()
    model, _ = build(
        spec["cell"], spec["depth"], spec["units"], spec["features"]
    )
    data = batch(spec["batch_size"], spec["steps"], spec["features"], 0)
    warm_up(model, data)
    for _ in range(TRAIN_BLOCK):
        model.train_on_batch(*data[:2])
    peak = timing.peak_rss_mb() - baseline
    print(json.dumps({"baseline_mb": baseline, "peak_mb": peak}))


def measure_memory(args, depth, units):
    """`(baseline_mb, peak_mb)` of one configuration, in a fresh process."""
    spec = dict(vars(args), depth=depth, units=units)
    root = str(pathlib.Path(__file__).resolve().parents[1])
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path, TF_CPP_MIN_LOG_LEVEL="2")
    env["KERAS_BACKEND"] = keras.backend.backend()
    code = "import sys; from diagnostics import cost; "
    code += "cost._memory_child(sys.argv[1])"
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(spec)],
        env=env,
        capture_output=True,
        text=True,
    )
    lines = [s for s in done.stdout.splitlines() if s.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"memory probe L={depth} u={units} failed: {tail}")
    result = json.loads(lines[-1])
    return result["baseline_mb"], result["peak_mb"]


def fit_depth(rows, args):
    """Straight lines against depth for the fixed-width sweep."""
    fixed = [row for row in rows if row["sweep"] == "fixed_width"]
    if len(fixed) < 2:
        return {}
    depths = [row["depth"] for row in fixed]
    fits = {}
    for key, (_, unit) in METRICS.items():
        values = [row[key] for row in fixed]
        if None not in values:
            slope, intercept, r2 = _shared.line_fit(depths, values)
            fits[key] = dict(slope=slope, intercept=intercept, r2=r2, unit=unit)
    # Layer 2 onwards reads `units` features: one such layer's worth.
    fits["params"]["closed_form_per_layer"] = zoo.count_params(
        args.cell, args.units, args.units, num_layers=1
    )
    return fits


def plot(rows, fits, args, path):
    plt = plots.pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5))
    labels = {
        "fixed_width": f"fixed width ({args.units} units)",
        "fixed_budget": f"fixed budget ({args.budget_params:,} parameters)",
    }
    for ax, (key, (title, unit)) in zip(axes.flat, METRICS.items()):
        ax.set_title(title)
        ax.set_xlabel("depth (layers)")
        if all(row[key] is None for row in rows):
            ax.text(
                0.5, 0.5, "not measured (--no-memory, --quick)", ha="center"
            )
            ax.set_axis_off()
            continue
        for (sweep, label), style in zip(labels.items(), ("o-", "s-")):
            part = [row for row in rows if row["sweep"] == sweep]
            depths = [row["depth"] for row in part]
            ax.plot(depths, [row[key] for row in part], style, label=label)
        if key in fits:
            fit, x = fits[key], np.array([rows[0]["depth"], rows[-1]["depth"]])
            slope = fit["slope"]
            slope = f"{slope:,.0f}" if abs(slope) >= 100 else f"{slope:.3g}"
            text = f"fit: {slope} {unit}, R² {fit['r2']:.3f}"
            ax.plot(x, fit["slope"] * x + fit["intercept"], "k--", label=text)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
        ax.legend(fontsize=8)
    fig.suptitle(
        f"{args.cell}, batch {args.batch_size} x {args.steps} steps x "
        f"{args.features} features, {keras.backend.backend()}, "
        f"{os.cpu_count()} CPUs"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def print_table(rows):
    print(
        f"\n{'sweep':13}{'L':>3}{'units':>7}{'params':>10}{'step ms':>9}"
        f"{'tokens/s':>10}{'lat ms':>8}{'peak MB':>9}"
    )
    for r in rows:
        peak = "-" if r["peak_mb"] is None else f"{r['peak_mb']:.0f}"
        print(
            f"{r['sweep']:13}{r['depth']:>3}{r['units']:>7}{r['params']:>10}"
            f"{r['step_ms']:>9.1f}{r['tokens_per_s']:>10.0f}"
            f"{r['latency_ms']:>8.2f}{peak:>9}"
        )


@timing.quiet_tensorflow()  # no retracing warnings
def build_all(args, depths, data):
    """Both sweeps' models, built and warmed up; `(rows, models)`."""
    rows, models = [], []
    for sweep in ("fixed_width", "fixed_budget"):
        for depth in depths:
            units = args.units
            if sweep == "fixed_budget":
                units = zoo.width_for_budget(
                    args.cell, args.features, depth, args.budget_params
                )
            start = time.perf_counter()
            model, stack = build(args.cell, depth, units, args.features)
            warm_up(model, data)
            models.append(model)
            params = stack.count_params()
            rows.append(dict(sweep=sweep, depth=depth, units=units,
                             params=params,
                             total_params=model.count_params()))  # fmt: skip
            print(
                f"{sweep} L={depth} units={units}: {params} parameters, "
                f"built and warmed up in {time.perf_counter() - start:.1f} s",
                flush=True,
            )
    return rows, models


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    depths = check_args(args)
    output = pathlib.Path(args.output)
    lock = _shared.lock_output(output)
    try:
        started = time.perf_counter()
        keras.utils.set_random_seed(args.seed)
        data = batch(args.batch_size, args.steps, args.features, args.seed)
        rows, models = build_all(args, depths, data)
        step_s, call_s = time_round_robin(models, data, args.repeats)
        memory = {}  # (depth, units) -> (baseline, peak): each config once
        for row, step, call in zip(rows, step_s, call_s):
            tokens_per_s = args.batch_size * args.steps / step
            row.update(step_ms=step * 1e3, tokens_per_s=tokens_per_s,
                       latency_ms=call * 1e3, peak_mb=None)  # fmt: skip
            line = f"step {row['step_ms']:.1f} ms, latency {call * 1e3:.2f} ms"
            if args.memory:
                key = row["depth"], row["units"]
                if key not in memory:
                    memory[key] = measure_memory(args, *key)
                row["peak_mb"] = memory[key][1]
                line += f", peak {row['peak_mb']:.0f} MB"
            print(f"{row['sweep']} L={row['depth']}: {line}", flush=True)
        fits = fit_depth(rows, args)
        summary = dict(
            command=" ".join(["python -m diagnostics cost", *argv]),
            machine=timing.machine_info(),
            backend=keras.backend.backend(),
            keras=keras.__version__,
            versions=timing.versions(),
            config=vars(args),
            train_block=TRAIN_BLOCK,
            latency_block=LATENCY_BLOCK,
            memory_baseline_mb=statistics.median(b for b, _ in memory.values())
            if memory
            else None,
            seconds=time.perf_counter() - started,
            fits=fits,
        )
        files.write_rows(rows, output, "cost")
        files.write_json(output / "fits.json", fits)
        files.write_json(output / "summary.json", summary)
        plot(rows, fits, args, output / "cost.png")
        print_table(rows)
        for key, fit in fits.items():
            print(f"fixed width, {key}: {fit['slope']:,.4g} {fit['unit']}, "
                  f"R² {fit['r2']:.3f}")  # fmt: skip
        print(f"wrote {output}/cost.csv, fits.json, summary.json, cost.png")
        return dict(summary, rows=rows)
    finally:
        lock.release()
