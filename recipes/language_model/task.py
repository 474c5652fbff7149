"""The language-model recipe's `Recipe`: unlabelled text in, a
`zoo.tasks.BiLM` out (`TASK.run(config)`, or `run`)."""

import dataclasses
import math

import keras

import harness
import zoo
from harness import flags
from recipes import arguments
from recipes import models
from recipes import pipeline
from recipes.data import datasets
from recipes.data import splits
from recipes.data import unlabelled
from recipes.data.errors import DataError
from recipes.language_model.batches import ShardedBatches
from recipes.language_model.config import BOUNDARIES
from recipes.language_model.config import EXAMPLE
from recipes.language_model.config import QUICK_SENTENCES
from recipes.language_model.config import Config
from recipes.language_model.config import source_names
from recipes.task import Recipe


@dataclasses.dataclass
class State:
    data: datasets.Data
    vocabulary: zoo.layers.TokenVocabulary
    characters: zoo.layers.CharacterVocabulary
    counts: dict
    init_model: keras.Model = None


class LanguageModelTask(Recipe):
    """A bidirectional language model: per-word negative log-likelihood,
    perplexity."""

    name = "language_model"
    Config = Config
    task_class = zoo.tasks.BiLM
    curve_metric = "forward_nll"
    monitor_mode = "min"
    DATA_FILES = ("text_file", "init_from")

    def check(self, config):
        arguments.check_training(config)
        names = source_names(config)
        for name in names:
            if name not in unlabelled.SOURCES:
                raise harness.UsageError(
                    f"--corpora: {name!r} is not a corpus; known: "
                    f"{', '.join(unlabelled.SOURCES)}"
                )
        if not names and not config.text_file:
            raise harness.UsageError(
                "no text: name --corpora or give a --text-file"
            )
        flags.check_range("max_words", config.max_words, low=8)
        flags.check_range("min_count", config.min_count, low=1)
        flags.check_range("max_length", config.max_length, low=2)
        flags.check_range("num_sampled", config.num_sampled, low=0)
        flags.check_range("shards", config.shards, low=1)
        for name in (
            "units",
            "num_layers",
            "char_embedding_dim",
            "char_units",
            "char_kernel_size",
        ):
            flags.check_range(name, getattr(config, name), low=1)
        flags.check_range("max_chars", config.max_chars, low=2)
        if not 0 <= config.dropout < 1:
            raise harness.UsageError(
                f"--dropout must be a float in [0, 1); received "
                f"{config.dropout}"
            )

    def text_named(self, config):
        """What the text came from, as the flags name it."""
        names = [f"--corpora {','.join(source_names(config))}"] * bool(
            source_names(config)
        )
        if config.text_file:
            names.append(f"--text-file {config.text_file}")
        return " and ".join(names)

    def load_data(self, config):
        documents = {}
        if source_names(config):
            documents = unlabelled.load(
                source_names(config),
                max_length=config.max_length,
                corpus_dir=config.corpus_dir,
            )
        if config.text_file:
            documents["text_file"] = unlabelled.read_text_file(
                config.text_file, max_length=config.max_length
            )
        every = [d for docs in documents.values() for d in docs]
        try:
            parts = unlabelled.split(every)
        except DataError as error:
            raise DataError(
                f"{self.text_named(config)}: too little text to hold out "
                f"dev and test sentences ({sum(len(d) for d in every)} "
                f"sentences): {error}"
            ) from None
        parts = splits.cut_splits(parts, config, QUICK_SENTENCES)
        if len(parts[0]) < config.batch_size:
            raise DataError(
                f"{self.text_named(config)}: the training text has "
                f"{len(parts[0])} sentences, fewer than one batch "
                f"(--batch-size {config.batch_size}): give more text or a "
                "smaller --batch-size"
            )
        names = ", ".join(documents)
        return datasets.Data(
            *parts,
            description=f"{names}, blocks of {unlabelled.BLOCK} sentences "
            "98/1/1",
            what="sentences",
        ), {
            name: sum(len(s) for d in docs for s in d)
            for name, docs in documents.items()
        }

    def prepare(self, config):
        data, counts = self.load_data(config)
        model = None
        if config.init_from:
            model = models.load_saved_model(config.init_from, "--init-from")
            try:
                zoo.language_model.encoder_of(model)
            except ValueError:
                raise harness.UsageError(
                    f"--init-from {config.init_from}: not a language model "
                    "saved by recipes.language_model (its backbone is no "
                    "biLM encoder)"
                ) from None
            vocabulary = model.vocabulary
            characters = model.characters
        else:
            words = zoo.text.build_vocabulary(
                data.train,
                min_count=config.min_count,
                max_tokens=config.max_words
                - len(zoo.language_model.BOUNDARIES),
            )
            words = [w for w in words if w not in zoo.language_model.BOUNDARIES]
            vocabulary = zoo.layers.TokenVocabulary(
                [*zoo.language_model.BOUNDARIES, *words], name="vocabulary"
            )
            characters = zoo.layers.CharacterVocabulary.from_words(
                (w for s in data.train for w in s),
                min_count=config.min_count,
                max_chars=config.max_chars,
                name="characters",
            )
        return State(data, vocabulary, characters, counts, model)

    def build(self, config, state):
        if state.init_model is not None:
            # Trained on with this run's sampled softmax: the negatives
            # are a training setting, not a weight (the exact softmax in
            # evaluation is the same either way).
            model = state.init_model
            model.softmax.num_sampled = config.num_sampled
            return model
        return zoo.tasks.BiLM.create(
            state.vocabulary,
            state.characters,
            units=config.units,
            num_layers=config.num_layers,
            char_embedding_dim=config.char_embedding_dim,
            char_units=config.char_units,
            char_kernel_size=config.char_kernel_size,
            dropout=config.dropout,
            num_sampled=config.num_sampled,
            seed=config.seed,
        )

    def stack_input_width(self, config, state=None):
        return config.units

    def loss(self, reduction="mean_with_sample_weight"):
        return zoo.language_model.LanguageModelLoss(reduction=reduction)

    def metrics(self):
        return zoo.language_model.metrics()

    def monitor(self, state):
        # The mean per word of both directions (Keras's `val_loss` is a
        # mean over batches, weighted by their rows, not their words).
        return "val_nll"

    def datasets(self, config, state, batch_size, pad_to=1):
        encode = state.vocabulary.ids
        characters = state.characters

        def collate(batch):
            words = pipeline.pad([encode(s) for s in batch])
            chars = characters.encode(batch, width=words.shape[1])
            mask = (words > 0).astype("float32")
            return (words, chars), mask, mask

        data = state.data
        train = ShardedBatches(
            data.train,
            [len(s) for s in data.train],
            batch_size,
            BOUNDARIES,
            collate,
            shuffle_seed=config.seed,
            pad_to=pad_to,
            shards=config.shards,
        )
        dev, test = pipeline.split_batches(
            (data.dev, data.test),
            len,
            collate,
            batch_size,
            BOUNDARIES,
            None,
            pad_to,
        )
        return train, dev, test

    def progress(self, config, state, batches):
        # Each word is a target in each direction, the sentence's end too.
        words = sum(len(s) + 1 for s in state.data.train)
        return {
            "units": ("words", words // max(config.shards, 1)),
            "describe": _dev_perplexity,
        }

    def evaluate(self, config, state, reloaded, scores):
        metrics = {
            "test_loss": float(scores["loss"]),
            "test_forward_nll": float(scores["forward_nll"]),
            "test_backward_nll": float(scores["backward_nll"]),
        }
        for direction in ("forward", "backward"):
            metrics[f"test_{direction}_perplexity"] = math.exp(
                metrics[f"test_{direction}_nll"]
            )
        # The mean over both directions, per word (the loss is a mean
        # over batches).
        metrics["test_perplexity"] = math.exp(
            (metrics["test_forward_nll"] + metrics["test_backward_nll"]) / 2
        )
        metrics["example"] = reloaded.next_words(EXAMPLE)
        return metrics

    def describe(self, config, state, model):
        data = state.data
        unknown = sum(
            1 for s in data.test for i in state.vocabulary.ids(s) if i == 1
        )
        test_tokens = sum(len(s) for s in data.test)
        return {
            "corpora": source_names(config)
            + (["text_file"] if config.text_file else []),
            "description": data.description,
            "corpus_tokens": state.counts,
            "split_sentences": data.sizes(),
            "split_tokens": {
                name: sum(len(s) for s in part)
                for name, part in (
                    ("train", data.train),
                    ("dev", data.dev),
                    ("test", data.test),
                )
            },
            "vocabulary_size": state.vocabulary.vocabulary_size,
            "characters": state.characters.vocabulary_size,
            "test_unknown_rate": unknown / max(test_tokens, 1),
        }

    def title(self, config, state):
        return (
            f"biLM, {config.num_layers} x {config.units} LSTM per direction, "
            f"{state.data.description}"
        )

    def summary(self, metrics):
        tokens = metrics["split_tokens"]["test"]
        return [
            "test perplexity per word: forward "
            f"{metrics['test_forward_perplexity']:.1f}"
            f", backward {metrics['test_backward_perplexity']:.1f} ({tokens} "
            f"words and the sentence ends, vocabulary "
            f"{metrics['vocabulary_size']}, "
            f"{100 * metrics['test_unknown_rate']:.1f}% [UNK])",
            "next words: " + "; ".join(metrics["example"]),
        ]


def _dev_perplexity(logs):
    values = [
        f"{math.exp(logs[f'val_{d}_nll']):.1f} {d}"
        for d in ("forward", "backward")
        if f"val_{d}_nll" in logs
    ]
    return "dev perplexity " + ", ".join(values) if values else ""


TASK = LanguageModelTask()
# Train, evaluate and save a run (`recipes.task.Recipe.run`); a task model
# of a run folder or a preset (`recipes.task.Recipe.load`).
run = TASK.run
load = TASK.load
