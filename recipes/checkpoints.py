"""A run's backup that survives a kill at any moment.

`RunBackup` replaces `keras.callbacks.BackupAndRestore` in the training
loop, because that callback loses or corrupts work in three ways a
recipe hits (tests/recipes/test_resume.py kills runs to show it):

- it overwrites `latest.weights.h5` in place, so a SIGKILL while h5py
  writes leaves a file that no longer opens (`OSError: bad object header
  version number`) and the rerun dies;
- it deletes the backup when `fit` returns, before the test evaluation,
  `model.keras` and `metrics.json`: a kill in that gap loses the whole
  training;
- it does not keep `EarlyStopping`'s state (best score, patience used,
  best weights), so a resumed run can stop late, or restore weights
  worse than the best it had seen before the kill.

The backup directory holds `epoch-N.weights.h5` (model and optimizer),
`rng-N.npz` (the states of the model's `keras.random.SeedGenerator`s,
which `save_weights` leaves out: without them a resumed seeded run would
draw other dropout masks than an uninterrupted one), `best-N.npz` (the
early-stopping best weights) and `training_metadata.json`,
which names them and keeps every epoch's logs. Each file is complete
before the metadata names it, and the metadata is replaced atomically
(`os.replace`), so whatever instant a kill comes, the backup is the last
finished epoch. `log.csv` is rewritten from the same logs, so it never
repeats or misses an epoch. The loop calls `discard` only once
`metrics.json` is written.

A backup made on other data or another backend is refused, saying what
changed (`recipes.fingerprints`). The test hooks that pause a run at a
chosen phase are in `recipes.pauses` (`PAUSE_ENV`, `pause_point`,
`PauseMidEpoch`, also importable from here).
"""

import json
import os
import pathlib
import shutil
import time

import keras
import numpy as np

from harness import files
from harness.errors import UsageError
from recipes import fingerprints
from recipes.pauses import PAUSE_ENV  # noqa: F401  (re-exported)
from recipes.pauses import PauseMidEpoch  # noqa: F401  (re-exported)
from recipes.pauses import pause_point  # noqa: F401  (re-exported)

METADATA = "training_metadata.json"


def _fsync(path):
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _number(value):
    value = np.asarray(value)
    return float(value) if value.ndim == 0 else value.tolist()


def _rng_variables(model):
    """The model's seed generators' states: its variables that are not
    weights (`save_weights` does not save them)."""
    weights = {id(w) for w in model.weights}
    return [v for v in model.variables if id(v) not in weights]


def write_log(path, rows):
    """`rows` (one dict per epoch) as `log.csv`, written atomically, in
    `keras.callbacks.CSVLogger`'s layout (`epoch`, then sorted keys),
    epochs numbered from 1 as in Keras's progress bar and the plots
    (`CSVLogger` numbers them from 0)."""
    keys = sorted({k for row in rows for k in row if k != "epoch"})
    numbered = [{**row, "epoch": row["epoch"] + 1} for row in rows]
    files.write_csv(path, numbered, ["epoch", *keys], missing="NA")


class BackupError(UsageError):
    """A backup that cannot be restored: a file its metadata names is
    missing or does not load. One line naming the file (exit 2)."""


def _load_arrays(path):
    with np.load(path) as arrays:
        return [arrays[f"arr_{i}"] for i in range(len(arrays.files))]


def _load_rng(model, path):
    arrays = _load_arrays(path)
    variables = _rng_variables(model)
    if len(arrays) != len(variables):
        raise ValueError(
            f"holds {len(arrays)} seed generator states; the model has "
            f"{len(variables)}"
        )
    for variable, array in zip(variables, arrays):
        variable.assign(array)


