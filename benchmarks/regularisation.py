"""Regularisation: what each of `zoo.stacked_rnn`'s regularisers costs.

    python benchmarks/regularisation.py [--cells lstm,gru --layers 2
                                         --rate 0.2 --repeats 8 --output ...]
    python benchmarks/regularisation.py --quick   # smoke test: tiny shapes

Training tokens/s of one `zoo.stacked_rnn` stack (default: L = 2, the
small shape of `peers.py`: batch 64, 100 steps, 128 features, 256 units)
with a Dense head per step, MSE and Adam (lr 1e-3), `train_on_batch`, in
these configurations, for LSTM and GRU:

- `plain`: no regularisation;
- `dropout`: `dropout=RATE`, Keras's input dropout inside each recurrent
  layer (one mask per sequence);
- `inter_layer_dropout`: `inter_layer_dropout=RATE`, time-locked dropout
  between the layers (`zoo.layers.VariationalDropout`), outside the kernel;
- `weight_drop`: `weight_drop=RATE`, DropConnect on every recurrent kernel,
  one mask per batch (`zoo.layers.WeightDropLSTM` / `GRU`);
- `recurrent_dropout`: `recurrent_dropout=RATE`, Keras's hidden-to-hidden
  dropout, which switches the cell to its per-gate implementation (known
  to cost about half the speed on CPU; no target);
- `residual`: `residual=True` (layer 2's input added to its output);
- `embedding` and `embedding_dropout`: the same stack on token ids through
  a `keras.layers.Embedding(VOCABULARY, FEATURES)` (so the stack reads the
  same 128-wide input), without and with `embedding_dropout=RATE`
  (`zoo.layers.EmbeddingDropout`, whole word types dropped per batch).
  Embedding dropout needs token inputs, so its baseline is `embedding`,
  not `plain`: the ratio then isolates the dropout from the lookup and the
  embedding's own gradient and Adam update. `mask_zero=False` (ids are
  drawn from 1..VOCABULARY-1 anyway) keeps the stack on the same unmasked
  path as the float-input configurations.

Every model is built, compiled and warmed up first (`--warmup` train
steps). Then, for each of `--repeats` rounds, every model (cell, depth,
configuration) is visited in turn, in order on even rounds and reversed on
odd ones (`diagnostics.timing.round_robin`); each times one block of
`--block` train steps. A sample is the mean step time
of a block; the reported step time is the median over the rounds, all in
one process. The ratio to the baseline is baseline step time / step time
(tokens/s ratio: > 1 is faster); the per-round paired ratios (same round,
seconds apart) are reported as a range, which shows the machine's noise.
Target: every regulariser but `recurrent_dropout` at >= 0.95 of its
baseline.

FLOPs: as in `peers.py`, 3 x sum over layers of 2 G H (in + H) per
training token (G = 4 for LSTM, 3 for GRU; head, embedding, biases, masks
and elementwise maths not counted), against the fp32 matrix-multiply peak
measured in the same process at the start and at the end of the run.

Works on whichever backend `KERAS_BACKEND` selects (tensorflow, jax,
torch); results go to `--output` (JSON) and a PNG next to it.
"""

import argparse
import itertools
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

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from benchmarks.peers import SHAPES  # noqa: E402
from benchmarks.peers import KerasContender  # noqa: E402
from benchmarks.peers import flops_per_token  # noqa: E402
from benchmarks.peers import keras_head  # noqa: E402
from diagnostics import timing  # noqa: E402
from diagnostics.timing import machine_info  # noqa: E402

CELLS = ("lstm", "gru")
# name: the `zoo.stacked_rnn` option it sets (None: none), its value
# (None: --rate), whether it reads token ids, the configuration its ratio
# is taken against, and whether the 0.95 target applies.
CONFIGS = {
    "plain": dict(option=None, tokens=False, baseline=None, target=False),
    "dropout": dict(option="dropout"),
    "inter_layer_dropout": dict(option="inter_layer_dropout"),
    "weight_drop": dict(option="weight_drop"),
    "recurrent_dropout": dict(option="recurrent_dropout", target=False),
    "residual": dict(option="residual", value=True),
    "embedding": dict(option=None, tokens=True, target=False),
    "embedding_dropout": dict(
        option="embedding_dropout", tokens=True, baseline="embedding"
    ),
}
for _spec in CONFIGS.values():
    _spec.setdefault("value", None)
    _spec.setdefault("tokens", False)
    _spec.setdefault("baseline", "plain")
    _spec.setdefault("target", True)
TARGET = 0.95
VOCABULARY = 10_000


def stack_options(config, rate):
    spec = CONFIGS[config]
    if spec["option"] is None:
        return {}
    value = rate if spec["value"] is None else spec["value"]
    return {spec["option"]: value}


