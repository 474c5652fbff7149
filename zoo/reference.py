"""A from-scratch NumPy forward pass of a `StackedRNN`: what it computes.

This module writes the stacked-RNN equations out in float64 NumPy, reading
the weights out of a built Keras stack, so that a test can check the layer
against them (to 1e-5):

    h_t[0] = x_t
    h_t[l] = cell_l(h_{t-1}[l], h_t[l-1])       l = 1..L
    y_t    = h_t[L]

SimpleRNN:  h = tanh(x W + h U + b)
GRU (Keras `reset_after=True`; gates z, r, n in that order):
            z = sig(x W_z + b_z + h U_z + c_z)
            r = sig(x W_r + b_r + h U_r + c_r)
            n = tanh(x W_n + b_n + r * (h U_n + c_n))
            h = z * h + (1 - z) * n
    (`reset_after=False`: one bias, and n = tanh(x W_n + b_n + (r * h) U_n))
LSTM (gates i, f, g, o):
            i, f, o = sig(.), g = tanh(.) of x W + h U + b
            c = f * c + i * g;  h = o * tanh(c)

with the layer's `activation` for tanh and `recurrent_activation` for sig
(the reference knows tanh, sigmoid, relu, linear, hard_sigmoid, softsign
and elu, and says so for another), and b = 0 for `use_bias=False`.

A masked timestep keeps the previous state (and, for a one-way layer,
repeats the previous output; a bidirectional layer outputs zeros there).
A backward direction reads the sequence reversed. Between layers come the
residual (`y + P x`) or highway (`g y + (1 - g) P x`, `g = sig(x W_g +
b_g)`) connection and layer norm; dropout is the identity at inference.
"""

import keras
import numpy as np

from zoo import cells
from zoo.layers.stacked_rnn import StackedRNN
from zoo.walk import iter_layers


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _numpy(variable):
    return np.asarray(keras.ops.convert_to_numpy(variable), dtype=np.float64)


def _hard_sigmoid(x):
    return np.clip(x / 6.0 + 0.5, 0.0, 1.0)


# The activations the reference writes out, by Keras function.
_ACTIVATIONS = {
    keras.activations.tanh: np.tanh,
    keras.activations.sigmoid: _sigmoid,
    keras.activations.relu: lambda x: np.maximum(x, 0.0),
    keras.activations.linear: lambda x: x,
    keras.activations.hard_sigmoid: _hard_sigmoid,
    keras.activations.softsign: lambda x: x / (1.0 + np.abs(x)),
    keras.activations.elu: lambda x: np.where(x > 0, x, np.expm1(x)),
}


def _activation(rnn, name):
    """The NumPy form of the layer's `activation` / `recurrent_activation`."""
    function = getattr(rnn.cell, name)
    if function not in _ACTIVATIONS:
        known = ", ".join(sorted(f.__name__ for f in _ACTIVATIONS))
        raise NotImplementedError(
            f"reference has no equations for {name}="
            f"{getattr(function, '__name__', function)!r} (layer "
            f"'{rnn.name}'); it knows {known}."
        )
    return _ACTIVATIONS[function]


