"""The translation recipe's settings: `Config` (its fields are the flags
and `--config` keys), their help and the recipe's constants."""

import dataclasses
import typing

from recipes import settings
from recipes.encoder_decoder import DECODER_HELP
from recipes.encoder_decoder import DecoderOptions
from zoo.subwords import MODEL_TYPES

DATASETS = ("bible", "files")
DIRECTIONS = ("es-en", "en-es")
QUICK_PAIRS = (3000, 100, 100)
# `--quick` is a smoke run that still shows learning: a small model and
# a small vocabulary (for the settings not given explicitly).
QUICK = {
    "epochs": 3,
    "units": 64,
    "num_layers": 1,
    "embedding_dim": 64,
    "vocabulary_size": 1000,
    "inter_layer_dropout": 0.0,
    "max_target_length": 60,
}


@dataclasses.dataclass
class Config(DecoderOptions, settings.StackOptions):
    """Data, subword and decoder settings here; the stack and training
    ones are inherited (they set the encoder, and the decoder unless
    overridden)."""

    output: str = "runs/translation"
    epochs: int = 12
    patience: int = 3
    lr_schedule: str = "cosine"
    batch_size: int = 64
    learning_rate: float = 0.002
    units: int = 256
    embedding_dim: int = 256
    # Both on: with either alone (or neither) the 2-layer model stayed at
    # the target's unigram loss (~6.1) for the first 100-160 steps; with
    # both it left it by step 80 (5.41 at step 160): the residual carries
    # the normalised layer-1 output to the top, so attention and softmax
    # see unit-scale inputs instead of Keras's tiny initial activations.
    residual: bool = True
    layer_norm: bool = True
    # `general` attention (G2P's default) collapsed onto one source piece
    # within 100 steps here (entropy 0.069 of 2.849, largest weight
    # 0.971, own and shuffled sources equal: benchmarks.translation_start
    # --source-every 100); the bounded cosine score stayed spread (2.2)
    # and the source began to count (dev loss 5.093 own, 5.143 shuffled
    # at step 300).
    attention: str = "cosine"
    # Keras's initialisers (embeddings in +-0.05, Glorot kernels: +-0.027
    # for the 8,000-way softmax) kept the model near the target's unigram
    # loss with its source unused for 200 steps (dev loss at step 100:
    # 5.962 with the verses' own sources, 5.964 shuffled); every weight in
    # +-0.1 (OpenNMT's param_init): 4.528 own, 5.162 shuffled. The
    # embeddings and the softmax carry most of it (docs/recipes.md).
    param_init: float = 0.1
    inter_layer_dropout: float = 0.3
    embedding_dropout: float = 0.0
    dataset: str = "bible"
    direction: str = "es-en"
    train_files: str = ""
    dev_files: str = ""
    test_files: str = ""
    vocabulary_size: int = 8000
    subword_model: str = "unigram"
    max_source_length: int = 100
    max_target_length: int = 120
    QUICK: typing.ClassVar[dict] = QUICK
    CHOICES: typing.ClassVar[dict] = {
        **DecoderOptions.CHOICES,
        "dataset": DATASETS,
        "direction": DIRECTIONS,
        "subword_model": MODEL_TYPES,
    }


HELP = {
    **settings.STACK_HELP,
    **DECODER_HELP,
    "dataset": "bible (verse pairs of the Debian SWORD modules sword-text-"
    "sparv and sword-text-web, dev and test whole books) or files "
    "(--train-files, --dev-files, --test-files)",
    "direction": "with --dataset bible: es-en (Spanish to English) or en-es",
    "train_files": "with --dataset files: SOURCE,TARGET, two UTF-8 files "
    "with one sentence a line, line i of one the translation of line i of "
    "the other",
    "dev_files": "with --dataset files: SOURCE,TARGET for early stopping",
    "test_files": "with --dataset files: SOURCE,TARGET scored at the end",
    "vocabulary_size": "SentencePiece pieces per language, learned on the "
    "training side only (fewer where the text has fewer)",
    "subword_model": "SentencePiece's algorithm: unigram or bpe",
    "quick": settings.quick_help(Config, QUICK_PAIRS, "sentence pairs"),
    "max_source_length": "training pairs whose source has more pieces are "
    "left out; longer sentences are cut at translation (with a warning)",
    "max_target_length": "training pairs whose target has more pieces are "
    "left out; decoding stops after this many pieces",
}


# Source lengths (pieces) the batches are bucketed by.
BOUNDARIES = (16, 24, 32, 40, 48, 64, 80)
