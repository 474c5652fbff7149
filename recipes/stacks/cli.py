"""`python -m recipes.stacks`: the comparison of the three cells."""

import pathlib
import sys
import time

import keras

import recipes.stacks as package
import zoo
from harness import files
from harness import flags
from harness import plots
from harness import rundir
from recipes.data import synthetic

CELLS = ("simple_rnn", "gru", "lstm")


def build(cell, features, units=32, num_layers=2):
    encoder = zoo.stacked_rnn(
        cell, num_layers, units, input_dim=features, name=cell
    )
    inputs = keras.Input((None, features))
    logits = keras.layers.Dense(1, name=f"{cell}_head")(encoder(inputs))
    model = keras.Model(inputs, logits, name=f"{cell}_tagger")
    model.compile(
        keras.optimizers.Adam(1e-2),
        keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)],
    )
    return model


def layer_rows(model):
    """(name, output width, parameters) for each recurrent layer."""
    rows = []
    # `build` names the backbone after its cell; its stack is NAME_stack.
    cell = model.name.removesuffix("_tagger")
    stack = model.get_layer(cell).get_layer(f"{cell}_stack")
    for layer in stack.stack_layers:
        block = layer.block
        rows.append((block.name, layer.spec.output_width, block.count_params()))
    return rows


def plot(histories, path):
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for cell, losses in histories.items():
        ax.plot(range(1, len(losses) + 1), losses, marker="o", label=cell)
    ax.set_xlabel("epoch")
    plots.integer_ticks(ax.xaxis)
    ax.set_ylabel("training loss (binary cross-entropy)")
    ax.set_title("2-layer stacks, 32 units, running-sign task")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parser():
    """The demo's argument parser (what `--help` shows)."""
    parser = flags.ArgumentParser(
        prog="python -m recipes.stacks",
        description=flags.describe(package.__doc__),
    )
    parser.add_argument(
        "--epochs",
        type=int,
        default=6,
        help="epochs each cell's stack trains (default: 6)",
    )
    parser.add_argument(
        "--output",
        default="runs/demo-stacks",
        help="where metrics.json and loss.png go (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        action=flags.Setting,
        parse=flags.parse_seed,
        default=0,
        help="seeds the generated task and each model's weights (default: 0)",
    )
    return parser


def main(argv=None):
    """`python -m recipes.stacks` with the arguments `argv`; returns a
    result row per cell."""
    args = parser().parse_args(argv)
    flags.check_range("epochs", args.epochs, low=1)
    output = pathlib.Path(args.output)
    # One job per folder; the lock's `acquire` also makes the folder and
    # names --output in one line if it cannot (a file there, no rights).
    with rundir.FolderLock(output):
        return _compare(args, output)


def _compare(args, output):
    x, y = synthetic.make_task(seed=args.seed)
    split = int(0.8 * len(x))
    results, histories = [], {}
    print(
        f"Keras {keras.__version__} on {keras.backend.backend()}; task: "
        f"{len(x)} sequences x {x.shape[1]} steps x {x.shape[2]} features"
    )
    for cell in CELLS:
        keras.utils.set_random_seed(args.seed)
        model = build(cell, x.shape[-1])
        print(f"\n== {cell}: training {args.epochs} epochs")
        start = time.perf_counter()
        history = model.fit(
            x[:split],
            y[:split],
            validation_data=(x[split:], y[split:]),
            epochs=args.epochs,
            batch_size=64,
            verbose=1 if sys.stdout.isatty() else 2,
        )
        seconds = time.perf_counter() - start
        stack_params = model.get_layer(cell).count_params()
        formula = zoo.count_params(cell, x.shape[-1], 32, num_layers=2)
        assert stack_params == formula, (stack_params, formula)
        histories[cell] = history.history["loss"]
        results.append(
            dict(
                cell=cell,
                layers=layer_rows(model),
                params=model.count_params(),
                first_loss=history.history["loss"][0],
                last_loss=history.history["loss"][-1],
                val_accuracy=history.history["val_binary_accuracy"][-1],
                seconds=seconds,
            )
        )

    print("\nLayers (each stack: zoo.stacked_rnn(cell, 2, 32, input_dim=4))")
    print(f"{'layer':<36}{'width':>6}{'params':>9}")
    for result in results:
        for name, width, params in result["layers"]:
            print(f"{name:<36}{width:>6}{params:>9}")
    print("\nTraining (loss: binary cross-entropy; accuracy on held-out 20%)")
    print(
        f"{'cell':<12}{'params':>8}{'loss first':>12}{'loss last':>11}"
        f"{'val acc':>9}{'seconds':>9}"
    )
    for r in results:
        print(
            f"{r['cell']:<12}{r['params']:>8}{r['first_loss']:>12.4f}"
            f"{r['last_loss']:>11.4f}{r['val_accuracy']:>9.3f}"
            f"{r['seconds']:>9.1f}"
        )
    files.write_json(output / "metrics.json", results)
    plot(histories, output / "loss.png")
    print(f"\nWrote {output / 'metrics.json'} and {output / 'loss.png'}")
    return results
