"""User errors: one line on standard error, exit code 2.

`run_cli` is the one error path of every command line: a `UsageError`,
an operating system's refusal to write (a full disk, a missing
permission, a read-only file system, h5py's failure to flush a file) and
Ctrl-C each end in one line on standard error, never a traceback.
"""

import errno
import os
import pathlib
import shutil
import sys


class UsageError(ValueError):
    """A user's mistake (a bad flag, file or folder): `run_cli` prints its
    message on one line and exits with code 2 (or the error's
    `exit_code`). Data loaders raise `recipes.data.errors.DataError`, a
    subclass."""

    exit_code = 2


# The exit code of a job stopped by Ctrl-C (128 + SIGINT), as a shell's.
INTERRUPTED = 130
# A failure in the middle of training: what was kept is said.
FAILED_IN_TRAINING = 1
FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
REFUSED = (errno.EACCES, errno.EPERM, errno.EROFS)

# The folder the running job writes and whether a rerun of the same
# command resumes it (`writes_to`); what `run_cli`'s lines name.
_OUTPUT = {"folder": None, "resumes": False, "rerun": "the same command"}


def writes_to(folder, resumes=True, rerun="the same command"):
    """Tells `run_cli` the folder this job writes (a recipe's `--output`,
    a search's project), whether a rerun resumes from its last backup,
    and what to rerun (`"the same command without --overwrite"` for a
    run started with `--overwrite`, which would empty the folder again);
    its one-line errors then name them."""
    _OUTPUT["folder"] = None if folder is None else pathlib.Path(folder)
    _OUTPUT["resumes"] = bool(resumes)
    _OUTPUT["rerun"] = rerun


def _size(count):
    """`"12.3 MB"`: a number of bytes in decimal units."""
    for unit in ("bytes", "KB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return (
                f"{count:.0f} bytes"
                if unit == "bytes"
                else (f"{count:.1f} {unit}")
            )
        count /= 1000


def free_space(folder):
    """`"1.2 GB free"` on the file system of `folder` (or of the nearest
    folder above it that exists); "" when it cannot be told."""
    path = pathlib.Path(folder).absolute()
    for candidate in (path, *path.parents):
        if candidate.exists():
            try:
                return f"{_size(shutil.disk_usage(candidate).free)} free"
            except OSError:
                return ""
    return ""


def _frames(error):
    """The frames of `error`'s traceback."""
    trace = error.__traceback__
    while trace is not None:
        yield trace.tb_frame
        trace = trace.tb_next


def _module(frame):
    return frame.f_globals.get("__name__", "").split(".")[0]


def _is_callback(value):
    """Whether `value` is a `keras.callbacks.Callback` (told without
    importing Keras)."""
    return any(
        cls.__name__ == "Callback" and cls.__module__.startswith("keras")
        for cls in type(value).__mro__
    )


def in_training(error):
    """Whether `error` was raised while a model trained: inside Keras's
    `Model.fit`, or in a Keras callback (which `fit` calls; the recipes'
    backups are written by one). Keras cuts its own frames out of a
    traceback (`keras.config.disable_traceback_filtering`), a callback's
    stay."""
    return any(
        (_module(frame) == "keras" and frame.f_code.co_name == "fit")
        or _is_callback(frame.f_locals.get("self"))
        for frame in _frames(error)
    )


def _is_h5py_write_failure(error):
    """h5py's `RuntimeError` when it cannot flush or close a file it
    writes (a full disk mid-save: "Disable slist on flush dest failure
    failed", "Can't decrement id ref count", ...)."""
    return isinstance(error, RuntimeError) and any(
        _module(frame) == "h5py" for frame in _frames(error)
    )


def _folder_of(error):
    """The folder to name: the job's own, else the failing file's."""
    if _OUTPUT["folder"] is not None:
        return _OUTPUT["folder"]
    name = getattr(error, "filename", None)
    if isinstance(name, (str, bytes, os.PathLike)):
        path = pathlib.Path(os.fsdecode(name))
        return path if path.is_dir() else path.parent
    return pathlib.Path.cwd()


def _kept(training):
    """What a failure kept, for its one line (the job's folder told)."""
    folder = _OUTPUT["folder"]
    if folder is None or not _OUTPUT["resumes"]:
        return ""
    if training:
        return (
            f"; the work up to the last backup in {folder} is kept: rerun "
            f"{_OUTPUT['rerun']} to resume from it"
        )
    return f"; rerun {_OUTPUT['rerun']} once fixed"


def describe_os_error(error, training=False):
    """One line for a write the system refused (full disk, permissions,
    h5py's flush failure); None for another error."""
    code = getattr(error, "errno", None)
    name = getattr(error, "filename", None)
    where = f" {os.fsdecode(name)}" if name else ""
    if _is_h5py_write_failure(error) or code in FULL:
        folder = _folder_of(error)
        free = free_space(folder)
        why = error.strerror if code in FULL else f"h5py: {error}"
        reason = "no space left" if code == errno.ENOSPC else why
        return (
            f"cannot write{where}: {reason} (in {folder}"
            + (f": {free}" if free else "")
            + ")"
            + _kept(training)
        )
    if code in REFUSED:
        return (
            f"cannot write{where}: {error.strerror} (check the "
            "permissions of the folder, or choose another one)"
            + _kept(training)
        )
    return None


def run_cli(main, argv=None):
    """Runs `main(argv)`; each of these ends in one line on standard
    error, `error: ...`, and an exit code:

    - a `UsageError`: its `exit_code` (2, or a diverged training's 1);
    - a full disk, a refused permission or a read-only file system (an
      `OSError`) or h5py's failure to flush a file: 1 when it happened
      while the model trained (the line says the last backup is kept),
      2 otherwise (nothing was trained yet);
    - Ctrl-C (`KeyboardInterrupt`): 130, as a shell's.

    Any other exception is a bug, and keeps its traceback."""
    writes_to(None)
    try:
        return main(argv)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(error.exit_code) from None
    except KeyboardInterrupt:
        print(
            "error: interrupted (Ctrl-C)"
            + (
                f"; rerun {_OUTPUT['rerun']} to resume {_OUTPUT['folder']} "
                "from its last backup"
                if _OUTPUT["folder"] is not None and _OUTPUT["resumes"]
                else ""
            ),
            file=sys.stderr,
        )
        raise SystemExit(INTERRUPTED) from None
    except (OSError, RuntimeError) as error:
        training = in_training(error)
        line = describe_os_error(error, training)
        if line is None:
            raise
        print(f"error: {line}", file=sys.stderr)
        raise SystemExit(FAILED_IN_TRAINING if training else 2) from None


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
