"""The resolved plan of a stack: one `LayerSpec` per recurrent layer.

`StackedRNN`, `count_params` and `width_for_budget` all read the same plan,
so the wiring rules (which layers get a residual connection, where a
projection is needed, where dropout and layer norm go) live in one place.
The plan's fields are the per-layer options of `zoo.options`.
"""

import dataclasses

from zoo import cells
from zoo import options
from zoo import validation as v
from zoo.options import AUTO_RESIDUAL_MIN_LAYERS
from zoo.options import CELLS  # noqa: F401  (read as zoo.spec.CELLS)

# The options a plan is made of: one value per layer each.
PER_LAYER = tuple(o for o in options.LAYER_OPTIONS if o.per_layer)
# What `resolve` takes: the depth and the per-layer options, in the
# order of `zoo.layers.StackedRNN`'s arguments.
ARGUMENTS = tuple(
    o.name
    for o in options.LAYER_OPTIONS
    if o.per_layer or o.name == "num_layers"
)


class _Widths:
    """What follows from a layer's options: its widths, states and
    projection."""

    @property
    def output_width(self):
        if self.bidirectional and self.merge_mode == "concat":
            return 2 * self.units
        return self.units

    @property
    def num_states(self):
        """How many state tensors the layer returns with `return_state`:
        `zoo.cells`' states per direction, twice when bidirectional."""
        directions = 2 if self.bidirectional else 1
        return cells.get(self.cell).states_per_direction * directions

    @property
    def needs_projection(self):
        """True when a skip connection must project the input to fit."""
        return (self.residual or self.highway) and (
            self.input_width != self.output_width
        )


LayerSpec = dataclasses.make_dataclass(
    "LayerSpec",
    [
        ("index", int),
        *((o.name, o.type) for o in PER_LAYER),
        ("input_width", int | None),
    ],
    bases=(_Widths,),
    frozen=True,
    namespace={"__module__": __name__},
)
LayerSpec.__doc__ = "\n".join(
    [
        "Everything that defines recurrent layer `index` of a stack.",
        "",
        "Attributes:",
        "    index: position in the stack, 0 at the bottom.",
        *(f"    {o.name}: {o.help}." for o in PER_LAYER),
        "    input_width: features entering the layer (None if unknown).",
    ]
)


def _everywhere(value, num_layers):
    return [value] * num_layers


def _above_first(value, num_layers):
    """A skip connection from the second layer up.

    Layer 0's input is the raw features, whose width usually differs from
    the hidden size; pass a list to put one on the first layer too.
    """
    if value == "auto":
        value = num_layers >= AUTO_RESIDUAL_MIN_LAYERS
    return [False] + [value] * (num_layers - 1)


def _between(value, num_layers):
    """After every layer but the top (a list is explicit, the top too)."""
    return [value] * (num_layers - 1) + [type(value)(0)]


# How one value for the whole stack spreads over its layers (every layer
# unless named here).
_SPREAD = {
    "residual": _above_first,
    "highway": _above_first,
    "layer_norm": _between,
    "inter_layer_dropout": _between,
}


def _expand(option, value, num_layers):
    """One checked value per layer, from a value or a per-layer list."""
    if isinstance(value, (list, tuple)):
        return v.per_layer(option.name, value, num_layers, option.check_entry)
    value = option.check(option.name, value)
    return _SPREAD.get(option.name, _everywhere)(value, num_layers)


def _takers(option):
    """`"GRU"`, `"GRU and LSTM"`: the Keras layers that take `option`."""
    return " and ".join(
        cells.get(cell).keras_class.__name__ for cell in option.cells
    )


def _only_where_it_applies(columns, values):
    """Checks the options that only some cells take (GRU's `reset_after`)
    and sets them to their defaults on the other layers, so that the plan
    says what each layer is built with."""
    layer_cells = columns["cell"]
    for option in PER_LAYER:
        if option.cells == options.CELLS:
            continue
        column = columns[option.name]
        given = values[option.name]
        takers = [
            i for i, cell in enumerate(layer_cells) if cell in option.cells
        ]
        if isinstance(given, (list, tuple)):
            wrong = [
                i
                for i, cell in enumerate(layer_cells)
                if cell not in option.cells and column[i] != option.default
            ]
            if wrong:
                i = wrong[0]
                raise ValueError(
                    f"`{option.name}[{i}]` applies to {_takers(option)} "
                    f"layers, and layer {i} is {layer_cells[i]!r}; received "
                    f"{option.name}={given!r} (give {option.default!r} "
                    "there)."
                )
        elif column and column[0] != option.default and not takers:
            raise ValueError(
                f"`{option.name}` applies to {_takers(option)} layers, and "
                f"this stack has none (cell={values['cell']!r}); "
                f"received {option.name}={given!r}."
            )
        for i, cell in enumerate(layer_cells):
            if cell not in option.cells:
                column[i] = option.default


def resolve(*, num_layers=None, input_width=None, **given):
    """Checks stack options together and returns a list of `LayerSpec`.

    Takes `num_layers`, `input_width` and the per-layer options of
    `zoo.options` (`PER_LAYER`; the defaults stand in for the others).
    Scalars apply to every layer; lists give one value per layer and fix
    the depth. `residual=True` / `highway=True` apply from the second layer
    up; pass a list to put one on the first layer too. A scalar
    `layer_norm` / `inter_layer_dropout` acts between layers, not after the
    top one; a list is explicit, entry `l` acting after layer `l`.
    """
    unknown = sorted(set(given) - {o.name for o in PER_LAYER})
    if unknown:
        raise ValueError(
            f"Unknown layer option(s) {unknown}; a stack's layers take "
            f"{list(ARGUMENTS)}."
        )
    values = {o.name: given.get(o.name, o.default) for o in PER_LAYER}
    num_layers = v.infer_num_layers(num_layers, **values)
    columns = {
        o.name: _expand(o, values[o.name], num_layers) for o in PER_LAYER
    }
    if input_width is not None:
        input_width = v.check_positive_int("input_width", input_width)

    _only_where_it_applies(columns, values)
    specs = []
    for i in range(num_layers):
        row = {name: column[i] for name, column in columns.items()}
        if row["residual"] and row["highway"]:
            raise ValueError(
                f"Layer {i} has both residual=True and highway=True; a layer "
                "takes one skip connection. Received residual="
                f"{values['residual']!r}, highway={values['highway']!r}."
            )
        spec = LayerSpec(index=i, input_width=input_width, **row)
        specs.append(spec)
        input_width = spec.output_width
    return specs
