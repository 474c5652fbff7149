"""`python -m tuning.search` end to end on a small corpus written here:
a search, its files, resuming after a kill, bad input, and keras-tuner's
chief/worker mode with real processes on 127.0.0.1.

The recipes' models read raw strings (TensorFlow backend only).
"""

import csv
import dataclasses
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time

import keras
import keras_tuner as kt
import pytest

import harness
import tuning
from harness import flags
from harness import processes
from harness import rundir
from tests.helpers import run_python
from tests.helpers import usage_error
from tests.recipes.test_tagging import tiny_config
from tests.recipes.test_tagging import write_corpus
from tuning import distributed
from tuning import search

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENV = {
    **os.environ,
    "PYTHONPATH": str(ROOT),
    "TF_NUM_INTEROP_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1",
}
for name in (distributed.ENV_ID, distributed.ENV_IP, distributed.ENV_PORT):
    ENV.pop(name, None)


def tiny_args(tmp_path, *extra, trials=2, epochs=2):
    corpus = tmp_path / "corpus"
    if not corpus.exists():
        write_corpus(corpus, documents=10)
    return [
        "--corpus-dir", str(corpus), "--directory", str(tmp_path / "runs"),
        "--project-name", "pos", "--max-trials", str(trials),
        "--epochs", str(epochs), "--units", "8", "--embedding-dim", "8",
        "--widths", "4:16:4", "--layers", "1:3", "--batch-size", "16",
        "--seed", "1", "--no-char-features", *extra,
    ]  # fmt: skip


def run_cli(args, **kwargs):
    return run_python(["-m", "tuning.search", *args], env=ENV, **kwargs)


def read_trials(project):
    with (project / "trials.csv").open() as handle:
        return list(csv.DictReader(handle))


# What keras-tuner writes in a project folder (and this search's stamp
# and lock); the rest is the report's.
KERAS_TUNER = re.compile(r"oracle\.json|tuner\d+\.json|trial_\d+|search\.json")


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_search_writes_table_plots_and_best_model_then_resumes(
    tmp_path, capsys
):
    args = tiny_args(tmp_path)
    summary = search.main(args)
    out = capsys.readouterr().out
    project = tmp_path / "runs" / "pos"
    assert summary["completed"] == summary["trials"] == 2
    # "wrote" names every file the report wrote, and only those.
    report_files = sorted(
        p.name for p in project.iterdir() if not KERAS_TUNER.fullmatch(p.name)
    )
    assert sorted(summary["wrote"]) == report_files
    assert "best_config.json" in report_files
    assert f"written to {project}: {', '.join(summary['wrote'])}\n" in out
    rows = read_trials(project)
    assert [r["status"] for r in rows] == ["COMPLETED", "COMPLETED"]
    # Trials numbered as keras-tuner prints them, from 1; its ids (from
    # 0) name the folders.
    assert [(r["trial"], r["trial_id"]) for r in rows] == [
        ("1", "0"),
        ("2", "1"),
    ]
    printed = dict(
        re.findall(r"Trial (\d+) Complete.*\nval_accuracy: (\S+)", out)
    )
    assert {n: float(s) for n, s in printed.items()} == {
        r["trial"]: float(r["score"]) for r in rows
    }
    chosen = summary["best"]
    assert chosen["trial"] == int(chosen["trial_id"]) + 1
    assert (
        f"best: trial {chosen['trial']} (folder trial_{chosen['trial_id']}), "
        in out
    )
    for row in rows:
        assert 1 <= int(row["num_layers"]) <= 3
        assert int(row["units"]) in (4, 8, 12, 16)
        assert int(row["params"]) > int(row["stack_params"]) > 0
        assert 0 <= float(row["score"]) <= 1
        assert float(row["train_seconds"]) > 0
        assert row["worker"] == "tuner0"
    assert (project / "heatmap.png").stat().st_size > 1000
    best = json.loads((project / "best_hyperparameters.json").read_text())
    assert best["score"] == max(float(r["score"]) for r in rows)
    assert (best["trial"], best["trial_id"]) == (
        chosen["trial"],
        chosen["trial_id"],
    )
    model = keras.saving.load_model(
        project / "best_model.keras", safe_mode=True, compile=False
    )
    assert model.count_params() == best["params"]
    # best_config.json is a recipe config: the tagger reads it.
    config = flags.read_config_file(project / "best_config.json")
    assert config["num_layers"] == best["values"]["num_layers"]
    started = {
        r["trial_id"]: json.loads(
            (project / f"trial_{r['trial_id']}" / "worker.json").read_text()
        )["started"]
        for r in rows
    }
    # The same command again: nothing is trained again.
    again = search.main(args)
    assert again["trials"] == 2 and again["best"] == summary["best"]
    for trial, when in started.items():
        worker = project / f"trial_{trial}" / "worker.json"
        assert json.loads(worker.read_text())["started"] == when


