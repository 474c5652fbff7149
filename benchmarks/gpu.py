"""GPU: the zoo's stacks on Keras-JAX and Keras-torch against PyTorch.

One prepared run for a GPU machine that has PyTorch and JAX but no
TensorFlow (the lent H200 machines). On the device machine, in one call
of the device tool (the wrapper installs Keras from carried wheels, runs
this script, tees the log and copies the results into $OUT):

    run(command="bash benchmarks/gpu.sh", carry=[".whl"], timeout_s=590)

Prepared once here beforehand (downloads Keras 3 and the two of its
dependencies that the machine's image lacks, namex and optree, as
Python 3.12 x86-64 wheels into the git-ignored `.whl/`):

    bash benchmarks/gpu.sh prepare

Anywhere else (a GPU box with Keras installed; TensorFlow is never used):

    python benchmarks/gpu.py [--shapes large --cells lstm,gru --layers 1,2,4
                              --precisions fp32,bf16 --repeats 3 ...]
    python benchmarks/gpu.py --quick    # CPU smoke test, tiny shapes

The main process imports no Keras. It measures the matrix-multiply peak
(`torch.mm`, fp32 with TF32 off and bf16) at the start and at the end,
and runs one child process per Keras backend (torch, then jax;
KERAS_BACKEND is fixed at import), each with a timeout (--timeout-s,
default torch=150,jax=270: the whole run stays under about 7.5 minutes;
a child starts no new configuration in its last 40 s, and what it
finished is kept even if it is killed). A child hides TensorFlow from
Keras (as on the GPU machine), then:

1. Equality check (how the GPU-only fast paths are tested): for LSTM
   (and GRU on torch), L = 2 and 3, a `zoo.stacked_rnn` stack with
   randomised weights on a small input, strict fp32: the outputs of the
   fused path, of the per-layer path (`zoo.fused.disabled()`) and of
   `zoo.reference.forward(model, x)["output"]` (NumPy, float64), and the
   gradients (of a random projection of the outputs, with respect to
   every weight and to the input) of the fused and the per-layer path.
   PASS when every output difference is <= --tol-output (1e-4) and every
   gradient difference <= --tol-grad x max(1, max |gradient|), and the
   fused path was taken exactly where it is expected: always on torch,
   for LSTM on JAX GPUs (`zoo.fused.plan(stack, None, None, False,
   "float32")` non-empty, and the backend kernels' `call_run` actually called).
2. Benchmark, per shape, cell (LSTM, GRU), L (1, 2, 4) and precision
   (fp32: strict, no TF32; bf16: mixed precision): training step
   (forward + backward + Adam, lr 1e-3, MSE, a Dense/Linear head per
   step) tokens/s of three contenders, alternated in the child's process
   (order reversed every other round), the median over --repeats rounds
   of one --block of steps each, after --warmup untimed steps:
   - `zoo_fused`: `zoo.stacked_rnn(cell, L, units, input_dim=F)` + Dense,
     `train_on_batch`; the multi-layer path where `zoo.fused` takes it;
   - `zoo_per_layer`: the same model under `zoo.fused.disabled()` (each
     layer through Keras's own LSTM/GRU);
   - `torch_native`: `nn.LSTM` / `nn.GRU(num_layers=L, batch_first=True)`
     + `nn.Linear` (cuDNN on a GPU), fp32 or `torch.autocast(bfloat16)`.
   bf16 for Keras is `keras.mixed_precision.set_global_policy(
   "mixed_bfloat16")` while the model is built. Where `zoo.fused.plan`
   selects no fused run (JAX: GRU, L=1, bfloat16, any CPU), `zoo_fused`
   is the same computation as `zoo_per_layer` and is not timed twice
   (shown as "= per-layer"; --time-duplicates times it anyway).
   Configurations run in the order shape, cell, precision, L, so a
   budget cut drops GRU bf16 first. A contender that fails
   (out of memory, an unsupported dtype such as Keras-JAX's cuDNN LSTM
   under bfloat16) is recorded with its error and shown in the table.

Strict fp32 everywhere: NVIDIA_TF32_OVERRIDE=0 in every process (cuBLAS
and cuDNN use no TF32, whichever library calls them; it does not touch
bf16), `torch.backends.cuda.matmul.allow_tf32 = False`,
`torch.backends.cudnn.allow_tf32 = False`, and on JAX
`jax_default_matmul_precision = "highest"`.

FLOPs as in `benchmarks/peers.py`: one training token costs 3 x sum over
layers of 2 G H (in + H) (G = 4 LSTM, 3 GRU; head, biases and gate
elementwise maths not counted); the achieved TFLOP/s are compared with
the matmul peak at the same precision (median of the start and the end
measurement). Ratios are to `torch_native` measured in the same child
process at the same shape and precision.

Writes `benchmarks/results/gpu_<tag>.json` (everything, with every
sample) and `gpu_<tag>.png`, and prints markdown tables. Exits 1 when an
equality check failed or did not run, after writing everything.
"""

