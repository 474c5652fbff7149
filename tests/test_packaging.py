"""TensorFlow is an extra: the library installs and runs without it on
JAX and PyTorch (`pip install stacked-rnn-zoo[jax]`)."""

import os
import pathlib
import subprocess
import sys

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = pathlib.Path(__file__).resolve().parents[1]

# `import tensorflow` fails in this child, as where it is not installed.
WITHOUT_TF = """
import sys
sys.modules["tensorflow"] = None
import numpy as np
import zoo
import recipes.tagging
model = zoo.stacked_lstm(2, 8, vocabulary_size=20)
print(model.predict(np.array([[1, 2, 3]]), verbose=0).shape)
"""


def test_tensorflow_is_an_extra_not_a_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [d.split(">")[0].split("=")[0] for d in project["dependencies"]]
    assert "tensorflow" not in names and "keras" in names
    extra = project["optional-dependencies"]["tensorflow"]
    assert any(d.startswith("tensorflow>=") for d in extra)


@pytest.mark.tf_only  # once per suite: it starts the other backends itself
@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_the_library_runs_without_tensorflow(backend):
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_TF],
        cwd=ROOT,
        env={**os.environ, "KERAS_BACKEND": backend, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "(1, 3, 8)"
