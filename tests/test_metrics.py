"""`zoo.metrics.TokenMean`: the mean per weighted step over batches of
any width, where Keras's row-wise mean weighs short batches more."""

import keras
import numpy as np
import pytest

import zoo


def _batches():
    """Two batches of per-step values, padded to widths 4 and 12, with
    their masks: the short one has low values, the long one high."""
    rng = np.random.default_rng(0)
    out = []
    for width, lengths, scale in ((4, (3, 2), 1.0), (12, (11, 7), 5.0)):
        values = scale * rng.uniform(size=(len(lengths), width))
        mask = np.zeros_like(values)
        for row, n in enumerate(lengths):
            mask[row, :n] = 1.0
        out.append((values.astype("float32"), mask.astype("float32")))
    return out


@keras.saving.register_keras_serializable(package="test_metrics")
def _identity(y_true, y_pred):
    return y_pred


def _exact(batches):
    total = sum(float((v * m).sum()) for v, m in batches)
    return total / sum(float(m.sum()) for _, m in batches)


def test_the_mean_per_weighted_step_over_batches_of_any_width():
    batches = _batches()
    metric = zoo.metrics.TokenMean(_identity, name="value")
    keras_mean = keras.metrics.MeanMetricWrapper(_identity, name="keras")
    for values, mask in batches:
        metric.update_state(np.zeros_like(values), values, mask)
        keras_mean.update_state(np.zeros_like(values), values, mask)
    exact = _exact(batches)
    np.testing.assert_allclose(float(metric.result()), exact, rtol=1e-6)
    # What it is for: Keras's own mean weighs the width-4 batch's steps
    # three times as much as the width-12 batch's, and is off here.
    assert abs(float(keras_mean.result()) - exact) > 0.1
    metric.reset_state()
    assert float(metric.result()) == 0.0


def test_row_weights_and_no_weights():
    values = np.array([[1.0, 2.0], [3.0, 5.0]], "float32")
    metric = zoo.metrics.TokenMean(_identity)
    metric.update_state(None, values, np.array([1.0, 0.0], "float32"))
    np.testing.assert_allclose(float(metric.result()), 1.5)
    unweighted = zoo.metrics.TokenMean(_identity)
    unweighted.update_state(None, values)
    np.testing.assert_allclose(float(unweighted.result()), 2.75)


def test_in_evaluate_of_a_model_it_is_the_mean_per_token():
    # A model that returns its input: evaluate's accuracy per token over
    # two batches of different widths, the padding weighted 0.
    rng = np.random.default_rng(1)
    inputs = keras.Input((None, 3))
    model = keras.Model(inputs, keras.layers.Activation("linear")(inputs))
    model.compile(
        loss="sparse_categorical_crossentropy",
        weighted_metrics=[
            zoo.metrics.TokenMean(
                keras.metrics.sparse_categorical_accuracy, name="accuracy"
            )
        ],
    )
    right = wrong = 0
    batches = []
    for width, lengths in ((4, (4, 1)), (16, (16, 9, 12))):
        probs = rng.dirichlet(np.ones(3), size=(len(lengths), width))
        labels = rng.integers(0, 3, size=(len(lengths), width))
        mask = np.zeros((len(lengths), width), "float32")
        for row, n in enumerate(lengths):
            mask[row, :n] = 1
        hit = (probs.argmax(-1) == labels) * mask
        right += hit.sum()
        wrong += mask.sum() - hit.sum()
        batches.append((probs.astype("float32"), labels, mask))

    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return len(batches)

        def __getitem__(self, i):
            return batches[i]

    scores = model.evaluate(Batches(), verbose=0, return_dict=True)
    np.testing.assert_allclose(
        scores["accuracy"], right / (right + wrong), rtol=1e-6
    )


def test_it_round_trips_through_its_config():
    metric = zoo.metrics.TokenMean(_identity, name="value")
    config = keras.saving.serialize_keras_object(metric)
    again = keras.saving.deserialize_keras_object(config)
    assert isinstance(again, zoo.metrics.TokenMean)
    assert again.name == "value" and again.fn is _identity


def test_a_function_is_required():
    with pytest.raises(TypeError, match="`fn` must be a function"):
        zoo.metrics.TokenMean("accuracy")


def test_the_language_models_metrics_are_per_word():
    names = [m.name for m in zoo.language_model.metrics()]
    assert names == ["forward_nll", "backward_nll", "nll"]
    assert all(
        isinstance(m, zoo.metrics.TokenMean)
        for m in zoo.language_model.metrics()
    )
