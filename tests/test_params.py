"""`count_params` equals Keras; `width_for_budget` fits the budget."""

import os

import keras
import numpy as np
import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import zoo
from zoo.walk import iter_layers

cells = st.sampled_from(["simple_rnn", "gru", "lstm"])


@st.composite
def stack_configs(draw):
    num_layers = draw(st.integers(1, 4))
    per_layer = draw(st.booleans())

    def value(strategy):
        if per_layer:
            return draw(
                st.lists(strategy, min_size=num_layers, max_size=num_layers)
            )
        return draw(strategy)

    skips = draw(
        st.lists(
            st.sampled_from(["none", "residual", "highway"]),
            min_size=num_layers,
            max_size=num_layers,
        )
    )
    config = dict(
        cell=value(cells),
        units=value(st.integers(1, 9)),
        num_layers=num_layers,
        bidirectional=value(st.booleans()),
        merge_mode=value(st.sampled_from(["concat", "sum", "ave", "mul"])),
        residual=[s == "residual" for s in skips],
        highway=[s == "highway" for s in skips],
        layer_norm=value(st.booleans()),
        dropout=draw(st.sampled_from([0.0, 0.2])),
        inter_layer_dropout=draw(st.sampled_from([0.0, 0.3])),
    )
    input_dim = draw(st.integers(1, 7))
    vocabulary = draw(st.one_of(st.none(), st.integers(2, 30)))
    return config, input_dim, vocabulary


@settings(
    # Fewer in the core tier (JAX, PyTorch), where each model compiles
    # (10 took 36 s on JAX); the count is the same arithmetic everywhere,
    # and the default backend's tier draws 20.
    # `make test-all` (--run-slow) draws 20 stacks; `make test` fewer.
    max_examples=20
    if os.environ.get("ZOO_RUN_SLOW")
    else 5
    if os.environ.get("ZOO_TEST_TIER") == "core"
    else 8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(stack_configs())
def test_count_params_equals_keras(drawn):
    config, input_dim, vocabulary = drawn
    if vocabulary is None:
        model = zoo.stacked_rnn(input_dim=input_dim, **config)
    else:
        model = zoo.stacked_rnn(
            vocabulary_size=vocabulary, embedding_dim=input_dim, **config
        )
    expected = model.count_params()
    keras.backend.clear_session()
    cell = config.pop("cell")
    units = config.pop("units")
    got = zoo.count_params(
        cell, input_dim, units, vocabulary_size=vocabulary, **config
    )
    assert got == expected


def test_count_params_known_values():
    # 4u(i + u + 1) per LSTM layer: 4*256*385 + 4*256*513.
    assert zoo.count_params("lstm", 128, 256, num_layers=2) == 919552
    # GRU (reset_after=True) has two bias vectors: 3u(i + u + 2).
    assert zoo.count_params("gru", 10, 5, num_layers=1) == 3 * 5 * 17
    assert zoo.count_params("simple_rnn", 3, 2, num_layers=1) == 2 * 6


@pytest.mark.parametrize("cell", ["simple_rnn", "gru", "lstm"])
@pytest.mark.parametrize("num_layers", [1, 2, 4, 8])
def test_width_for_budget_is_the_closest_width(cell, num_layers):
    budget = 1_600_000
    units = zoo.width_for_budget(cell, 128, num_layers, budget)

    def count(u):
        return zoo.count_params(cell, 128, u, num_layers=num_layers)

    error = abs(count(units) - budget)
    assert error <= abs(count(units - 1) - budget)
    assert error <= abs(count(units + 1) - budget)
    assert error / budget < 0.02


def test_width_for_budget_deeper_is_narrower():
    widths = [
        zoo.width_for_budget("lstm", 64, depth, 500_000, residual=True)
        for depth in (1, 2, 4, 8)
    ]
    assert widths == sorted(widths, reverse=True)
    assert len(set(widths)) == 4


def test_width_for_budget_matches_a_built_model():
    units = zoo.width_for_budget(
        "gru", 16, 3, 50_000, bidirectional=True, vocabulary_size=100
    )
    model = zoo.stacked_gru(
        3, units, vocabulary_size=100, embedding_dim=16, bidirectional=True
    )
    assert abs(model.count_params() - 50_000) / 50_000 < 0.05


def test_width_for_budget_rejects_a_budget_too_small():
    with pytest.raises(ValueError, match="budget"):
        zoo.width_for_budget("lstm", 128, 4, 100)
    with pytest.raises(ValueError, match="budget"):
        zoo.width_for_budget("lstm", 128, 4, 0)


def test_count_params_is_linear_in_depth_at_fixed_width():
    counts = np.array(
        [zoo.count_params("lstm", 64, 64, num_layers=d) for d in range(1, 6)]
    )
    steps = np.diff(counts)
    assert (steps == steps[0]).all()  # one layer's worth per layer


def test_width_for_budget_with_a_decoder_counts_both_seq2seq_stacks():
    units = zoo.width_for_budget(
        "lstm", 16, 2, 60_000, decoder=True, bidirectional=True
    )
    model = zoo.build_seq2seq(
        30, 30, "lstm", 2, units, embedding_dim=16, bidirectional=True
    )
    model((np.ones((1, 4), "int32"), np.ones((1, 3), "int32")))
    stacks = [
        layer
        for layer in iter_layers(model)
        if isinstance(layer, zoo.StackedRNN)
    ]
    assert len(stacks) == 2
    total = sum(stack.count_params() for stack in stacks)
    assert abs(total - 60_000) / 60_000 < 0.03
    # Without the decoder the one stack gets the whole budget: wider.
    assert (
        zoo.width_for_budget("lstm", 16, 2, 60_000, bidirectional=True) > units
    )
    with pytest.raises(ValueError, match="`decoder` must be True or False"):
        zoo.width_for_budget("lstm", 16, 2, 60_000, decoder="yes")
