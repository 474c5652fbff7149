"""The linear-chain CRF: brute-force checks, masks, saving and training."""

import itertools

import keras
import numpy as np
import pytest

from tests import helpers
from zoo.layers.crf import CRF
from zoo.layers.crf import CRFLoss
from zoo.validation import ArgumentTypeError

NUM_TAGS = 3


def _random_crf(rng, num_tags=NUM_TAGS):
    crf = CRF(num_tags)
    crf.build((None, None, num_tags))
    for weight in crf.weights:
        weight.assign(rng.normal(size=weight.shape).astype("float32"))
    return crf


def _weights(crf):
    return [
        helpers.to_numpy(w)
        for w in (crf.transitions, crf.start_transitions, crf.end_transitions)
    ]


def _score(crf, emissions, tags):
    """The score of one whole tag sequence, by its definition."""
    transitions, start, end = _weights(crf)
    total = start[tags[0]] + end[tags[-1]]
    total += sum(emissions[t, tag] for t, tag in enumerate(tags))
    total += sum(transitions[a, b] for a, b in zip(tags[:-1], tags[1:]))
    return total


def _all_sequences(num_tags, steps):
    return [
        np.array(s) for s in itertools.product(range(num_tags), repeat=steps)
    ]


def _log_partition(crf, emissions):
    scores = [
        _score(crf, emissions, s)
        for s in _all_sequences(crf.num_tags, len(emissions))
    ]
    return np.logaddexp.reduce(scores)


# --- Brute force ----------------------------------------------------------


@pytest.mark.parametrize("steps", [1, 2, 4])
def test_log_likelihood_matches_brute_force(steps):
    rng = np.random.default_rng(steps)
    crf = _random_crf(rng)
    emissions = rng.normal(size=(2, steps, NUM_TAGS)).astype("float32")
    tags = rng.integers(0, NUM_TAGS, size=(2, steps))
    got = helpers.to_numpy(crf.log_likelihood(emissions, tags))
    assert got.shape == (2,) and got.dtype == np.float32
    for row in range(2):
        expected = _score(crf, emissions[row], tags[row]) - _log_partition(
            crf, emissions[row]
        )
        np.testing.assert_allclose(got[row], expected, rtol=1e-5, atol=1e-5)
    nll = helpers.to_numpy(crf.negative_log_likelihood(emissions, tags))
    np.testing.assert_allclose(nll, -got, rtol=1e-6)


def test_probabilities_of_all_sequences_sum_to_one():
    rng = np.random.default_rng(5)
    crf = _random_crf(rng)
    steps = 4
    sequences = np.stack(_all_sequences(NUM_TAGS, steps))
    emissions = rng.normal(size=(1, steps, NUM_TAGS)).astype("float32")
    batch = np.repeat(emissions, len(sequences), axis=0)
    log_likelihood = helpers.to_numpy(crf.log_likelihood(batch, sequences))
    np.testing.assert_allclose(np.exp(log_likelihood).sum(), 1.0, rtol=1e-5)


@pytest.mark.parametrize("steps", [1, 3, 4])
def test_decode_matches_brute_force_argmax(steps):
    rng = np.random.default_rng(10 + steps)
    crf = _random_crf(rng)
    emissions = rng.normal(size=(4, steps, NUM_TAGS)).astype("float32")
    got = helpers.to_numpy(crf.decode(emissions))
    assert got.shape == (4, steps) and got.dtype == np.int32
    for row in range(4):
        best = max(
            _all_sequences(NUM_TAGS, steps),
            key=lambda s: _score(crf, emissions[row], s),
        )
        np.testing.assert_array_equal(got[row], best)


# --- Masks ----------------------------------------------------------------


def test_padded_equals_unpadded():
    rng = np.random.default_rng(20)
    crf = _random_crf(rng)
    short = rng.normal(size=(1, 3, NUM_TAGS)).astype("float32")
    short_tags = rng.integers(0, NUM_TAGS, size=(1, 3))
    padded = np.concatenate(
        [short, rng.normal(size=(1, 2, NUM_TAGS)).astype("float32")], axis=1
    )
    padded_tags = np.concatenate([short_tags, [[2, 1]]], axis=1)
    mask = np.array([[True, True, True, False, False]])
    np.testing.assert_allclose(
        helpers.to_numpy(crf.log_likelihood(padded, padded_tags, mask)),
        helpers.to_numpy(crf.log_likelihood(short, short_tags)),
        rtol=1e-6,
    )
    decoded = helpers.to_numpy(crf.decode(padded, mask))
    np.testing.assert_array_equal(
        decoded[:, :3], helpers.to_numpy(crf.decode(short))
    )
    np.testing.assert_array_equal(decoded[:, 3:], 0)
    # The layer's call reads the Keras mask of its input too.
    tagged = helpers.to_numpy(crf(padded, mask=mask, decode=True))
    np.testing.assert_array_equal(tagged, decoded)


