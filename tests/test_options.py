"""`zoo.options` is the one list of stack options, and the zoo follows it."""

import dataclasses
import inspect

import pytest

import zoo
from zoo import options
from zoo import spec
from zoo.seq2seq import model as seq2seq_model

StackedRNN = zoo.layers.StackedRNN

# A value other than the default for every option, all valid together.
CHANGED = {
    "cell": ["gru", "lstm"],
    "units": [3, 5],
    "num_layers": 2,
    "bidirectional": [True, False],
    "merge_mode": "sum",
    "dropout": 0.1,
    "recurrent_dropout": [0.2, 0.0],
    "inter_layer_dropout": 0.3,
    "weight_drop": 0.4,
    "activation": "relu",
    "recurrent_activation": "hard_sigmoid",
    "use_bias": [False, True],
    "kernel_initializer": "he_normal",
    "recurrent_initializer": {"class_name": "Identity", "config": {}},
    "bias_initializer": "ones",
    "unit_forget_bias": [True, False],
    "kernel_regularizer": "l2",
    "recurrent_regularizer": ["l1", None],
    "bias_regularizer": "l1l2",
    "activity_regularizer": "l2",
    "kernel_constraint": "max_norm",
    "recurrent_constraint": "unit_norm",
    "bias_constraint": "non_neg",
    "reset_after": [False, True],
    "unroll": True,
    "residual": [False, True],
    "highway": [True, False],
    "layer_norm": True,
    "return_sequences": True,
    "return_state": True,
    "output": "all",
    "stateful": True,
    "seed": 7,
    "vocabulary_size": 30,
    "embedding_dim": 6,
    "embedding_dropout": 0.2,
    "mask_zero": False,
    "mask_value": 0.0,
}


# The same for the character encoder's options.
CHARACTER_CHANGED = {
    "char_vocabulary_size": 30,
    "char_embedding_dim": 8,
    "char_units": 6,
    "char_kind": "cnn",
    "max_chars": 12,
}


def _keyword_defaults(function, skip=()):
    return {
        name: parameter.default
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.kind
        in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
        and name not in ("self", *skip)
    }


def test_the_interface():
    assert options.STACK_OPTIONS == (
        options.LAYER_OPTIONS + options.INPUT_OPTIONS
    )
    fields = [f.name for f in dataclasses.fields(options.Option)]
    assert fields == [
        "name",
        "default",
        "type",
        "per_layer",
        "adds_params",
        "choices",
        "low",
        "high",
        "low_inclusive",
        "high_inclusive",
        "help",
        "keras_object",
        "cells",
    ]
    names = [o.name for o in options.STACK_OPTIONS]
    assert list(options.defaults()) == names
    assert options.ALL_OPTIONS == (
        options.STACK_OPTIONS + options.CHARACTER_OPTIONS
    )
    everything = [o.name for o in options.ALL_OPTIONS]
    assert len(set(everything)) == len(everything)
    for option in options.ALL_OPTIONS:
        assert options.get(option.name) is option
        assert option.help and "\n" not in option.help
        assert options.validate(option.name, option.default) == option.default
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.get("units").default = 3
    with pytest.raises(ValueError, match=r"'unitz' is not a stack option"):
        options.get("unitz")


def test_every_stacked_rnn_argument_is_declared_with_its_default():
    keras_names = {o.name for o in options.KERAS_RNN_OPTIONS}
    declared = {
        o.name: o.default
        for o in options.LAYER_OPTIONS
        if o.name not in keras_names
    }
    signature = _keyword_defaults(StackedRNN.__init__)
    assert list(signature) == list(declared)
    assert signature == declared
    # Keras's own arguments come through **kwargs, with Keras's defaults.
    assert keras_names < {o.name for o in options.LAYER_OPTIONS}


@pytest.mark.parametrize("cell", options.CELLS)
def test_the_keras_options_have_keras_defaults(cell):
    import keras

    layer = {"lstm": keras.layers.LSTM, "gru": keras.layers.GRU}.get(
        cell, keras.layers.SimpleRNN
    )
    keras_defaults = _keyword_defaults(layer.__init__)
    for option in options.KERAS_RNN_OPTIONS:
        if cell in option.cells:
            assert keras_defaults[option.name] == option.default, option.name
        else:
            assert option.name not in keras_defaults, option.name
    # Those left out are the stack's own (`dropout`, `return_sequences`,
    # `seed`, ...) or refused (`go_backwards`), and `use_cudnn`, which the
    # stack's fused path decides.
    declared = {o.name for o in options.LAYER_OPTIONS} | {"units"}
    left = set(keras_defaults) - declared
    assert left <= {"go_backwards", "use_cudnn"}, left


