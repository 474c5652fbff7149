"""Bad input gets a clear error naming the argument, value and choices."""

import keras
import numpy as np
import pytest

import zoo

StackedRNN = zoo.layers.StackedRNN


@pytest.mark.parametrize(
    "kwargs,error,pattern",
    [
        (
            dict(num_layers=0),
            ValueError,
            r"num_layers.*>= 1.*received num_layers=0",
        ),
        (
            dict(num_layers=-2),
            ValueError,
            r"num_layers.*received num_layers=-2",
        ),
        (dict(num_layers=2.5), TypeError, r"num_layers.*2\.5"),
        (dict(units=0), ValueError, r"units.*received units=0"),
        (dict(units=-4), ValueError, r"units.*-4"),
        (dict(units=[4, 0]), ValueError, r"units\[1\].*0"),
        (dict(units="8"), TypeError, r"units.*'8'"),
        (
            dict(units=[4, 4], num_layers=3),
            ValueError,
            r"units.*2 entries.*num_layers=3",
        ),
        (
            dict(units=[4, 4], cell=["gru", "gru", "lstm"]),
            ValueError,
            r"disagree.*cell has 3, units has 2",
        ),
        (
            dict(cell="transformer"),
            ValueError,
            r"cell.*'simple_rnn', 'gru', 'lstm'.*'transformer'",
        ),
        (dict(cell=["lstm", "LSTM"]), ValueError, r"cell\[1\].*'LSTM'"),
        (dict(dropout=1.0), ValueError, r"dropout.*\[0, 1\).*1\.0"),
        (dict(dropout=-0.1), ValueError, r"dropout.*-0\.1"),
        (dict(recurrent_dropout=1.5), ValueError, r"recurrent_dropout.*1\.5"),
        (
            dict(inter_layer_dropout=1.0),
            ValueError,
            r"inter_layer_dropout.*\[0, 1\)",
        ),
        (dict(weight_drop=2.0), ValueError, r"weight_drop.*2\.0"),
        (dict(dropout=float("nan")), ValueError, r"dropout.*finite.*nan"),
        (dict(dropout=[0.1, float("inf")]), ValueError, r"dropout\[1\].*inf"),
        (dict(seed="abc"), TypeError, r"`seed` must be an integer.*'abc'"),
        (
            dict(output="all", return_sequences=False),
            ValueError,
            r"output='all'.*return_sequences=True",
        ),
        (dict(output="mean"), ValueError, r"output.*'top', 'all'.*'mean'"),
        (dict(merge_mode=None), ValueError, r"merge_mode.*'concat'.*None"),
        (dict(residual="yes"), ValueError, r"residual.*'auto'.*'yes'"),
        (dict(highway="auto"), ValueError, r"highway.*True, False.*'auto'"),
        (
            dict(residual=[False, True], highway=[False, True]),
            ValueError,
            r"Layer 1 has both residual=True and highway=True",
        ),
        (dict(bidirectional="yes"), TypeError, r"bidirectional.*'yes'"),
        (dict(return_sequences=1), TypeError, r"return_sequences.*1"),
    ],
)
def test_stacked_rnn_rejects(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        StackedRNN(**{"units": 4, **kwargs})


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4, 5), (4,)])
def test_inputs_of_the_wrong_rank(shape):
    with pytest.raises(ValueError, match=r"rank 3.*received.*shape"):
        StackedRNN(units=4)(np.zeros(shape, "float32"))


def test_residual_width_mismatch_without_projection():
    import keras

    layer = zoo.layers.ResidualWrapper(
        keras.layers.GRU(4, return_sequences=True), projection=None
    )
    with pytest.raises(ValueError, match=r"projection=None"):
        layer(np.zeros((1, 3, 6), "float32"))


def test_initial_state_of_the_wrong_length():
    layer = StackedRNN("lstm", 4, 2, return_sequences=True)
    with pytest.raises(ValueError, match=r"initial_state.*4 tensors.*3"):
        layer(
            np.zeros((1, 3, 2), "float32"),
            initial_state=[np.zeros((1, 4), "float32")] * 3,
        )


