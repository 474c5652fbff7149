"""`zoo.reference` (NumPy equations) reproduces the Keras stack to 1e-5."""

import itertools

import keras
import numpy as np
import pytest

import zoo
from tests import helpers


@pytest.mark.grid(stride=3)
@pytest.mark.parametrize(
    "cell,num_layers,bidirectional",
    list(
        itertools.product(
            ("simple_rnn", "gru", "lstm"), (1, 2, 3, 4), (False, True)
        )
    ),
)
def test_reference_matches_keras(cell, num_layers, bidirectional):
    rng = np.random.default_rng(num_layers)
    x = rng.normal(size=(3, 6, 5)).astype("float32")
    layer = zoo.layers.StackedRNN(
        cell,
        units=4,
        num_layers=num_layers,
        bidirectional=bidirectional,
        return_sequences=True,
        return_state=True,
    )
    output, *states = helpers.flat_numpy(layer(x))
    expected = zoo.reference.forward(layer, x)
    np.testing.assert_allclose(output, expected["output"], atol=1e-5)
    assert len(states) == len(expected["states"])
    for got, want in zip(states, expected["states"]):
        np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.grid(stride=2, core_only=True)
@pytest.mark.parametrize("cell", ["simple_rnn", "gru", "lstm"])
@pytest.mark.parametrize("skip", ["residual", "highway"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_reference_covers_skips_norm_and_masks(cell, skip, bidirectional):
    rng = np.random.default_rng(7)
    x, mask = helpers.padded_batch(rng, [5, 2, 4], features=3)
    layer = zoo.layers.StackedRNN(
        cell,
        units=[4, 4, 3],
        bidirectional=bidirectional,
        merge_mode="ave",
        layer_norm=True,
        residual=skip == "residual",
        highway=skip == "highway",
        return_state=True,
    )
    output, *states = helpers.flat_numpy(layer(x, mask=mask))
    expected = zoo.reference.forward(layer, x, mask=mask)
    np.testing.assert_allclose(output, expected["output"], atol=1e-5)
    for got, want in zip(states, expected["states"]):
        np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("skip", ["residual", "highway"])
def test_reference_last_output_of_left_padded_bidirectional_top(skip):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    mask = np.array([[True] * 5, [False, False, True, True, True]])
    layer = zoo.layers.StackedRNN(
        "lstm",
        units=3,
        num_layers=2,
        bidirectional=True,
        residual=skip == "residual",
        highway=skip == "highway",
    )
    output = helpers.to_numpy(layer(x, mask=mask))
    expected = zoo.reference.forward(layer, x, mask=mask)["output"]
    np.testing.assert_allclose(output, expected, atol=1e-5)


def test_reference_reads_a_whole_model_and_initial_state():
    model = zoo.stacked_lstm(2, 4, input_dim=3, return_state=True)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 4, 3)).astype("float32")
    initial = [rng.normal(size=(2, 4)).astype("float32") for _ in range(4)]
    stack = model.get_layer("stacked_rnn_stack")
    output, *_ = helpers.flat_numpy(stack(x, initial_state=initial))
    expected = zoo.reference.forward(model, x, initial_state=initial)
    np.testing.assert_allclose(output, expected["output"], atol=1e-5)


def test_reference_refuses_what_it_does_not_model():
    import keras

    layer = keras.layers.LSTM(3, activation="selu")
    layer.build((None, 2, 2))
    with pytest.raises(NotImplementedError, match="selu.*it knows"):
        zoo.reference.run_direction(
            layer, np.zeros((1, 2, 2)), np.ones((1, 2), bool)
        )


def test_reference_reads_a_token_models_ids():
    model = zoo.stacked_lstm(
        2, 4, vocabulary_size=12, embedding_dim=3, embedding_dropout=0.1
    )
    ids = np.array([[3, 5, 7, 0], [2, 0, 0, 0]], "int32")
    got = zoo.reference.forward(model, ids)["output"]
    want = keras.ops.convert_to_numpy(model(ids, training=False))
    keep = ids != 0  # padded steps are masked (ids != 0)
    np.testing.assert_allclose(got[keep], want[keep], atol=1e-5)
    with pytest.raises(ValueError, match=r"must be integer token ids"):
        zoo.reference.forward(model, ids.astype("float32"))
    with pytest.raises(ValueError, match=r"received shape \(4,\)"):
        zoo.reference.forward(model.get_layer(model.name + "_stack"), ids[0])
