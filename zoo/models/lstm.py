"""LSTM variants: name -> (size, docstring, options of `zoo.stacked_rnn`)."""

from zoo.models.sizes import register_variants

VARIANTS = {
    "lstm_tiny": (
        "tiny",
        "Two 32-unit LSTM layers: for tests and quick experiments.",
        dict(num_layers=2),
    ),
    "lstm_small": ("small", "Two 128-unit LSTM layers.", dict(num_layers=2)),
    "lstm_base": (
        "base",
        "Two 256-unit LSTM layers: the default stacked LSTM.",
        dict(num_layers=2),
    ),
    "bilstm_base": (
        "base",
        "Two 256-unit bidirectional LSTM layers (concat, 512 wide).",
        dict(num_layers=2, bidirectional=True),
    ),
    "bilstm_residual_base": (
        "base",
        "Four 256-unit bidirectional LSTM layers with residual connections.",
        dict(num_layers=4, bidirectional=True, residual=True),
    ),
    "lstm_highway_base": (
        "base",
        "Four 256-unit LSTM layers with highway (gated skip) connections.",
        dict(num_layers=4, highway=True),
    ),
    "lstm_awd_base": (
        "base",
        "Three 256-unit LSTM layers regularised as in AWD-LSTM.\n\n"
        "Weight-drop 0.5 on the recurrent kernels, time-locked dropout 0.25 "
        "between layers, and embedding dropout 0.1 (token inputs: like every "
        "variant's embedding settings, it does not apply to `input_dim` "
        "features); none of these leaves the fused cuDNN kernel.",
        dict(
            num_layers=3,
            weight_drop=0.5,
            inter_layer_dropout=0.25,
            embedding_dropout=0.1,
        ),
    ),
}
register_variants(__name__, "lstm", VARIANTS)
