"""The recipes' models: the backbone a config asks for, and the models
the recipes saved (loading them, their kind and their labels).

Recipes save `zoo.tasks` models, so `import zoo` alone loads them.
"""

import json
import pathlib
import zipfile

import keras

import harness
import zoo
from recipes import settings
from recipes.data import vectors

# The stack options that describe a token embedding, not float inputs.
_EMBEDDING = ("embedding_dim", "embedding_dropout")


def backbone(
    config,
    vocabulary_size=None,
    return_sequences=True,
    name="encoder",
    *,
    input_dim=None,
    **extra,
):
    """The recipe's stack over token ids below `vocabulary_size` (or, for
    `tuning.StackedRNNHyperModel` given arrays, over float features of
    width `input_dim`): `zoo.create_model(--model)` or
    `zoo.stacked_rnn(--cell, --num-layers, --units)`, with the explicit
    stack flags as overrides; `extra` are more builder arguments (the
    tagger's `char_*`)."""
    if input_dim is None:
        inputs = {"vocabulary_size": vocabulary_size}
        options = settings.stack_options(config)
    else:
        inputs = {"input_dim": input_dim}
        options = settings.stack_options(config, skip=_EMBEDDING)
    options = {**options, **inputs, **extra}
    try:
        if config.model:
            return zoo.create_model(
                config.model,
                return_sequences=return_sequences,
                name=name,
                **options,
            )
        cell = options.pop("cell")
        num_layers = options.pop("num_layers")
        units = options.pop("units")
        return zoo.stacked_rnn(
            cell,
            num_layers,
            units,
            return_sequences=return_sequences,
            name=name,
            **options,
        )
    except (ValueError, TypeError) as error:  # the zoo's own checks
        raise harness.UsageError(str(error).splitlines()[0]) from None


# The recipe that trains each kind of model.
SAVED_BY = {
    "tagger": "recipes.tagging",
    "classifier": "recipes.classification",
    "language_model": "recipes.language_model",
    "seq2seq": "recipes.g2p",
}


def model_kind(model):
    """What a recipe's model is: its `zoo.tasks` class's kind
    (`"tagger"`, `"classifier"`, `"language_model"` or `"seq2seq"`);
    None for any other model."""
    return getattr(model, "preset_kind", None)


def is_preset(path):
    """Whether `path` names a preset: a shipped name or a folder with a
    `metadata.json` (not a run folder, which has `model.keras`)."""
    path = pathlib.Path(path)
    if path.is_dir():
        return (path / zoo.presets.METADATA_FILE).is_file()
    return not path.exists() and str(path) in zoo.presets.names()


def load_saved_model(path, flag, kind=None):
    """A recipe's saved model: a `.keras` file or a run folder (its
    `model.keras`), loaded with `keras.saving.load_model(path,
    safe_mode=True, compile=False)`, or a preset (a shipped name or a
    preset folder, `zoo.presets.from_preset`); failures one line that
    names `flag`. `kind` (one of `zoo.presets.KINDS`): the model must be
    one (a preset of another kind is refused before it is read)."""
    path = pathlib.Path(path)
    try:
        path.exists()
    except OSError as error:  # a name too long for the system, say
        raise harness.UsageError(
            f"{flag} {harness.errors.shorten(str(path))}: no such file or "
            f"shipped preset ({error.strerror})"
        ) from None
    if is_preset(path):
        try:
            return zoo.presets.from_preset(path, kind=kind)
        except zoo.presets.PresetError as error:
            raise harness.UsageError(f"{flag}: {error}") from None
    model = _load_file(path, flag)
    found = model_kind(model)
    if kind is not None and found != kind:
        raise harness.UsageError(
            f"{flag} {path}: a {kind} is needed here, but this model is "
            + (f"a {found}" if found else "another kind of model")
        )
    return model


