"""Gradient norm by layer for plain, residual and highway stacks.

    python -m diagnostics gradients [--quick] [--depths 2,4,8]
        [--configs plain,residual,highway] [--cell lstm] [--units 32]

Depth adds a second path along which gradients vanish: through the layers
at each timestep, besides back through time. For each configuration
(`plain`, `residual=True`, `highway=True`) and depth, this tool builds
`zoo.stacked_rnn(cell, depth, units, input_dim=4, return_sequences=True)`
with a per-step `Dense(1)` head on a generated task
(`recipes.data.synthetic.make_task`: label each timestep with the sign of
the running sum of the first feature, which needs memory) and measures:

- at initialisation (`--seed`), on one fixed batch, running the stack
  layer by layer (`layer_outputs`): for each layer output `h_l` the L2 norm
  of `d loss / d h_l` at each timestep and sequence, averaged over both;
  and the L2 norm of the gradient with respect to all of layer `l`'s
  weights (its recurrent layer plus any skip projection or gate);
- the loss (binary cross-entropy) at each step of a short Adam run,
  one fresh batch per step.

Layer 1 is the bottom of the stack. Writes to `--output`:
`gradients.csv/json` (config, depth, layer, output_grad_norm,
weight_grad_norm), `training.csv/json` (config, depth, step, loss),
`summary.json` (per config and depth: the top/bottom ratios of both
gradient norms, first and last loss) and the plots `gradient_norms.png`
and `loss_curves.png` (one panel per depth).

Runs on TensorFlow, JAX and PyTorch with the same flags and outputs: the
gradients come from `tf.GradientTape`, `jax.grad` (the weights passed in
through `keras.StatelessScope`) or torch's autograd (`grad`), the training
from `train_on_batch`.
"""

import pathlib
import time

import keras
import numpy as np

import harness
import zoo
from diagnostics import _shared
from harness import files
from harness import flags
from harness import plots
from recipes.data import synthetic

CONFIGS = {
    "plain": {},
    "residual": {"residual": True},
    "highway": {"highway": True},
}
CELLS = ("lstm", "gru", "simple_rnn")
FEATURES = 4
DEFAULTS = dict(depths="2,4,8", steps=150, batch_size=64)
QUICK = dict(depths="2,4", steps=40, batch_size=16)
BACKENDS = ("tensorflow", "jax", "torch")  # the ones `grad` knows
EAGER_BELOW = 20  # fewer training steps run eagerly: cheaper than tracing
FLAGS = {  # name: (type, default, help); None: set by --quick or not
    "configs": (
        str,
        ",".join(CONFIGS),
        f"comma-separated: {', '.join(CONFIGS)}",
    ),
    "depths": (str, None, "comma-separated depths"),
    "cell": (str, "lstm", f"one of {', '.join(CELLS)}"),
    "units": (int, 32, "hidden size of every layer"),
    "steps": (int, None, "Adam steps per configuration and depth"),
    "batch_size": (int, None, "sequences per batch"),
    "timesteps": (int, 20, "sequence length"),
    "learning_rate": (float, 0.002, "Adam's learning rate"),
    "seed": (int, 0, "initialisation and data seed"),
    "output": (str, "runs/diagnostics/gradients", "folder for the results"),
}


def parse(argv):
    parser = flags.ArgumentParser(
        prog="python -m diagnostics gradients",
        description=flags.describe(__doc__),
    )
    for name, (kind, default, text) in FLAGS.items():
        if default is None:
            text += f" (default: {DEFAULTS[name]}; --quick: {QUICK[name]})"
        else:
            text += " (default: %(default)s)"
        flag = "--" + name.replace("_", "-")
        if name == "seed":
            parser.add_argument(
                flag,
                action=flags.Setting,
                parse=flags.parse_seed,
                default=default,
                help=text,
            )
        else:
            parser.add_argument(flag, type=kind, default=default, help=text)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="depths 2,4, fewer steps, a smaller batch (flags still win)",
    )
    args = parser.parse_args(argv)
    for name, value in (QUICK if args.quick else DEFAULTS).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return check(args)


def check(args):
    """Validated `args`, with `configs` and `depths` as lists."""
    if keras.backend.backend() not in BACKENDS:
        raise harness.UsageError(
            f"the gradients tool runs on {', '.join(BACKENDS)}; the Keras "
            f"backend is {keras.backend.backend()!r}"
        )
    args.configs = list(dict.fromkeys(args.configs.split(",")))
    for name in args.configs:
        if name not in CONFIGS:
            raise harness.UsageError(
                f"--configs: unknown configuration {name!r} (received "
                f"{','.join(args.configs)!r}); allowed: {', '.join(CONFIGS)}"
            )
    if args.cell not in CELLS:
        raise harness.UsageError(
            f"--cell: unknown cell {args.cell!r}; allowed: {', '.join(CELLS)}"
        )
    try:
        depths = [int(d) for d in args.depths.split(",")]
    except ValueError:
        raise harness.UsageError(
            f"--depths must be comma-separated integers >= 1, e.g. 2,4,8; "
            f"received {args.depths!r}"
        ) from None
    for depth in depths:
        flags.check_range("depths", depth, low=1)
    args.depths = sorted(set(depths))
    for name in ("units", "steps", "batch_size", "timesteps"):
        flags.check_range(name, getattr(args, name), low=1)
    flags.check_positive("learning_rate", args.learning_rate)
    return args


