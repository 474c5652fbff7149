"""Presets: trained task models in a folder, loaded in one line, offline.

A preset is keras-hub's folder layout:

    config.json        the task model's Keras config (its vocabularies
                       and label names are in it: `zoo.layers.
                       TokenVocabulary`, `LabelNames`, `CharacterVocabulary`
                       and a `zoo.tasks.Transcriber`'s symbols carry them)
    model.weights.h5   the weights (float16 where `save_preset` was asked
                       to store them so; they load into float32 variables)
    assets/            files a model needs beside its config, if any
    metadata.json      what it is (`class`, the registered name of its
                       `zoo.tasks` class, and `kind`), how it was trained
                       (command, data, code version), what it scored
                       (metrics as printed), what it computes on a few
                       fixed inputs, and the SHA-256 of every file above

This module is the registry: what a preset is is written into its
`metadata.json` when it is saved (`save_preset`, or a task model's
`save_to_preset`) and read back when it is loaded; nothing is guessed
from the model's layers. `from_preset` takes a shipped name (`list()`)
or a preset folder of your own, checks the checksums before it reads a
byte of the model, builds the recorded class with `safe_mode=True` and
loads the weights, on any backend. A recipe's run folder is no preset:
`python -m recipes.presets export RUN NAME` makes one of it.

Presets saved before the registry recorded a class (the first release:
`kind` only, a plain functional config or a `zoo.Seq2Seq` with its
vocabulary in `assets/vocab.json`) load into the task class of their
kind (`LEGACY_KINDS`).

Example:
```python
import zoo

zoo.presets.list()  # the shipped names
tagger = zoo.tasks.Tagger.from_preset("pos_en_universal")
tagger.tag(["The cat sat on the mat ."])
bilm = zoo.presets.from_preset("en_bilm")  # the recorded class: a BiLM
```

Why hand-written: keras-hub's `from_preset` loads keras-hub's own
`Backbone`/`Task` classes (and pulls in keras-hub and its tokenizers);
this follows its layout and semantics (a name or a local folder, a
`metadata.json`, weights beside the config) for the zoo's own task
classes, without the dependency.
"""

import datetime
import hashlib
import json
import os
import pathlib
import shutil
import tempfile

import h5py
import keras
import numpy as np

PRESETS_DIR = pathlib.Path(__file__).resolve().parent
CONFIG_FILE = "config.json"
ASSETS_DIR = "assets"
WEIGHTS_FILE = "model.weights.h5"
METADATA_FILE = "metadata.json"
# 2: `class` recorded (the task model's registered name); 1: `kind` only.
FORMAT_VERSION = 2
KINDS = ("language_model", "tagger", "classifier", "seq2seq")
# The task class a preset of the first format loads into, by its kind.
LEGACY_KINDS = {
    "tagger": "zoo>Tagger",
    "classifier": "zoo>TextClassifier",
    "seq2seq": "zoo>Transcriber",
    "language_model": "zoo>BiLM",
}
WEIGHT_DTYPES = ("float32", "float16")


class PresetError(ValueError):
    """A preset that cannot be loaded: an unknown name, a missing or
    damaged file, a checksum that does not match, another class of model
    than the one asked for. The message is one line that says which."""


def list():  # noqa: A001 - keras-hub's name for it
    """The names of the presets that ship with the package, sorted."""
    return sorted(
        p.name
        for p in PRESETS_DIR.iterdir()
        if p.is_dir() and (p / METADATA_FILE).is_file()
    )


