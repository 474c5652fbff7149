"""`harness.rundir.RunDirectory`: the contract between a job and its
reruns (every backend; nothing is trained)."""

import json
import os
import pathlib
import socket

import keras
import numpy as np
import pytest

import harness
from harness import rundir
from recipes import settings
from recipes import stacks
from recipes import tagging

pytestmark = pytest.mark.every_backend


def config(tmp_path, **values):
    values.setdefault("output", str(tmp_path / "run"))
    return tagging.Config(**values)


def test_a_rerun_with_the_same_config_opens_and_another_is_refused(tmp_path):
    first = rundir.RunDirectory(config(tmp_path).output, config(tmp_path))
    first.open()
    first.close()
    again = rundir.RunDirectory(config(tmp_path).output, config(tmp_path))
    again.open()
    again.close()
    changed = config(tmp_path, units=12)
    with pytest.raises(harness.UsageError, match=r"another config \(units"):
        rundir.RunDirectory(changed.output, changed).open()
    saved = json.loads((tmp_path / "run" / "config.json").read_text())
    assert saved["units"] == tagging.Config.units  # not overwritten


def test_a_setting_added_since_the_run_started_counts_as_its_default(
    tmp_path,
):
    run = config(tmp_path)
    directory = rundir.RunDirectory(run.output, run)
    directory.open()
    directory.close()
    path = tmp_path / "run" / "config.json"
    old = json.loads(path.read_text())
    del old["lr_schedule"]  # a run started before the setting existed
    path.write_text(json.dumps(old))
    rundir.RunDirectory(run.output, run).open()  # resumes
    path.write_text(json.dumps(old))
    cosine = config(tmp_path, lr_schedule="cosine")
    with pytest.raises(harness.UsageError, match="lr_schedule 'constant'"):
        rundir.RunDirectory(cosine.output, cosine).open()


def test_a_run_saved_before_pretrained_auto_had_no_bilm(tmp_path):
    """`--pretrained` defaults to `auto` now; a `config.json` without the
    key is a run without a biLM (`SAVED_DEFAULTS`), not an `auto` one."""
    run = config(tmp_path, pretrained="none")
    directory = rundir.RunDirectory(run.output, run)
    directory.open()
    directory.close()
    path = tmp_path / "run" / "config.json"
    old = json.loads(path.read_text())
    assert old["pretrained"] == ""
    del old["pretrained"]
    path.write_text(json.dumps(old))
    rundir.RunDirectory(run.output, run).open()  # resumes
    path.write_text(json.dumps(old))
    packaged = config(tmp_path)  # Brown from the package: en_bilm_v2
    assert packaged.pretrained == "en_bilm_v2"
    with pytest.raises(
        harness.UsageError, match="pretrained '' -> 'en_bilm_v2'"
    ):
        rundir.RunDirectory(packaged.output, packaged).open()


def test_a_second_job_on_the_folder_and_a_foreign_folder_are_refused(
    tmp_path,
):
    run = config(tmp_path)
    holder = rundir.RunDirectory(run.output, run)
    holder.open()
    holder_is = f"job {os.getpid()} on {socket.gethostname()} is running"
    with pytest.raises(harness.UsageError, match=holder_is):
        rundir.RunDirectory(run.output, run).open()
    holder.close()
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    other = config(tmp_path, output=str(foreign))
    with pytest.raises(harness.UsageError, match="holds no run of this"):
        rundir.RunDirectory(str(foreign), other).open()
    # Left as it was: no stray lock file.
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]


def test_an_empty_output_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        harness.run_cli(tagging.main, ["--output", ""])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: --output must name a folder; received ''"


