"""The one table of sizes that every variant name refers to, and how a
cell family's table of variants is registered."""

from zoo.builders import stacked_rnn
from zoo.registry import register_model

SIZES = {
    "tiny": {"units": 32, "embedding_dim": 32},
    "small": {"units": 128, "embedding_dim": 64},
    "base": {"units": 256, "embedding_dim": 128},
    "large": {"units": 512, "embedding_dim": 256},
}


# What a variant sets for its embedding, which float inputs do not have.
TOKEN_OPTIONS = ("embedding_dim", "embedding_dropout")


def build(size, defaults, overrides):
    """Calls `zoo.stacked_rnn` with size, variant defaults, then overrides."""
    if ("input_dim" in overrides) == ("vocabulary_size" in overrides):
        raise ValueError(
            f"Model {defaults['name']!r} needs its input: pass exactly one "
            "of `vocabulary_size=` (token ids) or `input_dim=` (float "
            f"features); received overrides {sorted(overrides)}."
        )
    defaults = {**SIZES[size], **defaults}
    if "input_dim" in overrides:
        # A variant's embedding settings apply where there is an embedding:
        # to token inputs, whatever else is overridden.
        defaults = {
            k: val for k, val in defaults.items() if k not in TOKEN_OPTIONS
        }
    per_layer = any(isinstance(x, (list, tuple)) for x in overrides.values())
    if per_layer and "num_layers" not in overrides:
        # A per-layer list in the overrides sets the depth.
        defaults = {k: val for k, val in defaults.items() if k != "num_layers"}
    return stacked_rnn(**{**defaults, **overrides})


def register_variants(module, cell, variants):
    """Registers a cell family's table of variants.

    `variants` maps each name to `(size, docstring, options)`: the name's
    entry point, `fn(**overrides)`, builds `zoo.stacked_rnn` with the size,
    `cell`, the options and `name=`, then the caller's overrides. `module`
    (the family's `__name__`) is where the entry points say they live.
    """
    for name, (size, doc, options) in variants.items():
        defaults = {"cell": cell, **options, "name": name}
        register_model(_entrypoint(module, name, doc, size, defaults))


def _entrypoint(module, name, doc, size, defaults):
    def entrypoint(**overrides):
        return build(size, defaults, overrides)

    entrypoint.__name__ = entrypoint.__qualname__ = name
    entrypoint.__module__ = module
    entrypoint.__doc__ = doc
    return entrypoint
