"""Every zoo layer trains under Keras's mixed-precision policies.

Variables stay float32, activations run in the policy's compute dtype,
the head is float32, and a saved model reloads and predicts the same.
"""

import keras
import numpy as np
import pytest

import zoo


@pytest.fixture
def policy(request):
    keras.mixed_precision.set_global_policy(request.param)
    yield request.param
    keras.mixed_precision.set_global_policy("float32")


def _model():
    tokens = keras.Input((None,), dtype="int32")
    embedding = keras.layers.Embedding(30, 8, mask_zero=True)
    x = zoo.EmbeddingDropout(embedding, rate=0.1, seed=1)(tokens)
    stack = zoo.StackedRNN(
        cell=["lstm", "gru", "lstm"],
        units=8,
        num_layers=3,
        bidirectional=[True, False, False],
        merge_mode="sum",
        weight_drop=[0.3, 0.0, 0.0],
        residual=[False, True, False],
        highway=[False, False, True],
        layer_norm=True,
        inter_layer_dropout=0.1,
        output="all",
        return_sequences=True,
        seed=2,
    )
    layers = stack(x)
    mixed = zoo.ScalarMix()(layers)
    pooled = zoo.SequencePooling(mode="attention")(mixed)
    outputs = keras.layers.Dense(3, activation="softmax", dtype="float32")(
        pooled
    )
    return keras.Model(tokens, outputs), mixed


@pytest.mark.parametrize(
    "policy", ["mixed_float16", "mixed_bfloat16"], indirect=True
)
def test_stack_trains_and_reloads_under_mixed_precision(policy, tmp_path):
    model, mixed = _model()
    compute = keras.mixed_precision.dtype_policy().compute_dtype
    assert keras.backend.standardize_dtype(mixed.dtype) == compute
    assert all(w.dtype == "float32" for w in model.weights)
    rng = np.random.RandomState(0)
    x = rng.randint(1, 30, size=(6, 7)).astype("int32")
    x[:3, 4:] = 0  # right padding
    y = rng.randint(0, 3, size=(6,))
    model.compile(
        keras.optimizers.Adam(1e-2), "sparse_categorical_crossentropy"
    )
    losses = [float(model.train_on_batch(x, y)) for _ in range(5)]
    assert np.all(np.isfinite(losses))
    assert losses[-1] < losses[0]
    predicted = np.asarray(model.predict_on_batch(x))
    assert predicted.dtype == np.float32
    np.testing.assert_allclose(predicted.sum(axis=-1), 1.0, atol=1e-3)
    path = tmp_path / "mixed.keras"
    model.save(path)
    loaded = keras.saving.load_model(path, safe_mode=True)
    np.testing.assert_allclose(
        np.asarray(loaded.predict_on_batch(x)), predicted, atol=1e-3
    )
