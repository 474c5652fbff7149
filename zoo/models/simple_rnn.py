"""SimpleRNN (Elman) variants: name -> (size, docstring, options of
`zoo.stacked_rnn`)."""

from zoo.models.sizes import register_variants

VARIANTS = {
    "simple_rnn_small": (
        "small",
        "Two 128-unit SimpleRNN layers (no fused kernel on any backend).",
        dict(num_layers=2),
    ),
}
register_variants(__name__, "simple_rnn", VARIANTS)
