"""A recipe run SIGKILLed at any phase resumes where it stopped.

The runs pause themselves at a named phase (`RECIPES_PAUSE_AT`, a test
hook in `recipes.checkpoints`: the process prints `paused at PHASE` and
stops itself with SIGSTOP), so the kills land where the test says, not
where a timer happens to fall.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys

import keras
import pytest

from tests.recipes.test_tagging import write_corpus

ROOT = pathlib.Path(__file__).resolve().parents[2]
EPOCHS = 5
# Every phase of a run, in order: during epoch 3, between `fit` and the
# test evaluation, with `model.keras` half written, with it written and
# `metrics.json` not, and with `metrics.json` written but the backup not
# yet deleted.
PHASES = ("epoch:3", "after-fit", "saving", "after-save", "after-metrics")


def command(tmp_path, out):
    corpus = tmp_path / "corpus"
    if not corpus.exists():
        write_corpus(corpus)
    return [
        sys.executable, "-m", "recipes.tagging",
        "--corpus-dir", str(corpus), "--output", str(out),
        "--epochs", str(EPOCHS), "--patience", str(EPOCHS), "--units", "8",
        "--embedding-dim", "8", "--batch-size", "8", "--dropout", "0.3",
        "--seed", "3", "--no-tensorboard", "--no-char-features",
    ]  # fmt: skip


def env(pause=None):
    values = {**os.environ, "PYTHONPATH": str(ROOT)}
    values.pop("RECIPES_PAUSE_AT", None)
    if pause:
        values["RECIPES_PAUSE_AT"] = pause
    return values


def run(argv, pause=None):
    """Runs to the end; returns `(exit code, output)`."""
    result = subprocess.run(
        argv,
        cwd=ROOT,
        env=env(pause),
        capture_output=True,
        text=True,
        timeout=600,
    )
    return result.returncode, result.stdout + result.stderr


def start_paused(argv, phase):
    """Starts a run that pauses at `phase`; returns the stopped process
    and its output up to there."""
    process = subprocess.Popen(
        argv,
        cwd=ROOT,
        env=env(phase),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.strip() == f"paused at {phase}":
            return process, "".join(lines)
    process.wait(60)
    pytest.fail(f"never paused at {phase}:\n" + "".join(lines)[-3000:])


def kill(process):
    process.send_signal(signal.SIGKILL)  # no cleanup code runs
    process.wait(60)
    process.stdout.close()


def epochs_logged(out):
    log = out / "log.csv"
    if not log.is_file():
        return []
    return [
        int(line.split(",")[0])
        for line in log.read_text().splitlines()
        if line[:1].isdigit()
    ]


def trained(output):
    """The epochs (1-based) a run's output says it trained."""
    return [
        int(line.split()[1].split("/")[0])
        for line in output.splitlines()
        if line.startswith("Epoch ")
    ]


def results(out):
    metrics = json.loads((out / "metrics.json").read_text())
    model = keras.saving.load_model(out / "model.keras", safe_mode=True)
    return metrics, model


