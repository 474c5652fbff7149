"""`zoo.summary` opens every stack: each recurrent layer, wrapper and
norm is a row with its shape, parameters and what runs it."""

import keras

import zoo

COLUMNS = ("layer", "type", "output shape", "params", "cpu", "gpu")


def _rows(text):
    """The table's rows as `{name: {column: text}}`, cut where the
    header's columns start."""
    lines = text.splitlines()
    header = lines[2]
    starts = [header.index(c) for c in COLUMNS] + [None]
    body = lines[4 : lines.index(lines[1], 4)]
    rows = {}
    for line in body:
        cells = [line[a:b].strip() for a, b in zip(starts[:-1], starts[1:])]
        rows[cells[0]] = dict(zip(COLUMNS, cells))
    return rows


def test_every_layer_of_the_stack_is_a_row_with_its_parameters():
    backbone = zoo.stacked_lstm(
        3,
        16,
        vocabulary_size=50,
        residual=True,
        bidirectional=[True, False, False],
        layer_norm=True,
        name="b",
    )
    model = zoo.heads.sequence_tagger(backbone, 5)
    text = zoo.summary(model, print_fn=False)
    rows = _rows(text)
    stack = backbone.get_layer("b_stack")
    names = [layer.name for layer in stack.sublayers]
    names += ["forward_b_stack_layer0_lstm", "backward_b_stack_layer0_lstm"]
    names += ["b_stack_layer1_lstm", "b_stack_layer2_lstm"]
    for name in names:
        assert name in rows, name
    # A wrapper's own parameters: the projection from 32 to 16 features.
    assert rows["b_stack_layer1_residual"]["params"] == f"{32 * 16:,}"
    lstm = rows["b_stack_layer1_lstm"]
    assert lstm["type"] == "LSTM"
    assert lstm["params"] == f"{4 * 16 * (32 + 16 + 1):,}"
    assert lstm["output shape"] == "(None, None, 16)"
    assert rows["b_stack"]["params"] == f"{stack.count_params():,}"
    assert text.splitlines()[-1] == f"total params: {model.count_params():,}"
    assert not any(r["type"] == "NotEqual" for r in rows.values())
    # What runs each recurrent layer on this backend, CPU then GPU.
    backend = keras.backend.backend()
    cpu = {"tensorflow": "loop", "jax": "loop", "torch": "zoo nn.LSTM"}
    assert (lstm["cpu"], lstm["gpu"]) == (
        cpu[backend],
        "zoo nn.LSTM" if backend == "torch" else "cuDNN",
    )


def test_prints_by_default(capsys):
    zoo.summary(zoo.stacked_gru(2, 4, input_dim=3, name="g"))
    out = capsys.readouterr().out
    assert "g_stack_layer1_gru" in out and "total params" in out
