"""What every recipe shares: config files, exit codes, callbacks, plots."""

import argparse
import bisect
import collections
import csv
import dataclasses
import json
import math
import os
import pathlib
import random
import sys
import time
import typing
import weakref

import keras

from recipes.data.errors import DataError


class RecipeError(ValueError):
    """A user error: printed on one line, exit code 2."""


def add_config_arguments(parser, config_cls, help_texts=None, skip=()):
    """Adds one `--flag` per field of the dataclass `config_cls`, except
    the fields named in `skip`."""
    hints = typing.get_type_hints(config_cls)
    skip = set(skip)
    help_texts = help_texts or {}
    # The recipe's own settings (data, head) first, then the inherited
    # stack and training ones, as `--help` lists them.
    own = set(vars(config_cls).get("__annotations__", {}))
    fields = [f for f in dataclasses.fields(config_cls) if f.name not in skip]
    for field in sorted(fields, key=lambda f: f.name not in own):
        flag = "--" + field.name.replace("_", "-")
        kind = hints[field.name]
        text = help_texts.get(field.name, "")
        text = f"{text} (default: {field.default})".strip()
        if kind is bool:
            parser.add_argument(
                flag,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=text,
            )
        else:
            base = typing.get_args(kind)[0] if typing.get_args(kind) else kind
            parser.add_argument(
                flag,
                type=base,
                default=None,
                help=text,
            )
    parser.add_argument(
        "--config", help="a JSON or YAML file with the same settings"
    )


def parse_config(prog, description, config_cls, help_texts, argv=None):
    """The recipe's config from defaults, `--config` and flags."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    add_config_arguments(parser, config_cls, help_texts)
    return resolve_config(config_cls, parser.parse_args(argv))


PRECISIONS = {
    "off": "float32",
    "float16": "mixed_float16",
    "bfloat16": "mixed_bfloat16",
}


def parse_run(prog, description, config_cls, help_texts, argv=None):
    """`(config, distributed.Options)`: `parse_config` plus the run
    options `--distribute`, `--distribute-timeout` and `--mixed-precision`,
    which are not part of the config (nor of `config.json`).

    `--mixed-precision` sets Keras's global dtype policy here, before the
    recipe builds its model; the saved model keeps each layer's policy.
    """
    from recipes import distributed

    parser = argparse.ArgumentParser(prog=prog, description=description)
    add_config_arguments(parser, config_cls, help_texts)
    distributed.add_arguments(parser)
    parser.add_argument(
        "--mixed-precision",
        default="off",
        choices=sorted(PRECISIONS),
        help="compute in float16 or bfloat16 with float32 variables "
        "(keras.mixed_precision; float16 also scales the loss). Worth it "
        "on GPUs with tensor cores; slower on CPUs (default: off)",
    )
    args = parser.parse_args(argv)
    set_precision(args.mixed_precision)
    return resolve_config(config_cls, args), distributed.options_from(args)


def set_precision(name):
    """Sets Keras's global dtype policy for `--mixed-precision NAME`."""
    if name not in PRECISIONS:
        raise RecipeError(
            f"--mixed-precision must be one of {sorted(PRECISIONS)}; "
            f"received {name!r}"
        )
    keras.mixed_precision.set_global_policy(PRECISIONS[name])
    if name != "off":
        print(f"mixed precision: {PRECISIONS[name]} (variables in float32)")


def read_config_file(path):
    path = pathlib.Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise RecipeError(f"--config {path}: cannot read ({error})") from error
    try:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            values = yaml.safe_load(text)
        else:
            values = json.loads(text)
    except Exception as error:  # noqa: BLE001 - any parse error is the user's
        raise RecipeError(f"--config {path}: cannot parse ({error})") from error
    if not isinstance(values, dict):
        raise RecipeError(f"--config {path}: expected a mapping of settings")
    return values


