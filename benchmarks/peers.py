"""Peers: `zoo.stacked_rnn` against plain Keras and PyTorch's fused RNNs.

    python benchmarks/peers.py [--cells lstm,gru,simple_rnn --layers 1,2,4
                                --shape small --repeats 5 --output ...]
    python benchmarks/peers.py --quick      # smoke test: tiny shapes

Three contenders per configuration (cell, number of layers L), each a
stack of L recurrent layers returning sequences, a Dense/Linear head per
step, MSE loss and Adam (lr 1e-3):

- `zoo`: `zoo.stacked_rnn(cell, L, units, input_dim=F,
  return_sequences=True)` plus a `keras.layers.Dense(F)` head, trained with
  `train_on_batch`;
- `keras`: the same stack written out as plain `keras.layers.LSTM` / `GRU`
  / `SimpleRNN` layers (same parameter count, asserted);
- `torch`: `nn.LSTM` / `nn.GRU` / `nn.RNN(nonlinearity="tanh")` with
  `num_layers=L, batch_first=True` plus an `nn.Linear` head. PyTorch is an
  optional benchmark dependency (the CPU build is enough); without it the
  contender is skipped with a message.

Measured per contender and configuration:

- training tokens/s: batch x steps / median train-step time;
- inference tokens/s at the same batch: forward only. Keras models use
  `model.predict_on_batch` (a cached compiled predict function, without
  `model.predict`'s per-call data-adapter and callback overhead); PyTorch
  runs the module under `torch.inference_mode()`;
- batch-1 latency: one sequence of 50 steps, forward only, in ms.

Every contender is built, compiled and warmed up first (two calls of each
kind). Then, for each of `--repeats` rounds, every contender of every
configuration is visited in turn, in order on even rounds and reversed on
odd ones (`diagnostics.timing.round_robin`), each timing one block of
`--block` train steps, one block of `--block` inference calls and one
block of `--latency-calls` batch-1 calls. A sample is the mean step time
of a block; the reported value is the median over the rounds. Everything
runs in one process, so the drift of a shared, noisy machine hits every
contender alike.

FLOPs: one training token costs 3 x sum over layers of 2 G H (in + H)
(forward, plus twice that backward), G = 4 (LSTM), 3 (GRU), 1
(SimpleRNN); one inference token a third of that. The head, biases and
elementwise gate maths are not counted. The achieved FLOP/s are compared
with the machine's measured fp32 matrix-multiply peak: the median of
repeated 2048 x 2048 matmuls (PyTorch when installed, else NumPy),
measured at the start and at the end of the run.
"""

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402
import numpy as np  # noqa: E402

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from benchmarks._common import torch  # noqa: E402
from benchmarks._common import versions  # noqa: E402
from diagnostics import timing  # noqa: E402
from diagnostics.timing import machine_info  # noqa: E402

SHAPES = {
    # batch, steps, features, units
    "small": {"batch": 64, "steps": 100, "features": 128, "units": 256},
    "large": {"batch": 128, "steps": 200, "features": 512, "units": 1024},
    "tiny": {"batch": 8, "steps": 10, "features": 8, "units": 16},
}
CONTENDERS = ("zoo", "keras", "torch")
LATENCY_STEPS = 50


def flops_per_token(cell, layers, features, units):
    """Forward FLOPs of the recurrent stack per token (matmuls only)."""
    total, width = 0, features
    for _ in range(layers):
        total += 2 * zoo.cells.get(cell).gates * units * (width + units)
        width = units
    return total


# ----------------------------------------------------------------- models


def keras_head(inputs, x, features):
    return keras.Model(inputs, keras.layers.Dense(features)(x))


def build_zoo(cell, layers, shape):
    backbone = zoo.stacked_rnn(
        cell,
        layers,
        shape["units"],
        input_dim=shape["features"],
        return_sequences=True,
    )
    return keras_head(backbone.input, backbone.output, shape["features"])


def build_keras(cell, layers, shape):
    inputs = keras.Input((None, shape["features"]))
    x = inputs
    for _ in range(layers):
        x = zoo.cells.get(cell).keras_class(
            shape["units"], return_sequences=True
        )(x)
    return keras_head(inputs, x, shape["features"])