@pytest.mark.parametrize(
    "kwargs,pattern",
    [
        (dict(), r"exactly one of `input_dim`.*`vocabulary_size`"),
        (dict(input_dim=3, vocabulary_size=10), r"exactly one"),
        (dict(input_dim=0), r"input_dim.*0"),
        (dict(vocabulary_size=-1), r"vocabulary_size.*-1"),
        (dict(input_dim=3, embedding_dropout=0.1), r"embedding_dropout"),
        (dict(vocabulary_size=10, embedding_dropout=1.0), r"embedding_dropout"),
    ],
)
def test_builder_rejects(kwargs, pattern):
    with pytest.raises((ValueError, TypeError), match=pattern):
        zoo.stacked_rnn("lstm", 2, 4, **kwargs)


@pytest.mark.parametrize(
    "kwargs,pattern",
    [
        (dict(layer_norm=[True]), r"layer_norm.*1 entries.*num_layers=2"),
        (dict(layer_norm="yes"), r"layer_norm.*'yes'"),
        (dict(inter_layer_dropout=[0.1, 1.2]), r"inter_layer_dropout\[1\]"),
        (dict(merge_mode=["sum", "max"]), r"merge_mode\[1\].*'max'"),
    ],
)
def test_per_layer_between_options_are_checked(kwargs, pattern):
    with pytest.raises((ValueError, TypeError), match=pattern):
        StackedRNN(units=4, num_layers=2, **kwargs)


def test_count_params_rejects_bad_options():
    with pytest.raises(ValueError, match=r"input_dim.*received input_dim=0"):
        zoo.count_params("lstm", 0, 4)
    with pytest.raises(TypeError, match=r"input_dim.*None"):
        zoo.count_params("lstm", None, 4)
    with pytest.raises(TypeError, match=r"input_dim.*None"):
        zoo.width_for_budget("lstm", None, 2, 1000)
    with pytest.raises(ValueError, match=r"cell.*'rnn'"):
        zoo.count_params("rnn", 4, 4)
    with pytest.raises(ValueError, match=r"units"):
        zoo.count_params("lstm", 4, 0)


def test_a_highway_gate_bias_must_be_a_finite_number():
    lstm = keras.layers.LSTM(4, return_sequences=True)
    with pytest.raises(TypeError, match=r"`gate_bias` must be a float.*'x'"):
        zoo.layers.HighwayWrapper(lstm, gate_bias="x")
    with pytest.raises(ValueError, match=r"`gate_bias` must be finite"):
        zoo.layers.HighwayWrapper(lstm, gate_bias=float("nan"))


def test_seq2seq_sides_must_be_dicts_of_options():
    with pytest.raises(TypeError) as info:
        zoo.build_seq2seq(20, 20, decoder="lstm")
    message = str(info.value)
    assert message.startswith("`decoder` must be a dict of decoder options")
    assert "received decoder='lstm' of type str" in message


def test_two_default_backbones_fit_in_one_model():
    # Named as Keras names layers: stacked_rnn, stacked_rnn_1, ...
    inputs = keras.Input((None,), dtype="int32")
    first = zoo.stacked_lstm(1, 4, vocabulary_size=10)
    second = zoo.stacked_gru(1, 4, vocabulary_size=10)
    assert (first.name, second.name) == ("stacked_rnn", "stacked_rnn_1")
    both = keras.layers.Concatenate()([first(inputs), second(inputs)])
    model = keras.Model(inputs, both)
    assert model.predict(np.array([[1, 2, 3]]), verbose=0).shape == (1, 3, 8)


def test_wrapping_a_stack_in_bidirectional_points_to_the_option():
    with pytest.raises(ValueError) as info:
        keras.layers.Bidirectional(StackedRNN(units=4, return_sequences=True))
    message = str(info.value)
    assert message.startswith("zoo.layers.StackedRNN cannot be wrapped in ")
    assert "pass bidirectional=True" in message