def test_masked_steps_anywhere_are_skipped():
    rng = np.random.default_rng(21)
    crf = _random_crf(rng)
    emissions = rng.normal(size=(1, 6, NUM_TAGS)).astype("float32")
    tags = rng.integers(0, NUM_TAGS, size=(1, 6))
    mask = np.array([[False, True, True, False, True, False]])
    kept = mask[0]
    np.testing.assert_allclose(
        helpers.to_numpy(crf.log_likelihood(emissions, tags, mask)),
        helpers.to_numpy(crf.log_likelihood(emissions[:, kept], tags[:, kept])),
        rtol=1e-6,
    )
    decoded = helpers.to_numpy(crf.decode(emissions, mask))
    np.testing.assert_array_equal(
        decoded[0, kept], helpers.to_numpy(crf.decode(emissions[:, kept]))[0]
    )
    np.testing.assert_array_equal(decoded[0, ~kept], 0)
    empty = np.zeros((1, 6), bool)
    assert helpers.to_numpy(crf.log_likelihood(emissions, tags, empty)) == 0
    np.testing.assert_array_equal(
        helpers.to_numpy(crf.decode(emissions, empty)), 0
    )


def test_loss_with_a_mask_is_the_nll_of_each_right_padded_sequence():
    rng = np.random.default_rng(22)
    crf = _random_crf(rng)
    x, mask = helpers.padded_batch(rng, [5, 3, 1], NUM_TAGS)
    tags = rng.integers(0, NUM_TAGS, size=mask.shape)
    nll = helpers.to_numpy(crf.negative_log_likelihood(x, tags, mask))
    steps = helpers.to_numpy(crf.loss.call(tags, x))
    np.testing.assert_allclose(
        (steps * mask).sum(axis=1), nll, rtol=1e-5, atol=1e-5
    )
    summed = CRFLoss(crf, reduction="sum")
    np.testing.assert_allclose(
        helpers.to_numpy(summed(tags, x, sample_weight=mask)),
        nll.sum(),
        rtol=1e-5,
    )


# --- Keras integration ----------------------------------------------------


def _toy_data(rng, rows=64, steps=8):
    """One token everywhere; tags alternate 1, 2, 1, ... from the start.

    Every position sees the same input, so a per-step softmax can do no
    better than half right; a CRF learns it from the start and transition
    scores alone. Token 0 is right padding (tag 0).
    """
    lengths = rng.integers(2, steps + 1, size=rows)
    tokens = np.zeros((rows, steps), "int32")
    tags = np.zeros((rows, steps), "int32")
    for row, length in enumerate(lengths):
        tokens[row, :length] = 1
        tags[row, :length] = [1 + t % 2 for t in range(length)]
    return tokens, tags


def _tagger(num_tags=NUM_TAGS, vocabulary=4):
    tokens = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(vocabulary, 4, mask_zero=True)(tokens)
    emissions = keras.layers.Dense(num_tags)(x)
    crf = CRF(num_tags, name="crf")
    scores = crf(emissions)
    model = keras.Model(tokens, scores)
    decoder = keras.Model(tokens, crf(emissions, decode=True))
    return model, decoder, crf


def test_fit_learns_a_pattern_only_transitions_can_explain():
    rng = np.random.default_rng(30)
    tokens, tags = _toy_data(rng)
    model, decoder, crf = _tagger()
    model.compile(keras.optimizers.Adam(0.1), loss=crf.loss)
    history = model.fit(tokens, tags, epochs=25, batch_size=16, verbose=0)
    losses = history.history["loss"]
    assert np.all(np.isfinite(losses))
    assert losses[-1] < 0.1 * losses[0]
    predicted = decoder.predict(tokens, verbose=0)
    assert predicted.dtype == np.int32
    np.testing.assert_array_equal(predicted, tags)


def test_compiled_loss_reads_the_keras_mask():
    # Embedding(mask_zero=True)'s mask reaches CRFLoss through y_pred: the
    # loss `evaluate` reports is the summed NLL of the unpadded sequences.
    rng = np.random.default_rng(31)
    tokens, tags = _toy_data(rng, rows=8)
    model, _, crf = _tagger()
    model.compile("adam", loss=CRFLoss(crf, reduction="sum"))
    reported = model.evaluate(tokens, tags, batch_size=8, verbose=0)
    nll = crf.negative_log_likelihood(model(tokens), tags, tokens != 0)
    np.testing.assert_allclose(reported, helpers.to_numpy(nll).sum(), rtol=1e-5)