def build(config, depth, args):
    """The tagger (stack + per-step head), its stack and its head."""
    keras.utils.set_random_seed(args.seed)
    encoder = zoo.stacked_rnn(
        args.cell,
        depth,
        args.units,
        input_dim=FEATURES,
        return_sequences=True,
        seed=args.seed,
        name=f"{config}{depth}",
        **CONFIGS[config],
    )
    head = keras.layers.Dense(1, name="head")
    inputs = keras.Input((None, FEATURES))
    model = keras.Model(inputs, head(encoder(inputs)))
    return model, _shared.find_stack(encoder), head


def grad(loss_of, tensors, variables):
    """`d loss / d tensors` and `d loss / d variables`, one list, where
    `loss = loss_of(tensors)` reads `variables` (Keras variables). One
    branch per backend: `tf.GradientTape`; `jax.grad` with the variables'
    values passed in through `keras.StatelessScope`; torch's autograd."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        with tf.GradientTape() as tape:
            tape.watch(tensors)
            loss = loss_of(tensors)
        return tape.gradient(loss, [*tensors, *variables])
    if backend == "jax":
        import jax

        def pure(tensors, values):
            mapping = list(zip(variables, values))
            with keras.StatelessScope(state_mapping=mapping):
                return loss_of(tensors)

        values = [v.value for v in variables]
        by_tensor, by_value = jax.grad(pure, argnums=(0, 1))(tensors, values)
        return [*by_tensor, *by_value]
    if backend == "torch":
        import torch

        tensors = [t.requires_grad_() for t in tensors]
        loss = loss_of(tensors)
        params = [v.value for v in variables]
        grads = torch.autograd.grad(
            loss, [*tensors, *params], allow_unused=True
        )
        return [
            torch.zeros_like(x) if g is None else g
            for x, g in zip([*tensors, *params], grads)
        ]
    raise harness.UsageError(
        f"the gradients tool runs on TensorFlow, JAX and PyTorch; the Keras "
        f"backend is {backend!r}"
    )


def layer_outputs(stack, x, probes=None):
    """Each layer's output sequence, bottom first: the stack run block by
    block (each layer as the stack calls it, skip wrapper included, then
    its layer norm or dropout), `probes[l]` added to layer `l`'s output."""
    outputs, h = [], x
    for layer in stack.stack_layers:
        h = layer.block(h, training=False)
        if probes is not None:
            h = h + probes[layer.index]
        outputs.append(h)
        for after in layer.after:
            h = after(h, training=False)
    return outputs


def gradient_norms(stack, head, x, y, loss_fn):
    """Per layer (bottom first): `(output_grad_norm, weight_grad_norm)`.

    A zero tensor is added to each layer's output: the gradient of the
    loss with respect to it is the gradient with respect to that output
    (through every layer above), on every backend."""
    ops = keras.ops
    x = ops.convert_to_tensor(x)
    probes = [ops.zeros(ops.shape(h)) for h in layer_outputs(stack, x)]
    weights = [layer.block.trainable_weights for layer in stack.stack_layers]
    flat = [w for layer in weights for w in layer]

    def loss_of(probes):
        return loss_fn(y, head(layer_outputs(stack, x, probes)[-1]))

    grads = grad(loss_of, probes, flat)
    output_grads, weight_grads = grads[: len(probes)], grads[len(probes) :]
    norms = []
    for index, g in enumerate(output_grads):
        # The L2 norm of each timestep's gradient vector, then the mean.
        per_step = ops.sqrt(ops.sum(ops.square(g), axis=-1))
        start = sum(len(w) for w in weights[:index])
        own = weight_grads[start : start + len(weights[index])]
        total = ops.sqrt(sum(ops.sum(ops.square(w)) for w in own))
        norms.append((float(ops.mean(per_step)), float(total)))
    return norms


def train(model, x, y, args, loss_fn):
    """The loss at each Adam step (`train_on_batch`), one fresh batch of
    `x` per step; fewer than EAGER_BELOW steps run eagerly."""
    model.compile(
        optimizer=keras.optimizers.Adam(args.learning_rate),
        loss=loss_fn,
        run_eagerly=args.steps < EAGER_BELOW,  # tracing costs seconds
    )
    size = args.batch_size
    return [
        float(
            model.train_on_batch(
                x[i * size : (i + 1) * size], y[i * size : (i + 1) * size]
            )
        )
        for i in range(args.steps)
    ]


