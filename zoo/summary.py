"""`zoo.summary`: a model's layers with every stack opened up.

`model.summary(expand_nested=True)` opens nested models but not layers
that hold layers: a `zoo.layers.StackedRNN` is one row there, and its
per-layer parameters are invisible. Keras has no public hook to add rows
to its summary, so this prints its own table: every layer of the model
(nested models opened), and inside each stack every recurrent layer
(and the two directions of a bidirectional one), residual / highway
wrapper (its projection and gate), layer norm and dropout, each with its
output shape, its parameters and what runs it on the current backend on
a CPU and on a GPU (`zoo.fast_path_report`'s words).
"""

import keras

from zoo.fast_path import fast_path_report
from zoo.layers.stacked_rnn import StackedRNN


def _shape(layer):
    try:
        return str(tuple(layer.output.shape))
    except (AttributeError, ValueError):
        return "?"


def _params(layer):
    return layer.count_params() if layer.built else 0


def _own_params(wrapper, inner):
    """A wrapper's parameters without those of the layer it wraps."""
    return _params(wrapper) - _params(inner)


def _stack_rows(stack, depth, runs):
    rows = []
    steps = None
    for layer in stack.stack_layers:
        spec, block, rnn = layer.spec, layer.block, layer.recurrent
        top = spec.index == stack.num_layers - 1
        if top and not stack.return_sequences:
            shape = f"(None, {spec.output_width})"
        else:
            shape = f"(None, {steps}, {spec.output_width})"
        if layer.wrapped:
            rows.append(
                (
                    depth,
                    block.name,
                    type(block).__name__,
                    shape,
                    _own_params(block, rnn),
                    "",
                    "",
                )
            )
        inner = depth + layer.wrapped
        directions = layer.directions
        if len(directions) == 2:
            rows.append((inner, rnn.name, "Bidirectional", shape, 0, "", ""))
            inner += 1
        for direction in directions:
            entry = runs.get(direction.name)
            rows.append(
                (
                    inner,
                    direction.name,
                    type(direction).__name__,
                    shape if len(directions) == 1 else "",
                    _params(direction),
                    entry["cpu"] if entry else "",
                    entry["gpu"] if entry else "",
                )
            )
        for after in layer.after:
            rows.append(
                (
                    depth,
                    after.name,
                    type(after).__name__,
                    shape,
                    _params(after),
                    "",
                    "",
                )
            )
    return rows


def _rows(layer_or_model, depth, runs):
    rows = []
    layers = getattr(layer_or_model, "layers", None)
    for layer in layers if layers is not None else [layer_or_model]:
        rows.append(
            (
                depth,
                layer.name,
                type(layer).__name__,
                _shape(layer),
                _params(layer),
                "",
                "",
            )
        )
        if isinstance(layer, StackedRNN):
            rows += _stack_rows(layer, depth + 1, runs)
        elif isinstance(layer, keras.Model):
            rows += _rows(layer, depth + 1, runs)
        elif getattr(layer, "sublayers", None):
            # A zoo layer holding a stack (`CharacterEncoder`).
            for sublayer in layer.sublayers:
                rows += _rows(sublayer, depth + 1, runs)
    return rows


def summary(model, print_fn=None):
    """Prints (or returns) a table of `model` with every stack opened up.

    Args:
        model: a `keras.Model` or layer (a `zoo.layers.StackedRNN` too).
        print_fn: called with the table's text; default `print`. Pass
            `print_fn=False` to get the text back instead.

    Returns:
        The table's text when `print_fn=False`, else None.

    The columns: the layer's name (indented under the model, stack or
    wrapper that holds it), its class, its output shape (`(None, None,
    256)`: batch, timesteps, width), its own parameters (a wrapper's
    without the layer it wraps; a stack's and a model's in total), and for
    each recurrent layer what runs it on the current backend on a CPU and
    on a GPU (`loop`, `scan`, `cuDNN`, `zoo nn.LSTM`; see
    `zoo.fast_path_report`). The last line is the total, equal to
    `model.count_params()`.

    Example:
    ```python
    zoo.summary(zoo.stacked_lstm(3, 256, vocabulary_size=10_000))
    ```
    """
    backend = keras.backend.backend()
    runs = {
        entry["layer"]: entry["backends"].get(backend)
        for entry in fast_path_report(model)
    }
    rows = _rows(model, 0, runs)
    header = ("layer", "type", "output shape", "params", "cpu", "gpu")
    table = [header] + [
        ("  " * d + name, kind, shape, f"{params:,}", cpu, gpu)
        for d, name, kind, shape, params, cpu, gpu in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(6)]
    lines = [
        "  ".join(
            cell.rjust(w) if i == 3 else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths))
        ).rstrip()
        for row in table
    ]
    rule = "-" * len(max(lines, key=len))
    total = model.count_params() if model.built else 0
    text = "\n".join(
        [
            f"{type(model).__name__} {model.name!r} (backend {backend})",
            rule,
            lines[0],
            rule,
            *lines[1:],
            rule,
            f"total params: {total:,}",
        ]
    )
    if print_fn is False:
        return text
    (print_fn or print)(text)
    return None
