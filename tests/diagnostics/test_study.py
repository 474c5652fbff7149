"""`python -m diagnostics study depth|budget`: grid searches over depth x
seed on a corpus written here, their table, summary and plot, resuming,
and bad input."""

import json
import subprocess
import sys

import pytest

import harness
from diagnostics import study
from tests.helpers import run_once
from tests.recipes.test_tagging import write_corpus
from tests.tuning.test_search import ENV
from tests.tuning.test_search import ROOT
from tuning import search

# One worker for the module: its fixtures (the studies) run once.
pytestmark = pytest.mark.xdist_group("study")
# The depth study trains 8 models (40 s on 2 cores): make test-all runs the
# tests that read it; make test keeps the budget study and the CLI checks.
SLOW_STUDY = pytest.mark.slow


def tiny(tmp_path, *extra):
    corpus = tmp_path / "corpus"
    if not corpus.exists():
        write_corpus(corpus, documents=10)
    return [
        "--corpus-dir", str(corpus), "--epochs", "2", "--units", "8",
        "--embedding-dim", "8", "--batch-size", "16", "--learning-rate",
        "0.01", "--no-char-features", *extra,
    ]  # fmt: skip


def depth_argv(root):
    return [
        "depth", "--quick", "--output", str(root / "study"),
        *tiny(root, "--no-bidirectional"),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def depth(tmp_path_factory):
    summary, root = run_once(
        tmp_path_factory, "study", lambda root: study.main(depth_argv(root))
    )
    return summary, root / "study", depth_argv(root)


@SLOW_STUDY
def test_depth_study_trains_every_variant_depth_and_seed(depth):
    summary, output, _ = depth
    rows = json.loads((output / "trials.json").read_text())
    cells = sorted((r["group"], r["depth"], r["seed"]) for r in rows)
    assert cells == [
        (group, layers, seed)
        for group in ("plain", "residual")
        for layers in (1, 2)
        for seed in (0, 1)
    ]
    for row in rows:
        assert 0 < row["score"] <= 1 and row["objective"] == "val_accuracy"
        assert 1 <= row["epochs"] <= 2
    # A seed is a replicate: other initial weights, another score.
    plain = {(r["depth"], r["seed"]): r["score"] for r in rows}
    assert plain[(2, 0)] != plain[(2, 1)] or plain[(1, 0)] != plain[(1, 1)]
    for group in ("plain", "residual"):
        info = summary["groups"][group]
        assert [d["depth"] for d in info["depths"]] == [1, 2]
        for entry in info["depths"]:
            mine = [
                r["score"]
                for r in rows
                if r["group"] == group and r["depth"] == entry["depth"]
            ]
            assert entry["seeds"] == 2
            assert entry["mean"] == pytest.approx(sum(mine) / 2, abs=1e-4)
            assert entry["min"] <= entry["mean"] <= entry["max"]
        assert info["ceiling"] in (1, 2)
        assert info["best_depth"] <= info["ceiling"]
    assert summary["command"].startswith("python -m diagnostics study depth")
    assert (output / "study.png").stat().st_size > 10_000
    curves = json.loads((output / "curves.json").read_text())
    assert len(curves) == 8
    assert all(len(c["val_loss"]) == len(c["loss"]) >= 1 for c in curves)


@SLOW_STUDY
def test_each_variant_is_a_grid_search_the_recipe_flags_reach(depth):
    _, output, _ = depth
    for group, residual in (("plain", False), ("residual", True)):
        stamp = json.loads(
            (output / "searches" / group / "search.json").read_text()
        )
        assert stamp["search"]["tuner"] == "grid"
        assert stamp["recipe"]["residual"] is residual
        assert stamp["recipe"]["units"] == 8
        assert stamp["recipe"]["quick"] is True


@SLOW_STUDY
def test_rerunning_a_finished_study_trains_nothing(depth):
    summary, output, argv = depth
    trials = sorted((output / "searches").glob("*/trial_*/trial.json"))
    before = [p.stat().st_mtime_ns for p in trials]
    again = study.main(argv)
    assert [p.stat().st_mtime_ns for p in trials] == before
    assert again["groups"] == summary["groups"]


def _part(output, folder, depth, command=None):
    """A copy of a finished study holding only the trials of one depth."""
    folder.mkdir()
    for name in ("trials", "curves"):
        items = json.loads((output / f"{name}.json").read_text())
        kept = [item for item in items if item["depth"] == depth]
        (folder / f"{name}.json").write_text(json.dumps(kept))
    summary = json.loads((output / "summary.json").read_text())
    if command:
        summary["command"] = command
    (folder / "summary.json").write_text(json.dumps(summary))
    return str(folder)


@SLOW_STUDY
def test_studies_of_other_depths_merge_into_one(depth, tmp_path):
    summary, output, _ = depth
    one = _part(output, tmp_path / "one", 1)
    two = _part(output, tmp_path / "two", 2)
    merged = study.main(["merge", two, one, "--output", str(tmp_path / "m")])
    # The two halves give the whole study's table back, sorted.
    assert merged["groups"] == summary["groups"]
    rows = json.loads((tmp_path / "m" / "trials.json").read_text())
    assert [(r["group"], r["depth"], r["seed"]) for r in rows][:3] == [
        ("plain", 1, 0),
        ("plain", 1, 1),
        ("plain", 2, 0),
    ]
    assert {r["source"] for r in rows} == {one, two}
    assert merged["sources"] == [summary["command"]] * 2
    assert (tmp_path / "m" / "study.png").stat().st_size > 10_000
    # A merged study merges again (its sources are checked).
    again = study.main(
        ["merge", str(tmp_path / "m"), "--output", str(tmp_path / "m2")]
    )
    assert again["groups"] == summary["groups"]
    again_rows = json.loads((tmp_path / "m2" / "trials.json").read_text())
    assert {r["source"] for r in again_rows} == {one, two}


@SLOW_STUDY
def test_merge_compares_settings_not_spellings(depth, tmp_path):
    summary, output, _ = depth
    one = _part(output, tmp_path / "one", 1)
    # The same settings spelled otherwise: --flag=value, and a recipe
    # default (the tagger's patience of 2) written out.
    same = summary["command"].replace("--epochs 2", "--epochs=2")
    same += " --patience 2"
    two = _part(output, tmp_path / "two", 2, command=same)
    merged = study.main(["merge", one, two, "--output", str(tmp_path / "m")])
    assert merged["groups"] == summary["groups"]
    assert merged["backend"] == summary["backend"]


@SLOW_STUDY
def test_merge_refuses_repeated_trials_and_other_settings(depth, tmp_path):
    summary, output, _ = depth
    one = _part(output, tmp_path / "one", 1)
    out = ["--output", str(tmp_path / "m")]
    with pytest.raises(
        harness.UsageError, match="both trained plain at depth 1"
    ):
        study.main(["merge", str(output), one, *out])
    other = summary["command"].replace("--epochs 2", "--epochs 3")
    assert other != summary["command"]
    two = _part(output, tmp_path / "two", 2, command=other)
    with pytest.raises(
        harness.UsageError, match="epochs: 3 there, 2 in .*same settings"
    ):
        study.main(["merge", one, two, *out])
    # A merged study keeps its sources' commands: one trained otherwise
    # is still refused when the merged study is merged again.
    study.main(["merge", one, "--output", str(tmp_path / "m1")])
    with pytest.raises(harness.UsageError, match="epochs: 3 there"):
        study.main(["merge", str(tmp_path / "m1"), two, *out])
    with pytest.raises(harness.UsageError, match="has no summary.json"):
        study.main(["merge", str(tmp_path), *out])
    with pytest.raises(harness.UsageError, match="is one of the studies"):
        study.main(["merge", one, "--output", one])
    with pytest.raises(harness.UsageError, match="holds a study that trained"):
        study.main(["merge", one, "--output", str(output)])
    (tmp_path / "one" / "trials.json").write_text("[]")
    with pytest.raises(harness.UsageError, match="holds no trial"):
        study.main(["merge", one, *out])
    (tmp_path / "one" / "trials.json").write_text("{oops")
    with pytest.raises(harness.UsageError, match="trials.json: unreadable"):
        study.main(["merge", one, *out])


@pytest.mark.slow  # ~50 s; the depth study above runs the same grid code
def test_budget_study_keeps_each_stack_near_its_budget(tmp_path):
    output = tmp_path / "study"
    summary = study.main(
        [
            "budget", "--quick", "--budgets", "3k,6k", "--seeds", "0",
            "--output", str(output), "--no-residual", *tiny(tmp_path),
        ]
    )  # fmt: skip
    # The stack's own flags reach every budget's search (the tagger's
    # default is residual).
    for group in ("3k", "6k"):
        stamp = json.loads(
            (output / "searches" / group / "search.json").read_text()
        )
        assert stamp["recipe"]["residual"] is False
    rows = json.loads((output / "trials.json").read_text())
    assert sorted((r["group"], r["depth"]) for r in rows) == [
        ("3k", 1), ("3k", 2), ("6k", 1), ("6k", 2),
    ]  # fmt: skip
    for row in rows:
        budget = search.parse_budget(row["group"])
        assert abs(row["stack_params"] - budget) / budget < 0.15
    widths = {(r["group"], r["depth"]): r["width"] for r in rows}
    assert widths[("3k", 2)] < widths[("3k", 1)] < widths[("6k", 1)]
    assert set(summary["groups"]) == {"3k", "6k"}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["width"], "the study must be one of depth, budget"),
        (["depth", "--seed", "3"], "--seed is set by the study"),
        (["budget", "--num-layers=2"], "--num-layers is set by the study"),
        (["depth", "--tuner", "random"], "--tuner is set by the study"),
        (["depth", "--residual"], "--residual is set by the study"),
        (["depth", "--depths", "1,x"], "--depths must be distinct integers"),
        (["depth", "--depths", "0,2"], "--depths must be >= 1"),
        (["depth", "--variants", "deep"], "--variants must be some of"),
        (["budget", "--budgets", "50k,lots"], "--budgets must be parameter"),
        (["budget", "--variants", "plain"], "--variants is for the depth"),
    ],
)
def test_bad_input_names_the_flag(argv, message, tmp_path):
    with pytest.raises(harness.UsageError, match=message):
        study.main([*argv, "--output", str(tmp_path / "out")])


def test_cli_error_exits_2_with_one_line(tmp_path):
    result = subprocess.run(
        [
            sys.executable, "-m", "diagnostics", "study", "depth",
            "--seeds", "1,1", "--output", str(tmp_path / "o"),
        ],
        env=ENV, cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    lines = [x for x in result.stderr.splitlines() if x.startswith("error")]
    assert lines == [
        "error: --seeds must be distinct integers A,B,... (>= 0); "
        "received '1,1'"
    ]


def test_a_study_measures_the_stack_without_a_biLM_unless_asked():
    """The recipes' `--pretrained auto` adds en_bilm on some data; a
    study of depth or width passes `--pretrained none` unless given."""
    _, rest = study.parse(["depth", "--task", "tagging"])
    assert rest[-2:] == ["--pretrained", "none"]
    _, rest = study.parse(
        ["depth", "--task", "tagging", "--pretrained", "en_bilm"]
    )
    assert rest.count("--pretrained") == 1 and "en_bilm" in rest
    _, rest = study.parse(["depth", "--task", "seq2seq"])
    assert "--pretrained" not in rest  # the G2P recipe has no biLM
