"""A saved model that does not load is one line naming the flag and the
file: an empty or cut-short `.keras` file is said to be that, not Keras's
"File not found" (issue 30, found by the hostile run)."""

import json
import zipfile

import keras
import numpy as np
import pytest

import harness
import zoo
from recipes import models
from recipes import tagging


def test_an_empty_or_truncated_keras_file_is_named(tmp_path):
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    whole = tmp_path / "model.keras"
    model.save(whole)
    loaded = models.load_saved_model(whole, "--init-from")
    np.testing.assert_allclose(
        loaded.predict(np.ones((1, 3)), verbose=0),
        model.predict(np.ones((1, 3)), verbose=0),
    )
    data = whole.read_bytes()
    for name, content in (("empty", b""), ("cut", data[: len(data) // 2])):
        path = tmp_path / f"{name}.keras"
        path.write_bytes(content)
        with pytest.raises(harness.UsageError) as info:
            models.load_saved_model(path, "--init-from")
        message = str(info.value)
        assert message.startswith(f"--init-from {path}: not a whole .keras")
        assert f"({len(content)} bytes" in message
        assert "File not found" not in message


def test_a_run_folder_of_0_1_0_loads_through_the_converter(tmp_path):
    """A run of 0.1.0 saved its tagger as one graph (format 2's layout):
    the recipes load its `model.keras` through `zoo.tasks.convert`, the
    same tags as the preset it was exported to."""
    preset = zoo.presets.resolve("pos_en_universal_fast")
    run = tmp_path / "run"
    run.mkdir()
    with zipfile.ZipFile(run / "model.keras", "w") as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "3"}))
        for name in ("config.json", "model.weights.h5"):
            archive.write(preset / name, name)
    tagger = tagging.load(run)
    assert isinstance(tagger, zoo.Tagger)
    assert tagger.preprocessor.conventions == "en_brown"
    sentence = ["The", "keys", "are", "on", "the", "table", "."]
    expected = zoo.Tagger.from_preset("pos_en_universal_fast").tag([sentence])
    assert tagger.tag([sentence]) == expected