class KerasContender:
    def __init__(self, model, data):
        model.compile(keras.optimizers.Adam(1e-3), "mse")
        self.model = model
        self.x, self.y, self.x1 = (keras.ops.convert_to_tensor(a) for a in data)

    def train_step(self):
        self.model.train_on_batch(self.x, self.y)

    def infer(self):
        self.model.predict_on_batch(self.x)

    def latency(self):
        self.model.predict_on_batch(self.x1)

    def count_params(self):
        return self.model.count_params()


class TorchContender:
    def __init__(self, cell, layers, shape, data, device):
        module = zoo.cells.get(cell).torch_module
        rnn = getattr(torch.nn, module)
        kwargs = dict(num_layers=layers, batch_first=True)
        if module == "RNN":
            kwargs["nonlinearity"] = "tanh"
        self.rnn = rnn(shape["features"], shape["units"], **kwargs).to(device)
        self.head = torch.nn.Linear(shape["units"], shape["features"]).to(
            device
        )
        params = [*self.rnn.parameters(), *self.head.parameters()]
        self.params = params
        self.optimizer = torch.optim.Adam(params, lr=1e-3)
        self.x, self.y, self.x1 = (torch.from_numpy(a).to(device) for a in data)
        self.device = device

    def forward(self, x):
        return self.head(self.rnn(x)[0])

    def train_step(self):
        self.optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(self.forward(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        loss.item()  # like train_on_batch, return a host float

    def infer(self):
        with torch.inference_mode():
            self.forward(self.x).cpu()

    def latency(self):
        with torch.inference_mode():
            self.forward(self.x1).cpu()

    def count_params(self):
        return sum(p.numel() for p in self.params)


# ---------------------------------------------------------------- timing


# ------------------------------------------------------------------- main


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default="lstm,gru,simple_rnn")
    parser.add_argument("--layers", default="1,2,4")
    parser.add_argument("--shape", default="small", choices=sorted(SHAPES))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--block", type=int, default=3, help="steps per timed block"
    )
    parser.add_argument(
        "--latency-calls",
        type=int,
        default=10,
        help="batch-1 calls per timed block",
    )
    parser.add_argument(
        "--contenders",
        default=",".join(CONTENDERS),
        help="subset of zoo,keras,torch",
    )
    parser.add_argument(
        "--torch-device",
        default=None,
        help="cpu or cuda (default: cuda when available, else cpu)",
    )
    parser.add_argument(
        "--torch-tf32",
        action="store_true",
        help="allow TF32 in PyTorch on GPUs (default: strict fp32, "
        "the precision the Keras models run at)",
    )
    _common.add_result_arguments(
        parser,
        "peers",
        "first cell only, L=1,2, 2 repeats, tiny shapes",
        quick_file=False,
    )
    args = parser.parse_args(argv)
    args.cells = [c.strip() for c in args.cells.split(",") if c.strip()]
    args.layers = [int(n) for n in args.layers.split(",")]
    args.contenders = [c.strip() for c in args.contenders.split(",")]
    for cell in args.cells:
        if cell not in zoo.cells.NAMES:
            parser.error(
                f"unknown cell {cell!r}; choose from {sorted(zoo.cells.NAMES)}"
            )
    for name in args.contenders:
        if name not in CONTENDERS:
            parser.error(f"unknown contender {name!r}")
    if args.quick:
        args.cells, args.layers = args.cells[:1], [1, 2]
        args.repeats, args.shape = 2, "tiny"
        args.block, args.latency_calls = 2, 3
    return args


def plot(results, args, path, title):
    plt = _common.pyplot()
    if plt is None:
        return None
    fig, axes = plt.subplots(
        1, len(args.cells), figsize=(4.5 * len(args.cells), 3.8), squeeze=False
    )
    for ax, cell in zip(axes[0], args.cells):
        for name in args.contenders:
            points = [
                (r["layers"], r["train_tokens_per_s"])
                for r in results
                if r["cell"] == cell and r["contender"] == name
            ]
            if points:
                xs, ys = zip(*points)
                ax.plot(xs, ys, marker="o", label=name)
        ax.set_title(cell)
        ax.set_xlabel("layers L")
        ax.set_xticks(args.layers)
        ax.set_ylabel("training tokens/s")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    return _common.save_figure(fig, title, path)


