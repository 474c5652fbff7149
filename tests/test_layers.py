"""The wrappers and regularisers, each on its own."""

import json
import math

import keras
import numpy as np
import pytest

import zoo
from tests import helpers

WRAPPERS = [zoo.layers.ResidualWrapper, zoo.layers.HighwayWrapper]


# --- ResidualWrapper / HighwayWrapper -------------------------------------


@pytest.mark.grid(stride=2, core_only=True)
@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("merge_mode", ["concat", "sum"])
def test_wrapper_inside_bidirectional_round_trips(
    wrapper, merge_mode, tmp_path
):
    inputs = keras.Input((None, 4))
    bi = keras.layers.Bidirectional(
        wrapper(keras.layers.GRU(4, return_sequences=True)),
        merge_mode=merge_mode,
    )
    model = keras.Model(inputs, bi(inputs))
    assert isinstance(bi.backward_layer, wrapper)
    assert bi.backward_layer.go_backwards
    assert not bi.forward_layer.go_backwards
    x, mask = helpers.padded_batch(np.random.default_rng(1), [3, 2], 4)
    padded = helpers.to_numpy(bi(x, mask=mask))
    alone = helpers.to_numpy(bi(x[1:, :2]))
    np.testing.assert_allclose(padded[1, :2], alone[0], atol=1e-5)
    helpers.train_step(model, x)
    helpers.check_config_round_trip(bi)
    helpers.check_saves_and_reloads(model, x, tmp_path)


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("padding", ["right", "left"])
def test_wrapper_in_bidirectional_last_output_with_padding(wrapper, padding):
    rng = np.random.default_rng(9)
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    mask = np.ones((2, 5), bool)
    real = slice(0, 3) if padding == "right" else slice(2, 5)
    mask[1] = False
    mask[1, real] = True
    bi = keras.layers.Bidirectional(wrapper(keras.layers.GRU(3)))
    padded = helpers.to_numpy(bi(x, mask=mask))
    alone = helpers.to_numpy(bi(x[1:, real]))
    np.testing.assert_allclose(padded[1], alone[0], atol=1e-5)


def test_residual_inside_bidirectional_aligns_the_backward_direction():
    x = np.random.default_rng(2).normal(size=(2, 5, 3)).astype("float32")
    bi = keras.layers.Bidirectional(
        zoo.layers.ResidualWrapper(keras.layers.LSTM(3, return_sequences=True)),
        merge_mode="concat",
    )
    got = helpers.to_numpy(bi(x))
    forward = helpers.to_numpy(bi.forward_layer.layer(x)) + x
    backward = np.flip(helpers.to_numpy(bi.backward_layer.layer(x)), 1) + x
    np.testing.assert_allclose(got[..., :3], forward, atol=1e-6)
    np.testing.assert_allclose(got[..., 3:], backward, atol=1e-6)


def test_residual_wrapper_last_output_adds_last_real_input():
    x, mask = helpers.padded_batch(np.random.default_rng(3), [4, 2], 3)
    layer = zoo.layers.ResidualWrapper(keras.layers.GRU(3))
    got = helpers.to_numpy(layer(x, mask=mask))
    plain = helpers.to_numpy(layer.layer(x, mask=mask))
    np.testing.assert_allclose(got[0], plain[0] + x[0, 3], atol=1e-6)
    np.testing.assert_allclose(got[1], plain[1] + x[1, 1], atol=1e-6)


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_width_mismatch_without_projection_raises(wrapper):
    layer = wrapper(
        keras.layers.LSTM(5, return_sequences=True), projection=None
    )
    with pytest.raises(ValueError, match="width 3.*width 5"):
        layer(np.zeros((1, 2, 3), "float32"))


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_width_mismatch_gets_a_learned_projection(wrapper):
    layer = wrapper(keras.layers.LSTM(5, return_sequences=True))
    assert layer(np.zeros((1, 2, 3), "float32")).shape == (1, 2, 5)
    assert layer.projection_layer is not None
    assert layer.projection_layer.kernel.shape == (3, 5)


def test_bad_projection_value_is_rejected():
    with pytest.raises(ValueError, match="projection"):
        zoo.layers.ResidualWrapper(keras.layers.GRU(2), projection="linear")


