"""Batch-1 inference latency: `zoo.inference_function` against `predict`
and PyTorch's own `nn.LSTM` under `no_grad`, side by side in one process.

    python benchmarks/inference.py [--layers 1 --steps 50 --units 128
                                    --features 64 --repeats 15 --output ...]
    KERAS_BACKEND=jax python benchmarks/inference.py
    KERAS_BACKEND=torch python benchmarks/inference.py
    python benchmarks/inference.py --quick   # smoke test: few repeats

One `zoo.stacked_lstm(LAYERS, UNITS, input_dim=FEATURES)` stack with a
Dense head over its last output, one sequence of `--steps` float steps
(batch 1), called as a server would, one request at a time:

- `predict`: `model.predict(x, verbose=0)`;
- `predict_on_batch`: `model.predict_on_batch(x)`;
- `inference_function`: `zoo.inference_function(model)(x)`, NumPy out;
- `inference_function_xla` (TensorFlow only): with `jit_compile=True`;
- `torch_no_grad`: `torch.nn.LSTM(FEATURES, UNITS, num_layers=LAYERS)` +
  `nn.Linear` under `torch.no_grad()`, NumPy in and out, in this same
  process, on PyTorch's CPU build.

Each is warmed up, then timed in turns (`diagnostics.timing.round_robin`,
blocks of `--block` calls, `--repeats` rounds, order reversed every other
round); a latency is the median over the rounds. The ratio is a latency
over PyTorch's (the issue's target: `inference_function` at most 1.5x).
The script prints what it measured and the command, and writes JSON to
`benchmarks/results/inference_<cpu|gpu>_<backend>.json`.
"""

import argparse
import json
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402
import numpy as np  # noqa: E402

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from diagnostics import timing  # noqa: E402


def _keras_contenders(model, x):
    predict = zoo.inference_function(model)
    contenders = {
        "predict": lambda: model.predict(x, verbose=0),
        "predict_on_batch": lambda: keras.ops.convert_to_numpy(
            model.predict_on_batch(x)
        ),
        "inference_function": lambda: predict(x),
    }
    if keras.backend.backend() == "tensorflow":
        xla = zoo.inference_function(model, jit_compile=True)
        contenders["inference_function_xla"] = lambda: xla(x)
    return contenders


def _torch_contender(args, x):
    import torch

    torch.manual_seed(0)
    lstm = torch.nn.LSTM(
        args.features, args.units, num_layers=args.layers, batch_first=True
    ).eval()
    head = torch.nn.Linear(args.units, 8).eval()

    def run():
        with torch.no_grad():
            out, _ = lstm(torch.from_numpy(x))
            return head(out[:, -1]).numpy()

    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--block", type=int, default=20)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.block = 2, 2
    keras.utils.set_random_seed(0)
    model = zoo.stacked_lstm(
        args.layers,
        args.units,
        input_dim=args.features,
        return_sequences=False,
    )
    model = keras.Model(
        model.inputs[0], keras.layers.Dense(8)(model.outputs[0])
    )
    x = np.random.default_rng(0).normal(size=(1, args.steps, args.features))
    x = x.astype("float32")
    contenders = _keras_contenders(model, x)
    contenders["torch_no_grad"] = _torch_contender(args, x)
    for function in contenders.values():
        for _ in range(3):
            function()  # warm up: trace, compile, allocate
    samples = timing.round_robin(
        {name: [(f, args.block)] for name, f in contenders.items()},
        args.repeats,
    )
    latency = {k: statistics.median(v[0]) for k, v in samples.items()}
    reference = latency["torch_no_grad"]
    backend = keras.backend.backend()
    command = _common.command_line(argv)
    print(f"\n{command}")
    print(
        f"batch 1, {args.steps} steps, {args.layers}-layer LSTM "
        f"{args.features}->{args.units}, backend {backend}, "
        f"{_common.accelerator()}; median of {args.repeats} rounds of "
        f"{args.block} calls"
    )
    print(f"{'contender':24s}  {'ms':>8s}  {'x torch':>8s}")
    for name, seconds in latency.items():
        print(f"{name:24s}  {seconds * 1e3:8.3f}  {seconds / reference:8.2f}")
    output = pathlib.Path(
        args.output or _common.default_output("inference", quick=args.quick)
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        json.dumps(
            {
                "command": command,
                "backend": backend,
                "shape": vars(args),
                "latency_ms": {k: v * 1e3 for k, v in latency.items()},
                "ratio_to_torch": {
                    k: v / reference for k, v in latency.items()
                },
                "samples_ms": {
                    k: [s * 1e3 for s in v[0]] for k, v in samples.items()
                },
                "machine": timing.machine_info(),
                "versions": timing.versions(),
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
