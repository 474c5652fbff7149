"""Settings from command-line flags and JSON/YAML files.

A job's settings are a dataclass; each field is a `--flag` (underscores
as dashes) and a key of a `--config` file. The values are resolved as
defaults, then the file, then explicit flags; every bad value is a
`UsageError` naming the flag or key, what it received and what is
allowed. What the recipes add on top (the stack options of `zoo.options`
as flags) is `recipes.config`.
"""

import argparse
import json
import math
import numbers
import pathlib
import re

from harness import extras
from harness.errors import UsageError

KINDS = {
    bool: "True or False",
    int: "an integer",
    float: "a float",
    str: "a string",
}


def flag_of(name):
    """`"inter_layer_dropout"` -> `"--inter-layer-dropout"`."""
    return "--" + name.replace("_", "-")


def describe_kind(kind):
    """`int` -> `"an integer"`, as the error messages say it."""
    return KINDS.get(kind, getattr(kind, "__name__", str(kind)))


def convert(name, text, kind):
    """The value of `--name TEXT` as `kind`; a `UsageError` naming the
    flag otherwise."""
    try:
        return kind(text)
    except ValueError:
        raise UsageError(
            f"{flag_of(name)} must be {describe_kind(kind)}; received {text!r}"
        ) from None


class Setting(argparse.Action):
    """A flag whose value is converted and checked as it is parsed (by
    `parse(dest, text)`), so that a typo stops at once, on one line (a
    `UsageError`, not argparse's usage message)."""

    def __init__(self, option_strings, dest, parse=None, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.parse = parse

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, self.parse(self.dest, values))


def is_kind(value, kind):
    """Whether a parsed JSON/YAML `value` is of `kind` (a bool is no
    number, an integer is a float)."""
    if kind is bool or kind is str:
        return isinstance(value, kind)
    if kind is int:
        return isinstance(value, numbers.Integral) and not isinstance(
            value, bool
        )
    if kind is float:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    return isinstance(value, kind)


def check_value(name, value, kind):
    """A file's value of setting `name` checked against `kind` (floats
    finite, returned as floats). Raises `ValueError` naming the setting."""
    words = describe_kind(kind)
    if value is None:
        raise ValueError(
            f"`{name}` must be {words}; received null (leave it out for "
            "the default)"
        )
    if not is_kind(value, kind):
        raise ValueError(
            f"`{name}` must be {words}; received {name}={value!r} of "
            f"type {type(value).__name__}"
        )
    if kind is float and not math.isfinite(value):
        raise ValueError(
            f"`{name}` must be a finite float; received {name}={value!r}"
        )
    return float(value) if kind is float else value


def choice_error(flag, value, choices):
    """The `UsageError` of `flag` given `value`, not one of `choices`."""
    return UsageError(
        f"{flag} must be one of {', '.join(map(str, choices))}; "
        f"received {value!r}"
    )


def check_choice(name, value, choices):
    """Raises `UsageError` naming `--name` unless `value` is one of
    `choices`."""
    if value not in choices:
        raise choice_error(flag_of(name), value, choices)


class ArgumentParser(argparse.ArgumentParser):
    """`argparse.ArgumentParser` whose errors are `UsageError`s: under
    `harness.run_cli`, one line and exit code 2, as every other bad input.

    A value outside an argument's `choices` is refused as the project's
    checks word it (`--cell must be one of ...; received 'x'`); a
    `Setting`'s own check words it when it has one."""

    def _check_value(self, action, value):
        # argparse's own hook for the check of `choices` (not a public
        # one, but the same since Python 2.7).
        if action.choices is None or value in action.choices:
            return
        if isinstance(action, Setting):
            action.parse(action.dest, value)  # raises its own message
            return  # the setting's check allows it
        name = action.option_strings[0] if action.option_strings else None
        flag = name or action.metavar or action.dest
        raise choice_error(flag, value, action.choices)

    def error(self, message):
        raise UsageError(f"{message} (see {self.prog} --help)")


def with_default(text, default):
    """Help `text` with `(default: DEFAULT)` after it, once: not when
    `text` already tells its default, nor for an empty or None default
    (argparse's `%` escaped)."""
    text = text.strip()
    if default is None or default == "" or "default" in text.lower():
        return text
    shown = str(default).replace("%", "%%")
    return f"{text} (default: {shown})".strip()


def describe(doc):
    """A module's docstring as an argparse description: its first
    paragraph on one line, without Markdown's backticks."""
    paragraph = doc.strip().split("\n\n")[0]
    return " ".join(paragraph.replace("`", "").split())


def check_range(name, value, low=None, high=None):
    """Raises `UsageError` naming `--name` unless `value` is a finite
    number within `[low, high]` (NaN passes every comparison, so it is
    refused first)."""
    if not math.isfinite(value):
        raise UsageError(
            f"{flag_of(name)} must be a finite number; received {value}"
        )
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise UsageError(f"{flag_of(name)} must be {bounds}; received {value}")


def check_positive(name, value):
    """Raises `UsageError` naming `--name` unless `value` is a finite
    number > 0 (a learning rate: inf and NaN pass a plain `> 0` test or
    fail it without saying why)."""
    if not (math.isfinite(value) and value > 0):
        raise UsageError(
            f"{flag_of(name)} must be a finite number > 0; received {value}"
        )


