"""Argument checks shared by the layers, builders and helpers.

Every check raises a `ValueError` (or, for the wrong kind of value, an
`ArgumentTypeError`: a `TypeError` that is a `ValueError` too) whose
message names the argument, the value received and what is allowed, so
that a user never has to read a traceback to fix a call.

The checks return the value they accept, so that a caller can write
`self.mode = zoo.validation.check_choice("mode", mode, MODES)`:

- `check_choice(name, value, allowed)`: one of a few values;
- `check_number(name, value, kind, low, high, ...)`, `check_positive_int`,
  `check_rate`, `check_bool`: numbers in a range, and bools;
- `per_layer` and `infer_num_layers`: a scalar or a per-layer list;
- `fail(name, value, allowed)`: raises the error for any other check;
- `describe_number` and `interval`: a range in words (`"a float in
  [0, 1)"`) or as an interval (`"[0, 1)"`, `"[1, inf)"`), as
  `zoo.options.Option.interval` gives an option's;
- `check_ids(name, ids, size)`: integer ids (token ids, tags) in
  `[0, size)`, checked on concrete values (`concrete`): NumPy arrays and
  eager tensors of every backend; inside a step that JAX traces, by the
  compiled step itself (JAX would gather a bad id as NaN).

Example:
```python
zoo.validation.check_choice("pooling", "mean", ("last", "mean"))  # "mean"
zoo.validation.check_rate("dropout", 1.5)
# ValueError: `dropout` must be a float in [0, 1); received dropout=1.5.
```
"""

import math
import numbers

import keras
import numpy as np

# What only a backend's framework can do with its tensors (is a step
# being traced? the id check inside a traced step): each backend's
# `zoo.kernels` module registers its `Kernels` object here when it is
# loaded (`register_backend`), so this module imports no framework and
# nothing of `zoo.kernels`, which reads its checks.
_BACKENDS = {}


class _NoBackend:
    """A backend with nothing to add (NumPy, or none registered)."""

    def compiling(self):
        return False

    def check_traced_ids(self, name, ids, size, what, mask, fail):
        return ids


def register_backend(name, checks):
    """Makes `checks` (an object with `compiling()` and
    `check_traced_ids(name, ids, size, what, mask, fail)`) backend
    `name`'s: `zoo.kernels.dispatch` registers each backend's `Kernels`."""
    _BACKENDS[name] = checks


def _backend():
    return _BACKENDS.get(keras.backend.backend()) or _NoBackend()


class ArgumentTypeError(TypeError, ValueError):
    """A value of the wrong kind for an argument.

    A `TypeError`, and a `ValueError` too (as NumPy's `AxisError` is both
    a `ValueError` and an `IndexError`), so that one `except ValueError`
    catches every bad argument.
    """


def fail(name, value, allowed, wrong_type=False):
    """Raises the error for argument `name`: it must be `allowed`.

    `wrong_type=True` raises an `ArgumentTypeError` that names the type of
    `value`; otherwise a `ValueError`.
    """
    if wrong_type:
        raise ArgumentTypeError(
            f"`{name}` must be {allowed}; received {name}={value!r} "
            f"of type {type(value).__name__}."
        )
    raise ValueError(f"`{name}` must be {allowed}; received {name}={value!r}.")


def check_choice(name, value, allowed):
    """Returns `value` if it is one of `allowed`, else raises `ValueError`.

    The message names the argument, lists the choices and shows the value:
    "`mode` must be one of 'last', 'mean'; received mode='max'.".
    """
    if value not in allowed:
        choices = ", ".join(repr(c) for c in allowed)
        fail(name, value, f"one of {choices}")
    return value


def interval(low=None, high=None, low_inclusive=True, high_inclusive=True):
    """A range as an interval: `"[0, 1)"`, `"[1, inf)"`, `"(-inf, 5]"`.

    Args:
        low, high: the bounds, or None where there is none (an infinity).
        low_inclusive, high_inclusive: whether the bounds are allowed.
    """
    if low is None:
        start = "(-inf"
    else:
        start = ("[" if low_inclusive else "(") + f"{low:g}"
    if high is None:
        end = "inf)"
    else:
        end = f"{high:g}" + ("]" if high_inclusive else ")")
    return f"{start}, {end}"


def describe_number(
    kind, low=None, high=None, low_inclusive=True, high_inclusive=True
):
    """`"a float in [0, 1)"`, `"an integer >= 1"`: the words for a range.

    Args:
        kind: `int` or `float`.
        low, high: the bounds, or None where there is none.
        low_inclusive, high_inclusive: whether the bounds are allowed.
    """
    noun = "an integer" if kind is int else "a float"
    if low is not None and high is not None:
        bounds = interval(low, high, low_inclusive, high_inclusive)
        return f"{noun} in {bounds}"
    if low is not None:
        return f"{noun} {'>=' if low_inclusive else '>'} {low:g}"
    if high is not None:
        return f"{noun} {'<=' if high_inclusive else '<'} {high:g}"
    return noun


def check_number(
    name,
    value,
    kind,
    low=None,
    high=None,
    low_inclusive=True,
    high_inclusive=True,
    *,
    allowed=None,
):
    """Returns `value` as `kind` (`int` or `float`) if it is in the range.

    A bool is no number here, nor is NaN or an infinity (a float must be
    finite: `nan` would pass every comparison below unnoticed). `allowed`
    replaces the words for the range in the message (`describe_number`'s
    by default).
    """
    allowed = allowed or describe_number(
        kind, low, high, low_inclusive, high_inclusive
    )
    number = numbers.Integral if kind is int else numbers.Real
    if isinstance(value, bool) or not isinstance(value, number):
        fail(name, value, allowed, wrong_type=True)
    if not math.isfinite(value):
        fail(name, value, f"finite: {allowed}")
    too_low = low is not None and (
        value < low if low_inclusive else value <= low
    )
    too_high = high is not None and (
        value > high if high_inclusive else value >= high
    )
    if too_low or too_high:
        fail(name, value, allowed)
    return kind(value)


