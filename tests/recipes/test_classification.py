"""The classification recipe end to end on small CSV files written here,
on the backend the suite runs on (the model reads token ids)."""

import csv
import json
import random

import keras
import numpy as np
import pytest

import harness
import zoo
from diagnostics import activations
from recipes import classification
from recipes import distributed
from recipes import tagging
from recipes.data import tfds_data
from tests.helpers import usage_error
from tests.recipes.test_tagging import write_corpus

WORDS = {
    "sport": ["goal", "match", "team", "cup", "striker"],
    "money": ["bank", "rates", "shares", "profit", "market"],
    "tech": ["phone", "chip", "software", "internet", "camera"],
}
FILLER = ["the", "a", "today", "said", "new", "after", "and", "on"]


def write_csv(path, rows=150, seed=0, labels=tuple(WORDS)):
    rng = random.Random(seed)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label"])
        for _ in range(rows):
            label = rng.choice(labels)
            words = rng.choices(FILLER, k=rng.randint(2, 12))
            words += rng.choices(WORDS[label], k=2)
            rng.shuffle(words)
            writer.writerow([" ".join(words), label])
    return path


def _test_rows(tmp_path):
    with (tmp_path / "train.csv").open() as handle:
        return list(csv.reader(handle))[1:]


def tiny_config(tmp_path, **overrides):
    values = dict(
        dataset="csv",
        train_file=str(write_csv(tmp_path / "train.csv")),
        output=str(tmp_path / "out"),
        epochs=4,
        units=8,
        embedding_dim=8,
        batch_size=16,
        learning_rate=0.02,
        attention_units=8,
        head_dropout=0.0,
        embedding_dropout=0.0,
        tensorboard=False,  # the tagging tests check TensorBoard's logs
    )
    values.update(overrides)
    return classification.Config(**values)


@pytest.mark.grid(stride=3)
@pytest.mark.parametrize("pooling", classification.POOLINGS)
def test_classifier_learns_with_each_pooling(pooling, tmp_path):
    metrics = classification.run(tiny_config(tmp_path, pooling=pooling))
    assert metrics["split_examples"] == {"train": 120, "dev": 15, "test": 15}
    assert metrics["labels"] == ["money", "sport", "tech"]
    assert metrics["test_accuracy"] > 0.6
    assert 0.0 <= metrics["test_macro_f1"] <= 1.0
    out = tmp_path / "out"
    assert (out / "learning_curves.png").read_bytes()[:4] == b"\x89PNG"
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["test_macro_f1"] == metrics["test_macro_f1"]
    model = keras.saving.load_model(out / "model.keras", safe_mode=True)
    assert model.labels == metrics["labels"]
    label, probability = classification.classify(
        model, ["the striker scored in the cup match"]
    )[0]
    assert label in metrics["labels"] and 0 < probability <= 1
    # A user's CSV: the examples shown are its own test texts, with their
    # labels, not the news sentences of the built-in dataset.
    examples = metrics["examples"]
    assert len(examples) == 3 and all("gold" in e for e in examples)
    assert all(e["gold"] in metrics["labels"] for e in examples)
    shown = {e["text"] for e in examples}
    assert not shown & set(classification.EXAMPLES["bbc"])
    assert shown <= {" ".join(row[0].split()) for row in _test_rows(tmp_path)}


def _check_padding(model):
    """A short text padded in a batch gets what it gets alone."""
    short = "bank profit"
    alone = classification.classify(model, [short])[0][1]
    padded = classification.classify(
        model, [short, "the new phone chip and the camera said today"]
    )[0][1]
    assert alone == pytest.approx(padded, abs=1e-5)


@pytest.mark.every_backend
def test_padding_does_not_change_predictions(tmp_path):
    classification.run(tiny_config(tmp_path, pooling="attention", epochs=1))
    model = keras.saving.load_model(
        tmp_path / "out" / "model.keras", safe_mode=True
    )
    _check_padding(model)


