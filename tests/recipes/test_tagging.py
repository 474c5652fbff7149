"""The tagging recipe end to end on a small corpus written here, on the
backend the suite runs on (the model reads token ids: every backend)."""

import csv
import dataclasses
import json
import pathlib
import random

import keras
import numpy as np
import pytest

import harness
import zoo
from recipes import arguments
from recipes import classification
from recipes import distributed
from recipes import results
from recipes import tagging
from recipes.data import tfds_data
from tests.helpers import usage_error
from tests.recipes.test_loaders import TWT

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
    """A few seconds of training. Word-only and without TensorBoard logs
    unless a test asks: the tests that are about the recipe's defaults
    (character features, TensorBoard) turn them on."""
    values = dict(
        corpus_dir=str(write_corpus(tmp_path / "corpus")),
        output=str(tmp_path / "out"),
        epochs=3,
        units=8,
        embedding_dim=8,
        batch_size=8,
        learning_rate=0.01,
        char_features=False,
        tensorboard=False,
    )
    values.update(overrides)
    return tagging.Config(**values)


def test_tagging_run_writes_metrics_model_and_plot(tmp_path):
    config = tiny_config(tmp_path, char_features=True, tensorboard=True)
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
    assert model.labels == ["", *tags]
    tagged = model.tag(["the dog sees a cat ."])[0]
    assert tagged == [
        ("the", "DET"),
        ("dog", "NOUN"),
        ("sees", "VERB"),
        ("a", "DET"),
        ("cat", "NOUN"),
        (".", "."),
    ]
    # A raw string is split into words and punctuation, as the corpus is;
    # a list of words is used as it is; one result per input, in order.
    tagger = model
    assert isinstance(tagger, zoo.Tagger)  # the model.keras is one
    assert tagger.tag(["the dog sees a cat.", ["a", "cat"]]) == [
        tagged,
        [("a", "DET"), ("cat", "NOUN")],
    ]
    with pytest.raises(TypeError, match="`sentences` must be a list"):
        tagger.tag("the dog sees a cat .")
    assert len(metrics["example"]) == len(tagging.EXAMPLE.split())
    assert (out / "tensorboard").is_dir()


@pytest.mark.slow  # test_resume kills and resumes runs in make test
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
    assert epochs == [1, 2, 3]  # from 1, as the progress bar and plots
    assert metrics["epochs_run"] == 3  # epoch 0 before the kill, then 1-2
    assert metrics["resumed_at_epoch"] == 1
    assert not (tmp_path / "out" / "backup").exists()


@pytest.mark.every_backend
@pytest.mark.parametrize(
    "argv,message",
    [
        (["--dataset", "imdb"], "--dataset 'imdb' is unknown; known"),
        (["--epochs", "0"], "--epochs must be >= 1; received 0"),
        (["--dropout", "1"], "--dropout must be a float in [0, 1); received 1"),
        (["--corpus-dir", "/nonexistent/brown"], "cats.txt"),
        # The config flags' own checks (recipes.arguments), every recipe's.
        (["--cell", "lstn"], "--cell must be one of 'simple_rnn', 'gru'"),
        (["--units", "abc"], "--units must be an integer; received 'abc'"),
        (["--units", "0"], "--units must be an integer >= 1; received 0"),
        (["--epochs", "three"], "--epochs must be an integer"),
        (["--residual", "yes"], "--residual takes no value or one of auto"),
        (["--train-examples", "-1"], "--train-examples must be >= 0"),
    ],
)
def test_cli_errors_exit_2_with_one_line(argv, message, tmp_path, capsys):
    argv = [*argv, "--output", str(tmp_path)]
    assert message in usage_error(tagging.main, argv, capsys)


