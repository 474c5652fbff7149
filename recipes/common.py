"""What every recipe shares: its config (flags, `--config` files, checks),
user errors (one line, exit code 2), saved-model loading and JSON/CSV
writers. The training loop itself is `recipes.training`.

The stack settings come from `zoo.options`: every stack option that a
recipe does not set itself is a config field and a `--flag`, with the
option's type, help, choices and bounds; the recipes keep only their own
defaults (`RECIPE_DEFAULTS`, and each recipe's `Config`)."""

import argparse
import csv
import dataclasses
import json
import math
import numbers
import os
import pathlib
import random
import re
import sys
import typing

import keras

import zoo.options
from recipes.data.errors import DataError


class RecipeError(ValueError):
    """A user error: printed on one line, exit code 2."""


CELLS = zoo.options.CELLS
MERGE_MODES = zoo.options.MERGE_MODES
# The stack options a recipe sets itself (its head needs the sequences or
# the final state, `--seed` seeds the masks too, the vocabulary comes from
# the data), or that clash with a training setting's name (`output`); every
# other option in `zoo.options.STACK_OPTIONS` is a recipe setting.
SET_BY_RECIPES = (
    "return_sequences",
    "return_state",
    "output",
    "stateful",
    "seed",
    "vocabulary_size",
    "mask_zero",
    "mask_value",
)
# The config fields that are `zoo.stacked_rnn` options, in zoo's order.
STACK_FIELDS = tuple(
    option.name
    for option in zoo.options.STACK_OPTIONS
    if option.name not in SET_BY_RECIPES
)
# Where the recipes' defaults differ from the library's (each recipe's
# `Config` may change them again).
RECIPE_DEFAULTS = {
    "num_layers": 2,
    "embedding_dim": 128,
    "bidirectional": True,
    "residual": True,
    "inter_layer_dropout": 0.25,
    "embedding_dropout": 0.1,
}


@dataclasses.dataclass
class _TrainingOptions:
    output: str = "runs/recipe"
    model: str = ""
    init_from: str = ""
    quick: bool = False
    train_examples: int = 0
    eval_examples: int = 0
    seed: int = 0
    epochs: int = 6
    batch_size: int = 32
    learning_rate: float = 0.002
    lr_schedule: str = "constant"
    patience: int = 2


def _stack_field(name):
    option = zoo.options.get(name)
    # A Keras object is a name on the command line (`--activation relu`),
    # a name or a config dict in a `--config` file.
    kind = str | dict | None if option.keras_object else option.type
    return name, kind, RECIPE_DEFAULTS.get(name, option.default)


StackOptions = dataclasses.make_dataclass(
    "StackOptions",
    [*map(_stack_field, STACK_FIELDS), ("tensorboard", bool, True)],
    bases=(_TrainingOptions,),
)
StackOptions.__module__ = __name__
StackOptions.__doc__ = """The stack and training settings every recipe's
config has; each recipe subclasses it, adds its data settings and may
change defaults. The stack fields are `STACK_FIELDS` (from `zoo.options`).
A per-layer option may hold a list (one value per layer) from a
`--config` file."""

STACK_HELP = {
    **{name: zoo.options.get(name).help for name in STACK_FIELDS},
    # zoo's line is about num_layers=None, which a recipe does not take.
    "num_layers": "number of recurrent layers",
    "output": "the run's folder: config.json, model.keras, metrics, logs",
    "model": "a registered backbone (zoo.list_models()); the stack flags "
    "given explicitly override its values",
    "seed": "seed of the data order, the initial weights and the dropout masks",
    "epochs": "training epochs (early stopping may end sooner)",
    "batch_size": "sequences per batch",
    "learning_rate": "Adam's learning rate",
    "lr_schedule": "constant, or cosine: decays the learning rate to 0 "
    "over --epochs (keras.optimizers.schedules.CosineDecay; a resumed "
    "run continues it)",
    "patience": "epochs without a better validation score before stopping",
    "quick": "a small subset and at most 2 epochs, for tests and demos",
    "train_examples": "train on a seeded sample of this many training "
    "examples (0: all; with --quick, the smaller of the two)",
    "eval_examples": "validate and test on seeded samples of this many "
    "examples each (0: all)",
    "init_from": "a model.keras saved by this recipe: train on from it "
    "(its vocabulary and labels), or only evaluate it with --epochs 0",
    "tensorboard": "write TensorBoard logs to OUTPUT/tensorboard",
    "train_file": "your training file (--dataset conllu, columns or csv)",
    "dev_file": "your validation file; default: 10%% cut from train",
    "test_file": "your test file; default: 10%% cut from train",
    "tfds_data_dir": "a TensorFlow Datasets data_dir (--dataset tfds:NAME)",
}

