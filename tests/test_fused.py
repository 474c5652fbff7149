"""The fused multi-layer path equals the per-layer path and the reference.

The PyTorch kernel runs on CPU, so its equality is tested wherever torch is
installed: through a whole model on the torch backend (`make test-torch`),
and on any backend by calling PyTorch's module directly with the weights
converted by `zoo.fused`. The JAX kernel is cuDNN-only; its weight packing
is tested on CPU through `jax.experimental.rnn.lstm_ref`, which reads the
same flat layout. benchmarks/gpu.py checks the cuDNN call itself.

The code is in `zoo.kernels` (`zoo.fused` keeps its public names); the
tests at the end check its dispatch: a stack asks the active backend's
`Kernels` for each planned run and calls the layers one by one when the
kernel declines, and only that backend's module (the one place that
imports its framework) is loaded.
"""

import sys

import keras
import numpy as np
import pytest

import zoo
from zoo import fused
from zoo.kernels import base
from zoo.kernels import dispatch
from zoo.walk import iter_layers

BACKEND = keras.backend.backend()


def _stack(model):
    return next(
        layer
        for layer in iter_layers(model)
        if isinstance(layer, zoo.StackedRNN)
    )


def _inputs(shape=(3, 7, 5), seed=0):
    return np.random.RandomState(seed).randn(*shape).astype("float32")


def _numpy(x):
    if hasattr(x, "detach"):
        x = x.detach().cpu()
    return np.asarray(x)


def _randomise(model, seed=0):
    """Non-zero biases everywhere, so a bias in the wrong place shows."""
    rng = np.random.RandomState(seed)
    for weight in model.weights:
        weight.assign(rng.uniform(-0.5, 0.5, weight.shape).astype("float32"))


# Structure and weight-layout tests do not depend on the backend: they run
# once (TensorFlow for the structure and PyTorch layout, JAX for cuDNN's).
@pytest.mark.tf_only
@pytest.mark.parametrize(
    "kwargs, runs",
    [
        (dict(cell="lstm", num_layers=3), [(0, 3)]),
        (dict(cell=["lstm", "lstm", "gru"], num_layers=3), [(0, 2), (2, 3)]),
        (dict(cell="gru", units=[4, 4, 6], num_layers=3), [(0, 2), (2, 3)]),
        (
            dict(cell="lstm", num_layers=3, residual=True),
            [(0, 1), (1, 2), (2, 3)],
        ),
        (dict(cell="lstm", num_layers=3, bidirectional=True), [(0, 3)]),
        (
            dict(cell="gru", num_layers=3, bidirectional=[True, True, False]),
            [(0, 2), (2, 3)],
        ),
        (
            dict(
                cell="lstm", num_layers=2, bidirectional=True, merge_mode="sum"
            ),
            [],
        ),
        (
            dict(cell="lstm", num_layers=3, layer_norm=[True, False, False]),
            [(0, 1), (1, 3)],
        ),
        (
            dict(cell="lstm", num_layers=3, inter_layer_dropout=0.2),
            [(0, 1), (1, 2), (2, 3)],
        ),
        (
            dict(cell="lstm", num_layers=3, recurrent_dropout=[0, 0.2, 0]),
            [(0, 1), (2, 3)],
        ),
        (dict(cell="simple_rnn", num_layers=2), []),
        (dict(cell="lstm", num_layers=3, weight_drop=0.3), [(0, 3)]),
        (
            dict(cell="lstm", num_layers=3, output="all"),
            [(0, 1), (1, 2), (2, 3)],
        ),
    ],
)
def test_candidate_runs(kwargs, runs):
    kwargs.setdefault("units", 4)
    model = zoo.stacked_rnn(input_dim=5, return_sequences=True, **kwargs)
    assert fused.candidate_runs(_stack(model)) == runs


