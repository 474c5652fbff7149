"""`python -m recipes.language_model`: pretrain (or fine-tune) a biLM."""

import os
import sys

import keras

import recipes.language_model as package
from harness import entry
from recipes import cli
from recipes.language_model import config
from recipes.language_model.task import TASK

# `_train(argv)`: `main` without the line naming the backend.
PROG, parser, _train = cli.commands(TASK, package, config.HELP)


def main(argv=None):
    """`python -m recipes.language_model` with the arguments `argv` (a
    list of strings; default `sys.argv[1:]`); returns the run's metrics.
    Bad arguments raise `harness.UsageError` (one line, exit 2 from the
    command line)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not {"-h", "--help"} & set(argv):
        print(
            f"backend: {keras.backend.backend()}"
            + (
                " (the fastest here for this model; --backend or "
                "KERAS_BACKEND chooses another)"
                if os.environ.get(entry.FASTEST_ENV)
                else ""
            ),
            flush=True,
        )
    return _train(argv)
