"""What a command line does before Keras is imported: choose the backend.

Keras reads `KERAS_BACKEND` once, when it is first imported, so a
`--backend NAME` flag has to be applied before anything imports it. Each
`python -m recipes.X` entry point (its `__main__`) calls `choose_backend`
first, then imports its command line; importing `recipes` from a
program of your own sets nothing.

    # recipes/tagging/__main__.py
    from harness import entry
    entry.choose_backend(sys.argv[1:])
    from recipes.tagging import cli  # Keras is imported from here on

Nothing here imports Keras or a backend.
"""

import importlib
import importlib.util
import os
import pathlib
import sys

from harness.errors import run_cli

BACKENDS = ("tensorflow", "jax", "torch")
# Set when `choose_backend` picked the fastest installed backend itself
# (the command says so at the start).
FASTEST_ENV = "STACKED_RNN_ZOO_FASTEST_BACKEND"


def flag_value(argv, flag):
    """The value of `FLAG VALUE` (or `FLAG=VALUE`) in `argv`, `flag` as
    `"--name"`, before any `--` (after it, the words are another
    command's); None if absent."""
    for i, arg in enumerate(argv):
        if arg == "--":
            return None
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def backend_flag(argv):
    """The value of `--backend NAME` (or `--backend=NAME`) in `argv`
    (`flag_value`); None if absent."""
    return flag_value(argv, "--backend")


def _installed(module):
    try:
        return importlib.util.find_spec(module) is not None
    except (ValueError, ImportError):
        return False


def choose_backend(argv, fastest=()):
    """Sets `KERAS_BACKEND` for this process from `--backend NAME` in
    `argv`; without the flag or `KERAS_BACKEND`, the first of `fastest`
    that is installed (and `FASTEST_ENV`), if any. A bad name is left
    for the parser, which refuses it in one line. Returns the backend
    chosen here, or None (Keras's own choice stands). Does nothing once
    Keras is imported (the recipe's parser then refuses a different
    `--backend` in one line)."""
    if "keras" in sys.modules:
        return None
    flag = backend_flag(argv)
    if flag in BACKENDS:
        os.environ["KERAS_BACKEND"] = flag
        return flag
    if flag is None and not os.environ.get("KERAS_BACKEND"):
        for name in fastest:
            if _installed(name):
                os.environ["KERAS_BACKEND"] = name
                os.environ[FASTEST_ENV] = name
                return name
    return None


def quiet_tensorflow():
    """TensorFlow's C++ start-up logs off unless the user asked for them
    (`TF_CPP_MIN_LOG_LEVEL`): a command line's first lines are its own."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def stored_help(argv, help_file):
    """The stored `--help` text for a bare `-h` / `--help` (or `predict
    --help`, from `help-predict.txt` beside `help_file`), or None.

    A recipe's parser is built from its settings, which come from the
    library's option table, so printing it imports Keras and its backend
    (seconds, TensorFlow's most). Its text is stored beside the recipe's
    `__main__` instead (`help.txt`, written by
    `recipes.cli.write_help_files` and checked against the live parser
    by tests/recipes/test_help.py), so `--help` answers at once."""
    argv = list(argv)
    if help_file is None:
        return None
    if argv in (["-h"], ["--help"]):
        path = pathlib.Path(help_file)
    elif argv in (["predict", "-h"], ["predict", "--help"]):
        path = pathlib.Path(help_file).with_name("help-predict.txt")
    else:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None  # not installed beside it: the parser prints it


def main_of(module, function="main", fastest=(), first=(), help_file=None):
    """`python -m PACKAGE`'s body: choose the backend from the command
    line (`choose_backend`, with `fastest`), import the modules `first`
    (the recipes name `zoo`, whose import checks that the chosen backend
    is installed and names the extra to install if not), then `module`,
    and run its
    `function` under `harness.run_cli` (one line and exit code 2 for a
    user's mistake, a backend that is not installed included). A bare
    `--help` prints `help_file` (`stored_help`) and imports nothing."""
    text = stored_help(sys.argv[1:], help_file)
    if text is not None:
        print(text, end="")
        raise SystemExit(0)
    quiet_tensorflow()
    choose_backend(sys.argv[1:], fastest)
    try:
        for name in first:
            importlib.import_module(name)
        target = importlib.import_module(module)
    except ImportError as error:
        if error.name not in BACKENDS:
            raise
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    run_cli(getattr(target, function))