def test_plan_falls_back_for_masks_and_dropout():
    model = zoo.stacked_lstm(3, 4, input_dim=5, dropout=0.1)
    stack = _stack(model)
    left_padded = np.array([[0, 1, 1], [1, 1, 1]], bool)
    assert fused.plan(stack, left_padded, None, False, "float32") == ({}, None)
    # Initial states: fused on PyTorch only (nn.LSTM's hx).
    states = fused.plan(stack, None, [[0, 0]] * 3, False, "float32")
    assert states == ({0: 3} if BACKEND == "torch" else {}, None)
    training = fused.plan(stack, None, None, True, "float32")
    # Input dropout cuts the run before each layer that has it.
    assert training == ({0: 1, 1: 2, 2: 3} if BACKEND == "torch" else {}, None)
    bidirectional = zoo.stacked_lstm(
        2, 4, input_dim=5, dropout=0.1, bidirectional=True
    )
    assert fused.plan(_stack(bidirectional), None, None, True, "float32") == (
        {},
        None,
    )
    runs, lengths = fused.plan(stack, None, None, False, "float32")
    assert runs == ({0: 3} if BACKEND == "torch" else {})
    assert lengths is None
    with fused.disabled():
        assert fused.plan(stack, None, None, False, "float32") == ({}, None)


def test_right_padded_lengths():
    right = np.array([[1, 1, 0], [1, 1, 1], [1, 0, 0]], bool)
    np.testing.assert_array_equal(
        _numpy(fused.right_padded_lengths(right)), [2, 3, 1]
    )
    assert fused.right_padded_lengths(np.array([[0, 1, 1]], bool)) is None
    assert fused.right_padded_lengths(np.array([[1, 0, 1]], bool)) is None
    assert fused.right_padded_lengths(np.array([[0, 0, 0]], bool)) is None


def _torch_reference_check(cell):
    """PyTorch's module with zoo's converted weights == zoo.reference."""
    torch = pytest.importorskip("torch")
    model = zoo.stacked_rnn(cell, 3, 6, input_dim=5, return_sequences=True)
    _randomise(model)
    x = _inputs()
    expected = zoo.reference.forward(model, x)["output"]
    convert = (
        fused.keras_to_torch_lstm
        if cell == "lstm"
        else fused.keras_to_torch_gru
    )
    kind = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU
    module = kind(5, 6, num_layers=3, batch_first=True)
    names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    with torch.no_grad():
        for j, layer in enumerate(_stack(model).recurrent_layers):
            c = layer.cell
            values = convert(
                *(
                    keras.ops.convert_to_tensor(w)
                    for w in (c.kernel, c.recurrent_kernel, c.bias)
                )
            )
            for name, value in zip(names, values):
                getattr(module, f"{name}_l{j}").copy_(
                    torch.tensor(_numpy(value))
                )
        y, _ = module(torch.tensor(x))
    np.testing.assert_allclose(_numpy(y), expected, atol=2e-5)


@pytest.mark.tf_only
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_torch_weight_conversion_matches_reference(cell):
    _torch_reference_check(cell)


@pytest.mark.skipif(BACKEND != "jax", reason="checked on the JAX backend")
@pytest.mark.parametrize("bidirectional", [False, True])
def test_cudnn_flat_packing_matches_reference(bidirectional):
    rnn = pytest.importorskip("jax.experimental.rnn")
    import jax.numpy as jnp

    model = zoo.stacked_lstm(
        3, 6, input_dim=5, bidirectional=bidirectional, return_sequences=True
    )
    _randomise(model)
    x = _inputs()
    entries = _stack(model).recurrent_layers
    flat = jnp.asarray(_numpy(fused.keras_to_cudnn_flat(entries)))
    expected_size = rnn.get_num_params_in_lstm(5, 6, 3, bidirectional)
    assert flat.shape[0] == expected_size
    weights = rnn.unpack_lstm_weights(flat, 5, 6, 3, bidirectional)
    zeros = jnp.zeros((3 * (1 + bidirectional), 3, 6))
    y, _, _ = rnn.lstm_ref(
        jnp.asarray(x),
        zeros,
        zeros,
        *weights,
        jnp.full((3,), 7, dtype=jnp.int32),
        5,
        6,
        3,
        0.0,
        bidirectional,
    )
    expected = zoo.reference.forward(model, x)["output"]
    np.testing.assert_allclose(np.asarray(y), expected, atol=2e-5)


torch_only = pytest.mark.skipif(
    BACKEND != "torch", reason="the fused path runs on the torch backend"
)


