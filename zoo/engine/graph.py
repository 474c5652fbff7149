"""The engine's interpreter of a Keras functional model.

A functional model's public `get_config()` lists its layers with, for
each call of a layer (a node), the arguments it was called with: tensors
named by `keras_history` `[layer name, node index, tensor index]`,
constants, and keywords such as `mask=`. `Graph` reads that once, orders
the nodes that the outputs need, and pairs each with the NumPy form of
its layer (`zoo.engine.layers`, `zoo.engine.words`; the layer object,
with its weights, from `model.get_layer(name)`), a nested functional
model with a `Graph` of its own, and each Keras op that the model
recorded (`NotEqual`, `Any`, ... of the masks Keras computes
symbolically) with its NumPy twin.

Masks are computed as Keras does at run time: a layer's call gets its
recorded `mask=` or, when there is none and the layer takes one, its
first input's mask; its output's mask is the layer's `compute_mask` of
that (a mask leaves a nested model on its outputs, as it does in
Keras). A class with no NumPy form is a `NotImplementedError` naming it.
"""

import keras
import numpy as np

from zoo import walk
from zoo.engine import layers as layers_lib
from zoo.engine import words

_TENSOR = "__keras_tensor__"
FACTORIES = {**layers_lib.FACTORIES, **words.FACTORIES}


def _dtype(name, x):
    return np.asarray(x).dtype if name is None else np.dtype(name)


def _axis_op(function):
    def make(config):
        axis, keepdims = config.get("axis"), config.get("keepdims", False)
        if isinstance(axis, list):
            axis = tuple(axis)
        return lambda x: function(x, axis=axis, keepdims=keepdims)

    return make


def _filled(value):
    def make(config):
        def fill(x):
            dtype = _dtype(config.get("dtype"), x)
            return np.broadcast_to(np.asarray(value, dtype), np.shape(x))

        return fill

    return make


# The Keras ops a model records (by class name) and their NumPy twins,
# each made from the op's config.
OPS = {
    "NotEqual": lambda config: np.not_equal,
    "Equal": lambda config: np.equal,
    "LogicalOr": lambda config: np.logical_or,
    "LogicalAnd": lambda config: np.logical_and,
    "LogicalNot": lambda config: np.logical_not,
    "Any": _axis_op(np.any),
    "All": _axis_op(np.all),
    "ZerosLike": _filled(0),
    "OnesLike": _filled(1),
    "ExpandDims": lambda config: lambda x: np.expand_dims(x, config["axis"]),
    "Squeeze": lambda config: lambda x: np.squeeze(x, config.get("axis")),
    "Cast": lambda config: lambda x: np.asarray(x).astype(config["dtype"]),
    "Concatenate": lambda config: (
        lambda xs: np.concatenate(xs, axis=config.get("axis", 0))
    ),
    "Stack": lambda config: lambda xs: np.stack(xs, axis=config.get("axis", 0)),
}


class _Ref:
    """A tensor of the graph, by its `(layer, node, index)` key."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key


def _is_triple(value):
    return (
        isinstance(value, (list, tuple))
        and len(value) == 3
        and isinstance(value[0], str)
        and isinstance(value[1], int)
    )


def _template(value, triples=False):
    """A node's (or the model's inputs' / outputs') structure with each
    tensor as a `_Ref`."""
    if triples and _is_triple(value):
        return _Ref(tuple(value))
    if isinstance(value, dict):
        if value.get("class_name") == _TENSOR:
            return _Ref(tuple(value["config"]["keras_history"]))
        return {k: _template(x, triples) for k, x in value.items()}
    if isinstance(value, (list, tuple)):
        return [_template(x, triples) for x in value]
    return value


def _resolve(template, table, tensors=True):
    """The template with each `_Ref` replaced by `table[key]`; other
    leaves kept (`tensors`) or None (a mask structure)."""
    if isinstance(template, _Ref):
        return table.get(template.key)
    if isinstance(template, dict):
        return {k: _resolve(x, table, tensors) for k, x in template.items()}
    if isinstance(template, list):
        return [_resolve(x, table, tensors) for x in template]
    return template if tensors else None


def flatten(structure):
    """The leaves of nested lists, tuples and dicts (values), in order."""
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for item in structure.values() for leaf in flatten(item)]
    return [structure]


def _refs(template):
    return [x for x in flatten(template) if isinstance(x, _Ref)]


def unpack(structure):
    """Keras's `unpack_singleton`: a list of one is its item."""
    if isinstance(structure, list) and len(structure) == 1:
        return structure[0]
    return structure


class Op(layers_lib.Layer):
    """A recorded Keras op: no mask on its output."""

    def __init__(self, name, function):
        self.name = name
        self.function = function

    def __call__(self, args, kwargs, mask):
        return self.function(*args, **kwargs), None


class Nested(layers_lib.Layer):
    """A functional model inside the model (the taggers' `encoder`)."""

    takes_mask = True

    def __init__(self, model, config):
        self.name = model.name
        self.graph = Graph(model, config)

    def __call__(self, args, kwargs, mask):
        inputs = flatten(args[0])
        masks = flatten(mask) if mask is not None else []
        masks = (masks + [None] * len(inputs))[: len(inputs)]
        outputs, output_masks = self.graph.run(inputs, masks)
        return unpack(outputs), unpack(output_masks)