def test_a_new_run_that_fails_before_training_leaves_nothing(tmp_path):
    run = config(tmp_path)
    directory = rundir.RunDirectory(run.output, run)
    directory.open()
    (pathlib.Path(run.output) / "vocab.json").write_text("{}")
    directory.abandon()  # what the loop does when preparing the data fails
    assert not pathlib.Path(run.output).exists()
    # A run that had backed up an epoch keeps everything.
    directory = rundir.RunDirectory(run.output, run)
    directory.open()
    (pathlib.Path(run.output) / "backup").mkdir()
    directory.abandon()
    directory.close()
    assert (pathlib.Path(run.output) / "config.json").is_file()


def test_overwrite_empties_the_folder_logs_and_tensorboard_included(tmp_path):
    run = config(tmp_path)
    out = pathlib.Path(run.output)
    first = rundir.RunDirectory(run.output, run)
    first.open()
    first.close()
    for name in ("log.csv", "metrics.json", "tensorboard/train/events.x"):
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("old")
    other = config(tmp_path, units=12)
    directory = rundir.RunDirectory(run.output, other, overwrite=True)
    directory.open()
    assert (out / "metrics.json").is_file()  # kept until the data load
    directory.begin()
    directory.close()
    assert sorted(p.name for p in out.iterdir()) == ["config.json"]
    assert json.loads((out / "config.json").read_text())["units"] == 12


def test_the_lock_file_goes_with_the_job_and_a_stale_one_is_not_kept(
    tmp_path,
):
    folder = tmp_path / "run"
    first = rundir.FolderLock(folder).acquire()
    assert (folder / ".lock").read_text().split()[0] == str(os.getpid())
    with pytest.raises(harness.UsageError, match="is running in this folder"):
        rundir.FolderLock(folder).acquire()
    first.release()
    assert list(folder.iterdir()) == []  # a finished job leaves no .lock
    # A job that opened the file just before its holder deleted it holds
    # a lock on a file no longer there: it must not count as holding it.
    (folder / ".lock").write_text("")
    handle = (folder / ".lock").open("a+")
    (folder / ".lock").unlink()
    (folder / ".lock").write_text("")
    assert not rundir._same_file(handle, folder / ".lock")
    handle.close()
    second = rundir.FolderLock(folder).acquire()
    assert rundir._same_file(second._handle, folder / ".lock")
    second.release()


def test_cosine_schedule_decays_to_zero_over_the_run_and_constant_stays():
    run = tagging.Config(learning_rate=0.01, lr_schedule="cosine")
    schedule = settings.learning_rate(run, steps=100)
    values = [
        float(keras.ops.convert_to_numpy(schedule(s))) for s in (0, 50, 100)
    ]
    np.testing.assert_allclose(values, [0.01, 0.005, 0.0], atol=1e-7)
    assert (
        settings.learning_rate(tagging.Config(learning_rate=0.01), 100) == 0.01
    )
    # Round-trips with the optimizer's config (model.keras keeps it).
    optimizer = keras.optimizers.Adam(schedule)
    clone = keras.optimizers.Adam.from_config(optimizer.get_config())
    assert float(
        keras.ops.convert_to_numpy(clone.learning_rate)
    ) == pytest.approx(0.01)