def _two_layers(cell, bidirectional, features, **kwargs):
    """A built, randomised 2-layer `StackedRNN` of 4 units."""
    stack = zoo.StackedRNN(
        cell=cell,
        units=4,
        num_layers=2,
        bidirectional=bidirectional,
        **kwargs,
    )
    stack.build((None, None, features))
    _randomise(stack)
    return stack


# Three rows of 7, 4 and 1 real steps, right-padded.
RIGHT_PADDED = np.array(
    [[True] * 7, [True] * 4 + [False] * 3, [True] + [False] * 6]
)


def _right_padded(features, **options):
    """A `StackedRNN(**options)`, built in a model over `features`-wide
    inputs and randomised, and a `(3, 7, features)` batch for
    `RIGHT_PADDED`: `(stack, x, mask)`."""
    inputs = keras.Input((None, features))
    stack = zoo.StackedRNN(**options)
    _randomise(keras.Model(inputs, stack(inputs)))
    return stack, _inputs((3, 7, features)), RIGHT_PADDED


def _gradients(model, x, mask=None):
    import torch

    out = (
        model(torch.tensor(x), mask=mask)
        if mask is not None
        else model(torch.tensor(x))
    )
    loss = (out**2).sum()
    variables = [v.value for v in model.trainable_variables]
    grads = torch.autograd.grad(loss, variables)
    return _numpy(out), [_numpy(g) for g in grads]


def _check_against_loop_and_reference(model, x, mask=None):
    out, grads = _gradients(model, x, mask)
    with fused.disabled():
        loop_out, loop_grads = _gradients(model, x, mask)
    np.testing.assert_allclose(out, loop_out, atol=1e-5)
    for g, h in zip(grads, loop_grads):
        np.testing.assert_allclose(g, h, atol=1e-4, rtol=1e-4)
    expected = zoo.reference.forward(model, x, mask=mask)["output"]
    if mask is not None and expected.ndim == 3:
        # The reference leaves padded steps undefined; compare real ones.
        out, expected = out[mask], expected[mask]
    np.testing.assert_allclose(out, expected, atol=2e-5)


@torch_only
@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("return_sequences", [True, False])
def test_model_fused_equals_per_layer_and_reference(
    cell, bidirectional, return_sequences
):
    model = zoo.stacked_rnn(
        cell,
        3,
        6,
        input_dim=5,
        bidirectional=bidirectional,
        return_sequences=return_sequences,
    )
    _randomise(model)
    x = _inputs()
    plan = fused.plan(_stack(model), None, None, False, "float32")
    assert plan == ({0: 3}, None)
    _check_against_loop_and_reference(model, x)


@torch_only
@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("return_sequences", [True, False])
def test_right_padded_mask_is_fused(cell, bidirectional, return_sequences):
    """A packed sequence on a GPU, the padded batch on a CPU: the same
    outputs and gradients as Keras's loop, whatever the padding holds."""
    stack, x, mask = _right_padded(
        5,
        cell=cell,
        units=6,
        num_layers=2,
        bidirectional=bidirectional,
        return_sequences=return_sequences,
    )
    runs, lengths = fused.plan(stack, mask, None, False, "float32")
    assert runs == {0: 2}
    np.testing.assert_array_equal(_numpy(lengths), [7, 4, 1])
    padded = x.copy()
    padded[~mask] = 99.0  # padding values must not matter

    def call(data, use_fused=True):
        import torch

        if use_fused:
            return _numpy(stack(torch.tensor(data), mask=torch.tensor(mask)))
        with fused.disabled():
            return _numpy(stack(torch.tensor(data), mask=torch.tensor(mask)))

    got = call(padded)
    np.testing.assert_allclose(got, call(x), atol=1e-6)
    # Padded steps as well: Keras's own values (carried or zero).
    np.testing.assert_allclose(got, call(padded, use_fused=False), atol=1e-5)
    expected = zoo.reference.forward(stack, x, mask=mask)["output"]
    if return_sequences:
        got, expected = got[mask], expected[mask]
    np.testing.assert_allclose(got, expected, atol=2e-5)
    import torch

    _check_against_loop_and_reference(stack, padded, torch.tensor(mask))


