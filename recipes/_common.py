"""What every recipe shares: config files, exit codes, callbacks, plots."""

import argparse
import dataclasses
import json
import pathlib
import sys
import typing

from recipes.data.errors import DataError


class RecipeError(ValueError):
    """A user error: printed on one line, exit code 2."""


def add_config_arguments(parser, config_cls, help_texts=None):
    """Adds one `--flag` per field of the dataclass `config_cls`."""
    hints = typing.get_type_hints(config_cls)
    help_texts = help_texts or {}
    for field in dataclasses.fields(config_cls):
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
        value = getattr(args, name)
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
