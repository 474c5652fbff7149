"""What every sequence-to-sequence recipe shares (G2P, `recipes.g2p`;
translation, `recipes.translation`), in one place: the decoder's and
decoding's settings and their help (`DecoderOptions`, `DECODER_HELP`),
their checks (`check`), `predict --method` (`PREDICT_METHOD`), the
`zoo.build_seq2seq` model built from a config (`build_model`), the
teacher-forced batches (`collate`), and `EncoderDecoderTask`, the
`recipes.task.Recipe` base of both recipes (the model, the loss and
`load`).

A recipe subclasses `EncoderDecoderTask` with its data (`prepare`,
`datasets`, ...) and says how its `Config` names the decoding settings
(`decoding`); its `Config` inherits `DecoderOptions` beside
`recipes.settings.StackOptions`.
"""

import dataclasses
import typing

import keras

import harness
import zoo
from harness import flags
from recipes import arguments
from recipes import models
from recipes import pipeline
from recipes import settings
from recipes.data import cmudict
from recipes.task import Recipe
from zoo.seq2seq import layers as seq2seq_layers

# The library's (`zoo.build_seq2seq`), "none" for no attention.
ATTENTIONS = ("none", *seq2seq_layers.SCORES)
BRIDGES = seq2seq_layers.BRIDGES
# The decoder's first input and the target's last id. Every
# `zoo.tasks.Transcriber` reserves the same four ids, 0-3 (padding,
# unknown, start, end): the G2P recipe's letters and phonemes
# (`recipes.data.cmudict.Vocabulary`) and the translation recipe's
# SentencePiece pieces (`zoo.subwords`) alike.
START, END = cmudict.START, cmudict.END


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


# `predict --method` of every sequence-to-sequence recipe (a
# `recipes.cli.Predictor` option).
PREDICT_METHOD = (
    ("--method",),
    {
        "default": "beam",
        "choices": ("beam", "greedy"),
        "help": "beam search (the run's width and length penalty) or "
        "greedy decoding (default: beam)",
    },
)


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


def check(config):
    """The encoder-decoder's, decoding's and training's settings of
    `config` (a `DecoderOptions` and `recipes.settings.StackOptions`):
    `harness.UsageError` naming the flag for a bad one."""
    flags.check_choice("attention", config.attention, ATTENTIONS)
    flags.check_choice("bridge", config.bridge, BRIDGES)
    if config.embedding_dropout:
        raise harness.UsageError(
            "--embedding-dropout is not used by the sequence-to-sequence "
            "recipes; "
            f"received {config.embedding_dropout}, allowed: 0"
        )
    arguments.check_training(config)
    for name in ("decoder_layers", "decoder_units"):
        flags.check_range(name, getattr(config, name), low=0)
    flags.check_range("beam_width", config.beam_width, low=1)
    flags.check_range("length_penalty", config.length_penalty, 0, 5)
    flags.check_range("param_init", config.param_init, 0, 1)


def collate(batch):
    """`((source, decoder input), target, weight)` arrays of a batch of
    `(source ids, target ids)` pairs: the decoder reads `START` and the
    target, and learns the target and `END` (teacher forcing)."""
    source = pipeline.pad([src for src, _ in batch])
    inputs = pipeline.pad([[START, *tgt] for _, tgt in batch])
    targets = pipeline.pad([[*tgt, END] for _, tgt in batch])
    return (source, inputs), targets, (targets > 0).astype("float32")


# Stack options the seq2seq builder takes by name or per side; every other
# one in `settings.STACK_FIELDS` goes to both stacks as it is.
_OWN = ("cell", "num_layers", "units", "embedding_dim", "embedding_dropout")
_ENCODER_ONLY = ("bidirectional", "merge_mode")