@pytest.mark.skipif(
    keras.backend.backend() == "torch", reason="torch.compile is slow here"
)
def test_fit_with_jit_compile():
    rng = np.random.default_rng(32)
    tokens, tags = _toy_data(rng, rows=8)
    model, _, crf = _tagger()
    on_tf = keras.backend.backend() == "tensorflow"
    if on_tf:
        # TensorFlow cannot differentiate the scan under XLA: the layer
        # opts out, and Keras falls back to a plain graph.
        with pytest.warns(UserWarning, match="doesn't support `jit_compile"):
            model.compile("adam", loss=crf.loss, jit_compile=True)
    else:
        model.compile("adam", loss=crf.loss, jit_compile=True)
    assert model.jit_compile is not on_tf
    history = model.fit(tokens, tags, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_models_save_and_reload_with_safe_mode(tmp_path):
    rng = np.random.default_rng(40)
    tokens, tags = _toy_data(rng, rows=16)
    model, decoder, crf = _tagger()
    model.compile("adam", loss=crf.loss)
    model.fit(tokens, tags, epochs=1, verbose=0)
    helpers.check_saves_and_reloads(model, tokens, tmp_path)
    reloaded_decoder = helpers.check_saves_and_reloads(
        decoder, tokens, tmp_path
    )
    np.testing.assert_array_equal(
        reloaded_decoder.predict(tokens, verbose=0),
        decoder.predict(tokens, verbose=0),
    )

    path = tmp_path / "compiled.keras"
    model.save(path)
    reloaded = keras.saving.load_model(path, safe_mode=True)
    reloaded_crf = reloaded.get_layer("crf")
    scores = reloaded.predict(tokens, verbose=0)
    np.testing.assert_array_equal(
        helpers.to_numpy(reloaded_crf.decode(scores, tokens != 0)),
        decoder.predict(tokens, verbose=0),
    )
    # A saved loss cannot point at its layer: a clear error, then recompile.
    with pytest.raises(ValueError, match=r"get_layer\('crf'\)\.loss"):
        reloaded.evaluate(tokens, tags, verbose=0)
    reloaded.compile(optimizer=reloaded.optimizer, loss=reloaded_crf.loss)
    assert np.isfinite(reloaded.evaluate(tokens, tags, verbose=0))


def test_fit_trains_the_transitions_and_the_features():
    rng = np.random.default_rng(41)
    tokens, tags = _toy_data(rng, rows=8)
    model, _, crf = _tagger()
    before = {w.path: helpers.to_numpy(w).copy() for w in model.weights}
    model.compile(keras.optimizers.SGD(0.5), loss=crf.loss)
    model.fit(tokens, tags, epochs=1, verbose=0)
    unchanged = [
        w.path
        for w in model.weights
        if np.array_equal(helpers.to_numpy(w), before[w.path])
    ]
    assert unchanged == []


# --- Errors ---------------------------------------------------------------


@pytest.mark.parametrize(
    "num_tags, error", [(0, ValueError), (-2, ValueError), ("x", TypeError)]
)
def test_bad_num_tags(num_tags, error):
    with pytest.raises(error, match="`num_tags` must be an integer >= 1"):
        CRF(num_tags)


def test_bad_num_tags_type_is_a_value_error_too():
    with pytest.raises(ArgumentTypeError, match="of type str"):
        CRF("x")


def test_emissions_of_the_wrong_width():
    with pytest.raises(ValueError, match=r"num_tags=3.*Dense\(3\)"):
        CRF(3)(keras.Input((None, 5)))


def test_loss_needs_a_crf_layer():
    with pytest.raises(ValueError, match="`crf` must be a zoo CRF layer"):
        CRFLoss(keras.layers.Dense(3))


# --- Mixed precision ------------------------------------------------------


@pytest.fixture
def mixed_float16():
    keras.mixed_precision.set_global_policy("mixed_float16")
    yield
    keras.mixed_precision.set_global_policy("float32")


def test_scores_stay_float32_under_mixed_float16(mixed_float16):
    rng = np.random.default_rng(50)
    tokens, tags = _toy_data(rng, rows=8)
    model, decoder, crf = _tagger()
    emissions_layer = model.layers[-2]
    assert emissions_layer.compute_dtype == "float16"
    assert crf.compute_dtype == "float32"
    assert all(w.dtype == "float32" for w in crf.weights)
    scores = model(tokens)
    assert keras.backend.standardize_dtype(scores.dtype) == "float32"
    half = keras.ops.cast(scores, "float16")
    log_likelihood = crf.log_likelihood(half, tags, tokens != 0)
    assert keras.backend.standardize_dtype(log_likelihood.dtype) == "float32"
    assert np.all(np.isfinite(helpers.to_numpy(log_likelihood)))
    model.compile("adam", loss=crf.loss)
    history = model.fit(tokens, tags, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert helpers.to_numpy(decoder(tokens)).dtype == np.int32
