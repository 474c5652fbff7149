"""The one training loop every recipe (and every search trial) runs.

    metrics = training.train_and_evaluate(tagging.TASK, config)

A recipe is a `Task`: its data, vocabulary and labels (`prepare`), its
model from a zoo backbone and a `zoo.heads` head (`build`), its loss and
metrics (declared once), its batches, its evaluation and examples. This
module owns everything around them, in the order of the flax examples'
`train_and_evaluate(config, workdir)`:

1. the run directory (`RunDirectory`): locked while a job holds it, its
   `config.json` written first; a rerun with the same config resumes
   (or, when finished, returns its `metrics.json` without retraining), a
   different config or a folder of something else is refused before
   anything is written (`--overwrite` starts afresh);
2. seeding, data, model and compile (in the distribution's scope);
3. callbacks: the task's validation metrics, early stopping, a NaN
   guard, the backup (`recipes.checkpoints.RunBackup`: resume after a
   kill at any moment, kept until `metrics.json` is written) with
   `log.csv`, TensorBoard;
4. `fit`, test evaluation, `model.keras` saved and reloaded with
   `safe_mode=True` (what the task evaluates and shows examples with),
   learning curves as PNG, `metrics.json`.
"""

import argparse
import contextlib
import dataclasses
import fcntl
import json
import os
import pathlib
import shutil
import socket
import time
import weakref

import keras
import numpy as np

import zoo
from recipes import checkpoints
from recipes import common
from recipes import distributed
from recipes import pipeline
from recipes.data import cache


class Task:
    """What a recipe declares; `train_and_evaluate` does the rest.

    Subclasses set `name`, `Config`, `curve_metric` and implement the
    methods below; `state` is whatever `prepare` returns.
    """

    name = "task"
    Config = common.StackOptions
    curve_metric = "accuracy"

    def check(self, config):
        """Raises `RecipeError` for a bad config (before any data)."""

    def prepare(self, config):
        """Data, vocabulary, labels (and a model to train on from)."""
        raise NotImplementedError

    def write(self, output, state):
        """Writes what travels beside `model.keras`; returns the names."""
        return []

    def build(self, config, state):
        """The model (ids -> outputs), uncompiled."""
        raise NotImplementedError

    def loss(self, reduction="sum_over_batch_size"):
        """A new loss object."""
        raise NotImplementedError

    def metrics(self):
        """New metric objects (named as the logs show them)."""
        return [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]

    weighted = True  # metrics weighted by the batches' sample weights

    def monitor(self, state):
        """The validation metric early stopping maximises."""
        return "val_accuracy"

    def datasets(self, config, state, batch_size, pad_to=1):
        """`(train, dev, test)` `pipeline.Batches`; test may be None."""
        raise NotImplementedError

    def callbacks(self, config, state, predictor):
        """Callbacks that add validation metrics to the epoch logs."""
        return []

    def evaluate(self, config, state, reloaded, scores):
        """The task's metrics from the reloaded model and `scores` (the
        test split's `evaluate` logs, or `{}`)."""
        return {f"test_{k}": float(v) for k, v in scores.items()}

    def describe(self, config, state, model):
        """Facts about the data and model for `metrics.json`."""
        return {}

    def title(self, config, state):
        """The plots' title (`run_title` adds what a reader must know)."""
        return self.name

    def run_title(self, config, state):
        """`title`, saying so when the run was a `--quick` smoke run."""
        title = self.title(config, state)
        if config.quick:
            title += " (--quick: a smoke run on a subset)"
        return title

    def summary(self, metrics):
        """Lines printed at the end of a run."""
        return []

    def run(self, config, callbacks=(), distribute="none", overwrite=False):
        """Trains, evaluates and saves this task's model; returns the
        metrics (`train_and_evaluate` on this task)."""
        return train_and_evaluate(
            self, config, callbacks, distribute, overwrite
        )

    def optimizer(self, config, steps=0):
        """Adam at `--learning-rate` under `--lr-schedule`, for a run of
        `steps` optimizer steps."""
        return keras.optimizers.Adam(common.learning_rate(config, steps))

    def compile(self, model, config, steps=0):
        """`optimizer`, the task's loss and metrics."""
        kind = "weighted_metrics" if self.weighted else "metrics"
        model.compile(
            optimizer=self.optimizer(config, steps),
            loss=self.loss(),
            **{kind: self.metrics()},
        )
        return model


# --- the run directory -------------------------------------------------------


