"""Closed-form parameter counts, and the width that fits a budget.

These formulas are what `keras.Model.count_params()` reports for a stack
built by `zoo.stacked_rnn` / `zoo.layers.StackedRNN` (a property test checks
them on random configurations):

- SimpleRNN: `u (i + u + 1)`
- GRU (Keras 3 default `reset_after=True`, two bias vectors): `3u (i + u + 2)`
  (`3u (i + u + 1)` with `reset_after=False`)
- LSTM: `4u (i + u + 1)`

(without the bias terms for `use_bias=False`)
times 2 for a bidirectional layer, where `i` is the layer's input width and
`u` its units; plus `i o` for a residual projection (when the input width
`i` differs from the output width `o`), `i o + o` for a highway gate (and
`i o` for its projection), `2 o` per layer norm, and `V d` for an embedding.
"""

from zoo import cells
from zoo import options
from zoo import spec as spec_lib
from zoo import validation as v


def _rnn_params(spec, i, u):
    """One direction's kernels and biases, for each of the cell's gates
    (`zoo.cells`; GRU's `reset_after=True` has a second bias vector, for
    the recurrent side)."""
    biases = 0
    if spec.use_bias:
        biases = 2 if spec.cell == "gru" and spec.reset_after else 1
    return cells.get(spec.cell).gates * u * (i + u + biases)


def layer_params(spec):
    """Parameters of one layer of a stack, from its `LayerSpec`."""
    i, o = spec.input_width, spec.output_width
    count = _rnn_params(spec, i, spec.units)
    if spec.bidirectional:
        count *= 2
    if spec.needs_projection:
        count += i * o
    if spec.highway:
        count += i * o + o
    if spec.layer_norm:
        count += 2 * o
    return count


def count_params(
    cell,
    input_dim,
    units,
    *,
    num_layers=None,
    vocabulary_size=None,
    **stack_options,
):
    """Parameters of a stack, equal to `model.count_params()` once built.

    Args:
        cell: `"lstm"`, `"gru"`, `"simple_rnn"` or one per layer.
        input_dim: feature width entering the first layer (the embedding
            width when `vocabulary_size` is given).
        units: hidden size, or one per layer.
        num_layers: depth (inferred from per-layer lists when omitted).
        vocabulary_size: when given, adds an `Embedding(vocabulary_size,
            input_dim)` below the stack.
        **stack_options: any other option of `zoo.options` that a stack
            takes (`bidirectional`, `merge_mode`, `residual`, `highway`,
            `layer_norm`, ...); those that add no parameters
            (`adds_params=False`: dropout, `seed`, ...) are checked and
            add nothing.

    Returns:
        The number of parameters, an `int`.

    Example:
    >>> zoo.count_params("lstm", 128, 256, num_layers=2)
    919552
    """
    input_dim = v.check_positive_int("input_dim", input_dim)
    plan = {}
    for name, value in stack_options.items():
        option = options.get(name)
        if option in options.CHARACTER_OPTIONS:
            raise ValueError(
                "count_params counts a stack and its token embedding, not a "
                f"character encoder; received {name}={value!r} (a "
                "zoo.layers.CharacterEncoder's own count_params() has it)."
            )
        if option.per_layer:
            plan[name] = value  # a list fixes the depth, as in the layer
        elif option.adds_params:
            raise ValueError(
                f"count_params takes `{name}` from its own arguments: the "
                "input (or embedding) width is `input_dim`; received "
                f"{name}={value!r}."
            )
        else:
            option.check(name, value)  # it adds no parameters
    specs = spec_lib.resolve(
        cell=cell,
        units=units,
        num_layers=num_layers,
        input_width=input_dim,
        **plan,
    )
    total = sum(layer_params(spec) for spec in specs)
    if vocabulary_size is not None:
        total += v.check_positive_int("vocabulary_size", vocabulary_size) * (
            input_dim
        )
    return total


def width_for_budget(
    cell, input_dim, num_layers, budget, *, decoder=False, **stack_options
):
    """The uniform width whose stack comes closest to `budget` parameters.

    Use it to compare depths at a fixed size: deep-and-narrow against
    shallow-and-wide, without confounding depth with parameter count.

    Args:
        cell: `"lstm"`, `"gru"` or `"simple_rnn"`.
        input_dim: feature width entering the first layer.
        num_layers: depth of the stack.
        budget: target number of parameters.
        decoder: also count a decoder stack of the same cell, depth and
            width, unidirectional, on the same input width: the two
            stacks of `zoo.build_seq2seq` (its attention, bridge,
            embeddings and output layer are not counted).
        **stack_options: passed to `zoo.count_params` (e.g.
            `bidirectional=True`, `residual=True`, `vocabulary_size=...`);
            with `decoder=True`, `bidirectional` and `merge_mode` are the
            encoder's only.

    Returns:
        The `units` (an `int` >= 1) minimising `|count_params - budget|`;
        ties go to the smaller width.

    Example:
    >>> units = zoo.width_for_budget("lstm", 128, 4, 1_600_000)
    """
    budget = v.check_positive_int("budget", budget)
    input_dim = v.check_positive_int("input_dim", input_dim)
    num_layers = v.check_positive_int("num_layers", num_layers)
    if not isinstance(decoder, bool):
        raise ValueError(
            f"`decoder` must be True or False; received decoder={decoder!r}."
        )
    # The decoder of zoo.build_seq2seq: the shared options, one direction.
    decoder_options = {
        k: value
        for k, value in stack_options.items()
        if k not in ("bidirectional", "merge_mode", "vocabulary_size")
    }

    def count(units):
        total = count_params(
            cell,
            input_dim,
            units,
            num_layers=num_layers,
            **stack_options,
        )
        if decoder:
            total += count_params(
                cell, input_dim, units, num_layers=num_layers, **decoder_options
            )
        return total

    smallest = count(1)
    if budget < smallest:
        raise ValueError(
            f"`budget`={budget} is below the smallest {num_layers}-layer "
            f"{cell} {'encoder and decoder' if decoder else 'stack'} on "
            f"input_dim={input_dim} ({smallest} parameters "
            "at units=1); raise the budget or lower num_layers."
        )
    # The count grows strictly with the width: find the first width at or
    # above the budget by doubling, then bisect.
    high = 1
    while count(high) < budget:
        high *= 2
    low = max(1, high // 2)
    while low < high:
        middle = (low + high) // 2
        if count(middle) < budget:
            low = middle + 1
        else:
            high = middle
    candidates = [u for u in (low - 1, low) if u >= 1]
    return min(candidates, key=lambda u: (abs(count(u) - budget), u))
