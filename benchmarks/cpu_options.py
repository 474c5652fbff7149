"""CPU kernels tried for the LSTM on TensorFlow, measured side by side.

    python benchmarks/cpu_options.py [--layers 2 --repeats 7 --output ...]
    python benchmarks/cpu_options.py --quick   # smoke test: tiny shapes

Keras 3 has no fused CPU kernel for LSTM: every backend runs its generic
time loop around `LSTMCell` (per step `x_t W + h U`). Issue 7 asked which
CPU option closes the gap to PyTorch's `nn.LSTM` on TensorFlow. This
script times each option that was tried on the same stack (default: 2
LSTM layers, batch 64, 100 steps, 128 features, 256 units, a Dense head
per step, MSE, Adam, `train_on_batch`), with the same weights, after
checking that each option's outputs equal Keras's (max |difference|
printed):

- `keras`: `keras.layers.LSTM` as is (the zoo's path on TensorFlow);
- `xla`: the same model compiled with `jit_compile=True`;
- `block_lstm`: TensorFlow's fused CPU op `tf.raw_ops.BlockLSTMV2` (one op
  for the whole sequence, gate order i, f, c, o like Keras, its own
  gradient kernel);
- `hoisted`: the input projection of the whole sequence as one matmul
  before a `tf.while_loop` over `h U`, differentiated by TensorFlow;
- `custom_grad`: the same loop with a hand-written backward pass: one
  loop for `dh`, then the weight gradients for all timesteps as three big
  matmuls (what cuDNN does), via `tf.custom_gradient`;
- `torch`: PyTorch's `nn.LSTM(num_layers=L)` + `nn.Linear`, for reference
  (skipped if PyTorch is not installed).

Rounds alternate the contenders (order reversed every other round); a
sample is the mean of a block of train steps, reported is the median over
rounds, all in one process. These kernels live here, not in the library:
none beat Keras's own loop by enough to keep (see benchmarks/README.md).
TensorFlow backend only.
"""

import argparse
import json
import os
import pathlib
import statistics
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks import _common  # noqa: E402
from benchmarks._common import versions  # noqa: E402
from benchmarks.peers import TorchContender  # noqa: E402
from benchmarks.peers import flops_per_token  # noqa: E402
from diagnostics import timing  # noqa: E402
from diagnostics.timing import machine_info  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - optional
    torch = None

SHAPES = {
    "small": dict(batch=64, steps=100, features=128, units=256),
    "quick": dict(batch=8, steps=12, features=16, units=32),
}
CONTENDERS = ("keras", "xla", "block_lstm", "hoisted", "custom_grad", "torch")


def _tf():
    import tensorflow as tf

    return tf


def _gates(z):
    tf = _tf()
    i, f, g, o = tf.split(z, 4, axis=-1)
    return tf.sigmoid(i), tf.sigmoid(f), tf.tanh(g), tf.sigmoid(o)


def _loop(step, carry, xs, n, reverse=False, outputs=1):
    """A tf.while_loop over time reading/writing TensorArrays."""
    tf = _tf()
    read = [tf.TensorArray(x.dtype, size=n).unstack(x) for x in xs]
    write = [tf.TensorArray(tf.float32, size=n) for _ in range(outputs)]

    def body(t, carry, write):
        carry, ys = step(carry, [r.read(t) for r in read])
        write = [w.write(t, y) for w, y in zip(write, ys)]
        return (t - 1 if reverse else t + 1), carry, write

    def cond(t, *_):
        return t >= 0 if reverse else t < n

    start = n - 1 if reverse else 0
    _, carry, write = tf.while_loop(cond, body, (start, carry, write))
    return carry, [w.stack() for w in write]


def _forward(x, kernel, recurrent_kernel, bias, keep=False):
    """The input projection as one matmul, then a `tf.while_loop` over
    `h U`. Returns h (T, B, H) for time-major x (T, B, F); with `keep`,
    also the cell states and the gate activations BPTT needs."""
    tf = _tf()
    steps, batch = tf.shape(x)[0], tf.shape(x)[1]
    units = tf.shape(recurrent_kernel)[0]
    projected = tf.reshape(
        tf.matmul(tf.reshape(x, (-1, tf.shape(x)[2])), kernel) + bias,
        (steps, batch, 4 * units),
    )
    zeros = tf.zeros((batch, units))

    def step(carry, inputs):
        h, c = carry
        i, f, g, o = _gates(inputs[0] + tf.matmul(h, recurrent_kernel))
        c = f * c + i * g
        h = o * tf.tanh(c)
        saved = (h, c, tf.concat([i, f, g, o], -1)) if keep else (h,)
        return (h, c), saved

    outputs = 3 if keep else 1
    _, saved = _loop(step, (zeros, zeros), [projected], steps, outputs=outputs)
    return saved if keep else saved[0]


