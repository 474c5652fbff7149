"""The stack options, each declared once; the rest of the zoo reads them.

`STACK_OPTIONS` is the one list of the options a stack takes: the
arguments of `zoo.layers.StackedRNN` (`LAYER_OPTIONS`), then what
`zoo.stacked_rnn` builds below the stack (`INPUT_OPTIONS`).
`CHARACTER_OPTIONS` are the character encoder's (`zoo.stacked_rnn`'s
`char_*` arguments, `zoo.layers.CharacterEncoder`,
`zoo.layers.CharacterVocabulary`'s `max_chars`); `get` and `validate` know
both (`ALL_OPTIONS`). Each `Option`
says its default, its type, whether it may be given per layer (a list, one
entry per layer), whether it can change the number of parameters, which
values it allows, and a line of help.

From it `StackedRNN` checks its arguments and writes its config,
`zoo.spec` lays out the per-layer plan, `zoo.count_params` tells the
options that add parameters from those that do not, and `zoo.Seq2Seq`
knows what its encoder and decoder take. Adding an option is one `Option`
here plus its implementation.

Example:
```python
zoo.options.get("dropout").help
zoo.options.validate("dropout", 0.3)   # 0.3
zoo.options.defaults()["units"]       # 128
```
"""

import dataclasses

import keras

from zoo import cells
from zoo import validation as v

# The `cell` choices: the names of `zoo.cells`, the one table of cells.
CELLS = cells.NAMES
MERGE_MODES = ("concat", "sum", "ave", "mul")
OUTPUTS = ("top", "all")
# The character encoders of `zoo.layers.CharacterEncoder`.
CHARACTER_KINDS = ("rnn", "cnn", "both")
# `residual="auto"` turns residual connections on from this depth up: two
# layers train fine without them, deeper plain stacks start to stall.
AUTO_RESIDUAL_MIN_LAYERS = 3


@dataclasses.dataclass(frozen=True)
class Option:
    """One stack option.

    Attributes:
        name: the keyword argument.
        default: the library's default. `None` is allowed exactly where it
            is the default (`num_layers`: inferred; `seed`: unseeded).
        type: the type of a value (of each entry of a per-layer list).
        per_layer: whether a list with one value per layer is allowed.
        adds_params: whether the value can change the parameter count.
        choices: the allowed values, or None for any value of `type`
            within `low` / `high`. A choice that is not of `type`
            (`residual`'s `"auto"`) is one value for the whole stack,
            never an entry of a per-layer list.
        low, high: the bounds of a number, or None where there is none.
        low_inclusive, high_inclusive: whether the bounds are allowed.
        help: one line, for `--help` and the docs.
        keras_object: for an option that names a Keras object, which
            kind (`"activation"`, `"initializer"`, `"regularizer"`,
            `"constraint"`): a name (`"he_normal"`), a config dict or an
            instance, kept in its serialised form (a name or a dict).
        cells: the cells that take the option (`reset_after`: GRU only).
    """

    name: str
    default: object
    type: type
    per_layer: bool = False
    adds_params: bool = False
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    help: str = ""
    keras_object: str | None = None
    cells: tuple = CELLS

    def check(self, name, value):
        """Returns `value` checked as one value for the whole stack (or
        for the argument `name`, which may differ from the option's:
        `CharacterEncoder`'s `kind` is `char_kind`).

        A rate comes back as a float. Raises `ValueError` (or
        `zoo.validation.ArgumentTypeError`, a `ValueError` too) naming
        `name`, the value and what is allowed.
        """
        return self._check(name, value, whole_stack=True)

    def check_entry(self, name, value):
        """Returns `value` checked as one entry of a per-layer list."""
        return self._check(name, value, whole_stack=False)

    def interval(self):
        """The bounds of a number option as an interval: `"[0, 1)"` for a
        rate, `"[1, inf)"` for `units` (`"(-inf, inf)"` for an option
        without bounds), for messages and help texts."""
        return v.interval(
            self.low, self.high, self.low_inclusive, self.high_inclusive
        )

    def _special(self, whole_stack):
        """The choices that are not of `type` (`"auto"`), where allowed."""
        if not whole_stack or self.choices is None:
            return ()
        return tuple(c for c in self.choices if not isinstance(c, self.type))

    def _allowed(self, whole_stack):
        """What a value may be, in words: "True or False", "one of ..."."""
        per_layer = whole_stack and self.per_layer
        if self.keras_object is not None:
            allowed = _KERAS_OBJECTS[self.keras_object][1]
            if self.default is None:
                allowed += ", or None"
            if per_layer:
                allowed += ", or a per-layer list of them"
            return allowed
        if self.type is bool:
            words = [
                repr(c) for c in (True, False, *self._special(whole_stack))
            ]
            if per_layer:
                return ", ".join(words) + " or a per-layer list of bools"
            return ", ".join(words[:-1]) + " or " + words[-1]
        if self.choices is not None:
            allowed = "one of " + ", ".join(repr(c) for c in self.choices)
        else:
            allowed = v.describe_number(
                self.type,
                self.low,
                self.high,
                self.low_inclusive,
                self.high_inclusive,
            )
        if per_layer:
            allowed += ", or a per-layer list of them"
        if self.default is None and whole_stack:
            allowed += ", or None"
        return allowed

    def _check(self, name, value, whole_stack):
        if value is None and self.default is None:
            if whole_stack or self.keras_object is not None:
                return None
        if self.keras_object is not None:
            return _keras_object(self, name, value, whole_stack)
        special = self._special(whole_stack)
        if special and not isinstance(value, bool) and value in special:
            return value
        allowed = self._allowed(whole_stack)
        if self.type is bool:
            if not isinstance(value, bool):
                v.fail(name, value, allowed, wrong_type=True)
            return value
        if self.choices is not None:
            if not isinstance(value, self.type) or value not in self.choices:
                v.fail(name, value, allowed)
            return value
        return v.check_number(
            name,
            value,
            self.type,
            self.low,
            self.high,
            self.low_inclusive,
            self.high_inclusive,
            allowed=allowed,
        )


