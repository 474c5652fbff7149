"""The G2P recipe's `Recipe`: CMUdict in, a `zoo.tasks.Transcriber` out
(`TASK.run(config)`, or `run`)."""

import dataclasses
import pathlib
import time

import harness
import zoo
from harness import files
from harness import flags
from recipes import encoder_decoder
from recipes import scoring
from recipes import settings
from recipes.data import brown
from recipes.data import cmudict
from recipes.data import datasets
from recipes.data import splits
from recipes.g2p.config import BOUNDARIES
from recipes.g2p.config import NEW_WORDS
from recipes.g2p.config import QUICK_WORDS
from recipes.g2p.config import Config
from zoo.languages.en import g2p
from zoo.languages.en import homographs
from zoo.languages.en import lexicon


def decoding(config):
    """A `Config`'s decoding settings, as `zoo.tasks.Transcriber` names
    them."""
    return {
        "beam_width": config.beam_width,
        "length_penalty": config.length_penalty,
        "max_source_length": config.max_word_length,
        "max_target_length": config.max_output_length,
    }


def check(config):
    if config.dataset != "cmudict":
        raise harness.UsageError(
            f"--dataset {config.dataset!r} is unknown; known datasets: cmudict"
        )
    encoder_decoder.check(config)
    for name in ("max_word_length", "max_output_length"):
        flags.check_range(name, getattr(config, name), low=1)


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


def brown_training_sentences():
    """The tagged Brown corpus's training split (its documents split as
    `python -m recipes.tagging --dataset brown` splits them), with
    Brown's own tags (`tagset="brown"`): `(words, tags)` pairs."""
    documents = brown.load_documents(brown.ensure_corpus(), tagset="brown")
    train = brown.split_documents(documents, seed=datasets.SPLIT_SEED)[0]
    return [sentence for document in train for sentence in document.sentences]


def write_preset_assets(folder, entries, fine):
    """A G2P preset's assets in `folder`, from the dictionary `entries`
    (`{word: [phones, ...]}`) and the tagged sentences `fine` (Brown's
    own tags): the dictionary gzipped (`zoo.languages.en.lexicon.write`)
    and the heteronym and tense tables (`zoo.languages.en.homographs.
    tables`). Returns `{name: path}`."""
    folder = pathlib.Path(folder)
    written = [lexicon.write(entries, folder / g2p.DICTIONARY_ASSET)]
    found = homographs.tables(entries, fine, brown.universal_tag)
    for name, content in found.items():
        files.write_json(folder / name, content)
        written.append(folder / name)
    return {path.name: path for path in written}


@dataclasses.dataclass
class State:
    """What `G2PTask.prepare` found: the dictionary and its splits."""

    entries: dict
    train: dict
    dev: dict
    test: dict
    vocab: cmudict.Vocabulary


class G2PTask(encoder_decoder.EncoderDecoderTask):
    """G2P: teacher-forced training, PER/WER of beam search on test. Its
    task model, a `zoo.tasks.Transcriber`, loads from a run's folder or
    a preset (`load`): `load(OUTPUT)(["keras", "zoo"])` -> `[[...],
    [...]]`, one list of phonemes per word, in order."""

    name = "seq2seq"
    Config = Config
    task_class = zoo.tasks.Transcriber
    BOUNDARIES = BOUNDARIES

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

    def decoding(self, config):
        return decoding(config)

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
        """A G2P preset's dictionary and heteronym tables, for `zoo.G2p`
        (`write_preset_assets`): the CMUdict it trained on (1.1.3, with
        stress if the run had it) and the tagged Brown training split."""
        entries = cmudict.load(stress=config.stress)
        return write_preset_assets(folder, entries, brown_training_sentences())

    def examples(self, config, state):
        return [
            pairs(state.vocab, words, config.max_word_length)
            for words in (state.train, state.dev)
        ]

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


TASK = G2PTask()
# Train, evaluate and save a run (`recipes.task.Recipe.run`); a task model
# of a run folder or a preset (`G2PTask.load`).
run = TASK.run
load = TASK.load
