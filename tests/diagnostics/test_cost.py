"""`python -m diagnostics cost`: what depth costs, on tiny shapes.

One `--quick` run (module fixture) feeds the checks on its files and
numbers. Timing slopes are not asserted: the machine is shared and noisy.
"""

import json
import math

import pytest

import harness
import zoo
from diagnostics import cost
from tests.helpers import run_once

# One worker for the whole module: its module-scoped fixture (a run of the
# tool) then runs once, not once per xdist worker.
pytestmark = [pytest.mark.every_backend, pytest.mark.xdist_group("cost")]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    def make(folder):
        return cost.main(["--quick", "--output", str(folder / "out")])

    result, folder = run_once(tmp_path_factory, "cost", make)
    return folder / "out", result


def rows_of(result, sweep):
    return [row for row in result["rows"] if row["sweep"] == sweep]


def test_quick_run_writes_every_file(run):
    output, result = run
    for name in ("cost.csv", "cost.json", "fits.json", "summary.json"):
        assert (output / name).is_file(), name
    assert (output / "cost.png").read_bytes()[:4] == b"\x89PNG"
    saved = json.loads((output / "cost.json").read_text())
    assert saved == result["rows"]
    header = (output / "cost.csv").read_text().splitlines()[0].split(",")
    for column in ("sweep", "depth", "units", "params", "step_ms",
                   "tokens_per_s", "latency_ms", "peak_mb"):  # fmt: skip
        assert column in header
    summary = json.loads((output / "summary.json").read_text())
    assert summary["command"].startswith("python -m diagnostics cost")
    assert summary["machine"]["cpu_count"] >= 1
    assert summary["backend"] and summary["keras"]


def test_times_are_finite_and_positive_and_memory_skipped(run):
    _, result = run
    assert [r["depth"] for r in result["rows"]] == [1, 2, 3] * 2
    for row in result["rows"]:
        for key in ("step_ms", "latency_ms", "tokens_per_s"):
            assert math.isfinite(row[key]) and row[key] > 0, (key, row)
        assert row["peak_mb"] is None  # --quick measures no memory


def test_each_layer_adds_one_layers_worth_of_parameters(run):
    _, result = run
    config = result["config"]
    cell, features, units = config["cell"], config["features"], config["units"]
    rows = rows_of(result, "fixed_width")
    params = [row["params"] for row in rows]
    assert all(a < b for a, b in zip(params, params[1:]))
    for row in rows:
        assert row["params"] == zoo.count_params(
            cell, features, units, num_layers=row["depth"]
        )
        assert (
            row["total_params"] == row["params"] + units * features + features
        )
    one_layer = zoo.count_params(cell, units, units, num_layers=1)
    assert [b - a for a, b in zip(params, params[1:])] == [one_layer] * 2


def test_budget_sweep_stays_near_the_budget(run):
    _, result = run
    config = result["config"]
    budget = config["budget_params"]
    assert budget == zoo.count_params(
        config["cell"], config["features"], config["units"], num_layers=2
    )
    rows = rows_of(result, "fixed_budget")
    assert [row["depth"] for row in rows] == [1, 2, 3]
    widths = [row["units"] for row in rows]
    assert widths == sorted(widths, reverse=True)  # deeper is narrower
    for row in rows:
        assert abs(row["params"] - budget) / budget < 0.05, row


def test_fits_have_finite_slopes_and_the_per_layer_parameter_count(run):
    output, result = run
    fits = json.loads((output / "fits.json").read_text())
    assert fits == result["fits"]
    assert set(fits) == {"step_ms", "latency_ms", "params"}  # no memory
    for fit in fits.values():
        for key in ("slope", "intercept", "r2"):
            assert math.isfinite(fit[key]), fit
    assert fits["params"]["slope"] > 0
    assert fits["params"]["slope"] == pytest.approx(
        fits["params"]["closed_form_per_layer"]
    )
    assert fits["params"]["r2"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--depths", "3:1"], r"--depths must be MIN:MAX .*received '3:1'"),
        (["--depths", "0:2"], r"1 <= MIN <= MAX"),
        (["--depths", "four"], r"--depths .*received 'four'"),
        (["--units", "0"], r"--units must be >= 1; received 0"),
        (["--batch-size", "-2"], r"--batch-size must be >= 1; received -2"),
        (["--steps", "0"], r"--steps must be >= 1"),
        (["--repeats", "0"], r"--repeats must be >= 1"),
        (
            ["--cell", "transformer"],
            r"--cell must be one of .*lstm.*"
            r"received 'transformer'",
        ),  # fmt: skip
        (
            ["--budget-params", "10"],
            r"--budget-params must be >= \d+ .*"
            r"received 10",
        ),  # fmt: skip
    ],
)
def test_bad_input_names_the_flag(argv, message, tmp_path):
    with pytest.raises(harness.UsageError, match=message):
        cost.main([*argv, "--output", str(tmp_path)])


def test_cli_error_exits_2_with_one_line(tmp_path, capsys):
    argv = ["cost", "--depths", "2", "--output", str(tmp_path)]
    from diagnostics import __main__ as dispatcher

    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(dispatcher.main, argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "--depths must be MIN:MAX" in err and len(err.splitlines()) == 1


@pytest.mark.slow
def test_memory_probe_runs_in_a_fresh_process():
    args = cost.parse_args(["--quick"])
    cost.check_args(args)
    baseline, peak = cost.measure_memory(args, depth=1, units=4)
    assert baseline > 0 and peak > 0


def test_recipes_inspect_still_runs_the_tools():
    """`python -m recipes.inspect` is the old name: it forwards to
    `python -m diagnostics`, bad input still one line and exit code 2."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "recipes.inspect", "xray"],
        capture_output=True,
        text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
    )
    assert done.returncode == 2
    # The last line: TensorFlow may log to stderr as it loads.
    assert done.stderr.strip().splitlines()[-1] == (
        "error: unknown tool 'xray'; known: activations, gradients, probe, "
        "cost, study"
    )
