"""`python -m recipes.language_model`: the backend first (the fastest one
installed for this model on a CPU, PyTorch then JAX, where neither
`--backend` nor `KERAS_BACKEND` chooses: benchmarks/bilm_speed.py
measured it; JAX for `--distribute` other than none, which PyTorch does
not offer), then the command."""

import pathlib
import sys

from harness import entry

FASTEST = ("torch", "jax")
# PyTorch trains on one process only (`--distribute none`).
FASTEST_DISTRIBUTED = ("jax",)


def fastest(argv):
    """The backends to try, fastest first, for the command line `argv`."""
    if entry.flag_value(argv, "--distribute") in (None, "none"):
        return FASTEST
    return FASTEST_DISTRIBUTED


# `--help`, stored (`harness.entry.stored_help`).
HELP_FILE = pathlib.Path(__file__).with_name("help.txt")

if __name__ == "__main__":
    entry.main_of(
        "recipes.language_model.cli",
        fastest=fastest(sys.argv[1:]),
        first=("zoo",),
        help_file=HELP_FILE,
    )
