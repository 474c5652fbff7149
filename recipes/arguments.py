"""A recipe's settings as command-line flags and `--config` keys: one
`--flag` per field of its `Config` (`add_config_arguments`), each value
converted and checked as it is parsed (`parse_flag`; a stack option by
`zoo.options`), a `--config` file's values checked (`check_setting`),
the three resolved (`resolve_config`: defaults, then the file, then
explicit flags) and the training settings' ranges checked
(`check_training`). The settings themselves are `recipes.settings`; how
flags and files are read in general is `harness.flags`.
"""

import argparse
import dataclasses
import re
import typing

import harness
import zoo
from harness import flags
from recipes.settings import LR_SCHEDULES
from recipes.settings import OPTION_FIELDS
from recipes.settings import SEEDS
from recipes.settings import STACK_FIELDS


def _option(name):
    """The `zoo.options` option behind config field `name`, or None."""
    return zoo.options.get(name) if name in OPTION_FIELDS else None


def _as_flag(name, error):
    """zoo's "`units[1]` must be ...; received units[1]=0." as
    "--units[1] must be ...; received 0" (one line)."""
    text = str(error).strip().splitlines()[0].rstrip(".")
    flag = flags.flag_of(name)
    text = re.sub(rf"`{name}(\[\d+\])?`", lambda m: flag + (m[1] or ""), text)
    return re.sub(rf"received {name}(\[\d+\])?=", "received ", text)


def _special_choices(option):
    """The choices of a bool option that are no bools (`residual`'s auto)."""
    return tuple(
        c for c in (option.choices or ()) if not isinstance(c, option.type)
    )


def parse_flag(name, text, kind, option=None):
    """The value of flag `--name TEXT`: converted to `kind` and, for a
    stack option, checked by `zoo.options` (as the value of every layer).
    Raises `harness.UsageError` naming the flag."""
    if kind is bool:  # `--residual` (True) or `--residual auto`
        special = _special_choices(option)
        if text is True or text in special:
            return text
        raise harness.UsageError(
            f"{flags.flag_of(name)} takes no value or one of "
            f"{', '.join(special)}; received {text!r}"
        )
    value = flags.convert(name, text, kind)
    if name in SEEDS:
        return flags.check_seed(name, value)
    if option is not None:
        try:
            value = option.check_entry(name, value)
        except ValueError as error:
            raise harness.UsageError(_as_flag(name, error)) from None
    return value


def _parser(kind, option):
    """`Setting`'s `parse` for a flag of `kind` (and stack `option`)."""
    return lambda name, text: parse_flag(name, text, kind, option)


def _choice_parser(kind, choices):
    """`Setting`'s `parse` for a flag of `kind` that takes `choices`."""

    def parse(name, text):
        value = flags.convert(name, text, kind)
        flags.check_choice(name, value, choices)
        return value

    return parse


def add_config_arguments(parser, config_cls, help_texts=None, skip=()):
    """Adds one `--flag` per field of the dataclass `config_cls`, except
    the fields named in `skip` and those the config does not take
    (`config_cls.NOT_TAKEN`).

    A stack option's flag has the option's help (unless `help_texts`
    gives one), its choices (`--cell {simple_rnn,gru,lstm}`) and checks
    its value by `zoo.options` as it is parsed; another setting's choices
    are `config_cls.CHOICES`'s. Each help ends with the default, when
    there is one and the help does not tell it already. A bool is
    `--flag/--no-flag`; `--residual` also takes `auto`."""
    hints = typing.get_type_hints(config_cls)
    skip = set(skip) | set(getattr(config_cls, "NOT_TAKEN", ()))
    own_choices = getattr(config_cls, "CHOICES", {})
    help_texts = help_texts or {}
    # The recipe's own settings (data, head) first, then the inherited
    # stack and training ones, as `--help` lists them.
    own = set(vars(config_cls).get("__annotations__", {}))
    fields = [f for f in dataclasses.fields(config_cls) if f.name not in skip]
    for field in sorted(fields, key=lambda f: f.name not in own):
        flag = flags.flag_of(field.name)
        kind = hints[field.name]
        option = _option(field.name)
        text = help_texts.get(field.name) or (option.help if option else "")
        text = flags.with_default(text, field.default)
        if kind is bool and option is not None and _special_choices(option):
            special = _special_choices(option)
            parser.add_argument(
                flag,
                action=flags.Setting,
                parse=_parser(bool, option),
                nargs="?",
                const=True,
                default=None,
                metavar="{" + ",".join(special) + "}",
                help=text,
            )
            parser.add_argument(
                "--no-" + flag[2:],
                dest=field.name,
                action="store_const",
                const=False,
                default=None,
                help=f"turn {flag} off",
            )
        elif kind is bool:
            parser.add_argument(
                flag,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=text,
            )
        else:
            base = typing.get_args(kind)[0] if typing.get_args(kind) else kind
            if option is not None:
                choices, parse = option.choices, _parser(base, option)
            elif field.name in own_choices:
                choices = tuple(own_choices[field.name])
                parse = _choice_parser(base, choices)
            else:
                choices, parse = None, _parser(base, None)
            parser.add_argument(
                flag,
                action=flags.Setting,
                parse=parse,
                default=None,
                choices=choices,
                help=text,
            )
    parser.add_argument(
        "--config", help="a JSON or YAML file with the same settings"
    )


