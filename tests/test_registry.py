"""The registry, and every registered model (new variants are covered)."""

import numpy as np
import pytest

import zoo
from tests import helpers

TINY = dict(units=4, embedding_dim=4, vocabulary_size=11)


def test_list_models_is_sorted_and_filters():
    names = zoo.list_models()
    assert names == sorted(names)
    assert {
        "lstm_base",
        "bilstm_residual_base",
        "gru_deep_residual_base",
    } <= set(names)
    assert zoo.list_models("gru*") == [n for n in names if n.startswith("gru")]


def test_duplicate_registration_is_an_error():
    def lstm_base(**overrides):
        return None

    with pytest.raises(ValueError, match="'lstm_base' is registered twice"):
        zoo.register_model(lstm_base)


def test_unknown_model_lists_the_choices():
    with pytest.raises(
        ValueError, match=r"Unknown model 'lstm_huge'.*lstm_base"
    ):
        zoo.create_model("lstm_huge", input_dim=3)


def test_model_needs_its_input():
    with pytest.raises(ValueError, match="vocabulary_size=.*input_dim="):
        zoo.create_model("lstm_base")


def test_overrides_replace_defaults():
    model = zoo.create_model(
        "gru_deep_residual_base", input_dim=3, units=4, num_layers=3
    )
    stack = model.get_layer("gru_deep_residual_base_stack")
    assert stack.num_layers == 3
    # The name of 0.1.0's first days is gone, not an alias.
    with pytest.raises(ValueError, match="Unknown model 'gru_residual_deep'"):
        zoo.create_model("gru_residual_deep", input_dim=3)
    assert [s.units for s in stack.layer_specs] == [4, 4, 4]
    assert model.count_params() == zoo.count_params(
        "gru", 3, 4, num_layers=3, residual=True, layer_norm=True
    )


def test_per_layer_list_sets_the_depth_of_builders_and_variants():
    model = zoo.stacked_rnn("gru", units=[4, 5, 6], input_dim=3)
    assert model.get_layer("stacked_rnn_stack").num_layers == 3
    variant = zoo.create_model("lstm_base", input_dim=3, units=[4, 4, 4])
    assert variant.get_layer("lstm_base_stack").num_layers == 3


@pytest.mark.grid(stride=6)
@pytest.mark.parametrize("name", zoo.list_models())
def test_registered_model(name, tmp_path):
    model = zoo.create_model(name, return_state=True, **TINY)
    ids = np.array([[1, 2, 3, 4, 5], [6, 7, 8, 0, 0]], "int32")
    outputs, *states = helpers.flat_numpy(model(ids))
    assert outputs.shape[:2] == (2, 5)
    assert np.isfinite(outputs).all()
    # A padded sequence gives the same outputs and final states as the
    # sequence alone.
    alone, *alone_states = helpers.flat_numpy(model(ids[1:, :3]))
    np.testing.assert_allclose(outputs[1, :3], alone[0], atol=1e-5)
    for got, want in zip(states, alone_states):
        np.testing.assert_allclose(got[1], want[0], atol=1e-5)
    assert helpers.missing_gradients(model, ids) == []
    helpers.check_saves_and_reloads(model, ids, tmp_path)


def test_every_name_says_its_size_and_defaults_do_not_follow_overrides():
    sizes = ("tiny", "small", "base", "large")
    for name in zoo.list_models():
        assert name.rsplit("_", 1)[1] in sizes, name
    # The variant's embedding dropout applies to token inputs, whatever
    # else is overridden; float inputs have no embedding.
    tokens = zoo.create_model("lstm_awd_base", vocabulary_size=20, units=4)
    assert tokens.get_layer("lstm_awd_base_embedding_dropout").rate == 0.1
    floats = zoo.create_model("lstm_awd_base", input_dim=3, units=4)
    assert floats.get_layer("lstm_awd_base_stack").num_layers == 3
