"""A recipe run killed with SIGKILL resumes where it stopped."""

import os
import pathlib
import subprocess
import sys
import time

import pytest

from tests.recipes.test_tagging import write_corpus

pytestmark = pytest.mark.every_backend

ROOT = pathlib.Path(__file__).resolve().parents[2]
EPOCHS = 15


def _epochs_logged(log):
    if not log.is_file():
        return []
    return [
        int(line.split(",")[0])
        for line in log.read_text().splitlines()
        if line[:1].isdigit()
    ]


def test_killed_tagging_run_resumes_from_its_last_epoch(tmp_path):
    out = tmp_path / "out"
    command = [
        sys.executable, "-m", "recipes.tagging",
        "--corpus-dir", str(write_corpus(tmp_path / "corpus")),
        "--output", str(out), "--epochs", str(EPOCHS),
        "--patience", str(EPOCHS), "--units", "8", "--embedding-dim", "8",
        "--batch-size", "8", "--no-tensorboard", "--no-char-features",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = out / "log.csv"
    with (tmp_path / "first.txt").open("w") as first_output:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=first_output, stderr=first_output
        )
        deadline = time.monotonic() + 300
        while len(_epochs_logged(log)) < 3:
            assert process.poll() is None, (tmp_path / "first.txt").read_text()
            assert time.monotonic() < deadline, "no epoch finished in 300 s"
            time.sleep(0.2)
        process.kill()  # SIGKILL: no cleanup code runs
        process.wait(timeout=60)
    before = _epochs_logged(log)
    assert 3 <= len(before) < EPOCHS, "the run finished before it was killed"
    assert not (out / "metrics.json").exists()

    result = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-2000:]
    after = _epochs_logged(log)
    # Nothing written before the kill is lost, and training went on from
    # the last backed-up epoch instead of starting again at epoch 0.
    assert after[: len(before)] == before
    resumed = after[len(before) :]
    assert resumed and resumed[0] >= before[-1]
    assert after[-1] == EPOCHS - 1
    assert after == sorted(set(after))
    assert "test accuracy:" in result.stdout