_KINDS = {
    bool: "True or False",
    int: "an integer",
    float: "a float",
    str: "a string",
}


def flag_of(name):
    """`"inter_layer_dropout"` -> `"--inter-layer-dropout"`."""
    return "--" + name.replace("_", "-")


def _as_flag(name, error):
    """zoo's "`units[1]` must be ...; received units[1]=0." as
    "--units[1] must be ...; received 0" (one line)."""
    text = str(error).strip().splitlines()[0].rstrip(".")
    text = re.sub(
        rf"`{name}(\[\d+\])?`", lambda m: flag_of(name) + (m[1] or ""), text
    )
    return re.sub(rf"received {name}(\[\d+\])?=", "received ", text)


def _special_choices(option):
    """The choices of a bool option that are no bools (`residual`'s auto)."""
    return tuple(
        c for c in (option.choices or ()) if not isinstance(c, option.type)
    )


def parse_flag(name, text, kind, option=None):
    """The value of flag `--name TEXT`: converted to `kind` and, for a
    stack option, checked by `zoo.options` (as the value of every layer).
    Raises `RecipeError` naming the flag."""
    flag = flag_of(name)
    if kind is bool:  # `--residual` (True) or `--residual auto`
        special = _special_choices(option)
        if text is True or text in special:
            return text
        raise RecipeError(
            f"{flag} takes no value or one of {', '.join(special)}; "
            f"received {text!r}"
        )
    try:
        value = kind(text)
    except ValueError:
        raise RecipeError(
            f"{flag} must be {_KINDS.get(kind, kind.__name__)}; received "
            f"{text!r}"
        ) from None
    if option is not None:
        try:
            value = option.check_entry(name, value)
        except ValueError as error:
            raise RecipeError(_as_flag(name, error)) from None
    return value


class _Setting(argparse.Action):
    """A config flag: its value is converted and checked when parsed, so
    that a typo (`--cell lstn`) stops at once, on one line (a
    `RecipeError`, not argparse's usage message)."""

    def __init__(self, option_strings, dest, kind=str, option=None, **kw):
        super().__init__(option_strings, dest, **kw)
        self.kind = kind
        self.option = option

    def __call__(self, parser, namespace, values, option_string=None):
        value = parse_flag(self.dest, values, self.kind, self.option)
        setattr(namespace, self.dest, value)


