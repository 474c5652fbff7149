"""Walks every layer nested in a model, a `StackedRNN` or a wrapper.

Keras has no public recursive layer iterator, so this follows the public
attributes each container exposes: `Model.layers`, `Wrapper.layer`,
`Bidirectional.forward_layer` / `backward_layer`, and `sublayers`, the
layers of a zoo container (`zoo.layers.StackedRNN`,
`zoo.layers.CharacterEncoder`), which this module reads without knowing
its class.

Example:
```python
model = zoo.stacked_lstm(2, 8, input_dim=4, bidirectional=True)
len(zoo.walk.recurrent_layers(model))  # 4: two layers, two directions each
```
"""

import keras


def iter_layers(root):
    """Yields `root` and every layer inside it, depth first, once each."""
    seen = set()
    stack = [root]
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        yield layer
        stack.extend(reversed(_children(layer)))


def _children(layer):
    sublayers = getattr(layer, "sublayers", None)
    if sublayers is not None:
        return list(sublayers)
    if isinstance(layer, keras.layers.Bidirectional):
        return directions(layer)
    if isinstance(layer, keras.layers.Wrapper):
        return [layer.layer]
    if isinstance(layer, keras.Model):
        return list(layer.layers)
    return []


def directions(rnn):
    """The recurrent layers of `rnn`: `[rnn]`, or `[forward, backward]` for
    a `keras.layers.Bidirectional`."""
    if isinstance(rnn, keras.layers.Bidirectional):
        return [rnn.forward_layer, rnn.backward_layer]
    return [rnn]


def recurrent_layers(root):
    """Every `keras.layers.RNN` (LSTM, GRU, SimpleRNN, ...) inside `root`."""
    return [
        layer
        for layer in iter_layers(root)
        if isinstance(layer, keras.layers.RNN)
    ]


def reset_states(model):
    """Resets the state of every stateful recurrent layer in `model`.

    Keras 3 dropped `Model.reset_states()`; this walks the model, including
    layers nested in `zoo.layers.StackedRNN`, wrappers and `Bidirectional`.

    Args:
        model: a `keras.Model` or a layer.

    Returns:
        The number of layers reset.
    """
    count = 0
    for layer in recurrent_layers(model):
        if layer.stateful:
            layer.reset_states()
            count += 1
    return count


def optional_layer(model, name):
    """`model.get_layer(name)`, or None when the model has no such layer
    (a tagger's `characters` or `crf`)."""
    try:
        return model.get_layer(name)
    except ValueError:
        return None


def graph_config(model):
    """The functional graph of `model` as Keras's functional config (its
    layers and the nodes that call them), or None for a model that is no
    functional graph. A functional model whose config is its
    constructor's arguments (`zoo.Backbone`, the `zoo.tasks` models) is
    read through a plain `keras.Model` over the same inputs, outputs and
    layers."""
    config = model.get_config() if hasattr(model, "get_config") else None
    if config and "layers" in config and "input_layers" in config:
        return config
    try:
        inputs, outputs = model.inputs, model.outputs
    except (AttributeError, ValueError):
        return None
    if not inputs or not outputs or not isinstance(model, keras.Model):
        return None
    inputs = inputs if len(inputs) > 1 else inputs[0]
    outputs = outputs if len(outputs) > 1 else outputs[0]
    return keras.Model(inputs, outputs, name=model.name).get_config()