import argparse
import ast
import contextlib
import gc
import json
import os
import pathlib
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from diagnostics import timing  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
BACKENDS = ("torch", "jax")
CONTENDERS = ("zoo_fused", "zoo_per_layer", "torch_native")
PRECISIONS = ("fp32", "bf16")
CELLS = ("lstm", "gru")
# The equality check's input: batch, steps, features, units.
EQUALITY_SHAPE = {"batch": 3, "steps": 7, "features": 5, "units": 8}
EQUALITY_LAYERS = (2, 3)
LABELS = {
    ("torch", "zoo_fused"): "Keras-torch zoo fused",
    ("torch", "zoo_per_layer"): "Keras-torch zoo per-layer",
    ("jax", "zoo_fused"): "Keras-JAX zoo fused",
    ("jax", "zoo_per_layer"): "Keras-JAX zoo per-layer",
    ("torch", "torch_native"): "PyTorch nn.RNN (torch child)",
    ("jax", "torch_native"): "PyTorch nn.RNN (jax child)",
}


def peers_shapes():
    """`benchmarks/peers.py`'s SHAPES, read without importing Keras."""
    tree = ast.parse((ROOT / "benchmarks" / "peers.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", None) == "SHAPES" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    return {}


def split(text, cast=str):
    return [cast(t.strip()) for t in text.split(",") if t.strip()]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--shapes",
        default="large",
        help="shape names of benchmarks/peers.py SHAPES, comma-separated "
        "(default large: batch 128, 200 steps, 512 features, 1024 units)",
    )
    parser.add_argument("--cells", default=",".join(CELLS))
    parser.add_argument("--layers", default="1,2,4")
    parser.add_argument("--precisions", default=",".join(PRECISIONS))
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--contenders", default=",".join(CONTENDERS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--block", type=int, default=3, help="steps/block")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps")
    parser.add_argument(
        "--timeout-s",
        default="torch=150,jax=270",
        help="per child process, one number or per backend (default "
        "torch=150,jax=270); a child starts no new configuration in its "
        "last 40 s",
    )
    parser.add_argument(
        "--time-duplicates",
        action="store_true",
        help="also time zoo_fused where zoo.fused plans no fused run (then "
        "it is the same computation as zoo_per_layer)",
    )
    parser.add_argument("--tol-output", type=float, default=1e-4)
    parser.add_argument("--tol-grad", type=float, default=1e-4)
    parser.add_argument(
        "--skip-equality", action="store_true", help="benchmark only"
    )
    parser.add_argument(
        "--peak-n", type=int, default=None, help="matmul size (8192 GPU)"
    )
    parser.add_argument("--tag", default=None, help="output name suffix")
    parser.add_argument("--output-dir", default="benchmarks/results")
    parser.add_argument(
        "--copy-to", default=None, help="also copy the JSON and PNG here"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke test: tiny shapes, L=1,2, 2 repeats of 2 steps",
    )
    # internal: run as one backend's child process
    parser.add_argument("--child", choices=BACKENDS, help=argparse.SUPPRESS)
    parser.add_argument("--child-output", help=argparse.SUPPRESS)
    parser.add_argument("--budget-s", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    timeouts = {}
    for part in split(args.timeout_s):
        backend, _, value = part.rpartition("=")
        for name in [backend] if backend else BACKENDS:
            timeouts[name] = float(value)
    args.timeout_s = {b: timeouts.get(b, 270.0) for b in BACKENDS}
    if args.quick:
        args.shapes, args.layers = "tiny", "1,2"
        args.repeats, args.block, args.warmup = 2, 2, 2
        args.timeout_s = {b: min(t, 150.0) for b, t in args.timeout_s.items()}
    args.shapes = split(args.shapes)
    args.cells = split(args.cells)
    args.layers = split(args.layers, int)
    args.precisions = split(args.precisions)
    args.backends = split(args.backends)
    args.contenders = split(args.contenders)
    for name, given, allowed in (
        ("shape", args.shapes, tuple(peers_shapes())),
        ("cell", args.cells, CELLS),
        ("precision", args.precisions, PRECISIONS),
        ("backend", args.backends, BACKENDS),
        ("contender", args.contenders, CONTENDERS),
    ):
        for value in given:
            if value not in allowed:
                parser.error(f"unknown {name} {value!r}; choose {allowed}")
    return args


def describe(error):
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # Keras's bold
    text = " ".join(text.split())
    return f"{type(error).__name__}: {text[:400]}"


# ------------------------------------------------------------------ child


class Child:
    """One Keras backend's process: the equality check, then benchmarks."""

    def __init__(self, args):
        self.args = args
        self.backend = args.child
        self.start = time.perf_counter()
        self.out = {
            "backend": self.backend,
            "equality": [],
            "results": [],
            "skipped": [],
        }
        self.fused_calls = 0

    def log(self, *parts):
        print(f"[{self.backend}]", *parts, flush=True)

    def write(self):
        self.out["wall_s"] = time.perf_counter() - self.start
        path = pathlib.Path(self.args.child_output)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.out, indent=1, default=str))
        tmp.replace(path)

    # -- setup

    def setup(self):
        # The GPU machine has no TensorFlow; hide this one's so Keras takes
        # the same TensorFlow-free paths here (None: "import fails").
        if "tensorflow" not in sys.modules:
            sys.modules["tensorflow"] = None
        if os.environ.get("KERAS_BACKEND") != self.backend:
            raise SystemExit(
                f"child for {self.backend} started with KERAS_BACKEND="
                f"{os.environ.get('KERAS_BACKEND')!r}"
            )
        if self.backend == "jax":
            import jax

            jax.config.update("jax_default_matmul_precision", "highest")
            self.jax = jax
        import keras
        import numpy as np
        import torch

        import zoo
        import zoo.fused
        from benchmarks import peers

        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        self.keras, self.np, self.torch = keras, np, torch
        self.zoo, self.peers = zoo, peers

        # Count calls of the multi-layer kernel (at trace time on JAX):
        # the active backend's `Kernels.call_run`, which stacks call.
        kernels = zoo.kernels.dispatch.active()
        original = kernels.call_run

        def counted(*args, **kwargs):
            self.fused_calls += 1
            return original(*args, **kwargs)

        kernels.call_run = counted

        self.torch_device = "cuda" if torch.cuda.is_available() else "cpu"
        if self.backend == "jax":
            devices = self.jax.devices()
            self.on_gpu = any(d.platform == "gpu" for d in devices)
            keras_device = f"{devices[0].platform}: {devices[0].device_kind}"
        else:
            self.on_gpu = torch.cuda.is_available()
            keras_device = (
                torch.cuda.get_device_name(0) if self.on_gpu else "cpu"
            )
        versions = peers.versions()
        if self.backend == "jax":
            import jaxlib

            versions["jaxlib"] = jaxlib.__version__
        versions["cuda (torch)"] = torch.version.cuda
        versions["cudnn (torch)"] = (
            torch.backends.cudnn.version() if self.on_gpu else None
        )
        self.out.update(
            machine=timing.machine_info(),
            versions=versions,
            keras_device=keras_device,
            shapes={s: peers.SHAPES[s] for s in self.args.shapes},
            torch_device=self.torch_device,
            on_gpu=self.on_gpu,
            precision_settings={
                "NVIDIA_TF32_OVERRIDE": os.environ.get("NVIDIA_TF32_OVERRIDE"),
                "torch.backends.cuda.matmul.allow_tf32": (
                    torch.backends.cuda.matmul.allow_tf32
                ),
                "torch.backends.cudnn.allow_tf32": (
                    torch.backends.cudnn.allow_tf32
                ),
                "jax_default_matmul_precision": (
                    str(self.jax.config.jax_default_matmul_precision)
                    if self.backend == "jax"
                    else None
                ),
                "tensorflow_hidden": sys.modules.get("tensorflow") is None,
            },
        )
        self.log(
            f"Keras {keras.__version__} on {keras_device}; torch "
            f"{torch.__version__} on {self.torch_device}"
        )
        self.write()

    # -- equality check

    def outputs_and_grads(self, model, x, w):
        np, keras = self.np, self.keras
        if self.backend == "jax":
            jnp = self.jax.numpy
            trainable = [v.value for v in model.trainable_variables]
            fixed = [v.value for v in model.non_trainable_variables]

            def loss(trainable, x):
                y, _ = model.stateless_call(trainable, fixed, x, training=False)
                return jnp.sum(y * w), y

            (_, y), (g_weights, g_x) = self.jax.value_and_grad(
                loss, argnums=(0, 1), has_aux=True
            )(trainable, jnp.asarray(x))
            grads = [*g_weights, g_x]
        else:
            torch = self.torch
            xt = keras.ops.convert_to_tensor(x).detach().requires_grad_(True)
            y = model(xt, training=False)
            loss = (y * torch.as_tensor(w, device=y.device)).sum()
            params = [v.value for v in model.trainable_variables]
            grads = torch.autograd.grad(loss, [*params, xt])
        y = keras.ops.convert_to_numpy(y)
        grads = [np.asarray(keras.ops.convert_to_numpy(g)) for g in grads]
        return np.asarray(y, dtype="float64"), grads

    def equality_case(self, cell, layers):
        np, keras, zoo = self.np, self.keras, self.zoo
        s = EQUALITY_SHAPE
        rng = np.random.default_rng(100 + 10 * layers + len(cell))
        keras.mixed_precision.set_global_policy("float32")
        model = zoo.stacked_rnn(
            cell, layers, s["units"], input_dim=s["features"]
        )
        model.set_weights(
            [
                rng.normal(scale=0.4, size=w.shape).astype("float32")
                for w in model.get_weights()
            ]
        )
        (stack,) = [
            layer for layer in model.layers if isinstance(layer, zoo.StackedRNN)
        ]
        planned = zoo.fused.plan(stack, None, None, False, "float32")
        if isinstance(planned, tuple):  # newer zoo: (runs, lengths)
            planned = planned[0]
        expected = self.backend == "torch" or (
            cell == "lstm" and self.on_gpu and layers >= 2
        )
        x = rng.normal(size=(s["batch"], s["steps"], s["features"]))
        x = x.astype("float32")
        w = rng.normal(size=(s["batch"], s["steps"], s["units"]))
        w = w.astype("float32")
        self.fused_calls = 0
        y_fused, g_fused = self.outputs_and_grads(model, x, w)
        calls = self.fused_calls
        with zoo.fused.disabled():
            y_plain, g_plain = self.outputs_and_grads(model, x, w)
        ref = np.asarray(zoo.reference.forward(model, x)["output"])

        def gap(a, b):
            return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))

        grad_scale = max(
            [1.0] + [float(np.max(np.abs(g))) for g in g_plain if g.size]
        )
        grad_gap = max(gap(a, b) for a, b in zip(g_fused, g_plain))
        row = {
            "cell": cell,
            "layers": layers,
            "shape": s,
            "fused_expected": expected,
            "fused_planned": {str(k): v for k, v in planned.items()},
            "fused_calls": calls,
            "out_fused_vs_reference": gap(y_fused, ref),
            "out_per_layer_vs_reference": gap(y_plain, ref),
            "out_fused_vs_per_layer": gap(y_fused, y_plain),
            "grad_fused_vs_per_layer": grad_gap,
            "grad_scale": grad_scale,
            "n_grads": len(g_fused),
        }
        taken = bool(planned) and calls > 0
        problems = []
        for key in (
            "out_fused_vs_reference",
            "out_per_layer_vs_reference",
            "out_fused_vs_per_layer",
        ):
            if not row[key] <= self.args.tol_output:
                problems.append(f"{key} {row[key]:.2e}")
        if not grad_gap <= self.args.tol_grad * grad_scale:
            problems.append(f"gradients {grad_gap:.2e}")
        if taken != expected:
            problems.append(
                f"fused path {'taken' if taken else 'not taken'}, expected "
                f"{'taken' if expected else 'not taken'}"
            )
        row["fused_taken"] = taken
        row["status"] = "FAIL" if problems else "PASS"
        row["problems"] = problems
        return row

    def equality(self):
        cells = ["lstm", "gru"] if self.backend == "torch" else ["lstm"]
        for cell in cells:
            for layers in EQUALITY_LAYERS:
                try:
                    row = self.equality_case(cell, layers)
                except Exception as error:
                    traceback.print_exc()
                    row = {
                        "cell": cell,
                        "layers": layers,
                        "status": "FAIL",
                        "problems": [describe(error)],
                    }
                self.out["equality"].append(row)
                self.log(
                    f"equality {cell} L={layers}: {row['status']}",
                    "; ".join(row["problems"]),
                )
                self.write()
        self.keras.backend.clear_session()

    # -- benchmark

    def make(self, name, cell, layers, shape, precision, data):
        keras, peers, zoo = self.keras, self.peers, self.zoo
        if name == "torch_native":
            return NativeContender(
                peers, cell, layers, shape, data, self.torch_device, precision
            )
        policy = "mixed_bfloat16" if precision == "bf16" else "float32"
        keras.mixed_precision.set_global_policy(policy)
        try:
            model = peers.build_zoo(cell, layers, shape)
            contender = peers.KerasContender(model, data)
        finally:
            keras.mixed_precision.set_global_policy("float32")
        if name == "zoo_per_layer":
            return Disabled(contender, zoo.fused.disabled)
        return contender

    def planned(self, model):
        """The fused runs `zoo.fused.plan` selects for a training call."""
        stacks, todo = [], list(model.layers)
        while todo:
            layer = todo.pop()
            if isinstance(layer, self.zoo.StackedRNN):
                stacks.append(layer)
            else:
                todo.extend(getattr(layer, "layers", []))
        runs = {}
        for stack in stacks:
            found = self.zoo.fused.plan(
                stack, None, None, True, stack.compute_dtype
            )
            runs.update(found[0] if isinstance(found, tuple) else found)
        return runs

    def release(self):
        gc.collect()
        if self.torch.cuda.is_available():
            self.torch.cuda.empty_cache()

    def bench(self, shape_name, cell, layers, precision):
        np, peers = self.np, self.peers
        args = self.args
        shape = peers.SHAPES[shape_name]
        b, t, f = shape["batch"], shape["steps"], shape["features"]
        rng = np.random.default_rng(0)
        data = (
            rng.normal(size=(b, t, f)).astype("float32"),
            rng.normal(size=(b, t, f)).astype("float32"),
            rng.normal(size=(1, t, f)).astype("float32"),
        )
        self.keras.utils.set_random_seed(0)
        self.torch.manual_seed(0)
        built, info, contender = {}, {}, None
        for name in args.contenders:
            info[name] = {"error": None}
            try:
                contender = self.make(
                    name, cell, layers, shape, precision, data
                )
                if (
                    name == "zoo_fused"
                    and "zoo_per_layer" in args.contenders
                    and not args.time_duplicates
                    and not self.planned(contender.model)
                ):
                    info[name].update(
                        same_as="zoo_per_layer",
                        path="= zoo_per_layer (no fused run planned here; "
                        "not timed twice)",
                    )
                    contender = None
                    continue
                self.fused_calls = 0
                setup = time.perf_counter()
                for _ in range(args.warmup):
                    contender.train_step()
                info[name]["warmup_s"] = time.perf_counter() - setup
                info[name]["params"] = contender.count_params()
                if name != "torch_native":
                    info[name]["fused_calls_in_warmup"] = self.fused_calls
                    info[name]["path"] = (
                        "fused multi-layer" if self.fused_calls else "per-layer"
                    )
                else:
                    info[name]["path"] = (
                        f"nn.{cell.upper()}(num_layers={layers})"
                        + (" autocast" if precision == "bf16" else "")
                    )
                built[name] = contender
            except Exception as error:
                info[name]["error"] = describe(error)
                self.log(f"  {name} failed: {info[name]['error'][:200]}")
                contender = None
                self.release()
        samples = {name: [] for name in built}
        for round_index in range(args.repeats):
            names = list(built)
            if round_index % 2:
                names.reverse()
            for name in names:
                if info[name]["error"]:
                    continue
                try:
                    samples[name].append(
                        timing.timed_block(built[name].train_step, args.block)
                    )
                except Exception as error:
                    info[name]["error"] = describe(error)
                    self.log(f"  {name} failed: {info[name]['error'][:200]}")
        train_flops = 3 * peers.flops_per_token(cell, layers, f, shape["units"])
        rows = []
        native = None
        for name in args.contenders:
            row = {
                "backend": self.backend,
                "contender": name,
                "shape": shape_name,
                "cell": cell,
                "layers": layers,
                "precision": precision,
                "train_flops_per_token": train_flops,
                "samples": samples.get(name, []),
                **info[name],
            }
            if row["samples"] and not row["error"]:
                step = statistics.median(row["samples"])
                row["step_ms"] = step * 1e3
                row["tokens_per_s"] = b * t / step
            if name == "torch_native":
                native = row.get("tokens_per_s")
            rows.append(row)
        for row in rows:
            if native and row.get("tokens_per_s"):
                row["ratio_to_torch_native"] = row["tokens_per_s"] / native
        del built, contender
        self.keras.backend.clear_session()
        self.release()
        return rows

    def run(self):
        self.setup()
        if not self.args.skip_equality:
            self.equality()
        args = self.args
        configs = [
            (shape, cell, precision, layers)
            for shape in args.shapes
            for cell in args.cells
            for precision in args.precisions
            for layers in args.layers
        ]
        for shape, cell, precision, layers in configs:
            label = f"{shape} {cell} L={layers} {precision}"
            elapsed = time.perf_counter() - self.start
            if args.budget_s and elapsed > args.budget_s:
                self.out["skipped"].append(label)
                self.log(f"{label}: skipped (time budget)")
                continue
            rows = self.bench(shape, cell, layers, precision)
            self.out["results"].extend(rows)
            self.log(
                f"{label}: "
                + ", ".join(
                    f"{r['contender']} "
                    + (
                        f"{r['tokens_per_s']:,.0f} tok/s"
                        if r.get("tokens_per_s")
                        else "= per-layer"
                        if r.get("same_as")
                        else "error"
                    )
                    for r in rows
                )
                + f" ({time.perf_counter() - self.start:.0f} s)"
            )
            self.write()
        self.out["done"] = True
        self.write()