def test_config_file_sets_options_and_flags_win(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"units": 16, "cell": "gru"}))
    parser = __import__("argparse").ArgumentParser()
    arguments.add_config_arguments(parser, tagging.Config)
    args = parser.parse_args(["--config", str(path), "--units", "32"])
    config = arguments.resolve_config(tagging.Config, args)
    assert (config.cell, config.units) == ("gru", 32)
    path.write_text(json.dumps({"unitz": 3}))
    args = parser.parse_args(["--config", str(path)])
    with pytest.raises(harness.UsageError, match="unknown setting"):
        arguments.resolve_config(tagging.Config, args)


def write_ner(path, sentences=120, seed=0):
    """token<TAB>tag sentences: a PER name after 'with', LOC after 'in'."""
    rng = random.Random(seed)
    people = [["john"], ["mary", "smith"], ["ann"]]
    places = [["paris"], ["new", "york"], ["rome"]]
    blocks = []
    for _ in range(sentences):
        person, place = rng.choice(people), rng.choice(places)
        rows = [("i", "O"), ("met", "O"), ("with", "O")]
        rows += [(w, ("B-" if i == 0 else "I-") + "person")
                 for i, w in enumerate(person)]  # fmt: skip
        rows += [("in", "O")]
        rows += [(w, ("B-" if i == 0 else "I-") + "geo-loc")
                 for i, w in enumerate(place)]  # fmt: skip
        blocks.append("\n".join(f"{w}\t{t}" for w, t in rows))
    path.write_text("\n\t\n".join(blocks) + "\n")
    return path


def test_a_crf_tagger_s_replicas_keep_its_likelihood(tmp_path):
    train = write_ner(tmp_path / "ner.txt", sentences=30)
    config = tiny_config(tmp_path, dataset="columns", train_file=str(train))
    task = tagging.TASK
    model = task.compile(task.build(config, task.prepare(config)), config)
    assert isinstance(model.loss, zoo.layers.crf.CRFLoss)
    replica = distributed._replica_loss(model, task, reduction="sum")
    assert type(replica) is type(model.loss) and replica is not model.loss
    assert (replica.reduction, model.loss.reduction) == (
        "sum", "sum_over_batch_size",
    )  # fmt: skip
    ids = np.array([[2, 3, 4, 5], [5, 4, 3, 2]])
    tags = np.array([[0, 1, 2, 0], [1, 0, 0, 2]])
    emissions = model(ids)
    # The likelihood summed over the batch's 8 steps, not averaged.
    per_step = float(model.loss(tags, emissions))
    assert float(replica(tags, emissions)) == pytest.approx(8 * per_step)


def test_ner_scores_entity_spans(tmp_path):
    train = write_ner(tmp_path / "ner.txt")
    config = tagging.Config(
        dataset="columns",
        train_file=str(train),
        output=str(tmp_path / "out"),
        epochs=4,
        units=8,
        embedding_dim=8,
        batch_size=8,
        learning_rate=0.02,
        embedding_dropout=0.0,
    )
    metrics = tagging.run(config)
    assert metrics["task"] == "ner"
    assert metrics["split_sentences"] == {"train": 96, "dev": 12, "test": 12}
    assert 0.0 <= metrics["test_f1"] <= 1.0
    assert metrics["test_f1"] > 0.5
    log = (tmp_path / "out" / "log.csv").read_text().splitlines()
    assert "val_f1" in log[0].split(",")


CONLLU = """# sent_id = 1
# text = Vámonos al mar.
1-2\tVámonos\t_\t_\t_\t_\t_\t_\t_\t_
1\tVamos\tir\tVERB\t_\t_\t0\troot\t_\t_
2\tnos\tnosotros\tPRON\t_\t_\t1\tobj\t_\t_
3-4\tal\t_\t_\t_\t_\t_\t_\t_\t_
3\ta\ta\tADP\t_\t_\t5\tcase\t_\t_
4\tel\tel\tDET\t_\t_\t5\tdet\t_\t_
5\tmar\tmar\tNOUN\t_\t_\t1\tobl\t_\t_
5.1\tva\tir\tVERB\t_\t_\t_\t_\t0:root\t_
6\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_

"""


