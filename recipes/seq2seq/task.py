"""The G2P recipe's `Task`: CMUdict in, a `zoo.tasks.Transcriber` out
(`TASK.run(config)`, or `run`)."""

import dataclasses
import json
import pathlib
import time

import keras

import harness
import zoo
from harness import files
from harness import flags
from harness import rundir
from recipes import arguments
from recipes import models
from recipes import pipeline
from recipes import scoring
from recipes import settings
from recipes.data import cmudict
from recipes.data import datasets
from recipes.data import heteronyms
from recipes.data import splits
from recipes.seq2seq.config import ATTENTIONS
from recipes.seq2seq.config import BOUNDARIES
from recipes.seq2seq.config import BRIDGES
from recipes.seq2seq.config import NEW_WORDS
from recipes.seq2seq.config import QUICK_WORDS
from recipes.seq2seq.config import Config
from recipes.tagging import config as tagging_config
from recipes.task import Task


def decoding(config):
    """A `Config`'s decoding settings, as `zoo.tasks.Transcriber` names
    them."""
    return {
        "beam_width": config.beam_width,
        "length_penalty": config.length_penalty,
        "max_source_length": config.max_word_length,
        "max_target_length": config.max_output_length,
    }


def _earlier_release(model, output):
    """A run folder of an earlier release: a `zoo.Seq2Seq` in
    `model.keras`, its symbols in `vocab.json` and its decoding settings
    in `config.json`, as a `zoo.tasks.Transcriber`."""
    if output.is_file():
        output = output.parent
    vocab_file = output / "vocab.json"
    if not vocab_file.is_file():
        raise harness.UsageError(
            f"model {output}: no vocab.json beside the model (a run of "
            "recipes.seq2seq of an earlier release wrote it)"
        )
    saved = output / "config.json"
    values = rundir.read_saved_config(saved) if saved.is_file() else {}
    known = {f.name for f in dataclasses.fields(Config)}
    config = Config(**{k: v for k, v in values.items() if k in known})
    vocab = json.loads(vocab_file.read_text())
    return zoo.tasks.Transcriber.from_seq2seq(
        model, vocab["letters"], vocab["phonemes"], **decoding(config)
    )


def check(config):
    if config.dataset != "cmudict":
        raise harness.UsageError(
            f"--dataset {config.dataset!r} is unknown; known datasets: cmudict"
        )
    check_model(config)
    for name in ("max_word_length", "max_output_length"):
        flags.check_range(name, getattr(config, name), low=1)


def check_model(config):
    """The encoder-decoder's and decoding's settings, as every
    sequence-to-sequence recipe has them (G2P, translation)."""
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
            param_init=config.param_init or None,
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
    encoder_decoder = True
    Config = Config
    task_class = zoo.tasks.Transcriber

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

    def model_args(self, config, state):
        return dict(
            num_outputs=len(state.vocab.phonemes),
            vocabulary_size=len(state.vocab.letters),
        )

    def task_model(self, model, config, state):
        """The `zoo.Seq2Seq` as a `zoo.tasks.Transcriber`: it keeps the
        letters, the phonemes and the decoding settings."""
        vocab = state.vocab.to_json()
        return zoo.tasks.Transcriber.from_seq2seq(
            model, vocab["letters"], vocab["phonemes"], **decoding(config)
        )

    def preset_assets(self, config, folder):
        """A G2P preset's dictionary and heteronym table, for `zoo.G2p`:
        the CMUdict it trained on (1.1.3, with stress if the run had it),
        gzipped, `recipes.data.heteronyms.build` of it and the tagged
        Brown training split (universal tags), and the words that say a
        verb's tense (`heteronyms.tense_contexts`, Brown's own tags)."""
        folder = pathlib.Path(folder)
        entries = cmudict.load(stress=config.stress)
        dictionary = cmudict.write_dictionary(
            entries, folder / zoo.tasks.g2p.DICTIONARY_ASSET
        )
        fine = datasets.load_tagging(
            tagging_config.Config(pretrained="none", tagset="brown")
        ).train
        homographs = folder / zoo.tasks.g2p.HOMOGRAPHS_ASSET
        files.write_json(
            homographs,
            heteronyms.build(entries, heteronyms.universal_tags(fine)),
        )
        tenses = folder / zoo.tasks.g2p.TENSES_ASSET
        files.write_json(tenses, heteronyms.tense_contexts(fine))
        return {path.name: path for path in (dictionary, homographs, tenses)}

    def load(self, output, config=None):
        """A `zoo.tasks.Transcriber` from a run's folder or a preset (a
        shipped name or a preset folder): `load(OUTPUT)(["keras",
        "zoo"])` -> `[[...], [...]]`, one list of phonemes per word, in
        order. It decodes with the settings it was trained with (a run
        of an earlier release: its `config.json` and `vocab.json`),
        unless `config` (a `Config`) is given."""
        model = models.load_saved_model(output, "model", kind="seq2seq")
        if not isinstance(model, zoo.tasks.Transcriber):
            model = _earlier_release(model, pathlib.Path(output))
        if config is not None:
            model.configure(**decoding(config))
        return model

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
        transcribe = reloaded.configure(**decoding(config)).transcribe
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
# Train, evaluate and save a run (`recipes.task.Task.run`); a task model
# of a run folder or a preset (`Seq2SeqTask.load`).
run = TASK.run
load = TASK.load
