"""`zoo.presets`: a task model written as a keras-hub-style folder loads
back as its recorded class, the same (float16 storage within its
rounding); a preset of the first format (kind only) is refused; a
damaged, changed, missing or mismatched preset is refused in one line;
an overwrite replaces only a preset; every shipped preset computes what
its metadata recorded, from `zoo` alone."""

import json
import os

import keras
import numpy as np
import pytest

import zoo
from tests.helpers import run_python
from tests.test_language_model import _model


def _outputs(model, words, chars):
    return keras.ops.convert_to_numpy(model((words, chars), training=False))


def _bilm():
    return _model()


@pytest.fixture
def tiny(tmp_path):
    model, words, chars = _bilm()
    folder = tmp_path / "tiny"
    zoo.presets.save_preset(model, folder, {"command": "written by a test"})
    return model, words, chars, folder


def test_a_preset_loads_back_the_same_model(tiny, tmp_path):
    model, words, chars, folder = tiny
    assert sorted(p.name for p in folder.iterdir()) == [
        "config.json",
        "metadata.json",
        "model.weights.h5",
    ]
    found = json.loads((folder / "metadata.json").read_text())
    assert found["kind"] == "language_model"
    assert found["class"] == "zoo>BiLM"
    assert found["command"] == "written by a test"
    assert found["parameter_count"] == model.count_params()
    assert set(found["files"]) == {"config.json", "model.weights.h5"}
    loaded = zoo.presets.from_preset(folder, kind="language_model")
    assert type(loaded) is zoo.BiLM
    assert type(zoo.BiLM.from_preset(folder)) is zoo.BiLM
    np.testing.assert_array_equal(
        _outputs(loaded, words, chars), _outputs(model, words, chars)
    )
    # Nothing but the preset was left beside it (no temporary folder).
    assert [p.name for p in tmp_path.iterdir()] == ["tiny"]


def _array_bytes(path):
    import h5py

    sizes = []
    with h5py.File(path, "r") as handle:
        handle.visititems(
            lambda _, item: (
                sizes.append(item.nbytes)
                if isinstance(item, h5py.Dataset)
                else None
            )
        )
    return sum(sizes)


def test_a_trained_models_optimizer_state_is_left_out(tmp_path):
    import h5py

    model, words, chars = _bilm()
    zoo.language_model.compile_model(model, keras.optimizers.Adam(0.01))
    model.fit((words, chars), (words > 0).astype("float32"), verbose=0)
    assert model.optimizer.variables
    zoo.presets.save_preset(model, tmp_path / "p")
    with h5py.File(tmp_path / "p" / "model.weights.h5", "r") as handle:
        assert "optimizer" not in handle
    loaded = zoo.presets.from_preset(tmp_path / "p")
    np.testing.assert_array_equal(
        _outputs(loaded, words, chars), _outputs(model, words, chars)
    )


def test_float16_storage_halves_the_weights_and_rounds_them(tiny, tmp_path):
    model, words, chars, folder = tiny
    half = tmp_path / "half"
    zoo.presets.save_preset(model, half, weights_dtype="float16")
    full_bytes = _array_bytes(folder / "model.weights.h5")
    assert _array_bytes(half / "model.weights.h5") == full_bytes / 2
    loaded = zoo.presets.from_preset(half)
    assert all(w.dtype == "float32" for w in loaded.weights)
    # The loaded model computes what the float32 model with its weights
    # rounded to float16 computes.
    zoo.presets.round_to_float16(model)
    np.testing.assert_allclose(
        _outputs(loaded, words, chars),
        _outputs(model, words, chars),
        rtol=1e-5,
        atol=1e-5,
    )


def _first_format(model, folder):
    """A preset as the first release wrote it: the functional model's
    config, its weights and a metadata.json with its kind only."""
    folder.mkdir()
    config = keras.saving.serialize_keras_object(model)
    (folder / "config.json").write_text(json.dumps(config))
    model.save_weights(folder / "model.weights.h5")
    files = {
        name: zoo.presets.sha256(folder / name)
        for name in ("config.json", "model.weights.h5")
    }
    metadata = {"format_version": 1, "kind": "language_model", "files": files}
    (folder / "metadata.json").write_text(json.dumps(metadata))