class RunBackup(keras.callbacks.Callback):
    """Backs a run up at every epoch's end; `restore` resumes it.

    Args:
        directory: where this job writes its backup.
        source: where to resume from (default `directory`); a non-chief
            worker resumes from the chief's backup and writes its own.
        early_stopping: the run's `keras.callbacks.EarlyStopping`, whose
            state is kept and given back on resume.
        log: `log.csv` to rewrite from the backup's logs (None: none).
        fingerprint: what the run trains on (a JSON-able dict: its data,
            backend and Keras version; `recipes.training.fingerprint`),
            kept in the backup: `restore` refuses a backup made on other
            data or another backend (None: not checked).

    Put it after the callbacks that add to the epoch's logs or decide to
    stop (validation metrics, `EarlyStopping`, `TerminateOnNaN`): what
    it saves is then the epoch as those callbacks left it.
    """

    def __init__(
        self,
        directory,
        source=None,
        early_stopping=None,
        log=None,
        fingerprint=None,
    ):
        super().__init__()
        self.fingerprint = fingerprint
        self.directory = pathlib.Path(directory)
        self.source = pathlib.Path(source) if source else self.directory
        self.early_stopping = early_stopping
        self.log = pathlib.Path(log) if log else None
        self.rows = []  # every epoch's logs, resumed ones included
        self.stopped = False  # the run stopped itself (early stopping)
        self.train_seconds = 0.0
        self.resumed_at = 0  # epochs done when the run resumed (0: none)
        self.diverged = 0  # the epoch (1-based) whose loss was not finite
        self._early = None  # EarlyStopping state to give back
        self._best_arrays = None  # early stopping's best, from `restore`
        self._clock = time.perf_counter()

    # --- resume ---------------------------------------------------------

    def _damaged(self, path, what):
        return BackupError(
            f"{path}: {what}; the backup in {self.source} cannot be "
            f"restored, so the run cannot resume (rerun with --overwrite to "
            "start again, or choose another --output)"
        )

    def _metadata(self):
        path = self.source / METADATA
        if not path.is_file():
            return None
        try:
            metadata = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError) as error:
            raise self._damaged(
                path, f"not a backup this recipe wrote ({error})"
            ) from None
        epoch = metadata.get("epoch") if isinstance(metadata, dict) else None
        if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
            raise self._damaged(
                path, "not a backup this recipe wrote (no epoch number)"
            )
        return metadata

    def _named(self, metadata, key, required=True):
        """The file `metadata[key]` names, checked to be in the backup."""
        name = metadata.get(key)
        if not name:
            if required:
                raise self._damaged(
                    self.source / METADATA, f"names no {key} file"
                )
            return None
        path = self.source / str(name)
        if not path.is_file():
            raise self._damaged(
                path, f"missing (named by {METADATA} as the {key})"
            )
        return path

    def _load(self, path, load):
        try:
            return load(path)
        except Exception as error:  # h5py, NumPy and Keras raise any kind
            found = str(error).splitlines()[0][:200] if str(error) else ""
            raise self._damaged(
                path, f"does not load ({type(error).__name__}: {found})"
            ) from None

    def restore(self, model):
        """Loads the last backed-up epoch into `model` (weights and
        optimizer state); returns how many epochs are done (0: none).

        Every file the backup's metadata names must load (weights, seed
        generator states, the early-stopping best weights): a missing or
        damaged one raises `BackupError` naming it, rather than resuming
        on fresh weights."""
        metadata = self._metadata()
        if metadata is None:
            return 0
        self._check_fingerprint(metadata)
        weights = self._named(metadata, "weights")
        rng = self._named(metadata, "rng", required=False)
        best = self._named(metadata, "best_weights", required=False)
        if model.optimizer is not None and not model.optimizer.built:
            model.optimizer.build(model.trainable_variables)
        self._load(weights, lambda path: model.load_weights(str(path)))
        if rng is not None:
            self._load(rng, lambda path: _load_rng(model, path))
        self._best_arrays = (
            self._load(best, _load_arrays) if best is not None else None
        )
        try:
            self.rows = [dict(row) for row in metadata.get("logs", [])]
            for row in self.rows:
                row["epoch"] = int(row["epoch"])
            self.stopped = bool(metadata.get("stopped", False))
            self.train_seconds = float(metadata.get("train_seconds", 0.0))
            early = metadata.get("early_stopping") or None
            if early is not None:
                early = {
                    "wait": int(early["wait"]),
                    "best": float(early["best"]),
                    "best_epoch": int(early["best_epoch"]),
                    # None: a backup from before the monitor was kept.
                    "monitor": early.get("monitor"),
                }
            self._early = early
        except (TypeError, ValueError, KeyError) as error:
            raise self._damaged(
                self.source / METADATA,
                f"not a backup this recipe wrote ({error!r})",
            ) from None
        if self.log is not None and self.rows:
            write_log(self.log, self.rows)
        self.resumed_at = metadata["epoch"]
        return self.resumed_at

    def _check_fingerprint(self, metadata):
        saved, now = metadata.get("fingerprint"), self.fingerprint
        if not saved or not now or saved == now:
            return
        if not isinstance(saved, dict):
            raise self._damaged(
                self.source / METADATA, "holds a damaged fingerprint"
            )
        changed = fingerprints.differences(saved, now)
        whats = dict.fromkeys(what for what, _ in changed)
        raise BackupError(
            f"the {' and '.join(whats)} changed since this run began "
            f"({'; '.join(how for _, how in changed)}): its backup of epoch "
            f"{metadata['epoch']} ({self.source / METADATA}) was trained on "
            "the old, and resuming would mix them: rerun with what it "
            "started with to resume, or pass --overwrite to start again, or "
            "choose another --output"
        )

    def _best_weights(self):
        return self._best_arrays

    def _give_back_early_stopping(self):
        stopper, state = self.early_stopping, self._early
        if stopper is None or not state:
            return
        saved = state.get("monitor")
        rows = self.rows[-1] if self.rows else {}
        if saved != stopper.monitor and (saved or stopper.monitor not in rows):
            # Its best was of another metric (the language model watched
            # `val_loss` before `val_nll`): the comparison starts again.
            print(
                f"early stopping starts again: the backup's best was of "
                f"{saved or 'another metric'}; it watches {stopper.monitor}",
                flush=True,
            )
            self._early = None
            return
        stopper.wait = state["wait"]
        stopper.best = state["best"]
        stopper.best_epoch = state["best_epoch"]
        if stopper.restore_best_weights:
            stopper.best_weights = self._best_weights()

    def finish_restored(self, model):
        """For a run whose training was over before the kill: the weights
        `EarlyStopping` would have left (its best, when it keeps them)."""
        self._give_back_early_stopping()
        stopper = self.early_stopping
        if stopper is not None and stopper.restore_best_weights:
            if stopper.best_weights is not None:
                model.set_weights(stopper.best_weights)

    def on_train_begin(self, logs=None):
        # After EarlyStopping's own on_train_begin, which resets it.
        self._give_back_early_stopping()
        self._clock = time.perf_counter() - self.train_seconds

    # --- back up --------------------------------------------------------

    def on_epoch_end(self, epoch, logs=None):
        logs = {k: _number(v) for k, v in (logs or {}).items()}
        if not np.isfinite(logs.get("loss", 0.0)):
            # TerminateOnNaN stops the run; keep the last good epoch.
            self.diverged = epoch + 1
            return
        self.rows = [r for r in self.rows if r["epoch"] < epoch]
        self.rows.append({"epoch": epoch, **logs})
        self.stopped = bool(getattr(self.model, "stop_training", False))
        self.train_seconds = time.perf_counter() - self._clock
        self._save(epoch + 1)
        if self.log is not None:
            write_log(self.log, self.rows)

    def _save(self, epochs_done):
        directory = self.directory
        directory.mkdir(parents=True, exist_ok=True)
        weights = directory / f"epoch-{epochs_done}.weights.h5"
        self.model.save_weights(str(weights), overwrite=True)
        _fsync(weights)
        rng = directory / f"rng-{epochs_done}.npz"
        partial = directory / f"rng-{epochs_done}.partial"
        with partial.open("wb") as handle:
            np.savez(
                handle,
                *[
                    keras.ops.convert_to_numpy(v)
                    for v in _rng_variables(self.model)
                ],
            )
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, rng)
        metadata = {
            "epoch": epochs_done,
            "weights": weights.name,
            "rng": rng.name,
            "stopped": self.stopped,
            "train_seconds": round(self.train_seconds, 3),
            "logs": self.rows,
        }
        if self.fingerprint:
            metadata["fingerprint"] = self.fingerprint
        stopper = self.early_stopping
        if stopper is not None and stopper.best is not None:
            metadata["early_stopping"] = {
                "wait": int(stopper.wait),
                "best": float(stopper.best),
                "best_epoch": int(stopper.best_epoch),
                "monitor": stopper.monitor,
            }
            if stopper.best_weights is not None:
                best = directory / f"best-{stopper.best_epoch}.npz"
                if not best.is_file():
                    partial = directory / f"best-{stopper.best_epoch}.partial"
                    with partial.open("wb") as handle:
                        np.savez(handle, *stopper.best_weights)
                        handle.flush()
                        os.fsync(handle.fileno())
                    os.replace(partial, best)
                metadata["best_weights"] = best.name
        files.write_json(directory / METADATA, metadata)
        keep = {METADATA, weights.name, rng.name, metadata.get("best_weights")}
        for child in directory.iterdir():
            if child.name not in keep:
                child.unlink()

    def discard(self):
        """Deletes the backup (call once the run's results are written)."""
        shutil.rmtree(self.directory, ignore_errors=True)


class AveragedWeights(keras.callbacks.SwapEMAWeights):
    """`keras.callbacks.SwapEMAWeights(swap_on_epoch=True)` in a run that
    resumes (`--ema`: an optimizer with `use_ema=True`).

    From each epoch's end to the next one's beginning the model holds
    the averaged weights, and the optimizer the trained ones: validation,
    early stopping's best weights and `backup`'s files are the averages.
    A run resumed from such a backup starts in that swapped state, which
    a fresh `SwapEMAWeights` would not know (it would train on from the
    averages and average toward the trained weights), so this one starts
    swapped when `backup` resumed. Put it first among the callbacks.
    """

    def __init__(self, backup):
        super().__init__(swap_on_epoch=True)
        self.backup = backup

    def on_train_begin(self, logs=None):
        # The flag is SwapEMAWeights' own record of which weights the
        # model holds.
        self._ema_weights_in_model = bool(self.backup.resumed_at)
