"""A recipe's command line: `python -m recipes.NAME [flags]`.

One flag per config field (`recipes.config`), `--config`, and the run
options, which are not part of `config.json`: `--distribute`,
`--mixed-precision`, `--overwrite`, `--data-dir` and `--backend`.
"""

import dataclasses
import importlib
import importlib.util
import os
import pathlib
import sys
import typing

import keras

import harness
from harness import extras
from harness import files
from harness import flags
from recipes import arguments
from recipes import distributed
from recipes import results
from recipes import training
from recipes.data import cache

PRECISIONS = {
    "off": "float32",
    "float16": "mixed_float16",
    "bfloat16": "mixed_bfloat16",
}
BACKENDS = ("tensorflow", "jax", "torch")


def set_precision(name):
    """Sets Keras's global dtype policy for `--mixed-precision NAME`."""
    flags.check_choice("mixed_precision", name, tuple(PRECISIONS))
    keras.mixed_precision.set_global_policy(PRECISIONS[name])
    if name != "off":
        print(f"mixed precision: {PRECISIONS[name]} (variables in float32)")


def parser_for(task, prog, doc, help_texts, predictor=None):
    """The recipe's flags: one per config field, `--config`, and the run
    options (`--distribute`, `--mixed-precision`, `--overwrite`,
    `--data-dir`, `--backend`), which are not part of `config.json`;
    with a `Predictor`, the epilog names the `predict` command."""
    epilog = (
        "Any flag can also be set in a --config file (JSON or YAML, the "
        "same names with underscores); flags win over the file."
    )
    if predictor is not None:
        epilog += (
            f" `{prog} predict --model NAME_OR_RUN` {predictor.does} with "
            "a trained run or a shipped preset, one line in, one line out "
            f"(`{prog} predict --help`)."
        )
    parser = flags.ArgumentParser(
        prog=prog,
        description=flags.describe(doc),
        epilog=epilog,
    )
    arguments.add_config_arguments(parser, task.Config, help_texts)
    distributed.add_arguments(parser)
    parser.add_argument(
        "--mixed-precision",
        default="off",
        choices=tuple(PRECISIONS),
        help="compute in float16 or bfloat16 with float32 variables "
        "(keras.mixed_precision; float16 also scales the loss). Worth it "
        "on GPUs with tensor cores; slower on CPUs (default: off)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="empty --output first, even if it holds a run (default: a "
        "rerun of the same config resumes it, another config is refused)",
    )
    parser.add_argument(
        "--data-dir",
        help="where fetched corpora are kept (sets "
        f"{cache.ENV}; default: $KERAS_HOME/stacked-rnn-zoo or "
        "~/.keras/stacked-rnn-zoo)",
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        help="the Keras backend, set before Keras is imported (default: "
        "KERAS_BACKEND, else tensorflow)",
    )
    return parser


@dataclasses.dataclass(frozen=True)
class Predictor:
    """What `python -m recipes.NAME predict` does (`predict`): `load` a
    model by name or path, `transform(predictor, lines, args)` lines into
    result lines, reading one `unit` a line, with extra parser `options`."""

    load: typing.Callable
    transform: typing.Callable
    unit: str = "line"
    options: tuple = ()
    does: str = "reads lines"  # what it does, for the recipe's --help
    model_help: str = (
        "a shipped preset's name (python -m recipes.presets list), a preset "
        "folder, or a run folder or model.keras"
    )


def commands(task, package, help_texts, predictor=None):
    """`(PROG, parser, main)` of the recipe `package`, the command
    `PROG` (`python -m PACKAGE`): `parser()` is `parser_for` and
    `main(argv=None)` is `main` with the task, the package's docstring,
    the `help_texts` and the `Predictor` (if it has `predict`)."""
    prog = f"python -m {package.__name__}"

    def recipe_parser():
        """The recipe's argument parser (what `--help` shows)."""
        return parser_for(task, prog, package.__doc__, help_texts, predictor)

    def recipe_main(argv=None):
        return main(
            task, prog, package.__doc__, help_texts, argv, predictor=predictor
        )

    recipe_parser.__name__ = recipe_parser.__qualname__ = "parser"
    return prog, recipe_parser, recipe_main


def main(task, prog, doc, help_texts, argv=None, predictor=None):
    """A recipe's command line: parse, train and evaluate, print; or,
    with a `Predictor` and `predict` first in `argv`, `predict`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if predictor is not None and argv[:1] == ["predict"]:
        return predict(
            prog,
            predictor.load,
            predictor.transform,
            argv[1:],
            unit=predictor.unit,
            options=predictor.options,
            model_help=predictor.model_help,
        )
    args = parser_for(task, prog, doc, help_texts, predictor).parse_args(argv)
    # The learning curves are drawn at the end: say so before training.
    extras.require("recipes", "matplotlib", what=prog)
    if args.backend and args.backend != keras.backend.backend():
        raise harness.UsageError(
            f"--backend {args.backend}: Keras was already imported with the "
            f"{keras.backend.backend()} backend (pass --backend first on "
            "the command line of `python -m recipes....`, or set "
            "KERAS_BACKEND)"
        )
    set_precision(args.mixed_precision)
    if args.data_dir is not None:
        if not args.data_dir.strip():
            raise harness.UsageError("--data-dir must name a folder")
        os.environ[cache.ENV] = args.data_dir
    config = arguments.resolve_config(task.Config, args)
    # A full disk or Ctrl-C from here on names the run's folder, which a
    # rerun of the same command resumes (`harness.run_cli`); without
    # --overwrite, which would empty it again.
    harness.errors.writes_to(
        config.output,
        rerun="the same command without --overwrite"
        if args.overwrite
        else "the same command",
    )
    metrics = training.train_and_evaluate(
        task,
        config,
        distribute=distributed.options_from(args),
        overwrite=args.overwrite,
    )
    results.print_summary(task, config, metrics)
    return metrics


# The recipes whose `--help` is stored beside their `__main__` (`help.txt`,
# `harness.entry.stored_help`): each package's `cli.parser()`.
HELP_PACKAGES = (
    "recipes.tagging",
    "recipes.classification",
    "recipes.g2p",
    "recipes.translation",
    "recipes.language_model",
    "recipes.presets",
    "recipes.stacks",
)
HELP_COLUMNS = "80"  # the width the stored texts are formatted for


def help_texts(package):
    """`{file name: text}` of `package`'s `--help` (and its `predict
    --help`, if it has that command) as its parsers print them,
    `HELP_COLUMNS` wide."""
    module = importlib.import_module(f"{package}.cli")
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        texts = {"help.txt": module.parser().format_help()}
        found = getattr(module, "PREDICTOR", None)
        if found is not None:
            texts["help-predict.txt"] = predict_parser(
                module.PROG, found.unit, found.options, found.model_help
            ).format_help()
        return texts
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns


def help_folder(package):
    """Where `package`'s stored `--help` texts are: beside its
    `__main__`."""
    return pathlib.Path(importlib.util.find_spec(package).origin).parent


def write_help_files():
    """Writes every recipe's stored `--help` texts (run after changing a
    flag, a default or a help text; tests/recipes/test_help.py says when):

        python -c "from recipes import cli; cli.write_help_files()"
    """
    for package in HELP_PACKAGES:
        for name, text in help_texts(package).items():
            files.write_text(help_folder(package) / name, text)


PREDICT_BATCH = 256  # lines read, transformed and written at a time


def read_lines(path):
    """The lines of UTF-8 text file `path` ("-": standard input), each
    without its line end; a binary or non-UTF-8 file is one line naming
    it and where (`harness.files.decode_text`)."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            raise harness.UsageError(
                f"--input {path}: cannot read ({error.strerror})"
            ) from None
    name = "--input " + ("(standard input)" if path == "-" else path)
    source = None if path == "-" else path
    text = files.decode_text(data, name, source=source)
    # Lines end at "\n" only (a "\r" before it is dropped): a form feed,
    # U+2028 or U+0085 inside a line is text, not a line end, so the
    # output keeps one line per input line (`str.splitlines` would cut).
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line end
    return [line.removesuffix("\r") for line in lines]


def predict_parser(prog, unit="line", options=(), model_help=None):
    """The parser of `python -m recipes.NAME predict` (`predict`)."""
    parser = flags.ArgumentParser(
        prog=f"{prog} predict",
        description=f"Reads one {unit} per line and writes one result per "
        "line.",
    )
    parser.add_argument(
        "--model",
        required=True,
        help=model_help or Predictor.model_help,
    )
    parser.add_argument(
        "--input",
        default="-",
        help="a UTF-8 text file, one input a line ('-': standard input; "
        "default)",
    )
    parser.add_argument(
        "--output",
        default="-",
        help="where the results go, one a line ('-': standard output; default)",
    )
    for names, kwargs in options:
        parser.add_argument(*names, **kwargs)
    return parser


def predict(
    prog, load, transform, argv, unit="line", options=(), model_help=None
):
    """`python -m recipes.NAME predict`: loads `--model` with `load` (a
    shipped preset's name, a preset folder or a run folder), reads lines
    from `--input` (a file or standard input), and writes `transform(
    predictor, lines, args)` (one string per line) to `--output`, one
    result per input line, in batches of `PREDICT_BATCH` lines (an empty
    line gives an empty one). `options`: extra `(flags, kwargs)` for the
    parser."""
    args = predict_parser(prog, unit, options, model_help).parse_args(argv)
    predictor = load(args.model)
    lines = read_lines(args.input)
    out = sys.stdout if args.output == "-" else None
    if out is None:
        try:
            out = open(args.output, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as error:
            raise harness.UsageError(
                f"--output {args.output}: cannot write ({error.strerror})"
            ) from None
    try:
        for start in range(0, len(lines), PREDICT_BATCH):
            chunk = lines[start : start + PREDICT_BATCH]
            filled = [i for i, line in enumerate(chunk) if line.strip()]
            results = [""] * len(chunk)
            done = transform(predictor, [chunk[i] for i in filled], args)
            for i, result in zip(filled, done):
                results[i] = result
            out.write("".join(f"{r}\n" for r in results))
            out.flush()
    finally:
        if out is not sys.stdout:
            out.close()
    return len(lines)
