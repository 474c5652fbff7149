"""The translation recipe's `Recipe`: parallel text in, a
`zoo.tasks.Translator` out (`TASK.run(config)`, or `run`)."""

import dataclasses
import pathlib
import time

import harness
import zoo
from harness import extras
from harness import flags
from harness import plots
from recipes import encoder_decoder
from recipes import scoring
from recipes import settings
from recipes.data import parallel
from recipes.data import splits
from recipes.data.errors import DataError
from recipes.translation.config import BOUNDARIES
from recipes.translation.config import QUICK_PAIRS
from recipes.translation.config import Config

FILE_FLAGS = ("train_files", "dev_files", "test_files")
SAMPLES = 5  # test sentences shown with their translations


def decoding(config):
    """A `Config`'s decoding settings, as `zoo.tasks.Translator` names
    them."""
    return {
        "beam_width": config.beam_width,
        "length_penalty": config.length_penalty,
        "max_source_length": config.max_source_length,
        "max_target_length": config.max_target_length,
    }


def file_pair(name, value):
    """`--NAME-files SOURCE,TARGET` as two paths."""
    parts = [part.strip() for part in value.split(",")]
    if len(parts) != 2 or not all(parts):
        raise harness.UsageError(
            f"--{name.replace('_', '-')} {value!r}: expected SOURCE,TARGET "
            "(two files, a comma between)"
        )
    return parts


def check(config):
    extras.require(
        "translation",
        "sentencepiece",
        "sacrebleu",
        what="python -m recipes.translation",
    )
    encoder_decoder.check(config)
    for name in ("vocabulary_size", "max_source_length", "max_target_length"):
        flags.check_range(name, getattr(config, name), low=1)
    if config.vocabulary_size < 16:
        raise harness.UsageError(
            f"--vocabulary-size {config.vocabulary_size}: at least 16 "
            "(4 ids are special)"
        )
    given = [name for name in FILE_FLAGS if getattr(config, name)]
    if config.dataset == "files":
        missing = [name for name in FILE_FLAGS if name not in given]
        if missing:
            raise harness.UsageError(
                "--dataset files needs "
                + ", ".join(f"--{m.replace('_', '-')}" for m in missing)
                + " (SOURCE,TARGET each)"
            )
        for name in FILE_FLAGS:
            file_pair(name, getattr(config, name))
    elif given:
        raise harness.UsageError(
            f"--{given[0].replace('_', '-')} is read with --dataset files "
            f"only; received --dataset {config.dataset}"
        )
    if config.dataset == "files" and config.direction != "es-en":
        raise harness.UsageError(
            "--direction is for --dataset bible; with --dataset files the "
            "source is the first file of each pair"
        )


def load_pairs(config):
    """`(train, dev, test)` lists of `recipes.data.parallel.Pair`, the
    source side first, cut to `--quick`'s or the example flags' sizes."""
    try:
        if config.dataset == "files":
            parts = tuple(
                parallel.read_files(*file_pair(name, getattr(config, name)))
                for name in FILE_FLAGS
            )
        else:
            parts = parallel.split_by_books(
                parallel.verse_pairs("sparv", "web")
            )
            if config.direction == "en-es":
                parts = tuple([p.reversed() for p in part] for part in parts)
    except DataError as error:
        raise harness.UsageError(str(error)) from None
    return tuple(splits.cut_splits(list(parts), config, QUICK_PAIRS))


def encoded(state, pairs, config, *, limit):
    """`(source ids, target ids)` of `pairs`; with `limit`, a pair longer
    than `--max-source-length` or `--max-target-length` pieces is left
    out (training), else the source is cut (dev)."""
    sources = state.source.encode([p.source for p in pairs])
    targets = state.target.encode([p.target for p in pairs])
    result = []
    for src, tgt in zip(sources, targets):
        if not src or not tgt:
            continue
        if limit and (
            len(src) > config.max_source_length
            or len(tgt) > config.max_target_length
        ):
            continue
        result.append(
            (src[: config.max_source_length], tgt[: config.max_target_length])
        )
    return result


@dataclasses.dataclass
class State:
    """What `TranslationTask.prepare` found: the splits and the two
    subword models learned on the training side."""

    train: list
    dev: list
    test: list
    source: zoo.subwords.Subwords
    target: zoo.subwords.Subwords


