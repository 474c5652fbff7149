"""The resolved plan of a stack: one `LayerSpec` per recurrent layer.

`StackedRNN`, `count_params` and `width_for_budget` all read the same plan,
so the wiring rules (which layers get a residual connection, where a
projection is needed, where dropout and layer norm go) live in one place.
"""

import dataclasses

from zoo import _validation as v

CELLS = ("simple_rnn", "gru", "lstm")
MERGE_MODES = ("concat", "sum", "ave", "mul")
OUTPUTS = ("top", "all")
# `residual="auto"` turns residual connections on from this depth up: two
# layers train fine without them, deeper plain stacks start to stall.
AUTO_RESIDUAL_MIN_LAYERS = 3


@dataclasses.dataclass(frozen=True)
class LayerSpec:
    """Everything that defines recurrent layer `index` of a stack.

    Attributes:
        index: position in the stack, 0 at the bottom.
        cell: "simple_rnn", "gru" or "lstm".
        units: hidden size of one direction.
        bidirectional: whether the layer reads the sequence both ways.
        merge_mode: how the two directions combine (bidirectional only).
        dropout: input dropout rate inside the layer (one mask per sequence).
        recurrent_dropout: hidden-to-hidden dropout (leaves the fused path).
        weight_drop: DropConnect rate on the recurrent kernel.
        residual: add the layer's input to its output.
        highway: gated mix of the layer's output and its input.
        layer_norm: normalise the output before the next layer.
        inter_layer_dropout: time-locked dropout before the next layer.
        input_width: features entering the layer (None if unknown yet).
    """

    index: int
    cell: str
    units: int
    bidirectional: bool
    merge_mode: str
    dropout: float
    recurrent_dropout: float
    weight_drop: float
    residual: bool
    highway: bool
    layer_norm: bool
    inter_layer_dropout: float
    input_width: int | None

    @property
    def output_width(self):
        if self.bidirectional and self.merge_mode == "concat":
            return 2 * self.units
        return self.units

    @property
    def needs_projection(self):
        """True when a skip connection must project the input to fit."""
        return (self.residual or self.highway) and (
            self.input_width != self.output_width
        )


def _check_cell(name, value):
    return v.check_choice(name, value, CELLS)


def _check_skip(name, value):
    return v.check_bool(name, value)


def _check_merge_mode(name, value):
    return v.check_choice(name, value, MERGE_MODES)


def _expand_between(name, value, num_layers, check):
    """Expands a between-layers option into one value per layer.

    A scalar applies between layers (after every layer but the top); a
    list is explicit, entry `l` applying after layer `l`, the top included.
    """
    if isinstance(value, (list, tuple)):
        return v.per_layer(name, value, num_layers, check)
    value = check(name, value)
    return [value] * (num_layers - 1) + [type(value)(0)]


def _expand_skip(name, value, num_layers, allow_auto):
    """Expands `residual` / `highway` into one bool per layer."""
    if isinstance(value, (list, tuple)):
        return v.per_layer(name, value, num_layers, _check_skip)
    if allow_auto and value == "auto":
        value = num_layers >= AUTO_RESIDUAL_MIN_LAYERS
    elif not isinstance(value, bool):
        allowed = "True, False, 'auto' or a per-layer list of bools"
        if not allow_auto:
            allowed = "True, False or a per-layer list of bools"
        raise ValueError(
            f"`{name}` must be {allowed}; received {name}={value!r}."
        )
    # A scalar True means "from the second layer up": layer 0's input is
    # the raw features, whose width usually differs from the hidden size.
    return [False] + [value] * (num_layers - 1)


def resolve(
    *,
    cell="lstm",
    units=128,
    num_layers=None,
    bidirectional=False,
    merge_mode="concat",
    dropout=0.0,
    recurrent_dropout=0.0,
    weight_drop=0.0,
    residual=False,
    highway=False,
    layer_norm=False,
    inter_layer_dropout=0.0,
    input_width=None,
):
    """Checks stack options together and returns a list of `LayerSpec`.

    Scalars apply to every layer; lists give one value per layer and fix
    the depth. `residual=True` / `highway=True` apply from the second layer
    up; pass a list to put one on the first layer too. A scalar
    `layer_norm` / `inter_layer_dropout` acts between layers, not after the
    top one; a list is explicit, entry `l` acting after layer `l`.
    """
    num_layers = v.infer_num_layers(
        num_layers,
        cell=cell,
        units=units,
        bidirectional=bidirectional,
        dropout=dropout,
        recurrent_dropout=recurrent_dropout,
        weight_drop=weight_drop,
        residual=residual,
        highway=highway,
        merge_mode=merge_mode,
        layer_norm=layer_norm,
        inter_layer_dropout=inter_layer_dropout,
    )
    cells = v.per_layer("cell", cell, num_layers, _check_cell)
    widths = v.per_layer("units", units, num_layers, v.check_positive_int)
    bidis = v.per_layer(
        "bidirectional", bidirectional, num_layers, v.check_bool
    )
    merges = v.per_layer(
        "merge_mode", merge_mode, num_layers, _check_merge_mode
    )
    drops = v.per_layer("dropout", dropout, num_layers, v.check_rate)
    rec_drops = v.per_layer(
        "recurrent_dropout", recurrent_dropout, num_layers, v.check_rate
    )
    weight_drops = v.per_layer(
        "weight_drop", weight_drop, num_layers, v.check_rate
    )
    residuals = _expand_skip("residual", residual, num_layers, True)
    highways = _expand_skip("highway", highway, num_layers, False)
    norms = _expand_between("layer_norm", layer_norm, num_layers, v.check_bool)
    inter = _expand_between(
        "inter_layer_dropout", inter_layer_dropout, num_layers, v.check_rate
    )
    if input_width is not None:
        input_width = v.check_positive_int("input_width", input_width)

    specs = []
    for i in range(num_layers):
        if residuals[i] and highways[i]:
            raise ValueError(
                f"Layer {i} has both residual=True and highway=True; a layer "
                "takes one skip connection. Received residual="
                f"{residual!r}, highway={highway!r}."
            )
        spec = LayerSpec(
            index=i,
            cell=cells[i],
            units=widths[i],
            bidirectional=bidis[i],
            merge_mode=merges[i],
            dropout=drops[i],
            recurrent_dropout=rec_drops[i],
            weight_drop=weight_drops[i],
            residual=residuals[i],
            highway=highways[i],
            layer_norm=norms[i],
            inter_layer_dropout=inter[i],
            input_width=input_width,
        )
        specs.append(spec)
        input_width = spec.output_width
    return specs
