"""GRU variants: name -> (size, docstring, options of `zoo.stacked_rnn`)."""

from zoo.models.sizes import register_variants

VARIANTS = {
    "gru_small": ("small", "Two 128-unit GRU layers.", dict(num_layers=2)),
    "gru_base": ("base", "Two 256-unit GRU layers.", dict(num_layers=2)),
    "bigru_base": (
        "base",
        "Two 256-unit bidirectional GRU layers (concat, 512 wide).",
        dict(num_layers=2, bidirectional=True),
    ),
    "gru_deep_residual_base": (
        "base",
        "Eight 256-unit GRU layers with residual connections and layer norm.",
        dict(num_layers=8, residual=True, layer_norm=True),
    ),
}
register_variants(__name__, "gru", VARIANTS)