def _impl(model, entry):
    """The NumPy form of a config entry's layer (or op)."""
    name, cls = entry["name"], entry["class_name"]
    module = f"{entry.get('module') or ''}."
    if ".ops." in module:
        if cls not in OPS:
            raise NotImplementedError(
                f"zoo.engine has no NumPy form of the Keras op {cls} "
                f"({name!r})."
            )
        return Op(name, OPS[cls](entry.get("config", {})))
    layer = model.get_layer(name)
    config = (
        walk.graph_config(layer) if isinstance(layer, keras.Model) else None
    )
    if config is not None:
        return Nested(layer, config)
    factory = FACTORIES.get(type(layer))
    if factory is None:
        raise NotImplementedError(
            f"zoo.engine has no NumPy form of {type(layer).__name__} "
            f"(layer {name!r}); run the model with Keras."
        )
    return factory(layer)


class _Step:
    """One node: its layer's NumPy form and its arguments."""

    def __init__(self, impl, name, index, node):
        self.impl, self.name, self.index = impl, name, index
        self.args = _template(list(node.get("args", [])))
        self.kwargs = _template(dict(node.get("kwargs", {})))
        self.first = self.args[0] if self.args else None
        tensor_arguments = [a for a in self.args if _refs(a)] + [
            v for k, v in self.kwargs.items() if k != "mask" and _refs(v)
        ]
        self.fills_mask = impl.takes_mask and len(tensor_arguments) == 1
        self.merges_masks = isinstance(impl, Nested)

    def __call__(self, values, masks):
        args = _resolve(self.args, values)
        kwargs = _resolve(self.kwargs, values)
        propagated = _resolve(self.first, masks, tensors=False)
        explicit = kwargs.get("mask")
        if explicit is None and self.fills_mask:
            kwargs["mask"] = propagated
        if explicit is not None and self.merges_masks:
            explicit = [
                m if m is not None else p
                for m, p in zip(flatten(explicit), flatten(propagated))
            ]
            kwargs["mask"] = explicit
        previous = explicit if explicit is not None else propagated
        outputs, output_masks = self.impl(args, kwargs, previous)
        outputs = flatten(outputs)
        if output_masks is None:
            output_masks = [None] * len(outputs)
        else:
            output_masks = flatten(output_masks)
        for i, (x, m) in enumerate(zip(outputs, output_masks)):
            key = (self.name, self.index, i)
            values[key] = x
            masks[key] = m


class Graph:
    """A functional model's graph, ready to run (see the module).

    Args:
        model: the functional `keras.Model` (its layers, by name).
        config: its `get_config()` (or the nested entry's `config`).
    """

    def __init__(self, model, config):
        entries = {entry["name"]: entry for entry in config["layers"]}
        self.inputs = [
            r.key for r in _refs(_template(config["input_layers"], True))
        ]
        self.input_names = [key[0] for key in self.inputs]
        self.input_dtypes = [
            entries[name]["config"].get("dtype") for name in self.input_names
        ]
        self.input_dtypes = [
            d if isinstance(d, str) else None for d in self.input_dtypes
        ]
        self.outputs = _template(config["output_layers"], True)
        self.steps = []
        impls, done = {}, {(key[0], key[1]) for key in self.inputs}

        def visit(name, index):
            if (name, index) in done:
                return
            done.add((name, index))
            entry = entries.get(name)
            if entry is None or entry["class_name"] == "InputLayer":
                raise ValueError(
                    f"zoo.engine: the graph's tensor {name!r} is neither an "
                    "input nor a layer's output."
                )
            node = entry["inbound_nodes"][index]
            for ref in _refs(_template([node.get("args"), node.get("kwargs")])):
                visit(ref.key[0], ref.key[1])
            if name not in impls:
                impls[name] = _impl(model, entry)
            self.steps.append(_Step(impls[name], name, index, node))

        for ref in _refs(self.outputs):
            visit(ref.key[0], ref.key[1])
        # What each step is the last to read (a long input's intermediate
        # values are let go as soon as nothing needs them).
        kept = {ref.key for ref in _refs(self.outputs)}
        last = {}
        for i, step in enumerate(self.steps):
            for ref in _refs([step.args, step.kwargs]):
                last[ref.key] = i
        release = [[] for _ in self.steps]
        for key, i in last.items():
            if key not in kept:
                release[i].append(key)
        self.release = [tuple(keys) for keys in release]

    def run(self, inputs, masks=None):
        """`(outputs, output masks)` for the flat list of inputs (and
        their masks), in the structure of the model's outputs."""
        values, mask_of = {}, {}
        masks = masks or [None] * len(inputs)
        for key, x, mask in zip(self.inputs, inputs, masks):
            values[key] = x
            mask_of[key] = mask
        for step, done in zip(self.steps, self.release):
            step(values, mask_of)
            for key in done:
                values.pop(key, None)
                mask_of.pop(key, None)
        return (
            _resolve(self.outputs, values),
            _resolve(self.outputs, mask_of, tensors=False),
        )
