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
    if keras.backend.backend() == "torch":
        import torch

        if torch.compiler.is_compiling():  # traced by `jit_compile=True`
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
    concrete values are checked here (`concrete`); a JAX tracer is checked
    by the compiled step (`_check_traced_jax_ids`); symbolic tensors and
    TensorFlow or `torch.compile` graphs pass through (their own gathers
    raise an index error).

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
        if _is_jax_tracer(ids):
            return _check_traced_jax_ids(name, ids, size, what, mask)
        if _is_tf_graph_tensor(ids):
            _check_traced_tf_ids(name, ids, size, what, mask)
        return ids
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


def _is_jax_tracer(value):
    if keras.backend.backend() != "jax":
        return False
    import jax

    return isinstance(value, jax.core.Tracer)


def _is_tf_graph_tensor(value):
    if keras.backend.backend() != "tensorflow":
        return False
    import tensorflow as tf

    return isinstance(value, tf.Tensor) and not tf.executing_eagerly()


def _check_traced_tf_ids(name, ids, size, what, mask):
    """The id check inside a TensorFlow graph (`fit`, `predict`, a
    `tf.function`, a `tf.data` map).

    TensorFlow's own gather refuses an id at or above the size on CPU, but
    Keras's `ops.take` first wraps negative ids NumPy-style (-1 is the last
    row), so a -1 would pass without a word. An `Assert` op in the graph
    (run by `tf.function`'s automatic control dependencies; XLA drops it)
    fails the step with the same words and the first bad id.
    """
    import tensorflow as tf

    bad = tf.logical_or(ids < 0, ids >= size)
    if mask is not None and getattr(mask, "shape", None) == ids.shape:
        bad = tf.logical_and(bad, tf.cast(mask, tf.bool))
    tf.debugging.Assert(
        tf.logical_not(tf.reduce_any(bad)),
        [
            f"`{name}` must hold {what} in [0, {size}); received",
            tf.boolean_mask(ids, bad)[:1],
        ],
    )


def _check_traced_jax_ids(name, ids, size, what, mask):
    """The id check inside a step that JAX traces (`fit`, `predict`, `jit`);
    returns `ids`, which the caller must use in place of its own.

    JAX gathers an out-of-range id as a row of NaN, without a word, so a
    traced step checks too: a comparison and a reduction over the ids in
    the compiled graph, and, only when an id is out of range, a host
    callback that raises the same `ValueError` as the eager check (JAX
    re-raises it from the compiled call). The callback is a
    `jax.pure_callback` inside `lax.cond` whose result the step uses: no
    side effect is ordered into the step, so a step with good ids runs as
    fast as without the check (`benchmarks/range_checks.py`), and the
    check cannot be pruned as dead code. TensorFlow's graphs are checked
    by `_check_traced_tf_ids`; PyTorch runs eagerly.
    """
    import jax
    import jax.numpy as jnp

    bad = (ids < 0) | (ids >= size)
    if mask is not None and getattr(mask, "shape", None) == ids.shape:
        bad = bad & mask.astype(bool)
        operands = (ids, mask)
    else:
        operands = (ids,)

    def report(values, *maybe_mask):
        _raise_for_bad_ids(
            name,
            np.asarray(values),
            size,
            what,
            np.asarray(maybe_mask[0]) if maybe_mask else None,
        )
        return np.asarray(values)

    def checked(*args):
        return jax.pure_callback(
            report, jax.ShapeDtypeStruct(ids.shape, ids.dtype), *args
        )

    return jax.lax.cond(jnp.any(bad), checked, lambda *args: args[0], *operands)
