"""`python -m recipes.inspect TOOL`: moved to `python -m diagnostics TOOL`,
which this forwards to."""

from diagnostics.__main__ import main
from recipes import common

if __name__ == "__main__":
    common.run_cli(main)
