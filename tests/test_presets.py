"""`zoo.presets`: a task model written as a keras-hub-style folder loads
back as its recorded class, the same (float16 storage within its
rounding); a preset of the first format (kind only) still loads; a
damaged, changed, missing or mismatched preset is refused in one line;
an overwrite replaces only a preset; every shipped preset computes what
its metadata recorded, from `zoo` alone."""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest

import zoo
from tests.test_language_model import _model


def _outputs(model, words, chars):
    return keras.ops.convert_to_numpy(model((words, chars), training=False))


def _bilm():
    model, words, chars = _model()
    return zoo.BiLM.from_network(model), words, chars


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
    zoo.language_model.compile(model, keras.optimizers.Adam(0.01))
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


def test_a_preset_of_the_first_format_loads_as_its_task_class(tmp_path):
    model, words, chars = _model()  # a plain functional model
    _first_format(model, tmp_path / "old")
    loaded = zoo.presets.from_preset(tmp_path / "old")
    assert type(loaded) is zoo.BiLM
    np.testing.assert_allclose(
        _outputs(loaded, words, chars), _outputs(model, words, chars)
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
    for name in zoo.presets.list():
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


@pytest.mark.parametrize("name", zoo.presets.list())
def test_every_shipped_preset_verifies_its_checksums(name):
    found = zoo.presets.verify(name)
    assert found["kind"] in zoo.presets.KINDS
    assert zoo.presets.task_class(found).preset_kind == found["kind"]
    for key in ("command", "code_version", "metrics", "printed"):
        assert found.get(key), (name, key)


@pytest.mark.every_backend
@pytest.mark.parametrize("name", zoo.presets.list())
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
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
        cwd="/",
    )
    assert done.returncode == 0, done.stderr[-2000:]
