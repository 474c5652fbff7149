"""One job per folder, and the run directory a job and its reruns share.

`FolderLock` keeps two jobs out of one folder (the recipes' `--output`,
`tuning.search`'s project, the diagnostics tools' `--output`);
`RunDirectory` is the contract between a training job and its reruns:
locked while a job holds it, a manifest of the config that started it,
resumable, finished runs not retrained, another config refused before
anything is written.
"""

import contextlib
import dataclasses
import fcntl
import json
import os
import pathlib
import shutil
import socket
import tempfile

from harness import files
from harness.errors import UsageError


class FolderLock:
    """One job per folder: an exclusive `fcntl.flock` on `FOLDER/.lock`,
    which holds the holder's pid and host.

    `acquire` creates the folder (checking that it can write there) and
    raises `UsageError` naming `flag`, the folder and the job holding it
    when another job does; the lock goes with the process, so a killed
    job never leaves a stale one (its file stays, unlocked, until the
    next job takes it). `release` deletes the file: a finished job leaves
    none. That is safe because `acquire` keeps a lock only on the file
    that is still at `FOLDER/.lock` once locked (a job that opened the
    file just before another deleted it tries again). Used by the
    recipes' `RunDirectory`, `tuning.search`'s project and the
    diagnostics tools' `--output`.

    `name` locks another file than `.lock` in the folder, `doing` is what
    the holder is said to do: `python -m recipes.presets export` locks
    one preset's name in `--dest` (`.NAME.lock`), not the whole folder.
    """

    NAME = ".lock"

    def __init__(self, path, flag="--output", name=None, doing=None):
        if not str(path).strip():
            raise UsageError(
                f"{flag} must name a folder; received {str(path)!r}"
            )
        self.path = pathlib.Path(path)
        self.flag = flag
        self.name = name or self.NAME
        self.doing = doing or "is running in this folder"
        self.created = False  # whether this job made the lock file
        self._handle = None

    def acquire(self):
        path = self.path
        try:
            path.mkdir(parents=True, exist_ok=True)
            # A probe of its own: jobs that start together each write one.
            probe, name = tempfile.mkstemp(prefix=".write-test.", dir=path)
            os.close(probe)
            os.unlink(name)
        except OSError as error:
            raise UsageError(
                f"{self.flag} {path}: cannot write there ({error.strerror})"
            ) from None
        lock = path / self.name
        self.created = not lock.exists()
        while True:
            try:
                handle = lock.open("a+")
            except OSError as error:  # a folder, a file not ours to write
                raise UsageError(
                    f"{self.flag} {path}: its lock file {lock} cannot be "
                    f"opened ({error.strerror}); remove it if no job runs "
                    f"there, or choose another {self.flag}"
                ) from None
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.seek(0)
                holder = handle.read().split()
                handle.close()
                who = (
                    f"job {holder[0]} on {holder[1]}"
                    if len(holder) == 2
                    else "another job"
                )
                raise UsageError(
                    f"{self.flag} {path}: {who} {self.doing}; wait for it "
                    f"or choose another {self.flag}"
                ) from None
            if _same_file(handle, lock):
                break
            handle.close()  # deleted by the job that held it: again
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()} {socket.gethostname()}\n")
        handle.flush()
        self._handle = handle
        return self

    def release(self, remove=False):
        """Deletes the lock file and unlocks; `remove=True` also deletes
        the folder, if that leaves it empty."""
        if self._handle is None:
            return
        (self.path / self.name).unlink(missing_ok=True)
        if remove:
            with contextlib.suppress(OSError):
                self.path.rmdir()  # only if empty
        self._handle.close()
        self._handle = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc_info):
        self.release()


def _same_file(handle, path):
    """Whether the open `handle` is the file now at `path`."""
    try:
        return os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
    except FileNotFoundError:
        return False


def empty_folder(path, ignore_errors=False):
    """Deletes what `path` holds but its `FolderLock` file (`--overwrite`,
    and a failed new run cleaning up after itself)."""
    for child in pathlib.Path(path).iterdir():
        if child.name == FolderLock.NAME:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=ignore_errors)
        elif ignore_errors:
            child.unlink(missing_ok=True)
        else:
            child.unlink()


def read_saved_config(saved):
    """A run's `config.json` (the path `saved`) as a dict; one line (a
    `UsageError`) if it is damaged."""
    try:
        values = json.loads(saved.read_text())
    except (ValueError, UnicodeDecodeError) as error:
        found = f"not JSON ({error})"
    else:
        if isinstance(values, dict):
            return values
        found = f"a JSON {type(values).__name__}, not an object"
    raise UsageError(
        f"{saved} is damaged: {found}; pass --overwrite to start the "
        "run again, or choose another --output"
    )