def sha256(path):
    """The SHA-256 of a file, as hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _shipped():
    return ", ".join(list()) or "none"


def resolve(preset):
    """The folder of `preset`: a shipped preset's name or a preset folder
    (one with a `metadata.json`). Raises `PresetError` naming the shipped
    presets when it is neither."""
    if isinstance(preset, bytes) or not isinstance(preset, (str, os.PathLike)):
        raise PresetError(
            f"preset: expected a preset name or a folder; received "
            f"{preset!r} of type {type(preset).__name__}. Shipped presets: "
            f"{_shipped()}"
        )
    if not str(preset).strip():
        raise PresetError(
            f"preset: expected a preset name or a folder; received "
            f"{str(preset)!r}. Shipped presets: {_shipped()}"
        )
    text = str(preset)
    shipped = PRESETS_DIR / text
    if os.sep not in text and "/" not in text:
        if (shipped / METADATA_FILE).is_file():
            return shipped
    folder = pathlib.Path(preset)
    if folder.is_dir():
        if (folder / METADATA_FILE).is_file():
            return folder
        if (folder / "model.keras").is_file():
            raise PresetError(
                f"preset {preset}: a recipe's run folder, not a preset "
                "(load it with the recipe's `load`, or make it a preset "
                "with `python -m recipes.presets export RUN NAME`)"
            )
        raise PresetError(
            f"preset {preset}: a folder without {METADATA_FILE}, so not a "
            "preset"
        )
    raise PresetError(
        f"preset {preset!r}: no such preset or folder. Shipped presets: "
        f"{_shipped()}"
    )


def metadata(preset):
    """A preset's `metadata.json`, without loading the model."""
    folder = resolve(preset)
    found = _read_json(folder / METADATA_FILE, preset)
    if not isinstance(found, dict) or not isinstance(found.get("files"), dict):
        raise PresetError(
            f"preset {preset}: {METADATA_FILE} is not a preset's metadata "
            "(no 'files' checksums)"
        )
    return found


def verify(preset):
    """Checks every file's SHA-256 against `metadata.json`; returns the
    metadata. Raises `PresetError` for a missing or changed file."""
    found = metadata(preset)
    folder = resolve(preset)
    for name, expected in sorted(found["files"].items()):
        path = folder / name
        if not path.is_file():
            raise PresetError(f"preset {preset}: {name} is missing")
        got = sha256(path)
        if got != expected:
            raise PresetError(
                f"preset {preset}: {name} fails its checksum (SHA-256 "
                f"{got[:12]}..., {METADATA_FILE} says {expected[:12]}...): "
                "the file is damaged, cut short or was changed"
            )
    return found


def class_name(found):
    """The registered name of a preset's task class, from its metadata:
    `class`, or the task class of its `kind` for a first-format preset."""
    name = found.get("class") or LEGACY_KINDS.get(found.get("kind"))
    if not isinstance(name, str):
        raise PresetError(
            f"preset {found.get('name', '?')}: {METADATA_FILE} names no "
            f"class (and its kind {found.get('kind')!r} is none of "
            f"{', '.join(KINDS)})"
        )
    return name


def task_class(found, preset="?"):
    """The `zoo.tasks` class a preset's metadata records."""
    name = class_name(found)
    cls = keras.saving.get_registered_object(name)
    if not isinstance(cls, type) or not hasattr(cls, "load_preset_folder"):
        raise PresetError(
            f"preset {preset}: its class {name!r} is not a registered zoo "
            "task model (zoo.tasks); import the package that defines it"
        )
    return cls


def from_preset(preset, kind=None, cls=None):
    """Loads a preset (a shipped name or a preset folder) as the task
    model its metadata records (a `zoo.tasks` class), offline and with
    `safe_mode=True`.

    Args:
        preset: a name from `list()` or a preset folder (`save_preset`).
        kind: when given, the kind expected (one of `KINDS`); a preset of
            another kind is refused before its model is read.
        cls: when given, the class expected (a preset of this class or a
            subclass); `Tagger.from_preset` passes itself.

    Raises:
        PresetError: an unknown name (the shipped ones are listed), a
            missing, damaged or changed file, another kind or class.
    """
    if kind is not None and kind not in KINDS:
        raise PresetError(
            f"kind: expected one of {', '.join(KINDS)}; received {kind!r}"
        )
    found = verify(preset)
    recorded = task_class(found, preset)
    found_kind = getattr(recorded, "preset_kind", None)
    if kind is not None and found_kind != kind:
        raise PresetError(
            f"preset {preset}: a {found_kind} preset, not a {kind}"
        )
    if cls is not None and not issubclass(recorded, cls):
        raise PresetError(
            f"preset {preset}: a {recorded.__name__} preset ({found_kind}), "
            f"not a {cls.__name__}"
        )
    return recorded.load_preset_folder(resolve(preset), found, preset)


def build_from_config(folder, preset):
    """The model `config.json` of a preset folder describes, weights not
    yet loaded."""
    config = _read_json(folder / CONFIG_FILE, preset)
    try:
        return keras.saving.deserialize_keras_object(config, safe_mode=True)
    except Exception as error:  # noqa: BLE001 - any config failure
        raise PresetError(
            f"preset {preset}: {CONFIG_FILE} does not build a model "
            f"({_first(error)})"
        ) from None