def test_highway_with_very_negative_gate_returns_its_input():
    x = np.random.default_rng(4).normal(size=(2, 5, 4)).astype("float32")
    layer = zoo.layers.HighwayWrapper(
        keras.layers.LSTM(4, return_sequences=True), gate_bias=-20.0
    )
    np.testing.assert_allclose(helpers.to_numpy(layer(x)), x, atol=1e-6)


def test_residual_wrapper_passes_states_through():
    x = np.ones((2, 3, 4), "float32")
    layer = zoo.layers.ResidualWrapper(
        keras.layers.LSTM(4, return_sequences=True, return_state=True)
    )
    output, h, c = layer(x)
    np.testing.assert_allclose(
        helpers.to_numpy(output[:, -1]), helpers.to_numpy(h) + 1.0, atol=1e-6
    )
    assert c.shape == (2, 4)


# --- VariationalDropout ---------------------------------------------------


def test_variational_dropout_mask_is_identical_across_timesteps():
    layer = zoo.layers.VariationalDropout(0.5, seed=3)
    x = np.ones((4, 7, 16), "float32")
    y = helpers.to_numpy(layer(x, training=True))
    dropped = y == 0
    assert dropped.any() and not dropped.all()
    for t in range(1, 7):
        np.testing.assert_array_equal(dropped[:, t], dropped[:, 0])
    np.testing.assert_allclose(y[~dropped], 2.0)  # scaled by 1 / (1 - rate)


def test_variational_dropout_is_identity_at_inference():
    layer = zoo.layers.VariationalDropout(0.5)
    x = np.random.default_rng(5).normal(size=(2, 3, 4)).astype("float32")
    np.testing.assert_array_equal(helpers.to_numpy(layer(x)), x)
    np.testing.assert_array_equal(helpers.to_numpy(layer(x, training=False)), x)


def test_variational_dropout_config_and_errors():
    layer = zoo.layers.VariationalDropout(0.25, seed=1)
    rebuilt = helpers.check_config_round_trip(layer)
    assert rebuilt.noise_shape == (None, 1, None)
    assert "noise_shape" not in layer.get_config()
    with pytest.raises(ValueError, match="rate"):
        zoo.layers.VariationalDropout(1.0)
    with pytest.raises(ValueError, match="rank 3"):
        zoo.layers.VariationalDropout(0.1)(np.zeros((2, 3), "float32"))


# --- EmbeddingDropout -----------------------------------------------------


def test_embedding_dropout_drops_whole_word_types():
    layer = zoo.layers.EmbeddingDropout(
        keras.layers.Embedding(6, 8, mask_zero=True), rate=0.5, seed=0
    )
    ids = np.array([[1, 2, 3, 1, 2, 3, 4, 5]] * 4, "int32")
    y = helpers.to_numpy(layer(ids, training=True))
    plain = helpers.to_numpy(layer.layer(ids))
    zeroed = np.all(y == 0, axis=-1)
    assert zeroed.any() and not zeroed.all()
    for token in range(1, 6):
        where = ids == token
        assert zeroed[where].all() or not zeroed[where].any()
    kept = ~zeroed
    np.testing.assert_allclose(y[kept], plain[kept] * 2.0, rtol=1e-6)


def test_embedding_dropout_is_the_embedding_at_inference():
    layer = zoo.layers.EmbeddingDropout(
        keras.layers.Embedding(6, 4, mask_zero=True), rate=0.3
    )
    ids = np.array([[1, 2, 0], [3, 0, 0]], "int32")
    np.testing.assert_array_equal(
        helpers.to_numpy(layer(ids)), helpers.to_numpy(layer.layer(ids))
    )


def test_embedding_dropout_rejects_other_layers():
    with pytest.raises(TypeError, match="Embedding"):
        zoo.layers.EmbeddingDropout(keras.layers.Dense(3), rate=0.1)


# --- Weight drop ----------------------------------------------------------


