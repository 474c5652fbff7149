"""`harness`: what running a job needs that is not a recipe, importing
no Keras (so a supervisor or a lock starts in a moment, and the imports
run one way: zoo <- harness <- recipes <- tuning <- diagnostics)."""

import json

import pytest

from harness import files
from harness import flags
from tests.helpers import ROOT
from tests.helpers import run_python

MODULES = sorted(
    f"harness.{p.stem}"
    for p in (ROOT / "harness").glob("*.py")
    if p.stem != "__init__"
)

pytestmark = pytest.mark.backend_free


def test_importing_the_harness_imports_no_keras_zoo_or_recipes():
    code = (
        "import importlib, json, sys\n"
        f"for name in {['harness', *MODULES]!r}:\n"
        "    importlib.import_module(name)\n"
        "heavy = ('keras', 'tensorflow', 'jax', 'torch', 'zoo', 'recipes',"
        " 'matplotlib', 'yaml')\n"
        "print(json.dumps(sorted(m for m in sys.modules"
        " if m.split('.')[0] in heavy)))\n"
    )
    result = run_python(["-c", code], check=True)
    assert json.loads(result.stdout) == []
    assert len(MODULES) >= 7  # errors, files, flags, plots, ...


def test_written_files_are_whole_and_leave_no_partial(tmp_path):
    files.write_rows([{"a": 1}, {"b": 2}], tmp_path, "rows", columns=["b"])
    assert (tmp_path / "rows.csv").read_text().splitlines() == [
        "b,a",
        ",1",
        "2,",
    ]
    assert json.loads((tmp_path / "rows.json").read_text()) == [
        {"a": 1},
        {"b": 2},
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "rows.csv",
        "rows.json",
    ]


def test_yaml_reads_floats_as_yaml_1_2_does(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("learning_rate: 1e-3\nname: '1e-3'\n")
    assert flags.read_config_file(path) == {
        "learning_rate": 0.001,
        "name": "1e-3",
    }


def test_the_language_model_picks_pytorch_first_but_jax_to_distribute():
    """`python -m recipes.language_model` without `--backend` or
    `KERAS_BACKEND`: PyTorch, its fastest backend here, then JAX; JAX
    where `--distribute` asks for more than one process, which PyTorch
    does not offer. `harness.entry.flag_value` reads either spelling of
    a flag, and nothing after `--`."""
    from harness import entry
    from recipes.language_model import __main__ as main

    assert entry.flag_value(["--distribute", "mirrored"], "--distribute") == (
        "mirrored"
    )
    assert entry.flag_value(["--distribute=none"], "--distribute") == "none"
    assert entry.flag_value(["--", "--distribute", "x"], "--distribute") is None
    assert main.fastest([]) == ("torch", "jax")
    assert main.fastest(["--epochs", "2", "--distribute", "none"])[0] == "torch"
    assert main.fastest(["--distribute=multi-worker"]) == ("jax",)