def load_weights(model, folder, preset):
    """Loads a preset folder's weights into `model` (one line on failure)."""
    try:
        model.load_weights(folder / WEIGHTS_FILE)
    except Exception as error:  # noqa: BLE001 - any weights failure
        raise PresetError(
            f"preset {preset}: {WEIGHTS_FILE} does not load into the model "
            f"({_first(error)})"
        ) from None
    return model


def save_preset(
    model,
    folder,
    metadata=None,
    weights_dtype="float32",
    overwrite=False,
    assets=None,
):
    """Writes `model`, a `zoo.tasks` task model, as a preset folder and
    returns its metadata (`model.save_to_preset(folder)` calls this).

    Args:
        model: a built `zoo.tasks` model (`Tagger`, `TextClassifier`,
            `Transcriber`, `BiLM`); its registered class is recorded.
        folder: where to write it; written whole or not at all (a
            temporary folder beside it, renamed at the end). With
            `overwrite`, an existing folder is replaced only once the new
            one is complete, and only if it is a preset (it holds a
            `metadata.json`) or empty: nothing else is ever deleted.
        metadata: what to record besides what is found here (the training
            command, the data, the metrics as printed, the code version).
        weights_dtype: `"float16"` stores every float32 weight in float16
            (half the size; measure what it costs before shipping it).
        overwrite: replace an existing preset `folder`.
        assets: `{name: path}` of files to copy into `assets/` (checksummed
            like the rest; `asset(preset, name)` finds them).
    """
    if weights_dtype not in WEIGHT_DTYPES:
        raise ValueError(
            f"weights_dtype: expected one of {', '.join(WEIGHT_DTYPES)}; "
            f"received {weights_dtype!r}"
        )
    kind = getattr(model, "preset_kind", None)
    if kind not in KINDS or not hasattr(model, "load_preset_folder"):
        raise ValueError(
            "model: expected a zoo task model (zoo.tasks.Tagger, "
            "TextClassifier, Transcriber or BiLM), so that the preset can "
            f"record its class; received {type(model).__name__} (wrap a "
            "functional model with e.g. zoo.tasks.Tagger.from_network)"
        )
    folder = pathlib.Path(folder)
    _check_target(folder, overwrite)
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(
        tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent)
    )
    try:
        config = keras.saving.serialize_keras_object(model)
        config.pop("compile_config", None)  # a preset is never compiled
        with open(work / CONFIG_FILE, "w") as handle:
            json.dump(config, handle, indent=1, sort_keys=True)
            handle.write("\n")
        # The weights of a model built afresh from that config: what
        # `from_preset` will load them into, and no optimizer state (a
        # compiled model's `save_weights` writes its optimizer's too).
        fresh = keras.saving.deserialize_keras_object(config, safe_mode=True)
        fresh.set_weights(model.get_weights())
        fresh.save_weights(work / WEIGHTS_FILE)
        if weights_dtype == "float16":
            _to_float16(work / WEIGHTS_FILE)
        names = [CONFIG_FILE, WEIGHTS_FILE]
        for name, source in sorted(dict(assets or {}).items()):
            if "/" in name or not name:
                raise ValueError(f"assets: {name!r} is not a file name")
            (work / ASSETS_DIR).mkdir(exist_ok=True)
            shutil.copyfile(source, work / ASSETS_DIR / name)
            names.append(f"{ASSETS_DIR}/{name}")
        found = {
            "format_version": FORMAT_VERSION,
            "name": folder.name,
            "class": keras.saving.get_registered_name(type(model)),
            "kind": kind,
            "parameter_count": int(model.count_params()),
            "weights_dtype": weights_dtype,
            "keras_version": keras.__version__,
            "saved_on_backend": keras.backend.backend(),
            "date_saved": datetime.datetime.now(datetime.timezone.utc)
            .replace(microsecond=0)
            .isoformat(),
            **dict(metadata or {}),
            "files": {name: sha256(work / name) for name in names},
        }
        with open(work / METADATA_FILE, "w") as handle:
            json.dump(found, handle, indent=1)
            handle.write("\n")
        os.chmod(work, 0o755)  # mkdtemp's folder is private
        _replace(work, folder)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return found