class Disabled:
    """A contender whose calls run under `zoo.fused.disabled()`."""

    def __init__(self, contender, disabled):
        self.contender, self.disabled = contender, disabled

    def train_step(self):
        with self.disabled():
            self.contender.train_step()

    def count_params(self):
        return self.contender.count_params()


class NativeContender:
    """peers.TorchContender, in fp32 or under torch.autocast(bfloat16)."""

    def __init__(self, peers, cell, layers, shape, data, device, precision):
        import torch

        self.inner = peers.TorchContender(cell, layers, shape, data, device)
        self.autocast = (
            torch.autocast(device_type=device, dtype=torch.bfloat16)
            if precision == "bf16"
            else None
        )
        self.torch = torch

    def train_step(self):
        inner = self.inner
        inner.optimizer.zero_grad(set_to_none=True)
        context = self.autocast or contextlib.nullcontext()
        with context:
            loss = self.torch.nn.functional.mse_loss(
                inner.forward(inner.x), inner.y
            )
        loss.backward()
        inner.optimizer.step()
        loss.item()

    def count_params(self):
        return self.inner.count_params()


# ------------------------------------------------------------ orchestrator


def matmul_peaks(n=None, calls=10):
    """FLOP/s of n x n `torch.mm`, fp32 with TF32 off and bf16 (medians)."""
    try:
        import torch
    except ImportError:
        return {}, "PyTorch is not installed"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    n = n or (8192 if device == "cuda" else 1024)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    peaks = {}
    for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        a = torch.randn(n, n, device=device, dtype=dtype)
        b = torch.randn(n, n, device=device, dtype=dtype)
        for _ in range(3):
            torch.mm(a, b)
        sync()
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            torch.mm(a, b)
            sync()
            times.append(time.perf_counter() - start)
        peaks[name] = 2 * n**3 / statistics.median(times)
        del a, b
    if device == "cuda":
        torch.cuda.empty_cache()
        where = torch.cuda.get_device_name(0)
    else:
        where = f"cpu, {torch.get_num_threads()} threads"
    return peaks, f"torch.mm {n}x{n} on {where}, median of {calls}"