def resolve_config(config_cls, args):
    """Defaults, then the config file, then explicit flags."""
    values = {}
    if args.config:
        values.update(read_config_file(args.config))
    names = {f.name for f in dataclasses.fields(config_cls)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise RecipeError(
            f"--config: unknown setting(s) {unknown}; known: {sorted(names)}"
        )
    for name in names:
        value = getattr(args, name, None)  # None: not a flag, or not given
        if value is not None:
            values[name] = value
    return config_cls(**values)


def run_cli(main, argv=None):
    """Runs `main(argv)`; user errors print one line and exit with 2."""
    try:
        return main(argv)
    except (RecipeError, DataError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def print_written(config, metrics, files):
    """The last line of a run: what it wrote (a non-chief worker of a
    distributed run writes nothing to `--output`)."""
    described = metrics.get("distribute", {})
    if described and not described["chief"]:
        print(
            f"worker {described['worker_index']} finished; the chief wrote "
            f"{config.output}"
        )
    else:
        print(f"wrote {config.output}/{files}")


def check_range(name, value, low=None, high=None):
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise RecipeError(
            f"--{name.replace('_', '-')} must be {bounds}; received {value}"
        )


def plot_history(history, path, metric="accuracy", title=""):
    """Learning curves (loss and `metric`, train and validation) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, name in zip(axes, ("loss", metric)):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        for prefix, style in (("", "-o"), ("val_", "--o")):
            values = history.get(prefix + name)
            if values:
                epochs = range(1, len(values) + 1)
                ax.plot(epochs, values, style, label=prefix + name)
        ax.set_xlabel("epoch")
        ax.set_title(name)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


@dataclasses.dataclass
class StackOptions:
    """The stack and training settings every recipe's config has; each
    recipe subclasses it, adds its data settings and may change defaults.
    """

    output: str = "runs/recipe"
    init_from: str = ""
    quick: bool = False
    seed: int = 0
    epochs: int = 6
    batch_size: int = 32
    learning_rate: float = 0.002
    patience: int = 2
    cell: str = "lstm"
    num_layers: int = 2
    units: int = 128
    embedding_dim: int = 128
    bidirectional: bool = True
    merge_mode: str = "concat"
    residual: bool = True
    highway: bool = False
    layer_norm: bool = False
    dropout: float = 0.0
    recurrent_dropout: float = 0.0
    inter_layer_dropout: float = 0.25
    weight_drop: float = 0.0
    embedding_dropout: float = 0.1
    tensorboard: bool = True


def quick_subset(items, size, seed=0):
    """A seeded sample of `size` items (in their order), for `--quick`:
    a sample, not the first ones, so that every class and genre shows up.
    """
    if len(items) <= size:
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), size))
    return [items[i] for i in keep]


def prepare_output(config):
    """Creates `config.output` and writes the resolved `config.json`."""
    output = pathlib.Path(config.output)
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RecipeError(
            f"--output {output}: cannot create ({error})"
        ) from None
    write_json(output / "config.json", dataclasses.asdict(config))
    return output


def write_json(path, values):
    path = pathlib.Path(path)
    partial = path.with_suffix(path.suffix + ".partial")
    partial.write_text(json.dumps(values, indent=2) + "\n")
    partial.replace(path)  # atomic: an interrupted write loses nothing


def write_rows(rows, folder, name, columns=()):
    """`name.csv` and `name.json` in `folder`, written atomically; the CSV
    has `columns` first, then every other key in the order first seen."""
    folder = pathlib.Path(folder)
    keys = list(columns)
    for row in rows:
        keys += [k for k in row if k not in keys]
    partial = folder / f"{name}.csv.partial"
    with partial.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    partial.replace(folder / f"{name}.csv")
    write_json(folder / f"{name}.json", rows)


def check_training(config):
    """Range checks shared by the recipes' training flags."""
    low_epochs = 0 if config.init_from else 1
    check_range("epochs", config.epochs, low=low_epochs)
    for name in ("batch_size", "num_layers", "embedding_dim"):
        check_range(name, getattr(config, name), low=1)
    # One width for all layers, or one per layer (as tuning writes them).
    units = config.units if isinstance(config.units, list) else [config.units]
    for width in units:
        check_range("units", width, low=1)
    check_range("patience", config.patience, low=0)
    for name in (
        "dropout",
        "recurrent_dropout",
        "inter_layer_dropout",
        "weight_drop",
        "embedding_dropout",
    ):
        check_range(name, getattr(config, name), low=0, high=0.95)
    if config.learning_rate <= 0:
        raise RecipeError(
            f"--learning-rate must be > 0; received {config.learning_rate}"
        )


STACK_HELP = {
    "recurrent_dropout": "hidden-to-hidden dropout; any value > 0 takes "
    "LSTM/GRU off the fused cuDNN kernel and halves CPU speed: prefer "
    "--inter-layer-dropout or --weight-drop, which keep it",
    "inter_layer_dropout": "time-locked dropout between layers",
    "weight_drop": "DropConnect on the recurrent kernels (keeps cuDNN)",
    "embedding_dropout": "drops whole word types for a sequence",
    "quick": "a small subset and at most 2 epochs, for tests and demos",
    "init_from": "a model.keras saved by this recipe: train on from it "
    "(its vocabulary and labels), or only evaluate it with --epochs 0",
    "tensorboard": "write TensorBoard logs to OUTPUT/tensorboard",
    "train_file": "your training file (--dataset conllu, columns or csv)",
    "dev_file": "your validation file; default: 10%% cut from train",
    "test_file": "your test file; default: 10%% cut from train",
    "tfds_data_dir": "a TensorFlow Datasets data_dir (--dataset tfds:NAME)",
}


def stack_options(config):
    """The `zoo.stacked_rnn` keyword arguments a recipe config sets."""
    return dict(
        bidirectional=config.bidirectional,
        merge_mode=config.merge_mode,
        residual=config.residual,
        highway=config.highway,
        layer_norm=config.layer_norm,
        dropout=config.dropout,
        recurrent_dropout=config.recurrent_dropout,
        inter_layer_dropout=config.inter_layer_dropout,
        weight_drop=config.weight_drop,
        embedding_dim=config.embedding_dim,
        embedding_dropout=config.embedding_dropout,
        seed=config.seed,
    )


def load_init_model(path):
    """A model saved by a recipe, with its `LabelNames` layer's labels."""
    import recipes.layers  # noqa: F401 - registers LabelNames

    path = pathlib.Path(path)
    if not path.is_file():
        raise RecipeError(f"--init-from {path}: no such file")
    try:
        model = keras.saving.load_model(path, safe_mode=True, compile=False)
    except Exception as error:  # noqa: BLE001 - any load failure
        first = str(error).strip().splitlines()[:1]
        raise RecipeError(
            f"--init-from {path}: cannot load ({first[0] if first else error})"
        ) from None
    try:
        labels = model.get_layer("labels").labels
    except ValueError:
        raise RecipeError(
            f"--init-from {path}: not a model saved by this recipe (it has "
            "no 'labels' layer)"
        ) from None
    return model, list(labels)


def check_label_set(data_labels, model_labels, path):
    """Every label in the data must be one the saved model predicts."""
    missing = sorted(set(data_labels) - set(model_labels))
    if missing:
        known = [x for x in model_labels if x]
        raise RecipeError(
            f"label set mismatch: the data have {missing}, which the model "
            f"{path} does not predict (its labels: {known})"
        )


def resolve_labels(config, seen, held_out, description, what="labels"):
    """`(saved model or None, labels)` for a run.

    With `--init-from`, the saved model and its labels, which must cover
    every label in the data. Otherwise no model and the training labels,
    sorted; a dev/test label never seen in training is an error.
    """
    if config.init_from:
        model, labels = load_init_model(config.init_from)
        check_label_set(seen | held_out, labels, config.init_from)
        return model, labels
    if held_out - seen:
        raise RecipeError(
            f"{what} {sorted(held_out - seen)} occur in dev/test but not in "
            f"train ({description})"
        )
    return None, sorted(seen)


def make_callbacks(
    config, output, monitor, metric_callbacks=(), extra=(), backup=None
):
    """Backup, validation metrics, early stopping, NaN guard, logs.

    `metric_callbacks` add validation metrics to the epoch logs, so they
    run before the callbacks that read them. `backup` replaces the
    default `BackupAndRestore(OUTPUT/backup)` (a non-chief worker's).
    """
    if backup is None:
        backup = keras.callbacks.BackupAndRestore(str(output / "backup"))
    callbacks = [
        backup,
        *metric_callbacks,
        keras.callbacks.EarlyStopping(
            monitor=monitor,
            mode="max",
            patience=config.patience,
            restore_best_weights=True,
        ),
        keras.callbacks.TerminateOnNaN(),
        keras.callbacks.CSVLogger(str(output / "log.csv"), append=True),
    ]
    if config.tensorboard:
        callbacks.append(
            keras.callbacks.TensorBoard(str(output / "tensorboard"))
        )
    return callbacks + list(extra)


def predict_texts(model, texts):
    """`model.predict_on_batch` for a model that reads raw strings.

    On TensorFlow the model runs whole. Other backends cannot run its
    `TextVectorization` layer (named `words`) inside a compiled model, so
    it runs first, on its own, and the rest of the model after it.
    """
    if keras.backend.backend() == "tensorflow":
        return model.predict_on_batch(texts)
    import numpy as np

    if model not in _BODIES:
        words = model.get_layer("words")
        _BODIES[model] = (words, keras.Model(words.output, model.output))
    words, rest = _BODIES[model]
    ids = keras.ops.convert_to_numpy(words(texts))
    # Under a keras.distribution (`--distribute mirrored` on JAX), a batch
    # is split evenly over the devices: pad it with empty rows.
    distribution = keras.distribution.distribution()
    devices = distribution.device_mesh.devices.size if distribution else 1
    extra = -len(ids) % devices
    if extra:
        ids = np.concatenate(
            [ids, np.zeros((extra, *ids.shape[1:]), ids.dtype)]
        )
    return keras.ops.convert_to_numpy(rest.predict_on_batch(ids))[: len(texts)]


_BODIES = weakref.WeakKeyDictionary()  # model -> (its vectorizer, the rest)


def compile_per_token(model, learning_rate):
    """Adam and a softmax per token (tagging, seq2seq): cross-entropy and
    accuracy weighted by the batches' weights, which are 0 on padding."""
    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate),
        loss="sparse_categorical_crossentropy",
        weighted_metrics=[
            keras.metrics.SparseCategoricalAccuracy(name="accuracy")
        ],
    )
    return model


