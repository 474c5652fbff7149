"""`zoo.validation` and `zoo.walk`: the public helpers other packages use."""

import keras
import pytest

import zoo
from zoo import options
from zoo import validation
from zoo import walk


def test_check_choice_names_the_argument_the_choices_and_the_value():
    assert validation.check_choice("mode", "mean", ("last", "mean")) == "mean"
    with pytest.raises(ValueError) as error:
        validation.check_choice("mode", "max", ("last", "mean"))
    assert str(error.value) == (
        "`mode` must be one of 'last', 'mean'; received mode='max'."
    )


def test_interval_writes_bounds_as_an_interval():
    assert validation.interval(0, 1, high_inclusive=False) == "[0, 1)"
    assert validation.interval(1) == "[1, inf)"
    assert validation.interval(high=5) == "(-inf, 5]"
    assert validation.interval(0.5, 2, False, True) == "(0.5, 2]"
    assert validation.interval() == "(-inf, inf)"


def test_an_option_describes_its_bounds():
    assert options.get("dropout").interval() == "[0, 1)"
    assert options.get("units").interval() == "[1, inf)"
    assert options.get("seed").interval() == "[0, inf)"


def test_the_number_checks_name_the_argument_and_the_value():
    assert validation.check_positive_int("units", 3) == 3
    with pytest.raises(ValueError, match=r"`units` must be an integer >= 1"):
        validation.check_positive_int("units", 0)
    with pytest.raises(validation.ArgumentTypeError, match=r"of type str"):
        validation.check_rate("dropout", "0.1")
    assert isinstance(validation.check_rate("dropout", 0), float)


def test_walk_finds_every_recurrent_layer():
    model = zoo.stacked_lstm(2, 4, input_dim=3, bidirectional=True)
    rnns = walk.recurrent_layers(model)
    assert len(rnns) == 4
    assert all(isinstance(rnn, keras.layers.LSTM) for rnn in rnns)
    assert model in list(walk.iter_layers(model))
    bidirectional = next(
        layer
        for layer in walk.iter_layers(model)
        if isinstance(layer, keras.layers.Bidirectional)
    )
    forward, backward = walk.directions(bidirectional)
    assert backward.go_backwards and not forward.go_backwards
    assert walk.directions(forward) == [forward]
    assert zoo.reset_states is walk.reset_states
