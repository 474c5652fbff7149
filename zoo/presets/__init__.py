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
from the model's layers. `from_preset` takes a shipped name (`names()`)
or a preset folder of your own, checks the checksums before it reads a
byte of the model, builds the recorded class with `safe_mode=True` and
loads the weights, on any backend. A recipe's run folder is no preset:
`python -m recipes.presets export RUN NAME` makes one of it.

A preset's `metadata.json` records its `format_version`
(`FORMAT_VERSION`); this code reads the formats in `FORMAT_VERSIONS`
and refuses any other in one line, before it reads a byte of the model.
The loading path dispatches on the recorded `class` (`task_class`): the
class reads its own folder (`load_preset_folder`).

What a preset must hold is declared by the code that reads it, not by
its metadata: each task class names the files it needs (`preset_files`,
by default `config.json` and `model.weights.h5`, and `preset_assets`,
the names under `assets/` it reads; `zoo.G2p` declares its dictionary
and tables the same way). `verify` refuses, in one line and before it
hashes a byte, a `metadata.json` whose `files` leaves out any of them
(an emptied or shortened list would switch its checksums off), names a
path outside the folder (absolute, `..`, or through a link that leads
out), or has a `format_version` this code does not know.

Example:
```python
import zoo

zoo.presets.names()  # the shipped names
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

import collections.abc
import datetime
import errno
import hashlib
import json
import os
import pathlib
import re
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
# The format `save_preset` writes (`class` recorded: the task model's
# registered name, beside its `kind`).
FORMAT_VERSION = 3
# Format 2 (0.1.0: a task saved as one graph) loads through
# `zoo.tasks.convert`.
FORMAT_VERSIONS = (2, FORMAT_VERSION)  # the formats this code reads
# What every preset holds, and what a task class needs unless it says
# otherwise (its `preset_files`; its `preset_assets` are under `assets/`).
REQUIRED_FILES = (CONFIG_FILE, WEIGHTS_FILE)
# The metadata `save_preset` records from the model itself: a caller's
# `metadata` may repeat them, not change them.
RECORDED = (
    "format_version",
    "class",
    "kind",
    "files",
    "parameter_count",
    "weights_dtype",
)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
KINDS = ("language_model", "tagger", "classifier", "seq2seq")
WEIGHT_DTYPES = ("float32", "float16")


class PresetError(ValueError):
    """A preset that cannot be loaded: an unknown name, a missing or
    damaged file, a checksum that does not match, another class of model
    than the one asked for. The message is one line that says which."""


def names():
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
    return ", ".join(names()) or "none"


def _shown(value, limit=80):
    """`value` as a message shows it: its repr, cut to `limit` characters
    (and its length told) when longer, so that the message stays one
    short line."""
    text = repr(str(value)) if isinstance(value, os.PathLike) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(str(value)):,} characters)"


def resolve(preset):
    """The folder of `preset`: a shipped preset's name or a preset folder
    (one with a `metadata.json`). Raises `PresetError` naming the shipped
    presets when it is neither (a name the system cannot even look up,
    too long or holding a NUL, included)."""
    if isinstance(preset, bytes) or not isinstance(preset, (str, os.PathLike)):
        raise PresetError(
            f"preset: expected a preset name or a folder; received "
            f"{_shown(preset)} of type {type(preset).__name__}. Shipped "
            f"presets: {_shipped()}"
        )
    if not str(preset).strip():
        raise PresetError(
            f"preset: expected a preset name or a folder; received "
            f"{str(preset)!r}. Shipped presets: {_shipped()}"
        )
    try:
        return _resolve(preset)
    except (OSError, ValueError) as error:  # too long, a NUL, no access
        if isinstance(error, PresetError):
            raise
        why = getattr(error, "strerror", None) or _first(error)
        raise PresetError(
            f"preset {_shown(preset)}: no such preset, and not a folder "
            f"that can be read ({why}). Shipped presets: {_shipped()}"
        ) from None


def _resolve(preset):
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
        f"preset {_shown(preset)}: no such preset or folder. Shipped "
        f"presets: {_shipped()}"
    )


def metadata(preset):
    """A preset's `metadata.json`, without loading the model, checked to
    be a preset's (`check_metadata`): a known `format_version`, a class
    name, and `files`, a SHA-256 for each path inside the folder."""
    folder = resolve(preset)
    found = _read_json(folder / METADATA_FILE, preset)
    check_metadata(found, preset)
    return found


def check_metadata(found, preset="?"):
    """Raises `PresetError` (one line naming the key, what it holds and
    what is allowed) unless `found` is a preset's metadata this code
    reads: `format_version` one of `FORMAT_VERSIONS`; `class` a string
    (`class_name`); `kind`, where recorded, one of `KINDS`; `files` an
    object of relative paths inside the folder, each with a SHA-256 (64
    hex digits)."""
    if not isinstance(found, dict) or not isinstance(found.get("files"), dict):
        raise PresetError(
            f"preset {preset}: {METADATA_FILE} is not a preset's metadata "
            "(no 'files' checksums)"
        )
    version = found.get("format_version")
    if type(version) is not int or version not in FORMAT_VERSIONS:
        raise PresetError(
            f"preset {preset}: {METADATA_FILE} format_version: expected one "
            f"of {', '.join(map(str, FORMAT_VERSIONS))} (the formats this "
            f"version of zoo reads); received {_shown(version)}"
        )
    class_name(found, preset)
    if "kind" in found:
        kind = found["kind"]
        if not isinstance(kind, str) or kind not in KINDS:
            raise PresetError(
                f"preset {preset}: {METADATA_FILE} kind: expected one of "
                f"{', '.join(KINDS)}; received {_shown(kind)}"
            )
    for name, digest in found["files"].items():
        _check_file_name(name, preset)
        if not isinstance(digest, str) or not _SHA256.match(digest):
            raise PresetError(
                f"preset {preset}: {METADATA_FILE} files[{_shown(name)}]: "
                "expected a SHA-256 (64 hex digits); received "
                f"{_shown(digest)}"
            )
    return found


def _check_file_name(name, preset):
    """Refuses a `files` entry that is not a relative path inside the
    preset folder (absolute, `..`, `.`, empty parts, a backslash, NUL)."""
    parts = name.split("/") if isinstance(name, str) else []
    if (
        not parts
        or any(part in ("", ".", "..") for part in parts)
        or "\\" in name
        or "\0" in name
        or os.path.isabs(name)
    ):
        raise PresetError(
            f"preset {preset}: {METADATA_FILE} files: {_shown(name)} is not "
            "a path inside the preset folder (expected a relative path "
            "such as 'config.json' or 'assets/NAME', without '..'); "
            "nothing outside a preset is read"
        )


def required_files(owner):
    """The files (paths in a preset folder) `owner` declares it reads: a
    task class's `preset_files` (`REQUIRED_FILES` unless it says
    otherwise) and its `preset_assets` under `assets/`."""
    files = getattr(owner, "preset_files", REQUIRED_FILES)
    assets = getattr(owner, "preset_assets", ())
    return (*files, *(f"{ASSETS_DIR}/{name}" for name in assets))


def _owner_name(owner):
    """`zoo>Tagger` for a registered class, `zoo.G2p` for another."""
    name = keras.saving.get_registered_name(owner)
    if ">" in name:
        return name
    return f"{owner.__module__.split('.')[0]}.{owner.__name__}"


def verify(preset, needs=None):
    """Checks every file's SHA-256 against `metadata.json`; returns the
    metadata. Raises `PresetError`, in one line, for metadata that is
    not a preset's (`check_metadata`), a file its class (and `needs`,
    another reader of the preset, such as `zoo.G2p`, which declares its
    assets the same way) needs that `files` does not list, a path that
    leads out of the folder (refused before it is read), and a missing
    or changed file."""
    found = metadata(preset)
    folder = resolve(preset)
    owners = [_recorded_class(found)]
    if needs is not None:
        owners.append(needs)
    for owner in owners:
        for name in required_files(owner):
            if name not in found["files"]:
                reader = (
                    f"a preset read by {_owner_name(owner)}"
                    if owner is not None
                    else "every preset"
                )
                raise PresetError(
                    f"preset {preset}: {METADATA_FILE} lists no checksum of "
                    f"{name}, which {reader} must hold "
                    f"({', '.join(required_files(owner))}): incomplete or "
                    "tampered with, so it is not loaded"
                )
    root = folder.resolve()
    for name in sorted(found["files"]):
        path = folder / name
        try:
            inside = path.resolve().is_relative_to(root)
        except (OSError, RuntimeError):  # a loop of links
            inside = False
        if not inside:
            raise PresetError(
                f"preset {preset}: {name} is a link that leads out of the "
                "preset folder; nothing outside a preset is read"
            )
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


def _recorded_class(found):
    """The registered task class `found` names, or `REQUIRED_FILES`'s
    plain reader when it is not registered here (`from_preset` then
    refuses it; `verify` checks what every preset holds)."""
    cls = keras.saving.get_registered_object(class_name(found))
    if isinstance(cls, type) and hasattr(cls, "load_preset_folder"):
        return cls
    return None


def class_name(found, preset=None):
    """The registered name of a preset's task class: its metadata's
    `class`, a non-empty string (else `PresetError`, naming `preset`, or
    the metadata's `name` when not given)."""
    name = found.get("class")
    if not isinstance(name, str) or not name.strip():
        preset = found.get("name", "?") if preset is None else preset
        raise PresetError(
            f"preset {preset}: {METADATA_FILE} class: expected a "
            "registered zoo task class name (such as 'zoo>Tagger'); "
            f"received {_shown(name)}"
        )
    return name


def task_class(found, preset="?"):
    """The `zoo.tasks` class a preset's metadata records."""
    name = class_name(found, preset)
    cls = keras.saving.get_registered_object(name)
    if not isinstance(cls, type) or not hasattr(cls, "load_preset_folder"):
        raise PresetError(
            f"preset {preset}: its class {_shown(name)} is not a registered "
            "zoo task model (zoo.tasks); import the package that defines it"
        )
    kind = found.get("kind")
    if kind is not None and kind != getattr(cls, "preset_kind", None):
        raise PresetError(
            f"preset {preset}: {METADATA_FILE} says kind {_shown(kind)}, but "
            f"its class {name} is a {getattr(cls, 'preset_kind', None)}"
        )
    return cls


def from_preset(preset, kind=None, cls=None):
    """Loads a preset (a shipped name or a preset folder) as the task
    model its metadata records (a `zoo.tasks` class), offline and with
    `safe_mode=True`.

    Args:
        preset: a name from `names()` or a preset folder (`save_preset`).
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
        folder: where to write it: a new folder, or an empty one; written
            whole or not at all (a temporary folder beside it, renamed at
            the end). With `overwrite`, an existing preset is replaced
            once the new one is complete, and only if the folder holds
            nothing but that preset (its `metadata.json` and the files
            it lists): a folder with any other file is refused, and
            nothing is ever deleted but a preset's own files.
        metadata: what to record besides what is found here (the training
            command, the data, the metrics as printed, the code version).
            What the model itself says (`RECORDED`: its class, kind,
            files, format, parameter count, weights dtype) cannot be set
            here: a different value is refused.
        weights_dtype: `"float16"` stores every float32 weight in float16
            (half the size; measure what it costs before shipping it).
        overwrite: replace an existing preset `folder`.
        assets: `{name: path}` of files to copy into `assets/` (checksummed
            like the rest; `asset(preset, name)` finds them); each name a
            plain file name, each path an existing file.

    Raises:
        ValueError: a bad argument (named, with what was received).
        FileExistsError: `folder` is in the way (it exists and is not a
            preset or an empty folder, or not without `overwrite`).
        OSError: `folder` cannot be written (one line naming it).
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
            f"record its class; received {type(model).__name__} (build one "
            "on the backbone, e.g. zoo.tasks.Tagger(backbone, preprocessor))"
        )
    if isinstance(folder, bytes) or not isinstance(folder, (str, os.PathLike)):
        raise ValueError(
            f"folder: expected a path (a string or a pathlib.Path); "
            f"received {_shown(folder)} of type {type(folder).__name__}"
        )
    if not str(folder).strip():
        raise ValueError(f"folder: expected a path; received {str(folder)!r}")
    folder = pathlib.Path(folder)
    sources = _checked_assets(assets)
    recorded = {
        "format_version": FORMAT_VERSION,
        "class": keras.saving.get_registered_name(type(model)),
        "kind": kind,
        "parameter_count": int(model.count_params()),
        "weights_dtype": weights_dtype,
    }
    extra = _checked_metadata(metadata, recorded)
    _check_parent(folder)
    check_target(folder, overwrite)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        work = pathlib.Path(
            tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent)
        )
    except OSError as error:
        raise _cannot_write(folder, error) from None
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
        for name, source in sources:
            (work / ASSETS_DIR).mkdir(exist_ok=True)
            shutil.copyfile(source, work / ASSETS_DIR / name)
            names.append(f"{ASSETS_DIR}/{name}")
        found = {
            "format_version": recorded["format_version"],
            "name": folder.name,
            "class": recorded["class"],
            "kind": kind,
            "parameter_count": recorded["parameter_count"],
            "weights_dtype": weights_dtype,
            "keras_version": keras.__version__,
            "saved_on_backend": keras.backend.backend(),
            "date_saved": datetime.datetime.now(datetime.timezone.utc)
            .replace(microsecond=0)
            .isoformat(),
            **extra,
            **recorded,
            "files": {name: sha256(work / name) for name in names},
        }
        with open(work / METADATA_FILE, "w") as handle:
            json.dump(found, handle, indent=1)
            handle.write("\n")
        os.chmod(work, 0o755)  # mkdtemp's folder is private
        _replace(work, folder, overwrite)
    except OSError as error:
        if isinstance(error, FileExistsError) and error.errno is None:
            raise  # `_replace`'s own one line
        # The temporary folder is ours, not the caller's: name theirs.
        raise _cannot_write(folder, error) from None
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return found


def _cannot_write(folder, error):
    """One line for a write the system refused, naming `folder` (never the
    temporary folder beside it); the error's kind and number kept (a
    full disk stays an `OSError` with `errno.ENOSPC`)."""
    why = error.strerror or _first(error)
    kind = type(OSError(error.errno, why)) if error.errno else OSError
    found = kind(f"folder {folder}: cannot write a preset there ({why})")
    found.errno = error.errno  # its message stays the one line above
    return found


def _checked_assets(assets):
    """`assets` as `[(name, path)]`, sorted, each name a plain file name
    and each path an existing file (checked before anything is written)."""
    if assets is None:
        return []
    if not isinstance(assets, collections.abc.Mapping):
        raise ValueError(
            "assets: expected a dict of {file name: path}; received "
            f"{type(assets).__name__}"
        )
    checked = []
    for name, source in assets.items():
        if (
            not isinstance(name, str)
            or name in ("", ".", "..")
            or any(c in name for c in "/\\\0")
            or name != name.strip()
        ):
            raise ValueError(
                f"assets: {_shown(name)} is not a file name (a plain name "
                "such as 'vocab.json': no '/', not '.' or '..')"
            )
        if isinstance(source, bytes) or not isinstance(
            source, (str, os.PathLike)
        ):
            raise ValueError(
                f"assets[{name!r}]: expected the path of a file; received "
                f"{_shown(source)} of type {type(source).__name__}"
            )
        try:
            is_file = pathlib.Path(source).is_file()
        except (OSError, ValueError):
            is_file = False
        if not is_file:
            raise ValueError(
                f"assets[{name!r}]: {_shown(source, 300)} is not a file "
                "(no such file, or a folder)"
            )
        checked.append((name, pathlib.Path(source)))
    return sorted(checked)


def _checked_metadata(metadata, recorded):
    """The caller's `metadata` (a dict), refused in one line where it sets
    what the model records itself (`RECORDED`) to another value."""
    if metadata is None:
        return {}
    if not isinstance(metadata, collections.abc.Mapping):
        raise ValueError(
            "metadata: expected a dict of what to record; received "
            f"{type(metadata).__name__}"
        )
    metadata = dict(metadata)
    if "files" in metadata:
        raise ValueError(
            "metadata: 'files' is written by save_preset (the checksum of "
            "each file it writes); received one"
        )
    for key in RECORDED:
        if key in metadata and metadata[key] != recorded.get(key):
            raise ValueError(
                f"metadata[{key!r}]: the model's own is recorded "
                f"({recorded.get(key)!r}); received {_shown(metadata[key])}"
            )
    return metadata


def _check_parent(folder):
    """Refuses a `folder` whose nearest existing parent is not a folder (a
    path under a file)."""
    for part in folder.absolute().parents:
        try:
            if not (part.exists() or part.is_symlink()):
                continue
            if part.is_dir():
                return
        except OSError as error:
            raise _cannot_write(folder, error) from None
        raise NotADirectoryError(
            f"folder {folder}: cannot be made ({part} is a file, not a folder)"
        )


def check_target(folder, overwrite=False):
    """Raises `FileExistsError` (one line) unless a preset may be written
    at `folder`: nothing there, an empty folder, or, with `overwrite`, a
    folder holding a preset and nothing else (`_foreign`)."""
    folder = pathlib.Path(folder)
    try:
        _check_target(folder, overwrite)
    except OSError as error:
        if isinstance(error, FileExistsError):
            raise
        raise _cannot_write(folder, error) from None


def _check_target(folder, overwrite):
    if not folder.exists() and not folder.is_symlink():
        return
    if folder.is_symlink() or not folder.is_dir():
        raise FileExistsError(
            f"folder {folder}: not a folder (a file or a link); nothing "
            "was replaced"
        )
    if not any(folder.iterdir()):
        return  # an empty folder: nothing to lose
    if not overwrite:
        raise FileExistsError(
            f"folder {folder} exists; pass overwrite=True to replace it"
        )
    if not (folder / METADATA_FILE).is_file():
        raise FileExistsError(
            f"folder {folder} holds files but no {METADATA_FILE}: not a "
            "preset, so it is not replaced"
        )
    other = _foreign(folder)
    if other is not None:
        raise FileExistsError(
            f"folder {folder} holds {other}, which is not a file of its "
            "preset: nothing was replaced (move it out, or choose another "
            "folder)"
        )


def _foreign(folder):
    """The first path in `folder` (relative, sorted) that is not its
    preset's own (`metadata.json` and the files its metadata lists), or
    None. A `metadata.json` that lists nothing readable leaves every
    other file foreign."""
    try:
        with open(folder / METADATA_FILE, encoding="utf-8") as handle:
            listed = json.load(handle).get("files")
    except (OSError, ValueError, AttributeError):
        listed = None
    own = {METADATA_FILE, *(listed if isinstance(listed, dict) else {})}
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        base = pathlib.Path(root).relative_to(folder)
        links = [d for d in dirs if os.path.islink(os.path.join(root, d))]
        for name in sorted(files + links):
            relative = (base / name).as_posix()
            if relative not in own:
                return relative
        dirs[:] = [d for d in dirs if d not in links]
    return None


def _replace(work, folder, overwrite=False):
    """Puts the finished `work` folder in `folder`'s place. Without
    `overwrite`, only where nothing (or an empty folder) is there now: a
    rename that the system refuses over a folder that holds anything, so
    a folder that appeared since the first check is never moved aside.
    With it, what is there is checked again (a preset and nothing else),
    moved aside, and deleted only after the swap."""
    if not overwrite:
        try:
            os.rename(work, folder)
        except (FileExistsError, IsADirectoryError, NotADirectoryError):
            raise _appeared(folder) from None
        except OSError as error:
            if error.errno == errno.ENOTEMPTY:
                raise _appeared(folder) from None
            raise
        return
    old = None
    if folder.exists() or folder.is_symlink():
        _check_target(folder, overwrite=True)
        old = work.with_name(f"{work.name}.old")
        os.replace(folder, old)
    try:
        os.rename(work, folder)
    except OSError:
        if old is not None:
            os.replace(old, folder)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _appeared(folder):
    return FileExistsError(
        f"folder {folder} was written by someone else while this preset "
        "was saved; it is left as it is (pass overwrite=True to replace "
        "a preset)"
    )


def asset(preset, name):
    """The path of asset `name` of a preset, checksums verified first: an
    asset its metadata does not list (so unchecked) is not given out."""
    found = verify(preset)
    key = f"{ASSETS_DIR}/{name}"
    if not isinstance(name, str) or key not in found["files"]:
        raise PresetError(
            f"preset {preset}: it has no asset {_shown(name)} ({METADATA_FILE} "
            "lists no checksum of it)"
        )
    return resolve(preset) / key


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
    except OSError as error:
        raise PresetError(
            f"preset {preset}: {path.name} cannot be read ({error.strerror})"
        ) from None


def read_json(folder, name, preset):
    """A JSON file of a preset folder, `name` a path its `metadata.json`
    lists (so checked by `verify`): one line if unlisted, missing or
    damaged."""
    folder = pathlib.Path(folder)
    listed = _read_json(folder / METADATA_FILE, preset)
    if not isinstance(listed, dict) or name not in (listed.get("files") or {}):
        raise PresetError(
            f"preset {preset}: {METADATA_FILE} lists no checksum of {name}, "
            "which it must hold: incomplete or tampered with"
        )
    return _read_json(folder / name, preset)


def _first(error):
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


__all__ = [
    "FORMAT_VERSIONS",
    "KINDS",
    "PresetError",
    "REQUIRED_FILES",
    "asset",
    "check_metadata",
    "check_target",
    "from_preset",
    "names",
    "class_name",
    "build_from_config",
    "load_weights",
    "metadata",
    "task_class",
    "read_json",
    "required_files",
    "resolve",
    "round_to_float16",
    "save_preset",
    "sha256",
    "verify",
]