class FolderLock:
    """One job per folder: an exclusive `fcntl.flock` on `FOLDER/.lock`,
    which holds the holder's pid and host.

    `acquire` creates the folder (checking that it can write there) and
    raises `RecipeError` naming `flag`, the folder and the job holding it
    when another job does; the lock goes with the process, so a killed
    job never leaves a stale one. Used by the recipes' `RunDirectory`,
    `tuning.search`'s project and the diagnostics tools' `--output`.
    """

    NAME = ".lock"

    def __init__(self, path, flag="--output"):
        if not str(path).strip():
            raise common.RecipeError(
                f"{flag} must name a folder; received {str(path)!r}"
            )
        self.path = pathlib.Path(path)
        self.flag = flag
        self.created = False  # whether this job made the lock file
        self._handle = None

    def acquire(self):
        path = self.path
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / ".write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as error:
            raise common.RecipeError(
                f"{self.flag} {path}: cannot write there ({error.strerror})"
            ) from None
        lock = path / self.NAME
        self.created = not lock.exists()
        handle = lock.open("a+")
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
            raise common.RecipeError(
                f"{self.flag} {path}: {who} is running in this folder; "
                f"wait for it or choose another {self.flag}"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()} {socket.gethostname()}\n")
        handle.flush()
        self._handle = handle
        return self

    def release(self, remove=False):
        """Unlocks; `remove=True` also deletes the lock file (and the
        folder, if that leaves it empty)."""
        if self._handle is None:
            return
        if remove:
            (self.path / self.NAME).unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                self.path.rmdir()  # only if empty
        self._handle.close()
        self._handle = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc_info):
        self.release()