def gpu_info():
    info = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
    }
    try:
        import torch

        info["torch"] = torch.__version__
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            info.update(
                gpu=props.name,
                gpu_memory_gib=round(props.total_memory / 2**30, 1),
                multiprocessors=props.multi_processor_count,
                compute_capability=f"{props.major}.{props.minor}",
                cuda=torch.version.cuda,
                cudnn=torch.backends.cudnn.version(),
            )
    except ImportError:
        pass
    try:
        smi = subprocess.run(
            [
                "nvidia-smi",
                "--query-gpu=name,driver_version,clocks.max.sm",
                "--format=csv,noheader",
            ],
            capture_output=True,
            text=True,
            timeout=20,
        )
        if smi.returncode == 0:
            info["nvidia_smi"] = smi.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def child_argv(args, backend, output, budget):
    argv = [
        sys.executable,
        str(pathlib.Path(__file__).resolve()),
        "--child",
        backend,
        "--child-output",
        str(output),
        "--budget-s",
        f"{budget:.0f}",
        "--shapes",
        ",".join(args.shapes),
        "--cells",
        ",".join(args.cells),
        "--layers",
        ",".join(map(str, args.layers)),
        "--precisions",
        ",".join(args.precisions),
        "--contenders",
        ",".join(args.contenders),
        "--repeats",
        str(args.repeats),
        "--block",
        str(args.block),
        "--warmup",
        str(args.warmup),
        "--tol-output",
        str(args.tol_output),
        "--tol-grad",
        str(args.tol_grad),
    ]
    if args.skip_equality:
        argv.append("--skip-equality")
    if args.time_duplicates:
        argv.append("--time-duplicates")
    return argv


