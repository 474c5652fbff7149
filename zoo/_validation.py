"""Argument checks shared by the layers, builders and helpers.

Every check raises a `ValueError` (or `TypeError` for the wrong kind of
value) whose message names the argument, the value received and what is
allowed, so that a user never has to read a traceback to fix a call.
"""

import numbers


def check_choice(name, value, choices):
    """Returns `value` if it is one of `choices`, else raises `ValueError`."""
    if value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(
            f"`{name}` must be one of {allowed}; received {name}={value!r}."
        )
    return value


def check_positive_int(name, value):
    """Returns `value` if it is an integer >= 1, else raises."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"`{name}` must be a positive integer; received {name}={value!r} "
            f"of type {type(value).__name__}."
        )
    if value < 1:
        raise ValueError(
            f"`{name}` must be a positive integer (>= 1); "
            f"received {name}={value!r}."
        )
    return int(value)


def check_rate(name, value):
    """Returns `value` as a float if it is a dropout rate in [0, 1)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"`{name}` must be a float in [0, 1); received {name}={value!r} "
            f"of type {type(value).__name__}."
        )
    if not 0.0 <= value < 1.0:
        raise ValueError(
            f"`{name}` must be in [0, 1); received {name}={value!r}."
        )
    return float(value)


def check_bool(name, value):
    """Returns `value` if it is a bool, else raises `TypeError`."""
    if not isinstance(value, bool):
        raise TypeError(
            f"`{name}` must be True or False; received {name}={value!r} "
            f"of type {type(value).__name__}."
        )
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
