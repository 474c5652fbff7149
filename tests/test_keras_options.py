"""Keras's own recurrent-layer arguments pass through a stack: checked,
applied per layer, serialised, counted, written out by `zoo.reference` and
reported by `zoo.fast_path_report`."""

import keras
import numpy as np
import pytest

import zoo
from tests import helpers

StackedRNN = zoo.layers.StackedRNN


def _rnn(stack, index):
    """Recurrent layer `index` of `stack` (its forward half if
    bidirectional)."""
    rnn = stack.recurrent_layers[index]
    return getattr(rnn, "forward_layer", rnn)


def test_scalars_reach_every_layer_and_lists_each_layer():
    stack = StackedRNN(
        ["gru", "lstm", "simple_rnn"],
        units=4,
        activation=["relu", "tanh", "elu"],
        kernel_initializer="he_normal",
        kernel_regularizer=keras.regularizers.L2(0.01),
        recurrent_constraint=["unit_norm", None, None],
        use_bias=[True, False, True],
        unit_forget_bias=[True, False, True],
        reset_after=[False, True, True],
        bidirectional=[False, True, False],
    )
    gru, lstm, simple = (_rnn(stack, i) for i in range(3))
    assert gru.cell.activation is keras.activations.relu
    assert lstm.cell.activation is keras.activations.tanh
    assert simple.cell.activation is keras.activations.elu
    for rnn in (gru, lstm, simple):
        assert isinstance(
            rnn.cell.kernel_initializer, keras.initializers.HeNormal
        )
        assert rnn.cell.kernel_regularizer.l2 == pytest.approx(0.01)
    assert isinstance(gru.cell.recurrent_constraint, keras.constraints.UnitNorm)
    assert lstm.cell.recurrent_constraint is None
    assert not lstm.cell.use_bias and not lstm.cell.unit_forget_bias
    assert not gru.cell.reset_after
    # Each layer has its own initializer object, not one shared instance.
    assert gru.cell.kernel_initializer is not simple.cell.kernel_initializer
    # The config keeps names and dicts, so it is JSON.
    config = stack.get_config()
    assert config["activation"] == ["relu", "tanh", "elu"]
    assert config["kernel_regularizer"]["class_name"] == "L2"
    assert StackedRNN.from_config(config).get_config() == config


def test_cell_specific_options_are_refused_where_no_layer_takes_them():
    with pytest.raises(ValueError, match=r"`reset_after` applies to GRU"):
        StackedRNN("lstm", reset_after=False)
    with pytest.raises(ValueError, match=r"`unit_forget_bias\[0\]` applies"):
        StackedRNN(["gru", "lstm"], unit_forget_bias=[False, True])
    with pytest.raises(ValueError, match=r"applies to GRU and LSTM"):
        StackedRNN("simple_rnn", recurrent_activation="relu")
    # A scalar on a mixed stack applies where it applies.
    stack = StackedRNN(["gru", "lstm"], reset_after=False)
    assert [s.reset_after for s in stack.layer_specs] == [False, True]


@pytest.mark.parametrize(
    "name,value,allowed",
    [
        ("activation", "nope", "a Keras activation"),
        ("kernel_initializer", "nope", "a Keras initializer"),
        ("kernel_regularizer", 3, "a Keras regularizer"),
        ("bias_constraint", "nope", "a Keras constraint"),
        ("use_bias", "no", "True, False"),
    ],
)
def test_bad_keras_options_name_the_argument(name, value, allowed):
    with pytest.raises(ValueError) as error:
        StackedRNN("lstm", **{name: value})
    message = str(error.value)
    assert f"`{name}` must be {allowed}" in message
    assert f"received {name}={value!r}" in message


def test_a_model_with_keras_options_trains_saves_and_reloads(tmp_path):
    model = zoo.stacked_rnn(
        "gru",
        2,
        6,
        input_dim=3,
        activation="relu",
        reset_after=[False, True],
        use_bias=[True, False],
        kernel_regularizer="l2",
        activity_regularizer=keras.regularizers.L1(0.01),
        kernel_constraint="max_norm",
    )
    assert len(model.losses) == 2  # the two input kernels
    x = np.random.default_rng(0).normal(size=(4, 5, 3)).astype("float32")
    model(x)
    assert len(model.losses) == 2 + 2  # and, once called, two outputs
    y = np.zeros((4, 5, 6), "float32")
    model.compile("adam", "mse")
    model.fit(x, y, epochs=1, verbose=0)
    assert model.count_params() == zoo.count_params(
        "gru",
        3,
        6,
        num_layers=2,
        reset_after=[False, True],
        use_bias=[True, False],
    )
    helpers.check_saves_and_reloads(model, x, tmp_path)


@pytest.mark.parametrize(
    "cell,options",
    [
        ("lstm", dict(activation="relu", recurrent_activation="hard_sigmoid")),
        ("lstm", dict(use_bias=False, bidirectional=True)),
        ("gru", dict(reset_after=False, activation="softsign")),
        ("gru", dict(use_bias=False, recurrent_activation="linear")),
        ("simple_rnn", dict(activation="relu", use_bias=False)),
    ],
)
def test_reference_writes_out_the_options(cell, options):
    x = np.random.default_rng(1).normal(size=(3, 6, 4)).astype("float32")
    stack = StackedRNN(
        cell, units=5, num_layers=2, return_sequences=True, **options
    )
    got = helpers.to_numpy(stack(x))
    np.testing.assert_allclose(
        got, zoo.reference.forward(stack, x)["output"], atol=1e-5, rtol=1e-4
    )


def test_the_fast_path_report_says_which_option_leaves_the_kernel():
    model = zoo.stacked_rnn(
        "lstm",
        3,
        4,
        input_dim=2,
        activation=["tanh", "relu", "tanh"],
        use_bias=[True, True, False],
        kernel_regularizer="l2",  # regularisers keep the kernel
    )
    report = zoo.fast_path_report(model)
    reasons = [e["backends"]["torch"]["reason"] for e in report]
    assert [e["backends"]["torch"]["fused"] for e in report] == [
        True,
        False,
        False,
    ]
    assert "activation=relu, not tanh" in reasons[1]
    assert "use_bias=False" in reasons[2]
    # An activity regulariser keeps the kernel, but not the stack's
    # multi-layer call (the loss is added in the layer's own call).
    stack = StackedRNN("lstm", 4, 2, activity_regularizer="l2")
    stack.build((None, None, 3))
    assert stack.fused_runs() == []
