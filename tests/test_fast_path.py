"""`fast_path_report` tells which layers can use the fused kernels."""

import keras
import numpy as np

import zoo


def _by_name(report):
    return {entry["layer"]: entry for entry in report}


def test_plain_lstm_and_gru_are_fused_on_gpu_backends():
    model = zoo.stacked_rnn(["lstm", "gru"], 2, 4, input_dim=3, name="m")
    report = _by_name(zoo.fast_path_report(model))
    lstm = report["m_stack_layer0_lstm"]["backends"]
    gru = report["m_stack_layer1_gru"]["backends"]
    assert all(lstm[b]["fused"] for b in ("tensorflow", "jax", "torch"))
    assert gru["tensorflow"]["fused"] and gru["torch"]["fused"]
    assert not gru["jax"]["fused"]
    assert "no cuDNN GRU" in gru["jax"]["reason"]
    assert "mask" in lstm["jax"]["reason"]


def test_recurrent_dropout_is_the_regulariser_that_leaves_the_fast_path():
    model = zoo.stacked_lstm(
        2,
        4,
        input_dim=3,
        recurrent_dropout=[0.0, 0.2],
        dropout=0.2,
        inter_layer_dropout=0.3,
        weight_drop=0.5,
        residual=True,
        layer_norm=True,
        name="m",
    )
    report = _by_name(zoo.fast_path_report(model))
    first = report["m_stack_layer0_lstm"]["backends"]["tensorflow"]
    second = report["m_stack_layer1_lstm"]["backends"]["tensorflow"]
    assert first["fused"]
    assert not second["fused"]
    assert "recurrent_dropout=0.2" in second["reason"]


def test_simple_rnn_and_custom_activations_are_explained():
    inputs = keras.Input((None, 3))
    x = keras.layers.LSTM(4, activation="relu", return_sequences=True)(inputs)
    x = keras.layers.Bidirectional(keras.layers.SimpleRNN(4))(x)
    report = zoo.fast_path_report(keras.Model(inputs, x))
    reasons = [e["backends"]["tensorflow"]["reason"] for e in report]
    assert "activation=relu, not tanh" in reasons[0]
    assert all("SimpleRNN" in r for r in reasons[1:])
    assert len(report) == 3
    table = str(report)
    assert "loop" in table and "relu" in table


def test_reset_states_counts_only_stateful_layers():
    model = zoo.stacked_lstm(
        3, 4, input_dim=2, batch_size=1, stateful=True, bidirectional=True
    )
    assert zoo.reset_states(model) == 6
    assert zoo.reset_states(zoo.stacked_lstm(2, 4, input_dim=2)) == 0


def test_fused_runs_are_reported():
    model = zoo.stacked_rnn(
        ["lstm", "lstm", "gru"], 3, 4, input_dim=3, name="m"
    )
    report = _by_name(zoo.fast_path_report(model))
    first = report["m_stack_layer0_lstm"]
    assert first["run"] == "0-1"
    assert "nn.LSTM(num_layers=2)" in first["backends"]["torch"]["reason"]
    assert "num_layers=2" in first["backends"]["jax"]["reason"]
    gru = report["m_stack_layer2_gru"]
    assert gru["run"] == "2-2"
    assert "nn.GRU(num_layers=1)" in gru["backends"]["torch"]["reason"]
    residual = zoo.stacked_lstm(3, 4, input_dim=4, residual=True, name="r")
    runs = [e["run"] for e in zoo.fast_path_report(residual)]
    assert runs == ["0-0", "1-1", "2-2"]


def test_a_stack_that_returns_its_states_is_fused_on_torch_only():
    """`zoo.Seq2Seq`'s encoder and decoder: nn.LSTM takes and returns the
    states; JAX's multi-layer cuDNN call is not used for them."""
    stack = {"cell": "lstm", "num_layers": 2, "units": 4}
    model = zoo.Seq2Seq(9, 9, encoder=stack, decoder=stack, embedding_dim=4)
    model([np.ones((1, 3), "int32"), np.ones((1, 2), "int32")])
    report = zoo.fast_path_report(model)
    assert report and all(entry["run"] for entry in report)
    for entry in report:
        backends = entry["backends"]
        assert backends["torch"]["cpu"] == "zoo nn.LSTM"
        assert backends["jax"]["gpu"] == "cuDNN"


def test_the_table_says_what_runs_per_backend_and_device():
    model = zoo.stacked_rnn(
        ["lstm", "lstm", "gru"], 3, 4, input_dim=3, name="m"
    )
    report = zoo.fast_path_report(model)
    lstm = report[0]["backends"]
    # On a CPU only the zoo's PyTorch call is fused; cuDNN needs a GPU.
    assert [lstm[b]["cpu"] for b in ("tensorflow", "jax", "torch")] == [
        "loop",
        "loop",
        "zoo nn.LSTM",
    ]
    assert [lstm[b]["gpu"] for b in ("tensorflow", "jax", "torch")] == [
        "cuDNN",
        "cuDNN x2",
        "zoo nn.LSTM",
    ]
    assert report[2]["backends"]["jax"]["cpu"] == "scan"
    lines = str(report).splitlines()
    header = lines[0].split()
    assert header == [
        "layer",
        "cell",
        "run",
        "tensorflow/cpu",
        "tensorflow/gpu",
        "jax/cpu",
        "jax/gpu",
        "torch/cpu",
        "torch/gpu",
    ]
    assert (
        lines[1].split()[3:]
        == ["loop", "cuDNN", "loop", "cuDNN", "x2"]
        + [
            "zoo",
            "nn.LSTM",
        ]
        * 2
    )
    # The reasons come backend by backend, in the columns' order.
    notes = lines[lines.index("m_stack_layer0_lstm:") + 1 :][:3]
    assert [n.split(":")[0].strip() for n in notes] == [
        "tensorflow",
        "jax",
        "torch",
    ]
