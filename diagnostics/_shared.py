"""What the inspection tools share: layer outputs of a saved stack,
straight-line fits, plots (tables: `harness.files.write_rows`)."""

import json
import pathlib
import zipfile

import keras
import numpy as np

import harness
import zoo
from harness import flags
from harness import rundir
from recipes import models
from recipes import pipeline
from recipes.g2p import task as g2p_task
from zoo.walk import iter_layers


def find_stack(model):
    """The (first) `zoo.StackedRNN` inside `model`."""
    for layer in iter_layers(model):
        if isinstance(layer, zoo.StackedRNN):
            return layer
    raise harness.UsageError(
        f"model {model.name!r} has no zoo.StackedRNN layer to inspect"
    )


def all_layers(stack, input_width):
    """A copy of `stack` (same weights) that returns every layer's output
    sequence (`output="all"`), for per-layer activations, gradients and
    probes. `input_width` is the feature width the stack reads."""
    config = stack.get_config()
    config.update(output="all", return_sequences=True, return_state=False)
    clone = zoo.StackedRNN.from_config(config)
    clone.build((None, None, input_width))
    clone.set_weights(stack.get_weights())
    return clone


class Tagger:
    """A tagger saved by `recipes.tagging` (or, with
    `classifiers=True`, a classifier saved by `recipes.classification`),
    opened up: words -> ids -> embedding -> every layer's states."""

    mix_from = 1  # a probe's mix: the stack's layers, not the embedding

    def __init__(self, path, classifiers=False):
        model, labels = models.load_init_model(
            path, flag="--model", kind=None if classifiers else "tagger"
        )
        self.kind = getattr(model, "preset_kind", None)  # its task class's
        if self.kind is None:
            raise harness.UsageError(
                f"--model {path}: neither a tagger nor a classifier saved "
                "by the recipes"
            )
        self.model = model
        self.labels = labels
        self.path = str(path)
        self.words = model.vocabulary
        encoder = model.backbone
        self.embedding = next(
            layer
            for layer in encoder.layers
            if isinstance(layer, (keras.layers.Embedding, zoo.EmbeddingDropout))
        )
        # With character features the word stack reads the embedding and
        # the CharacterEncoder's vectors side by side (its own stack, over
        # characters, is not the one inspected).
        self.encoder_characters = next(
            (x for x in encoder.layers if isinstance(x, zoo.CharacterEncoder)),
            None,
        )
        self.characters = model.characters if self.encoder_characters else None
        self.stack = next(
            (x for x in encoder.layers if isinstance(x, zoo.StackedRNN)), None
        ) or find_stack(encoder)
        self.all = all_layers(self.stack, self.embedding_width)

    @property
    def embedding_width(self):
        """The width of what the stack reads (layer 0 of `states`)."""
        layer = self.embedding
        inner = getattr(layer, "layer", layer)  # inside EmbeddingDropout
        extra = self.encoder_characters.output_dim if self.characters else 0
        return inner.output_dim + extra

    @property
    def num_layers(self):
        return len(self.stack.layer_specs)

    def states(self, sentences, batch_size=64):
        """Per layer (0: the embedding, with the character vectors when
        the tagger has them; 1..L: the stack's layers), one
        array of shape `(tokens, width)` with the states of every real
        token of `sentences` (lists of words), in order."""
        per_layer = None
        for start in range(0, len(sentences), batch_size):
            batch = sentences[start : start + batch_size]
            ids = self.words.encode(batch)
            embedded = self.embedding(ids, training=False)
            if self.characters is not None:
                chars = self.characters.encode(batch, width=ids.shape[1])
                spelled = self.encoder_characters(chars, training=False)
                embedded = keras.ops.concatenate([embedded, spelled], axis=-1)
            mask = keras.ops.not_equal(ids, 0)
            outputs = self.all(embedded, mask=mask, training=False)
            per_layer = _gather(per_layer, [embedded, *outputs], batch)
        return [np.concatenate(parts) for parts in per_layer]


def _gather(per_layer, layers, rows):
    """Appends each row's real steps (`len(rows[i])` of them) of every
    layer's `(batch, steps, width)` output to `per_layer` (None: a new
    list per layer); returns it."""
    arrays = [keras.ops.convert_to_numpy(x) for x in layers]
    if per_layer is None:
        per_layer = [[] for _ in arrays]
    for i, row in enumerate(rows):
        for parts, array in zip(per_layer, arrays):
            parts.append(array[i, : len(row)])
    return per_layer


