"""The fused multi-layer path equals the per-layer path and the reference.

The PyTorch kernel runs on CPU, so its equality is tested wherever torch is
installed: through a whole model on the torch backend (`make test-torch`),
and on any backend by calling PyTorch's module directly with the weights
converted by `zoo.fused`. The JAX kernel is cuDNN-only; its weight packing
is tested on CPU through `jax.experimental.rnn.lstm_ref`, which reads the
same flat layout. benchmarks/gpu.py checks the cuDNN call itself.
"""

import keras
import numpy as np
import pytest

import zoo
from zoo import fused
from zoo._walk import iter_layers

BACKEND = keras.backend.backend()


def _stack(model):
    return next(
        layer
        for layer in iter_layers(model)
        if isinstance(layer, zoo.StackedRNN)
    )


def _inputs(shape=(3, 7, 5), seed=0):
    return np.random.RandomState(seed).randn(*shape).astype("float32")


def _numpy(x):
    if hasattr(x, "detach"):
        x = x.detach().cpu()
    return np.asarray(x)


def _randomise(model, seed=0):
    """Non-zero biases everywhere, so a bias in the wrong place shows."""
    rng = np.random.RandomState(seed)
    for weight in model.weights:
        weight.assign(rng.uniform(-0.5, 0.5, weight.shape).astype("float32"))


@pytest.mark.parametrize(
    "kwargs, runs",
    [
        (dict(cell="lstm", num_layers=3), [(0, 3)]),
        (dict(cell=["lstm", "lstm", "gru"], num_layers=3), [(0, 2), (2, 3)]),
        (dict(cell="gru", units=[4, 4, 6], num_layers=3), [(0, 2), (2, 3)]),
        (dict(cell="lstm", num_layers=3, residual=True), [(0, 1)]),
        (dict(cell="lstm", num_layers=2, bidirectional=True), []),
        (
            dict(cell="lstm", num_layers=3, layer_norm=[True, False, False]),
            [(0, 1), (1, 3)],
        ),
        (
            dict(cell="lstm", num_layers=3, inter_layer_dropout=0.2),
            [(0, 1), (1, 2), (2, 3)],
        ),
        (
            dict(cell="lstm", num_layers=3, recurrent_dropout=[0, 0.2, 0]),
            [(0, 1), (2, 3)],
        ),
        (dict(cell="simple_rnn", num_layers=2), []),
        (dict(cell="lstm", num_layers=3, weight_drop=0.3), [(0, 3)]),
        (
            dict(cell="lstm", num_layers=3, output="all"),
            [(0, 1), (1, 2), (2, 3)],
        ),
    ],
)
def test_candidate_runs(kwargs, runs):
    kwargs.setdefault("units", 4)
    model = zoo.stacked_rnn(input_dim=5, return_sequences=True, **kwargs)
    assert fused.candidate_runs(_stack(model)) == runs


def test_plan_falls_back_for_masks_states_and_dropout():
    model = zoo.stacked_lstm(3, 4, input_dim=5, dropout=0.1)
    stack = _stack(model)
    assert (
        fused.plan(stack, np.ones((2, 3), bool), None, False, "float32") == {}
    )
    assert fused.plan(stack, None, [[0, 0]] * 3, False, "float32") == {}
    assert fused.plan(stack, None, None, True, "float32") == {}
    expected = {0: 3} if BACKEND == "torch" else {}
    assert fused.plan(stack, None, None, False, "float32") == expected
    with fused.disabled():
        assert fused.plan(stack, None, None, False, "float32") == {}


def _torch_reference_check(cell):
    """PyTorch's module with zoo's converted weights == zoo.reference."""
    torch = pytest.importorskip("torch")
    model = zoo.stacked_rnn(cell, 3, 6, input_dim=5, return_sequences=True)
    _randomise(model)
    x = _inputs()
    expected = zoo.reference.forward(model, x)["output"]
    convert = (
        fused.keras_to_torch_lstm
        if cell == "lstm"
        else fused.keras_to_torch_gru
    )
    kind = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU
    module = kind(5, 6, num_layers=3, batch_first=True)
    names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    with torch.no_grad():
        for j, layer in enumerate(_stack(model).recurrent_layers):
            c = layer.cell
            values = convert(
                *(
                    keras.ops.convert_to_tensor(w)
                    for w in (c.kernel, c.recurrent_kernel, c.bias)
                )
            )
            for name, value in zip(names, values):
                getattr(module, f"{name}_l{j}").copy_(
                    torch.tensor(_numpy(value))
                )
        y, _ = module(torch.tensor(x))
    np.testing.assert_allclose(_numpy(y), expected, atol=2e-5)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_torch_weight_conversion_matches_reference(cell):
    _torch_reference_check(cell)


def test_cudnn_flat_packing_matches_reference():
    rnn = pytest.importorskip("jax.experimental.rnn")
    import jax.numpy as jnp

    model = zoo.stacked_lstm(3, 6, input_dim=5, return_sequences=True)
    _randomise(model)
    x = _inputs()
    layers = _stack(model).recurrent_layers
    flat = jnp.asarray(_numpy(fused.keras_to_cudnn_flat(layers)))
    assert flat.shape[0] == rnn.get_num_params_in_lstm(5, 6, 3, False)
    w_ih, w_hh, b_ih, b_hh = rnn.unpack_lstm_weights(flat, 5, 6, 3, False)
    zeros = jnp.zeros((3, 3, 6))
    y, h, c = rnn.lstm_ref(
        jnp.asarray(x),
        zeros,
        zeros,
        w_ih,
        w_hh,
        b_ih,
        b_hh,
        jnp.full((3,), 7, dtype=jnp.int32),
        5,
        6,
        3,
        0.0,
        False,
    )
    expected = zoo.reference.forward(model, x)["output"]
    np.testing.assert_allclose(np.asarray(y), expected, atol=2e-5)


torch_only = pytest.mark.skipif(
    BACKEND != "torch", reason="the fused path runs on the torch backend"
)


def _gradients(model, x):
    import torch

    out = model(torch.tensor(x))
    loss = (out**2).sum()
    grads = torch.autograd.grad(
        loss, [v.value for v in model.trainable_variables]
    )
    return _numpy(out), [_numpy(g) for g in grads]


@torch_only
@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize("return_sequences", [True, False])
def test_model_fused_equals_per_layer_and_reference(cell, return_sequences):
    model = zoo.stacked_rnn(
        cell, 3, 6, input_dim=5, return_sequences=return_sequences
    )
    _randomise(model)
    x = _inputs()
    assert fused.plan(_stack(model), None, None, False, "float32") == {0: 3}
    out, grads = _gradients(model, x)
    with fused.disabled():
        loop_out, loop_grads = _gradients(model, x)
    np.testing.assert_allclose(out, loop_out, atol=1e-5)
    for g, h in zip(grads, loop_grads):
        np.testing.assert_allclose(g, h, atol=1e-4, rtol=1e-4)
    expected = zoo.reference.forward(model, x)["output"]
    np.testing.assert_allclose(out, expected, atol=2e-5)


@torch_only
def test_weight_drop_reaches_the_fused_call(tmp_path):
    model = zoo.stacked_lstm(2, 6, input_dim=5, weight_drop=0.5, seed=3)
    x = _inputs()
    plain = _numpy(model(x, training=False))
    dropped = _numpy(model(x, training=True))
    assert np.abs(plain - dropped).max() > 1e-4
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = keras.saving.load_model(path, safe_mode=True)
    np.testing.assert_allclose(_numpy(loaded(x)), plain, atol=1e-6)