def empty_folder(path, ignore_errors=False):
    """Deletes what `path` holds but its `FolderLock` file (`--overwrite`,
    and a failed new run cleaning up after itself)."""
    for child in pathlib.Path(path).iterdir():
        if child.name == FolderLock.NAME:
            continue
        if child.is_dir():
            shutil.rmtree(child, ignore_errors=ignore_errors)
        elif ignore_errors:
            child.unlink(missing_ok=True)
        else:
            child.unlink()


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
    - `overwrite=True` empties the folder first (logs and TensorBoard
      files included);
    - `abandon()`: a new run that failed before its first epoch was
      backed up (bad data) removes what it wrote, so that a rerun with
      corrected settings is not refused as another config.
    """

    def __init__(self, path, config, overwrite=False):
        self.path = pathlib.Path(path)
        self.config = dataclasses.asdict(config)
        # A setting added since a run was started is missing from its
        # config.json: the run had the default.
        self.defaults = {
            f.name: f.default
            for f in dataclasses.fields(config)
            if f.default is not dataclasses.MISSING
        }
        self.overwrite = overwrite
        self.state = None
        self._lock = FolderLock(path)

    def open(self):
        path = self.path
        self._lock.acquire()
        try:
            self._check_and_write(path)
        except BaseException:
            # Refused: leave the folder as it was (no stray `.lock`).
            self._lock.release(remove=self._lock.created)
            raise
        return path

    def _check_and_write(self, path):
        saved = path / "config.json"
        self.state = "new"
        if self.overwrite:
            empty_folder(path)
        elif saved.is_file():
            old = {**self.defaults, **json.loads(saved.read_text())}
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
                raise common.RecipeError(
                    f"--output {path} holds a run with another config "
                    f"({what}); rerun it with the same settings to resume, "
                    "or pass --overwrite, or choose another --output"
                )
            self.state = "finished" if self.finished else "interrupted"
        elif [c for c in path.iterdir() if c.name != FolderLock.NAME]:
            raise common.RecipeError(
                f"--output {path} is not empty and holds no run of this "
                "recipe; choose another --output or pass --overwrite"
            )
        common.write_json(saved, self.config)

    @property
    def finished(self):
        return (self.path / "metrics.json").is_file()

    def abandon(self):
        """After a failure: a new run with no epoch backed up empties the
        folder it filled (removed too if this job created it)."""
        if self.state != "new" or (self.path / "backup").exists():
            return
        empty_folder(self.path, ignore_errors=True)
        self.close(remove=self._lock.created)

    def close(self, remove=False):
        self._lock.release(remove=remove)


# --- callbacks, fit, history, save ------------------------------------------


def make_callbacks(config, output, monitor, metric_callbacks=(), backup=None):
    """Validation metrics, early stopping, a NaN guard, the backup (with
    `log.csv`, a `recipes.checkpoints.RunBackup`), TensorBoard.

    `metric_callbacks` add validation metrics to the epoch logs, so they
    run before the callbacks that read them; the backup comes after the
    early stopping, so that it saves the epoch as those left it (a kill
    at any moment resumes from the last finished epoch, patience and
    best weights included: `recipes.checkpoints`). `backup` is where
    this job resumes from and backs up to: `(directory, source)`
    (default `(OUTPUT/backup, same)`; a non-chief worker's differ).
    """
    directory, source = backup or (output / "backup", None)
    stopper = keras.callbacks.EarlyStopping(
        monitor=monitor,
        mode="max",
        patience=config.patience,
        restore_best_weights=True,
    )
    callbacks = [
        *metric_callbacks,
        stopper,
        keras.callbacks.TerminateOnNaN(),
        checkpoints.RunBackup(
            directory,
            source=source,
            early_stopping=stopper,
            log=output / "log.csv" if source is None else None,
        ),
    ]
    if config.tensorboard:
        callbacks.append(
            keras.callbacks.TensorBoard(str(output / "tensorboard"))
        )
    return callbacks


def _history(rows):
    keys = sorted({k for row in rows for k in row if k != "epoch"})
    return {k: [row[k] for row in rows if k in row] for k in keys}


def fit(model, train, dev, epochs, callbacks, backup, batches=None):
    """`model.fit` with progress bars on a terminal, resumed from
    `backup` (the `RunBackup` among `callbacks`) if it holds epochs;
    `(history, seconds)`, both over every epoch of the run (the resumed
    ones included). `batches`: the `pipeline.Batches` behind `train`,
    whose shuffling is put at the epoch the run resumes at."""
    done = backup.restore(model)
    if done:
        print(f"resuming from the backup of epoch {done}/{epochs}")
        if batches is not None:
            batches.start_at(done)
    if backup.stopped or done >= epochs:
        backup.finish_restored(model)  # training had ended before the kill
    else:
        model.fit(
            train,
            validation_data=dev,
            epochs=epochs,
            initial_epoch=done,
            callbacks=callbacks,
            shuffle=False,  # the batches shuffle themselves, by seed and epoch
            verbose=1 if os.isatty(1) else 2,
        )
    return _history(backup.rows), backup.train_seconds


def save_and_reload(model, output, name="model.keras"):
    """Saves `output/name` and loads it back with `safe_mode=True`."""
    path = pathlib.Path(output) / name
    partial = path.with_name(path.stem + ".partial.keras")
    if model.optimizer is not None and not model.optimizer.built:
        # Not trained here (--epochs 0): save a built optimizer anyway,
        # so the file reloads compiled without a warning.
        model.optimizer.build(model.trainable_variables)
    model.save(partial)
    checkpoints.pause_point("saving")
    partial.replace(path)
    return keras.saving.load_model(path, safe_mode=True, compile=False)


# One compiled inference call per model (`zoo.inference_function`).
_INFERENCE = weakref.WeakKeyDictionary()


def predict(model, x):
    """`model(x, training=False)` as NumPy, on every backend, through the
    model's cached `zoo.inference_function` (a `tf.function`, a `jax.jit`
    or `torch.inference_mode`).

    Under a `keras.distribution` (`--distribute mirrored` on JAX) it is
    `model.predict_on_batch`, and a batch is split evenly over the
    devices: it is padded with empty rows.
    """
    distribution = keras.distribution.distribution()
    if distribution is None:
        if model not in _INFERENCE:
            _INFERENCE[model] = zoo.inference_function(model)
        if isinstance(x, tuple):
            x = list(x)  # a model with several inputs
        return _INFERENCE[model](x)
    devices = distribution.device_mesh.devices.size
    (padded,) = pipeline.pad_rows((x,), devices)
    if isinstance(padded, tuple):
        padded = list(padded)  # a model with several inputs
    rows = pipeline.num_rows(x)
    return keras.ops.convert_to_numpy(model.predict_on_batch(padded))[:rows]


def plot_history(history, path, metric="accuracy", title=""):
    """Learning curves (loss and `metric`, train and validation) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, name in zip(axes, ("loss", metric)):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        for prefix, style in (("", "-o"), ("val_", "--o")):
            values = history.get(prefix + name)
            if values:
                epochs = range(1, len(values) + 1)
                ax.plot(epochs, values, style, label=prefix + name)
        ax.set_xlabel("epoch")
        ax.set_title(name)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def finite_metrics(metrics):
    """`metrics` with NaN/inf floats as None (`metrics.json` stays JSON)."""
    if isinstance(metrics, dict):
        return {k: finite_metrics(v) for k, v in metrics.items()}
    if isinstance(metrics, list):
        return [finite_metrics(v) for v in metrics]
    if isinstance(metrics, float) and not np.isfinite(metrics):
        return None
    return metrics


