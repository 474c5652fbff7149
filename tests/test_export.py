"""A trained tagger or classifier leaves Python: `model.export` to a
TensorFlow SavedModel (reloaded with `tf.saved_model.load`) and to ONNX
(run with ONNX Runtime) gives the model's own outputs, at any batch size
and length."""

import keras
import numpy as np
import pytest

import zoo

pytestmark = pytest.mark.tf_only


def _tagger():
    backbone = zoo.stacked_lstm(
        2,
        8,
        vocabulary_size=30,
        char_vocabulary_size=12,
        bidirectional=True,
        residual=True,
        name="b",
    )
    return zoo.heads.sequence_tagger(backbone, 5, head="crf")


def _classifier():
    backbone = zoo.stacked_gru(2, 8, vocabulary_size=30, name="c")
    return zoo.heads.sequence_classifier(backbone, 3, pooling="attention")


def _batches(model):
    """Two batches of other sizes and lengths, right-padded with 0."""
    rng = np.random.default_rng(0)
    batches = []
    for rows, steps in ((2, 4), (3, 7)):
        ids = rng.integers(1, 30, (rows, steps)).astype("int32")
        ids[0, steps // 2 :] = 0
        if len(model.inputs) == 2:
            chars = rng.integers(0, 12, (rows, steps, 5)).astype("int32")
            batches.append([ids, chars])
        else:
            batches.append([ids])
    return batches


MODELS = {"crf_tagger_with_characters": _tagger, "classifier": _classifier}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_saved_model_gives_the_models_outputs(name, tmp_path):
    import tensorflow as tf

    model = MODELS[name]()
    path = str(tmp_path / "saved")
    model.export(path, format="tf_saved_model", verbose=False)
    loaded = tf.saved_model.load(path)  # keep it: its variables live here
    for batch in _batches(model):
        want = keras.ops.convert_to_numpy(model(batch, training=False))
        inputs = [tf.constant(x) for x in batch]
        got = loaded.serve(inputs if len(inputs) > 1 else inputs[0])
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_onnx_gives_the_models_outputs(name, tmp_path):
    import onnxruntime as runtime  # the `export` extra, which make installs

    model = MODELS[name]()
    batches = _batches(model)
    model(batches[0])  # Keras exports to ONNX only a model called once
    path = str(tmp_path / "model.onnx")
    model.export(path, format="onnx", verbose=False)
    session = runtime.InferenceSession(path)
    names = [i.name for i in session.get_inputs()]
    for batch in batches:
        want = keras.ops.convert_to_numpy(model(batch, training=False))
        (got,) = session.run(None, dict(zip(names, batch)))
        np.testing.assert_allclose(got, want, atol=1e-5)