def test_a_preset_of_the_first_format_is_refused_in_one_line(tmp_path):
    """The first format (before 0.1.0: `kind` only, no `class`) is no
    longer read: refused by its `format_version`, before the model is."""
    model, _, _ = _model()  # a plain functional model
    _first_format(model, tmp_path / "old")
    for call in (zoo.presets.from_preset, zoo.BiLM.from_preset):
        _refused_in_one_line(
            tmp_path / "old", UNKNOWN_FORMAT, "received 1", call=call
        )


def test_a_run_folder_is_no_preset(tmp_path):
    model, _, _ = _bilm()
    (tmp_path / "run").mkdir()
    model.save(tmp_path / "run" / "model.keras")
    with pytest.raises(zoo.presets.PresetError, match="a recipe's run folder"):
        zoo.presets.from_preset(tmp_path / "run")


def _damage(folder, how):
    if how == "truncated weights":
        path = folder / "model.weights.h5"
        path.write_bytes(path.read_bytes()[:1000])
    elif how == "changed config":
        path = folder / "config.json"
        path.write_text(path.read_text().replace('"units": 8', '"units": 9'))
    elif how == "missing weights":
        (folder / "model.weights.h5").unlink()
    elif how == "metadata not JSON":
        (folder / "metadata.json").write_text("{ not json")


