"""Presets: trained models in a folder, loaded in one line, offline.

A preset is keras-hub's folder layout:

    config.json        the model's Keras config (its vocabularies and
                       label names are in it: `zoo.layers.TokenVocabulary`,
                       `LabelNames` and `CharacterVocabulary` carry them)
    model.weights.h5   the weights (float16 where `save_preset` was asked
                       to store them so; they load into float32 variables)
    assets/            files a model needs beside its config (a G2P
                       model's letter and phoneme vocabulary), if any
    metadata.json      what it is (`kind`), how it was trained (command,
                       data, code version), what it scored (metrics as
                       printed) and the SHA-256 of every file above

The presets that ship with the package live beside this file, one
folder each (`list()` names them). `from_preset` takes such a name, a
preset folder of your own, or a recipe's run folder (its `model.keras`),
checks the checksums before it reads a byte of the model, builds the
model with `safe_mode=True` and loads the weights, on any backend.

Example:
```python
import zoo

zoo.presets.list()  # the shipped names
model = zoo.presets.from_preset("en_bilm", kind="language_model")
embed = zoo.language_model.contextual_embedding(model)
```

Why hand-written: keras-hub's `from_preset` loads keras-hub's own
`Backbone`/`Task` classes (and pulls in keras-hub and its tokenizers);
the zoo's models are plain `keras.Model`s, so this follows its layout
and semantics (a name or a local folder, a `metadata.json`, weights
beside the config) without the dependency.
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

from zoo.seq2seq import Seq2Seq

PRESETS_DIR = pathlib.Path(__file__).resolve().parent
CONFIG_FILE = "config.json"
ASSETS_DIR = "assets"
WEIGHTS_FILE = "model.weights.h5"
METADATA_FILE = "metadata.json"
RUN_MODEL_FILE = "model.keras"  # a recipe's run folder
FORMAT_VERSION = 1
KINDS = ("language_model", "tagger", "classifier", "seq2seq")
WEIGHT_DTYPES = ("float32", "float16")


class PresetError(ValueError):
    """A preset that cannot be loaded: an unknown name, a missing or
    damaged file, a checksum that does not match, another kind of model
    than the one asked for. The message is one line that says which."""


def list():  # noqa: A001 - keras-hub's name for it
    """The names of the presets that ship with the package, sorted."""
    return sorted(
        p.name
        for p in PRESETS_DIR.iterdir()
        if p.is_dir() and (p / METADATA_FILE).is_file()
    )


def kind_of(model):
    """What a model is, from its layers: `"seq2seq"` (a `zoo.Seq2Seq`),
    `"tagger"` (a `crf` layer), `"language_model"` (a `bilm` layer),
    else `"tagger"` for one output per token or `"classifier"` for one per
    text; None for any other model."""
    if isinstance(model, Seq2Seq):
        return "seq2seq"
    names = {layer.name for layer in model.layers}
    if "crf" in names:
        return "tagger"
    if "bilm" in names:
        return "language_model"
    outputs = getattr(model, "outputs", None) or []
    rank = len(outputs[0].shape) if outputs else 0
    return {3: "tagger", 2: "classifier"}.get(rank)


def sha256(path):
    """The SHA-256 of a file, as hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def resolve(preset):
    """The folder of `preset`: a shipped preset's name or a folder (a
    preset's or a run's). Raises `PresetError` naming the known presets
    when it is neither."""
    if not isinstance(preset, (str, os.PathLike)) or not str(preset):
        raise PresetError(
            f"preset: expected a preset name or a folder; received "
            f"{preset!r}. Shipped presets: {', '.join(list()) or 'none'}"
        )
    shipped = PRESETS_DIR / str(preset)
    if "/" not in str(preset) and (shipped / METADATA_FILE).is_file():
        return shipped
    folder = pathlib.Path(preset)
    if folder.is_dir():
        if (folder / METADATA_FILE).is_file() or (
            folder / RUN_MODEL_FILE
        ).is_file():
            return folder
        raise PresetError(
            f"preset {preset}: a folder with neither {METADATA_FILE} (a "
            f"preset) nor {RUN_MODEL_FILE} (a recipe's run folder)"
        )
    if folder.is_file() and folder.suffix == ".keras":
        return folder
    raise PresetError(
        f"preset {preset!r}: no such preset or folder. Shipped presets: "
        f"{', '.join(list()) or 'none'}"
    )