def add_config_arguments(parser, config_cls, help_texts=None, skip=()):
    """Adds one `--flag` per field of the dataclass `config_cls`, except
    the fields named in `skip`.

    A stack option's flag has the option's help (unless `help_texts`
    gives one), lists its choices (`--cell {simple_rnn,gru,lstm}`) and
    checks its value by `zoo.options` as it is parsed. A bool is
    `--flag/--no-flag`; `--residual` also takes `auto`."""
    hints = typing.get_type_hints(config_cls)
    skip = set(skip)
    help_texts = help_texts or {}
    # The recipe's own settings (data, head) first, then the inherited
    # stack and training ones, as `--help` lists them.
    own = set(vars(config_cls).get("__annotations__", {}))
    fields = [f for f in dataclasses.fields(config_cls) if f.name not in skip]
    for field in sorted(fields, key=lambda f: f.name not in own):
        flag = flag_of(field.name)
        kind = hints[field.name]
        option = (
            zoo.options.get(field.name) if field.name in STACK_FIELDS else None
        )
        text = help_texts.get(field.name) or (option.help if option else "")
        text = f"{text} (default: {field.default})".strip()
        if kind is bool and option is not None and _special_choices(option):
            special = _special_choices(option)
            parser.add_argument(
                flag,
                action=_Setting,
                kind=bool,
                option=option,
                nargs="?",
                const=True,
                default=None,
                metavar="{" + ",".join(special) + "}",
                help=text,
            )
            parser.add_argument(
                "--no-" + flag[2:],
                dest=field.name,
                action="store_const",
                const=False,
                default=None,
                help=f"turn {flag} off",
            )
        elif kind is bool:
            parser.add_argument(
                flag,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=text,
            )
        else:
            base = typing.get_args(kind)[0] if typing.get_args(kind) else kind
            choices = option.choices if option is not None else None
            parser.add_argument(
                flag,
                action=_Setting,
                kind=base,
                option=option,
                default=None,
                metavar="{" + ",".join(choices) + "}" if choices else None,
                help=text,
            )
    parser.add_argument(
        "--config", help="a JSON or YAML file with the same settings"
    )


def _is_kind(value, kind):
    if kind is bool or kind is str:
        return isinstance(value, kind)
    if kind is int:
        return isinstance(value, numbers.Integral) and not isinstance(
            value, bool
        )
    if kind is float:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    return isinstance(value, kind)


def check_setting(name, value, kind):
    """Returns a `--config` file's value of setting `name` (of type
    `kind`) checked: a stack option by `zoo.options.validate` (a per-layer
    option may be a list), any other by its type. Raises `ValueError`
    naming the setting and what it must be."""
    words = _KINDS.get(kind, getattr(kind, "__name__", str(kind)))
    if value is None:
        raise ValueError(
            f"`{name}` must be {words}; received null (leave it out for "
            "the default)"
        )
    try:
        if name in STACK_FIELDS:
            return zoo.options.validate(name, value)
        if not _is_kind(value, kind):
            raise ValueError(
                f"`{name}` must be {words}; received {name}={value!r} of "
                f"type {type(value).__name__}"
            )
        if kind is float and not math.isfinite(value):
            raise ValueError(
                f"`{name}` must be a finite float; received {name}={value!r}"
            )
        return float(value) if kind is float else value
    except ValueError as error:
        message = str(error).strip().splitlines()[0].rstrip(".")
        if isinstance(value, str) and kind in (int, float):
            try:
                float(value)
            except ValueError:
                pass
            else:
                message += " (a number in quotes is a string)"
        raise ValueError(message) from None


