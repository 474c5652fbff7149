"""`recipes.checkpoints.RunBackup`: a kill at any moment (simulated by
leaving the files such a kill leaves) resumes from the last finished
epoch, with early stopping's state and the curves intact."""

import json

import keras
import numpy as np
import pytest

import harness
from recipes import checkpoints
from recipes import tagging
from tests.recipes.test_tagging import tiny_config

pytestmark = pytest.mark.every_backend


def _model(seed=0):
    keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(1)]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    return model


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype("float32")
    return x, x.sum(axis=1, keepdims=True)


def _fit(model, backup, epochs, stopper=None, initial_epoch=0):
    x, y = _data()
    callbacks = [stopper] if stopper else []
    model.fit(
        x,
        y,
        validation_data=(x, y),
        epochs=epochs,
        initial_epoch=initial_epoch,
        callbacks=[*callbacks, backup],
        verbose=0,
        shuffle=False,
    )


def test_a_half_written_epoch_is_ignored_and_the_last_whole_one_restored(
    tmp_path,
):
    model = _model()
    backup = checkpoints.RunBackup(tmp_path / "b", log=tmp_path / "log.csv")
    _fit(model, backup, epochs=2)
    saved = [w.copy() for w in model.get_weights()]
    # What a SIGKILL while writing epoch 3 leaves: a truncated weights
    # file and a half-written metadata file, neither of them named yet.
    (tmp_path / "b" / "epoch-3.weights.h5").write_bytes(b"\x89HDF\r\n")
    (tmp_path / "b" / "training_metadata.json.partial").write_text('{"ep')

    again = _model(seed=1)
    resumed = checkpoints.RunBackup(tmp_path / "b", log=tmp_path / "log.csv")
    assert resumed.restore(again) == 2
    for a, b in zip(again.get_weights(), saved):
        np.testing.assert_allclose(a, b)
    assert [r["epoch"] for r in resumed.rows] == [0, 1]
    # The optimizer state came back too: its step count is 2 epochs' worth.
    assert int(keras.ops.convert_to_numpy(again.optimizer.iterations)) == int(
        keras.ops.convert_to_numpy(model.optimizer.iterations)
    )
    # The next save removes what the kill left.
    _fit(again, resumed, epochs=3, initial_epoch=2)
    names = sorted(p.name for p in (tmp_path / "b").iterdir())
    assert names == [
        "epoch-3.weights.h5",
        "rng-3.npz",
        "training_metadata.json",
    ]
    log = (tmp_path / "log.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in log] == ["epoch", "1", "2", "3"]


def test_early_stopping_state_and_best_weights_survive_a_resume(tmp_path):
    model = _model()
    stopper = keras.callbacks.EarlyStopping(
        monitor="val_loss", patience=50, restore_best_weights=True
    )
    backup = checkpoints.RunBackup(tmp_path / "b", early_stopping=stopper)
    _fit(model, backup, epochs=3, stopper=stopper)
    metadata = json.loads((tmp_path / "b" / checkpoints.METADATA).read_text())
    state = metadata["early_stopping"]
    assert state["best"] == pytest.approx(stopper.best)
    assert (tmp_path / "b" / metadata["best_weights"]).is_file()

    again = _model(seed=1)
    fresh = keras.callbacks.EarlyStopping(
        monitor="val_loss", patience=50, restore_best_weights=True
    )
    resumed = checkpoints.RunBackup(tmp_path / "b", early_stopping=fresh)
    assert resumed.restore(again) == 3
    resumed.finish_restored(again)  # as if training had ended
    assert fresh.best == pytest.approx(stopper.best)
    assert fresh.best_epoch == stopper.best_epoch
    assert fresh.wait == stopper.wait
    for a, b in zip(fresh.best_weights, stopper.best_weights):
        np.testing.assert_allclose(a, b)


def test_early_stopping_on_another_monitor_starts_again(tmp_path, capsys):
    # A run begun watching one metric and resumed watching another (the
    # language model moved from val_loss to val_nll): the old best is not
    # comparable, so the comparison starts again, and says so.
    model = _model()
    stopper = keras.callbacks.EarlyStopping(
        monitor="val_loss", patience=50, restore_best_weights=True
    )
    backup = checkpoints.RunBackup(tmp_path / "b", early_stopping=stopper)
    _fit(model, backup, epochs=2, stopper=stopper)
    path = tmp_path / "b" / checkpoints.METADATA
    metadata = json.loads(path.read_text())
    assert metadata["early_stopping"]["monitor"] == "val_loss"

    def resume(monitor):
        fresh = keras.callbacks.EarlyStopping(
            monitor=monitor, patience=50, restore_best_weights=True
        )
        resumed = checkpoints.RunBackup(tmp_path / "b", early_stopping=fresh)
        resumed.restore(_model(seed=1))
        resumed.finish_restored(_model(seed=1))
        return fresh

    other = resume("val_other")
    assert other.best_weights is None and other.wait == 0
    assert "early stopping starts again" in capsys.readouterr().out
    # A backup from before the monitor was kept: its log says which
    # metrics it had; the same one carries on, another starts again.
    del metadata["early_stopping"]["monitor"]
    path.write_text(json.dumps(metadata))
    same = resume("val_loss")
    assert same.best == pytest.approx(stopper.best)
    assert "starts again" not in capsys.readouterr().out
    assert resume("val_other").best_weights is None
    assert "starts again" in capsys.readouterr().out


def test_a_foreign_metadata_file_is_refused_with_its_path(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "training_metadata.json").write_text("not json")
    with pytest.raises(ValueError, match="training_metadata.json"):
        checkpoints.RunBackup(tmp_path / "b").restore(_model())


@pytest.mark.every_backend
@pytest.mark.torch_tier  # ~30 s on TensorFlow; every backend in make test-all
def test_a_kill_after_training_but_before_metrics_loses_nothing(tmp_path):
    """The gap `BackupAndRestore` left open: fit has returned (its backup
    deleted) and the run dies before `metrics.json`. Here the backup is
    kept, and the rerun evaluates the same model without training."""

    class KillAtTrainEnd(keras.callbacks.Callback):
        def on_train_end(self, logs=None):
            raise KeyboardInterrupt("simulated kill after the last epoch")

    whole = tagging.run(tiny_config(tmp_path / "a"))
    config = tiny_config(tmp_path / "b")
    with pytest.raises(KeyboardInterrupt):
        tagging.run(config, callbacks=[KillAtTrainEnd()])
    assert not (tmp_path / "b" / "out" / "metrics.json").exists()
    resumed = tagging.run(config)
    assert resumed["epochs_run"] == whole["epochs_run"] == 3
    assert resumed["resumed_at_epoch"] == 3
    assert resumed["test_accuracy"] == pytest.approx(
        whole["test_accuracy"], abs=1e-6
    )
    log = (tmp_path / "b" / "out" / "log.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in log] == ["epoch", "1", "2", "3"]
    assert not (tmp_path / "b" / "out" / "backup").exists()


def _backed_up(tmp_path, epochs=2, **options):
    model = _model()
    stopper = keras.callbacks.EarlyStopping(
        monitor="val_loss", patience=50, restore_best_weights=True
    )
    backup = checkpoints.RunBackup(
        tmp_path / "b", early_stopping=stopper, **options
    )
    _fit(model, backup, epochs=epochs, stopper=stopper)
    return tmp_path / "b"


@pytest.mark.parametrize(
    "damage",
    ["missing weights", "truncated weights", "truncated rng", "truncated best"],
)
def test_a_backup_whose_files_do_not_load_is_refused_naming_the_file(
    tmp_path, damage
):
    # Before: a missing weights file was skipped, and the run "resumed
    # from the backup of epoch 2" on fresh weights.
    folder = _backed_up(tmp_path)
    metadata = json.loads((folder / checkpoints.METADATA).read_text())
    key = {"weights": "weights", "rng": "rng", "best": "best_weights"}[
        damage.split()[1]
    ]
    path = folder / metadata[key]
    if damage.startswith("missing"):
        path.unlink()
    else:
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    with pytest.raises(checkpoints.BackupError) as info:
        checkpoints.RunBackup(folder).restore(_model(seed=1))
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert "rerun with --overwrite to start again" in message
    assert "\n" not in message
    assert isinstance(info.value, harness.UsageError)  # one line, exit 2


def test_a_truncated_metadata_file_is_one_line_naming_it(tmp_path):
    folder = _backed_up(tmp_path)
    path = folder / checkpoints.METADATA
    path.write_text(path.read_text()[:40])
    with pytest.raises(harness.UsageError, match="--overwrite") as info:
        checkpoints.RunBackup(folder).restore(_model())
    assert str(info.value).startswith(f"{path}: not a backup")


FINGERPRINT = {
    "backend": "tensorflow",
    "keras": "3.0.0",
    "files": {"--train-file a.csv": {"bytes": 10, "sha256": "ab" * 32}},
    "examples": "cd" * 32,
}


def test_a_backup_of_other_data_or_another_backend_is_refused(tmp_path):
    folder = _backed_up(tmp_path, fingerprint=FINGERPRINT)
    same = checkpoints.RunBackup(folder, fingerprint=dict(FINGERPRINT))
    assert same.restore(_model(seed=1)) == 2
    other = {**FINGERPRINT, "backend": "jax"}
    with pytest.raises(harness.UsageError) as info:
        checkpoints.RunBackup(folder, fingerprint=other).restore(_model())
    assert "the backend changed since this run began (backend tensorflow " in (
        str(info.value)
    )
    assert "-> jax): its backup of epoch 2" in str(info.value)
    edited = {
        **FINGERPRINT,
        "files": {"--train-file a.csv": {"bytes": 12, "sha256": "ef" * 32}},
        "examples": "00" * 32,
    }
    with pytest.raises(harness.UsageError) as info:
        checkpoints.RunBackup(folder, fingerprint=edited).restore(_model())
    message = str(info.value)
    assert "the data changed since this run began (--train-file a.csv 10 " in (
        message
    )
    assert "-> 12 bytes, sha256 efefefefefef): its backup" in message
    assert "pass --overwrite to start again" in message


class KillAfterEpoch(keras.callbacks.Callback):
    """What a kill just after epoch `epoch`'s backup leaves."""

    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if epoch + 1 == self.epoch:
            raise KeyboardInterrupt(f"simulated kill after epoch {epoch + 1}")


@pytest.mark.slow  # ~30 s a backend; the unit tests above cover each check
def test_a_rerun_refuses_a_backup_it_cannot_restore_or_made_on_other_data(
    tmp_path, capsys
):
    # Before: with the weights file gone the rerun printed "resuming from
    # the backup of epoch 2/3" and trained on from fresh weights, and it
    # resumed silently over changed data.
    config = tiny_config(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        tagging.run(config, callbacks=[KillAfterEpoch(2)])
    capsys.readouterr()
    weights = tmp_path / "out" / "backup" / "epoch-2.weights.h5"
    saved = weights.read_bytes()
    weights.unlink()
    with pytest.raises(harness.UsageError) as info:
        tagging.run(config)
    assert str(info.value).startswith(f"{weights}: missing")
    assert "rerun with --overwrite to start again" in str(info.value)
    weights.write_bytes(saved[: len(saved) // 2])
    with pytest.raises(harness.UsageError, match="does not load"):
        tagging.run(config)
    assert "resuming" not in capsys.readouterr().out
    weights.write_bytes(saved)

    document = tmp_path / "corpus" / "ca00"
    text = document.read_text()
    document.write_text(text + "\n" + text.split("\n\n")[0] + "\n")
    with pytest.raises(harness.UsageError) as info:
        tagging.run(config)
    assert "the data changed since this run began (the examples" in (
        str(info.value)
    )
    assert "its backup of epoch 2" in str(info.value)
    document.write_text(text)
    resumed = tagging.run(config)  # the data it started with: resumes
    assert "resuming from the backup of epoch 2/3" in capsys.readouterr().out
    assert resumed["epochs_run"] == 3
    assert resumed["resumed_at_epoch"] == 2