def metadata(preset):
    """A preset's `metadata.json` (a run folder's `metrics.json`, under
    `"metrics"`), without loading the model."""
    folder = resolve(preset)
    if folder.is_file() or not (folder / METADATA_FILE).is_file():
        run = folder.parent if folder.is_file() else folder
        metrics = _read_json(run / "metrics.json", preset, missing_ok=True)
        return {"name": run.name, "kind": None, "metrics": metrics or {}}
    found = _read_json(folder / METADATA_FILE, preset)
    if not isinstance(found, dict) or "files" not in found:
        raise PresetError(
            f"preset {preset}: {METADATA_FILE} is not a preset's metadata "
            "(no 'files' checksums)"
        )
    return found


def verify(preset):
    """Checks every file's SHA-256 against `metadata.json`; returns the
    metadata. Raises `PresetError` for a missing or changed file."""
    found = metadata(preset)
    if found.get("kind") is None and "files" not in found:
        return found  # a run folder: nothing recorded to check against
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


def from_preset(preset, kind=None, compile=False):
    """Loads a preset (a shipped name or a folder) or a recipe's run
    folder as a `keras.Model`, offline and with `safe_mode=True`.

    Args:
        preset: a name from `list()`, a preset folder (`save_preset`), or
            a recipe's run folder or `model.keras`.
        kind: when given, the kind of model expected (one of `KINDS`); a
            preset of another kind is refused before it is loaded.
        compile: passed to `keras.saving.load_model` for a `.keras` file
            (a preset holds no optimizer: it is never compiled).

    Raises:
        PresetError: an unknown name (the shipped ones are listed), a
            missing, damaged or changed file, another kind of model.
    """
    if kind is not None and kind not in KINDS:
        raise PresetError(
            f"kind: expected one of {', '.join(KINDS)}; received {kind!r}"
        )
    found = verify(preset)
    folder = resolve(preset)
    recorded = found.get("kind")
    if kind is not None and recorded is not None and recorded != kind:
        raise PresetError(f"preset {preset}: a {recorded} preset, not a {kind}")
    if recorded is None:  # a run folder
        path = folder if folder.is_file() else folder / RUN_MODEL_FILE
        try:
            model = keras.saving.load_model(
                path, safe_mode=True, compile=compile
            )
        except Exception as error:  # noqa: BLE001 - any load failure
            raise PresetError(
                f"preset {preset}: cannot load {path.name} ({_first(error)})"
            ) from None
    else:
        model = _build(folder, preset)
    found_kind = kind_of(model)
    if kind is not None and found_kind != kind:
        raise PresetError(
            f"preset {preset}: a {found_kind or 'model of another kind'}, "
            f"not a {kind}"
        )
    return model


def _build(folder, preset):
    config = _read_json(folder / CONFIG_FILE, preset)
    try:
        model = keras.saving.deserialize_keras_object(config, safe_mode=True)
    except Exception as error:  # noqa: BLE001 - any config failure
        raise PresetError(
            f"preset {preset}: {CONFIG_FILE} does not build a model "
            f"({_first(error)})"
        ) from None
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
    """Writes `model` as a preset folder and returns its metadata.

    Args:
        model: a built `keras.Model` whose layers are all registered (a
            recipe's model is).
        folder: where to write it; written whole or not at all (a
            temporary folder beside it, renamed at the end).
        metadata: what to record besides what is found here (the training
            command, the data, the metrics as printed, the code version).
        weights_dtype: `"float16"` stores every float32 weight in float16
            (half the size; measure what it costs before shipping it).
        overwrite: replace an existing `folder`.
        assets: `{name: path}` of files to copy into `assets/` (checksummed
            like the rest; `asset(preset, name)` finds them).
    """
    if weights_dtype not in WEIGHT_DTYPES:
        raise ValueError(
            f"weights_dtype: expected one of {', '.join(WEIGHT_DTYPES)}; "
            f"received {weights_dtype!r}"
        )
    folder = pathlib.Path(folder)
    if folder.exists() and not overwrite:
        raise FileExistsError(
            f"folder {folder} exists; pass overwrite=True to replace it"
        )
    kind = kind_of(model)
    if kind is None:
        raise ValueError(
            "model: not a language model, tagger, classifier or seq2seq "
            "model (`kind_of` found none), so a preset could not say what "
            "it is"
        )
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
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(work, folder)
        os.chmod(folder, 0o755)  # mkdtemp's folder is private
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return found


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


def _read_json(path, preset, missing_ok=False):
    if not path.is_file():
        if missing_ok:
            return None
        raise PresetError(f"preset {preset}: {path.name} is missing")
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (ValueError, UnicodeDecodeError) as error:
        raise PresetError(
            f"preset {preset}: {path.name} is not valid JSON ({error})"
        ) from None


def _first(error):
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


__all__ = [
    "KINDS",
    "PresetError",
    "asset",
    "from_preset",
    "kind_of",
    "list",
    "metadata",
    "round_to_float16",
    "save_preset",
    "sha256",
    "verify",
]