def main(argv=None):
    args = parse_args(argv)
    shape = SHAPES[args.shape]
    backend = keras.backend.backend()
    command = _common.command_line(argv)

    if "torch" in args.contenders and torch is None:
        print("PyTorch is not installed: skipping the torch contender")
        args.contenders = [c for c in args.contenders if c != "torch"]
    device = None
    if "torch" in args.contenders:
        device = args.torch_device or (
            "cuda" if torch.cuda.is_available() else "cpu"
        )
        torch.backends.cuda.matmul.allow_tf32 = args.torch_tf32
        torch.backends.cudnn.allow_tf32 = args.torch_tf32
        torch.manual_seed(0)
    on_gpu = device == "cuda" or any(
        d.platform == "gpu"
        for d in (__import__("jax").devices() if backend == "jax" else [])
    )
    if args.output is None:
        kind = "gpu" if on_gpu else "cpu"
        args.output = f"benchmarks/results/peers_{kind}_{backend}.json"

    print("command:", command)
    print("machine:", json.dumps(machine_info()))
    print("versions:", json.dumps(versions()))
    if torch is not None:
        print(f"torch threads: {torch.get_num_threads()}, device: {device}")
    print(
        f"shape {args.shape}: {shape}, latency: batch 1, {LATENCY_STEPS} steps"
    )
    peak_start, peak_source = _common.peak_at_start(on_gpu)

    rng = np.random.default_rng(0)
    b, t, f = shape["batch"], shape["steps"], shape["features"]
    data = (
        rng.normal(size=(b, t, f)).astype("float32"),
        rng.normal(size=(b, t, f)).astype("float32"),
        rng.normal(size=(1, LATENCY_STEPS, f)).astype("float32"),
    )

    configs = [(cell, n) for cell in args.cells for n in args.layers]
    contenders = {}
    setup_start = time.perf_counter()
    # Seeded once: on TensorFlow, set_random_seed between builds makes every
    # model built before it retrace on its next call (inside the timing).
    keras.utils.set_random_seed(0)
    for cell, n in configs:
        built = {}
        for name in args.contenders:
            if name == "zoo":
                built[name] = KerasContender(build_zoo(cell, n, shape), data)
            elif name == "keras":
                built[name] = KerasContender(build_keras(cell, n, shape), data)
            else:
                built[name] = TorchContender(cell, n, shape, data, device)
            for _ in range(2):  # trace, compile and warm up
                built[name].train_step()
                built[name].infer()
                built[name].latency()
        if "zoo" in built and "keras" in built:
            counts = {k: built[k].count_params() for k in ("zoo", "keras")}
            assert counts["zoo"] == counts["keras"], counts
        contenders[(cell, n)] = built
        print(
            f"built and warmed up {cell} L={n}: "
            + ", ".join(
                f"{k} {c.count_params():,} params" for k, c in built.items()
            ),
            flush=True,
        )
    print(f"setup took {time.perf_counter() - setup_start:.0f} s")

    kinds = ("train", "infer", "latency")
    blocks = {
        (key, name): [
            (c.train_step, args.block),
            (c.infer, args.block),
            (c.latency, args.latency_calls),
        ]
        for key, built in contenders.items()
        for name, c in built.items()
    }
    run_start = time.perf_counter()
    timed = timing.round_robin(blocks, args.repeats)
    samples = {
        (key, name, kind): times
        for (key, name), per_block in timed.items()
        for kind, times in zip(kinds, per_block)
    }
    peak, peak_record = _common.peak_at_end(peak_start, peak_source)

    tokens = b * t
    results = []
    for (cell, n), built in contenders.items():
        fwd = flops_per_token(cell, n, f, shape["units"])
        for name in built:
            med = {
                kind: statistics.median(samples[((cell, n), name, kind)])
                for kind in kinds
            }
            train_tps = tokens / med["train"]
            infer_tps = tokens / med["infer"]
            results.append(
                {
                    "cell": cell,
                    "layers": n,
                    "contender": name,
                    "params": built[name].count_params(),
                    "train_step_ms": med["train"] * 1e3,
                    "train_tokens_per_s": train_tps,
                    "train_gflops": 3 * fwd * train_tps / 1e9,
                    "train_pct_of_peak": 100 * 3 * fwd * train_tps / peak,
                    "infer_tokens_per_s": infer_tps,
                    "infer_gflops": fwd * infer_tps / 1e9,
                    "infer_pct_of_peak": 100 * fwd * infer_tps / peak,
                    "latency_b1_ms": med["latency"] * 1e3,
                    "samples": {
                        kind: samples[((cell, n), name, kind)] for kind in kinds
                    },
                }
            )

    def lookup(cell, n, name, field):
        for r in results:
            if (r["cell"], r["layers"], r["contender"]) == (cell, n, name):
                return r[field]
        return None

    ratios = []
    for cell, n in configs:
        row = {"cell": cell, "layers": n}
        for other in ("torch", "keras"):
            if (
                "zoo" in contenders[(cell, n)]
                and other in contenders[(cell, n)]
            ):
                zoo_train = lookup(cell, n, "zoo", "train_tokens_per_s")
                zoo_infer = lookup(cell, n, "zoo", "infer_tokens_per_s")
                zoo_lat = lookup(cell, n, "zoo", "latency_b1_ms")
                row[f"train_zoo_over_{other}"] = zoo_train / lookup(
                    cell, n, other, "train_tokens_per_s"
                )
                row[f"infer_zoo_over_{other}"] = zoo_infer / lookup(
                    cell, n, other, "infer_tokens_per_s"
                )
                # latency as a speed ratio too: > 1 means the zoo is faster
                row[f"latency_speed_zoo_over_{other}"] = (
                    lookup(cell, n, other, "latency_b1_ms") / zoo_lat
                )
        ratios.append(row)

    header = (
        "| cell | L | contender | train tok/s | train GFLOP/s | % peak "
        "| infer tok/s | infer % peak | b1 latency ms |"
    )
    print(f"\n{header}\n" + "|---" * 9 + "|")
    for r in results:
        print(
            f"| {r['cell']} | {r['layers']} | {r['contender']} "
            f"| {r['train_tokens_per_s']:,.0f} | {r['train_gflops']:.1f} "
            f"| {r['train_pct_of_peak']:.0f}% "
            f"| {r['infer_tokens_per_s']:,.0f} "
            f"| {r['infer_pct_of_peak']:.0f}% "
            f"| {r['latency_b1_ms']:.2f} |"
        )
    ratio_cols = [k for k in ratios[0] if k not in ("cell", "layers")]
    if ratio_cols:
        print("\nratios (> 1 means the zoo is faster):\n")
        print("| cell | L | " + " | ".join(ratio_cols) + " |")
        print("|---|---|" + "---|" * len(ratio_cols))
        for row in ratios:
            print(
                f"| {row['cell']} | {row['layers']} | "
                + " | ".join(f"{row[k]:.2f}" for k in ratio_cols)
                + " |"
            )

    path = pathlib.Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    title = (
        f"{args.shape} shape {shape}; Keras {keras.__version__} on {backend}"
        + (f", torch {torch.__version__} on {device}" if device else "")
        + f"; {os.cpu_count()} CPUs"
    )
    png = plot(results, args, path.with_suffix(".png"), title)
    output = {
        "command": command,
        "machine": machine_info(),
        "versions": versions(),
        "config": {**vars(args), "shape_dims": shape},
        "torch_device": device,
        "torch_threads": torch.get_num_threads() if torch else None,
        "inference_call": {
            "keras": "model.predict_on_batch (cached compiled predict "
            "function)",
            "torch": "module under torch.inference_mode()",
        },
        "flops_note": "per training token 3 x sum_layers 2 G H (in + H); "
        "per inference token a third; head excluded",
        "matmul_peak_flops": peak_record,
        "results": results,
        "ratios": ratios,
        "plot": png,
        "run_seconds": time.perf_counter() - run_start,
    }
    return _common.write_result(path, output, png)


if __name__ == "__main__":
    main()
