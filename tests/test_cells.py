"""`zoo.cells` is the one table of cell facts, and the facts are true."""

import dataclasses

import keras
import numpy as np
import pytest

import zoo
from zoo import cells


def test_the_table_is_the_cell_option():
    assert cells.NAMES == ("simple_rnn", "gru", "lstm")
    assert zoo.options.CELLS == cells.NAMES
    assert zoo.spec.CELLS == cells.NAMES
    assert zoo.options.get("cell").choices == cells.NAMES
    assert [cells.get(name) for name in cells.NAMES] == list(cells.ALL)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cells.LSTM.gates = 3


@pytest.mark.parametrize("value", ["rnn", "LSTM", None, ["lstm"]])
def test_get_names_the_argument_the_value_and_the_choices(value):
    with pytest.raises(ValueError) as error:
        cells.get(value)
    message = str(error.value)
    assert "`cell` must be one of 'simple_rnn', 'gru', 'lstm'" in message
    assert f"received cell={value!r}" in message


@pytest.mark.parametrize("cell", cells.ALL, ids=lambda c: c.name)
def test_the_facts_match_the_keras_layers(cell):
    units, features = 3, 5
    layer = cell.keras_class(units, return_state=True)
    outputs = layer(np.zeros((2, 4, features), "float32"))
    # The output, then one tensor per state of one direction.
    assert len(outputs) == 1 + cell.states_per_direction
    assert cell.states_per_direction == len(cell.state_names)
    assert layer.cell.kernel.shape == (features, cell.gates * units)
    assert cells.of_layer(layer) is cell
    assert cells.of_layer(keras.layers.Bidirectional(layer)) is cell


@pytest.mark.parametrize("cell", cells.ALL, ids=lambda c: c.name)
def test_the_weight_drop_variant_is_the_registered_layer(cell):
    variant = cell.weight_drop_class
    assert variant is getattr(zoo.layers, cell.weight_drop_name)
    assert issubclass(variant, cell.keras_class)
    assert cells.of_layer(variant(3, weight_drop=0.1)) is cell


def test_other_layers_have_no_cell():
    assert cells.of_layer(keras.layers.Dense(3)) is None
    assert cells.of_layer(keras.layers.ConvLSTM1D(3, 2)) is None


def test_the_kernels_agree_with_the_fast_path_report():
    for cell in cells.ALL:
        model = zoo.stacked_rnn(cell.name, 1, 4, input_dim=3)
        (entry,) = zoo.fast_path_report(model)
        fused = {b for b, e in entry["backends"].items() if e["fused"]}
        assert fused == set(cell.cudnn_backends), cell.name
        assert set(cell.multi_layer_backends) <= set(cell.cudnn_backends)


def test_the_torch_modules_exist():
    torch = pytest.importorskip("torch")
    for cell in cells.ALL:
        assert issubclass(
            getattr(torch.nn, cell.torch_module), torch.nn.RNNBase
        )
