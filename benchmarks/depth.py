"""Depth: training step time and peak memory of `zoo.stacked_rnn`, L = 1..8.

    python benchmarks/depth.py [--cell lstm --depths 1:8 --shape small
                                --repeats 4 --output ...]
    python benchmarks/depth.py --quick      # smoke test: tiny shapes, L=1..3

The measuring code is the diagnostics tool's, `diagnostics/cost.py`
(`python -m diagnostics cost`), imported, not copied: the same model
(`cost.build`: a unidirectional, plain `zoo.stacked_rnn` on float inputs,
a Dense head per step, MSE, Adam lr 1e-3), the same warm-up
(`cost.warm_up`: two train steps and two batch-1 calls), the same timing
(`cost.time_round_robin`: every depth in one process, one block of
`cost.TRAIN_BLOCK` train steps and `cost.LATENCY_BLOCK` batch-1
`predict_on_batch` calls each per repeat, the order reversed on odd
repeats; the median over `--repeats` blocks), the same memory probe
(`cost.measure_memory`: how far a fresh Python process's peak resident
memory, VmHWM, rises while it builds, compiles, warms up and trains the
configuration, above its own peak after importing Keras) and the same
straight-line fits against depth (`cost.fit_depth`: slope per layer,
intercept, R^2). What this script adds over `cost.py`: the benchmark
suite's shapes (default: `peers.py`'s small shape, batch 64, 100 steps,
128 features, 256 units, at every depth; no fixed-budget sweep), the
machine and library versions, and the achieved FLOP/s against the
fp32 matrix-multiply peak measured in the same process at the start and
at the end of the run (`_common.peak_at_start`; FLOPs per training token
3 x sum over layers of 2 G H (in + H), `peers.flops_per_token`).

Peak memory is the host process's resident memory: on a GPU it is not the
device memory. Results: `--output` (JSON) with a PNG next to it.
"""