def test_the_builder_declares_its_input_options():
    builder = _keyword_defaults(zoo.Backbone)
    for option in options.INPUT_OPTIONS:
        assert builder[option.name] == option.default, option.name
    # The builder's one different default: a backbone returns sequences.
    shared = set(builder) & {o.name for o in options.LAYER_OPTIONS}
    assert {n for n in shared if builder[n] != options.get(n).default} == {
        "return_sequences"
    }


def test_the_character_options_are_the_encoders_defaults():
    declared = {o.name: o.default for o in options.CHARACTER_OPTIONS}
    builder = _keyword_defaults(zoo.Backbone)
    for name in ("char_vocabulary_size", "char_embedding_dim", "char_units"):
        assert builder[name] == declared[name], name
    assert builder["char_kind"] == declared["char_kind"]
    encoder = _keyword_defaults(zoo.layers.CharacterEncoder)
    assert encoder["char_embedding_dim"] == declared["char_embedding_dim"]
    assert encoder["char_units"] == declared["char_units"]
    assert encoder["kind"] == declared["char_kind"]
    # Required there: no default.
    assert encoder["char_vocabulary_size"] is inspect.Parameter.empty
    spelling = _keyword_defaults(zoo.layers.CharacterVocabulary)
    assert spelling["max_chars"] == declared["max_chars"]
    assert options.get("char_kind").choices == zoo.layers.characters.KINDS
    # Not stack options: the recipes' flags come from STACK_OPTIONS.
    stack = {o.name for o in options.STACK_OPTIONS}
    assert not stack & set(declared)


def test_the_character_options_are_checked_by_their_names():
    with pytest.raises(ValueError, match=r"`char_kind` must be one of"):
        zoo.stacked_rnn(
            vocabulary_size=9, char_vocabulary_size=5, char_kind="x"
        )
    with pytest.raises(ValueError, match=r"`kind` must be one of 'rnn', 'cnn'"):
        zoo.layers.CharacterEncoder(5, kind="x")
    with pytest.raises(TypeError, match=r"received char_vocabulary_size=None"):
        zoo.layers.CharacterEncoder(None)
    with pytest.raises(
        ValueError, match=r"`max_chars` must be an integer >= 2"
    ):
        zoo.layers.CharacterVocabulary(["a"], max_chars=1)
    with pytest.raises(ValueError, match=r"not a character encoder"):
        zoo.count_params("lstm", 4, 4, char_units=8)


def test_the_builder_documents_every_option_it_takes():
    documented = zoo.Backbone.__doc__
    names = {o.name for o in options.ALL_OPTIONS} - {"max_chars"}
    for name in sorted(names):
        assert f"`{name}`" in documented or f"    {name}:" in documented, name


def test_the_test_table_changes_every_option():
    assert set(CHANGED) == {o.name for o in options.STACK_OPTIONS}
    assert set(CHARACTER_CHANGED) == {o.name for o in options.CHARACTER_OPTIONS}
    for name, value in {**CHANGED, **CHARACTER_CHANGED}.items():
        assert value != options.get(name).default, name
        options.validate(name, value)


def test_get_config_round_trips_every_option():
    given = {o.name: CHANGED[o.name] for o in options.LAYER_OPTIONS}
    layer = StackedRNN(**given)
    config = layer.get_config()
    for name, value in given.items():
        assert config[name] == value, name
    assert StackedRNN.from_config(config).get_config() == config


def test_the_plan_has_one_field_per_per_layer_option():
    per_layer = [o.name for o in options.LAYER_OPTIONS if o.per_layer]
    fields = [f.name for f in dataclasses.fields(spec.LayerSpec)]
    assert fields == ["index", *per_layer, "input_width"]
    assert options.INPUT_OPTIONS and not any(
        o.per_layer for o in options.INPUT_OPTIONS
    )
    assert spec.ARGUMENTS == (
        "cell",
        "units",
        "num_layers",
        *per_layer[2:],
    )


def test_seq2seq_stacks_take_the_plan_options():
    assert seq2seq_model.ENCODER_OPTIONS == spec.ARGUMENTS
    assert set(seq2seq_model.ENCODER_OPTIONS) - set(
        seq2seq_model.DECODER_OPTIONS
    ) == {"bidirectional", "merge_mode"}


def _bad_values(option):
    """Values that `option` does not allow, from its declaration."""
    bad = [{"a": 1}]
    if not option.per_layer:
        bad.append([1, 2])
    if option.type is bool:
        bad += ["yes", 1]
    elif option.choices is not None:
        bad += ["no such value", 3]
    else:
        bad.append("12")
        step = 1 if option.type is int else 0.5
        if option.low is not None:
            bad.append(option.low - step)
            if not option.low_inclusive:
                bad.append(option.low)
        if option.high is not None:
            bad.append(option.high + step)
            if not option.high_inclusive:
                bad.append(option.high)
    if option.default is not None:
        bad.append(None)
    return bad


