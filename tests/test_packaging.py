"""TensorFlow is an extra: the library installs and runs without it on
JAX and PyTorch (`pip install stacked-rnn-zoo[jax]`)."""

import json
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


def _without_tensorflow(tmp_path, backend, *args):
    """`python -m recipes.tagging ARGS` where `import tensorflow` fails, as
    in a virtual environment without it (`pip install ...[jax,recipes]`),
    on `backend` (None: KERAS_BACKEND unset, no keras.json)."""
    hide = tmp_path / "hide"
    hide.mkdir(exist_ok=True)
    (hide / "sitecustomize.py").write_text(
        "import sys\nsys.modules['tensorflow'] = None\n"
    )
    environ = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(hide), str(ROOT)]),
        "KERAS_HOME": str(tmp_path / "keras-home"),
    }
    environ.pop("KERAS_BACKEND", None)
    if backend:
        environ["KERAS_BACKEND"] = backend
    return subprocess.run(
        [sys.executable, "-m", "recipes.tagging", *args],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.tf_only  # once per suite: it starts the other backends itself
@pytest.mark.parametrize(
    "backend", [pytest.param("jax", marks=pytest.mark.slow), "torch"]
)
def test_a_recipe_runs_to_the_end_without_tensorflow(backend, tmp_path):
    from tests.recipes.test_tagging import write_corpus

    corpus = write_corpus(tmp_path / "corpus", documents=10)
    result = _without_tensorflow(
        tmp_path,
        backend,
        "--corpus-dir", str(corpus), "--output", str(tmp_path / "out"),
        "--epochs", "1", "--units", "8", "--embedding-dim", "8",
        "--no-char-features",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    # TensorBoard (on by default) needs TensorFlow: one line says so.
    said = result.stdout.count("no TensorBoard logs")
    assert said == 1, result.stdout[-3000:]
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["backend"] == backend
    assert "tensorboard/" not in metrics["wrote"]
    assert not (tmp_path / "out" / "tensorboard").exists()


@pytest.mark.tf_only
def test_a_missing_backend_is_one_line_naming_the_extra(tmp_path):
    result = _without_tensorflow(tmp_path, None, "--quick")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("error: Keras's backend is tensorflow")
    assert "pip install 'stacked-rnn-zoo[tensorflow]'" in lines[-1]
    assert "KERAS_BACKEND to jax or torch" in lines[-1]
    assert "Traceback" not in result.stderr


def test_make_installs_only_what_each_target_needs():
    """`make demo` installs the recipes on TensorFlow's CPU build (where
    there is one), not every extra; `make test` installs everything."""
    makefile = (ROOT / "Makefile").read_text()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    installs = {
        line.split(":=")[0].strip(): line.split('".[')[1].split(']"')[0]
        for line in makefile.splitlines()
        if ":=" in line and line.split(":=")[0].strip().endswith("EXTRAS")
    }
    assert installs["DEMO_EXTRAS"] == "tensorflow-cpu,recipes"
    assert installs["DOCS_EXTRAS"] == "docs"  # `make docs`: no backend
    assert set(installs["DEV_EXTRAS"].split(",")) == set(extras) - {
        "tensorflow",  # the GPU-capable build: the CPU one is installed
        "baselines",  # benchmarks/baselines.py only
    }
    assert "demo: $(DEMO_STAMP)" in makefile
    assert extras["tensorflow-cpu"][0].startswith("tensorflow-cpu>=")


NOISE_CHECK = """
import tuning, diagnostics, keras
keras.ops.convert_to_numpy(keras.ops.ones(2) + 1)
"""
# Command lines that import Keras (and TensorFlow, on its backend).
QUIET_COMMANDS = (
    ["-c", NOISE_CHECK],
    ["-m", "recipes.presets", "list"],
)


@pytest.mark.every_backend
def test_a_command_prints_no_start_up_log_lines():
    """TensorFlow's C++ start-up lines (oneDNN, absl, CUDA probing) are
    quieted before TensorFlow is imported, on every backend."""
    from importlib import metadata

    try:
        metadata.version("tensorflow")
    except metadata.PackageNotFoundError:
        pass
    else:
        pytest.skip(
            "TensorFlow's CUDA build prints its CUDA probing before any "
            "setting applies (docs/limits.md); `make` installs the CPU one"
        )
    environ = {
        k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"
    }
    import keras

    environ["KERAS_BACKEND"] = keras.backend.backend()
    for command in QUIET_COMMANDS:
        result = subprocess.run(
            [sys.executable, *command],
            cwd=ROOT,
            env=environ,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        assert result.stderr == "", command
