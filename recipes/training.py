"""The one training loop every recipe (and every search trial) runs.

    metrics = training.train_and_evaluate(tagging.TASK, config)

A recipe is a `recipes.task.Recipe`; this module owns everything around
it, in the order of the flax examples' `train_and_evaluate(config,
workdir)`:

1. the run directory (`harness.rundir.RunDirectory`): locked while a job
   holds it, its `config.json` written first; a rerun with the same
   config resumes (or, when finished, returns its `metrics.json` without
   retraining), a different config or a folder of something else is
   refused before anything is written (`--overwrite` starts afresh);
2. seeding, data, model and compile (in the distribution's scope);
3. callbacks: the task's validation metrics, early stopping, a NaN
   guard, the backup (`recipes.checkpoints.RunBackup`: resume after a
   kill at any moment, kept until `metrics.json` is written) with
   `log.csv`, TensorBoard;
4. `fit`, test evaluation, `model.keras` saved and reloaded with
   `safe_mode=True` (what the task evaluates and shows examples with),
   learning curves as PNG, `metrics.json`.
"""

import os
import pathlib
import shutil
import time

import keras

from harness import extras
from harness import files
from harness import plots
from harness import rundir
from recipes import checkpoints
from recipes import distributed
from recipes import pipeline
from recipes import progress
from recipes import results
from recipes import settings

# --- callbacks, fit, history, save ------------------------------------------


def make_callbacks(
    config,
    output,
    monitor,
    metric_callbacks=(),
    backup=None,
    fingerprint=None,
    mode="max",
):
    """Validation metrics, early stopping, a NaN guard, the backup (with
    `log.csv`, a `recipes.checkpoints.RunBackup`), TensorBoard; with
    `--ema`, the averaged weights swapped in first
    (`recipes.checkpoints.AveragedWeights`).

    `metric_callbacks` add validation metrics to the epoch logs, so they
    run before the callbacks that read them; the backup comes after the
    early stopping, so that it saves the epoch as those left it (a kill
    at any moment resumes from the last finished epoch, patience and
    best weights included: `recipes.checkpoints`). `backup` is where
    this job resumes from and backs up to: `(directory, source)`
    (default `(OUTPUT/backup, same)`; a non-chief worker's differ).
    `fingerprint` (`fingerprint()`) is kept in the backup, which a rerun
    on other data or another backend refuses to resume from. `mode`:
    whether `monitor` is maximised ("max") or minimised ("min").
    """
    directory, source = backup or (output / "backup", None)
    stopper = keras.callbacks.EarlyStopping(
        monitor=monitor,
        mode=mode,
        patience=config.patience,
        restore_best_weights=True,
    )
    backup = checkpoints.RunBackup(
        directory,
        source=source,
        early_stopping=stopper,
        log=output / "log.csv" if source is None else None,
        fingerprint=fingerprint,
    )
    callbacks = [
        *metric_callbacks,
        stopper,
        keras.callbacks.TerminateOnNaN(),
        backup,
    ]
    if config.ema:  # the averages in before any callback reads the weights
        callbacks.insert(0, checkpoints.AveragedWeights(backup))
    if writes_tensorboard(config):
        callbacks.append(
            keras.callbacks.TensorBoard(str(output / "tensorboard"))
        )
    return callbacks


def writes_tensorboard(config):
    """Whether the run writes TensorBoard logs: `--tensorboard` (the
    default) where TensorFlow is installed, which Keras writes them with
    on every backend. Without it, one line says there are none."""
    if not config.tensorboard:
        return False
    if extras.installed("tensorflow"):
        return True
    print(
        "no TensorBoard logs: Keras writes them with TensorFlow, which is "
        "not installed here (--no-tensorboard says so)",
        flush=True,
    )
    return False


def fingerprint(task, config, state):
    """What a run trains on, kept in its backup: the task's
    `data_fingerprint` (its data files' sizes and hashes, a digest of the
    examples loaded), the backend and the Keras version."""
    return {
        "backend": keras.backend.backend(),
        "keras": keras.version(),
        **task.data_fingerprint(config, state),
    }


def _history(rows):
    keys = sorted({k for row in rows for k in row if k != "epoch"})
    return {k: [row[k] for row in rows if k in row] for k in keys}