def plot(gradient_rows, training_rows, args, output):
    plt = plots.pyplot()
    n = len(args.depths)
    fig, axes = plt.subplots(
        2, n, figsize=(3.6 * n + 0.6, 6.4), squeeze=False, sharey="row"
    )
    for col, depth in enumerate(args.depths):
        for row, key, label in (
            (0, "output_grad_norm", "‖d loss / d h_l‖ (per step, mean)"),
            (1, "weight_grad_norm", "‖d loss / d W_l‖"),
        ):
            ax = axes[row][col]
            for config in args.configs:
                rows = [
                    r
                    for r in gradient_rows
                    if (r["config"], r["depth"]) == (config, depth)
                ]
                ax.plot(
                    [r["layer"] for r in rows],
                    [r[key] for r in rows],
                    marker="o",
                    label=config,
                )
            ax.set_yscale("log")
            ax.set_xticks(range(1, depth + 1))
            ax.set_xlabel("layer (1 = bottom)")
            ax.set_title(f"depth {depth}" if row == 0 else "")
            if col == 0:
                ax.set_ylabel(label)
                ax.legend()
    fig.suptitle(
        f"Gradient norms at initialisation ({args.cell}, "
        f"{args.units} units, seed {args.seed})"
    )
    fig.tight_layout()
    fig.savefig(output / "gradient_norms.png", dpi=100)
    plt.close(fig)

    fig, axes = plt.subplots(
        1, n, figsize=(3.6 * n + 0.6, 3.4), squeeze=False, sharey=True
    )
    window = max(1, min(10, args.steps // 5))
    for ax, depth in zip(axes[0], args.depths):
        for config in args.configs:
            losses = [
                r["loss"]
                for r in training_rows
                if (r["config"], r["depth"]) == (config, depth)
            ]
            steps = np.arange(1, len(losses) + 1)
            smooth = np.convolve(losses, np.ones(window) / window, "valid")
            (line,) = ax.plot(steps[window - 1 :], smooth, label=config)
            ax.plot(steps, losses, color=line.get_color(), alpha=0.25, lw=0.8)
        ax.set_title(f"depth {depth}")
        ax.set_xlabel("training step")
    axes[0][0].set_ylabel(f"loss ({window}-step mean; faint: raw)")
    axes[0][0].legend()
    fig.suptitle(
        f"Training loss, Adam {args.learning_rate}, batch {args.batch_size}"
    )
    fig.tight_layout()
    fig.savefig(output / "loss_curves.png", dpi=100)
    plt.close(fig)


def main(argv=None):
    args = parse(argv)
    output = pathlib.Path(args.output)
    lock = _shared.lock_output(output)
    try:
        loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
        probe_x, probe_y = synthetic.make_task(
            args.batch_size, args.timesteps, FEATURES, seed=args.seed
        )
        train_x, train_y = synthetic.make_task(
            args.steps * args.batch_size,
            args.timesteps,
            FEATURES,
            seed=args.seed + 1,
        )
        gradient_rows, training_rows, summary = [], [], []
        for depth in args.depths:
            for config in args.configs:
                start = time.perf_counter()
                model, stack, head = build(config, depth, args)
                norms = gradient_norms(stack, head, probe_x, probe_y, loss_fn)
                for layer, (out_norm, weight_norm) in enumerate(norms, 1):
                    gradient_rows.append(
                        dict(
                            config=config,
                            depth=depth,
                            layer=layer,
                            output_grad_norm=out_norm,
                            weight_grad_norm=weight_norm,
                        )
                    )
                losses = train(model, train_x, train_y, args, loss_fn)
                training_rows += [
                    dict(config=config, depth=depth, step=step, loss=loss)
                    for step, loss in enumerate(losses, 1)
                ]
                result = dict(
                    config=config,
                    depth=depth,
                    output_grad_ratio_top_bottom=norms[-1][0] / norms[0][0],
                    weight_grad_ratio_top_bottom=norms[-1][1] / norms[0][1],
                    first_loss=losses[0],
                    last_loss=losses[-1],
                    last_loss_mean10=float(np.mean(losses[-10:])),
                    seconds=round(time.perf_counter() - start, 2),
                )
                summary.append(result)
                print(
                    f"{config:>8} depth {depth}: d loss/d h top/bottom "
                    f"{result['output_grad_ratio_top_bottom']:.3g}, weights "
                    f"{result['weight_grad_ratio_top_bottom']:.3g}; loss "
                    f"{losses[0]:.4f} -> {result['last_loss_mean10']:.4f} "
                    f"(last 10 steps) [{result['seconds']:.1f} s]",
                    flush=True,
                )
                keras.backend.clear_session()
        files.write_rows(gradient_rows, output, "gradients")
        files.write_rows(training_rows, output, "training")
        settings = {k: v for k, v in vars(args).items() if k != "output"}
        files.write_json(
            output / "summary.json", {"settings": settings, "runs": summary}
        )
        plot(gradient_rows, training_rows, args, output)
        print(
            f"Wrote gradients, training and summary (.json/.csv) and "
            f"gradient_norms.png, loss_curves.png to {output}"
        )
        return {
            "gradients": gradient_rows,
            "training": training_rows,
            "summary": summary,
            "output": str(output),
        }
    finally:
        lock.release()
