"""What every recipe shares: its config (flags, `--config` files, checks),
user errors (one line, exit code 2), saved-model loading and JSON/CSV
writers. The training loop itself is `recipes.training`."""

import argparse
import csv
import dataclasses
import json
import math
import pathlib
import random
import sys
import typing

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
    if values.get("quick"):
        # A recipe's own `--quick` sizes (`Config.QUICK`), unless given.
        for name, value in getattr(config_cls, "QUICK", {}).items():
            values.setdefault(name, value)
    if values.get("model"):
        # A registered backbone: its own defaults hold for every stack
        # option not given explicitly (None: "the variant's value").
        for name in STACK_FIELDS:
            values.setdefault(name, None)
    return config_cls(**values)


def run_cli(main, argv=None):
    """Runs `main(argv)`; user errors print one line and exit with 2."""
    try:
        return main(argv)
    except (RecipeError, DataError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def check_range(name, value, low=None, high=None):
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise RecipeError(
            f"--{name.replace('_', '-')} must be {bounds}; received {value}"
        )


@dataclasses.dataclass
class StackOptions:
    """The stack and training settings every recipe's config has; each
    recipe subclasses it, adds its data settings and may change defaults.
    """

    output: str = "runs/recipe"
    model: str = ""
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
    """Range checks shared by the recipes' training flags (a stack option
    left to a `--model` variant is None and not checked here)."""
    if config.model:
        import zoo

        if config.model not in zoo.list_models():
            raise RecipeError(
                f"--model {config.model!r} is not a registered backbone; "
                f"choose one of {', '.join(zoo.list_models())}"
            )
    low_epochs = 0 if config.init_from else 1
    check_range("epochs", config.epochs, low=low_epochs)
    for name in ("batch_size", "num_layers", "embedding_dim"):
        if getattr(config, name) is not None:
            check_range(name, getattr(config, name), low=1)
    # One width for all layers, or one per layer (as tuning writes them).
    units = config.units if isinstance(config.units, list) else [config.units]
    for width in units:
        if width is not None:
            check_range("units", width, low=1)
    check_range("patience", config.patience, low=0)
    for name in (
        "dropout",
        "recurrent_dropout",
        "inter_layer_dropout",
        "weight_drop",
        "embedding_dropout",
    ):
        if getattr(config, name) is not None:
            check_range(name, getattr(config, name), low=0, high=0.95)
    if config.cell is not None and config.cell not in CELLS:
        raise RecipeError(
            f"--cell must be one of {', '.join(CELLS)}; received "
            f"{config.cell!r}"
        )
    if not math.isfinite(config.learning_rate):
        raise RecipeError(
            f"--learning-rate must be a finite number > 0; received "
            f"{config.learning_rate}"
        )
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


CELLS = ("lstm", "gru", "simple_rnn")
MERGE_MODES = ("concat", "sum", "mul", "ave")
# The config fields that are `zoo.stacked_rnn` options.
STACK_FIELDS = (
    "cell",
    "num_layers",
    "units",
    "embedding_dim",
    "bidirectional",
    "merge_mode",
    "residual",
    "highway",
    "layer_norm",
    "dropout",
    "recurrent_dropout",
    "inter_layer_dropout",
    "weight_drop",
    "embedding_dropout",
)


def stack_options(config, skip=()):
    """The `zoo.stacked_rnn` keyword arguments a recipe config sets (the
    ones left to a `--model` variant, None, are not passed)."""
    options = {
        name: getattr(config, name)
        for name in STACK_FIELDS
        if getattr(config, name) is not None and name not in skip
    }
    return {**options, "seed": config.seed}


def backbone(config, vocabulary_size, return_sequences=True, name="encoder"):
    """The recipe's stack over token ids: `zoo.create_model(--model)` or
    `zoo.stacked_rnn(--cell, --num-layers, --units)`, with the explicit
    stack flags as overrides."""
    import zoo

    options = stack_options(config)
    try:
        if config.model:
            return zoo.create_model(
                config.model,
                vocabulary_size=vocabulary_size,
                return_sequences=return_sequences,
                name=name,
                **options,
            )
        cell = options.pop("cell")
        num_layers = options.pop("num_layers")
        units = options.pop("units")
        return zoo.stacked_rnn(
            cell,
            num_layers,
            units,
            vocabulary_size=vocabulary_size,
            return_sequences=return_sequences,
            name=name,
            **options,
        )
    except (ValueError, TypeError) as error:  # the zoo's own checks
        raise RecipeError(str(error).splitlines()[0]) from None


def describe_stack(config):
    """`"2-layer bidirectional lstm"`, or the `--model` name."""
    if config.model:
        return config.model
    return (
        f"{config.num_layers}-layer "
        f"{'bidirectional ' if config.bidirectional else ''}{config.cell}"
    )


def load_init_model(path, flag="--init-from"):
    """A model saved by a recipe, with its `LabelNames` layer's labels;
    errors name `flag`, where the path came from."""
    import recipes.layers  # noqa: F401 - the first release's LabelNames

    path = pathlib.Path(path)
    if not path.is_file():
        raise RecipeError(f"{flag} {path}: no such file")
    try:
        model = keras.saving.load_model(path, safe_mode=True, compile=False)
    except Exception as error:  # noqa: BLE001 - any load failure
        first = str(error).strip().splitlines()[:1]
        raise RecipeError(
            f"{flag} {path}: cannot load ({first[0] if first else error})"
        ) from None
    try:
        labels = model.get_layer("labels").labels
    except ValueError:
        raise RecipeError(
            f"{flag} {path}: not a model saved by this recipe (it has "
            "no 'labels' layer)"
        ) from None
    if "string" in str(model.inputs[0].dtype):
        raise RecipeError(
            f"{flag} {path}: saved by the first release, whose models "
            "read raw text (TextVectorization, TensorFlow only); it still "
            "loads with keras.saving.load_model on TensorFlow, but the "
            "recipes now train models that read token ids: retrain it"
        )
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
