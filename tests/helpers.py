"""Shared test helpers (Keras's own are in the private `keras.src`)."""

import inspect
import json
import pathlib
import subprocess
import sys
import warnings

import keras
import numpy as np
import pytest

import harness
import zoo
from zoo.walk import iter_layers

ROOT = pathlib.Path(__file__).resolve().parents[1]


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


def train_step(model, inputs, targets=None, optimizer="adam", loss="mse"):
    """One `fit` step on `loss` (MSE) against random (or given) targets."""
    if targets is None:
        targets = [
            np.random.default_rng(0).normal(size=o.shape).astype("float32")
            for o in flat_numpy(model(inputs))
        ]
        if len(targets) == 1:
            targets = targets[0]
    model.compile(optimizer=optimizer, loss=loss)
    with warnings.catch_warnings():
        # A layer without weights still runs in `fit`'s compiled step.
        warnings.filterwarnings("ignore", "The model does not have any tra")
        history = model.fit(inputs, targets, epochs=1, verbose=0)
    loss = history.history["loss"][0]
    assert np.isfinite(loss)
    return loss


def missing_gradients(model, inputs, targets=None, loss="mse"):
    """Paths of trainable variables that one SGD step leaves unchanged.

    With plain SGD every variable with a non-zero gradient moves, so this
    finds weights that the loss does not reach, on any backend.
    """
    before = {w.path: to_numpy(w).copy() for w in model.trainable_weights}
    sgd = keras.optimizers.SGD(1.0)
    train_step(model, inputs, targets, optimizer=sgd, loss=loss)
    return sorted(
        w.path
        for w in model.trainable_weights
        if np.array_equal(to_numpy(w), before[w.path])
    )


def run_layer_test(
    layer_cls,
    init_kwargs=None,
    input_shape=None,
    *,
    input_data=None,
    call_kwargs=None,
    several_args=False,
    expected_output_shape=None,
    expected_num_trainable_weights=None,
    expected_num_non_trainable_weights=None,
    lengths=None,
    keeps_mask=None,
    loss="mse",
    targets=None,
    check_gradients=False,
    expected_fused=None,
    tmp_path=None,
    atol=1e-5,
):
    """The contract of a zoo layer (after Keras's private `run_layer_test`).

    Inputs are `input_data` (an array, or a list of arrays for several
    inputs; ids for layers that read ids) or random floats of
    `input_shape` (a shape, or a list of them). `several_args` passes a
    list of inputs as separate arguments (`layer(query, values)`) instead
    of as one list (`layer([a, b])`). Checks, in order:

    1. the layer constructs and its config round-trips
       (`check_config_round_trip`);
    2. on a functional model over `keras.Input`s (every axis but a float
       input's last one unknown): the symbolic shapes allow the eager
       ones, and `compute_output_shape` and `expected_output_shape` give
       them exactly;
    3. the trainable / non-trainable weight counts, if given, and that
       float outputs are finite;
    4. with `lengths` (the real steps of each row, right-padded with 0,
       one row shorter than the rest at least): `check_padding`;
    5. one `fit` step (`loss`: a name, `f(layer)` giving one, or None for
       none; `targets`: random floats by default), with
       `check_gradients` one that reaches every trainable weight;
    6. with `tmp_path`: `check_saves_and_reloads`, the reloaded layer of
       the same class;
    7. `zoo.fast_path_report` on the model prints, and with
       `expected_fused` (a bool, or one per backend) lists at least one
       recurrent layer, each fused or not on every backend as expected.

    Returns the layer.
    """
    call_kwargs = call_kwargs or {}
    layer = layer_cls(**(init_kwargs or {}))
    check_config_round_trip(layer)
    data = layer_inputs(input_shape, input_data, lengths)

    def call(values):
        if several_args:
            return layer(*values, **call_kwargs)
        return layer(values, **call_kwargs)

    symbols = [
        keras.Input(_symbolic_shape(x), dtype=x.dtype) for x in _as_list(data)
    ]
    symbols = symbols if isinstance(data, list) else symbols[0]
    model = keras.Model(symbols, call(symbols))
    outputs = flat_numpy(call(data))
    check_output_shapes(layer, model, data, outputs, several_args, call_kwargs)
    if expected_output_shape is not None:
        assert [o.shape for o in outputs] == _shapes(expected_output_shape)
    if expected_num_trainable_weights is not None:
        assert len(layer.trainable_weights) == expected_num_trainable_weights
    if expected_num_non_trainable_weights is not None:
        count = len(layer.non_trainable_weights)
        assert count == expected_num_non_trainable_weights
    for output in outputs:
        if np.issubdtype(output.dtype, np.floating):
            assert np.isfinite(output).all()

    if lengths is not None:
        check_padding(
            layer, model, data, lengths, several_args, keeps_mask, atol
        )
    if loss is not None:
        loss = loss(layer) if callable(loss) else loss
        if check_gradients:
            assert missing_gradients(model, data, targets, loss) == []
        else:
            train_step(model, data, targets, loss=loss)
    if tmp_path is not None:
        reloaded = check_saves_and_reloads(model, data, tmp_path, atol)
        assert type(reloaded.get_layer(layer.name)) is layer_cls
    check_fast_path(model, expected_fused)
    return layer