@pytest.mark.parametrize(
    "how, message",
    [
        ("truncated weights", "model.weights.h5 fails its checksum"),
        ("changed config", "config.json fails its checksum"),
        ("missing weights", "model.weights.h5 is missing"),
        ("metadata not JSON", "metadata.json is not valid JSON"),
    ],
)
def test_a_damaged_preset_is_refused_in_one_line(tiny, how, message):
    *_, folder = tiny
    _damage(folder, how)
    with pytest.raises(zoo.presets.PresetError) as error:
        zoo.presets.from_preset(folder)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_the_wrong_kind_or_an_unknown_name_is_refused(tiny, tmp_path):
    *_, folder = tiny
    with pytest.raises(zoo.presets.PresetError, match="not a tagger"):
        zoo.presets.from_preset(folder, kind="tagger")
    with pytest.raises(zoo.presets.PresetError, match="not a Tagger"):
        zoo.Tagger.from_preset(folder)
    with pytest.raises(zoo.presets.PresetError, match="kind: expected one"):
        zoo.presets.from_preset(folder, kind="parser")
    with pytest.raises(zoo.presets.PresetError) as error:
        zoo.presets.from_preset("no_such_preset")
    assert "no such preset or folder. Shipped presets:" in str(error.value)
    for name in zoo.presets.names():
        assert name in str(error.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(zoo.presets.PresetError, match="without metadata"):
        zoo.presets.from_preset(tmp_path / "empty")
    for bad in ("", b"en_bilm", 5, None):
        with pytest.raises(zoo.presets.PresetError, match="^preset: expected"):
            zoo.presets.from_preset(bad)


def test_save_preset_refuses_what_it_cannot_write(tiny):
    model, _, _, folder = tiny
    with pytest.raises(FileExistsError, match="overwrite=True"):
        zoo.presets.save_preset(model, folder)
    with pytest.raises(ValueError, match="weights_dtype: expected one of"):
        zoo.presets.save_preset(model, folder, weights_dtype="int8")
    images = keras.Sequential([keras.Input((4, 4, 3)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="record its class"):
        zoo.presets.save_preset(images, folder.parent / "x")
    assert not (folder.parent / "x").exists()


def test_an_overwrite_replaces_only_a_preset(tiny, tmp_path):
    model, words, chars, folder = tiny
    # A preset is replaced once the new one is complete.
    model.save_to_preset(folder, overwrite=True, metadata={"command": "2"})
    assert zoo.presets.metadata(folder)["command"] == "2"
    # Anything else is left as it is, even with overwrite.
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="not a preset"):
        model.save_to_preset(tmp_path / "mine", overwrite=True)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    (tmp_path / "file").write_text("keep me too")
    with pytest.raises(FileExistsError, match="not a folder"):
        model.save_to_preset(tmp_path / "file", overwrite=True)
    assert (tmp_path / "file").read_text() == "keep me too"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "file",
        "mine",
        "tiny",
    ]


@pytest.mark.parametrize("name", zoo.presets.names())
def test_every_shipped_preset_verifies_its_checksums(name):
    found = zoo.presets.verify(name)
    assert found["kind"] in zoo.presets.KINDS
    assert zoo.presets.task_class(found).preset_kind == found["kind"]
    for key in ("command", "code_version", "metrics", "printed"):
        assert found.get(key), (name, key)


@pytest.mark.every_backend
@pytest.mark.parametrize("name", zoo.presets.names())
def test_a_shipped_preset_computes_what_its_metadata_recorded(name):
    found = zoo.presets.verify(name)
    model = zoo.presets.from_preset(name)
    assert isinstance(model, zoo.tasks.Task)
    assert model.count_params() == found["parameter_count"]
    fixed = model.fixed_outputs()
    recorded = found["fixed_inputs"]
    assert fixed.keys() == recorded.keys()
    for key, value in recorded.items():
        if isinstance(value, list) and value and isinstance(value[0], float):
            np.testing.assert_allclose(fixed[key], value, atol=2e-3)
        else:
            assert fixed[key] == value, key


def test_a_shipped_preset_is_used_with_nothing_from_the_recipes():
    code = (
        "import sys, zoo\n"
        "tags = zoo.pos_tag('The cat sat on the mat .')\n"
        "phones = zoo.G2p(method='greedy')(['zoo'])\n"
        "bilm = zoo.BiLM.from_preset('en_bilm')\n"
        "assert tags[1] == ('cat', 'NOUN'), tags\n"
        "assert phones == [['Z', 'UW1']], phones\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('recipes', 'harness', 'tuning', 'diagnostics'))\n"
        "assert not loaded, loaded\n"
    )
    done = run_python(
        ["-c", code], cwd="/", env={**os.environ, "PYTHONPATH": ""}
    )
    assert done.returncode == 0, done.stderr[-2000:]


# --- presets you cannot fool (issue 65) ----------------------------------


def _rewrite(folder, change):
    """`change(metadata)` applied to a preset's metadata.json."""
    found = json.loads((folder / "metadata.json").read_text())
    change(found)
    (folder / "metadata.json").write_text(json.dumps(found))


def _resign(folder, name):
    """The checksum of `folder/name` written into its metadata, as one who
    changed the file would (so that only the other checks remain)."""
    _rewrite(
        folder,
        lambda found: found["files"].__setitem__(
            name, zoo.presets.sha256(folder / name)
        ),
    )


def _refused_in_one_line(preset, *words, call=None):
    with pytest.raises(zoo.presets.PresetError) as error:
        (call or zoo.presets.from_preset)(preset)
    message = str(error.value)
    assert "\n" not in message, message
    for word in words:
        assert word in message, (word, message)
    return message


def _tamper(folder, how, outside):
    files = lambda found: found["files"]  # noqa: E731
    if how == "files emptied":
        _rewrite(folder, lambda f: files(f).clear())
    elif how == "weights' line deleted":
        _rewrite(folder, lambda f: files(f).pop("model.weights.h5"))
    elif how == "config's line deleted":
        _rewrite(folder, lambda f: files(f).pop("config.json"))
    elif how == "weights changed, files emptied":
        path = folder / "model.weights.h5"
        data = bytearray(path.read_bytes())
        data[-100:] = bytes(100)
        path.write_bytes(bytes(data))
        _rewrite(folder, lambda f: files(f).clear())
    elif how == "format_version missing":
        _rewrite(folder, lambda f: f.pop("format_version"))
    elif how.startswith("format_version"):
        value = json.loads(how.split(" ", 1)[1])
        _rewrite(folder, lambda f: f.__setitem__("format_version", value))
    elif how.startswith("class "):
        value = json.loads(how.split(" ", 1)[1])
        _rewrite(folder, lambda f: f.__setitem__("class", value))
    elif how == "kind of another class":
        _rewrite(folder, lambda f: f.__setitem__("kind", "tagger"))
    elif how == "a checksum that is no SHA-256":
        _rewrite(folder, lambda f: files(f).__setitem__("config.json", 5))
    elif how == "an absolute path":
        outside.write_text("secret")
        digest = zoo.presets.sha256(outside)
        _rewrite(folder, lambda f: files(f).__setitem__(str(outside), digest))
    elif how == "a path through ..":
        outside.write_text("secret")
        digest = zoo.presets.sha256(outside)
        name = f"../{outside.name}"
        _rewrite(folder, lambda f: files(f).__setitem__(name, digest))
    elif how == "a link out of the folder":
        outside.write_text("secret")
        (folder / "assets").mkdir()
        (folder / "assets" / "x.txt").symlink_to(outside)
        _resign(folder, "assets/x.txt")


# What a `format_version` this code does not read is refused with.
UNKNOWN_FORMAT = "format_version: expected one of " + ", ".join(
    map(str, zoo.presets.FORMAT_VERSIONS)
)
TAMPERING = {
    "files emptied": "lists no checksum of config.json",
    "weights' line deleted": "lists no checksum of model.weights.h5",
    "config's line deleted": "lists no checksum of config.json",
    "weights changed, files emptied": "lists no checksum of config.json",
    "format_version 1": UNKNOWN_FORMAT,
    "format_version 99": UNKNOWN_FORMAT,
    'format_version "2"': "received '2'",
    "format_version 2.0": "received 2.0",
    "format_version true": "received True",
    "format_version null": "received None",
    "format_version missing": UNKNOWN_FORMAT,
    "class 5": "class: expected a registered zoo task class name",
    "class null": "received None",
    'class ""': "received ''",
    'class "zoo>NoSuchTask"': "is not a registered zoo task model",
    "kind of another class": "says kind 'tagger'",
    "a checksum that is no SHA-256": "expected a SHA-256",
    "an absolute path": "is not a path inside the preset folder",
    "a path through ..": "is not a path inside the preset folder",
    "a link out of the folder": "leads out of the preset folder",
}


@pytest.mark.every_backend
@pytest.mark.parametrize("how", sorted(TAMPERING))
def test_metadata_cannot_switch_the_checks_off(tiny, tmp_path, how):
    """What a preset must hold is its class's to say: metadata that drops
    a file's line, names a file outside the folder, or has a format or
    class this code does not know is refused in one line, before the
    model (or the file outside) is read."""
    *_, folder = tiny
    _tamper(folder, how, tmp_path / "outside.txt")
    message = _refused_in_one_line(folder, TAMPERING[how])
    assert "secret" not in message
    with pytest.raises(zoo.presets.PresetError):
        zoo.BiLM.from_preset(folder)
    if how not in ('class "zoo>NoSuchTask"', "kind of another class"):
        # (`verify` alone reads a preset of a class defined elsewhere.)
        with pytest.raises(zoo.presets.PresetError):
            zoo.presets.verify(folder)


def test_the_declared_files_are_the_task_classes(tiny):
    for cls in (zoo.Tagger, zoo.TextClassifier, zoo.Transcriber, zoo.BiLM):
        assert zoo.presets.required_files(cls) == (
            "config.json",
            "model.weights.h5",
        )
    assert zoo.presets.required_files(zoo.G2p) == (
        "config.json",
        "model.weights.h5",
        "assets/cmudict.dict.gz",
        "assets/homographs.json",
        "assets/tenses.json",
    )
    # An asset the metadata does not list is not given out unchecked.
    *_, folder = tiny
    (folder / "assets").mkdir()
    (folder / "assets" / "extra.json").write_text("{}")
    _refused_in_one_line(
        folder,
        "it has no asset 'extra.json'",
        call=lambda p: zoo.presets.asset(p, "extra.json"),
    )


@pytest.mark.every_backend
def test_a_name_the_system_cannot_look_up_is_a_preset_error():
    for name in ("a" * 300, "a\0b", "x/" * 3000):
        message = _refused_in_one_line(
            name, "no such preset", call=zoo.Tagger.from_preset
        )
        assert len(message) < 400, message


def test_overwrite_replaces_a_preset_and_nothing_else(tiny, tmp_path):
    model, _, _, folder = tiny
    # A preset with a file of the user's beside it: refused, all kept.
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError) as error:
        model.save_to_preset(folder, overwrite=True)
    assert "notes.txt" in str(error.value)
    assert "\n" not in str(error.value)
    (folder / "notes.txt").unlink()
    (folder / "sub").mkdir()
    (folder / "sub" / "data.csv").write_text("mine too")
    with pytest.raises(FileExistsError, match="sub/data.csv"):
        zoo.presets.save_preset(model, folder, overwrite=True)
    assert (folder / "sub" / "data.csv").read_text() == "mine too"
    assert zoo.presets.verify(folder)["class"] == "zoo>BiLM"
    (folder / "sub" / "data.csv").unlink()
    (folder / "sub").rmdir()
    # A preset alone is replaced; an empty folder is written into, with or
    # without overwrite.
    model.save_to_preset(folder, overwrite=True)
    (tmp_path / "empty").mkdir()
    model.save_to_preset(tmp_path / "empty")
    assert zoo.presets.verify(tmp_path / "empty")["class"] == "zoo>BiLM"
    # Nothing else was ever left beside them (temporary or old folders).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "tiny"]