def build(cell, layers, shape, config, rate, vocabulary):
    """`zoo.stacked_rnn` in `config` plus a Dense head per step."""
    features = shape["features"]
    if CONFIGS[config]["tokens"]:
        inputs = dict(
            vocabulary_size=vocabulary, embedding_dim=features, mask_zero=False
        )
    else:
        inputs = dict(input_dim=features)
    backbone = zoo.stacked_rnn(
        cell,
        layers,
        shape["units"],
        return_sequences=True,
        **inputs,
        **stack_options(config, rate),
    )
    return keras_head(backbone.input, backbone.output, features)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default=",".join(CELLS))
    parser.add_argument(
        "--layers", default="2", help="depths, comma-separated (default 2)"
    )
    parser.add_argument("--shape", default="small", choices=sorted(SHAPES))
    parser.add_argument(
        "--configs",
        default=",".join(CONFIGS),
        help="subset of " + ",".join(CONFIGS) + " (baselines are added)",
    )
    parser.add_argument(
        "--rate", type=float, default=0.2, help="every dropout rate (0.2)"
    )
    parser.add_argument(
        "--vocabulary",
        type=int,
        default=VOCABULARY,
        help="token vocabulary of the embedding configurations",
    )
    parser.add_argument(
        "--repeats", type=int, default=8, help="timed rounds (8)"
    )
    parser.add_argument(
        "--block", type=int, default=3, help="train steps per timed block"
    )
    parser.add_argument(
        "--warmup", type=int, default=3, help="untimed train steps per model"
    )
    _common.add_result_arguments(
        parser, "regularisation", "first cell only, tiny shapes, 2 repeats"
    )
    args = parser.parse_args(argv)
    args.cells = [c.strip() for c in args.cells.split(",") if c.strip()]
    args.layers = [int(n) for n in args.layers.split(",")]
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    for cell in args.cells:
        if cell not in CELLS:
            parser.error(f"unknown cell {cell!r}; choose from {list(CELLS)}")
    for name in configs:
        if name not in CONFIGS:
            parser.error(
                f"unknown config {name!r}; choose from {list(CONFIGS)}"
            )
    # Every ratio needs its baseline, and every row its ratio to plain.
    configs += ["plain"] + [CONFIGS[c]["baseline"] for c in configs]
    args.configs = [c for c in CONFIGS if c in configs]  # canonical order
    if not 0 < args.rate < 1:
        parser.error(f"--rate must be in (0, 1); received {args.rate}")
    if args.quick:
        args.cells, args.shape = args.cells[:1], "tiny"
        args.repeats, args.block, args.warmup = 2, 2, 2
        args.vocabulary = min(args.vocabulary, 100)
    return args


def plot(results, args, path, title):
    plt = _common.pyplot()
    if plt is None:
        return None
    keys = [(cell, n) for cell in args.cells for n in args.layers]
    fig, axes = plt.subplots(
        1, len(keys), figsize=(max(7.0, 5.5 * len(keys)), 4.8), squeeze=False
    )
    for ax, (cell, n) in zip(axes[0], keys):
        rows = [
            r
            for r in results
            if (r["cell"], r["layers"]) == (cell, n) and r["baseline"]
        ]
        ratios = [r["ratio_to_baseline"] for r in rows]
        lows = [r["paired_ratio_min"] for r in rows]
        highs = [r["paired_ratio_max"] for r in rows]
        colors = [
            "tab:gray"
            if not r["target"]
            else ("tab:green" if r["meets_target"] else "tab:red")
            for r in rows
        ]
        y = np.arange(len(rows))
        errors = [
            [max(0.0, r - lo) for r, lo in zip(ratios, lows)],
            [max(0.0, hi - r) for r, hi in zip(ratios, highs)],
        ]
        ax.barh(y, ratios, color=colors, xerr=errors, capsize=3)
        ax.set_yticks(y, [f"{r['config']}\n(vs {r['baseline']})" for r in rows])
        ax.invert_yaxis()
        ax.axvline(1.0, color="k", lw=0.8)
        ax.axvline(
            TARGET, color="tab:red", ls="--", lw=0.8, label=f"target {TARGET}"
        )
        for yi, ratio, high in zip(y, ratios, highs):
            end = max(ratio, high)
            ax.text(end + 0.02, yi, f"{ratio:.2f}", va="center", fontsize=8)
        base = next(
            r
            for r in results
            if (r["cell"], r["layers"], r["config"]) == (cell, n, "plain")
        )
        ax.set_title(
            f"{cell}, L={n}: plain {base['train_tokens_per_s']:,.0f} tokens/s",
            fontsize=10,
        )
        ax.set_xlabel(
            "training tokens/s ÷ baseline's\n(bar: ratio of medians; "
            "whiskers: range of the per-round ratios)",
            fontsize=8,
        )
        ax.set_xlim(0, max(1.15, *highs, *ratios) + 0.15)
        ax.grid(True, axis="x", alpha=0.3)
        ax.legend(fontsize=8, loc="lower left")
    return _common.save_figure(fig, title, path)


