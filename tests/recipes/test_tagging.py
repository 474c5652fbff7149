"""The tagging recipe end to end on a small corpus written here.

The recipe model reads raw strings (`TextVectorization`), which Keras runs
on the TensorFlow backend only.
"""

import json
import random

import keras
import pytest

from recipes import _common
from recipes import tagging

pytestmark = pytest.mark.tf_only

LEXICON = {
    "at": ["the", "a", "no"],
    "nn": ["dog", "cat", "table", "key", "house", "jury"],
    "vbz": ["runs", "sees", "likes", "opens"],
    "jj": ["big", "old", "red"],
    "in": ["on", "in", "near"],
    "pps": ["he", "she"],
}
PATTERNS = [
    ["at", "nn", "vbz", "at", "nn"],
    ["at", "jj", "nn", "vbz", "in", "at", "nn"],
    ["pps", "vbz", "at", "jj", "nn"],
]


def write_corpus(root, documents=20, sentences=12, seed=0):
    rng = random.Random(seed)
    root.mkdir(parents=True)
    cats = []
    for index in range(documents):
        lines = []
        for _ in range(sentences):
            tags = rng.choice(PATTERNS)
            words = [rng.choice(LEXICON[t]) for t in tags]
            tokens = [f"{w}/{t}" for w, t in zip(words, tags)] + ["./."]
            lines.append("\t" + " ".join(tokens))
        doc = f"ca{index:02d}"
        (root / doc).write_text("\n\n".join(lines) + "\n")
        cats.append(f"{doc} news")
    (root / "cats.txt").write_text("\n".join(cats) + "\n")
    return root


def tiny_config(tmp_path, **overrides):
    values = dict(
        corpus_dir=str(write_corpus(tmp_path / "corpus")),
        output=str(tmp_path / "out"),
        epochs=3,
        units=8,
        embedding_dim=8,
        batch_size=8,
        learning_rate=0.01,
    )
    values.update(overrides)
    return tagging.Config(**values)


def test_tagging_run_writes_metrics_model_and_plot(tmp_path):
    config = tiny_config(tmp_path)
    metrics = tagging.run(config)
    out = tmp_path / "out"
    assert metrics["split_sentences"] == {"train": 192, "dev": 24, "test": 24}
    assert 0.5 < metrics["test_accuracy"] <= 1.0
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["params"] == metrics["params"] > 0
    assert json.loads((out / "config.json").read_text())["units"] == 8
    assert (out / "learning_curves.png").read_bytes()[:4] == b"\x89PNG"
    model = keras.saving.load_model(out / "model.keras", safe_mode=True)
    tags = sorted({"ADJ", "ADP", "DET", "NOUN", "PRON", "VERB", "."})
    tagged = tagging.tag_sentences(model, tags, ["the dog sees a cat ."])[0]
    assert [w for w, _ in tagged] == ["the", "dog", "sees", "a", "cat", "."]
    assert all(t in tags for _, t in tagged)
    assert len(metrics["example"]) == len(tagging.EXAMPLE.split())


def test_interrupted_run_resumes_from_the_last_epoch(tmp_path):
    class Interrupt(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 0:
                raise KeyboardInterrupt("simulated kill after epoch 1")

    config = tiny_config(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        tagging.run(config, callbacks=[Interrupt()])
    assert (tmp_path / "out" / "backup").exists()
    metrics = tagging.run(config)
    epochs = [
        int(line.split(",")[0])
        for line in (tmp_path / "out" / "log.csv").read_text().splitlines()
        if line and line[0].isdigit()
    ]
    assert epochs == [0, 1, 2]
    assert metrics["epochs_run"] == 2  # the resumed run trained epochs 1-2


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--dataset", "imdb"], "--dataset 'imdb' is unknown; known"),
        (["--epochs", "0"], "--epochs must be >= 1; received 0"),
        (["--dropout", "1.5"], "--dropout must be [0, 0.95]"),
        (["--corpus-dir", "/nonexistent/brown"], "cats.txt"),
    ],
)
def test_cli_errors_exit_2_with_one_line(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        _common.run_cli(tagging.main, [*argv, "--output", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1


def test_config_file_sets_options_and_flags_win(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"units": 16, "cell": "gru"}))
    parser = __import__("argparse").ArgumentParser()
    _common.add_config_arguments(parser, tagging.Config)
    args = parser.parse_args(["--config", str(path), "--units", "32"])
    config = _common.resolve_config(tagging.Config, args)
    assert (config.cell, config.units) == ("gru", 32)
    path.write_text(json.dumps({"unitz": 3}))
    args = parser.parse_args(["--config", str(path)])
    with pytest.raises(_common.RecipeError, match="unknown setting"):
        _common.resolve_config(tagging.Config, args)