def test_a_bad_schedule_is_one_line(tmp_path, capsys):
    argv = ["--lr-schedule", "step", "--output", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as info:
        harness.run_cli(tagging.main, argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "error: --lr-schedule must be one of constant, cosine, slanted; "
        "received 'step'"
    )


def one_line(capsys, call):
    """The error line `harness.run_cli` prints for `call()`, checking
    that it exits 2 with that one line and no traceback."""
    with pytest.raises(SystemExit) as info:
        harness.run_cli(lambda argv: call(), [])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    return err.strip()


def finished_run(tmp_path, metrics):
    """A folder holding what a finished run of `config(tmp_path)` leaves,
    its `metrics.json` being `metrics` (text)."""
    run = config(tmp_path, corpus_dir=str(tmp_path / "corpus"))
    directory = rundir.RunDirectory(run.output, run)
    directory.open()
    directory.close()
    out = pathlib.Path(run.output)
    (out / "metrics.json").write_text(metrics)
    (out / "model.keras").write_text("the trained model")
    return run, out


@pytest.mark.parametrize(
    "text",
    ['{"test_accuracy": 0.9, "wr', '{"test_accuracy": NaN}', "NaN", "[1]"],
)
def test_a_damaged_metrics_file_of_a_finished_run_is_one_line(
    tmp_path, capsys, text
):
    # Before: json's error or `KeyError: 'split_tokens'` as a traceback.
    run, out = finished_run(tmp_path, text)
    err = one_line(capsys, lambda: tagging.run(run))
    assert err.startswith(f"error: {out / 'metrics.json'} is damaged: ")
    assert err.endswith(
        "pass --overwrite to train again, or choose another --output"
    )
    assert (out / "metrics.json").read_text() == text  # left as it was
    assert not (out / ".lock").exists()


@pytest.mark.parametrize("text", ['{"units": 1', "[1, 2]", "\xff"])
def test_a_damaged_config_file_is_one_line(tmp_path, capsys, text):
    run, out = finished_run(tmp_path, "{}")
    (out / "config.json").write_text(text)
    err = one_line(capsys, lambda: tagging.run(run))
    assert err.startswith(f"error: {out / 'config.json'} is damaged: ")
    assert "pass --overwrite to start the run again" in err
    assert (out / "config.json").read_text() == text


def test_a_lock_that_is_a_folder_is_one_line(tmp_path, capsys):
    run = config(tmp_path)
    (pathlib.Path(run.output) / ".lock").mkdir(parents=True)
    err = one_line(capsys, lambda: tagging.run(run))
    assert err.startswith(
        f"error: --output {run.output}: its lock file "
        f"{run.output}/.lock cannot be opened (Is a directory)"
    )


def test_overwrite_checks_the_data_before_it_deletes_the_old_run(
    tmp_path, capsys
):
    # Before: --overwrite emptied the folder first, and a typo in a data
    # flag lost the finished run.
    _, out = finished_run(tmp_path, '{"wrote": []}')
    typo = config(tmp_path, corpus_dir=str(tmp_path / "corpsu"), units=12)
    err = one_line(capsys, lambda: tagging.run(typo, overwrite=True))
    assert "corpsu" in err
    assert (out / "model.keras").read_text() == "the trained model"
    assert json.loads((out / "config.json").read_text())["units"] != 12
    assert sorted(p.name for p in out.iterdir()) == [
        "config.json",
        "metrics.json",
        "model.keras",
    ]


@pytest.mark.parametrize(
    "name,make,found,kind",
    [
        ("metrics.json", pathlib.Path.mkdir, "folder", "file"),
        ("config.json", pathlib.Path.mkdir, "folder", "file"),
        ("backup", pathlib.Path.touch, "file", "folder"),
    ],
)
def test_a_run_file_of_the_wrong_kind_is_one_line(
    tmp_path, capsys, name, make, found, kind
):
    # Found by the hostile run: a `metrics.json` folder failed the run
    # with IsADirectoryError after training; a `backup` file with
    # FileExistsError at the first backup.
    run = config(tmp_path)
    out = pathlib.Path(run.output)
    directory = rundir.RunDirectory(run.output, run)
    directory.open()
    directory.close()
    if name == "config.json":
        (out / name).unlink()
    make(out / name)
    err = one_line(capsys, lambda: tagging.run(run))
    assert err == (
        f"error: --output {out}: {name} is a {found}, where a run keeps a "
        f"{kind}; move it away, or pass --overwrite to start again"
    )
    assert (out / name).exists()  # left as it was


def test_the_stacks_demo_names_an_output_that_is_a_file(tmp_path, capsys):
    output = tmp_path / "out"
    output.write_text("not a folder")
    err = one_line(
        capsys, lambda: stacks.main(["--output", str(output), "--epochs", "1"])
    )
    assert err.startswith(f"error: --output {output}")
