"""A saved model that does not load is one line naming the flag and the
file: an empty or cut-short `.keras` file is said to be that, not Keras's
"File not found" (issue 30, found by the hostile run)."""

import keras
import numpy as np
import pytest

import harness
from recipes import models


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
