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
    "policy",
    [
        "mixed_float16",
        # bfloat16 casts as float16 does: make test-all.
        pytest.param("mixed_bfloat16", marks=pytest.mark.slow),
    ],
    indirect=True,
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


@pytest.mark.parametrize(
    "policy", ["float32", "mixed_float16", "mixed_bfloat16"], indirect=True
)
def test_the_fast_path_report_tells_what_runs_under_each_policy(policy):
    """The report's PyTorch columns follow the compute dtype: float16 has
    no fused CPU kernel (PyTorch's oneDNN RNN runs float32 and bfloat16),
    and on the PyTorch backend the stack's own plan agrees."""
    model = zoo.stacked_lstm(3, 8, input_dim=4, return_sequences=True)
    report = zoo.fast_path_report(model)
    compute = keras.mixed_precision.global_policy().compute_dtype
    on_cpu = compute in ("float32", "bfloat16")
    for entry in report:
        torch = entry["backends"]["torch"]
        assert torch["cpu"] == ("zoo nn.LSTM" if on_cpu else "loop")
        assert torch["gpu"] == "zoo nn.LSTM"
        assert (compute in torch["reason"]) == (not on_cpu)
    if keras.backend.backend() == "torch":
        import torch as torch_module

        summary = zoo.summary(model, print_fn=False)
        assert ("zoo nn.LSTM  zoo nn.LSTM" in summary) == on_cpu
        if not torch_module.cuda.is_available():
            stack = model.get_layer(f"{model.name}_stack")
            runs, _ = zoo.fused.plan(stack, None, None, False, compute)
            assert bool(runs) == on_cpu