# --- the loop ----------------------------------------------------------------


def train_and_evaluate(
    task, config, callbacks=(), distribute="none", overwrite=False
):
    """Trains, evaluates and saves `task` under `config`; returns the
    metrics (also written to `OUTPUT/metrics.json`).

    `callbacks` are added after the loop's own (after the backup: a run
    they stop resumes from the last epoch the backup saved).
    `distribute` is a `recipes.distributed.Options` or a mode name.
    """
    task.check(config)
    dist = distributed.setup(distribute)  # first: before any TF work
    run_dir = None
    if dist.is_chief:
        run_dir = RunDirectory(config.output, config, overwrite)
        output = run_dir.open()
        if run_dir.state == "finished":
            metrics = json.loads((output / "metrics.json").read_text())
            print(
                f"{output} holds a finished run of this config; not "
                "retraining (pass --overwrite to train again)"
            )
            # Killed between metrics.json and the backup's deletion.
            shutil.rmtree(output / "backup", ignore_errors=True)
            run_dir.close()
            check_finite(metrics)
            return metrics
    else:
        output = dist.prepare_output(config)
    try:
        metrics = _train(task, config, callbacks, dist, output)
    except BaseException:
        if run_dir is not None:
            run_dir.abandon()
        raise
    finally:
        if run_dir is not None:
            run_dir.close()
    check_finite(metrics)  # its results are written: it is finished
    return metrics


def _train(task, config, extra_callbacks, dist, output):
    keras.utils.set_random_seed(config.seed)
    # Loading a corpus and building the vocabulary takes seconds to
    # minutes: say so, rather than print nothing until the first epoch.
    started = time.perf_counter()
    note = dist.is_chief
    if note:
        print(f"loading {task.name} data ...", flush=True)
    state = task.prepare(config)
    written = task.write(output, state)
    batch_size = dist.global_batch(config.batch_size)
    pad_to = pipeline.rows_multiple(batch_size, keras.backend.backend())
    train, dev, test = task.datasets(config, state, batch_size, pad_to=pad_to)
    if note:
        print(
            f"data ready in {time.perf_counter() - started:.1f} s "
            f"({len(train)} training batches of {batch_size}); building "
            f"the model on {keras.backend.backend()} ...",
            flush=True,
        )
    quick_epochs = getattr(config, "QUICK", {}).get("epochs", 2)
    epochs = min(config.epochs, quick_epochs) if config.quick else config.epochs
    with dist.scope():
        model = task.build(config, state)
        task.compile(model, config, steps=epochs * len(train))
    batches = train
    train, dev = dist.dataset(train), dist.dataset(dev)
    test = dist.dataset(test) if test is not None else None
    trainer = dist.trainer(model, task, sample=dev)
    callbacks = make_callbacks(
        config,
        output,
        monitor=task.monitor(state),
        metric_callbacks=task.callbacks(config, state, dist.predictor(model)),
        backup=dist.backup(config, output),
    ) + list(extra_callbacks)
    backup = next(c for c in callbacks if isinstance(c, checkpoints.RunBackup))
    if os.environ.get(checkpoints.PAUSE_ENV):
        callbacks.append(checkpoints.PauseMidEpoch())
    history, train_seconds = {}, 0.0
    with dist.fit_scope():
        if epochs:
            history, train_seconds = fit(
                trainer, train, dev, epochs, callbacks, backup, batches
            )
        checkpoints.pause_point("after-fit")
        scores = (
            trainer.evaluate(test, verbose=0, return_dict=True)
            if test is not None
            else {}
        )
    reloaded = save_and_reload(model, output)
    checkpoints.pause_point("after-save")
    metrics = {
        **task.describe(config, state, model),
        "backend": keras.backend.backend(),
        "params": model.count_params(),
        "epochs_run": len(history.get("loss", [])),
        "train_seconds": round(train_seconds, 1),
    }
    if backup.resumed_at:
        metrics["resumed_at_epoch"] = backup.resumed_at
    metrics.update(task.evaluate(config, state, reloaded, scores))
    if history and dist.is_chief:
        plot_history(
            history,
            output / "learning_curves.png",
            metric=task.curve_metric,
            title=task.run_title(config, state),
        )
    metrics["wrote"] = (
        ["config.json", "metrics.json", "model.keras"]
        + (["learning_curves.png", "log.csv"] if history else [])
        + written
    )
    if dist.active:
        metrics["distribute"] = dist.describe(
            config.batch_size, steps_per_epoch=len(train)
        )
    if backup.diverged:
        metrics["diverged_at_epoch"] = backup.diverged
    metrics = finite_metrics(metrics)
    common.write_json(output / "metrics.json", metrics)
    checkpoints.pause_point("after-metrics")
    backup.discard()  # only now: a kill before metrics.json resumes
    dist.finish()
    return metrics