class RunDirectory:
    """`--output` as a contract between a job and its reruns.

    - a lock (`FolderLock`): a second job on the same folder stops with
      one line naming the job that holds it, instead of mixing its files
      in;
    - `config.json`, the manifest, written before training: a rerun with
      the same config resumes from the last backup, or, once
      `metrics.json` is there, is finished; a rerun with another config
      is refused (naming what differs) before anything is written;
    - `state`, once open: `"new"`, `"interrupted"` (a run of this config
      that did not finish: resumed) or `"finished"`; another job sees
      the folder as running (its lock);
    - a non-empty folder holding no run is refused;
    - `overwrite=True` empties the folder (logs and TensorBoard files
      included), but only at `begin`, once the new run's data loaded: a
      bad flag or data file leaves the old run whole;
    - `abandon()`: a new run that failed before its first epoch was
      backed up (bad data) removes what it wrote, so that a rerun with
      corrected settings is not refused as another config.
    """

    def __init__(self, path, config, overwrite=False):
        self.path = pathlib.Path(path)
        self.config = dataclasses.asdict(config)
        # A setting added since a run was started is missing from its
        # config.json: the run had the default.
        # (`SAVED_DEFAULTS`: where the default has changed since.)
        self.defaults = {
            **{
                f.name: f.default
                for f in dataclasses.fields(config)
                if f.default is not dataclasses.MISSING
            },
            **getattr(config, "SAVED_DEFAULTS", {}),
        }
        self.overwrite = overwrite
        self.state = None
        self._emptied = False  # whether `begin` has run (with overwrite)
        self._lock = FolderLock(path)

    def open(self):
        """Locks the folder and checks it: a rerun of this config, a new
        run, or (`overwrite`) one to empty. Nothing is deleted here: with
        `overwrite`, `begin` empties the folder once the new run's data
        are loaded, so that a typo in a data flag loses no run."""
        path = self.path
        self._lock.acquire()
        try:
            self._check_and_write(path)
        except BaseException:
            # Refused: leave the folder as it was (no stray `.lock`).
            self._lock.release(remove=self._lock.created)
            raise
        return path

    # What a run keeps in its folder, and whether each is a file or a
    # folder: one of the other kind (a `metrics.json` folder, a `backup`
    # file) would fail the run when it writes there, after training.
    ENTRIES = {
        "config.json": "file",
        "metrics.json": "file",
        "model.keras": "file",
        "log.csv": "file",
        "backup": "folder",
    }

    def _check_entries(self, path):
        for name, kind in self.ENTRIES.items():
            entry = path / name
            if not (entry.exists() or entry.is_symlink()):
                continue
            found = "folder" if entry.is_dir() else "file"
            if found != kind or not (entry.is_dir() or entry.is_file()):
                found = found if entry.exists() else "broken link"
                raise UsageError(
                    f"--output {path}: {name} is a {found}, where a run "
                    f"keeps a {kind}; move it away, or pass --overwrite "
                    "to start again"
                )

    def _check_and_write(self, path):
        saved = path / "config.json"
        self.state = "new"
        self._emptied = not self.overwrite
        if self.overwrite:
            return  # `begin` empties the folder and writes config.json
        self._check_entries(path)
        if saved.is_file():
            old = {**self.defaults, **read_saved_config(saved)}
            changed = sorted(
                k
                for k in set(old) | set(self.config)
                if old.get(k) != self.config.get(k)
            )
            if changed:
                what = ", ".join(
                    f"{k} {old.get(k)!r} -> {self.config.get(k)!r}"
                    for k in changed[:4]
                )
                raise UsageError(
                    f"--output {path} holds a run with another config "
                    f"({what}); rerun it with the same settings to resume, "
                    "or pass --overwrite, or choose another --output"
                )
            self.state = "finished" if self.finished else "interrupted"
        elif [c for c in path.iterdir() if c.name != FolderLock.NAME]:
            raise UsageError(
                f"--output {path} is not empty and holds no run of this "
                "recipe; choose another --output or pass --overwrite"
            )
        files.write_json(saved, self.config)

    def begin(self):
        """Call once the run's config and data are checked, before it
        writes anything else: `overwrite` empties the folder (logs and
        TensorBoard files included) and writes `config.json` now."""
        if self._emptied:
            return
        empty_folder(self.path)
        files.write_json(self.path / "config.json", self.config)
        self._emptied = True

    @property
    def finished(self):
        return (self.path / "metrics.json").is_file()

    def abandon(self):
        """After a failure: a new run with no epoch backed up empties the
        folder it filled (removed too if this job created it); an
        `overwrite` that had not begun leaves the old run as it was."""
        if not self._emptied:
            self.close(remove=self._lock.created)
            return
        if self.state != "new" or (self.path / "backup").exists():
            return
        empty_folder(self.path, ignore_errors=True)
        self.close(remove=self._lock.created)

    def close(self, remove=False):
        self._lock.release(remove=remove)


def prepare_output(config):
    """Creates `config.output` and writes the resolved `config.json` (a
    dataclass config)."""
    output = pathlib.Path(config.output)
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(
            f"--output {output}: cannot create ({error})"
        ) from None
    files.write_json(output / "config.json", dataclasses.asdict(config))
    return output