def check_like_uninterrupted(out, reference):
    """The interrupted run's results are the uninterrupted run's."""
    metrics, model = results(out)
    expected, expected_model = results(reference)
    # Each epoch once, numbered from 1 as in the progress bar and plots.
    assert epochs_logged(out) == list(range(1, EPOCHS + 1))
    assert metrics["epochs_run"] == EPOCHS
    assert metrics["train_seconds"] > 0
    for key in ("test_accuracy", "test_loss", "best_val_accuracy"):
        if key in expected:
            assert metrics[key] == pytest.approx(expected[key], abs=1e-5), key
    for got, want in zip(model.get_weights(), expected_model.get_weights()):
        assert got == pytest.approx(want, abs=1e-4)
    assert not (out / "backup").exists()
    assert not list(out.glob("*.partial*"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run of `command`: what a resumed one must equal."""
    root = tmp_path_factory.mktemp("reference")
    out = root / "out"
    code, output = run(command(root, out))
    assert code == 0, output[-3000:]
    assert trained(output) == list(range(1, EPOCHS + 1))
    return out


# Slow (about 2 min): `make test` kills a run mid-epoch on every backend
# (below); this chain kills one run at every phase in turn.
@pytest.mark.slow
def test_a_run_killed_at_every_phase_in_turn_ends_as_an_uninterrupted_one(
    tmp_path, reference
):
    out = tmp_path / "out"
    argv = command(tmp_path, out)
    trained_so_far = []
    for phase in PHASES:
        process, output = start_paused(argv, phase)
        kill(process)
        trained_so_far += trained(output)
        if phase == "epoch:3":
            # Killed during epoch 3: epochs 1 and 2 are backed up.
            assert epochs_logged(out) == [1, 2]
            assert not (out / "model.keras").exists()
        else:
            assert epochs_logged(out) == list(range(1, EPOCHS + 1))
        if phase == "after-metrics":
            assert (out / "metrics.json").is_file()
            assert (out / "backup").is_dir()
        else:
            assert not (out / "metrics.json").exists()
    # Epoch 3 was cut short and run again; no finished epoch ran twice.
    assert trained_so_far == [1, 2, 3, 3, 4, 5]

    code, output = run(argv)
    assert code == 0, output[-3000:]
    assert trained(output) == []
    assert "holds a finished run of this config" in output
    check_like_uninterrupted(out, reference)


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_a_seeded_run_killed_mid_epoch_resumes_to_the_same_result(
    tmp_path, reference
):
    # The same draws after a resume: the shuffling is put at the epoch
    # resumed and the seed generators' states come from the backup.
    out = tmp_path / "out"
    argv = command(tmp_path, out)
    process, _ = start_paused(argv, "epoch:3")
    kill(process)
    code, output = run(argv)
    assert code == 0, output[-3000:]
    assert f"resuming from the backup of epoch 2/{EPOCHS}" in output
    assert trained(output) == [3, 4, 5]
    check_like_uninterrupted(out, reference)


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_a_run_with_averaged_weights_killed_mid_epoch_resumes_the_same(
    tmp_path,
):
    # --ema: the backup holds the averages in the model and the trained
    # weights in the optimizer; the resumed run must know it.
    def argv(root):
        return [*command(root, root / "out"), "--ema", "0.9"]

    reference = tmp_path / "reference"
    code, output = run(argv(reference))
    assert code == 0, output[-3000:]
    resumed = tmp_path / "resumed"
    process, _ = start_paused(argv(resumed), "epoch:3")
    kill(process)
    code, output = run(argv(resumed))
    assert code == 0, output[-3000:]
    assert trained(output) == [3, 4, 5]
    check_like_uninterrupted(resumed / "out", reference / "out")


@pytest.mark.every_backend
@pytest.mark.torch_tier  # ~30 s on TensorFlow; every backend in make test-all
def test_a_second_job_on_a_running_folder_exits_2_and_the_first_finishes(
    tmp_path,
):
    out = tmp_path / "out"
    argv = command(tmp_path, out)
    first, _ = start_paused(argv, "epoch:2")  # holds the folder, stopped
    try:
        code, output = run(argv)
        assert code == 2, output[-3000:]
        # The CLI's own lines (TensorFlow 2.21 writes its absl start-up
        # log, which mentions "round-off errors", whatever
        # TF_CPP_MIN_LOG_LEVEL says).
        error = [line for line in output.splitlines() if "error:" in line]
        assert error == [
            f"error: --output {out}: job {first.pid} on "
            f"{os.uname().nodename} is running in this folder; wait for it "
            "or choose another --output"
        ], output[-2000:]
        assert "Traceback" not in output
        first.send_signal(signal.SIGCONT)
        rest = first.stdout.read()
        assert first.wait(300) == 0, rest[-3000:]
    finally:
        if first.poll() is None:
            kill(first)
    assert epochs_logged(out) == list(range(1, EPOCHS + 1))
    assert json.loads((out / "metrics.json").read_text())["epochs_run"] == 5