def test_the_recorded_class_is_the_models_own(tiny, tmp_path):
    model, *_ = tiny
    for key, value in [
        ("class", "zoo>Tagger"),
        ("class", 5),
        ("kind", "tagger"),
        ("format_version", 99),
        ("files", {}),
        ("weights_dtype", "float16"),
    ]:
        with pytest.raises(ValueError) as error:
            model.save_to_preset(tmp_path / "p", metadata={key: value})
        assert f"metadata[{key!r}]" in str(error.value) or key in str(
            error.value
        )
        assert "\n" not in str(error.value)
        assert not (tmp_path / "p").exists()
    # Its own values, repeated, are fine (`recipes.presets assets` keeps
    # its metadata).
    found = model.save_to_preset(
        tmp_path / "p", metadata={"class": "zoo>BiLM", "kind": "language_model"}
    )
    assert found["class"] == "zoo>BiLM"
    assert type(zoo.presets.from_preset(tmp_path / "p")) is zoo.BiLM


def _one_line_error(call, errors, *words):
    with pytest.raises(errors) as error:
        call()
    message = str(error.value)
    assert "\n" not in message, message
    for word in words:
        assert word in message, (word, message)
    assert ".tmp" not in message and "/." not in message, message
    return message


def test_save_errors_name_the_argument_not_a_temporary_folder(tiny, tmp_path):
    model, *_ = tiny
    (tmp_path / "file").write_text("mine")
    asset = tmp_path / "vocab.json"
    asset.write_text("{}")
    cases = [
        (tmp_path / "file" / "p", None, OSError, ("is a file",)),
        ("/proc/zoo-preset", None, OSError, ("/proc/zoo-preset",)),
        (tmp_path / "p", {"..": asset}, ValueError, ("assets", "'..'")),
        (tmp_path / "p", {".": asset}, ValueError, ("assets", "'.'")),
        (tmp_path / "p", {"a/b": asset}, ValueError, ("assets", "'a/b'")),
        (tmp_path / "p", {"": asset}, ValueError, ("assets", "''")),
        (tmp_path / "p", {5: asset}, ValueError, ("assets", "5")),
        (
            tmp_path / "p",
            {"x.json": tmp_path / "missing.json"},
            ValueError,
            ("assets['x.json']", "missing.json"),
        ),
        (tmp_path / "p", {"x.json": tmp_path}, ValueError, ("not a file",)),
        (tmp_path / "p", ["x.json"], ValueError, ("assets: expected a dict",)),
    ]
    for folder, assets, errors, words in cases:
        _one_line_error(
            lambda f=folder, a=assets: model.save_to_preset(f, assets=a),
            errors,
            *words,
        )
    _one_line_error(
        lambda: model.save_to_preset(None), ValueError, "folder: expected"
    )
    assert (tmp_path / "file").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "file",
        "tiny",
        "vocab.json",
    ]