@pytest.mark.every_backend
def test_wide_and_deep_learns_reloads_and_ignores_padding(tmp_path):
    """`--wide`: a linear model of the TF-IDF bag of words adds its logits
    to the stack's, trained at `--wide-learning-rate` while the rest
    trains at `--learning-rate`; the model reloads with `safe_mode=True`
    as it was (the idf in it, the two rates in its optimizer), and a
    text padded in a batch gets what it gets alone. `--max-length 0`
    reads whole texts."""
    config = tiny_config(
        tmp_path,
        wide=True,
        bigram_buckets=64,
        max_length=0,
        epochs=3,
        wide_learning_rate=0.1,
    )
    metrics = classification.run(config)
    assert metrics["test_accuracy"] > 0.6
    model = keras.saving.load_model(
        tmp_path / "out" / "model.keras", safe_mode=True
    )
    optimizer = model.optimizer
    assert isinstance(optimizer, zoo.optimizers.DiscriminativeAdam)
    assert optimizer.decay == pytest.approx(0.1 / 0.02)
    groups = {
        variable.path: optimizer.group_of(variable)
        for variable in model.trainable_variables
    }
    wide = {path for path, group in groups.items() if "wide_logits" in path}
    assert len(wide) == 2  # kernel and bias, at the wide rate
    assert all(groups[path] == 0 for path in wide)
    assert {g for p, g in groups.items() if p not in wide} == {1}
    bag = model.get_layer("bag_of_words")
    assert (bag.vocabulary_size, bag.bigram_buckets) == (
        model.vocabulary.vocabulary_size,
        64,
    )
    idf = keras.ops.convert_to_numpy(bag.idf)
    assert idf.min() >= 1.0 and idf.max() > 1.5  # learned from the texts
    _check_padding(model)


@pytest.mark.every_backend
def test_wide_run_scores_only_its_examples(tmp_path):
    """The test accuracy in `metrics.json` is the saved model's on the
    test texts, with `--wide` too: JAX pads each batch's rows to the
    batch size (weight 0), which the metrics must not count (15 test
    texts in a batch of 64 here)."""
    config = tiny_config(
        tmp_path, wide=True, bigram_buckets=64, batch_size=64, epochs=2
    )
    metrics = classification.run(config)
    test = classification.TASK.load_data(config).test
    classifier = classification.load(tmp_path / "out")
    labels = list(classifier.labels)
    predicted = classifier.probabilities([text for text, _ in test])
    right = [
        labels[int(np.argmax(row))] == label
        for row, (_, label) in zip(predicted, test)
    ]
    assert metrics["test_accuracy"] == pytest.approx(np.mean(right))


def test_macro_f1_is_the_unweighted_mean_over_classes(tmp_path):
    metric = keras.metrics.F1Score(average="macro")
    # 3 classes; truth 0,0,1,2; predicted 0,1,1,1.
    truth = keras.utils.to_categorical([0, 0, 1, 2], 3)
    predicted = keras.utils.to_categorical([0, 1, 1, 1], 3)
    metric.update_state(truth, predicted)
    per_class = [2 * 1 / (2 * 1 + 0 + 1), 2 * 1 / (2 + 2 + 0), 0.0]
    expected = sum(per_class) / 3
    assert float(metric.result()) == pytest.approx(expected)


def test_label_mismatch_with_a_saved_model_exits_2(tmp_path, capsys):
    config = tiny_config(tmp_path, epochs=1)
    classification.run(config)
    other = tmp_path / "other.csv"
    with other.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label"])
        for i in range(20):
            writer.writerow([f"words {i}", "weather" if i % 2 else "sport"])
    argv = [
        "--dataset", "csv", "--train-file", str(other), "--init-from",
        str(tmp_path / "out" / "model.keras"), "--epochs", "0",
        "--output", str(tmp_path / "eval"),
    ]  # fmt: skip
    err = usage_error(classification.main, argv, capsys)
    assert "label set mismatch" in err and "'weather'" in err
    # A classifier is no tagger, to inspect or to fine-tune.
    classifier = str(tmp_path / "out" / "model.keras")
    wrong_kind = f"{classifier}: a tagger is needed here, but this model is "
    wrong_kind += "a classifier (saved by recipes.classification)"
    with pytest.raises(harness.UsageError) as info:
        activations.main(["--model", classifier])
    assert str(info.value) == f"--model {wrong_kind}"
    corpus = write_corpus(tmp_path / "corpus")
    argv = [
        "--corpus-dir", str(corpus), "--init-from", classifier,
        "--epochs", "0", "--output", str(tmp_path / "tagged"),
    ]  # fmt: skip
    err = usage_error(tagging.main, argv, capsys)
    assert err == f"error: --init-from {wrong_kind}"