def check_positive_int(name, value):
    """Returns `value` if it is an integer >= 1, else raises."""
    return check_number(name, value, int, low=1)


def check_rate(name, value):
    """Returns `value` as a float if it is a dropout rate in [0, 1)."""
    return check_number(name, value, float, 0.0, 1.0, high_inclusive=False)


def check_bool(name, value):
    """Returns `value` if it is a bool, else raises `ArgumentTypeError`."""
    if not isinstance(value, bool):
        fail(name, value, "True or False", wrong_type=True)
    return value


def per_layer(name, value, num_layers, check):
    """Expands a scalar or a per-layer list into a checked list.

    Args:
        name: the argument's name, for error messages.
        value: a scalar, or a list/tuple with one entry per layer.
        num_layers: how many layers the stack has.
        check: a function `(name, value) -> value` applied to each entry.
    """
    if isinstance(value, (list, tuple)):
        if len(value) != num_layers:
            raise ValueError(
                f"`{name}` has {len(value)} entries but the stack has "
                f"num_layers={num_layers}; pass one value per layer or a "
                f"single value for all layers. Received {name}={value!r}."
            )
        return [check(f"{name}[{i}]", v) for i, v in enumerate(value)]
    return [check(name, value)] * num_layers


def infer_num_layers(num_layers, **per_layer_args):
    """Resolves the depth from `num_layers` and the lengths of list args.

    A list argument fixes the depth; every list must agree with each other
    and with `num_layers` when it is given. Without either, the depth is 2.
    """
    lengths = {
        name: len(value)
        for name, value in per_layer_args.items()
        if isinstance(value, (list, tuple))
    }
    if num_layers is not None:
        num_layers = check_positive_int("num_layers", num_layers)
        for name, length in lengths.items():
            if length != num_layers:
                raise ValueError(
                    f"`{name}` has {length} entries but num_layers="
                    f"{num_layers}; the lengths of per-layer lists must "
                    f"equal num_layers. Received {name}="
                    f"{per_layer_args[name]!r}."
                )
        return num_layers
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{n} has {k}" for n, k in lengths.items())
        raise ValueError(
            f"Per-layer lists disagree on the number of layers ({described}); "
            "make them the same length or pass `num_layers`."
        )
    if lengths:
        num_layers = next(iter(lengths.values()))
        if num_layers < 1:
            raise ValueError(
                "Per-layer lists must have at least one entry; received "
                f"{next(iter(lengths))}=[]."
            )
        return num_layers
    return 2


def concrete(value):
    """`value` as a NumPy array if it holds values now, else None.

    NumPy arrays, lists and the eager tensors of every backend have
    values; a `keras.KerasTensor`, a tensor in a `tf.function` or a
    `tf.data` map, a JAX tracer (under `jax.jit`) and a tensor that
    `torch.compile` traces have none: a check
    that needs the values skips them, so a compiled step never waits for
    one (see docs/limits.md).
    """
    if isinstance(value, (np.ndarray, np.generic, list, tuple, int)):
        return np.asarray(value)
    if value is None or keras.backend.is_keras_tensor(value):
        return None
    if _backend().compiling():  # `torch.compile` (`jit_compile=True`)
        return None
    try:
        return keras.ops.convert_to_numpy(value)
    except Exception:  # a symbolic tensor or a tracer: no values to read
        return None


def check_ids(name, ids, size, *, what="ids", mask=None):
    """Returns `ids` if every id is an integer in `[0, size)`.

    Otherwise raises a `ValueError` naming the argument, the first bad id,
    where it is and the allowed range: "`inputs` must hold token ids in
    [0, 10) (vocabulary_size=10); received 99 at index (0, 2).". Only
    concrete values are checked here (`concrete`); a JAX tracer and a
    TensorFlow graph tensor are checked by the compiled step (their
    backend's `check_traced_ids`, `zoo.kernels`); symbolic tensors and
    `torch.compile` graphs pass through (their own gathers raise an
    index error).

    Args:
        name: the argument's name, for the message.
        ids: integer ids, any shape.
        size: how many ids there are (the vocabulary size, `num_tags`).
        what: what the ids are, for the message (`"token ids
            (vocabulary_size=10)"`).
        mask: optional boolean mask of `ids`' shape (or a prefix of it):
            ids where it is False are not checked.
    """
    values = concrete(ids)
    if values is None:
        # A traced step: the backend checks inside it, where it can.
        return _backend().check_traced_ids(
            name, ids, size, what, mask, _raise_for_bad_ids
        )
    if values.size == 0:
        return ids
    if mask is not None:
        mask = concrete(mask)
    _raise_for_bad_ids(name, values, size, what, mask)
    return ids


def _raise_for_bad_ids(name, values, size, what, mask):
    bad = (values < 0) | (values >= size)
    if mask is not None and np.shape(mask) == values.shape:
        bad &= np.asarray(mask).astype(bool)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        value = values[where].item()
        raise ValueError(
            f"`{name}` must hold {what} in [0, {size}); received "
            f"{value!r} at index {where}."
        )