def test_a_folder_that_appears_during_a_save_is_not_replaced(
    tiny, tmp_path, monkeypatch
):
    """The check before the save is not the last word: a folder someone
    else writes meanwhile is left as it is (without overwrite)."""
    model, *_ = tiny
    target = tmp_path / "p"
    sha256 = zoo.presets.sha256

    def meanwhile(path):
        if not target.exists():
            target.mkdir()
            (target / "theirs.txt").write_text("theirs")
        return sha256(path)

    monkeypatch.setattr(zoo.presets, "sha256", meanwhile)
    _one_line_error(
        lambda: model.save_to_preset(target),
        FileExistsError,
        str(target),
        "overwrite=True",
    )
    assert [p.name for p in target.iterdir()] == ["theirs.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p", "tiny"]


# A G2P preset: a tiny transcriber with the assets `zoo.G2p` reads.
PHONEMES = ["AA", "B", "K"]


@pytest.fixture
def g2p_preset(tmp_path):
    import gzip

    model = zoo.build_seq2seq(
        5, 7, "lstm", 1, 8, embedding_dim=4, attention="general"
    )
    transcriber = zoo.Transcriber.from_seq2seq(model, list("abc"), PHONEMES)
    sources = tmp_path / "sources"
    sources.mkdir()
    with gzip.open(sources / "cmudict.dict.gz", "wt") as handle:
        handle.write("ab AA B\nba B AA\n")
    (sources / "homographs.json").write_text(
        json.dumps({"abc": {"NOUN": "AA B K", "VERB": "K B AA"}})
    )
    (sources / "tenses.json").write_text(
        json.dumps({"after": {"i": "past"}, "otherwise": "present"})
    )
    folder = tmp_path / "g2p"
    transcriber.save_to_preset(
        folder,
        assets={p.name: p for p in sources.iterdir()},
        metadata={"fixed_inputs": {}},
    )
    return folder


