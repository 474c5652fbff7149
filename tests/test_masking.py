"""Padded and unpadded inputs give the same results, for every wrapper."""

import itertools

import keras
import numpy as np
import pytest

import zoo
from tests import helpers

CELLS = ("simple_rnn", "gru", "lstm")
SKIPS = ("plain", "residual", "highway")


@pytest.mark.grid(stride=4)
@pytest.mark.parametrize(
    "cell,bidirectional,skip",
    list(itertools.product(CELLS, (False, True), SKIPS)),
)
def test_padded_batch_matches_each_sequence_alone(cell, bidirectional, skip):
    rng = np.random.default_rng(0)
    lengths = [6, 3, 1]
    x, mask = helpers.padded_batch(rng, lengths, features=4)
    layer = zoo.layers.StackedRNN(
        cell,
        units=[4, 5, 5],
        bidirectional=bidirectional,
        residual=skip == "residual",
        highway=skip == "highway",
        layer_norm=True,
        return_sequences=True,
        return_state=True,
    )
    batched = helpers.flat_numpy(layer(x, mask=mask))
    for row, length in enumerate(lengths):
        alone = helpers.flat_numpy(layer(x[row : row + 1, :length]))
        np.testing.assert_allclose(
            batched[0][row, :length], alone[0][0], atol=1e-5
        )
        for got, want in zip(batched[1:], alone[1:]):
            np.testing.assert_allclose(got[row], want[0], atol=1e-5)


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("skip", SKIPS)
def test_last_output_of_padded_batch_matches_alone(bidirectional, skip):
    rng = np.random.default_rng(1)
    lengths = [5, 2]
    x, mask = helpers.padded_batch(rng, lengths, features=3)
    layer = zoo.layers.StackedRNN(
        "gru",
        units=[3, 3],
        bidirectional=bidirectional,
        merge_mode="sum",
        residual=[False, skip == "residual"],
        highway=[False, skip == "highway"],
    )
    batched = helpers.to_numpy(layer(x, mask=mask))
    for row, length in enumerate(lengths):
        alone = helpers.to_numpy(layer(x[row : row + 1, :length]))
        np.testing.assert_allclose(batched[row], alone[0], atol=1e-5)


def test_mask_flows_from_embedding_through_functional_model():
    model = zoo.stacked_lstm(
        3,
        4,
        vocabulary_size=20,
        embedding_dim=4,
        residual=True,
        return_state=True,
    )
    assert model.outputs[0]._keras_mask is not None
    ids = np.array([[3, 4, 5, 0, 0], [6, 7, 8, 9, 2]], "int32")
    padded = helpers.flat_numpy(model(ids))
    alone = helpers.flat_numpy(model(ids[:1, :3]))
    np.testing.assert_allclose(padded[0][0, :3], alone[0][0], atol=1e-5)
    # Final states only match if the padding was masked out.
    for got, want in zip(padded[1:], alone[1:]):
        np.testing.assert_allclose(got[0], want[0], atol=1e-5)
    unmasked = helpers.flat_numpy(
        model.get_layer("stacked_rnn_stack")(
            model.get_layer("stacked_rnn_embedding")(ids),
            mask=np.ones(ids.shape, bool),
        )
    )
    assert not np.allclose(unmasked[1][0], alone[1][0], atol=1e-3)


def test_mask_warning_is_a_test_failure():
    """pyproject.toml turns Keras's mask-destroying warning into an error."""

    class NoMask(keras.layers.Layer):
        def call(self, x):
            return x

    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(5, 2, mask_zero=True)(inputs)
    with pytest.raises(UserWarning, match="destroy the mask"):
        NoMask()(x)


@pytest.mark.parametrize(
    "wrapper", [zoo.layers.ResidualWrapper, zoo.layers.HighwayWrapper]
)
def test_wrappers_keep_the_mask(wrapper):
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(5, 4, mask_zero=True)(inputs)
    y = wrapper(keras.layers.GRU(4, return_sequences=True))(x)
    y = zoo.layers.VariationalDropout(0.1)(y)
    assert y._keras_mask is not None