def _load_file(path, flag):
    if path.is_dir() and (path / "model.keras").is_file():
        path = path / "model.keras"
    if not path.is_file():
        shipped = ", ".join(zoo.presets.names())
        raise harness.UsageError(
            f"{flag} {path}: no such file"
            + (f" or shipped preset (shipped: {shipped})" if shipped else "")
        )
    if path.suffix == ".keras" and not zipfile.is_zipfile(path):
        # Keras says "File not found" for a file that is there but empty
        # or cut short (a .keras file is a zip archive).
        raise harness.UsageError(
            f"{flag} {path}: not a whole .keras file ({path.stat().st_size} "
            "bytes, not a zip archive): empty or cut short; save it again"
        )
    try:
        if path.suffix == ".keras" and _first_layout(path):
            return zoo.tasks.convert.load_model(path)  # a 0.1.0 run's
        return keras.saving.load_model(path, safe_mode=True, compile=False)
    except Exception as error:  # noqa: BLE001 - any load failure
        first = str(error).strip().splitlines()[:1]
        raise harness.UsageError(
            f"{flag} {path}: cannot load ({first[0] if first else error})"
        ) from None


def _first_layout(path):
    """Whether a `.keras` file holds a task model as 0.1.0 saved it
    (`zoo.tasks.convert`)."""
    try:
        with zipfile.ZipFile(path) as archive:
            config = json.loads(archive.read("config.json"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return False
    return zoo.tasks.convert.is_first_layout(config)


def load_task_model(path, flag, task_class):
    """A task model (`task_class`, a `zoo.tasks` class) from a run folder,
    its `model.keras` or a preset; one line naming `flag` when it is
    another kind or lacks what the task needs."""
    model = load_saved_model(path, flag, task_class.preset_kind)
    if not isinstance(model, task_class):
        raise harness.UsageError(
            f"{flag} {path}: not a {task_class.__name__} (it lacks the "
            "layers that read raw text)"
        )
    return model


def load_language_model(path, flag="--pretrained"):
    """A language model: a shipped preset's name (`zoo.presets.names()`),
    a preset folder, or a run folder of `recipes.language_model` (or its
    `model.keras`); errors one line naming `flag`, a tagger or a
    classifier said as such, a damaged preset by its checksum."""
    model = load_saved_model(path, flag)
    try:
        zoo.language_model.encoder_of(model)
    except ValueError:
        found = model_kind(model)
        what = f"a {found}" if found else "another kind of model"
        raise harness.UsageError(
            f"{flag} {path}: {what}, not a language model saved by "
            "recipes.language_model (no biLM encoder)"
        ) from None
    return model


def pretrained_bilm(config, init_model, what):
    """`(biLM, CharacterVocabulary)` for `--pretrained` (the vocabulary
    spells with the biLM's characters, for the task's own character
    encoder too), or `(None, None)`. A model trained on from
    `--init-from` keeps the biLM it was trained with: `--pretrained`
    beside it is refused, naming `what` the model is."""
    if not config.pretrained:
        return None, None
    if init_model is not None:
        raise harness.UsageError(
            f"--pretrained with --init-from: the saved {what} keeps the "
            "biLM it was trained with; drop --pretrained"
        )
    bilm = load_language_model(config.pretrained)
    spelling = bilm.characters
    characters = zoo.layers.CharacterVocabulary(
        spelling.characters, max_chars=spelling.max_chars, name="characters"
    )
    return bilm, characters


def refuse_word_vectors(config, what):
    """`--word-vectors` beside `--init-from` is refused: the saved model
    keeps the vectors (and the vocabulary) it was trained with."""
    if config.word_vectors:
        raise harness.UsageError(
            f"--word-vectors with --init-from: the saved {what} keeps the "
            "word vectors and vocabulary it was trained with; drop "
            "--word-vectors"
        )


def word_vectors(config, tokens):
    """For `--word-vectors`: `(tokens, matrix, rows)`, the vocabulary's
    tokens extended with up to `--vector-words` of the vectors' words
    that training never saw, the `(2 + len(tokens), dim)` rows of the
    backbone's frozen channel (`zoo.stacked_rnn(word_vectors=...)`), and
    how many ids have a trained embedding row (the specials and the
    training words: `zoo.stacked_rnn(embedding_rows=...)`, so the words
    only the vectors know read `[UNK]`'s trained row);
    `(tokens, None, None)` without the flag. Prints what the vectors
    cover."""
    if not config.word_vectors:
        return tokens, None, None
    found = vectors.load(config.word_vectors)
    extended = found.extend(tokens, config.vector_words)
    matrix, covered = found.matrix(extended)
    trained = sum(1 for row in matrix[2 : 2 + len(tokens)] if row.any())
    print(
        f"word vectors {vectors.describe(config.word_vectors)}: "
        f"{found.dim} dimensions; {trained:,} of the {len(tokens):,} "
        f"training words have one; {len(extended) - len(tokens):,} more "
        f"words from the vectors ({covered:,} rows in all)",
        flush=True,
    )
    return extended, matrix, 2 + len(tokens)


def contextual_embedding(config, bilm):
    """The `zoo.layers.ContextualEmbedding` of `bilm` as `--pretrained-mix`
    and `--pretrained-trainable` say, or None without a biLM."""
    if bilm is None:
        return None
    return zoo.language_model.contextual_embedding(
        bilm, frozen=not trains_bilm(config), mix=config.pretrained_mix
    )


def trains_bilm(config):
    """Whether the task trains the biLM's weights: `--pretrained-trainable`,
    or ULMFiT's `--fine-tune` (a recipe that has it)."""
    return config.pretrained_trainable or getattr(config, "fine_tune", False)


def describe_pretrained(config, model):
    """`--pretrained` and the weight the model gave each of the biLM's
    layers (characters first), for `metrics.json`; {} without one."""
    if not config.pretrained:
        return {}
    mixes = [
        layer
        for layer in zoo.walk.iter_layers(model)
        if isinstance(layer, zoo.layers.ContextualEmbedding)
    ]
    return {
        "pretrained": config.pretrained,
        "pretrained_mix": config.pretrained_mix,
        "pretrained_trainable": trains_bilm(config),
        "pretrained_layer_weights": (
            [round(float(w), 4) for w in mixes[0].layer_weights]
            if mixes
            else None
        ),
    }


def load_init_model(path, flag="--init-from", kind=None):
    """A model saved by a recipe, with its `LabelNames` layer's labels;
    errors name `flag`, where the path came from. `kind` (`"tagger"` or
    `"classifier"`): the model must be one (a classifier is no tagger to
    inspect or fine-tune, even where the label sets match)."""
    path = pathlib.Path(path)
    # A preset says its kind before it is read; a file is checked below.
    model = load_saved_model(path, flag, kind if is_preset(path) else None)
    labels = getattr(model, "labels", None)
    if labels is None:
        raise harness.UsageError(
            f"{flag} {path}: not a model saved by this recipe (a "
            "zoo.tasks.Tagger or TextClassifier, which name their labels)"
        )
    found = model_kind(model)
    if kind is not None and found != kind:
        raise harness.UsageError(
            f"{flag} {path}: a {kind} is needed here, but this model is "
            + (
                f"a {found} (saved by {SAVED_BY[found]})"
                if found
                else "neither a tagger nor a classifier"
            )
        )
    return model, list(labels)


def check_label_set(data_labels, model_labels, path):
    """Every label in the data must be one the saved model predicts."""
    missing = sorted(set(data_labels) - set(model_labels))
    if missing:
        known = [x for x in model_labels if x]
        raise harness.UsageError(
            f"label set mismatch: the data have {missing}, which the model "
            f"{path} does not predict (its labels: {known})"
        )


def resolve_labels(
    config,
    seen,
    held_out,
    description,
    what="labels",
    kind=None,
    keep_unseen=False,
):
    """`(saved model or None, labels)` for a run.

    With `--init-from`, the saved model and its labels, which must cover
    every label in the data. Otherwise no model and the training labels,
    sorted; a dev/test label never seen in training is an error, or with
    `keep_unseen` a label kept (said on one line) that the model never
    learns and so scores as an error wherever it occurs.
    """
    if config.init_from:
        model, labels = load_init_model(config.init_from, kind=kind)
        check_label_set(seen | held_out, labels, config.init_from)
        return model, labels
    if held_out - seen and keep_unseen:
        print(f"{what} only in dev/test, kept (never learned): "
              f"{sorted(held_out - seen)}")  # fmt: skip
        seen = seen | held_out
    if held_out - seen:
        raise harness.UsageError(
            f"{what} {sorted(held_out - seen)} occur in dev/test but not in "
            f"train ({description})"
        )
    return None, sorted(seen)
