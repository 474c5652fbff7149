"""`zoo.inference_function`: the model's forward pass, compiled for the
backend, gives `model(x, training=False)`'s outputs and follows later
weight changes."""

import keras
import numpy as np
import pytest

import zoo
from tests import helpers


def _tagger():
    backbone = zoo.stacked_lstm(
        2, 8, vocabulary_size=20, embedding_dim=4, dropout=0.3, name="b"
    )
    return zoo.heads.sequence_tagger(backbone, 5)


def test_outputs_equal_the_models_at_inference():
    model = _tagger()
    ids = np.array([[3, 4, 5, 0], [7, 0, 0, 0]], "int32")
    predict = zoo.inference_function(model)
    got = predict(ids)
    assert isinstance(got, np.ndarray)
    want = helpers.to_numpy(model(ids, training=False))
    np.testing.assert_allclose(got, want, atol=1e-6)
    # Another batch size and length, and the same call again.
    longer = np.array([[1, 2, 3, 4, 5, 6]] * 3, "int32")
    np.testing.assert_allclose(
        predict(longer),
        helpers.to_numpy(model(longer, training=False)),
        atol=1e-6,
    )
    np.testing.assert_allclose(predict(ids), got, atol=1e-6)


def test_weights_changed_later_are_used():
    model = _tagger()
    ids = np.array([[3, 4, 5]], "int32")
    predict = zoo.inference_function(model)
    before = predict(ids)
    for variable in model.trainable_variables:
        variable.assign(variable * 0.5)
    after = predict(ids)
    assert not np.allclose(before, after)
    np.testing.assert_allclose(
        after, helpers.to_numpy(model(ids, training=False)), atol=1e-6
    )


def test_a_model_with_two_inputs_and_backend_tensors():
    backbone = zoo.stacked_rnn(
        "gru", 1, 6, vocabulary_size=12, char_vocabulary_size=9, name="c"
    )
    model = zoo.heads.sequence_classifier(backbone, 3, pooling="mean")
    words = np.array([[2, 3, 0]], "int32")
    chars = np.array([[[1, 2, 0], [3, 0, 0], [0, 0, 0]]], "int32")
    predict = zoo.inference_function(model, numpy=False)
    got = predict([words, chars])
    assert not isinstance(got, np.ndarray) or keras.backend.backend() == "numpy"
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(got),
        helpers.to_numpy(model([words, chars], training=False)),
        atol=1e-6,
    )


@pytest.mark.skipif(
    keras.backend.backend() != "tensorflow", reason="XLA is TensorFlow's"
)
def test_xla_on_tensorflow():
    model = _tagger()
    ids = np.array([[3, 4, 5]], "int32")
    got = zoo.inference_function(model, jit_compile=True)(ids)
    np.testing.assert_allclose(
        got, helpers.to_numpy(model(ids, training=False)), atol=1e-5
    )


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match=r"`model` must be a keras.Model"):
        zoo.inference_function(zoo.layers.StackedRNN())
    with pytest.raises(ValueError, match=r"`jit_compile` must be True or"):
        zoo.inference_function(_tagger(), jit_compile="yes")
