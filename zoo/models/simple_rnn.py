"""SimpleRNN (Elman) variants."""

from zoo.models.sizes import build
from zoo.registry import register_model


@register_model
def simple_rnn_small(**overrides):
    """Two 128-unit SimpleRNN layers (no fused kernel on any backend)."""
    return build(
        "small",
        dict(cell="simple_rnn", num_layers=2, name="simple_rnn_small"),
        overrides,
    )