# The largest seed: every backend's generator takes a 32-bit unsigned one
# (a bigger or negative `keras.utils.set_random_seed` is a ValueError).
MAX_SEED = 2**32 - 1


def check_seed(name, value):
    """Returns `value`, a seed, unless it is out of [0, 2**32 - 1]: then a
    `UsageError` naming `--name` (every backend refuses it, too late)."""
    if not 0 <= value <= MAX_SEED:
        raise UsageError(
            f"{flag_of(name)} must be an integer in [0, {MAX_SEED}] "
            f"(2**32 - 1); received {value}"
        )
    return value


def parse_seed(name, text):
    """`Setting`'s `parse` for a seed flag: an integer in [0, 2**32 - 1]."""
    return check_seed(name, convert(name, text, int))


def load_yaml(text):
    """`yaml.safe_load`, with YAML 1.2's floats: PyYAML follows YAML 1.1,
    where `1e-3` (no dot) is a string, and a learning rate written that
    way would be refused. PyYAML is the `recipes` extra's."""
    extras.require("recipes", "yaml", what="a YAML --config file")
    import yaml  # an optional dependency (the `recipes` extra)

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            # PyYAML keeps the last of two equal keys without a word.
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, str) and key in seen:
                    raise DuplicateKey(key, key_node.start_mark.line + 1)
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(
            r"""^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+
            |[-+]?(?:[0-9][0-9_]*)\.[0-9_]*
            |[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?
            |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$""",
            re.X,
        ),
        list("-+0123456789."),
    )
    return yaml.load(text, Loader=Loader)  # noqa: S506 - a SafeLoader


class DuplicateKey(ValueError):
    """A key given twice in one mapping of a settings file."""

    def __init__(self, key, line=None):
        where = f" (line {line})" if line else ""
        super().__init__(f"the key {key!r} is given twice{where}")
        self.key = key


def _json_object(pairs):
    """`json.loads`'s `object_pairs_hook`: a dict, refusing a key given
    twice (the json module keeps the last without a word)."""
    values = {}
    for key, value in pairs:
        if key in values:
            raise DuplicateKey(key)
        values[key] = value
    return values


def parse_error(error):
    """A JSON or YAML parse error on one line: where and what."""
    mark = getattr(error, "problem_mark", None)  # PyYAML's
    if mark is not None:
        problem = " ".join(
            part
            for part in (getattr(error, "context", None), error.problem)
            if part
        )
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return " ".join(str(error).split())


def read_config_file(path, flag="--config"):
    """The settings of a JSON or YAML (`.yaml`, `.yml`) file, a dict. A
    file that cannot be read, is not UTF-8, does not parse or gives a key
    twice is a `UsageError` on one line."""
    path = pathlib.Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        reason = error.strerror or error
        raise UsageError(f"{flag} {path}: cannot read ({reason})") from None
    except UnicodeDecodeError as error:
        raise UsageError(
            f"{flag} {path}: not UTF-8 text (byte "
            f"0x{error.object[error.start]:02x} at offset {error.start}); "
            "save it as UTF-8"
        ) from None
    try:
        if path.suffix in (".yaml", ".yml"):
            values = load_yaml(text)
        else:
            values = json.loads(text, object_pairs_hook=_json_object)
    except UsageError:
        raise
    except DuplicateKey as error:
        raise UsageError(
            f"{flag} {path}: {error}; give each setting once"
        ) from None
    except Exception as error:  # noqa: BLE001 - any parse error is the user's
        raise UsageError(
            f"{flag} {path}: cannot parse ({parse_error(error)})"
        ) from None
    if not isinstance(values, dict):
        raise UsageError(f"{flag} {path}: expected a mapping of settings")
    return values


def resolve(names, kinds, args, check):
    """The settings `names` (`kinds`: name -> type) given by `args`: the
    `--config` file's values, each checked by `check(name, value, kind)`
    (a `ValueError` becomes a `UsageError` naming the file), then the
    flags given explicitly (an attribute of `args` that is not None).
    Defaults are left to the caller (what is not given is absent)."""
    values = {}
    if args.config:
        values.update(read_config_file(args.config))
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise UsageError(
            f"--config: unknown setting(s) {unknown}; known: {sorted(names)}"
        )
    for name, value in values.items():
        try:
            values[name] = check(name, value, kinds[name])
        except ValueError as error:
            raise UsageError(f"--config {args.config}: {error}") from None
    for name in names:
        value = getattr(args, name, None)  # None: not a flag, or not given
        if value is not None:
            values[name] = value
    return values


def differences(*parts, here_name="here", limit=3):
    """What differs between settings, for an error message: each part a
    `(prefix, there, here)` of two dicts; `"PREFIXkey: A there, B here;
    ..."` over the parts in order, each part's keys sorted, at most `limit`
    of them and `...` after; "" when nothing differs. `here_name` names the
    second dicts (`in FOLDER`)."""
    found = [
        f"{prefix}{key}: {there.get(key)!r} there, {here.get(key)!r} "
        f"{here_name}"
        for prefix, there, here in parts
        for key in sorted(set(there) | set(here))
        if there.get(key) != here.get(key)
    ]
    return "; ".join(found[:limit]) + ("; ..." if len(found) > limit else "")