def run_child(args, backend, workdir):
    output = pathlib.Path(workdir) / f"{backend}.json"
    env = dict(os.environ)
    env.update(
        KERAS_BACKEND=backend,
        NVIDIA_TF32_OVERRIDE="0",
        PYTHONUNBUFFERED="1",
        TF_CPP_MIN_LOG_LEVEL="2",
    )
    if backend == "jax":
        # leave GPU memory to the PyTorch contender in the same process
        env.setdefault("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.5")
    timeout = args.timeout_s[backend]
    budget = max(timeout - 40, timeout / 2)
    argv = child_argv(args, backend, output, budget)
    print(f"\n=== child: KERAS_BACKEND={backend} (timeout {timeout:.0f} s)")
    sys.stdout.flush()
    start = time.perf_counter()
    status = {"backend": backend}
    try:
        proc = subprocess.run(argv, env=env, cwd=ROOT, timeout=timeout)
        status["returncode"] = proc.returncode
        status["timed_out"] = False
    except subprocess.TimeoutExpired:
        status["returncode"] = None
        status["timed_out"] = True
        print(f"=== child {backend}: killed after {timeout:.0f} s")
    wall = time.perf_counter() - start
    try:
        status.update(json.loads(output.read_text()))
    except (OSError, ValueError) as error:
        status["error"] = f"no results from the child: {describe(error)}"
    status["child_wall_s"] = status.pop("wall_s", None)  # its last write
    status["wall_s"] = wall
    return status