def build_model(config, source_size, target_size):
    """`zoo.build_seq2seq` from ids below `source_size` (letters, source
    pieces) to ids below `target_size` (phonemes, target pieces), with
    every stack option of the config: the ones in `_ENCODER_ONLY` go to
    the encoder, all others to both stacks, so an option declared in
    `zoo.options` reaches the model unchanged."""
    shared = settings.stack_options(config, skip=_OWN + _ENCODER_ONLY)
    encoder = {k: getattr(config, k) for k in _ENCODER_ONLY}
    decoder = {}
    if config.decoder_layers:
        decoder["num_layers"] = config.decoder_layers
    if config.decoder_units:
        decoder["units"] = config.decoder_units
    try:
        return zoo.build_seq2seq(
            source_size,
            target_size,
            config.cell,
            config.num_layers,
            config.units,
            embedding_dim=config.embedding_dim,
            bridge=config.bridge,
            attention=None if config.attention == "none" else config.attention,
            param_init=config.param_init or None,
            encoder=encoder,
            decoder=decoder,
            **shared,
        )
    except ValueError as error:  # the zoo's own argument checks
        raise harness.UsageError(str(error).splitlines()[0]) from None


class EncoderDecoderTask(Recipe):
    """A sequence-to-sequence recipe's `Recipe`: `build_model`'s
    encoder-decoder over token ids, trained with teacher forcing
    (`collate`) on the cross-entropy of the next target id, and loaded
    as the recipe's `task_class` (a `zoo.tasks.Transcriber`) with its
    decoding settings.

    Subclasses set `name`, `Config`, `task_class` and `BOUNDARIES`, and
    implement `decoding`, `examples` and the data's other methods
    (`prepare`, `model_args`, `task_model`, `evaluate`, ...)."""

    encoder_decoder = True
    # The source lengths (ids) the batches are bucketed by.
    BOUNDARIES = ()

    def examples(self, config, state):
        """`(train, dev)`: lists of `(source ids, target ids)` pairs."""
        raise NotImplementedError

    def decoding(self, config):
        """A `Config`'s decoding settings, as the task class names them
        (`beam_width`, `length_penalty`, `max_source_length`,
        `max_target_length`)."""
        raise NotImplementedError

    def recipe(self):
        """The recipe's package (`recipes.g2p`), for messages."""
        return type(self).__module__.rpartition(".")[0]

    def load(self, output, config=None):
        """The `task_class` model of a run's folder or a preset (a
        shipped name or a preset folder). It decodes with the settings
        it was trained with, unless `config` (a `Config`) is given."""
        model = models.load_saved_model(output, "model", kind="seq2seq")
        if not isinstance(model, self.task_class):
            raise harness.UsageError(
                f"model {output}: a {type(model).__name__}, not a "
                f"zoo.tasks.{self.task_class.__name__} (a run of "
                f"{self.recipe()})"
            )
        if config is not None:
            model.configure(**self.decoding(config))
        return model

    def model_for(
        self, config, num_outputs, *, vocabulary_size=None, input_dim=None
    ):
        """`build_model`: token ids below `vocabulary_size` in, ids below
        `num_outputs` out (no float features)."""
        if input_dim is not None or vocabulary_size is None:
            raise ValueError(
                f"the {self.name} task reads token ids: pass "
                f"`vocabulary_size`; received input_dim={input_dim!r}."
            )
        return build_model(config, vocabulary_size, num_outputs)

    def loss(self, reduction="sum_over_batch_size"):
        """The cross-entropy of each next target id (the padding weighted
        0 by `collate`'s weights)."""
        return keras.losses.SparseCategoricalCrossentropy(reduction=reduction)

    def datasets(self, config, state, batch_size, pad_to=1):
        """`examples`' pairs in teacher-forced batches (`collate`),
        bucketed by source length (`BOUNDARIES`); no test batches (the
        test split is decoded by `evaluate`)."""
        train, dev = pipeline.split_batches(
            list(self.examples(config, state)),
            lambda example: len(example[0]),
            collate,
            batch_size,
            self.BOUNDARIES,
            config.seed,
            pad_to,
        )
        return train, dev, None
