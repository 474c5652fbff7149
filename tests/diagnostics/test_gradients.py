"""`python -m diagnostics gradients` on tiny settings, on every backend
(`tf.GradientTape`, `jax.grad`, torch's autograd)."""

import json
import math

import keras
import numpy as np
import pytest

import harness
from diagnostics import _shared
from diagnostics import gradients
from tests.helpers import run_once

# One worker for the whole module: its module-scoped fixture (a run of the
# tool) then runs once, not once per xdist worker.
pytestmark = [pytest.mark.every_backend, pytest.mark.xdist_group("gradients")]

CONFIGS = ["plain", "residual", "highway"]
DEPTHS = [2, 4]  # the --quick depths
STEPS = 3
TINY = [
    "--quick", "--steps", str(STEPS), "--batch-size", "4", "--units", "8",
    "--timesteps", "6",
]  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    def make(folder):
        result = gradients.main([*TINY, "--output", str(folder / "out")])
        keras.backend.clear_session()
        return result

    result, folder = run_once(tmp_path_factory, "gradients", make)
    return result, folder / "out"


def test_writes_tables_summary_and_plots(run):
    result, output = run
    for name in ("gradients", "training"):
        assert (output / f"{name}.csv").is_file()
        rows = json.loads((output / f"{name}.json").read_text())
        assert rows == result[name]
    for name in ("gradient_norms.png", "loss_curves.png"):
        assert (output / name).read_bytes()[:4] == b"\x89PNG"
    summary = json.loads((output / "summary.json").read_text())
    assert summary["runs"] == result["summary"]
    assert summary["settings"]["depths"] == DEPTHS


def test_one_row_per_config_depth_and_layer_with_finite_norms(run):
    rows = run[0]["gradients"]
    assert len(rows) == len(CONFIGS) * sum(DEPTHS)
    expected = [
        (config, depth, layer)
        for depth in DEPTHS
        for config in CONFIGS
        for layer in range(1, depth + 1)
    ]
    assert [(r["config"], r["depth"], r["layer"]) for r in rows] == expected
    for row in rows:
        for key in ("output_grad_norm", "weight_grad_norm"):
            assert math.isfinite(row[key]) and row[key] > 0, row


def test_losses_recorded_for_every_step_and_finite(run):
    rows = run[0]["training"]
    assert len(rows) == len(CONFIGS) * len(DEPTHS) * STEPS
    assert all(math.isfinite(r["loss"]) and r["loss"] > 0 for r in rows)
    assert {r["step"] for r in rows} == set(range(1, STEPS + 1))


def test_summary_ratio_top_bottom_at_the_deepest_depth(run):
    result, _ = run
    summary = {(r["config"], r["depth"]): r for r in result["summary"]}
    assert set(summary) == {(c, d) for c in CONFIGS for d in DEPTHS}
    plain = summary["plain", max(DEPTHS)]
    ratio = plain["output_grad_ratio_top_bottom"]
    assert math.isfinite(ratio) and ratio > 0
    norms = {
        r["layer"]: r["output_grad_norm"]
        for r in result["gradients"]
        if (r["config"], r["depth"]) == ("plain", max(DEPTHS))
    }
    assert ratio == pytest.approx(norms[max(DEPTHS)] / norms[1])
    assert math.isfinite(plain["first_loss"])
    assert math.isfinite(plain["last_loss"])


def test_quick_sets_defaults_and_explicit_flags_win():
    args = gradients.parse(["--quick", "--steps", "7"])
    assert (args.depths, args.steps, args.batch_size) == ([2, 4], 7, 16)
    args = gradients.parse(["--depths", "8,2,4,4"])
    assert (args.depths, args.steps, args.batch_size) == ([2, 4, 8], 150, 64)


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--configs", "plain,dense"], "--configs: unknown configuration "
         "'dense'.*allowed: plain, residual, highway"),
        (["--cell", "transformer"], "--cell: unknown cell 'transformer'; "
         "allowed: lstm, gru, simple_rnn"),
        (["--depths", "0,2"], "--depths must be >= 1; received 0"),
        (["--depths", "2,x"], "--depths must be comma-separated integers"),
        (["--steps", "0"], "--steps must be >= 1; received 0"),
        (["--units", "0"], "--units must be >= 1; received 0"),
        (["--batch-size", "0"], "--batch-size must be >= 1; received 0"),
        (["--learning-rate", "-1"], "--learning-rate must be a finite "
         "number > 0; received -1"),
        # Found by the hostile run: inf passed a plain `> 0` and trained.
        (["--learning-rate", "inf"], "--learning-rate must be a finite "
         "number > 0; received inf"),
    ],
)  # fmt: skip
def test_bad_input_names_the_flag_value_and_allowed(argv, message, tmp_path):
    with pytest.raises(harness.UsageError, match=message):
        gradients.main([*argv, "--output", str(tmp_path / "out")])
    assert not (tmp_path / "out").exists()


def test_cli_error_is_one_line_with_exit_code_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(gradients.main, ["--cell", "rnn"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --cell: unknown cell 'rnn'")
    assert len(err.splitlines()) == 1


def test_an_unknown_backend_is_refused_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(keras.backend, "backend", lambda: "openvino")
    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(gradients.main, [])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "runs on tensorflow, jax, torch" in err and "'openvino'" in err
    assert len(err.splitlines()) == 1


def test_output_gradients_match_the_stack_with_output_all():
    """The probes' gradients are those of each layer's output: the
    block-by-block run gives the same outputs as the stack's own
    `output="all"` call."""
    args = gradients.parse(["--quick", "--units", "8"])
    _, stack, _ = gradients.build("residual", 3, args)
    x = np.random.default_rng(0).normal(size=(2, 5, 4)).astype("float32")
    ours = gradients.layer_outputs(stack, x)
    theirs = _shared.all_layers(stack, gradients.FEATURES)(x)
    assert len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(
            keras.ops.convert_to_numpy(a),
            keras.ops.convert_to_numpy(b),
            atol=1e-5,
        )