def fmt_rate(value):
    if value >= 1e6:
        return f"{value / 1e6:.3f}M"
    if value >= 1e3:
        return f"{value / 1e3:.1f}k"
    return f"{value:.0f}"


def short_error(text):
    text = text or ""
    if "Unknown output type" in text:
        return "error: cuDNN dtype (" + text.split(":")[0] + ")"
    if "out of memory" in text.lower() or "RESOURCE_EXHAUSTED" in text:
        return "error: OOM"
    return "error: " + re.sub(r"[|\n]", " ", text)[:60]


def tables(rows, equality, args):
    lines = []
    cols = [
        (b, c)
        for b in args.backends
        for c in ("zoo_fused", "zoo_per_layer")
        if c in args.contenders
    ]
    natives = [b for b in args.backends if "torch_native" in args.contenders]
    head = ["shape", "cell", "L", "precision"]
    head += [f"PyTorch fused ({b} child)" for b in natives]
    head += [LABELS[col] for col in cols]
    lines += [
        "tokens/s, training step; in brackets the ratio to PyTorch's fused "
        "nn.LSTM/GRU(num_layers=L) in the same child process, same "
        "precision; '= per-layer': zoo.fused plans no fused run there, so "
        "zoo_fused is zoo_per_layer:",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    index = {}
    for r in rows:
        key = (r["shape"], r["cell"], r["layers"], r["precision"])
        index[(r["backend"], r["contender"], *key)] = r
    keys = sorted(
        {(r["shape"], r["cell"], r["layers"], r["precision"]) for r in rows},
        key=lambda k: (
            k[0],
            CELLS.index(k[1]),
            PRECISIONS.index(k[3]),
            k[2],
        ),
    )

    def cell_text(r, ratio=True):
        if r is None:
            return "—"
        if r.get("same_as") == "zoo_per_layer":
            return "= per-layer"
        if r.get("tokens_per_s"):
            text = fmt_rate(r["tokens_per_s"])
            if ratio and r.get("ratio_to_torch_native"):
                text += f" ({r['ratio_to_torch_native']:.2f}×)"
            return text
        return short_error(r.get("error")) if r.get("error") else "no data"

    for key in keys:
        cells = [str(key[0]), key[1], str(key[2]), key[3]]
        cells += [
            cell_text(index.get((b, "torch_native", *key)), ratio=False)
            for b in natives
        ]
        cells += [cell_text(index.get((b, c, *key))) for b, c in cols]
        lines.append("| " + " | ".join(cells) + " |")

    lines += [
        "",
        "every contender (TFLOP/s and % of the matmul peak at that precision):",
        "",
        "| child | contender | shape | cell | L | precision | step ms "
        "| tokens/s | TFLOP/s | % peak | path | vs PyTorch | error |",
        "|" + "---|" * 13,
    ]
    for key in keys:
        for b in args.backends:
            for c in args.contenders:
                r = index.get((b, c, *key))
                if r is None:
                    continue
                rate = r.get("tokens_per_s")
                lines.append(
                    "| "
                    + " | ".join(
                        [
                            b,
                            c,
                            r["shape"],
                            r["cell"],
                            str(r["layers"]),
                            r["precision"],
                            f"{r['step_ms']:.1f}" if rate else "",
                            fmt_rate(rate) if rate else "",
                            f"{r['tflops']:.2f}" if r.get("tflops") else "",
                            f"{r['pct_of_peak']:.0f}%"
                            if r.get("pct_of_peak") is not None
                            else "",
                            r.get("path", ""),
                            f"{r['ratio_to_torch_native']:.2f}"
                            if r.get("ratio_to_torch_native")
                            else "",
                            short_error(r["error"]) if r.get("error") else "",
                        ]
                    )
                    + " |"
                )

    lines += [
        "",
        f"equality check (strict fp32, input {EQUALITY_SHAPE}; tolerances: "
        f"outputs {args.tol_output:g}, gradients {args.tol_grad:g} x "
        "max(1, max|grad|)):",
        "",
        "| child | cell | L | fused expected | fused taken (planned, calls) "
        "| out fused−ref | out per-layer−ref | out fused−per-layer "
        "| grad fused−per-layer (scale) | result |",
        "|" + "---|" * 10,
    ]
    for e in equality:
        if "fused_expected" not in e:
            lines.append(
                f"| {e['backend']} | {e.get('cell', '')} | "
                f"{e.get('layers', '')} | | | | | | | **FAIL** "
                f"{'; '.join(e.get('problems', []))} |"
            )
            continue
        lines.append(
            f"| {e['backend']} | {e['cell']} | {e['layers']} "
            f"| {e['fused_expected']} | {e['fused_taken']} "
            f"({e['fused_planned'] or '{}'}, {e['fused_calls']}) "
            f"| {e['out_fused_vs_reference']:.1e} "
            f"| {e['out_per_layer_vs_reference']:.1e} "
            f"| {e['out_fused_vs_per_layer']:.1e} "
            f"| {e['grad_fused_vs_per_layer']:.1e} ({e['grad_scale']:.1f}) "
            f"| **{e['status']}** {'; '.join(e['problems'])} |"
        )
    return "\n".join(lines)


def plot(rows, args, path, title):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot written")
        return None
    panels = [
        (s, c, p)
        for s in args.shapes
        for c in args.cells
        for p in args.precisions
    ]
    ncols = len(args.precisions)
    nrows = (len(panels) + ncols - 1) // ncols
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(5.2 * ncols, 3.9 * nrows), squeeze=False
    )
    for ax, (shape, cell, precision) in zip(axes.flat, panels):
        for (backend, contender), label in LABELS.items():
            points = sorted(
                (r["layers"], r["tokens_per_s"])
                for r in rows
                if (r["backend"], r["contender"]) == (backend, contender)
                and (r["shape"], r["cell"], r["precision"])
                == (shape, cell, precision)
                and r.get("tokens_per_s")
            )
            if not points:
                continue
            if contender == "torch_native":
                label = label.replace("RNN", cell.upper())
            xs, ys = zip(*points)
            style = "--" if contender == "torch_native" else "-"
            ax.plot(xs, ys, style, marker="o", label=label)
        ax.set_title(f"{cell} {precision} ({shape})")
        ax.set_xlabel("layers L")
        ax.set_xticks(args.layers)
        ax.set_ylabel("training tokens/s")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_lines():
            ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "gpu"