def _trial_status(project, trial):
    path = project / f"trial_{trial}" / "trial.json"
    try:
        return json.loads(path.read_text())["status"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.mark.slow  # about 2 min; the two-trial search resumes in make test
def test_a_search_killed_mid_trial_resumes_and_retries_that_trial(tmp_path):
    project = tmp_path / "runs" / "pos"
    args = tiny_args(tmp_path, trials=2, epochs=15)
    args += ["--patience", "15"]
    process = subprocess.Popen(
        [sys.executable, "-m", "tuning.search", *args],
        env=ENV,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 240
        # Kill it while the second trial trains (the first is complete):
        # its first epoch's checkpoint is there, 14 epochs are to come.
        checkpoint = project / "trial_1" / "checkpoint.weights.h5"
        while not checkpoint.exists():
            assert process.poll() is None, "the search ended before the kill"
            assert time.monotonic() < deadline
            time.sleep(0.1)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
    assert _trial_status(project, "0") == "COMPLETED"
    assert _trial_status(project, "1") == "RUNNING"
    assert not (project / "trials.csv").exists()
    first = json.loads((project / "trial_0" / "worker.json").read_text())
    result = run_cli(args, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    rows = read_trials(project)
    assert [(r["trial_id"], r["status"]) for r in rows] == [
        ("0", "COMPLETED"),
        ("1", "COMPLETED"),
    ]
    # Trial 0 was kept; trial 1 ran again in the new process.
    again = json.loads((project / "trial_0" / "worker.json").read_text())
    assert again == first
    retried = json.loads((project / "trial_1" / "worker.json").read_text())
    assert retried["pid"] != first["pid"]
    assert "Running Trial #1\n" not in result.stdout


@pytest.mark.slow  # three processes, about 90 s; make test-all
def test_distributed_search_splits_trials_and_every_process_exits(tmp_path):
    # Trials of a few seconds each, so that both workers (started
    # together) get some.
    args = tiny_args(
        tmp_path, "--distributed", "--workers", "2", trials=4, epochs=6
    )
    args += ["--patience", "6", "--timeout", "400"]
    start = time.monotonic()
    result = run_cli(args, timeout=500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    rows = read_trials(tmp_path / "runs" / "pos")
    assert len(rows) == 4 and all(r["status"] == "COMPLETED" for r in rows)
    assert {r["worker"] for r in rows} == {"tuner0", "tuner1"}
    out = result.stdout
    assert "[chief]" in out and "[tuner0]" in out and "[tuner1]" in out
    # No process of the search outlives the launcher.
    left = subprocess.run(
        ["pgrep", "-f", str(tmp_path / "runs")], capture_output=True
    )
    assert left.stdout == b"", left.stdout
    assert time.monotonic() - start < 400


def test_a_worker_stops_when_the_chief_is_unreachable(tmp_path):
    env = {
        **ENV,
        distributed.ENV_IP: "127.0.0.1",
        distributed.ENV_PORT: str(processes.free_ports(1)[0]),
        distributed.ENV_ID: "tuner0",
    }
    code = (
        "import time; from tuning import distributed; "
        "distributed.chief_watchdog(1.0, interval=0.2); time.sleep(60)"
    )
    start = time.monotonic()
    result = run_python(["-c", code], env=env, timeout=120)
    assert result.returncode == 3
    assert "has not answered for 1 s" in result.stderr
    assert time.monotonic() - start < 60


def test_a_chief_that_fails_stops_the_launch(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    log = tmp_path / "log.txt"
    with log.open("w") as handle:
        code = distributed.launch(
            ["--tuner", "sweep"], 2, chief_timeout=120, log=handle
        )
    assert code == 2
    assert "the chief exited with 2 before serving" in log.read_text()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--tuner", "sweep"], "--tuner must be one of random, bayesian"),
        (["--layers", "1,x"], "--layers must be finite numbers A,B"),
        (["--layers", "1,2.5"], "--layers must be integers A,B,..."),
        (["--range", "seed=0,0"], "must name distinct values"),
        (["--max-trials", "-1"], "--max-trials must be >= 0"),
        (["--task", "parsing"], "--task must be one of"),
        (["--layers", "4:1"], "--layers is empty: min 4 > max 1"),
        (["--widths", "8"], "--widths must be MIN:MAX[:STEP] finite numbers"),
        (["--budget-params", "50"], "--budget-params=50 is too small"),
        (["--budget-params", "lots"], "--budget-params must be a positive"),
        (["--budget-params", "inf"], "--budget-params must be a positive"),
        (["--layers", "1:2.5"], "--layers must be MIN:MAX integers"),
        (["--range", "dropout=0:nan"], "finite numbers; received '0:nan'"),
        (["--learning-rate", "inf"], "--learning-rate must be a finite"),
        (["--search", "cell,depth"], "unknown name(s) ['depth']"),
        (["--range", "dropout=0:2"], "--range dropout must lie in [0, 1)"),
        # --range wins over --widths, and is the flag named.
        (["--range", "units=5:1"], "--range units is empty: min 5 > max 1"),
        (["--range", "seed=0,4294967296"], "--range seed entries must lie"),
        # Found by the hostile run: these named `ranges`, not the flag.
        (["--range", "=1:2"], "--range must be NAME=MIN:MAX[:STEP]"),
        (["--range", "unitz=1:2"], "--range has unknown name(s) ['unitz']"),
        (["--seed", "-1"], "--seed must be an integer in [0, 4294967295]"),
        # Once a traceback: the search's keyword arguments shadowed a
        # module of the same name (`common`) in the function raising it.
        (
            ["--tuner", "hyperband", "--epochs", "1"],
            "--tuner hyperband needs --epochs of 2 or more; received 1",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(extra, message, tmp_path, capsys):
    err = usage_error(search.main, tiny_args(tmp_path, *extra), capsys)
    assert err.startswith("error: ") and message in err, err


def test_a_directory_that_is_a_file_is_named(tmp_path, capsys):
    (tmp_path / "taken").write_text("a file")
    args = tiny_args(tmp_path, "--directory", str(tmp_path / "taken" / "x"))
    assert usage_error(search.main, args, capsys) == (
        f"error: --directory {tmp_path / 'taken' / 'x'}: "
        f"{tmp_path / 'taken'} is a file, not a folder; name a folder for "
        "the search projects"
    )


def test_a_directory_holding_another_search_is_refused(tmp_path, capsys):
    project = tmp_path / "runs" / "pos"
    stamp = search.stamp_of(*search.parse(tiny_args(tmp_path))[:2])
    search.write_stamp(project, stamp)
    # The same search, spelled differently, is the same search.
    respelled = tiny_args(tmp_path, "--search", "units,num_layers,cell")
    search.check_project(
        project, search.stamp_of(*search.parse(respelled)[:2]), False
    )
    other = tiny_args(tmp_path, "--tuner", "bayesian")
    with pytest.raises(SystemExit) as info:
        harness.run_cli(search.main, other)
    assert info.value.code == 2
    error = capsys.readouterr().err.strip()
    assert "holds a different search" in error
    assert "search.tuner: 'random' there, 'bayesian' here" in error
    # A keras-tuner project of someone else's.
    foreign = tmp_path / "runs" / "foreign"
    foreign.mkdir(parents=True)
    (foreign / "oracle.json").write_text("{}")
    with pytest.raises(harness.UsageError, match="not started by"):
        search.check_project(foreign, {"search": {}, "recipe": {}}, False)
    # --overwrite empties it (keeping the lock of the job that does it).
    (foreign / ".lock").write_text("")
    search.check_project(foreign, stamp, overwrite=True)
    assert [p.name for p in foreign.iterdir()] == [".lock"]


def test_a_failed_command_leaves_no_stamp_behind(tmp_path, capsys):
    with pytest.raises(SystemExit):
        harness.run_cli(search.main, tiny_args(tmp_path, "--layers", "4:1"))
    capsys.readouterr()
    assert not (tmp_path / "runs" / "pos" / "search.json").exists()


@pytest.mark.slow  # the random search covers the loop; make test-all
def test_hyperband_search_runs(tmp_path):
    summary = search.main(tiny_args(tmp_path, "--tuner", "hyperband"))
    assert summary["completed"] == summary["trials"] >= 2
    assert (tmp_path / "runs" / "pos" / "best_model.keras").is_file()


def test_trials_failing_in_a_row_stop_the_search_with_one_line(tmp_path):
    def no_data(batch_size):
        raise OSError(f"cannot read the data for batch {batch_size}")

    hypermodel = tuning.StackedRNNHyperModel(
        "tagging",
        vocabulary_size=20,
        num_outputs=3,
        defaults={"units": 4},
        data=no_data,
    )
    tuner = kt.RandomSearch(
        hypermodel,
        objective="val_accuracy",
        max_trials=5,
        directory=str(tmp_path),
    )
    problem = type(
        "P", (), {"callbacks": [], "objective": tuner.oracle.objective}
    )
    config = type("C", (), {"patience": 1, "ema": 0.0})
    message = search.run_search(tuner, problem, config, epochs=1)
    assert message.startswith("the search stopped: Number of consecutive")
    assert "the last error: OSError: cannot read the data for batch" in message
    rows = [t.status for t in tuner.oracle.trials.values()]
    assert rows == ["FAILED"] * 3


@pytest.mark.every_backend
def test_a_cosine_schedule_decays_over_the_trials_epochs(tmp_path):
    """A trial's model is compiled with the schedule of the search's
    config, over its epochs of batches (nothing is trained)."""
    config = tiny_config(tmp_path, batch_size=16, lr_schedule="cosine")
    problem = search.problem_for("tagging", config)
    options = search.SearchOptions(search="units,num_layers,batch_size")
    hp = kt.HyperParameters()
    for name, value in (("units", 8), ("num_layers", 1), ("batch_size", 16)):
        hp.Fixed(name, value)
    model = search.make_hypermodel(problem, options).build(hp)
    schedule = model.optimizer.get_config()["learning_rate"]
    assert schedule["class_name"] == "CosineDecay"
    batches = len(problem.data(16)[0])
    assert schedule["config"]["decay_steps"] == config.epochs * batches


# TensorFlow in make test (the tagging recipe's --ema test runs on
# PyTorch there); every backend in make test-all.
def test_a_trial_with_ema_is_scored_on_its_averaged_weights(tmp_path):
    """--ema: a trial compiles with the averaging and validates the
    averages, which it ends with (a momentum near 1 keeps them at the
    first step's weights: near chance, while the trained ones learn)."""
    config = tiny_config(tmp_path, batch_size=16, ema=0.99999, epochs=2)
    problem = search.problem_for("tagging", config)
    options = search.SearchOptions(search="units,num_layers,batch_size")
    hp = kt.HyperParameters()
    for name, value in (("units", 8), ("num_layers", 1), ("batch_size", 16)):
        hp.Fixed(name, value)
    plain = dataclasses.replace(
        problem, config=dataclasses.replace(config, ema=0.0)
    )
    train, dev = problem.data(16)
    scores = []
    for each in (problem, plain):
        keras.utils.set_random_seed(0)
        model = search.make_hypermodel(each, options).build(hp)
        assert model.optimizer.use_ema == (each is problem)
        callbacks = search.search_callbacks(each, each.config)
        swaps = isinstance(callbacks[0], keras.callbacks.SwapEMAWeights)
        assert swaps == (each is problem)
        history = model.fit(
            train, validation_data=dev, epochs=2, callbacks=callbacks, verbose=0
        )
        scored = history.history["val_accuracy"][-1]
        ended = model.evaluate(dev, return_dict=True, verbose=0)
        assert ended["accuracy"] == pytest.approx(scored, abs=1e-6)
        scores.append(scored)
    assert scores[0] < scores[1] - 0.2


def test_a_second_search_on_a_running_project_exits_2(tmp_path, capsys):
    # The project is locked by the search running in it (here, this
    # process holds it as that search would).
    project = tmp_path / "runs" / "pos"
    holder = rundir.FolderLock(project, flag="--project-name").acquire()
    try:
        err = usage_error(search.main, tiny_args(tmp_path), capsys)
    finally:
        holder.release()
    assert err == (
        f"error: --project-name {project}: job {os.getpid()} on "
        f"{socket.gethostname()} is running in this folder; wait for it or "
        "choose another --project-name"
    )
    assert list(project.iterdir()) == []  # the holder took its .lock away
