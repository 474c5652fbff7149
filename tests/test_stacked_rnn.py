"""`zoo.layers.StackedRNN`: every combination builds, trains, saves."""

import dataclasses
import gc
import itertools
import zipfile

import h5py
import keras
import numpy as np
import pytest

import zoo
from tests import helpers

StackedRNN = zoo.layers.StackedRNN
CELLS = ("simple_rnn", "gru", "lstm")
SKIPS = ("plain", "residual", "highway")


def _skip_kwargs(skip):
    return {"residual": skip == "residual", "highway": skip == "highway"}


@pytest.mark.grid(stride=12)
@pytest.mark.parametrize(
    "cell,bidirectional,skip,layer_norm",
    list(itertools.product(CELLS, (False, True), SKIPS, (False, True))),
)
def test_every_combination_trains_saves_and_reloads(
    cell, bidirectional, skip, layer_norm, tmp_path
):
    model, layer = helpers.stacked_model(
        5,
        cell=cell,
        units=4,
        num_layers=3,
        bidirectional=bidirectional,
        layer_norm=layer_norm,
        inter_layer_dropout=0.1,
        return_sequences=True,
        **_skip_kwargs(skip),
    )
    x = np.random.default_rng(0).normal(size=(2, 6, 5)).astype("float32")
    width = 8 if bidirectional else 4
    assert tuple(model(x).shape) == (2, 6, width)
    helpers.train_step(model, x)
    helpers.check_config_round_trip(layer)
    helpers.check_saves_and_reloads(model, x, tmp_path)


@pytest.mark.parametrize("cell", CELLS)
def test_lower_layers_return_sequences_top_returns_last(cell):
    model, layer = helpers.stacked_model(3, cell=cell, units=[4, 5, 6])
    x = np.zeros((2, 7, 3), "float32")
    assert tuple(model(x).shape) == (2, 6)
    sequences = [rnn.return_sequences for rnn in layer.recurrent_layers]
    assert sequences == [True, True, False]


def test_weights_are_independent_per_layer():
    _, layer = helpers.stacked_model(4, units=4, num_layers=3)
    kernels = [rnn.cell.recurrent_kernel for rnn in layer.recurrent_layers]
    before = [helpers.to_numpy(k).copy() for k in kernels]
    kernels[0].assign(np.zeros((4, 16), "float32"))
    for kernel, old in zip(kernels[1:], before[1:]):
        np.testing.assert_array_equal(helpers.to_numpy(kernel), old)
    assert len({w.path for w in layer.weights}) == len(layer.weights)


# A stack with every kind of part: a highway GRU, a bidirectional
# weight-dropped LSTM, a bidirectional LSTM in a highway wrapper, layer
# norm and dropout between layers.
MIXED = dict(
    cell=["gru", "lstm", "lstm"],
    units=4,
    bidirectional=[False, True, True],
    highway=[True, False, True],
    layer_norm=True,
    inter_layer_dropout=0.1,
    weight_drop=[0.0, 0.2, 0.0],
    merge_mode=["concat", "sum", "sum"],
    return_sequences=True,
)


