"""Shared test helpers (Keras's own are in the private `keras.src`)."""

import json

import keras
import numpy as np

import zoo
from zoo.walk import iter_layers


def padded_batch(rng, lengths, features, steps=None):
    """Random right-padded float sequences and their boolean mask."""
    steps = steps or max(lengths)
    x = rng.normal(size=(len(lengths), steps, features)).astype("float32")
    mask = np.zeros((len(lengths), steps), dtype=bool)
    for row, length in enumerate(lengths):
        mask[row, :length] = True
        x[row, length:] = 0.0
    return x, mask


def to_numpy(value):
    return np.asarray(keras.ops.convert_to_numpy(value))


def flat_numpy(outputs):
    return [to_numpy(t) for t in keras.tree.flatten(outputs)]


def find_lambda_layers(model):
    return [
        layer.name
        for layer in iter_layers(model)
        if isinstance(layer, keras.layers.Lambda)
    ]


def check_saves_and_reloads(model, inputs, tmp_path, atol=1e-6):
    """Saves to `.keras`, reloads with safe_mode=True, compares outputs."""
    assert find_lambda_layers(model) == []
    path = tmp_path / f"{model.name}.keras"
    model.save(path)
    reloaded = keras.saving.load_model(path, safe_mode=True)
    expected = flat_numpy(model(inputs, training=False))
    actual = flat_numpy(reloaded(inputs, training=False))
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        np.testing.assert_allclose(a, e, atol=atol)
    assert find_lambda_layers(reloaded) == []
    return reloaded


def check_config_round_trip(layer):
    """A JSON snapshot of the config rebuilds an equal config."""
    config = layer.get_config()
    snapshot = json.dumps(config)
    rebuilt = type(layer).from_config(json.loads(snapshot))
    assert json.dumps(config) == snapshot, "from_config mutated the config"
    assert json.loads(json.dumps(rebuilt.get_config())) == json.loads(snapshot)
    serialized = keras.saving.serialize_keras_object(layer)
    again = keras.saving.deserialize_keras_object(
        json.loads(json.dumps(serialized))
    )
    assert type(again) is type(layer)
    return rebuilt


def train_step(model, inputs, targets=None, optimizer="adam"):
    """One `fit` step on MSE against random (or given) targets."""
    outputs = model(inputs)
    if targets is None:
        targets = [
            np.random.default_rng(0).normal(size=o.shape).astype("float32")
            for o in flat_numpy(outputs)
        ]
        if len(targets) == 1:
            targets = targets[0]
    model.compile(optimizer=optimizer, loss="mse")
    history = model.fit(inputs, targets, epochs=1, verbose=0)
    loss = history.history["loss"][0]
    assert np.isfinite(loss)
    return loss


def missing_gradients(model, inputs):
    """Paths of trainable variables that one SGD step leaves unchanged.

    With plain SGD every variable with a non-zero gradient moves, so this
    finds weights that the loss does not reach, on any backend.
    """
    before = {w.path: to_numpy(w).copy() for w in model.trainable_weights}
    train_step(model, inputs, optimizer=keras.optimizers.SGD(1.0))
    return sorted(
        w.path
        for w in model.trainable_weights
        if np.array_equal(to_numpy(w), before[w.path])
    )


def stacked_model(input_dim, **stack_kwargs):
    """A functional model around one `zoo.layers.StackedRNN`."""
    inputs = keras.Input((None, input_dim))
    layer = zoo.layers.StackedRNN(**stack_kwargs)
    return keras.Model(inputs, layer(inputs)), layer


def run_once(tmp_path_factory, name, make):
    """`(make(folder)'s JSON result, folder)`, computed once per session.

    A module-scoped fixture is not enough under pytest-xdist: the tests of
    one `xdist_group` may still land on two workers, and a worker that
    waits for its next test tears module fixtures down and sets them up
    again (each of the diagnostics' fixtures ran twice). The first caller
    runs `make` in a folder shared by the session's workers, under a file
    lock; every later one reads the result it wrote."""
    import fcntl
    import os

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # shared by the workers of this session
    folder = root / f"once-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / "result.json"
    with open(folder / ".run-once.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            result = make(folder)
            done.write_text(json.dumps(result))
        return json.loads(done.read_text()), folder
