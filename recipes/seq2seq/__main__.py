"""`python -m recipes.seq2seq`, the G2P recipe's old name: runs
`python -m recipes.g2p` with the same arguments (and prints its stored
`--help`)."""

import pathlib

from harness import entry

# `recipes.g2p`'s stored `--help` (`harness.entry.stored_help`), found
# without importing the package.
HELP_FILE = pathlib.Path(__file__).parents[1] / "g2p" / "help.txt"

if __name__ == "__main__":
    entry.main_of("recipes.g2p.cli", first=("zoo",), help_file=HELP_FILE)