class TrainingDiverged(common.RecipeError):
    """The loss became NaN or infinite: the run's results are written
    (`metrics.json` says at which epoch), but it did not succeed."""

    exit_code = 1


def check_finite(metrics):
    """Raises `TrainingDiverged` for the metrics of a run whose loss
    became non-finite."""
    epoch = metrics.get("diverged_at_epoch")
    if epoch:
        raise TrainingDiverged(
            f"training diverged: the loss became non-finite in epoch {epoch}"
            " (model.keras holds the best epoch before it, if there was "
            "one); lower --learning-rate and rerun with --overwrite"
        )


def print_summary(task, config, metrics):
    """The end of a run on screen: the task's lines, then what it wrote."""
    print()
    for line in task.summary(metrics):
        print(line)
    described = metrics.get("distribute", {})
    if described and not described["chief"]:
        print(
            f"worker {described['worker_index']} finished; the chief wrote "
            f"{config.output}"
        )
    else:
        print(f"wrote {config.output}/: {', '.join(metrics['wrote'])}")


# --- the command line --------------------------------------------------------

PRECISIONS = {
    "off": "float32",
    "float16": "mixed_float16",
    "bfloat16": "mixed_bfloat16",
}
BACKENDS = ("tensorflow", "jax", "torch")


def set_precision(name):
    """Sets Keras's global dtype policy for `--mixed-precision NAME`."""
    if name not in PRECISIONS:
        raise common.RecipeError(
            f"--mixed-precision must be one of {sorted(PRECISIONS)}; "
            f"received {name!r}"
        )
    keras.mixed_precision.set_global_policy(PRECISIONS[name])
    if name != "off":
        print(f"mixed precision: {PRECISIONS[name]} (variables in float32)")


def parser_for(task, prog, doc, help_texts):
    """The recipe's flags: one per config field, `--config`, and the run
    options (`--distribute`, `--mixed-precision`, `--overwrite`,
    `--data-dir`, `--backend`), which are not part of `config.json`."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=doc.splitlines()[0],
        epilog="Any flag can also be set in a --config file (JSON or YAML, "
        "the same names with underscores); flags win over the file.",
    )
    common.add_config_arguments(parser, task.Config, help_texts)
    distributed.add_arguments(parser)
    parser.add_argument(
        "--mixed-precision",
        default="off",
        choices=sorted(PRECISIONS),
        help="compute in float16 or bfloat16 with float32 variables "
        "(keras.mixed_precision; float16 also scales the loss). Worth it "
        "on GPUs with tensor cores; slower on CPUs (default: off)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="empty --output first, even if it holds a run (default: a "
        "rerun of the same config resumes it, another config is refused)",
    )
    parser.add_argument(
        "--data-dir",
        help="where fetched corpora are kept (sets "
        f"{cache.ENV}; default: $KERAS_HOME/stacked-rnn-zoo or "
        "~/.keras/stacked-rnn-zoo)",
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        help="the Keras backend, set before Keras is imported (default: "
        "KERAS_BACKEND, else tensorflow)",
    )
    return parser


def main(task, prog, doc, help_texts, argv=None):
    """A recipe's command line: parse, train and evaluate, print."""
    args = parser_for(task, prog, doc, help_texts).parse_args(argv)
    if args.backend and args.backend != keras.backend.backend():
        raise common.RecipeError(
            f"--backend {args.backend}: Keras was already imported with the "
            f"{keras.backend.backend()} backend (pass --backend first on "
            "the command line of `python -m recipes....`, or set "
            "KERAS_BACKEND)"
        )
    set_precision(args.mixed_precision)
    if args.data_dir is not None:
        if not args.data_dir.strip():
            raise common.RecipeError("--data-dir must name a folder")
        os.environ[cache.ENV] = args.data_dir
    config = common.resolve_config(task.Config, args)
    metrics = train_and_evaluate(
        task,
        config,
        distribute=distributed.options_from(args),
        overwrite=args.overwrite,
    )
    print_summary(task, config, metrics)
    return metrics