def fit(model, train_ds, dev_ds, epochs, callbacks):
    """`model.fit` with progress bars on a terminal; `(history, seconds)`."""
    start = time.perf_counter()
    history = model.fit(
        train_ds,
        validation_data=dev_ds,
        epochs=epochs,
        callbacks=callbacks,
        shuffle=False,  # the tf.data pipeline shuffles
        verbose=1 if os.isatty(1) else 2,
    )
    return history.history, time.perf_counter() - start


def full_history(output, history):
    """Curves from `log.csv`, which spans resumed runs; else `history`."""
    log = pathlib.Path(output) / "log.csv"
    if not log.is_file():
        return history
    with log.open() as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        return history
    return {
        k: [float(r[k]) for r in rows if r.get(k)]
        for k in rows[0]
        if k != "epoch"
    }


def save_and_reload(model, output, name="model.keras"):
    """Saves `output/name` and loads it back with `safe_mode=True`."""
    path = pathlib.Path(output) / name
    partial = path.with_name(path.stem + ".partial.keras")
    if model.optimizer is not None and not model.optimizer.built:
        # Not trained here (--epochs 0): save a built optimizer anyway,
        # so the file reloads compiled without a warning.
        model.optimizer.build(model.trainable_variables)
    model.save(partial)
    partial.replace(path)
    return keras.saving.load_model(path, safe_mode=True, compile=False)


def bucketed(ds, lengths, batch_size, boundaries, shuffle_seed=None):
    """Batches of similar length from `ds`, whose elements start with a
    length; the length is dropped. `lengths` are the same numbers in a
    list: they give the exact batch count, so Keras knows the epoch size.
    """
    import tensorflow as tf

    if shuffle_seed is not None:
        ds = ds.shuffle(
            len(lengths), seed=shuffle_seed, reshuffle_each_iteration=True
        )
    ds = ds.bucket_by_sequence_length(
        lambda length, *rest: length,
        bucket_boundaries=list(boundaries),
        bucket_batch_sizes=[batch_size] * (len(boundaries) + 1),
    )
    ds = ds.map(lambda length, *rest: rest)
    per_bucket = collections.Counter(
        bisect.bisect_right(boundaries, n) for n in lengths
    )
    batches = sum(math.ceil(n / batch_size) for n in per_bucket.values())
    ds = ds.apply(tf.data.experimental.assert_cardinality(batches))
    return ds.prefetch(tf.data.AUTOTUNE)
