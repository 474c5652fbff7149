"""A registry of named, documented stack variants (the timm pattern).

A variant is a function registered with `@register_model`; its name is the
key. `create_model(name, **overrides)` calls it, with the caller's
arguments overriding the variant's defaults.
"""

import fnmatch

_ENTRYPOINTS = {}


def register_model(fn):
    """Registers `fn` under `fn.__name__`; a duplicate name is an error."""
    key = fn.__name__
    if key in _ENTRYPOINTS:
        raise ValueError(
            f"Model {key!r} is registered twice ("
            f"{_ENTRYPOINTS[key].__module__} and {fn.__module__}); "
            "registered names must be unique."
        )
    _ENTRYPOINTS[key] = fn
    return fn


def list_models(pattern="*"):
    """Sorted names of registered variants matching a glob `pattern`."""
    return sorted(k for k in _ENTRYPOINTS if fnmatch.fnmatchcase(k, pattern))


def model_doc(name):
    """The first line of a variant's docstring."""
    _check_name(name)
    return (_ENTRYPOINTS[name].__doc__ or "").strip().splitlines()[0]


def _check_name(name):
    if name not in _ENTRYPOINTS:
        raise ValueError(
            f"Unknown model {name!r}; choose one of {list_models()}."
        )


def create_model(name, /, **overrides):
    """Builds registered variant `name`; `overrides` replace its defaults.

    Pass the input as an override: `vocabulary_size=...` for token ids or
    `input_dim=...` for float features; `name=` names the built model.

    Example:
    ```python
    encoder = zoo.create_model("lstm_base", vocabulary_size=10_000)
    ```
    """
    _check_name(name)
    return _ENTRYPOINTS[name](**overrides)