@pytest.mark.every_backend
def test_a_g2p_preset_must_hold_what_g2p_reads(g2p_preset):
    g2p = zoo.G2p(g2p_preset, method="greedy", tagger=None)
    assert g2p(["ab"]) == [["AA", "B"]]
    # Its dictionary deleted with its line: refused, not run without it.
    (g2p_preset / "assets" / "cmudict.dict.gz").unlink()
    _rewrite(g2p_preset, lambda f: f["files"].pop("assets/cmudict.dict.gz"))
    _refused_in_one_line(
        g2p_preset,
        "lists no checksum of assets/cmudict.dict.gz",
        call=lambda p: zoo.G2p(p, tagger=None),
    )
    # As a plain transcriber it still loads (the network alone).
    assert isinstance(zoo.Transcriber.from_preset(g2p_preset), zoo.Transcriber)


@pytest.mark.every_backend
@pytest.mark.parametrize(
    "name, content, words",
    [
        ("homographs.json", "[]", "a JSON list"),
        ("homographs.json", '{"abc": ["AA"]}', "for 'abc'"),
        ("homographs.json", '{"abc": {"NOUN": 5}}', "5"),
        ("homographs.json", '{"abc": {"NOUN": "ZZ9"}}', "'ZZ9'"),
        ("tenses.json", "{not json", "tenses.json is not valid JSON"),
        ("tenses.json", '{"after": []}', "'after': list"),
        ("tenses.json", '{"after": {"i": "future"}}', "'future'"),
        ("tenses.json", '{"before": {}}', "keys ['before']"),
        ("cmudict.dict.gz", b"not gzip", "not a pronouncing dictionary"),
    ],
)
def test_a_re_signed_asset_of_the_wrong_shape_is_refused(
    g2p_preset, name, content, words
):
    """An asset changed and its checksum updated passes `verify`; what G2p
    reads is then checked for the shape it reads, in one line naming it."""
    path = g2p_preset / "assets" / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    _resign(g2p_preset, f"assets/{name}")
    zoo.presets.verify(g2p_preset)  # the checksums pass
    _refused_in_one_line(
        g2p_preset,
        name,
        words,
        call=lambda p: zoo.G2p(p, method="greedy", tagger=None),
    )