@pytest.mark.every_backend
@pytest.mark.parametrize(
    "argv,message",
    [
        (["--dataset", "reuters"], "--dataset 'reuters' is unknown; known"),
        (
            ["--pooling", "sum"],
            "--pooling must be one of mean, max, last, concat",
        ),
        (["--max-length", "-1"], "--max-length must be >= 0; received -1"),
        (["--bigram-buckets", "-3"], "--bigram-buckets must be"),
        (["--head-dropout", "1"], "--head-dropout must be [0, 0.95]"),
        (["--label-smoothing", "0.6"], "--label-smoothing must be [0, 0.5]"),
        (["--dataset", "csv"], "--dataset csv needs --train-file"),
        (
            ["--dataset", "csv", "--train-file", "/nonexistent.csv"],
            "/nonexistent.csv",
        ),
        (["--cell", "transformer"], "cell"),
        (["--fine-tune"], "--fine-tune needs --pretrained"),
        (["--fine-tune-epochs", "0"], "--fine-tune-epochs must be >= 1"),
        (
            ["--wide", "--wide-learning-rate", "0.001"],
            "--wide-learning-rate must be at least --learning-rate (0.002); "
            "received 0.001",
        ),
        (["--wide-learning-rate", "nan"], "--wide-learning-rate must be"),
        (["--vector-words", "-1"], "--vector-words must be >= 0; received -1"),
        (
            ["--wide", "--fine-tune", "--pretrained", "en_bilm"],
            "--wide and --fine-tune do not combine",
        ),
    ],
)
def test_cli_errors_exit_2_with_one_line(argv, message, tmp_path, capsys):
    if argv[:2] == ["--cell", "transformer"]:
        argv = [*argv, "--dataset", "csv", "--train-file"]
        argv.append(str(write_csv(tmp_path / "t.csv", rows=30)))
    argv = [*argv, "--output", str(tmp_path / "o")]
    assert message in usage_error(classification.main, argv, capsys)


@pytest.mark.parametrize("wide", [False, True])
def test_label_smoothing_reaches_the_compiled_and_the_replica_loss(
    tmp_path, wide
):
    task = classification.TASK
    config = tiny_config(tmp_path, label_smoothing=0.2, wide=wide)
    model = task.compile(task.build(config, task.prepare(config)), config)
    y, p = np.eye(3)[[0, 1]], np.array([[0.98, 0.01, 0.01]] * 2)
    plain = float(task.loss()(y, p))
    smoothed = float(model.loss(y, p))
    # Targets 1 - 0.2 + 0.2/3 and 0.2/3: -(0.867 log 0.98 + 0.133 log 0.01)
    # on the first row, -(0.067 log 0.98 + 0.867 log 0.01 + ...) on the
    # second.
    expected = -np.sum((y * 0.8 + 0.2 / 3) * np.log(p), axis=1).mean()
    assert smoothed == pytest.approx(expected, rel=1e-4)
    assert smoothed != pytest.approx(plain, rel=1e-2)
    replica = distributed._replica_loss(model, task, reduction="sum")
    assert replica.get_config()["label_smoothing"] == 0.2
    assert float(replica(y, p)) == pytest.approx(2 * expected, rel=1e-4)


def test_a_csv_row_that_would_invent_a_class_exits_2(tmp_path, capsys):
    path = write_csv(tmp_path / "t.csv", rows=30)
    with path.open("a") as handle:
        handle.write("good movie, really good,pos\nfine,neg\n")
    argv = ["--dataset", "csv", "--train-file", str(path)]
    argv += ["--output", str(tmp_path / "o")]
    assert usage_error(classification.main, argv, capsys) == (
        f"error: {path}:32: 3 fields, but the header has 2 (['text', "
        "'label']): 'good movie, really good,pos'; quote a value that holds "
        'a comma or a line break ("good movie, really good")'
    )
    assert not (tmp_path / "o" / "metrics.json").exists()


def _tfds_imdb_examples(builder, split, **kwargs):
    import tensorflow as tf

    texts = ["a fine film", "dull and long", "great acting", "bad plot"]
    return tf.data.Dataset.from_tensor_slices(
        {"text": texts, "label": tf.constant([1, 0, 1, 0], tf.int64)}
    )


@pytest.mark.tf_only
def test_tfds_dataset_through_mock_data():
    tfds = pytest.importorskip("tensorflow_datasets")
    with tfds.testing.mock_data(as_dataset_fn=_tfds_imdb_examples):
        train, dev, test = tfds_data.classification("imdb_reviews")
    assert train[0] == ("a fine film", "pos")
    assert {label for _, label in train} == {"neg", "pos"}
    assert len(dev) == len(test) == 4
