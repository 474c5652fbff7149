"""LSTM variants."""

from zoo.models.sizes import build
from zoo.registry import register_model


@register_model
def lstm_tiny(**overrides):
    """Two 32-unit LSTM layers: for tests and quick experiments."""
    return build(
        "tiny", dict(cell="lstm", num_layers=2, name="lstm_tiny"), overrides
    )


@register_model
def lstm_small(**overrides):
    """Two 128-unit LSTM layers."""
    return build(
        "small", dict(cell="lstm", num_layers=2, name="lstm_small"), overrides
    )


@register_model
def lstm_base(**overrides):
    """Two 256-unit LSTM layers: the default stacked LSTM."""
    return build(
        "base", dict(cell="lstm", num_layers=2, name="lstm_base"), overrides
    )


@register_model
def bilstm_base(**overrides):
    """Two 256-unit bidirectional LSTM layers (concat, 512 wide)."""
    return build(
        "base",
        dict(cell="lstm", num_layers=2, bidirectional=True, name="bilstm_base"),
        overrides,
    )


@register_model
def bilstm_residual_base(**overrides):
    """Four 256-unit bidirectional LSTM layers with residual connections."""
    return build(
        "base",
        dict(
            cell="lstm",
            num_layers=4,
            bidirectional=True,
            residual=True,
            name="bilstm_residual_base",
        ),
        overrides,
    )


@register_model
def lstm_highway_base(**overrides):
    """Four 256-unit LSTM layers with highway (gated skip) connections."""
    return build(
        "base",
        dict(cell="lstm", num_layers=4, highway=True, name="lstm_highway_base"),
        overrides,
    )


@register_model
def lstm_awd_base(**overrides):
    """Three 256-unit LSTM layers regularised as in AWD-LSTM.

    Weight-drop 0.5 on the recurrent kernels, time-locked dropout 0.25
    between layers, and embedding dropout 0.1 (token inputs: like every
    variant's embedding settings, it does not apply to `input_dim`
    features); none of these leaves the fused cuDNN kernel.
    """
    return build(
        "base",
        dict(
            cell="lstm",
            num_layers=3,
            weight_drop=0.5,
            inter_layer_dropout=0.25,
            embedding_dropout=0.1,
            name="lstm_awd_base",
        ),
        overrides,
    )