def fit(
    model,
    train,
    dev,
    epochs,
    callbacks,
    backup,
    batches=None,
    progress_log=None,
):
    """`model.fit` with progress bars on a terminal (plain lines through
    each epoch elsewhere: `recipes.progress.ProgressLog`), resumed from
    `backup` (the `RunBackup` among `callbacks`) if it holds epochs;
    `(history, seconds)`, both over every epoch of the run (the resumed
    ones included). `batches`: the `pipeline.Batches` behind `train`,
    whose shuffling is put at the epoch the run resumes at.
    `progress_log`: `ProgressLog`'s `units` and `describe` (a task's
    `progress`)."""
    done = backup.restore(model)
    if done:
        print(f"resuming from the backup of epoch {done}/{epochs}")
        if batches is not None:
            batches.start_at(done)
    if backup.stopped or done >= epochs:
        backup.finish_restored(model)  # training had ended before the kill
    else:
        terminal = os.isatty(1)
        if not terminal:  # a log: plain lines through the epoch
            steps = len(batches if batches is not None else train)
            log = progress.ProgressLog(epochs, steps, **(progress_log or {}))
            callbacks = [*callbacks, log]
        model.fit(
            train,
            validation_data=dev,
            epochs=epochs,
            initial_epoch=done,
            callbacks=callbacks,
            shuffle=False,  # the batches shuffle themselves, by seed and epoch
            verbose=1 if terminal else 2,
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
        run_dir = rundir.RunDirectory(config.output, config, overwrite)
        output = run_dir.open()
        if run_dir.state == "finished":
            try:
                metrics = results.finished_metrics(
                    task, output / "metrics.json"
                )
            except BaseException:
                run_dir.close()
                raise
            print(
                f"{output} holds a finished run of this config; not "
                "retraining (pass --overwrite to train again)"
            )
            # Killed between metrics.json and the backup's deletion.
            shutil.rmtree(output / "backup", ignore_errors=True)
            run_dir.close()
            results.check_finite(metrics)
            return results.Finished(metrics)
    else:
        output = dist.prepare_output(config)
    try:
        metrics = _train(task, config, callbacks, dist, output, run_dir)
    except BaseException:
        if run_dir is not None:
            run_dir.abandon()
        raise
    finally:
        if run_dir is not None:
            run_dir.close()
    results.check_finite(metrics)  # its results are written: finished
    return metrics


def _train(task, config, extra_callbacks, dist, output, run_dir=None):
    keras.utils.set_random_seed(config.seed)
    # Loading a corpus and building the vocabulary takes seconds to
    # minutes: say so, rather than print nothing until the first epoch.
    started = time.perf_counter()
    note = dist.is_chief
    if note:
        print(f"loading {task.name} data ...", flush=True)
    state = task.prepare(config)
    kept = fingerprint(task, config, state)
    if run_dir is not None:
        run_dir.begin()  # --overwrite empties the folder only now
    written = task.write(output, state)
    for stage in task.stages(config, state):
        if note:
            print(f"stage: {stage.name}", flush=True)
        written += stage.run(output)
    batch_size = dist.global_batch(config.batch_size)
    pad_to = pipeline.rows_multiple(batch_size, keras.backend.backend())
    train, dev, test = task.datasets(config, state, batch_size, pad_to=pad_to)
    if note:
        bilm = getattr(config, "pretrained", "")
        print(
            f"data ready in {time.perf_counter() - started:.1f} s "
            f"({len(train)} training batches of {batch_size}); building "
            f"the model on {keras.backend.backend()}"
            + (
                f" with the pretrained biLM {bilm} (--pretrained none "
                "trains without it)"
                if bilm
                else ""
            )
            + " ...",
            flush=True,
        )
    epochs = settings.run_epochs(config)
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
        fingerprint=kept,
        mode=task.monitor_mode,
    ) + list(extra_callbacks)
    backup = next(c for c in callbacks if isinstance(c, checkpoints.RunBackup))
    if os.environ.get(checkpoints.PAUSE_ENV):
        callbacks.append(checkpoints.PauseMidEpoch())
    history, train_seconds = {}, 0.0
    with dist.fit_scope():
        if epochs:
            history, train_seconds = fit(
                trainer,
                train,
                dev,
                epochs,
                callbacks,
                backup,
                batches,
                task.progress(config, state, batches),
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
        plots.plot_history(
            history,
            output / "learning_curves.png",
            metric=task.curve_metric,
            title=task.run_title(config, state),
        )
    figures = (
        task.figures(config, state, reloaded, output) if dist.is_chief else []
    )
    metrics["wrote"] = (
        ["config.json", "metrics.json", "model.keras"]
        + (["learning_curves.png", "log.csv"] if history else [])
        + written
        + figures
        + (["tensorboard/"] if (output / "tensorboard").is_dir() else [])
    )
    if dist.active:
        metrics["distribute"] = dist.describe(
            config.batch_size, steps_per_epoch=len(train)
        )
    if backup.diverged:
        metrics["diverged_at_epoch"] = backup.diverged
    metrics = results.finite_metrics(metrics)
    files.write_json(output / "metrics.json", metrics)
    checkpoints.pause_point("after-metrics")
    backup.discard()  # only now: a kill before metrics.json resumes
    dist.finish()
    return metrics