@pytest.mark.slow  # tests/recipes/test_loaders.py reads CoNLL-U files
def test_conllu_dataset_from_user_files(tmp_path):
    paths = {}
    for split, copies in (("train", 30), ("dev", 3), ("test", 3)):
        paths[split] = tmp_path / f"{split}.conllu"
        paths[split].write_text(CONLLU * copies)
    config = tagging.Config(
        dataset="conllu",
        train_file=str(paths["train"]),
        dev_file=str(paths["dev"]),
        test_file=str(paths["test"]),
        output=str(tmp_path / "out"),
        epochs=2,
        units=8,
        embedding_dim=8,
        learning_rate=0.02,
    )
    metrics = tagging.run(config)
    assert metrics["split_sentences"] == {"train": 30, "dev": 3, "test": 3}
    # Multiword ranges and empty nodes are not tokens: 6 words a sentence.
    assert metrics["split_tokens"]["test"] == 18
    assert metrics["num_tags"] == 6


def test_saved_model_evaluates_and_rejects_other_labels(tmp_path, capsys):
    config = tiny_config(tmp_path, epochs=1)
    tagging.run(config)
    model_path = tmp_path / "out" / "model.keras"
    again = tagging.run(
        dataclasses.replace(
            config,
            init_from=str(model_path),
            epochs=0,
            output=str(tmp_path / "eval"),
        )
    )
    assert again["epochs_run"] == 0
    assert again["params"] > 0
    ner = write_ner(tmp_path / "ner.txt")
    argv = [
        "--dataset", "columns", "--train-file", str(ner), "--init-from",
        str(model_path), "--epochs", "0", "--output", str(tmp_path / "x"),
    ]  # fmt: skip
    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(tagging.main, argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "label set mismatch" in err and "B-person" in err


def _dev_accuracies(config):
    """A run's logged validation accuracy per epoch, and its saved
    model's accuracy on the same dev batches."""
    with open(pathlib.Path(config.output) / "log.csv") as handle:
        logged = [float(row["val_accuracy"]) for row in csv.DictReader(handle)]
    task = tagging.TASK
    _, dev, _ = task.datasets(config, task.prepare(config), config.batch_size)
    model = keras.saving.load_model(pathlib.Path(config.output) / "model.keras")
    return logged, model.evaluate(dev, return_dict=True, verbose=0)["accuracy"]


@pytest.mark.every_backend
@pytest.mark.torch_tier  # where long runs train; every backend in test-all
def test_ema_validates_and_saves_the_averaged_weights(tmp_path):
    # --ema 0.9: what each epoch validated is what was saved (the best
    # epoch's averages, not the trained weights).
    config = tiny_config(tmp_path / "ema", ema=0.9, patience=3)
    tagging.run(config)
    logged, saved = _dev_accuracies(config)
    assert saved == pytest.approx(max(logged), abs=1e-6)
    assert max(logged) > 0.6
    # A momentum near 1 keeps the averages at the first step's weights,
    # which validate near chance while the trained weights learn: the
    # scores are the averages'.
    slow = tiny_config(tmp_path / "slow", ema=0.99999, patience=3)
    tagging.run(slow)
    logged_slow, saved_slow = _dev_accuracies(slow)
    assert max(logged_slow) < max(logged) - 0.3
    assert saved_slow == pytest.approx(max(logged_slow), abs=1e-6)


@pytest.mark.slow  # test_resume compares seeded runs in make test
def test_same_seed_gives_the_same_metrics(tmp_path):
    first = tagging.run(tiny_config(tmp_path / "a", epochs=2))
    second = tagging.run(tiny_config(tmp_path / "b", epochs=2))
    for key in ("test_accuracy", "test_loss", "params", "example"):
        assert first[key] == second[key]


def _tfds_tagging_examples(builder, split, **kwargs):
    import tensorflow as tf

    rng = random.Random(split)
    pos = builder.info.features["pos"].feature.names
    rows = []
    for _ in range(40 if split.startswith("train") else 8):
        n = rng.randint(3, 7)
        rows.append(
            {
                "tokens": [
                    rng.choice(["eu", "the bank", "x"]) for _ in range(n)
                ],
                "pos": [rng.randrange(len(pos)) for _ in range(n)],
                "ner": [0] * n,
                "chunks": [0] * n,
            }
        )
    return tf.data.Dataset.from_generator(
        lambda: iter(rows),
        output_signature={
            "tokens": tf.TensorSpec((None,), tf.string),
            "pos": tf.TensorSpec((None,), tf.int64),
            "ner": tf.TensorSpec((None,), tf.int64),
            "chunks": tf.TensorSpec((None,), tf.int64),
        },
    )


@pytest.mark.tf_only
def test_tfds_dataset_through_mock_data(tmp_path):
    tfds = pytest.importorskip("tensorflow_datasets")
    with tfds.testing.mock_data(as_dataset_fn=_tfds_tagging_examples):
        train, dev, test = tfds_data.tagging("conll2003")
    assert (len(train), len(dev), len(test)) == (40, 8, 8)
    words, tags = train[0]
    assert len(words) == len(tags)
    # A token holding a space stays one token for the whitespace splitter.
    assert set(w for ws, _ in train for w in ws) <= {"eu", "the_bank", "x"}
    names = tfds.builder("conll2003").info.features["pos"].feature.names
    assert set(t for _, ts in train for t in ts) <= set(names)


@pytest.mark.slow  # tests/test_mixed_precision covers the library
@pytest.mark.tf_only
def test_mixed_precision_flag_trains_and_saves_a_mixed_model(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "corpus")
    argv = [
        "--corpus-dir", str(corpus), "--output", str(tmp_path / "out"),
        "--epochs", "1", "--units", "8", "--embedding-dim", "8",
        "--batch-size", "8", "--no-tensorboard", "--mixed-precision",
        "bfloat16",
    ]  # fmt: skip
    try:
        metrics = tagging.main(argv)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert "mixed precision: mixed_bfloat16" in capsys.readouterr().out
    assert 0.0 <= metrics["test_accuracy"] <= 1.0
    model = keras.saving.load_model(tmp_path / "out" / "model.keras")
    policies = {layer.dtype_policy.name for layer in model.layers}
    assert "mixed_bfloat16" in policies
    assert model.get_layer("tags").dtype_policy.name == "float32"
    assert all(w.dtype == "float32" for w in model.weights)


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_saved_tagger_tags_raw_text_in_a_new_process(tmp_path):
    """One import and one call, `safe_mode=True`, on this backend."""
    import os
    import subprocess
    import sys

    tagging.run(tiny_config(tmp_path, epochs=1, char_features=True))
    code = (
        "import sys, keras, zoo; "  # `import zoo` alone loads the file
        "keras.saving.load_model(sys.argv[1] + '/model.keras', "
        "safe_mode=True); "
        "import recipes.tagging; "
        "print(recipes.tagging.load(sys.argv[1]).tag(['the dog runs'])[0])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "KERAS_BACKEND": keras.backend.backend()},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().startswith("[('the', ")
    # The same tagger as a preset, on the command line: one line out per
    # line in (an empty line stays empty), raw or tokenised text.
    from recipes import presets

    out, dest = str(tmp_path / "out"), str(tmp_path)
    found = presets.main(["export", out, "t", "--dest", dest])
    fixed = found["fixed_inputs"]
    assert fixed["sentences"] == list(zoo.tasks.tagger.CHECK_SENTENCES)
    assert [len(t.split()) for t in fixed["tags"]] == [
        len(s.split()) for s in zoo.tasks.tagger.CHECK_SENTENCES
    ]
    assert len(fixed["top_outputs"]) == sum(
        len(s.split()) for s in zoo.tasks.tagger.CHECK_SENTENCES
    )
    # In one line, as NLTK's pos_tag: one sentence, raw or tokenised (the
    # run's tagger, loaded by its recipe).
    run = tagging.load(tmp_path / "t")
    pairs = zoo.pos_tag("the dog runs.", preset=run)
    assert [w for w, _ in pairs] == ["the", "dog", "runs", "."]
    assert zoo.pos_tag(["the", "dog", "runs", "."], preset=run) == pairs
    with pytest.raises(TypeError, match="`tokens` must be"):
        zoo.pos_tag(None, preset=run)
    env = {**os.environ, "KERAS_BACKEND": keras.backend.backend()}
    predict = [sys.executable, "-m", "recipes.tagging", "predict"]
    result = subprocess.run(
        [*predict, "--model", str(tmp_path / "t")],
        input="the dog runs.\n\nthe cat\n",
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.split("\n")
    assert len(lines) == 4 and lines[1] == "" and lines[3] == ""
    assert [pair.rsplit("/", 1)[0] for pair in lines[0].split()] == [
        "the", "dog", "runs", ".",
    ]  # fmt: skip
    tags = tagging.load(tmp_path / "t").labels
    assert all(pair.rsplit("/", 1)[1] in tags for pair in lines[2].split())
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"\x00\x01")
    result = subprocess.run(
        [*predict, "--model", str(tmp_path / "t"), "--input", str(binary)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert result.returncode == 2
    # (TensorFlow 2.21 may print its start-up lines first: docs/limits.md.)
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        f"error: --input {binary}: a binary file (it holds NUL bytes); "
        "plain UTF-8 text needed"
    )


@pytest.mark.slow  # RunDirectory has its unit tests (test_run_directory)
def test_run_directory_refuses_other_runs_and_keeps_finished_ones(
    tmp_path, capsys
):
    config = tiny_config(tmp_path, epochs=1, tensorboard=False)
    first = tagging.run(config)
    log = (tmp_path / "out" / "log.csv").read_text()
    again = tagging.run(config)  # finished: not retrained
    assert again == json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert again["test_accuracy"] == first["test_accuracy"]
    assert (tmp_path / "out" / "log.csv").read_text() == log
    assert "not retraining" in capsys.readouterr().out
    with pytest.raises(harness.UsageError, match="units 8 -> 12"):
        tagging.run(dataclasses.replace(config, units=12))
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(harness.UsageError, match="not empty"):
        tagging.run(dataclasses.replace(config, output=str(other)))
    fresh = tagging.run(dataclasses.replace(config, units=12), overwrite=True)
    assert fresh["params"] != first["params"]
    # A tagger is no classifier to fine-tune, even where the labels match.
    table = tmp_path / "texts.csv"
    table.write_text(
        "text,label\n"
        + "".join(f"w{i},{('NOUN', 'VERB')[i % 2]}\n" for i in range(9))
    )
    tagger = tmp_path / "out" / "model.keras"
    argv = [
        "--dataset", "csv", "--train-file", str(table), "--init-from",
        str(tagger), "--epochs", "0", "--output", str(tmp_path / "cls"),
    ]  # fmt: skip
    capsys.readouterr()
    assert usage_error(classification.main, argv, capsys) == (
        f"error: --init-from {tagger}: a classifier is needed here, but this "
        "model is a tagger (saved by recipes.tagging)"
    )


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--cell", "lstn"], "--cell must be one of 'simple_rnn', 'gru'"),
        (["--learning-rate", "nan"], "--learning-rate must be a finite"),
        (["--model", "nope"], "--model 'nope' is not a registered backbone"),
        (["--min-count", "100000"], "--min-count 100000: no training word"),
        (["--head", "mlp"], "--head must be one of auto, softmax, crf"),
        (["--char-kind", "gru"], "--char-kind must be one of 'rnn', 'cnn'"),
        (["--char-units", "0"], "--char-units must be"),
        (["--ema", "1"], "--ema must be in [0, 1) (a momentum; 0: off)"),
        (["--ema", "-0.5"], "--ema must be >= 0; received -0.5"),
    ],
)
def test_more_cli_errors_exit_2(argv, message, tmp_path, capsys):
    corpus = write_corpus(tmp_path / "corpus")
    argv = [*argv, "--corpus-dir", str(corpus), "--output", str(tmp_path / "o")]
    assert message in usage_error(tagging.main, argv, capsys)


def test_a_registered_backbone_by_name_with_flags_overriding(tmp_path):
    config = tiny_config(tmp_path, epochs=1, tensorboard=False)
    parser = __import__("argparse").ArgumentParser()
    arguments.add_config_arguments(parser, tagging.Config)
    args = parser.parse_args(["--model", "lstm_tiny", "--units", "4"])
    resolved = arguments.resolve_config(tagging.Config, args)
    assert resolved.units == 4 and resolved.num_layers is None
    metrics = tagging.run(
        dataclasses.replace(config, model="lstm_tiny", units=4, num_layers=None,
                            cell=None, bidirectional=None)
    )  # fmt: skip
    stack = tagging.load(tmp_path / "out").get_layer("encoder")
    assert stack.name == "encoder" and metrics["params"] > 0
    widths = {
        spec.units
        for layer in stack.layers
        if isinstance(layer, __import__("zoo").StackedRNN)
        for spec in layer.layer_specs
    }
    assert widths == {4}


@pytest.mark.every_backend
@pytest.mark.parametrize(
    "head,chars",
    [
        # The CRF with characters: tests/test_heads.py in make test.
        pytest.param("crf", True, marks=pytest.mark.slow),
        ("softmax", False),
        # The CRF and the plain word features are each in a case above.
        pytest.param("crf", False, marks=pytest.mark.slow),
    ],
)
def test_heads_and_character_features_train_and_reload(tmp_path, head, chars):
    config = tiny_config(
        tmp_path, head=head, char_features=chars, epochs=4, learning_rate=0.02
    )
    metrics = tagging.run(config)
    assert metrics["head"] == head
    assert (metrics["characters"] > 2) == chars
    assert metrics["test_accuracy"] > 0.8
    tagger = tagging.load(tmp_path / "out")
    assert (tagger.characters is not None) == chars
    assert (tagger.crf is not None) == (head == "crf")
    tagged = tagger.tag(["the dog sees a cat ."])[0]
    assert [w for w, _ in tagged] == ["the", "dog", "sees", "a", "cat", "."]
    log = (tmp_path / "out" / "log.csv").read_text().splitlines()
    assert "val_accuracy" in log[0].split(",")


class _Poison(keras.callbacks.Callback):
    """Turns the weights to NaN during epoch 2, as a diverging run's."""

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.epoch == 1:
            for variable in self.model.trainable_variables:
                variable.assign(keras.ops.full(variable.shape, float("nan")))


def test_a_run_whose_loss_becomes_nan_fails_with_one_line(tmp_path, capsys):
    config = tiny_config(tmp_path, epochs=3)
    with pytest.raises(results.TrainingDiverged) as info:
        tagging.run(config, callbacks=[_Poison()])
    assert str(info.value).startswith(
        "training diverged: the loss became non-finite in epoch 2"
    )

    def refuse(constant):
        raise ValueError(f"not strict JSON: {constant}")

    out = tmp_path / "out"
    metrics = json.loads(
        (out / "metrics.json").read_text(), parse_constant=refuse
    )
    assert metrics["diverged_at_epoch"] == 2 and metrics["epochs_run"] == 1
    # model.keras holds epoch 1's (finite) weights.
    reloaded = keras.saving.load_model(out / "model.keras", safe_mode=True)
    assert all(np.isfinite(w).all() for w in reloaded.get_weights())
    # A rerun trains nothing and fails the same way, on one line, exit 1.
    argv = [
        "--corpus-dir", config.corpus_dir, "--output", str(out),
        "--epochs", "3", "--units", "8", "--embedding-dim", "8",
        "--batch-size", "8", "--learning-rate", "0.01",
        "--no-char-features", "--no-tensorboard",
    ]  # fmt: skip
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(tagging.main, argv)
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert "not retraining" in captured.out and "Epoch" not in captured.out
    assert captured.err.strip().splitlines() == [f"error: {info.value}"]


def test_init_from_refuses_pieces_of_words_marked_otherwise(tmp_path, capsys):
    path = tmp_path / "twt.conllu"
    path.write_text((TWT + "\n") * 20, encoding="utf-8")
    common = ["--dataset", "conllu", "--train-file", str(path)]
    for marks in ("--mark-pieces", "--no-mark-pieces"):
        config = tiny_config(
            tmp_path / marks,
            dataset="conllu",
            train_file=str(path),
            epochs=1,
            mark_pieces=marks == "--mark-pieces",
        )
        tagging.run(config)
    for trained, given, fix in (
        ("--mark-pieces", "--no-mark-pieces", "pass --mark-pieces"),
        ("--no-mark-pieces", "--mark-pieces", "pass --no-mark-pieces"),
    ):
        model = tmp_path / trained / "out" / "model.keras"
        argv = [*common, "--init-from", str(model), "--epochs", "0", given]
        argv += ["--output", str(tmp_path / "x")]
        err = usage_error(tagging.main, argv, capsys)
        assert f"--init-from {model}: that tagger was trained on" in err
        assert err.endswith(f"{fix} to give it the tokens it reads")
        # The tokens it was trained on are taken.
        metrics = tagging.run(
            tagging.Config(
                dataset="conllu",
                train_file=str(path),
                init_from=str(model),
                epochs=0,
                mark_pieces=trained == "--mark-pieces",
                output=str(tmp_path / f"eval{trained}"),
            )
        )
        assert metrics["epochs_run"] == 0


def french_conllu(sentences=30, words=12):
    """CoNLL-U with a multiword `du` (`de` + `le`) in every sentence among
    words seen once: pieces are common as tokens, rare in the vocabulary."""
    blocks = []
    for n in range(sentences):
        rows = ["1-2\tdu\t_\t_\t_\t_\t_\t_\t_\t_"]
        rows += ["1\tde\tde\tADP\t_\t_\t0\troot\t_\t_"]
        rows += ["2\tle\tle\tDET\t_\t_\t1\tdet\t_\t_"]
        rows += [
            f"{i}\tmot{n}x{i}\tmot\tNOUN\t_\t_\t1\tobj\t_\t_"
            for i in range(3, words + 3)
        ]
        blocks.append("\n".join(rows) + "\n")
    return "\n".join(blocks)


def test_init_from_takes_a_tagger_marked_as_the_data(tmp_path):
    # Marked pieces: 2 of 14 tokens a sentence, 2 of ~290 vocabulary words.
    path = tmp_path / "fr.conllu"
    path.write_text(french_conllu(), encoding="utf-8")
    config = tiny_config(
        tmp_path, dataset="conllu", train_file=str(path), epochs=1
    )
    tagging.run(config)
    again = dataclasses.replace(
        config,
        init_from=str(tmp_path / "out" / "model.keras"),
        epochs=0,
        output=str(tmp_path / "again"),
    )
    assert tagging.run(again)["epochs_run"] == 0
    with pytest.raises(harness.UsageError, match="pass --mark-pieces"):
        tagging.run(
            dataclasses.replace(
                again, mark_pieces=False, output=str(tmp_path / "bare")
            )
        )