def test_stack_layers_are_one_record_per_layer():
    _, stack = helpers.stacked_model(4, **MIXED)
    records = stack.stack_layers
    assert isinstance(records, tuple) and len(records) == 3
    for index, layer in enumerate(records):
        assert isinstance(layer, zoo.layers.StackLayer)
        assert layer.index == index
        assert layer.spec == stack.layer_specs[index]
        assert layer.cell is zoo.cells.get(layer.spec.cell)
        assert layer.recurrent is stack.recurrent_layers[index]
        assert layer.block is stack.blocks[index]
        assert list(layer.after) == stack.between_layers[index]
    assert [layer.wrapped for layer in records] == [True, False, True]
    assert [len(layer.directions) for layer in records] == [1, 2, 2]
    forward, backward = records[1].directions
    assert isinstance(forward, zoo.layers.WeightDropLSTM)
    assert backward.go_backwards and not forward.go_backwards
    assert records[0].block.layer is records[0].recurrent
    assert [type(a).__name__ for a in records[0].after] == [
        "LayerNormalization",
        "VariationalDropout",
    ]
    assert records[2].after == ()
    assert stack.sublayers == [
        part for layer in records for part in (layer.block, *layer.after)
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        records[0].block = records[1].block


def test_weights_are_tracked_layer_by_layer():
    model, stack = helpers.stacked_model(4, **MIXED)
    expected = []
    for layer in stack.stack_layers:
        for part in (layer.recurrent, layer.block, *layer.after):
            expected += [w.path for w in part.weights if w.path not in expected]
    assert [w.path for w in stack.weights] == expected
    assert [w.path for w in model.weights] == expected


def test_the_saved_weights_keep_their_places(tmp_path):
    """Keras files each weight under the attribute that reaches it first
    (`blocks`, `between_layers`, ...): these places are the file format."""
    model, _ = helpers.stacked_model(4, name="stack", **MIXED)
    model.save(tmp_path / "model.keras")
    with zipfile.ZipFile(tmp_path / "model.keras") as archive:
        archive.extract("model.weights.h5", tmp_path)
    places = []
    with h5py.File(tmp_path / "model.weights.h5") as weights:
        weights.visititems(
            lambda name, item: (
                places.append(name) if isinstance(item, h5py.Dataset) else None
            )
        )
    stack = "layers/stacked_rnn/"
    norm = "layer_normalization/vars/"
    bidirectional = [
        f"{direction}/cell/vars/{i}"
        for direction in ("backward_layer", "forward_layer")
        for i in range(3)
    ]
    assert sorted(places) == sorted(
        [
            *(f"{stack}between_layers/container/{norm}{i}" for i in (0, 1)),
            *(f"{stack}between_layers/container_1/{norm}{i}" for i in (0, 1)),
            *(f"{stack}blocks/bidirectional/{p}" for p in bidirectional),
            *(f"{stack}blocks/highway_wrapper/gate/vars/{i}" for i in (0, 1)),
            *(
                f"{stack}blocks/highway_wrapper/layer/cell/vars/{i}"
                for i in (0, 1, 2)
            ),
            *(f"{stack}blocks/highway_wrapper_1/gate/vars/{i}" for i in (0, 1)),
            *(
                f"{stack}blocks/highway_wrapper_1/layer/{p}"
                for p in bidirectional
            ),
        ]
    )


def test_between_layer_options_take_per_layer_lists():
    _, layer = helpers.stacked_model(
        3,
        units=4,
        bidirectional=True,
        merge_mode=["sum", "concat"],
        layer_norm=[False, True],
        inter_layer_dropout=[0.2, 0.0],
        return_sequences=True,
    )
    assert [len(b) for b in layer.between_layers] == [1, 1]
    assert layer.between_layers[1][0].name.endswith("layer1_layer_norm")
    assert layer(np.zeros((1, 2, 3), "float32")).shape == (1, 2, 8)


def test_layer_names_are_deterministic():
    layer = zoo.layers.StackedRNN(
        "gru", 4, 2, residual=True, layer_norm=True, name="enc"
    )
    names = [block.name for block in layer.blocks]
    assert names == ["enc_layer0_gru", "enc_layer1_residual"]
    assert layer.between_layers[0][0].name == "enc_layer0_layer_norm"


def test_residual_uses_projection_where_widths_differ():
    x = np.ones((2, 3, 4), "float32")
    _, layer = helpers.stacked_model(
        4, units=[4, 6, 6], residual=True, return_sequences=True
    )
    assert layer.blocks[0] is layer.recurrent_layers[0]  # first layer plain
    assert layer.blocks[1].projection_layer is not None  # 4 -> 6
    assert layer.blocks[2].projection_layer is None  # 6 -> 6
    assert layer(x).shape == (2, 3, 6)


def test_residual_auto_turns_on_from_three_layers():
    shallow = zoo.layers.StackedRNN(units=4, num_layers=2, residual="auto")
    deep = zoo.layers.StackedRNN(units=4, num_layers=3, residual="auto")
    assert [s.residual for s in shallow.layer_specs] == [False, False]
    assert [s.residual for s in deep.layer_specs] == [False, True, True]


def test_residual_list_can_include_first_layer():
    _, layer = helpers.stacked_model(
        3, units=4, residual=[True, True], return_sequences=True
    )
    assert layer.blocks[0].projection_layer is not None  # 3 -> 4


def test_output_all_returns_every_layer_and_mixes():
    inputs = keras.Input((None, 3))
    layers = zoo.layers.StackedRNN(
        units=4, num_layers=3, output="all", return_sequences=True
    )(inputs)
    assert len(layers) == 3
    mixed = zoo.layers.ScalarMix()(layers)
    model = keras.Model(inputs, mixed)
    x = np.random.default_rng(1).normal(size=(2, 5, 3)).astype("float32")
    assert tuple(model(x).shape) == (2, 5, 4)
    assert helpers.missing_gradients(model, x) == []


def test_return_state_order_matches_each_layer_run_alone():
    x = np.random.default_rng(2).normal(size=(2, 5, 3)).astype("float32")
    layer = zoo.layers.StackedRNN(
        ["lstm", "gru"],
        4,
        bidirectional=[True, False],
        return_state=True,
        return_sequences=True,
    )
    output, *states = layer(x)
    assert len(states) == 4 + 1  # [h, c] fwd, [h, c] bwd, then h
    # Layer 0 alone, with the same weights.
    first = layer.recurrent_layers[0]
    sequence, *first_states = first(x)
    for got, want in zip(states[:4], first_states):
        np.testing.assert_allclose(
            helpers.to_numpy(got), helpers.to_numpy(want), atol=1e-6
        )
    _, last_h = layer.recurrent_layers[1](sequence)
    np.testing.assert_allclose(
        helpers.to_numpy(states[4]), helpers.to_numpy(last_h), atol=1e-6
    )
    np.testing.assert_allclose(
        helpers.to_numpy(output[:, -1]), helpers.to_numpy(last_h), atol=1e-6
    )


def test_initial_state_round_trips_through_return_state():
    rng = np.random.default_rng(3)
    first = rng.normal(size=(2, 4, 3)).astype("float32")
    second = rng.normal(size=(2, 5, 3)).astype("float32")
    layer = zoo.layers.StackedRNN(
        "lstm", 4, 2, return_state=True, return_sequences=True
    )
    whole, *_ = layer(np.concatenate([first, second], axis=1))
    _, *states = layer(first)
    continued, *_ = layer(second, initial_state=states)
    np.testing.assert_allclose(
        helpers.to_numpy(continued),
        helpers.to_numpy(whole[:, 4:]),
        atol=1e-5,
    )


def test_stateful_stack_carries_state_and_resets():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 6, 3)).astype("float32")
    model = zoo.stacked_gru(
        2, 4, input_dim=3, batch_size=2, stateful=True, residual=True
    )
    whole = zoo.stacked_gru(2, 4, input_dim=3, batch_size=2, residual=True)
    whole.set_weights(model.get_weights())
    expected = helpers.to_numpy(whole(x))
    model(x[:, :3])
    continued = helpers.to_numpy(model(x[:, 3:]))
    np.testing.assert_allclose(continued, expected[:, 3:], atol=1e-5)
    assert zoo.reset_states(model) == 2
    fresh = helpers.to_numpy(model(x[:, :3]))
    np.testing.assert_allclose(fresh, expected[:, :3], atol=1e-5)


