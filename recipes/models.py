"""The recipes' models: the backbone a config asks for, and the models
the recipes saved (loading them, their kind and their labels).

Recipes save `zoo.layers.LabelNames`, so `import zoo` alone loads their
models; `LabelNames` below keeps the name the first release saved it
under (`recipes>LabelNames`), so those files load too.
"""

import pathlib
import zipfile

import keras

import harness
import zoo
from recipes import settings


@keras.saving.register_keras_serializable(package="recipes")
class LabelNames(zoo.layers.LabelNames):
    """`zoo.layers.LabelNames` under its first release's registered name."""


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


def optional_layer(model, name):
    """`model.get_layer(name)`, or None when the model has no such layer
    (a tagger's `characters` or `crf`)."""
    try:
        return model.get_layer(name)
    except ValueError:
        return None


MODEL_KINDS = ("tagger", "classifier")


def model_kind(model):
    """`"tagger"` (a label per token) or `"classifier"` (one per text) for
    a model saved by `recipes.tagging` or `recipes.classification`, from
    the rank of its output (a CRF tagger has a `crf` layer); None for any
    other model."""
    names = {layer.name for layer in model.layers}
    if "crf" in names:
        return "tagger"
    rank = len(model.outputs[0].shape) if model.outputs else 0
    return {3: "tagger", 2: "classifier"}.get(rank)


def load_saved_model(path, flag):
    """`keras.saving.load_model(path, safe_mode=True, compile=False)`, its
    failures one line that names `flag`."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise harness.UsageError(f"{flag} {path}: no such file")
    if path.suffix == ".keras" and not zipfile.is_zipfile(path):
        # Keras says "File not found" for a file that is there but empty
        # or cut short (a .keras file is a zip archive).
        raise harness.UsageError(
            f"{flag} {path}: not a whole .keras file ({path.stat().st_size} "
            "bytes, not a zip archive): empty or cut short; save it again"
        )
    try:
        return keras.saving.load_model(path, safe_mode=True, compile=False)
    except Exception as error:  # noqa: BLE001 - any load failure
        first = str(error).strip().splitlines()[:1]
        raise harness.UsageError(
            f"{flag} {path}: cannot load ({first[0] if first else error})"
        ) from None


def load_language_model(path, flag="--pretrained"):
    """A language model saved by `recipes.language_model` (its run
    folder or its `model.keras`); errors one line naming `flag`, a
    tagger or a classifier said as such."""
    path = pathlib.Path(path)
    if path.is_dir():
        path = path / "model.keras"
    model = load_saved_model(path, flag)
    try:
        zoo.language_model.encoder_of(model)
    except ValueError:
        found = model_kind(model)
        what = f"a {found}" if found else "another kind of model"
        raise harness.UsageError(
            f"{flag} {path}: {what}, not a language model saved by "
            "recipes.language_model (it has no 'bilm' layer)"
        ) from None
    return model


def load_init_model(path, flag="--init-from", kind=None):
    """A model saved by a recipe, with its `LabelNames` layer's labels;
    errors name `flag`, where the path came from. `kind` (`"tagger"` or
    `"classifier"`): the model must be one (a classifier is no tagger to
    inspect or fine-tune, even where the label sets match)."""
    path = pathlib.Path(path)
    model = load_saved_model(path, flag)
    try:
        labels = model.get_layer("labels").labels
    except ValueError:
        raise harness.UsageError(
            f"{flag} {path}: not a model saved by this recipe (it has "
            "no 'labels' layer)"
        ) from None
    if "string" in str(model.inputs[0].dtype):
        raise harness.UsageError(
            f"{flag} {path}: saved by the first release, whose models "
            "read raw text (TextVectorization, TensorFlow only); it still "
            "loads with keras.saving.load_model on TensorFlow, but the "
            "recipes now train models that read token ids: retrain it"
        )
    found = model_kind(model)
    if kind is not None and found != kind:
        saved_by = {
            "tagger": "recipes.tagging",
            "classifier": "recipes.classification",
        }
        raise harness.UsageError(
            f"{flag} {path}: a {kind} is needed here, but this model is "
            + (
                f"a {found} (saved by {saved_by[found]})"
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
    config, seen, held_out, description, what="labels", kind=None
):
    """`(saved model or None, labels)` for a run.

    With `--init-from`, the saved model and its labels, which must cover
    every label in the data. Otherwise no model and the training labels,
    sorted; a dev/test label never seen in training is an error.
    """
    if config.init_from:
        model, labels = load_init_model(config.init_from, kind=kind)
        check_label_set(seen | held_out, labels, config.init_from)
        return model, labels
    if held_out - seen:
        raise harness.UsageError(
            f"{what} {sorted(held_out - seen)} occur in dev/test but not in "
            f"train ({description})"
        )
    return None, sorted(seen)