def layer_inputs(input_shape=None, input_data=None, lengths=None):
    """`input_data` (copied), or random floats of `input_shape` (each a
    list for several inputs), zero after each row's `lengths` if given."""
    if input_data is None:
        shapes = input_shape if isinstance(input_shape, list) else None
        rng = np.random.default_rng(0)
        input_data = [
            rng.normal(size=shape).astype("float32")
            for shape in (shapes or [input_shape])
        ]
        input_data = input_data if shapes else input_data[0]
    inputs = [np.array(x) for x in _as_list(input_data)]
    for row, length in enumerate(lengths or []):
        for x in inputs:
            x[row, length:] = 0
    return inputs if isinstance(input_data, list) else inputs[0]


def _as_list(values):
    return list(values) if isinstance(values, (list, tuple)) else [values]


def _symbolic_shape(x):
    """Every axis unknown but the batch's, and a float input's features."""
    if np.issubdtype(x.dtype, np.floating):
        return (None,) * (x.ndim - 2) + x.shape[-1:]
    return (None,) * (x.ndim - 1)


def _shapes(structure):
    """A shape or a nested list of shapes, as a flat list of tuples."""
    if all(d is None or isinstance(d, int) for d in structure):
        return [tuple(structure)]
    return [shape for item in structure for shape in _shapes(item)]


def _leaves(structure):
    """A nested list of tensors and Nones, flat, the Nones kept."""
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _leaves(item)]
    return [structure]


def check_output_shapes(
    layer, model, data, outputs, several_args=False, call_kwargs=None
):
    """The model's symbolic output shapes allow the eager `outputs`', and
    `compute_output_shape` of the data's shapes gives them exactly."""
    eager = [o.shape for o in outputs]
    symbolic = keras.tree.flatten(model.output)
    for got, want in zip(symbolic, eager, strict=True):
        assert len(got.shape) == len(want), (got.shape, want)
        assert all(g in (None, w) for g, w in zip(got.shape, want))
    shapes = [tuple(x.shape) for x in _as_list(data)]
    arguments = inspect.signature(layer.compute_output_shape).parameters
    kwargs = {k: v for k, v in (call_kwargs or {}).items() if k in arguments}
    if several_args:
        computed = layer.compute_output_shape(*shapes, **kwargs)
    else:
        shape = shapes if isinstance(data, list) else shapes[0]
        computed = layer.compute_output_shape(shape, **kwargs)
    assert _shapes(computed) == eager


class _MaskProbe(keras.layers.Layer):
    """Returns its inputs and keeps the Keras masks that reached it."""

    def __init__(self):
        super().__init__()
        self.supports_masking = True
        self.masks = None

    def call(self, inputs, mask=None):
        self.masks = mask
        return inputs


