"""SequencePooling: mask-aware mean / max / last / attention pooling."""

import keras
import numpy as np
import pytest

import zoo
from tests import helpers

MODES = ["mean", "max", "last", "concat", "attention"]


def pool(mode, **kwargs):
    return zoo.layers.SequencePooling(mode, attention_units=8, **kwargs)


def numpy_pool(mode, x, mask):
    """The reference: each row's real steps, pooled in NumPy."""
    rows = []
    for row, real in zip(x, mask):
        steps = row[real]
        if mode == "mean":
            rows.append(steps.mean(axis=0))
        elif mode == "max":
            rows.append(steps.max(axis=0))
        elif mode == "concat":  # ULMFiT's: last, max, mean
            rows.append(
                np.concatenate(
                    [steps[-1], steps.max(axis=0), steps.mean(axis=0)]
                )
            )
        else:
            rows.append(steps[-1])
    return np.stack(rows)


def random_masked(rng, batch=5, steps=7, features=3):
    """Random inputs, garbage in the padding and an irregular mask."""
    x = rng.normal(size=(batch, steps, features)).astype("float32")
    mask = rng.random((batch, steps)) < 0.6
    mask[:, 0] = True  # no empty rows here; they have their own test
    mask[1] = False
    mask[1, 3:] = True  # left padding
    x[~mask] = 50.0  # would win a max or move a mean if it leaked in
    return x, mask


@pytest.mark.parametrize("mode", ["mean", "max", "last", "concat"])
def test_matches_numpy_on_random_masked_inputs(mode):
    x, mask = random_masked(np.random.default_rng(0))
    got = helpers.to_numpy(pool(mode)(x, mask=mask))
    np.testing.assert_allclose(got, numpy_pool(mode, x, mask), atol=1e-6)
    unmasked = helpers.to_numpy(pool(mode)(x))
    all_real = np.ones(mask.shape, bool)
    np.testing.assert_allclose(
        unmasked, numpy_pool(mode, x, all_real), atol=1e-6
    )


@pytest.mark.grid(stride=2, core_only=True)
@pytest.mark.parametrize("mode", MODES)
def test_padded_batch_equals_each_example_alone(mode):
    lengths = [5, 2, 3, 1]
    x, mask = helpers.padded_batch(np.random.default_rng(1), lengths, 4)
    x[~mask] = -7.0  # padding that is not zero
    layer = pool(mode)
    padded = helpers.to_numpy(layer(x, mask=mask))
    assert padded.shape == (4, 12 if mode == "concat" else 4)
    assert layer.compute_output_shape(x.shape) == padded.shape
    for row, length in enumerate(lengths):
        alone = helpers.to_numpy(layer(x[row : row + 1, :length]))
        np.testing.assert_allclose(padded[row], alone[0], atol=1e-5)


def test_max_ignores_padding_when_all_real_values_are_very_negative():
    x = np.full((2, 4, 3), -1e6, "float32")
    x[:, 1] = -2e6
    x[:, 3] = 0.0  # padding, larger than every real value
    mask = np.array([[True, True, True, False], [True, True, False, False]])
    got = helpers.to_numpy(pool("max")(x, mask=mask))
    np.testing.assert_array_equal(got, np.full((2, 3), -1e6, "float32"))


def test_last_reads_the_last_true_position_of_the_mask():
    x = np.arange(2 * 5 * 2, dtype="float32").reshape(2, 5, 2)
    left = np.array([[False, False, True, True, True]] * 2)
    np.testing.assert_array_equal(
        helpers.to_numpy(pool("last")(x, mask=left)), x[:, 4]
    )
    holes = np.array(
        [[True, False, True, True, False], [True, True, False, False, False]]
    )
    got = helpers.to_numpy(pool("last")(x, mask=holes))
    np.testing.assert_array_equal(got, np.stack([x[0, 3], x[1, 1]]))