def _load_yaml(text):
    """`yaml.safe_load`, with YAML 1.2's floats: PyYAML follows YAML 1.1,
    where `1e-3` (no dot) is a string, and a learning rate written that
    way would be refused."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(
            r"""^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+
            |[-+]?(?:[0-9][0-9_]*)\.[0-9_]*
            |[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?
            |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$""",
            re.X,
        ),
        list("-+0123456789."),
    )
    return yaml.load(text, Loader=Loader)  # noqa: S506 - a SafeLoader


def read_config_file(path):
    path = pathlib.Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise RecipeError(f"--config {path}: cannot read ({error})") from error
    try:
        if path.suffix in (".yaml", ".yml"):
            values = _load_yaml(text)
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
    hints = typing.get_type_hints(config_cls)
    for name, value in values.items():
        try:
            values[name] = check_setting(name, value, hints[name])
        except ValueError as error:
            raise RecipeError(f"--config {args.config}: {error}") from None
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
    """Runs `main(argv)`; user errors print one line and exit with 2 (an
    error with an `exit_code`, such as a diverged training's, with that)."""
    try:
        return main(argv)
    except (RecipeError, DataError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(getattr(error, "exit_code", 2)) from None


def check_range(name, value, low=None, high=None):
    """Raises `RecipeError` naming `--name` unless `value` is a finite
    number within `[low, high]` (NaN passes every comparison, so it is
    refused first)."""
    if not math.isfinite(value):
        raise RecipeError(
            f"--{name.replace('_', '-')} must be a finite number; received "
            f"{value}"
        )
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise RecipeError(
            f"--{name.replace('_', '-')} must be {bounds}; received {value}"
        )


def cut_splits(parts, config, quick_sizes):
    """`(train, dev, test)` cut to `--quick`'s `quick_sizes` and to
    `--train-examples` / `--eval-examples` (seeded samples, in order, by
    `quick_subset`; the smaller size wins)."""
    limits = (config.train_examples, config.eval_examples, config.eval_examples)
    cut = []
    for part, quick, limit in zip(parts, quick_sizes, limits):
        sizes = [n for n in (quick if config.quick else 0, limit) if n]
        cut.append(quick_subset(part, min(sizes)) if sizes else part)
    return tuple(cut)


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
    """`values` as JSON, written atomically (complete on disk, fsync'd,
    before it replaces `path`): an interrupted write loses nothing."""
    path = pathlib.Path(path)
    partial = path.with_suffix(path.suffix + ".partial")
    with partial.open("w") as handle:
        handle.write(json.dumps(values, indent=2) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    partial.replace(path)


def write_csv(path, rows, columns=(), missing=""):
    """`rows` (dicts) as CSV, written atomically: `columns` first, then
    every other key in the order first seen; `missing` where a row has
    no value for a column."""
    path = pathlib.Path(path)
    keys = list(columns)
    for row in rows:
        keys += [k for k in row if k not in keys]
    partial = path.with_suffix(path.suffix + ".partial")
    with partial.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys, restval=missing)
        writer.writeheader()
        writer.writerows(rows)
    partial.replace(path)


def differences(*parts, here_name="here", limit=3):
    """What differs between settings, for an error message: each part a
    `(prefix, there, here)` of two dicts; `"PREFIXkey: A there, B here;
    ..."` over the parts in order, each part's keys sorted, at most `limit`
    of them and `...` after; "" when nothing differs. `here_name` names the
    second dicts (`in FOLDER`)."""
    found = [
        f"{prefix}{key}: {there.get(key)!r} there, {here.get(key)!r} "
        f"{here_name}"
        for prefix, there, here in parts
        for key in sorted(set(there) | set(here))
        if there.get(key) != here.get(key)
    ]
    return "; ".join(found[:limit]) + ("; ..." if len(found) > limit else "")


def write_rows(rows, folder, name, columns=()):
    """`name.csv` and `name.json` in `folder`, written atomically; the CSV
    has `columns` first, then every other key in the order first seen."""
    folder = pathlib.Path(folder)
    write_csv(folder / f"{name}.csv", rows, columns)
    write_json(folder / f"{name}.json", rows)


def check_training(config):
    """Range checks shared by the recipes' training flags; the stack
    options are checked by `zoo.options.validate` (one left to a `--model`
    variant is None and not checked here)."""
    if config.model:
        if config.model not in zoo.list_models():
            raise RecipeError(
                f"--model {config.model!r} is not a registered backbone; "
                f"choose one of {', '.join(zoo.list_models())}"
            )
    low_epochs = 0 if config.init_from else 1
    check_range("epochs", config.epochs, low=low_epochs)
    check_range("batch_size", config.batch_size, low=1)
    check_range("patience", config.patience, low=0)
    check_range("train_examples", config.train_examples, low=0)
    check_range("eval_examples", config.eval_examples, low=0)
    for name in STACK_FIELDS:
        # One value for all layers, or one per layer (as tuning writes them).
        value = getattr(config, name)
        if value is not None:
            try:
                zoo.options.validate(name, value)
            except ValueError as error:
                raise RecipeError(_as_flag(name, error)) from None
    if not math.isfinite(config.learning_rate):
        raise RecipeError(
            f"--learning-rate must be a finite number > 0; received "
            f"{config.learning_rate}"
        )
    if config.learning_rate <= 0:
        raise RecipeError(
            f"--learning-rate must be > 0; received {config.learning_rate}"
        )
    if config.lr_schedule not in LR_SCHEDULES:
        raise RecipeError(
            f"--lr-schedule must be one of {', '.join(LR_SCHEDULES)}; "
            f"received {config.lr_schedule!r}"
        )


LR_SCHEDULES = ("constant", "cosine")


def learning_rate(config, steps):
    """`--learning-rate` under `--lr-schedule` for a run of `steps`
    optimizer steps: a float, or a `CosineDecay` to 0 (a function of the
    optimizer's step count, which the backup saves, so a resumed run
    picks the curve up where it was)."""
    if config.lr_schedule == "cosine" and steps:
        return keras.optimizers.schedules.CosineDecay(
            config.learning_rate, decay_steps=int(steps)
        )
    return config.learning_rate


def stack_options(config, skip=()):
    """The `zoo.stacked_rnn` keyword arguments a recipe config sets (the
    ones left to a `--model` variant, None, are not passed)."""
    options = {
        name: getattr(config, name)
        for name in STACK_FIELDS
        if getattr(config, name) is not None and name not in skip
    }
    return {**options, "seed": config.seed}


def backbone(
    config, vocabulary_size, return_sequences=True, name="encoder", **extra
):
    """The recipe's stack over token ids: `zoo.create_model(--model)` or
    `zoo.stacked_rnn(--cell, --num-layers, --units)`, with the explicit
    stack flags as overrides; `extra` are more builder arguments (the
    tagger's `char_*`)."""
    import zoo

    options = {**stack_options(config), **extra}
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


MODEL_KINDS = ("tagger", "classifier")


def model_kind(model):
    """`"tagger"` (a label per token) or `"classifier"` (one per text) for
    a model saved by `recipes.tagging` or `recipes.classification`, from
    the rank of its output (a CRF tagger has a `crf` layer); None for any
    other model."""
    names = {layer.name for layer in model.layers}
    if "crf" in names:
        return "tagger"
    rank = len(model.outputs[0].shape) if model.outputs else 0
    return {3: "tagger", 2: "classifier"}.get(rank)


def load_saved_model(path, flag):
    """`keras.saving.load_model(path, safe_mode=True, compile=False)`, its
    failures one line that names `flag`."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise RecipeError(f"{flag} {path}: no such file")
    try:
        return keras.saving.load_model(path, safe_mode=True, compile=False)
    except Exception as error:  # noqa: BLE001 - any load failure
        first = str(error).strip().splitlines()[:1]
        raise RecipeError(
            f"{flag} {path}: cannot load ({first[0] if first else error})"
        ) from None


def load_init_model(path, flag="--init-from", kind=None):
    """A model saved by a recipe, with its `LabelNames` layer's labels;
    errors name `flag`, where the path came from. `kind` (`"tagger"` or
    `"classifier"`): the model must be one (a classifier is no tagger to
    inspect or fine-tune, even where the label sets match)."""
    import recipes.layers  # noqa: F401 - the first release's LabelNames

    path = pathlib.Path(path)
    model = load_saved_model(path, flag)
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
    found = model_kind(model)
    if kind is not None and found != kind:
        saved_by = {
            "tagger": "recipes.tagging",
            "classifier": "recipes.classification",
        }
        raise RecipeError(
            f"{flag} {path}: a {kind} is needed here, but this model is "
            + (
                f"a {found} (saved by {saved_by[found]})"
                if found
                else "neither a tagger nor a classifier"
            )
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


def resolve_labels(
    config, seen, held_out, description, what="labels", kind=None
):
    """`(saved model or None, labels)` for a run.

    With `--init-from`, the saved model and its labels, which must cover
    every label in the data. Otherwise no model and the training labels,
    sorted; a dev/test label never seen in training is an error.
    """
    if config.init_from:
        model, labels = load_init_model(config.init_from, kind=kind)
        check_label_set(seen | held_out, labels, config.init_from)
        return model, labels
    if held_out - seen:
        raise RecipeError(
            f"{what} {sorted(held_out - seen)} occur in dev/test but not in "
            f"train ({description})"
        )
    return None, sorted(seen)