def check_padding(
    layer, model, data, lengths, several_args=False, keeps_mask=None, atol=1e-5
):
    """A right-padded batch against each row alone, and the masks.

    The padded batch goes in with the Keras mask of its real steps (if
    the layer supports masking; layers that read ids find the padding
    themselves). Each output of a row alone equals the padded batch's at
    the real steps (an output with a time axis) or whole (one without,
    such as states or pooled vectors). The mask that reaches the next
    layer is `compute_mask`'s, per output; each is the real steps' mask
    or None, and the first output carries one if `keeps_mask` (by
    default: the layer supports masking and that output has a time
    axis)."""
    inputs = _as_list(data)
    steps = inputs[0].shape[1]
    real = np.arange(steps)[None] < np.asarray(lengths)[:, None]
    assert min(lengths) < steps, "no row is padded"
    mask = None
    if layer.supports_masking:
        tensor = keras.ops.convert_to_tensor(real)
        mask = [tensor] * len(inputs) if isinstance(data, list) else tensor
    probe = _MaskProbe()
    probed = keras.Model(model.input, probe(model.output))
    probed.supports_masking = True  # passes `mask` on to its inputs
    padded = flat_numpy(probed(data, mask=mask))
    has_time = [False] * len(padded)
    for row, length in enumerate(lengths):
        alone = [x[row : row + 1, :length] for x in inputs]
        alone = flat_numpy(model(alone if isinstance(data, list) else alone[0]))
        for index, (got, want) in enumerate(zip(padded, alone, strict=True)):
            timed = got.ndim > 1 and got.shape[1] == steps
            timed = timed and want.shape[1] == length
            has_time[index] |= timed and length < steps
            got = got[row, :length] if timed else got[row]
            np.testing.assert_allclose(
                want[0].astype("float32"), got.astype("float32"), atol=atol
            )
    first = inputs[0] if several_args else data
    first_mask = mask[0] if several_args and mask is not None else mask
    computed = _leaves(layer.compute_mask(first, first_mask))
    propagated = _leaves(probe.masks)
    computed += [None] * (len(padded) - len(computed))
    propagated += [None] * (len(padded) - len(propagated))
    if keeps_mask is None:
        keeps_mask = layer.supports_masking and has_time[0]
    assert (propagated[0] is not None) == keeps_mask
    for got, want in zip(propagated, computed, strict=True):
        assert (got is None) == (want is None), (got, want)
        if got is not None:
            np.testing.assert_array_equal(to_numpy(got).astype(bool), real)
            np.testing.assert_array_equal(to_numpy(want).astype(bool), real)


def check_fast_path(model, expected_fused=None):
    """`zoo.fast_path_report` runs and prints; with `expected_fused` (a
    bool, or one per backend) each recurrent layer is fused as said."""
    report = zoo.fast_path_report(model)
    assert str(report)
    if expected_fused is None:
        return
    assert report, "no recurrent layer in the fast-path report"
    for backend in zoo.fast_path.BACKENDS:
        want = expected_fused
        if isinstance(expected_fused, dict):
            want = expected_fused[backend]
        for entry in report:
            got = entry["backends"][backend]
            assert got["fused"] is want, (entry["layer"], backend, got)


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


def usage_error(main, argv, capsys):
    """The one line (stripped) that `harness.run_cli(main, argv)` writes
    to stderr, exiting 2, as every command's usage errors must."""
    with pytest.raises(SystemExit) as info:
        harness.run_cli(main, argv)
    err = capsys.readouterr().err.strip()
    assert info.value.code == 2, err
    assert len(err.splitlines()) == 1, err
    return err


def run_python(args, cwd=ROOT, **kwargs):
    """`python ARGS` (this interpreter) in `cwd` (the repository's root),
    its output captured as text; `kwargs` go to `subprocess.run`."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        **kwargs,
    )
