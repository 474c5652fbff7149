"""The one exception type data loaders raise for bad or missing data."""

import harness


class DataError(harness.UsageError):
    """A corpus is missing, unreadable or malformed.

    The message says which file (and line, where there is one) and what to
    do; recipe CLIs print it on one line and exit with code 2 (it is a
    `harness.UsageError`).
    """