@torch_only
def test_length_groups_split_only_sparse_batches():
    import torch

    dense = fused.length_groups(torch.tensor([7, 4, 3]))
    assert [(rows, steps) for rows, steps in dense] == [(None, 7)]
    sparse = fused.length_groups(torch.tensor([9, 1, 1, 2, 3, 5, 4]))
    got = [(rows.tolist(), steps) for rows, steps in sparse]
    assert got == [([1, 2], 1), ([3], 2), ([4, 6], 4), ([5], 5), ([0], 9)]


@torch_only
@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("return_sequences", [True, False])
def test_short_rows_run_in_length_groups(cell, bidirectional, return_sequences):
    """A batch of mostly short rows (like a batch of words' characters)
    runs in length groups; the result is Keras's, rows in their order."""
    import torch

    stack = _two_layers(
        cell, bidirectional, 3, return_sequences=return_sequences
    )
    lengths = np.array([9, 1, 1, 2, 3, 5, 4])
    mask = np.arange(9)[None, :] < lengths[:, None]
    assert len(fused.length_groups(torch.tensor(lengths))) == 5
    x = _inputs((7, 9, 3))
    x[~mask] = 99.0
    _check_against_loop_and_reference(stack, x, torch.tensor(mask))


@torch_only
@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize(
    "options, expected_runs",
    [
        ({}, {0: 2}),
        ({"return_sequences": False}, {0: 2}),
        ({"residual": True}, {0: 1, 1: 2}),
    ],
)
def test_initial_and_final_states_are_fused(
    cell, bidirectional, masked, options, expected_runs
):
    """An encoder's `return_state` and a decoder's `initial_state` (as in
    `zoo.Seq2Seq`) run fused, with Keras's outputs (padded steps too),
    states and gradients."""
    import torch

    options = {"return_sequences": True, **options}
    stack = _two_layers(cell, bidirectional, 3, return_state=True, **options)
    counts = (2 if cell == "lstm" else 1) * (2 if bidirectional else 1)
    x = torch.tensor(_inputs((3, 6, 3)))
    mask = None
    if masked:
        mask = torch.tensor(np.arange(6)[None, :] < np.array([[6], [2], [4]]))
    initial = [
        torch.tensor(_inputs((3, 4), seed=1 + i)).requires_grad_()
        for i in range(2 * counts)
    ]
    runs, _ = fused.plan(stack, mask, [initial], True, "float32")
    assert runs == expected_runs

    def outputs():
        result = stack(x, initial_state=initial, mask=mask)
        loss = sum((value**2).sum() for value in result)
        variables = [v.value for v in stack.trainable_variables]
        grads = torch.autograd.grad(loss, variables + initial)
        return [_numpy(v) for v in result], [_numpy(g) for g in grads]

    got, got_grads = outputs()
    with fused.disabled():
        expected, expected_grads = outputs()
    assert len(got) == len(expected) == 1 + 2 * counts
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, atol=1e-5)
    for a, b in zip(got_grads, expected_grads):
        np.testing.assert_allclose(a, b, atol=1e-4, rtol=1e-4)


@torch_only
def test_weight_drop_reaches_the_fused_call(tmp_path):
    model = zoo.stacked_lstm(
        2, 6, input_dim=5, weight_drop=0.5, bidirectional=True, seed=3
    )
    x = _inputs()
    plain = _numpy(model(x, training=False))
    dropped = _numpy(model(x, training=True))
    assert np.abs(plain - dropped).max() > 1e-4
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = keras.saving.load_model(path, safe_mode=True)
    np.testing.assert_allclose(_numpy(loaded(x)), plain, atol=1e-6)


@torch_only
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_input_dropout_draws_keras_own_mask(cell):
    def build():
        return zoo.stacked_rnn(
            cell, 3, 6, input_dim=5, dropout=[0.0, 0.5, 0.0], seed=7
        )

    fused_model, loop_model = build(), build()
    _randomise(fused_model)
    loop_model.set_weights(fused_model.get_weights())
    x = _inputs()
    stack = _stack(fused_model)
    assert fused.plan(stack, None, None, True, "float32")[0] == {0: 1, 1: 3}
    got = _numpy(fused_model(x, training=True))
    with fused.disabled():
        expected = _numpy(loop_model(x, training=True))
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert np.abs(got - _numpy(fused_model(x, training=False))).max() > 1e-3