def _step_function(rnn):
    """Returns `step(x, states) -> (output, states)` for one Keras RNN
    direction, with the states of its cell (`zoo.cells`)."""
    kind = cells.of_layer(rnn)
    cell = rnn.cell
    act = _activation(rnn, "activation")
    gate = (
        _activation(rnn, "recurrent_activation")
        if hasattr(cell, "recurrent_activation")
        else None
    )
    kernel = _numpy(cell.kernel)
    recurrent = _numpy(cell.recurrent_kernel)
    units = cell.units
    if cell.use_bias:
        bias = _numpy(cell.bias)
    elif kind is cells.GRU and cell.reset_after:
        bias = np.zeros((2, 3 * units))
    else:
        bias = np.zeros(kernel.shape[1])

    if kind is cells.LSTM:

        def step(x, state):
            h, c = state
            z = x @ kernel + h @ recurrent + bias
            i = gate(z[:, :units])
            f = gate(z[:, units : 2 * units])
            g = act(z[:, 2 * units : 3 * units])
            o = gate(z[:, 3 * units :])
            c = f * c + i * g
            h = o * act(c)
            return h, [h, c]

        return step
    if kind is cells.GRU and cell.reset_after:

        def step(x, state):
            (h,) = state
            xw = x @ kernel + bias[0]
            hu = h @ recurrent + bias[1]
            z = gate(xw[:, :units] + hu[:, :units])
            r = gate(xw[:, units : 2 * units] + hu[:, units : 2 * units])
            n = act(xw[:, 2 * units :] + r * hu[:, 2 * units :])
            h = z * h + (1.0 - z) * n
            return h, [h]

        return step
    if kind is cells.GRU:  # reset_after=False: one bias

        def step(x, state):
            (h,) = state
            xw = x @ kernel + bias
            hu = h @ recurrent[:, : 2 * units]
            z = gate(xw[:, :units] + hu[:, :units])
            r = gate(xw[:, units : 2 * units] + hu[:, units:])
            n = act(xw[:, 2 * units :] + (r * h) @ recurrent[:, 2 * units :])
            h = z * h + (1.0 - z) * n
            return h, [h]

        return step
    if kind is cells.SIMPLE_RNN:

        def step(x, state):
            (h,) = state
            h = act(x @ kernel + h @ recurrent + bias)
            return h, [h]

        return step
    raise NotImplementedError(f"reference has no equations for {type(rnn)}.")


def run_direction(rnn, inputs, mask, initial_state=None, zero_masked=False):
    """One recurrent direction over `(batch, timesteps, features)` inputs.

    Returns `(outputs, states)` with outputs in the input's time order.
    """
    step = _step_function(rnn)
    batch, steps, _ = inputs.shape
    units = rnn.cell.units
    if initial_state is None:
        names = cells.of_layer(rnn).state_names
        state = [np.zeros((batch, units)) for _ in names]
    else:
        state = [np.asarray(s, dtype=np.float64) for s in initial_state]
    order = range(steps - 1, -1, -1) if rnn.go_backwards else range(steps)
    outputs = np.zeros((batch, steps, units))
    previous = np.zeros((batch, units))
    for t in order:
        output, new_state = step(inputs[:, t], state)
        keep = mask[:, t : t + 1]
        state = [np.where(keep, n, s) for n, s in zip(new_state, state)]
        fill = np.zeros_like(output) if zero_masked else previous
        previous = np.where(keep, output, fill)
        outputs[:, t] = previous
    return outputs, state


def _merge(forward, backward, mode):
    if mode == "concat":
        return np.concatenate([forward, backward], axis=-1)
    if mode == "sum":
        return forward + backward
    if mode == "ave":
        return (forward + backward) / 2.0
    return forward * backward


def _last(values, mask):
    """The value at each row's last unmasked step."""
    steps = mask.shape[1]
    index = steps - 1 - np.argmax(mask[:, ::-1], axis=1)
    return values[np.arange(values.shape[0]), index]


def _layer_norm(layer, x):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    normed = (x - mean) / np.sqrt(var + layer.epsilon)
    return normed * _numpy(layer.gamma) + _numpy(layer.beta)


def _skip(block, spec, y, x):
    """Applies a block's residual or highway connection (if any)."""
    if not (spec.residual or spec.highway):
        return y
    skip = x
    if block.projection_layer is not None:
        skip = x @ _numpy(block.projection_layer.kernel)
    if spec.highway:
        gate = _sigmoid(x @ _numpy(block.gate.kernel) + _numpy(block.gate.bias))
        return gate * y + (1.0 - gate) * skip
    return y + skip


def _find_stack(layer_or_model):
    if isinstance(layer_or_model, StackedRNN):
        return layer_or_model
    stacks = [
        layer
        for layer in iter_layers(layer_or_model)
        if isinstance(layer, StackedRNN)
    ]
    if len(stacks) != 1:
        raise ValueError(
            "reference.forward needs a StackedRNN or a model holding exactly "
            f"one; found {len(stacks)} in {layer_or_model.name!r}."
        )
    return stacks[0]


