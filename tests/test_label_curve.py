"""`benchmarks/label_curve.py --train`: the queue of recipe runs that
draws the labelled-data curve finishes what is missing, records what the
recipe refuses, and a rerun redoes neither (stand-in commands; no
training)."""

import importlib.util
import json
import pathlib
import sys

import pytest

from tests.helpers import usage_error

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture()
def label_curve():
    spec = importlib.util.spec_from_file_location(
        "label_curve", ROOT / "benchmarks" / "label_curve.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_run(folder, score, refuse=False):
    """A stand-in for a recipe run: writes a run folder, or refuses."""
    code = (
        "import json, pathlib, sys\n"
        f"out = pathlib.Path({str(folder)!r})\n"
        + (
            "print('error: tags [\\'B-x\\'] occur in dev/test but not in "
            "train', file=sys.stderr); sys.exit(2)\n"
            if refuse
            # More than a pipe's buffer on stderr: the queue must not block.
            else "sys.stderr.write('warning ' * 50000 + '\\n')\n"
            "out.mkdir(parents=True)\n"
            "(out / 'config.json').write_text(json.dumps({'dataset': "
            "'brown', 'pretrained': '', 'seed': 0}))\n"
            f"(out / 'metrics.json').write_text(json.dumps({{'test_accuracy':"
            f" {score}, 'split_sentences': {{'train': 10}}}}))\n"
        )
    )
    return [sys.executable, "-c", code]


def test_the_queue_runs_what_is_missing_once(label_curve, tmp_path, capsys):
    folder = tmp_path / "curve"
    plan = [
        ("brown_scratch_1", _fake_run(folder / "brown_scratch_1", 0.5)),
        ("wnut_scratch_1", _fake_run(folder / "wnut_scratch_1", 0, True)),
    ]
    label_curve.planned = lambda *args: plan
    label_curve.train(folder, ["brown"], [1], [0], "en_bilm", jobs=2)
    printed = capsys.readouterr().out
    assert "2 runs to train" in printed
    assert "finished brown_scratch_1" in printed
    assert "refused wnut_scratch_1: error: tags" in printed
    refused = (folder / "wnut_scratch_1" / "refused.txt").read_text()
    assert refused.startswith("error: tags ['B-x'] occur in dev/test")
    metrics = json.loads(
        (folder / "brown_scratch_1" / "metrics.json").read_text()
    )
    assert metrics["test_accuracy"] == 0.5
    # A rerun: nothing left to do (the finished run would refuse to start
    # again here, its folder existing: it is not started).
    label_curve.train(folder, ["brown"], [1], [0], "en_bilm", jobs=2)
    assert "0 runs to train" in capsys.readouterr().out
    assert (
        label_curve.main([str(folder), "--output", str(tmp_path / "c.png")])
        == 0
    )
    table = capsys.readouterr().out
    assert (
        "| brown_scratch_1 | brown | none | 10 | 0 | accuracy 0.5000 |" in table
    )
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--percents", "1,x"], "--percents: received '1,x'"),
        (["--percents", "0"], "--percents"),
        (["--seeds", "0.5"], "--seeds: received '0.5'"),
        (["--tasks", "imdb"], "--tasks"),
        (["--jobs", "0"], "--jobs"),
    ],
)
def test_bad_flags_are_one_line(label_curve, tmp_path, argv, message, capsys):
    argv = [str(tmp_path), "--train", *argv]
    assert message in usage_error(label_curve.main, argv, capsys)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "metrics, config, message",
    [
        ("{bad", "{}", "metrics.json: not a readable JSON file"),
        ("[]", "{}", "metrics.json: not a JSON object"),
        ('{"test_per": 5}', '{"dataset": "cmudict"}', "not a finished run"),
    ],
)
def test_a_damaged_or_foreign_run_is_one_line(
    label_curve, tmp_path, capsys, metrics, config, message
):
    run = tmp_path / "curve" / "run"
    run.mkdir(parents=True)
    (run / "metrics.json").write_text(metrics)
    (run / "config.json").write_text(config)
    argv = [str(tmp_path / "curve")]
    assert message in usage_error(label_curve.main, argv, capsys)


def test_the_peers_fit_on_the_recipes_samples_once(
    label_curve, tmp_path, capsys, monkeypatch
):
    """`--peers`: each task's peer is called with the recipe's sample flags
    (`train_examples`, `sample_seed`), once per point, once at 100%, not
    where the recipe refused the sample; its points join the table."""
    from benchmarks import baselines

    calls = []

    def fake_perceptron(dataset, quick, train_examples, sample_seed):
        calls.append((dataset, quick, train_examples, sample_seed))
        train = train_examples or 1000
        return {
            "baseline": "stand-in",
            "split": {"sentences": {"train": train, "dev": 5, "test": 5}},
            "scores": {"test_accuracy": 0.5 + sample_seed / 100},
            "train_seconds": 0.0,
            "line": "test accuracy: 0.5",
        }

    monkeypatch.setattr(baselines, "perceptron", fake_perceptron)
    monkeypatch.setattr(label_curve, "train_size", lambda task: 1000)
    folder = tmp_path / "curve"
    (folder / "brown_scratch_1_s2").mkdir(parents=True)
    (folder / "brown_scratch_1_s2" / "refused.txt").write_text("error: x\n")
    label_curve.fit_peers(folder, ["brown"], [1, 100], [0, 1, 2])
    assert calls == [
        ("brown", False, 10, 0), ("brown", False, 10, 1),
        ("brown", False, 0, 0),
    ]  # fmt: skip
    assert "skipped brown_peer_1_s2: the recipe refused" in (
        capsys.readouterr().out
    )
    config = json.loads(
        (folder / "brown_peer_1_s1" / "config.json").read_text()
    )
    assert config["peer"] == "NLTK perceptron" and config["sample_seed"] == 1
    label_curve.fit_peers(folder, ["brown"], [1, 100], [0, 1, 2])
    assert len(calls) == 3  # a rerun fits nothing again
    assert (
        label_curve.main([str(folder), "--output", str(tmp_path / "c.png")])
        == 0
    )
    table = capsys.readouterr().out
    assert (
        "| brown_peer_1_s1 | brown | peer: NLTK perceptron | 10 | 1 | "
        "accuracy 0.5100 |" in table
    )


def test_bad_flags_with_peers_are_one_line(label_curve, tmp_path, capsys):
    argv = [str(tmp_path), "--peers", "--tasks", "imdb"]
    assert "--tasks" in usage_error(label_curve.main, argv, capsys)
    assert not any(tmp_path.iterdir())
