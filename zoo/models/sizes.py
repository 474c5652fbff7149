"""The one table of sizes that every variant name refers to."""

from zoo.builders import stacked_rnn

SIZES = {
    "tiny": {"units": 32, "embedding_dim": 32},
    "small": {"units": 128, "embedding_dim": 64},
    "base": {"units": 256, "embedding_dim": 128},
    "large": {"units": 512, "embedding_dim": 256},
}


def build(size, defaults, overrides):
    """Calls `zoo.stacked_rnn` with size, variant defaults, then overrides."""
    if ("input_dim" in overrides) == ("vocabulary_size" in overrides):
        raise ValueError(
            f"Model {defaults['name']!r} needs its input: pass exactly one "
            "of `vocabulary_size=` (token ids) or `input_dim=` (float "
            f"features); received overrides {sorted(overrides)}."
        )
    per_layer = any(isinstance(x, (list, tuple)) for x in overrides.values())
    if per_layer and "num_layers" not in overrides:
        # A per-layer list in the overrides sets the depth.
        defaults = {k: val for k, val in defaults.items() if k != "num_layers"}
    return stacked_rnn(**{**SIZES[size], **defaults, **overrides})