def _embedded(model, stack, ids, mask):
    """What `stack` receives inside `model` for token `ids`, and its mask."""
    if not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(
            "`inputs` of shape (batch, timesteps) must be integer token "
            f"ids for model {model.name!r}; received dtype {ids.dtype}."
        )
    received = stack.input  # the features, and the mask the model made
    if not isinstance(received, (list, tuple)):
        received = [received]
    feeder = keras.Model(model.inputs[0], list(received))
    outputs = [
        keras.ops.convert_to_numpy(y) for y in feeder(ids, training=False)
    ]
    if mask is None and len(outputs) > 1:
        mask = outputs[1].astype(bool)
    return outputs[0], mask


def forward(layer_or_model, inputs, mask=None, initial_state=None):
    """Runs a built `StackedRNN`'s equations in NumPy (inference mode).

    Args:
        layer_or_model: a built `zoo.layers.StackedRNN`, or a model holding
            exactly one (then `inputs` are what that layer receives, or
            the model's own token ids: see `inputs`).
        inputs: `(batch, timesteps, features)` array; or, for a model
            that reads token ids (`zoo.stacked_rnn(vocabulary_size=...)`),
            a `(batch, timesteps)` integer array of ids: Keras runs the
            layers before the stack (the embedding: a lookup, nothing
            recurrent), which also give the mask (`ids != 0` where the
            embedding masks zero).
        mask: optional `(batch, timesteps)` boolean array.
        initial_state: optional flat list of states, in `return_state`
            order.

    Returns:
        A dict with `"output"` (what the layer returns as its output: the
        top sequence or last step, or the list of layer sequences for
        `output="all"`), `"layer_outputs"` (every layer's full sequence)
        and `"states"` (flat list, in `return_state` order).
    """
    stack = _find_stack(layer_or_model)
    x = np.asarray(inputs)
    if x.ndim == 2 and stack is not layer_or_model:
        x, mask = _embedded(layer_or_model, stack, x, mask)
    if x.ndim != 3:
        raise ValueError(
            "`inputs` must be a (batch, timesteps, features) array, what "
            "the StackedRNN receives (or, with a model that reads token "
            f"ids, a (batch, timesteps) array of ids); received shape "
            f"{x.shape}."
        )
    x = x.astype(np.float64)
    if mask is None:
        mask = np.ones(x.shape[:2], dtype=bool)
    mask = np.asarray(mask, dtype=bool)
    given = list(initial_state) if initial_state is not None else None
    layer_outputs, states = [], []
    for layer in stack.stack_layers:
        spec = layer.spec
        layer_state = None
        if given is not None:
            layer_state = given[: spec.num_states]
            given = given[spec.num_states :]
        if len(layer.directions) == 2:
            forward, backward = layer.directions
            half = None if layer_state is None else len(layer_state) // 2
            fw, fw_states = run_direction(
                forward,
                x,
                mask,
                None if half is None else layer_state[:half],
                zero_masked=True,
            )
            bw, bw_states = run_direction(
                backward,
                x,
                mask,
                None if half is None else layer_state[half:],
                zero_masked=True,
            )
            y = _merge(fw, bw, spec.merge_mode)
            # Read to the end, the backward direction's last output is at
            # the first unmasked timestep.
            first = np.argmax(mask, axis=1)
            bw_last = bw[np.arange(bw.shape[0]), first]
            last = _merge(_last(fw, mask), bw_last, spec.merge_mode)
            states.extend(fw_states + bw_states)
        else:
            y, layer_states = run_direction(
                layer.recurrent, x, mask, layer_state
            )
            last = _last(y, mask)
            states.extend(layer_states)
        y = _skip(layer.block, spec, y, x)
        last = _skip(layer.block, spec, last, _last(x, mask))
        layer_outputs.append(y)
        for after in layer.after:
            if isinstance(after, keras.layers.LayerNormalization):
                y = _layer_norm(after, y)
        x = y
    if stack.output_mode == "all":
        output = layer_outputs
    elif stack.return_sequences:
        output = layer_outputs[-1]
    else:
        output = last
    return {"output": output, "layer_outputs": layer_outputs, "states": states}