def test_attention_weights_are_a_softmax_over_real_steps_only():
    x, mask = random_masked(np.random.default_rng(2))
    layer = pool("attention", return_attention_scores=True)
    pooled, weights = layer(x, mask=mask)
    pooled, weights = helpers.to_numpy(pooled), helpers.to_numpy(weights)
    assert weights.shape == mask.shape
    np.testing.assert_array_equal(weights[~mask], 0.0)
    assert (weights[mask] > 0).all()
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(
        pooled, np.einsum("bt,btf->bf", weights, x * mask[..., None]), atol=1e-5
    )
    # The weights are the additive score's softmax, v^T tanh(W h + b).
    kernel, bias, context = (helpers.to_numpy(w) for w in layer.weights)
    scores = (np.tanh(x @ kernel + bias) @ context)[..., 0]
    expected = np.where(mask, np.exp(scores), 0.0)
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(weights, expected, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_all_padded_rows_give_finite_zeros(mode):
    x = np.random.default_rng(3).normal(size=(3, 4, 2)).astype("float32")
    x[1] = np.inf  # even non-finite padding stays out
    mask = np.ones((3, 4), bool)
    mask[1] = False
    got = helpers.to_numpy(pool(mode)(x, mask=mask))
    assert np.isfinite(got).all()
    np.testing.assert_array_equal(got[1], 0.0)
    assert not np.allclose(got[0], 0.0)


def test_all_padded_row_trains_without_nan():
    inputs = keras.Input((None, 3))
    masked = keras.layers.Masking(0.0)(inputs)
    hidden = keras.layers.Dense(3, activation="tanh")(masked)
    pooled = [pool(mode)(hidden) for mode in MODES]
    outputs = keras.layers.Dense(1)(keras.layers.Concatenate()(pooled))
    model = keras.Model(inputs, outputs)
    x = np.random.default_rng(4).normal(size=(3, 4, 3)).astype("float32")
    x[1] = 0.0  # every step masked
    x[2, 2:] = 0.0
    helpers.train_step(model, x)
    for weight in model.trainable_weights:
        assert np.isfinite(helpers.to_numpy(weight)).all(), weight.path


def test_after_embedding_and_lstm_trains_and_reloads(tmp_path):
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(10, 4, mask_zero=True)(ids)
    x = keras.layers.LSTM(5, return_sequences=True)(x)
    # One model pools with every mode; the mask reaches each implicitly.
    pooled = [pool(mode, name=mode)(x) for mode in MODES]
    assert [getattr(p, "_keras_mask", None) for p in pooled] == [None] * 5
    features = keras.layers.Concatenate()(pooled)
    model = keras.Model(ids, keras.layers.Dense(2)(features))
    encoder = keras.Model(ids, features)
    tokens = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 0, 0], [5, 3, 0, 0, 0]])
    tokens = tokens.astype("int32")
    padded = helpers.to_numpy(encoder(tokens))
    for row, length in [(1, 3), (2, 2)]:
        alone = helpers.to_numpy(encoder(tokens[row : row + 1, :length]))
        np.testing.assert_allclose(padded[row], alone[0], atol=1e-5)
    # Every weight moves in one SGD step, the attention scorer's included.
    assert model.get_layer("attention").trainable_weights
    assert helpers.missing_gradients(model, tokens) == []
    helpers.check_saves_and_reloads(model, tokens, tmp_path, atol=1e-5)


def test_attention_scores_output_and_reload(tmp_path):
    inputs = keras.Input((None, 3))
    masked = keras.layers.Masking(0.0)(inputs)
    pooled, weights = pool("attention", return_attention_scores=True)(masked)
    assert pooled.shape == (None, 3)
    assert weights.shape == (None, None)
    model = keras.Model(inputs, [pooled, weights])
    x, _ = helpers.padded_batch(np.random.default_rng(5), [4, 2], 3)
    helpers.check_saves_and_reloads(model, x, tmp_path)


def test_mixed_float16_attention_matches_float32():
    x, mask = random_masked(np.random.default_rng(6))
    full = pool("attention", return_attention_scores=True)
    half = pool(
        "attention", return_attention_scores=True, dtype="mixed_float16"
    )
    full.build(x.shape)
    half.build(x.shape)
    half.set_weights(full.get_weights())
    (p32, w32), (p16, w16) = full(x, mask=mask), half(x, mask=mask)
    assert keras.backend.standardize_dtype(p16.dtype) == "float16"
    p16, w16 = helpers.to_numpy(p16), helpers.to_numpy(w16)
    assert np.isfinite(p16).all()
    np.testing.assert_array_equal(w16[~mask], 0.0)
    np.testing.assert_allclose(w16.sum(axis=1), 1.0, atol=3e-3)
    np.testing.assert_allclose(w16, helpers.to_numpy(w32), atol=3e-3)
    np.testing.assert_allclose(p16, helpers.to_numpy(p32), atol=3e-2)


def test_compute_mask_and_output_shape():
    layer = pool("mean")
    assert layer.compute_mask(np.zeros((1, 2, 3)), np.ones((1, 2))) is None
    assert layer.compute_output_shape((None, 7, 3)) == (None, 3)
    scores = pool("attention", return_attention_scores=True)
    shapes = scores.compute_output_shape((None, 7, 3))
    assert shapes == ((None, 3), (None, 7))


@pytest.mark.parametrize("mode", MODES)
def test_config_round_trip(mode):
    layer = zoo.SequencePooling(mode, attention_units=16)
    rebuilt = helpers.check_config_round_trip(layer)
    assert rebuilt.mode == mode
    assert rebuilt.attention_units == 16
    assert rebuilt.return_attention_scores is False
    scores = zoo.SequencePooling("attention", return_attention_scores=True)
    assert helpers.check_config_round_trip(scores).return_attention_scores


def test_default_is_mean_with_128_attention_units():
    layer = zoo.SequencePooling()
    assert (layer.mode, layer.attention_units) == ("mean", 128)
    attention = zoo.SequencePooling("attention")
    attention.build((None, None, 6))
    assert attention.kernel.shape == (6, 128)
    assert attention.context.shape == (128, 1)
    assert pool("mean")(np.zeros((1, 2, 3), "float32")).shape == (1, 3)
    assert pool("mean").weights == []


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="mode.*'mean', 'max', 'last'.*sum"):
        zoo.SequencePooling("sum")
    for units in (0, -3):
        with pytest.raises(ValueError, match="attention_units"):
            zoo.SequencePooling("attention", attention_units=units)
    with pytest.raises(TypeError, match="attention_units"):
        zoo.SequencePooling("attention", attention_units=2.5)
    with pytest.raises(TypeError, match="return_attention_scores"):
        zoo.SequencePooling("attention", return_attention_scores="yes")
    with pytest.raises(ValueError, match="return_attention_scores.*'max'"):
        zoo.SequencePooling("max", return_attention_scores=True)
    with pytest.raises(ValueError, match="rank 3"):
        zoo.SequencePooling("mean")(np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match="feature size"):
        zoo.SequencePooling("attention").build((None, 4, None))