# What `Option.keras_object` may name: the `keras` module whose `get`
# reads a name, a config dict or an instance (and whose `serialize` writes
# it back), and the words for an error message.
_KERAS_OBJECTS = {
    "activation": (
        "activations",
        "a Keras activation (a name such as 'tanh' or 'relu', or a function)",
    ),
    "initializer": (
        "initializers",
        "a Keras initializer (a name such as 'glorot_uniform', a config "
        "dict or a keras.initializers.Initializer)",
    ),
    "regularizer": (
        "regularizers",
        "a Keras regularizer (a name such as 'l2', a config dict or a "
        "keras.regularizers.Regularizer)",
    ),
    "constraint": (
        "constraints",
        "a Keras constraint (a name such as 'max_norm', a config dict or a "
        "keras.constraints.Constraint)",
    ),
}


def _keras_object(option, name, value, whole_stack):
    """`value` checked as a Keras object of `option`'s kind, in serialised
    form: a name stays a name, an instance becomes its config dict (so
    that `get_config` is JSON and every layer builds its own copy)."""
    module = getattr(keras, _KERAS_OBJECTS[option.keras_object][0])
    allowed = option._allowed(whole_stack)
    if isinstance(value, (bool, list, tuple)) or value is None:
        v.fail(name, value, allowed, wrong_type=value is not None)
    try:
        resolved = module.get(value)
    except (ValueError, TypeError, KeyError, AttributeError):
        resolved = None
    if resolved is None:
        v.fail(name, value, allowed)
    if isinstance(value, (str, dict)):
        return value
    return module.serialize(resolved)


def _keras(name, default, kind, help, cells=CELLS):
    """A Keras object passed to each recurrent layer, scalar or per layer."""
    return Option(
        name,
        default,
        object,
        per_layer=True,
        keras_object=kind,
        cells=cells,
        help=help,
    )


def _rate(name, help, per_layer=True):
    """A dropout-like rate in [0, 1), 0 by default, adding no parameters."""
    return Option(
        name,
        0.0,
        float,
        per_layer=per_layer,
        low=0.0,
        high=1.0,
        high_inclusive=False,
        help=help,
    )