import argparse
import os
import pathlib
import statistics
import sys
import time

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import harness  # noqa: E402
import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from benchmarks.peers import SHAPES  # noqa: E402
from benchmarks.peers import flops_per_token  # noqa: E402
from diagnostics import cost  # noqa: E402
from diagnostics import timing  # noqa: E402
from diagnostics.timing import machine_info  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cell", default="lstm", choices=zoo.cells.NAMES)
    parser.add_argument("--depths", default="1:8", help="MIN:MAX (1:8)")
    parser.add_argument("--shape", default="small", choices=sorted(SHAPES))
    parser.add_argument(
        "--repeats", type=int, default=4, help="timed blocks per depth (4)"
    )
    parser.add_argument(
        "--memory",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="peak memory, one fresh process per depth (default: on)",
    )
    parser.add_argument("--seed", type=int, default=0)
    _common.add_result_arguments(
        parser, "depth", "tiny shapes, depths 1:3, 2 repeats"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.shape, args.depths, args.repeats = "tiny", "1:3", 2
    shape = SHAPES[args.shape]
    # The namespace `cost`'s functions read (and the memory probe's child
    # receives as JSON).
    args.cost = argparse.Namespace(
        cell=args.cell,
        depths=args.depths,
        units=shape["units"],
        batch_size=shape["batch"],
        steps=shape["steps"],
        features=shape["features"],
        repeats=args.repeats,
        budget_params=None,
        seed=args.seed,
    )
    try:
        args.depth_list = cost.check_args(args.cost)
    except harness.UsageError as error:
        parser.error(str(error))
    return args


def plot(rows, fits, peak, path, title):
    plt = _common.pyplot()
    if plt is None:
        return None
    depths = np.array([r["depth"] for r in rows])
    panels = [
        ("step_ms", "training step (ms)"),
        ("peak_mb", "peak memory above baseline (MB)"),
        ("train_gflops", "training GFLOP/s"),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    for ax, (key, label) in zip(axes, panels):
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("depth L (layers)")
        ax.set_xticks(depths)
        if any(r[key] is None for r in rows):
            ax.text(0.5, 0.5, "not measured (--no-memory)", ha="center")
            continue
        ax.plot(depths, [r[key] for r in rows], "o-", label="measured")
        if key in fits:
            fit = fits[key]
            ends = depths[[0, -1]]
            ax.plot(
                ends,
                fit["slope"] * ends + fit["intercept"],
                "k--",
                label=f"fit: {fit['slope']:.3g} {fit['unit']}, "
                f"R² {fit['r2']:.3f}",
            )
        if key == "train_gflops":
            ax.axhline(
                peak / 1e9,
                color="tab:red",
                ls=":",
                label=f"matmul peak {peak / 1e9:.0f}",
            )
            ax.set_ylim(0, peak / 1e9 * 1.15)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    return _common.save_figure(fig, title, path)


def main(argv=None):
    args = parse_args(argv)
    shape, ns = SHAPES[args.shape], args.cost
    backend = keras.backend.backend()
    command, info, default = _common.print_header(argv, "depth", args.quick)
    args.output = args.output or default
    kind = _common.accelerator()
    print(
        f"device: {kind}; {args.cell}, depths {args.depths}; shape "
        f"{args.shape}: {shape}; blocks of {cost.TRAIN_BLOCK} train steps "
        f"and {cost.LATENCY_BLOCK} batch-1 calls, {args.repeats} repeats"
    )
    peak_start, peak_source = _common.peak_at_start(
        kind == "gpu",
        "note: the matmul peak is the CPU's and peak memory the host "
        "process's; on a GPU read the GFLOP/s and step columns",
    )

    keras.utils.set_random_seed(args.seed)  # once: see regularisation.py
    data = cost.batch(ns.batch_size, ns.steps, ns.features, args.seed)
    models, stacks = [], []
    setup_start = time.perf_counter()
    with timing.quiet_tensorflow():  # retracing warnings
        for depth in args.depth_list:
            start = time.perf_counter()
            model, stack = cost.build(args.cell, depth, ns.units, ns.features)
            cost.warm_up(model, data)
            models.append(model)
            stacks.append(stack)
            print(
                f"L={depth}: {stack.count_params():,} stack parameters, built "
                f"and warmed up in {time.perf_counter() - start:.1f} s",
                flush=True,
            )
    print(f"setup took {time.perf_counter() - setup_start:.0f} s")

    run_start = time.perf_counter()
    step_s, call_s = cost.time_round_robin(models, data, args.repeats)
    timing_seconds = time.perf_counter() - run_start
    peak, peak_record = _common.peak_at_end(peak_start, peak_source)
    del models  # the memory probes run in fresh processes

    rows = []
    tokens = ns.batch_size * ns.steps
    for depth, stack, step, call in zip(
        args.depth_list, stacks, step_s, call_s
    ):
        flops = 3 * flops_per_token(args.cell, depth, ns.features, ns.units)
        row = dict(
            sweep="fixed_width",  # what cost.fit_depth fits
            depth=depth,
            units=ns.units,
            params=stack.count_params(),
            step_ms=step * 1e3,
            tokens_per_s=tokens / step,
            train_gflops=flops * tokens / step / 1e9,
            train_pct_of_peak=100 * flops * tokens / step / peak,
            latency_ms=call * 1e3,
            peak_mb=None,
            baseline_mb=None,
        )
        if args.memory:
            row["baseline_mb"], row["peak_mb"] = cost.measure_memory(
                ns, depth, ns.units
            )
            print(f"L={depth}: peak {row['peak_mb']:.0f} MB", flush=True)
        rows.append(row)
    fits = cost.fit_depth(rows, ns)

    header = (
        "| L | stack params | step ms | train tok/s | GFLOP/s | % peak "
        "| b1 latency ms | peak MB |"
    )
    print(f"\n{header}\n" + "|---" * 8 + "|")
    for r in rows:
        memory = "–" if r["peak_mb"] is None else f"{r['peak_mb']:,.0f}"
        print(
            f"| {r['depth']} | {r['params']:,} | {r['step_ms']:.1f} "
            f"| {r['tokens_per_s']:,.0f} | {r['train_gflops']:.1f} "
            f"| {r['train_pct_of_peak']:.0f}% | {r['latency_ms']:.2f} "
            f"| {memory} |"
        )
    print("\n| straight line against L | slope per layer | intercept | R² |")
    print("|---|---|---|---|")
    for key, fit in fits.items():
        print(
            f"| {key} | {fit['slope']:,.4g} {fit['unit']} "
            f"| {fit['intercept']:,.4g} | {fit['r2']:.3f} |"
        )

    path = pathlib.Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    title = (
        f"depth, {args.cell}; {args.shape} shape {shape}\n"
        f"Keras {keras.__version__} on {backend} ({kind}), "
        f"{os.cpu_count()} CPUs"
    )
    png = plot(rows, fits, peak, path.with_suffix(".png"), title)
    baselines = [r["baseline_mb"] for r in rows if r["baseline_mb"]]
    output = {
        "command": command,
        "machine": machine_info(),
        "versions": info,
        "device": kind,
        "config": {
            "cell": args.cell,
            "depths": args.depth_list,
            "shape": args.shape,
            "shape_dims": shape,
            "repeats": args.repeats,
            "memory": args.memory,
            "seed": args.seed,
            "quick": args.quick,
            "output": args.output,
        },
        "method": "diagnostics/cost.py: build, warm_up, "
        "time_round_robin, measure_memory, fit_depth",
        "train_block": cost.TRAIN_BLOCK,
        "latency_block": cost.LATENCY_BLOCK,
        "flops_note": "per training token 3 x sum_layers 2 G H (in + H); "
        "head excluded",
        "matmul_peak_flops": peak_record,
        "memory_baseline_mb": statistics.median(baselines)
        if baselines
        else None,
        "rows": rows,
        "fits": fits,
        "plot": png,
        "timing_seconds": timing_seconds,
        "run_seconds": time.perf_counter() - setup_start,
    }
    return _common.write_result(path, output, png)


if __name__ == "__main__":
    main()