@pytest.mark.grid(stride=3, core_only=True)
@pytest.mark.parametrize("option", options.ALL_OPTIONS, ids=lambda o: o.name)
def test_validate_errors_name_the_argument_and_the_value(option):
    for value in _bad_values(option):
        with pytest.raises(ValueError) as error:
            options.validate(option.name, value)
        message = str(error.value)
        assert f"`{option.name}` must be" in message, message
        assert f"received {option.name}={value!r}" in message, message
    if option.per_layer:
        good = CHANGED[option.name]
        entry = good[0] if isinstance(good, list) else good
        with pytest.raises(ValueError, match=rf"`{option.name}\[1\]`"):
            options.validate(option.name, [entry, _bad_values(option)[-1]])


def test_validate_keeps_the_bounds_it_declares():
    assert options.validate("dropout", 0) == 0.0
    assert isinstance(options.validate("dropout", 0), float)
    assert options.validate("units", [1, 2]) == [1, 2]
    assert options.validate("residual", "auto") == "auto"
    assert options.validate("seed", None) is None
    with pytest.raises(ValueError, match=r"`residual\[0\]` must be True or"):
        options.validate("residual", ["auto"])
    with pytest.raises(TypeError, match=r"`bidirectional`"):
        options.validate("bidirectional", "yes")


# Every option that can add parameters, changed on this base stack,
# changes the count; every other leaves it.
BASE = dict(cell="lstm", units=4, num_layers=3, bidirectional=True)
ADDING = {
    "cell": "gru",
    "units": 5,
    "num_layers": 2,
    "bidirectional": False,
    "merge_mode": "sum",
    "residual": [True, True, True],
    "highway": True,
    "layer_norm": True,
    "use_bias": False,
    "reset_after": False,
}


@pytest.mark.grid(stride=3, core_only=True)
@pytest.mark.parametrize(
    "option",
    options.LAYER_OPTIONS,
    ids=lambda o: o.name,
)
def test_count_params_agrees_with_adds_params(option):
    value = ADDING.get(option.name, CHANGED[option.name])
    if option.per_layer and isinstance(value, list) and len(value) != 3:
        value = value[0]
    # A stack of a cell that takes the option (`reset_after`: GRU).
    stack = {**BASE, "cell": option.cells[-1]}
    if option.name == "cell":
        stack = BASE
    # A fixed batch size, for `stateful`.
    base = zoo.stacked_rnn(input_dim=3, batch_size=2, **stack).count_params()
    config = {**stack, option.name: value}
    model = zoo.stacked_rnn(input_dim=3, batch_size=2, **config)
    assert (model.count_params() != base) == option.adds_params
    cell, units = config.pop("cell"), config.pop("units")
    assert zoo.count_params(cell, 3, units, **config) == model.count_params()


def test_count_params_agrees_on_the_input_options():
    def build(**changes):
        kwargs = {"vocabulary_size": 20, "embedding_dim": 4, **changes}
        return zoo.stacked_rnn(**BASE, **kwargs).count_params()

    base = build()
    for option in options.INPUT_OPTIONS:
        if option.name == "mask_value":  # float inputs only
            continue
        changed = build(**{option.name: CHANGED[option.name]})
        assert (changed != base) == option.adds_params, option.name
    cell, units = BASE["cell"], BASE["units"]
    rest = {k: v for k, v in BASE.items() if k not in ("cell", "units")}
    counted = zoo.count_params(
        cell, 4, units, vocabulary_size=20, mask_zero=False, **rest
    )
    assert counted == base


def test_count_params_rejects_what_it_cannot_count():
    with pytest.raises(ValueError, match=r"embedding_dim.*input_dim"):
        zoo.count_params("lstm", 4, 4, embedding_dim=8)
    with pytest.raises(ValueError, match=r"'unitz' is not a stack option"):
        zoo.count_params("lstm", 4, 4, unitz=8)
    with pytest.raises(ValueError, match=r"dropout.*1\.5"):
        zoo.count_params("lstm", 4, 4, dropout=1.5)
    with pytest.raises(ValueError, match=r"seed.*-1"):
        zoo.count_params("lstm", 4, 4, seed=-1)
    # A per-layer list fixes the depth, as in the layer.
    assert zoo.count_params("lstm", 4, 4, dropout=[0.1] * 3) == (
        zoo.count_params("lstm", 4, 4, num_layers=3)
    )