def hoisted_lstm(x, kernel, recurrent_kernel, bias):
    """`_forward`, differentiated by TensorFlow."""
    return _forward(x, kernel, recurrent_kernel, bias)


def custom_grad_lstm(x, kernel, recurrent_kernel, bias):
    """As `hoisted_lstm`, with BPTT written out and batched weight grads."""
    tf = _tf()

    @tf.custom_gradient
    def run(x, kernel, recurrent_kernel, bias):
        hs, cs, acts = _forward(x, kernel, recurrent_kernel, bias, keep=True)
        steps, batch = tf.shape(x)[0], tf.shape(x)[1]
        units = tf.shape(recurrent_kernel)[0]
        flat_x = tf.reshape(x, (-1, tf.shape(x)[2]))
        zeros = tf.zeros((batch, units))

        def grad(upstream):
            h_prev = tf.concat([zeros[None], hs[:-1]], 0)
            c_prev = tf.concat([zeros[None], cs[:-1]], 0)

            def back(carry, inputs):
                dh_next, dc_next = carry
                dh_out, a, c, cp = inputs
                dh = dh_out + dh_next
                i, f, g, o = tf.split(a, 4, axis=-1)
                tc = tf.tanh(c)
                dc = dc_next + dh * o * (1 - tc * tc)
                dz = tf.concat(
                    [
                        dc * g * i * (1 - i),
                        dc * cp * f * (1 - f),
                        dc * i * (1 - g * g),
                        dh * tc * o * (1 - o),
                    ],
                    -1,
                )
                dh_prev = tf.matmul(dz, recurrent_kernel, transpose_b=True)
                return (dh_prev, dc * f), (dz,)

            _, (dzs,) = _loop(
                back,
                (zeros, zeros),
                [upstream, acts, cs, c_prev],
                steps,
                reverse=True,
            )
            dz = tf.reshape(dzs, (-1, 4 * units))
            flat_h = tf.reshape(h_prev, (-1, units))
            return (
                tf.reshape(
                    tf.matmul(dz, kernel, transpose_b=True), tf.shape(x)
                ),
                tf.matmul(flat_x, dz, transpose_a=True),
                tf.matmul(flat_h, dz, transpose_a=True),
                tf.reduce_sum(dz, 0),
            )

        return hs, grad

    return run(x, kernel, recurrent_kernel, bias)


def block_lstm(x, kernel, recurrent_kernel, bias):
    """tf.raw_ops.BlockLSTMV2 over time-major x."""
    tf = _tf()
    batch = tf.shape(x)[1]
    units = tf.shape(recurrent_kernel)[0]
    zeros = tf.zeros((batch, units))
    no_peephole = tf.zeros((units,))
    outputs = tf.raw_ops.BlockLSTMV2(
        seq_len_max=tf.cast(tf.shape(x)[0], tf.int64),
        x=x,
        cs_prev=zeros,
        h_prev=zeros,
        w=tf.concat([kernel, recurrent_kernel], 0),
        wci=no_peephole,
        wcf=no_peephole,
        wco=no_peephole,
        b=bias,
        cell_clip=-1.0,  # no clipping
        use_peephole=False,
    )
    return outputs[6]


KERNELS = {
    "block_lstm": block_lstm,
    "hoisted": hoisted_lstm,
    "custom_grad": custom_grad_lstm,
}


class KernelLSTM(keras.layers.Layer):
    """Runs a Keras LSTM layer's weights through one of the kernels."""

    def __init__(self, lstm, kernel, **kwargs):
        super().__init__(**kwargs)
        self.lstm = lstm
        self.kernel_fn = kernel

    def compute_output_shape(self, shape):
        return (*shape[:2], self.lstm.cell.units)

    def call(self, x):
        tf = _tf()
        cell = self.lstm.cell
        weights = [
            tf.convert_to_tensor(w)
            for w in (cell.kernel, cell.recurrent_kernel, cell.bias)
        ]
        hs = self.kernel_fn(tf.transpose(x, (1, 0, 2)), *weights)
        return tf.transpose(hs, (1, 0, 2))


def build(layers, shape):
    inputs = keras.Input((shape["steps"], shape["features"]))
    x = inputs
    for _ in range(layers):
        x = keras.layers.LSTM(shape["units"], return_sequences=True)(x)
    return keras.Model(inputs, keras.layers.Dense(shape["features"])(x))


def rebuild(keras_model, kernel):
    """The same layers (same weights) with `kernel` doing the recurrence."""
    inputs = keras.Input(keras_model.input_shape[1:])
    x = inputs
    for layer in keras_model.layers[1:-1]:
        x = KernelLSTM(layer, kernel)(x)
    return keras.Model(inputs, keras_model.layers[-1](x))


