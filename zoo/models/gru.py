"""GRU variants."""

from zoo.models.sizes import build
from zoo.registry import register_model


@register_model
def gru_small(**overrides):
    """Two 128-unit GRU layers."""
    return build(
        "small", dict(cell="gru", num_layers=2, name="gru_small"), overrides
    )


@register_model
def gru_base(**overrides):
    """Two 256-unit GRU layers."""
    return build(
        "base", dict(cell="gru", num_layers=2, name="gru_base"), overrides
    )


@register_model
def bigru_base(**overrides):
    """Two 256-unit bidirectional GRU layers (concat, 512 wide)."""
    return build(
        "base",
        dict(cell="gru", num_layers=2, bidirectional=True, name="bigru_base"),
        overrides,
    )


@register_model
def gru_deep_residual_base(**overrides):
    """Eight 256-unit GRU layers with residual connections and layer norm.

    Formerly `gru_residual_deep` (a name without a size); `create_model`
    still takes that name.
    """
    return build(
        "base",
        dict(
            cell="gru",
            num_layers=8,
            residual=True,
            layer_norm=True,
            name="gru_deep_residual_base",
        ),
        overrides,
    )
