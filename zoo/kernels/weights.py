"""Keras's LSTM / GRU weights in the layouts of the frameworks' kernels.

The layouts are PyTorch's (`nn.LSTM` / `nn.GRU` parameters) and cuDNN's
(the flat vector of `jax.experimental.rnn`), but the code is Keras ops
only: it needs no framework, so it lives here rather than in a
framework's module, and the tests check each layout on any backend
(PyTorch's against `zoo.reference` on TensorFlow, cuDNN's through
`jax.experimental.rnn.lstm_ref` on a JAX CPU). The kernels repack the
layers' own `kernel` / `recurrent_kernel` / `bias` variables at each
call, so a `.keras` file is the same with or without them.
"""

from keras import ops

from zoo import cells
from zoo.walk import directions


def keras_to_torch_lstm(kernel, recurrent_kernel, bias):
    """Keras LSTM weights -> PyTorch's (w_ih, w_hh, b_ih, b_hh).

    Both use the gate order i, f, c (g), o; PyTorch stores matrices
    transposed and has a second bias (zero here).
    """
    return (
        ops.transpose(kernel),
        ops.transpose(recurrent_kernel),
        bias,
        ops.zeros_like(bias),
    )


def _gru_gates(matrix):
    """Keras GRU gate order z, r, h -> PyTorch's r, z, n (last axis)."""
    z, r, h = ops.split(matrix, 3, axis=-1)
    return ops.concatenate([r, z, h], axis=-1)


def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    """Keras GRU (reset_after=True) weights -> PyTorch's layout.

    Keras's bias has shape (2, 3 * units): the input and the recurrent
    bias. Both libraries apply the reset gate after the recurrent matrix
    product (`n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`) and mix with
    `h' = z * h + (1 - z) * n`.
    """
    return (
        ops.transpose(_gru_gates(kernel)),
        ops.transpose(_gru_gates(recurrent_kernel)),
        _gru_gates(bias[0]),
        _gru_gates(bias[1]),
    )


# The weight conversion of each cell with a PyTorch-layout kernel.
TO_TORCH = {"lstm": keras_to_torch_lstm, "gru": keras_to_torch_gru}


def tensor(value, dtype):
    """`value` (a variable, array or tensor) as a tensor of `dtype`."""
    return ops.cast(ops.convert_to_tensor(value), dtype)


def converted(layer, dtype):
    """An LSTM / GRU layer's weights in PyTorch's layout, in `dtype`:
    `(w_ih, w_hh, b_ih, b_hh)`."""
    cell = layer.cell
    convert = TO_TORCH[cells.of_layer(layer).name]
    return convert(
        *(
            tensor(w, dtype)
            for w in (cell.kernel, cell.recurrent_kernel, cell.bias)
        )
    )


def keras_to_cudnn_flat(entries, dtype="float32"):
    """Packs a run of Keras LSTM layers into cuDNN's flat weight vector.

    The layout of `jax.experimental.rnn`: for every layer and direction
    (forward, then backward) `W_ih` (4H, in) then `W_hh` (4H, H),
    row-major; then, in the same order, `b_ih`, `b_hh`. Keras's gate order
    i, f, c, o is cuDNN's i, f, g, o.
    """
    matrices, biases = [], []
    for rnn in entries:
        for layer in directions(rnn):
            w_ih, w_hh, b_ih, b_hh = converted(layer, dtype)
            matrices += [ops.reshape(w_ih, (-1,)), ops.reshape(w_hh, (-1,))]
            biases += [b_ih, b_hh]
    return ops.concatenate(matrices + biases, axis=0)
