"""The one converter: a preset of the first release's task layout loaded
into this release's.

Presets of format 2 (what 0.1.0 wrote) saved each task model as one
graph: a tagger or a classifier was a functional model whose first and
last layers carried its vocabularies and label names (`vocabulary`,
`characters`, `token_features`, `labels`, found by name); a transcriber
was a `zoo.Seq2Seq` subclass with its symbols in its config. Format 3
saves a task as its parts: a backbone, a preprocessor and the task's
head (`zoo.tasks.Task`). `load` reads a format-2 folder (checksums
already verified by `zoo.presets.verify`) and returns the format-3 task
with the same weights and outputs; `zoo.tasks.Task.load_preset_folder`
calls it, so `from_preset` loads both formats, and `save_to_preset`
writes format 3. `load_model` does the same for a `.keras` file that
0.1.0 saved (a run folder's `model.keras`). Nothing older is read.
"""

import json
import pathlib
import tempfile
import zipfile

import keras

from zoo import presets
from zoo.seq2seq import Seq2Seq
from zoo.tasks import conventions as conventions_lib
from zoo.tasks import preprocessors
from zoo.walk import optional_layer

FORMAT_2 = 2
# The head layers a format-2 tagger or classifier may have, by name: their
# weights are copied into the format-3 model's layers of the same names.
_HEAD_LAYERS = (
    "pooling",
    "emissions",
    "crf",
    "tags",
    "classes",
    "deep_logits",
    "wide_logits",
    "softmax",
)
# A format-2 transcriber's decoding settings, kept as they are.
_DECODING = (
    "beam_width",
    "length_penalty",
    "max_source_length",
    "max_target_length",
)


def load(cls, folder, found, preset):
    """The `cls` task of a format-2 preset folder (see the module)."""
    config = presets.read_json(folder, presets.CONFIG_FILE, preset)
    weights = pathlib.Path(folder) / presets.WEIGHTS_FILE
    try:
        return _converted(cls, config, weights)
    except presets.PresetError:
        raise
    except Exception as error:  # noqa: BLE001 - any conversion failure
        first = str(error).strip().splitlines()[:1]
        raise presets.PresetError(
            f"preset {preset}: a format-2 {cls.__name__} that does not "
            f"convert ({first[0] if first else type(error).__name__})"
        ) from None


def is_first_layout(config):
    """Whether a model's serialized config (`config.json`'s) is a task
    model as 0.1.0 saved it: a zoo task class with a functional graph's
    config (a tagger, a classifier, a biLM) or with its symbols in its
    own (a transcriber, a translator)."""
    if not isinstance(config, dict):
        return False
    name = config.get("registered_name") or ""
    inner = config.get("config") or {}
    if not name.startswith("zoo>") or not isinstance(inner, dict):
        return False
    return "input_layers" in inner or (
        "backbone" not in inner
        and ("source_symbols" in inner or "source_subwords" in inner)
    )


def load_model(path):
    """The task model of a `.keras` file that 0.1.0 saved (a run folder's
    `model.keras`), in this release's layout; a `ValueError` naming the
    file where it is none."""
    path = pathlib.Path(path)
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
        if not is_first_layout(config):
            raise ValueError(
                f"`path` {path}: not a task model saved by 0.1.0; load it "
                "with keras.saving.load_model"
            )
        cls = keras.saving.get_registered_object(config["registered_name"])
        with tempfile.TemporaryDirectory() as work:
            weights = pathlib.Path(work) / presets.WEIGHTS_FILE
            weights.write_bytes(archive.read(presets.WEIGHTS_FILE))
            return _converted(cls, config, weights)


def _converted(cls, config, weights):
    """The `cls` task of a format-2 `config` and its weights file."""
    if cls.preset_kind == "seq2seq":
        return _transcriber(cls, config, weights)
    old = keras.Model.from_config(config["config"])
    old.load_weights(weights)
    model = _FUNCTIONAL[cls.preset_kind](cls, old)
    for layer in model.layers:
        if layer.name in _HEAD_LAYERS and layer.weights:
            layer.set_weights(old.get_layer(layer.name).get_weights())
    return model


def _copy(layer):
    """A new layer of `layer`'s config (a vocabulary: data, no weights)."""
    if layer is None:
        return None
    return type(layer).from_config(layer.get_config())


def _backbone(old):
    """The format-2 model's backbone: its one nested model."""
    nested = [x for x in old.layers if isinstance(x, keras.Model)]
    if len(nested) != 1:
        raise ValueError(f"{len(nested)} nested models, not one backbone")
    return nested[0]


def _dropout(old):
    layer = optional_layer(old, "head_dropout")
    return 0.0 if layer is None else float(layer.rate)


def _tagger(cls, old):
    labels = list(old.get_layer("labels").labels)
    preprocessor = preprocessors.TaggerPreprocessor(
        _copy(old.get_layer("vocabulary")),
        labels,
        characters=_copy(optional_layer(old, "characters")),
        token_features=_copy(optional_layer(old, "token_features")),
        # Format 2 read text by a corpus's conventions whenever the labels
        # were that corpus's tag set (Brown's 12 universal tags).
        conventions=conventions_lib.for_labels(labels),
    )
    return cls(
        _backbone(old),
        preprocessor,
        head="crf" if optional_layer(old, "crf") is not None else "softmax",
        dropout=_dropout(old),
        name=old.name,
    )


def _classifier(cls, old):
    preprocessor = preprocessors.TextClassifierPreprocessor(
        _copy(old.get_layer("vocabulary")),
        list(old.get_layer("labels").labels),
        characters=_copy(optional_layer(old, "characters")),
    )
    pooling = optional_layer(old, "pooling")
    wide = [x for x in old.layers if type(x).__name__ == "TfIdf"]
    return cls(
        _backbone(old),
        preprocessor,
        pooling="last" if pooling is None else pooling.mode,
        attention_units=64 if pooling is None else pooling.attention_units,
        dropout=_dropout(old),
        wide=wide[0] if wide else None,
        name=old.name,
    )


def _bilm(cls, old):
    preprocessor = preprocessors.BiLMPreprocessor(
        _copy(old.get_layer("vocabulary")), _copy(old.get_layer("characters"))
    )
    softmax = old.get_layer("softmax")
    return cls(
        old.get_layer("bilm"),
        preprocessor,
        dropout=float(old.get_layer("top_dropout").rate),
        num_sampled=softmax.num_sampled,
        seed=softmax.seed,
        name=old.name,
    )


_FUNCTIONAL = {"tagger": _tagger, "classifier": _classifier}
_FUNCTIONAL["language_model"] = _bilm


def _transcriber(cls, config, weights):
    """A format-2 transcriber (or translator): a `zoo.Seq2Seq` subclass
    whose config held its symbols (or subword models) and decoding."""
    settings = dict(config["config"])
    decoding = {k: settings.pop(k) for k in _DECODING if k in settings}
    if "source_subwords" in settings:
        preprocessor = preprocessors.TranslatorPreprocessor(
            settings.pop("source_subwords"), settings.pop("target_subwords")
        )
    else:
        preprocessor = preprocessors.TranscriberPreprocessor(
            settings.pop("source_symbols"), settings.pop("target_symbols")
        )
    for key in ("trainable", "dtype"):
        settings.pop(key, None)
    backbone = Seq2Seq(
        preprocessor.source_vocabulary_size,
        preprocessor.target_vocabulary_size,
        **settings,
    )
    backbone.load_weights(weights)
    return cls(backbone, preprocessor, **decoding)