@pytest.mark.parametrize(
    "cls,plain",
    [
        (zoo.layers.WeightDropLSTM, keras.layers.LSTM),
        (zoo.layers.WeightDropGRU, keras.layers.GRU),
        (zoo.layers.WeightDropSimpleRNN, keras.layers.SimpleRNN),
    ],
)
def test_weight_drop_is_plain_at_inference_and_random_in_training(cls, plain):
    x = np.random.default_rng(6).normal(size=(2, 5, 3)).astype("float32")
    layer = cls(4, weight_drop=0.5, weight_drop_seed=1, return_sequences=True)
    reference = plain(4, return_sequences=True)
    layer.build(x.shape)
    reference.build(x.shape)
    reference.set_weights(layer.get_weights())
    kernel = helpers.to_numpy(layer.cell.recurrent_kernel).copy()
    np.testing.assert_allclose(
        helpers.to_numpy(layer(x)), helpers.to_numpy(reference(x)), atol=1e-6
    )
    first = helpers.to_numpy(layer(x, training=True))
    second = helpers.to_numpy(layer(x, training=True))
    assert not np.allclose(first, second)
    assert not np.allclose(first, helpers.to_numpy(reference(x)))
    # The swap is undone: the variable, not a dropped copy, is back.
    assert isinstance(layer.cell.recurrent_kernel, keras.Variable)
    np.testing.assert_array_equal(
        helpers.to_numpy(layer.cell.recurrent_kernel), kernel
    )


def test_weight_drop_mask_rate_and_scale():
    layer = zoo.layers.WeightDropLSTM(64, weight_drop=0.3, weight_drop_seed=2)
    layer.build((None, 3, 8))
    kernel = layer.cell.recurrent_kernel
    dropped = helpers.to_numpy(layer._drop_kernel(kernel))
    original = helpers.to_numpy(kernel)
    zero = dropped == 0
    assert 0.25 < zero.mean() < 0.35
    np.testing.assert_allclose(dropped[~zero], original[~zero] / 0.7, rtol=1e-5)


def test_weight_drop_in_stack_trains_and_reloads(tmp_path):
    model = zoo.stacked_lstm(
        2, 4, input_dim=3, weight_drop=0.4, bidirectional=[True, False]
    )
    x = np.random.default_rng(7).normal(size=(2, 5, 3)).astype("float32")
    assert helpers.missing_gradients(model, x) == []
    reloaded = helpers.check_saves_and_reloads(model, x, tmp_path)
    stack = reloaded.get_layer("stacked_rnn_stack")
    assert stack.recurrent_layers[1].weight_drop == 0.4


# --- ScalarMix ------------------------------------------------------------


def test_scalar_mix_starts_as_the_mean_and_learns():
    rng = np.random.default_rng(8)
    layers = [rng.normal(size=(2, 3, 4)).astype("float32") for _ in range(3)]
    mix = zoo.layers.ScalarMix()
    np.testing.assert_allclose(
        helpers.to_numpy(mix(layers)), np.mean(layers, axis=0), atol=1e-6
    )
    weighted = zoo.layers.ScalarMix(initial_scalar_parameters=[0.0, 0.0, 50.0])
    np.testing.assert_allclose(
        helpers.to_numpy(weighted(layers)), layers[2], atol=1e-5
    )
    config = json.loads(json.dumps(weighted.get_config()))
    assert config["initial_scalar_parameters"] == [0.0, 0.0, 50.0]


def test_scalar_mix_rejects_bad_inputs():
    with pytest.raises(ValueError, match="identical shape"):
        zoo.layers.ScalarMix()(
            [np.zeros((1, 2, 3), "float32"), np.zeros((1, 2, 4), "float32")]
        )
    with pytest.raises(ValueError, match="initial_scalar_parameters"):
        zoo.layers.ScalarMix(initial_scalar_parameters=[1.0])(
            [np.zeros((1, 2, 3), "float32")] * 2
        )


def test_scalar_mix_keeps_keras_trainable_weights():
    mix = zoo.layers.ScalarMix(trainable_scalars=False)
    mix.build([(None, 3, 4)] * 2)
    # Keras's own property is untouched: gamma is the one trainable weight.
    assert [w.name for w in mix.trainable_weights] == ["gamma"]
    config = mix.get_config()
    assert config["trainable_scalars"] is False
    assert "trainable_weights" not in config
    assert zoo.layers.ScalarMix.from_config(config).trainable_scalars is False
    with pytest.raises(ValueError, match=r"`trainable_scalars` must be"):
        zoo.layers.ScalarMix(trainable_scalars="no")


