"""One Adam step over the biLM's weights, four ways, side by side in one
process (round robin, medians), on the PyTorch backend.

    KERAS_BACKEND=torch python benchmarks/optimizer_speed.py
    KERAS_BACKEND=torch python benchmarks/optimizer_speed.py --quick

The weights are those of `benchmarks/bilm_speed.py`'s zoo model (the
recipe's default biLM, 9.9 M weights, most in the 30,000-word softmax),
with fixed random gradients. Timed: `keras.optimizers.Adam.apply`
(Keras's PyTorch Adam: `torch._foreach_*` passes), `zoo.optimizers.Adam
.apply` (PyTorch's fused kernel per variable), and `torch.optim.Adam`'s
`step` over the same shapes, as PyTorch runs it by default on a CPU and
with `fused=True`. Prints milliseconds per step; writes
`benchmarks/results/optimizer_speed_cpu_torch.json`.
"""

import argparse
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402
import numpy as np  # noqa: E402

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from benchmarks import bilm_speed  # noqa: E402
from diagnostics import timing  # noqa: E402

torch = _common.torch


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args(argv)
    if keras.backend.backend() != "torch" or torch is None:
        raise SystemExit(
            "error: run on the PyTorch backend (KERAS_BACKEND=torch), where "
            "the optimizers differ; on TensorFlow and JAX the step is "
            "compiled into the training step"
        )
    shape = dict(bilm_speed.SHAPE)
    if args.quick:
        shape.update(units=32, vocabulary=2000, batch=16)
        args.repeats, args.steps = 2, 2
    shapes = [
        tuple(v.shape) for v in bilm_speed.zoo_model(shape).trainable_variables
    ]
    rng = np.random.default_rng(0)
    grads = [rng.normal(size=s).astype("float32") for s in shapes]

    def keras_step(optimizer):
        variables = [keras.Variable(np.zeros(s, "float32")) for s in shapes]
        tensors = [keras.ops.convert_to_tensor(g) for g in grads]
        optimizer.build(variables)
        return lambda: optimizer.apply(tensors, variables)

    def torch_step(**options):
        weights = [torch.nn.Parameter(torch.zeros(s)) for s in shapes]
        for weight, grad in zip(weights, grads):
            weight.grad = torch.from_numpy(grad)
        optimizer = torch.optim.Adam(weights, lr=1e-3, **options)
        return optimizer.step

    steps = {
        "keras.optimizers.Adam": keras_step(keras.optimizers.Adam(1e-3)),
        "zoo.optimizers.Adam": keras_step(zoo.optimizers.Adam(1e-3)),
        "torch.optim.Adam": torch_step(),
        "torch.optim.Adam(fused=True)": torch_step(fused=True),
    }
    for step in steps.values():  # warm up
        step()
        step()
    samples = timing.round_robin(
        {k: [(f, args.steps)] for k, f in steps.items()}, args.repeats
    )
    ms = {k: 1000 * statistics.median(v[0]) for k, v in samples.items()}
    result = {
        "command": _common.command_line(argv),
        "weights": int(sum(np.prod(s) for s in shapes)),
        "variables": len(shapes),
        "median_step_ms": ms,
        "versions": timing.versions(),
        "threads": torch.get_num_threads(),
    }
    print(result["command"])
    print(f"{result['weights']:,} weights in {len(shapes)} variables")
    print("| optimizer | ms a step |")
    print("|---|---|")
    for key, value in ms.items():
        print(f"| {key} | {value:.1f} |")
    path = _common.default_output("optimizer_speed", args.quick, device="cpu")
    return _common.save_json(path, result)


if __name__ == "__main__":
    main()
