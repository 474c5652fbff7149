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


def shorten(value, limit=80):
    """`value` as an error message shows it: its `repr`, cut to `limit`
    characters when longer, followed by its full length, so that a 2 MB
    line read from a data file keeps the message on one short line.

    A string shows its first `limit` characters (`'abc'... (2,000,000
    characters)`); another value (a list of column names) its repr's.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value):,} characters)"
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"