def orchestrate(args, argv):
    os.environ["NVIDIA_TF32_OVERRIDE"] = "0"
    begin = time.perf_counter()
    command = "python " + " ".join(
        ["benchmarks/gpu.py", *(sys.argv[1:] if argv is None else argv)]
    )
    machine = gpu_info()
    print("command:", command)
    print("machine:", json.dumps(machine))
    peaks_start, peak_source = matmul_peaks(args.peak_n)
    print(
        "matmul peak (start): "
        + ", ".join(
            f"{k} {v / 1e12:.2f} TFLOP/s" for k, v in peaks_start.items()
        )
        + f"; {peak_source}",
        flush=True,
    )
    on_gpu = "gpu" in machine
    tag = args.tag or (
        ("quick_" if args.quick else "")
        + (slug(machine["gpu"]) if on_gpu else "cpu")
    )

    children = {}
    with tempfile.TemporaryDirectory(prefix="zoo_gpu_") as workdir:
        for backend in args.backends:
            children[backend] = run_child(args, backend, workdir)

    peaks_end, _ = matmul_peaks(args.peak_n)
    peaks = {
        k: statistics.median([peaks_start[k], peaks_end[k]]) for k in peaks_end
    }
    print(
        "\nmatmul peak (end): "
        + ", ".join(f"{k} {v / 1e12:.2f} TFLOP/s" for k, v in peaks_end.items())
    )

    rows, equality = [], []
    for backend, child in children.items():
        for row in child.get("results", []):
            rate = row.get("tokens_per_s")
            if rate:
                row["tflops"] = row["train_flops_per_token"] * rate / 1e12
                peak = peaks.get(row["precision"])
                if peak:
                    row["pct_of_peak"] = (
                        100 * row["train_flops_per_token"] * rate / peak
                    )
            rows.append(row)
        if not args.skip_equality:
            got = child.get("equality", [])
            for e in got:
                e["backend"] = backend
            if not got:
                why = child.get("error") or (
                    "timed out" if child.get("timed_out") else "did not run"
                )
                got = [
                    {"backend": backend, "status": "FAIL", "problems": [why]}
                ]
            equality += got
    all_pass = all(e["status"] == "PASS" for e in equality)

    text = tables(rows, equality, args)
    print("\n" + text + "\n")
    for backend, child in children.items():
        extra = []
        if child.get("timed_out"):
            extra.append("TIMED OUT")
        if child.get("returncode") not in (0, None):
            extra.append(f"exit code {child['returncode']}")
        if child.get("skipped"):
            extra.append(f"skipped (time budget): {child['skipped']}")
        if child.get("error"):
            extra.append(child["error"])
        versions = child.get("versions", {})
        print(
            f"child {backend}: {child.get('wall_s', 0):.0f} s, "
            f"Keras device {child.get('keras_device')}, versions "
            f"{json.dumps(versions)}"
            + (f"; {'; '.join(extra)}" if extra else "")
        )

    out_dir = pathlib.Path(args.output_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"gpu_{tag}.json"
    first = next(iter(children.values()), {})
    shapes = {}
    for child in children.values():
        shapes = shapes or child.get("shapes", {})
    title = (
        f"{machine.get('gpu', 'CPU')}; shapes {shapes}; Keras "
        f"{first.get('versions', {}).get('keras')}; train step tokens/s"
    )
    try:
        png = plot(rows, args, path.with_suffix(".png"), title)
    except Exception as error:  # a plot must not lose the results
        print(f"plot failed: {describe(error)}")
        png = None
    output = {
        "command": command,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": machine,
        "config": {
            k: v
            for k, v in vars(args).items()
            if k not in ("child", "child_output", "budget_s")
        },
        "shapes": shapes,
        "flops_note": "per training token 3 x sum_layers 2 G H (in + H); "
        "head, biases and elementwise maths excluded",
        "matmul_peak_flops": {
            "start": peaks_start,
            "end": peaks_end,
            "used": peaks,
            "source": peak_source,
            "note": "fp32 with TF32 off (NVIDIA_TF32_OVERRIDE=0, "
            "allow_tf32=False); bf16 torch.mm",
        },
        "equality_all_pass": all_pass,
        "equality": equality,
        "results": rows,
        "children": {
            b: {k: v for k, v in c.items() if k not in ("results", "equality")}
            for b, c in children.items()
        },
        "tables_markdown": text,
        "plot": png,
        "wall_s": time.perf_counter() - begin,
    }
    path.write_text(json.dumps(output, indent=2, default=str) + "\n")
    written = [path] + ([pathlib.Path(png)] if png else [])
    print("wrote " + " and ".join(map(str, written)))
    if args.copy_to:
        target = pathlib.Path(args.copy_to)
        target.mkdir(parents=True, exist_ok=True)
        for file in written:
            if file.resolve().parent != target.resolve():
                shutil.copy(file, target / file.name)
        print(f"copied to {target}")
    print(
        f"equality checks: {'all PASS' if all_pass else 'FAILED'}; "
        f"total {time.perf_counter() - begin:.0f} s"
    )
    return 0 if all_pass else 1


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        Child(args).run()
        return 0
    return orchestrate(args, argv)


if __name__ == "__main__":
    sys.exit(main())
