"""`python -m recipes.g2p`: the backend first, then the command."""

import pathlib

from harness import entry

# `--help`, stored (`harness.entry.stored_help`).
HELP_FILE = pathlib.Path(__file__).with_name("help.txt")

if __name__ == "__main__":
    entry.main_of("recipes.g2p.cli", first=("zoo",), help_file=HELP_FILE)