# The constructor arguments of `keras.layers.LSTM` / `GRU` / `SimpleRNN`
# that a stack passes to each of its recurrent layers, as Keras names them
# (scalar, or one per layer). A non-tanh activation, a non-sigmoid
# recurrent activation, `use_bias=False`, `unroll=True` or GRU's
# `reset_after=False` leave the fused kernel (`zoo.fast_path_report`).
KERAS_RNN_OPTIONS = (
    _keras(
        "activation", "tanh", "activation", "activation of each layer's output"
    ),
    _keras(
        "recurrent_activation",
        "sigmoid",
        "activation",
        "activation of the gates (GRU, LSTM)",
        cells=("gru", "lstm"),
    ),
    Option(
        "use_bias",
        True,
        bool,
        per_layer=True,
        adds_params=True,
        help="whether each recurrent layer has bias vectors",
    ),
    _keras(
        "kernel_initializer",
        "glorot_uniform",
        "initializer",
        "initializer of the input kernels",
    ),
    _keras(
        "recurrent_initializer",
        "orthogonal",
        "initializer",
        "initializer of the recurrent kernels",
    ),
    _keras(
        "bias_initializer", "zeros", "initializer", "initializer of the biases"
    ),
    Option(
        "unit_forget_bias",
        True,
        bool,
        per_layer=True,
        cells=("lstm",),
        help="LSTM: start the forget gate's bias at 1",
    ),
    _keras(
        "kernel_regularizer",
        None,
        "regularizer",
        "regularizer of the input kernels",
    ),
    _keras(
        "recurrent_regularizer",
        None,
        "regularizer",
        "regularizer of the recurrent kernels",
    ),
    _keras(
        "bias_regularizer", None, "regularizer", "regularizer of the biases"
    ),
    _keras(
        "activity_regularizer",
        None,
        "regularizer",
        "regularizer of each recurrent layer's output",
    ),
    _keras(
        "kernel_constraint",
        None,
        "constraint",
        "constraint on the input kernels",
    ),
    _keras(
        "recurrent_constraint",
        None,
        "constraint",
        "constraint on the recurrent kernels",
    ),
    _keras("bias_constraint", None, "constraint", "constraint on the biases"),
    Option(
        "reset_after",
        True,
        bool,
        per_layer=True,
        adds_params=True,
        cells=("gru",),
        help="GRU: reset gate after the recurrent matmul (Keras 3, cuDNN)",
    ),
    Option(
        "unroll",
        False,
        bool,
        per_layer=True,
        help="unroll the time loop (fixed, short sequences; not fused)",
    ),
)
# The arguments of `zoo.layers.StackedRNN`, in its signature's order.
LAYER_OPTIONS = (
    Option(
        "cell",
        "lstm",
        str,
        per_layer=True,
        adds_params=True,
        choices=CELLS,
        help="recurrent cell of each layer",
    ),
    Option(
        "units",
        128,
        int,
        per_layer=True,
        adds_params=True,
        low=1,
        help="hidden size of each layer (one direction)",
    ),
    Option(
        "num_layers",
        None,
        int,
        adds_params=True,
        low=1,
        help="depth; None infers it from the per-layer lists (2 without)",
    ),
    Option(
        "bidirectional",
        False,
        bool,
        per_layer=True,
        adds_params=True,
        help="read each sequence both ways",
    ),
    Option(
        "merge_mode",
        "concat",
        str,
        per_layer=True,
        adds_params=True,
        choices=MERGE_MODES,
        help="how a bidirectional layer's two directions combine",
    ),
    _rate("dropout", "input dropout in each layer, one mask per sequence"),
    _rate(
        "recurrent_dropout",
        "hidden-to-hidden dropout (> 0 leaves the fused cuDNN kernel)",
    ),
    _rate(
        "inter_layer_dropout",
        "time-locked dropout between layers (after the top one per layer)",
    ),
    _rate("weight_drop", "DropConnect on each recurrent kernel (AWD-LSTM)"),
    *KERAS_RNN_OPTIONS,
    Option(
        "residual",
        False,
        bool,
        per_layer=True,
        adds_params=True,
        choices=(False, True, "auto"),
        help="add each layer's input to its output, from the second layer "
        f"up ('auto': from {AUTO_RESIDUAL_MIN_LAYERS} layers)",
    ),
    Option(
        "highway",
        False,
        bool,
        per_layer=True,
        adds_params=True,
        help="gated skip connection, from the second layer up",
    ),
    Option(
        "layer_norm",
        False,
        bool,
        per_layer=True,
        adds_params=True,
        help="LayerNormalization between layers",
    ),
    Option(
        "return_sequences",
        False,
        bool,
        help="the top layer returns every timestep, not only the last",
    ),
    Option(
        "return_state",
        False,
        bool,
        help="also return the final states of every layer",
    ),
    Option(
        "output",
        "top",
        str,
        choices=OUTPUTS,
        help="'top': the top layer's output; 'all': every layer's sequence",
    ),
    Option(
        "stateful",
        False,
        bool,
        help="each batch starts from the previous batch's final states",
    ),
    Option(
        "seed",
        None,
        int,
        low=0,
        help="seed of every dropout mask; None for unseeded",
    ),
)
# What `zoo.stacked_rnn` puts below the stack.
INPUT_OPTIONS = (
    Option(
        "vocabulary_size",
        None,
        int,
        adds_params=True,
        low=1,
        help="token ids below this (0 is padding); None for float features",
    ),
    Option(
        "embedding_dim",
        64,
        int,
        adds_params=True,
        low=1,
        help="width of the token embedding",
    ),
    _rate(
        "embedding_dropout",
        "fraction of token types dropped per batch",
        per_layer=False,
    ),
    Option(
        "mask_zero",
        True,
        bool,
        help="mask token id 0 (token inputs)",
    ),
    Option(
        "mask_value",
        None,
        float,
        help="mask float timesteps whose features all equal it; None: none",
    ),
)
STACK_OPTIONS = LAYER_OPTIONS + INPUT_OPTIONS
# The character encoder's options: of `zoo.stacked_rnn` (token inputs
# only) and `zoo.layers.CharacterEncoder` (`char_kind` is its `kind`), and
# `zoo.layers.CharacterVocabulary`'s `max_chars`. They are not stack
# options: the recipes take their flags from `STACK_OPTIONS`, and only a
# tagger reads characters.
CHARACTER_OPTIONS = (
    Option(
        "char_vocabulary_size",
        None,
        int,
        adds_params=True,
        low=2,
        help="character ids below this (0 is padding); None: tokens only",
    ),
    Option(
        "char_embedding_dim",
        32,
        int,
        adds_params=True,
        low=1,
        help="width of the character embedding",
    ),
    Option(
        "char_units",
        32,
        int,
        adds_params=True,
        low=1,
        help="width of the character encoder, per direction",
    ),
    Option(
        "char_kind",
        "rnn",
        str,
        adds_params=True,
        choices=CHARACTER_KINDS,
        help=(
            "character encoder: 'rnn' (a BiLSTM), 'cnn' (convolutions) "
            "or 'both' side by side"
        ),
    ),
    Option(
        "max_chars",
        24,
        int,
        low=2,
        help="the most characters read per word (its first and last half)",
    ),
)
# Every option `get` and `validate` know.
ALL_OPTIONS = STACK_OPTIONS + CHARACTER_OPTIONS
_BY_NAME = {option.name: option for option in ALL_OPTIONS}


def get(name):
    """The `Option` called `name` (a stack option or a character-encoder
    option); raises `ValueError` for an unknown one."""
    if name not in _BY_NAME:
        raise ValueError(
            f"{name!r} is not a stack option (nor a character-encoder "
            f"option); the options are {', '.join(_BY_NAME)}."
        )
    return _BY_NAME[name]


def validate(name, value):
    """Returns `value` checked for option `name` (rates as floats).

    A per-layer list is checked entry by entry (its length is checked
    where the depth is known, by `zoo.layers.StackedRNN`). Raises a
    `ValueError` naming the argument, the value and what is allowed.
    """
    option = get(name)
    if option.per_layer and isinstance(value, (list, tuple)):
        return [
            option.check_entry(f"{name}[{i}]", entry)
            for i, entry in enumerate(value)
        ]
    return option.check(name, value)


def defaults():
    """`{name: default}` for every stack option, in declaration order."""
    return {option.name: option.default for option in STACK_OPTIONS}
