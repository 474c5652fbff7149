"""The one table of cell facts: one `Cell` record per recurrent cell.

What the zoo knows about `"simple_rnn"`, `"gru"` and `"lstm"` is here and
nowhere else: the Keras layer class, the number of gates, the states of
one direction, the weight-drop variant, the PyTorch module of the same
cell and which kernels run it. `zoo.options` takes its `cell` choices
from `NAMES`; `zoo.layers.StackedRNN` builds its layers from the records;
`zoo.count_params`, `zoo.fused`, `zoo.fast_path_report`, `zoo.reference`,
`zoo.Seq2Seq` and the benchmarks read them.

Example:
```python
zoo.cells.get("lstm").gates            # 4
zoo.cells.get("gru").state_names       # ("h",)
zoo.cells.of_layer(keras.layers.LSTM(8)).name   # "lstm"
```
"""

import dataclasses

import keras

from zoo import validation as v
from zoo._package import PACKAGE


@dataclasses.dataclass(frozen=True)
class Cell:
    """Everything the zoo knows about one recurrent cell.

    Attributes:
        name: the cell's name in the zoo's options (`"lstm"`).
        keras_class: the Keras recurrent layer (`keras.layers.LSTM`).
        gates: gates per unit, each with an input kernel, a recurrent
            kernel and a bias: 1 (SimpleRNN), 3 (GRU), 4 (LSTM).
        state_names: the state tensors of one direction, in Keras's
            order: `("h",)`, or `("h", "c")` for an LSTM.
        torch_module: the `torch.nn` module of the same cell (`"LSTM"`,
            `"GRU"`, or `"RNN"`, whose default nonlinearity is tanh).
        cudnn_backends: the backends on which Keras's own layer has a
            fused cuDNN kernel (GPU only; `zoo.fast_path_report` says
            which conditions still apply). JAX has none for a GRU;
            nothing has one for a SimpleRNN.
        multi_layer_backends: the backends on which `zoo.fused` runs
            several stacked layers of the cell in one call: PyTorch
            (`nn.LSTM` / `nn.GRU(num_layers=L)`, CPU and GPU) and JAX
            (`jax.experimental.rnn.lstm`, GPU, LSTM only).
    """

    name: str
    keras_class: type
    gates: int
    state_names: tuple
    torch_module: str
    cudnn_backends: tuple = ()
    multi_layer_backends: tuple = ()

    @property
    def states_per_direction(self):
        """How many state tensors one direction has: 1, or 2 (LSTM)."""
        return len(self.state_names)

    @property
    def weight_drop_name(self):
        """The class name of its weight-drop variant: `"WeightDropLSTM"`."""
        return f"WeightDrop{self.keras_class.__name__}"

    @property
    def weight_drop_class(self):
        """The weight-drop variant, `zoo.layers.WeightDropLSTM` / `GRU` /
        `SimpleRNN` (DropConnect on the recurrent kernel).

        Read from Keras's registry of serialisable classes (each registers
        itself when `zoo.layers` is imported, which `import zoo` does), so
        that this table, which `zoo.options` reads, imports no layer.
        """
        return keras.saving.get_registered_object(
            f"{PACKAGE}>{self.weight_drop_name}"
        )


# The table: one row per cell (`# fmt: off` keeps it a table).
# fmt: off
SIMPLE_RNN = Cell("simple_rnn", keras.layers.SimpleRNN, gates=1,
                  state_names=("h",), torch_module="RNN")
GRU = Cell("gru", keras.layers.GRU, gates=3, state_names=("h",),
           torch_module="GRU", cudnn_backends=("tensorflow", "torch"),
           multi_layer_backends=("torch",))
LSTM = Cell("lstm", keras.layers.LSTM, gates=4, state_names=("h", "c"),
            torch_module="LSTM", cudnn_backends=("tensorflow", "jax", "torch"),
            multi_layer_backends=("torch", "jax"))
# fmt: on
# Every cell, in the order of the `cell` option's choices.
ALL = (SIMPLE_RNN, GRU, LSTM)
# The compute dtypes the zoo's multi-layer kernels (`zoo.fused`) run, by
# backend and device: PyTorch's fused CPU RNN (oneDNN) takes float32 and
# bfloat16, not float16; cuDNN takes all three; the JAX call float32.
FUSED_DTYPES = {
    ("torch", "cpu"): ("float32", "bfloat16"),
    ("torch", "gpu"): ("float32", "float16", "bfloat16"),
    ("jax", "gpu"): ("float32",),
}
NAMES = tuple(cell.name for cell in ALL)
_BY_NAME = {cell.name: cell for cell in ALL}


def get(cell):
    """The `Cell` record called `cell` (`"simple_rnn"`, `"gru"`, `"lstm"`).

    Raises a `ValueError` naming the argument, the value and the choices.
    """
    return _BY_NAME[v.check_choice("cell", cell, NAMES)]


def of_layer(layer):
    """The `Cell` record of a Keras recurrent layer, or None.

    `layer` may be a `keras.layers.LSTM` / `GRU` / `SimpleRNN` (a
    subclass too, such as `zoo.layers.WeightDropLSTM`) or a
    `keras.layers.Bidirectional` of one; any other layer gives None.
    """
    if isinstance(layer, keras.layers.Bidirectional):
        layer = layer.forward_layer
    for cell in ALL:
        if isinstance(layer, cell.keras_class):
            return cell
    return None


def fused_dtype(backend, dtype, device):
    """Whether the zoo's multi-layer call runs `dtype` (a layer's compute
    dtype, e.g. `"float16"` under `mixed_float16`) on `backend` and
    `device` (`"cpu"` or `"gpu"`)."""
    dtype = keras.backend.standardize_dtype(dtype)
    return dtype in FUSED_DTYPES.get((backend, device), ())