def _check_target(folder, overwrite):
    """Refuses to write over anything but a preset (or an empty folder)."""
    if not folder.exists() and not folder.is_symlink():
        return
    if not overwrite:
        raise FileExistsError(
            f"folder {folder} exists; pass overwrite=True to replace it"
        )
    if folder.is_symlink() or not folder.is_dir():
        raise FileExistsError(
            f"folder {folder}: not a folder (a file or a link); nothing "
            "was replaced"
        )
    if any(folder.iterdir()) and not (folder / METADATA_FILE).is_file():
        raise FileExistsError(
            f"folder {folder} holds files but no {METADATA_FILE}: not a "
            "preset, so it is not replaced"
        )


def _replace(work, folder):
    """Puts the finished `work` folder in `folder`'s place; an old preset
    there is moved aside first and deleted only after the swap."""
    old = None
    if folder.exists():
        old = folder.with_name(f".{folder.name}.old.{os.getpid()}")
        os.replace(folder, old)
    try:
        os.replace(work, folder)
    except OSError:
        if old is not None:
            os.replace(old, folder)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def upgrade(preset, folder=None):
    """Rewrites a first-format preset (kind only) in the current format:
    the same weights in the same dtype, its task class's config and
    `class` recorded, the old metadata kept (its first `date_saved` as
    `first_saved`). `folder`: where to write it (default: in place, the
    new folder replacing the old one once complete). Returns the new
    metadata; a preset already in the current format is left as it is."""
    found = verify(preset)
    target = pathlib.Path(folder) if folder is not None else resolve(preset)
    if found.get("format_version") == FORMAT_VERSION and folder is None:
        return found
    model = from_preset(preset)
    kept = {
        key: value
        for key, value in found.items()
        if key
        not in (
            "files",
            "format_version",
            "class",
            "name",
            "date_saved",
            "keras_version",
            "saved_on_backend",
            "weights_dtype",
            "parameter_count",
        )
    }
    kept["first_saved"] = found.get("first_saved", found.get("date_saved"))
    kept["upgraded_from_format"] = found.get("format_version", 1)
    return save_preset(
        model,
        target,
        kept,
        weights_dtype=found.get("weights_dtype", "float32"),
        overwrite=True,
    )


def asset(preset, name):
    """The path of asset `name` of a preset (checksums verified first)."""
    verify(preset)
    path = resolve(preset) / ASSETS_DIR / name
    if not path.is_file():
        raise PresetError(f"preset {preset}: it has no asset {name!r}")
    return path


def round_to_float16(model):
    """Rounds every float32 weight of `model` to float16 and back, in
    place: the model then computes what a preset stored in float16 does
    (to measure the cost before shipping it)."""
    for variable in model.weights:
        if variable.dtype == "float32":
            value = keras.ops.convert_to_numpy(variable)
            variable.assign(value.astype(np.float16).astype(np.float32))


def _to_float16(path):
    """Rewrites a weights file with every float32 array in float16 (a new
    file: h5py does not give back a deleted dataset's space)."""

    def copy(source, target):
        target.attrs.update(source.attrs)
        for name, item in source.items():
            if isinstance(item, h5py.Group):
                copy(item, target.create_group(name))
                continue
            value = item[()]
            if item.dtype == np.float32:
                value = value.astype(np.float16)
            target.create_dataset(name, data=value)
            target[name].attrs.update(item.attrs)

    half = path.with_name(path.name + ".float16")
    with h5py.File(path, "r") as source, h5py.File(half, "w") as target:
        copy(source, target)
    os.replace(half, path)


def _read_json(path, preset):
    if not path.is_file():
        raise PresetError(f"preset {preset}: {path.name} is missing")
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (ValueError, UnicodeDecodeError) as error:
        raise PresetError(
            f"preset {preset}: {path.name} is not valid JSON ({error})"
        ) from None


def read_json(folder, name, preset):
    """A JSON file of a preset folder (one line if missing or damaged)."""
    return _read_json(pathlib.Path(folder) / name, preset)


def _first(error):
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


__all__ = [
    "KINDS",
    "LEGACY_KINDS",
    "PresetError",
    "asset",
    "from_preset",
    "list",
    "class_name",
    "build_from_config",
    "load_weights",
    "metadata",
    "task_class",
    "upgrade",
    "read_json",
    "resolve",
    "round_to_float16",
    "save_preset",
    "sha256",
    "verify",
]