def _saved_config(path):
    """The model config of a run folder's `model.keras` (or a `.keras`
    file), read from the archive without building the model; None if
    there is none."""
    path = pathlib.Path(path)
    archive = path / "model.keras" if path.is_dir() else path
    try:
        with zipfile.ZipFile(archive) as handle:
            return json.loads(handle.read("config.json"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None


def _preset_kind(path):
    """A preset's kind (a shipped name or a preset folder), or None."""
    try:
        return zoo.presets.metadata(path).get("kind")
    except zoo.presets.PresetError:
        return None


def _saved_class(path):
    """The class name of a run's saved model (its folder or `model.keras`,
    read from the archive without building the model), or None."""
    config = _saved_config(path)
    return config.get("class_name") if isinstance(config, dict) else None


def is_language_model(path):
    """Whether `path` names a biLM: a preset of kind `language_model` (a
    shipped name or a folder), or a `recipes.language_model` run (its
    folder or `model.keras`: a `zoo.tasks.BiLM`)."""
    kind = _preset_kind(path)
    if kind is not None:
        return kind == "language_model"
    return _saved_class(path) == "BiLM"


class BiLM:
    """A biLM (`--model` a shipped preset's name, a preset folder, or a
    `recipes.language_model` run: a `zoo.tasks.BiLM`) as the probes read
    it: every layer of its encoder (0: the character layer; 1..L: each
    LSTM layer, forward and backward halves side by side), as ELMo mixes
    them (`zoo.tasks.BiLM.layers_of`)."""

    mix_from = 0  # ELMo's mix includes the character layer

    def __init__(self, path):
        self.model = models.load_task_model(path, "--model", zoo.tasks.BiLM)
        self.path = str(path)

    @property
    def num_layers(self):
        return self.model.encoder.num_layers

    def states(self, sentences, batch_size=64):
        """Per layer (0..L), one `(tokens, 2 * units)` array with the
        states of every token of `sentences` (lists of words), in order."""
        per_word = []
        for start in range(0, len(sentences), batch_size):
            per_word += self.model.layers_of(sentences[start:][:batch_size])
        words = np.concatenate(per_word)  # (tokens, layers, 2 * units)
        return [words[:, layer] for layer in range(words.shape[1])]


def is_g2p_run(path):
    """Whether `path` names a G2P model: a `seq2seq` preset, or a run of
    `recipes.g2p` (its folder or `model.keras`: a
    `zoo.tasks.Transcriber`)."""
    kind = _preset_kind(path)
    if kind is not None:
        return kind == "seq2seq"
    return _saved_class(path) == "Transcriber"


class Speller:
    """A G2P model (`recipes.g2p.load`: a run or a preset, a
    `zoo.tasks.Transcriber`), opened up: a word's letters -> ids -> the
    source embedding -> every encoder layer's states."""

    mix_from = 1  # a probe's mix: the encoder's layers

    def __init__(self, path):
        model = g2p_task.TASK.load(path)
        self.model = model
        self.path = str(path)
        seq2seq = model.backbone
        self.embedding = seq2seq.get_layer(f"{seq2seq.name}_source_embedding")
        self.stack = seq2seq.get_layer(f"{seq2seq.name}_encoder")
        self.all = all_layers(self.stack, self.embedding.output_dim)

    @property
    def num_layers(self):
        return len(self.stack.layer_specs)

    def states(self, words, batch_size=256):
        """Per layer (0: the letter embedding; 1..L: the encoder's
        layers), one `(letters, width)` array with the states of every
        letter of `words` (each a string or a list of letters), in order."""
        per_layer = None
        for start in range(0, len(words), batch_size):
            batch = [
                self.model.preprocessor.source_ids(w)
                for w in words[start:][:batch_size]
            ]
            ids = pipeline.pad(batch)
            embedded = self.embedding(ids, training=False)
            outputs = self.all(embedded, mask=ids != 0, training=False)
            per_layer = _gather(per_layer, [embedded, *outputs], batch)
        return [np.concatenate(parts) for parts in per_layer]


def tagger_parser(tool, doc, classifiers=False):
    """The argument parser of a tool that reads a saved tagger (or, with
    `classifiers`, a tagger or classifier) as `--model`."""
    parser = flags.ArgumentParser(
        prog=f"python -m diagnostics {tool}",
        description=flags.describe(doc),
    )
    parser.add_argument(
        "--model",
        default="runs/tagging/model.keras",
        help="a model.keras saved by recipes.tagging"
        + (" or recipes.classification" if classifiers else "")
        + " (default: %(default)s)",
    )
    return parser


def line_fit(x, y):
    """Least-squares `y = slope * x + intercept`; `(slope, intercept, r2)`."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    total = ((y - y.mean()) ** 2).sum()
    r2 = 1.0 - (residual**2).sum() / total if total > 0 else 1.0
    return float(slope), float(intercept), float(r2)


def lock_output(output):
    """Locks a tool's `--output` for this job (`harness.rundir.FolderLock`,
    created if need be): two jobs never write into one folder. Call
    `release()` on what it returns when done."""
    return rundir.FolderLock(output).acquire()