def test_stacked_rnn_inside_subclassed_model(tmp_path):
    class Tagger(keras.Model):
        def __init__(self):
            super().__init__()
            self.embed = keras.layers.Embedding(10, 4, mask_zero=True)
            self.stack = zoo.layers.StackedRNN(
                "gru", 4, 2, return_sequences=True
            )
            self.head = keras.layers.Dense(3)

        def call(self, ids):
            x = self.embed(ids)
            return self.head(self.stack(x, mask=self.embed.compute_mask(ids)))

    model = Tagger()
    ids = np.array([[1, 2, 3, 0], [4, 5, 0, 0]], "int32")
    assert tuple(model(ids).shape) == (2, 4, 3)
    helpers.train_step(model, ids)


# `StackedRNN._keep_alive` works around Keras 3.15.1: `Bidirectional`
# serialises the layer it is given and keeps only copies, and while a model
# loads Keras maps `id(obj)` to what it has (de)serialised; a freed original
# whose address the next layer reuses makes Keras hand back the earlier
# layer's copy (see the method's docstring for the Keras source lines).
# A Keras layer sits in reference cycles, so it is freed by Python's
# cyclic collector, whenever that runs in a long load: the fixture runs
# it (the youngest generation, which holds the original) before each
# recurrent layer is made, so that the original's address is free to
# reuse. Reuse is up to the allocator, hence several loads (on TensorFlow,
# JAX and PyTorch most loads fail without the workaround).
BIDIRECTIONAL = dict(cell="lstm", units=2, num_layers=6, bidirectional=True)


@pytest.fixture
def collect_before_each_layer(monkeypatch):
    make = StackedRNN._recurrent_layer

    def collected(self, spec):
        gc.collect(0)
        return make(self, spec)

    monkeypatch.setattr(StackedRNN, "_recurrent_layer", collected)


def _saved_bidirectional_stack(tmp_path):
    model, _ = helpers.stacked_model(3, return_sequences=True, **BIDIRECTIONAL)
    path = tmp_path / "bidirectional.keras"
    model.save(path)
    return model, path


def test_bidirectional_stacks_reload_every_time(
    collect_before_each_layer, tmp_path
):
    model, path = _saved_bidirectional_stack(tmp_path)
    x = np.random.default_rng(3).normal(size=(2, 4, 3)).astype("float32")
    expected = helpers.to_numpy(model(x))
    for _ in range(5):
        reloaded = keras.saving.load_model(path, safe_mode=True)
        np.testing.assert_allclose(
            helpers.to_numpy(reloaded(x)), expected, atol=1e-6
        )


def test_without_keeping_the_originals_a_reload_fails(
    collect_before_each_layer, monkeypatch, tmp_path
):
    """The Keras bug that `StackedRNN._keep_alive` avoids, shown."""
    monkeypatch.setattr(StackedRNN, "_keep_alive", lambda self, layer: None)
    _, path = _saved_bidirectional_stack(tmp_path)
    errors = []
    for _ in range(20):
        try:
            keras.saving.load_model(path, safe_mode=True)
        except (TypeError, ValueError) as error:
            errors.append(str(error))
            break
    assert errors, "no reload failed: has Keras fixed the id reuse?"
    assert "should have different `go_backwards` value" in errors[0]
