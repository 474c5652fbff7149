"""`make demo-stacks` (`python -m recipes.stacks`) runs end to end and
writes its table, JSON and plot."""

import json

import pytest

from recipes import stacks
from recipes.data import synthetic


@pytest.mark.slow
def test_demo_trains_every_cell_and_writes_outputs(tmp_path, capsys):
    results = stacks.main(["--epochs", "1", "--output", str(tmp_path)])
    assert [r["cell"] for r in results] == ["simple_rnn", "gru", "lstm"]
    for result in results:
        assert result["last_loss"] > 0
        assert [width for _, width, _ in result["layers"]] == [32, 32]
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert saved[0]["params"] == results[0]["params"]
    assert (tmp_path / "loss.png").read_bytes()[:4] == b"\x89PNG"
    printed = capsys.readouterr().out
    assert "loss first" in printed and "simple_rnn_stack_layer0" in printed


def test_task_labels_need_memory():
    x, y = synthetic.make_task(num_sequences=8, steps=5, features=2, seed=1)
    running = x[..., 0].cumsum(axis=1) > 0
    assert (y[..., 0] == running).all()