@torch_only
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(residual=True),
        dict(highway=True, bidirectional=True, merge_mode="concat"),
        dict(residual=True, return_sequences=False),
    ],
)
def test_residual_and_highway_layers_are_fused_one_by_one(kwargs):
    kwargs.setdefault("return_sequences", True)
    stack, x, mask = _right_padded(
        6, cell="lstm", units=6, num_layers=3, **kwargs
    )
    runs, _ = fused.plan(stack, mask, None, False, "float32")
    assert len(runs) == 3
    for use_mask in (None, mask):
        got = _numpy(stack(x, mask=use_mask))
        with fused.disabled():
            expected = _numpy(stack(x, mask=use_mask))
        np.testing.assert_allclose(got, expected, atol=1e-5)
        reference = zoo.reference.forward(stack, x, mask=use_mask)["output"]
        if use_mask is not None and kwargs["return_sequences"]:
            got, reference = got[mask], reference[mask]
        np.testing.assert_allclose(got, reference, atol=2e-5)


@pytest.mark.skipif(
    keras.backend.backend() != "torch", reason="torch.compile: PyTorch only"
)
def test_jit_compile_on_torch_breaks_no_graph_in_the_stack():
    """Keras's `jit_compile=True` on PyTorch is `torch.compile`: a masked
    batch must not make dynamo trace the mask's padding (a data-dependent
    branch: one graph break and dozens of log lines per stack call)."""
    import torch

    encoder = zoo.stacked_lstm(2, 4, vocabulary_size=12, return_sequences=True)
    model = keras.Model(encoder.input, keras.layers.Dense(3)(encoder.output))
    model.compile(
        "sgd",
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=True,
    )
    x = np.array([[1, 2, 3, 0], [4, 5, 0, 0]])
    y = np.zeros((2, 4), "int32")
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    model.train_on_batch(x, y)
    breaks = torch._dynamo.utils.counters["graph_break"]
    assert not [reason for reason in breaks if "zoo" in str(reason)], breaks
    assert not any("item" in str(reason) for reason in breaks), breaks


class _Kernels(base.Kernels):
    """Takes every run in the plan; `result` says what its calls do."""

    def __init__(self, result):
        self.result, self.calls = result, 0

    def supports(self, cell, length, bidirectional):
        return True

    def dtype_ok(self, dtype):
        return True

    def run(self, entries, x, lengths, initial_state, return_state):
        self.calls += 1
        if self.result == "decline":
            raise NotImplementedError("declined")
        return keras.ops.zeros((x.shape[0], x.shape[1], 4))


def test_a_stack_calls_its_backends_kernels_and_falls_back(monkeypatch):
    """Keras's own pattern (`LSTM` asks `backend.lstm`, and loops on
    `NotImplementedError`), on every backend through a stand-in."""
    model = zoo.stacked_lstm(3, 4, input_dim=5, return_sequences=True)
    _randomise(model)
    x = _inputs()
    with fused.disabled():
        expected = _numpy(model(x))
    declining = _Kernels("decline")
    monkeypatch.setitem(dispatch._LOADED, BACKEND, declining)
    stack = _stack(model)
    assert fused.plan(stack, None, None, False, "float32") == ({0: 3}, None)
    np.testing.assert_allclose(_numpy(model(x)), expected, atol=1e-6)
    # One try for the run; then its layers one by one, Keras's calls.
    assert declining.calls == 1
    # The plan reads the kernels' answers: no mask here.
    mask = np.ones((3, 7), bool)
    assert fused.plan(stack, mask, None, False, "float32") == ({}, None)
    taking = _Kernels("zeros")
    monkeypatch.setitem(dispatch._LOADED, BACKEND, taking)
    np.testing.assert_array_equal(_numpy(model(x)), np.zeros((3, 7, 4)))
    assert taking.calls == 1
    with fused.disabled():
        np.testing.assert_allclose(_numpy(model(x)), expected, atol=1e-6)
    assert taking.calls == 1


def test_only_the_active_backends_kernels_are_loaded():
    loaded = {
        name for name, module in dispatch.MODULES.items()
        if module in sys.modules
    }  # fmt: skip
    assert loaded == {BACKEND}
    assert dispatch.active().name == BACKEND