class TranslationTask(encoder_decoder.EncoderDecoderTask):
    """Translation: teacher-forced training, BLEU and chrF of beam search
    on test. Its task model, a `zoo.tasks.Translator`, loads from a run's
    folder or a preset folder (`load`): `load(OUTPUT)(["La casa es
    grande."])` -> a translation per sentence."""

    name = "translation"
    Config = Config
    task_class = zoo.tasks.Translator
    BOUNDARIES = BOUNDARIES
    DATA_FILES = FILE_FLAGS

    def check(self, config):
        check(config)

    def prepare(self, config):
        train, dev, test = load_pairs(config)
        try:
            source, target = parallel.subword_models(
                train, config.vocabulary_size, config.subword_model
            )
        except DataError as error:
            raise harness.UsageError(str(error)) from None
        return State(train, dev, test, source, target)

    def data_fingerprint(self, config, state):
        found = super().data_fingerprint(config, state)
        found["subwords"] = harness.files.digest(
            [state.source.proto.hex(), state.target.proto.hex()]
        )
        return found

    def model_args(self, config, state):
        return dict(
            num_outputs=state.target.size, vocabulary_size=state.source.size
        )

    def task_model(self, model, config, state):
        """The `zoo.Seq2Seq` as a `zoo.tasks.Translator`: it keeps both
        subword models and the decoding settings."""
        return zoo.tasks.Translator.from_seq2seq(
            model, state.source.proto, state.target.proto, **decoding(config)
        )

    def decoding(self, config):
        return decoding(config)

    def examples(self, config, state):
        return [
            encoded(state, state.train, config, limit=True),
            encoded(state, state.dev, config, limit=False),
        ]

    def describe(self, config, state, model):
        parts = (
            ("train", state.train),
            ("dev", state.dev),
            ("test", state.test),
        )
        kept = len(encoded(state, state.train, config, limit=True))
        pieces = {
            name: sum(
                len(ids)
                for ids in state.target.encode([p.target for p in part])
            )
            for name, part in parts
        }
        return {
            "dataset": config.dataset,
            "direction": config.direction if config.dataset == "bible" else "",
            "split_pairs": {name: len(part) for name, part in parts},
            "split_books": {
                name: sorted({p.book for p in part} - {""})
                for name, part in parts[1:]
            },
            "train_pairs_used": kept,
            "target_pieces": pieces,
            "source_vocabulary": state.source.size,
            "target_vocabulary": state.target.size,
            "beam_width": config.beam_width,
        }

    def evaluate(self, config, state, reloaded, scores):
        translator = reloaded.configure(**decoding(config))
        sources = [p.source for p in state.test]
        references = [p.target for p in state.test]
        metrics = {}
        outputs = {}
        for method in ("greedy", "beam"):
            start = time.perf_counter()
            outputs[method] = translator.translate(sources, method=method)
            seconds = time.perf_counter() - start
            found = scoring.translation_scores(outputs[method], references)
            metrics[f"{method}_test_bleu"] = round(found["bleu"], 2)
            metrics[f"{method}_test_chrf"] = round(found["chrf"], 2)
            metrics[f"{method}_decode_seconds"] = round(seconds, 1)
            metrics[f"{method}_sentences_per_second"] = round(
                len(sources) / max(seconds, 1e-9), 2
            )
        metrics["test_bleu"] = metrics["beam_test_bleu"]
        metrics["test_chrf"] = metrics["beam_test_chrf"]
        metrics["examples"] = [
            {
                "source": sources[i],
                "reference": references[i],
                "translation": outputs["beam"][i],
            }
            for i in _sample_indices(len(sources))
        ]
        return metrics

    def figures(self, config, state, reloaded, output):
        """`attention.png`: where the decoder looked while translating the
        first sample test sentence (none without attention)."""
        if config.attention == "none":
            return []
        index = _sample_indices(len(state.test))[0]
        source, target, weights = reloaded.attention_map(
            state.test[index].source
        )
        plots.plot_attention(
            source,
            target + ["</s>"],
            weights,
            pathlib.Path(output) / "attention.png",
            title=self.run_title(config, state),
        )
        return ["attention.png"]

    def title(self, config, state):
        what = (
            f"Bible {config.direction}"
            if config.dataset == "bible"
            else "parallel files"
        )
        return (
            f"{settings.describe_stack(config)} encoder-decoder, "
            f"{config.attention} attention, {what}"
        )

    def summary(self, metrics):
        lines = [
            f"test BLEU {metrics['test_bleu']:.2f}, chrF "
            f"{metrics['test_chrf']:.2f} (beam {metrics['beam_width']}; "
            f"greedy: BLEU {metrics['greedy_test_bleu']:.2f}, chrF "
            f"{metrics['greedy_test_chrf']:.2f}; "
            f"{metrics['split_pairs']['test']} sentences)"
        ]
        for example in metrics["examples"]:
            lines.append(f"  source:      {example['source']}")
            lines.append(f"  reference:   {example['reference']}")
            lines.append(f"  translation: {example['translation']}")
        return lines


def _sample_indices(count):
    """`SAMPLES` test sentences spread over the split."""
    step = max(count // SAMPLES, 1)
    return list(range(0, count, step))[:SAMPLES]


TASK = TranslationTask()
# Train, evaluate and save a run (`recipes.task.Recipe.run`); a translator
# of a run folder or a preset folder (`TranslationTask.load`).
run = TASK.run
load = TASK.load