def check_setting(name, value, kind):
    """Returns a `--config` file's value of setting `name` (of type
    `kind`) checked: a stack option by `zoo.options.validate` (a per-layer
    option may be a list), any other by its type. Raises `ValueError`
    naming the setting and what it must be."""
    try:
        if name in OPTION_FIELDS:
            if value is None:
                return flags.check_value(name, value, kind)
            return zoo.options.validate(name, value)
        value = flags.check_value(name, value, kind)
        if name in SEEDS and not 0 <= value <= flags.MAX_SEED:
            raise ValueError(
                f"`{name}` must be an integer in [0, {flags.MAX_SEED}] "
                f"(2**32 - 1); received {name}={value}"
            )
        return value
    except ValueError as error:
        message = str(error).strip().splitlines()[0].rstrip(".")
        if isinstance(value, str) and kind in (int, float):
            try:
                float(value)
            except ValueError:
                pass
            else:
                message += " (a number in quotes is a string)"
        raise ValueError(message) from None


def resolve_config(config_cls, args):
    """Defaults, then the config file, then explicit flags."""
    fields = dataclasses.fields(config_cls)
    values = flags.resolve(
        [f.name for f in fields],
        typing.get_type_hints(config_cls),
        args,
        check_setting,
    )
    if values.get("quick"):
        # A recipe's own `--quick` sizes (`Config.QUICK`), unless given.
        for name, value in getattr(config_cls, "QUICK", {}).items():
            values.setdefault(name, value)
    unroll = values.get("unroll")
    if unroll is True or (isinstance(unroll, list) and True in unroll):
        # Keras unrolls a fixed number of timesteps; the recipes pad each
        # batch to its longest sequence (`recipes.pipeline`), so the time
        # axis is undefined when the model is built.
        raise harness.UsageError(
            f"--unroll: received {unroll!r}, but the recipes pad each batch "
            "to its own length and Keras unrolls only a fixed number of "
            "timesteps; leave --unroll out (false)"
        )
    if values.get("model"):
        # A registered backbone: its own defaults hold for every stack
        # option not given explicitly (None: "the variant's value").
        for name in STACK_FIELDS:
            values.setdefault(name, None)
    return config_cls(**values)


def check_training(config):
    """Range checks shared by the recipes' training flags; the stack
    options are checked by `zoo.options.validate` (one left to a `--model`
    variant is None and not checked here)."""
    if config.model:
        if config.model not in zoo.list_models():
            raise harness.UsageError(
                f"--model {config.model!r} is not a registered backbone; "
                f"choose one of {', '.join(zoo.list_models())}"
            )
    low_epochs = 0 if config.init_from else 1
    flags.check_range("epochs", config.epochs, low=low_epochs)
    flags.check_range("batch_size", config.batch_size, low=1)
    flags.check_range("patience", config.patience, low=0)
    flags.check_range("ema", config.ema, low=0)
    if config.ema >= 1:
        raise harness.UsageError(
            f"--ema must be in [0, 1) (a momentum; 0: off); received "
            f"{config.ema}"
        )
    flags.check_range("train_examples", config.train_examples, low=0)
    flags.check_range("sample_seed", config.sample_seed, low=0)
    flags.check_range("eval_examples", config.eval_examples, low=0)
    if hasattr(config, "vector_words"):  # settings.PretrainedOptions
        flags.check_range("vector_words", config.vector_words, low=0)
    for name in OPTION_FIELDS:
        # One value for all layers, or one per layer (as tuning writes them).
        value = getattr(config, name, None)
        if value is not None:
            try:
                zoo.options.validate(name, value)
            except ValueError as error:
                raise harness.UsageError(_as_flag(name, error)) from None
    flags.check_positive("learning_rate", config.learning_rate)
    flags.check_choice("lr_schedule", config.lr_schedule, LR_SCHEDULES)