def main(argv=None):
    args = parse_args(argv)
    shape = SHAPES[args.shape]
    backend = keras.backend.backend()
    command, info, default = _common.print_header(
        argv, "regularisation", args.quick
    )
    args.output = args.output or default
    kind = _common.accelerator()
    print(f"device: {kind}; shape {args.shape}: {shape}; rate {args.rate}")
    peak_start, peak_source = _common.peak_at_start(kind == "gpu")

    rng = np.random.default_rng(0)
    b, t, f = shape["batch"], shape["steps"], shape["features"]
    x = rng.normal(size=(b, t, f)).astype("float32")
    y = rng.normal(size=(b, t, f)).astype("float32")
    ids = rng.integers(1, args.vocabulary, size=(b, t)).astype("int32")
    data = {False: (x, y, x[:1]), True: (ids, y, ids[:1])}

    models = {}
    setup_start = time.perf_counter()
    # Seed once: on TensorFlow, `set_random_seed` between models makes every
    # model traced before it retrace its train step on its next call.
    keras.utils.set_random_seed(0)
    with timing.quiet_tensorflow():  # retracing warnings
        for key in itertools.product(args.cells, args.layers, args.configs):
            cell, n, config = key
            model = build(cell, n, shape, config, args.rate, args.vocabulary)
            contender = KerasContender(model, data[CONFIGS[config]["tokens"]])
            for _ in range(args.warmup):  # trace, compile and warm up
                contender.train_step()
            models[key] = contender
            print(
                f"built and warmed up {cell} L={n} {config}: "
                f"{contender.count_params():,} params",
                flush=True,
            )
    print(f"setup took {time.perf_counter() - setup_start:.0f} s")

    run_start = time.perf_counter()
    blocks = {key: [(c.train_step, args.block)] for key, c in models.items()}
    samples = {
        key: per_block[0]
        for key, per_block in timing.round_robin(blocks, args.repeats).items()
    }
    peak, peak_record = _common.peak_at_end(peak_start, peak_source)

    tokens = b * t
    results = []
    for (cell, n, config), times in samples.items():
        spec = CONFIGS[config]
        step = statistics.median(times)
        tps = tokens / step
        fwd = flops_per_token(cell, n, f, shape["units"])
        row = {
            "cell": cell,
            "layers": n,
            "config": config,
            "options": stack_options(config, args.rate),
            "token_inputs": spec["tokens"],
            "params": models[(cell, n, config)].count_params(),
            "train_step_ms": step * 1e3,
            "train_tokens_per_s": tps,
            "train_gflops": 3 * fwd * tps / 1e9,
            "train_pct_of_peak": 100 * 3 * fwd * tps / peak,
            "baseline": spec["baseline"],
            "target": spec["target"],
            "samples": times,
        }
        plain = samples[(cell, n, "plain")]
        row["ratio_to_plain"] = statistics.median(plain) / step
        if spec["baseline"] is not None:
            base = samples[(cell, n, spec["baseline"])]
            paired = [s0 / s1 for s0, s1 in zip(base, times)]
            row.update(
                ratio_to_baseline=statistics.median(base) / step,
                paired_ratio_median=statistics.median(paired),
                paired_ratio_min=min(paired),
                paired_ratio_max=max(paired),
            )
            row["meets_target"] = (
                row["ratio_to_baseline"] >= TARGET if spec["target"] else None
            )
        results.append(row)

    header = (
        "| cell | L | config | train tok/s | step ms | GFLOP/s | % peak "
        "| ÷ plain | ÷ baseline | per-round range | target |"
    )
    print(f"\n{header}\n" + "|---" * 11 + "|")
    for r in results:
        if r["baseline"] is None:
            vs = "(baseline)"
            spread = verdict = "–"
        else:
            vs = f"{r['ratio_to_baseline']:.3f} ({r['baseline']})"
            spread = f"{r['paired_ratio_min']:.2f}–{r['paired_ratio_max']:.2f}"
            verdict = "–"
            if r["target"]:
                verdict = "ok" if r["meets_target"] else "BELOW 0.95"
        print(
            f"| {r['cell']} | {r['layers']} | {r['config']} "
            f"| {r['train_tokens_per_s']:,.0f} | {r['train_step_ms']:.1f} "
            f"| {r['train_gflops']:.1f} | {r['train_pct_of_peak']:.0f}% "
            f"| {r['ratio_to_plain']:.3f} | {vs} | {spread} | {verdict} |"
        )
    print(
        "\nratios are tokens/s over the baseline's (> 1: faster); target "
        f">= {TARGET} for every regulariser but recurrent_dropout"
    )

    path = pathlib.Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    title = (
        f"regularisation, rate {args.rate}; {args.shape} shape {shape}\n"
        f"Keras {keras.__version__} on {backend} ({kind}), "
        f"{os.cpu_count()} CPUs"
    )
    png = plot(results, args, path.with_suffix(".png"), title)
    output = {
        "command": command,
        "machine": machine_info(),
        "versions": info,
        "device": kind,
        "config": {**vars(args), "shape_dims": shape},
        "configurations": {
            name: {**CONFIGS[name], "options": stack_options(name, args.rate)}
            for name in args.configs
        },
        "target": TARGET,
        "flops_note": "per training token 3 x sum_layers 2 G H (in + H); "
        "head, embedding and regularisers excluded",
        "matmul_peak_flops": peak_record,
        "results": results,
        "plot": png,
        "run_seconds": time.perf_counter() - run_start,
    }
    return _common.write_result(path, output, png)


if __name__ == "__main__":
    main()
