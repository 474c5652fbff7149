"""`python -m recipes.language_model`: the backend first (the fastest one
installed for this model on a CPU, JAX then PyTorch, where neither
`--backend` nor `KERAS_BACKEND` chooses: benchmarks/bilm_speed.py
measured it), then the command."""

import pathlib

from harness import entry

FASTEST = ("jax", "torch")
# `--help`, stored (`harness.entry.stored_help`).
HELP_FILE = pathlib.Path(__file__).with_name("help.txt")

if __name__ == "__main__":
    entry.main_of(
        "recipes.language_model.cli",
        fastest=FASTEST,
        first=("zoo",),
        help_file=HELP_FILE,
    )
