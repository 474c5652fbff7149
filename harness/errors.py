"""User errors: one line on standard error, exit code 2."""

import sys


class UsageError(ValueError):
    """A user's mistake (a bad flag, file or folder): `run_cli` prints its
    message on one line and exits with code 2 (or the error's
    `exit_code`). Data loaders raise `recipes.data.errors.DataError`, a
    subclass."""

    exit_code = 2


def run_cli(main, argv=None):
    """Runs `main(argv)`; a `UsageError` prints `error: MESSAGE` on one
    line and exits with its `exit_code` (2, or a diverged training's 1)."""
    try:
        return main(argv)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(error.exit_code) from None