def test_the_slanted_triangular_rate_is_ulmfits():
    schedule = zoo.schedules.SlantedTriangular(0.032, total_steps=100)
    rates = [float(schedule(step)) for step in range(0, 121)]
    # Howard & Ruder (2018), eq. 3: cut = 10 steps; max/32 at 0 and at
    # the end, max at the cut, linear in between.
    assert rates[0] == pytest.approx(0.001)
    assert rates[10] == pytest.approx(0.032)
    assert rates[5] == pytest.approx(0.032 * (1 + 0.5 * 31) / 32)
    assert rates[55] == pytest.approx(0.032 * (1 + 0.5 * 31) / 32)
    assert rates[100] == rates[120] == pytest.approx(0.001)
    assert all(a < b for a, b in zip(rates[:10], rates[1:11]))
    assert all(a > b for a, b in zip(rates[10:100], rates[11:101]))
    again = keras.saving.deserialize_keras_object(
        keras.saving.serialize_keras_object(schedule), safe_mode=True
    )
    assert float(again(37)) == pytest.approx(rates[37])
    for kwargs, message in (
        ({"max_learning_rate": 0.0}, "`max_learning_rate` must be"),
        ({"total_steps": 0}, "`total_steps` must be"),
        ({"cut_fraction": 1.0}, "`cut_fraction` must be"),
        ({"ratio": 0.5}, "`ratio` must be"),
    ):
        args = {"max_learning_rate": 0.01, "total_steps": 10, **kwargs}
        with pytest.raises(ValueError, match=message):
            zoo.schedules.SlantedTriangular(**args)


def test_tfidf_is_sublinear_smooth_idf_l2_normalised():
    """`TfIdf` by hand: texts [a b a] and [b c] (ids 2, 3, 4; 0 padding,
    1 [UNK] left out): df a=1, b=2, c=1 of n=2, idf log(3/(1+df)) + 1,
    tf 1 + log(count), each row of unit length (scikit-learn's
    `TfidfVectorizer(sublinear_tf=True)`, which gave the same to 5e-8 on
    every backend when the layer was written)."""
    bag = zoo.layers.TfIdf(5).adapt([[2, 3, 2], [3, 4]])
    idf = [math.log(3 / 2) + 1, 1.0, math.log(3 / 2) + 1]
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(bag.idf)[2:], idf, rtol=1e-6
    )
    out = keras.ops.convert_to_numpy(
        bag(np.array([[2, 3, 2, 1, 0], [3, 4, 0, 0, 0]]))
    )
    first = np.array([0, 0, (1 + math.log(2)) * idf[0], idf[1], 0])
    second = np.array([0, 0, 0, idf[1], idf[2]])
    np.testing.assert_allclose(
        out, [first / np.linalg.norm(first), second / np.linalg.norm(second)],
        rtol=1e-5,
    )  # fmt: skip


def test_tfidf_counts_word_pairs_in_their_buckets():
    """With `bigram_buckets`, each pair of real neighbours (not across
    padding or [UNK]) counts once in bucket `(a * 100003 + b) % buckets`
    after the words' columns."""
    bag = zoo.layers.TfIdf(5, bigram_buckets=7, sublinear=False)
    out = keras.ops.convert_to_numpy(bag(np.array([[2, 3, 1, 4, 0]])))[0]
    pair = 5 + (2 * 100003 + 3) % 7
    expected = np.zeros(12)
    expected[[2, 3, 4]] = 1
    expected[pair] += 1
    np.testing.assert_allclose(out, expected / np.linalg.norm(expected))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(vocabulary_size=0), "vocabulary_size"),
        (dict(vocabulary_size=200_000), "vocabulary_size"),
        (dict(vocabulary_size=5, bigram_buckets=-1), "bigram_buckets"),
        (dict(vocabulary_size=5, sublinear="yes"), "sublinear"),
    ],
)
def test_tfidf_bad_arguments_name_themselves(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        zoo.layers.TfIdf(**kwargs)


def test_tfidf_adapt_refuses_ids_out_of_range_and_no_texts():
    bag = zoo.layers.TfIdf(5)
    with pytest.raises(
        ValueError, match=r"ids must be in \[0, 5\).*received 7 in text 0"
    ):
        bag.adapt([[2, 7]])
    with pytest.raises(ValueError, match="at least one text"):
        bag.adapt([])