def _gradients(model, x, y):
    """MSE-loss gradients for the model's weights (same order for all)."""
    tf = _tf()
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_weights)
    return [np.asarray(g) for g in grads]


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--block", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", default=None)
    args = parser.parse_args(argv)
    if keras.backend.backend() != "tensorflow":
        parser.error("these kernels are TensorFlow ops: run on tensorflow")
    if args.layers < 1 or args.repeats < 1 or args.block < 1:
        parser.error("--layers, --repeats and --block must be >= 1")
    if args.quick:
        args.repeats, args.block = 2, 2
    return args


def main(argv=None):
    args = parse_args(argv)
    shape = SHAPES["quick" if args.quick else "small"]
    output = args.output or _common.default_output("cpu_options", args.quick)
    print("command:", _common.command_line(argv))
    print("machine:", json.dumps(machine_info()))
    print("versions:", json.dumps(versions()))
    peak_start, source = _common.peak_at_start()

    rng = np.random.default_rng(0)
    b, t, f = shape["batch"], shape["steps"], shape["features"]
    x = rng.normal(size=(b, t, f)).astype("float32")
    y = rng.normal(size=(b, t, f)).astype("float32")
    keras.utils.set_random_seed(0)
    base = build(args.layers, shape)
    expected = np.asarray(base.predict_on_batch(x))
    models, checks = {"keras": base}, {}
    models["xla"] = rebuild(base, KERNELS["hoisted"])
    for name, kernel in KERNELS.items():
        models[name] = rebuild(base, kernel)
    expected_grads = _gradients(base, x, y)
    grad_checks = {}
    for name, model in models.items():
        if name == "xla":
            continue
        got = np.asarray(model.predict_on_batch(x))
        checks[name] = float(np.abs(got - expected).max())
        grad_checks[name] = max(
            float(np.abs(g - e).max())
            for g, e in zip(_gradients(model, x, y), expected_grads)
        )
    print("max |output - keras output|:", json.dumps(checks))
    print("max |gradient - keras gradient|:", json.dumps(grad_checks))
    # xla: Keras's own layers under XLA (the model above is replaced).
    models["xla"] = build(args.layers, shape)
    models["xla"].set_weights(base.get_weights())
    for name, model in models.items():
        model.compile(
            keras.optimizers.Adam(1e-3), "mse", jit_compile=name == "xla"
        )
    steps = {
        name: (lambda m=model: m.train_on_batch(x, y))
        for name, model in models.items()
    }
    if torch is not None:
        contender = TorchContender("lstm", args.layers, shape, (x, y, x), "cpu")
        steps["torch"] = contender.train_step
    for step in steps.values():
        step()
        step()
    names = list(steps)
    blocks = {name: [(steps[name], args.block)] for name in names}
    samples = {
        name: per_block[0]
        for name, per_block in timing.round_robin(blocks, args.repeats).items()
    }
    peak, peak_record = _common.peak_at_end(peak_start, source)

    flops = 3 * flops_per_token("lstm", args.layers, f, shape["units"])
    keras_step = statistics.median(samples["keras"])
    rows = []
    print(
        "\n| option | train tokens/s | ÷ keras | ÷ torch | % of peak "
        "| max abs diff |\n|---|---|---|---|---|---|"
    )
    torch_step = statistics.median(samples["torch"]) if torch else None
    for name in names:
        step = statistics.median(samples[name])
        tps = b * t / step
        row = {
            "option": name,
            "train_tokens_per_s": tps,
            "ratio_to_keras": keras_step / step,
            "ratio_to_torch": torch_step / step if torch_step else None,
            "pct_of_peak": 100 * flops * tps / peak,
            "max_abs_diff": checks.get(name),
            "samples": samples[name],
        }
        rows.append(row)
        vs_torch = (
            f"{row['ratio_to_torch']:.2f}" if row["ratio_to_torch"] else "–"
        )
        diff = "–" if row["max_abs_diff"] is None else f"{checks[name]:.1e}"
        print(
            f"| {name} | {tps:,.0f} | {row['ratio_to_keras']:.2f} "
            f"| {vs_torch} | {row['pct_of_peak']:.0f}% | {diff} |"
        )
    result = {
        "command": _common.command_line(argv),
        "machine": machine_info(),
        "versions": versions(),
        "shape": shape,
        "layers": args.layers,
        "matmul_peak_flops": peak_record,
        "max_abs_gradient_diff": grad_checks,
        "results": rows,
    }
    _common.write_result(output, result)


if __name__ == "__main__":
    main()
