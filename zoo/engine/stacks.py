"""A `zoo.layers.StackedRNN` in NumPy: its layers' lanes, merges, skip
connections and layer norm, run time-major.

`StackPlan` reads a built stack once (`zoo.engine.recurrent.Lane` for
each direction, the residual / highway weights, the layer norms) and
runs it as `zoo.reference` writes it out: each layer's directions in one
`LaneGroup`, the bidirectional merge (zero at masked steps, as Keras's
`Bidirectional`), the skip connection (`y + P x`, or `g y + (1 - g) P x`
with `g = sigmoid(x W_g + b_g)`), then the layers after it (layer norm;
dropout is the identity at inference). `Lockstep` runs several stacks
of the same shape side by side, their lanes in one group per layer: an
ELMo biLM's forward and backward stacks.
"""

import keras
import numpy as np

from zoo.engine import functions as fn
from zoo.engine.recurrent import Lane
from zoo.engine.recurrent import LaneGroup
from zoo.kernels import planning
from zoo.layers.highway_wrapper import HighwayWrapper
from zoo.layers.residual_wrapper import ResidualWrapper

FLOAT = fn.FLOAT
# What may sit after a stack's layer: layer norm, or dropout (identity).
_DROPOUTS = (keras.layers.Dropout, keras.layers.SpatialDropout1D)


def _merge(forward, backward, mode):
    if mode == "concat":
        return np.concatenate([forward, backward], axis=-1)
    if mode == "sum":
        return forward + backward
    if mode == "ave":
        merged = forward + backward
        merged *= 0.5
        return merged
    return forward * backward


def last_step(x, mask):
    """`(steps, batch, features)` -> each row's last unmasked step."""
    if mask is None:
        return x[-1]
    steps = mask.shape[0]
    index = steps - 1 - np.argmax(mask[::-1], axis=0)
    return x[index, np.arange(x.shape[1])]


class LayerPlan:
    """One layer of a stack: its lanes, merge, skip and what follows."""

    def __init__(self, stack_layer):
        spec = stack_layer.spec
        self.bidirectional = bool(spec.bidirectional)
        self.merge = spec.merge_mode
        self.lanes = [Lane(rnn) for rnn in stack_layer.directions]
        self.group = LaneGroup(self.lanes)
        block = stack_layer.block
        self.skip = None
        self.projection = self.gate_kernel = self.gate_bias = None
        if block is not stack_layer.recurrent:
            if type(block) is ResidualWrapper:
                self.skip = "residual"
            elif type(block) is HighwayWrapper:
                self.skip = "highway"
                self.gate_kernel = fn.array(block.gate.kernel)
                self.gate_bias = fn.array(block.gate.bias)
            else:
                raise NotImplementedError(
                    f"zoo.engine has no NumPy form of {type(block).__name__}"
                    f" (layer {block.name!r})."
                )
            if block.projection_layer is not None:
                self.projection = fn.array(block.projection_layer.kernel)
        self.after = []
        for layer in stack_layer.after:
            if type(layer) is keras.layers.LayerNormalization:
                self.after.append(fn.LayerNorm(layer))
            elif not isinstance(layer, _DROPOUTS):
                raise NotImplementedError(
                    f"zoo.engine has no NumPy form of {type(layer).__name__}"
                    f" (layer {layer.name!r})."
                )

    @property
    def num_lanes(self):
        return len(self.lanes)

    def combine(self, y, x, in_place=False):
        """The block's skip connection of output `y` and input `x`, into
        `y` itself with `in_place` (a merged sequence that nothing else
        reads: a long one is not copied again)."""
        if self.skip is None:
            return y
        skip = x
        if self.projection is not None:
            skip = x @ self.projection
        if self.skip == "residual":
            if in_place:
                y += skip
                return y
            return y + skip
        gate = x @ self.gate_kernel
        gate += self.gate_bias
        fn.sigmoid(gate, out=gate)
        # g y + (1 - g) s = s + g (y - s)
        mixed = np.subtract(y, skip, out=y if in_place else None)
        mixed *= gate
        mixed += skip
        return mixed

    def step(self, x, states):
        """One step of a one-way layer over `(rows, features)` inputs,
        every row real: `(block output, new states)`."""
        lane = self.lanes[0]
        stepped = lane.step(x, states)
        if stepped is None:
            out, finals = self.group.run([x[None]], None, [states])
            stepped = out[0, 0], finals[0]
        y, new_states = stepped
        return self.combine(y, x), new_states

    def outputs(self, lane_outputs, finals, mask, x, top):
        """The block's `(sequence, last)` from its lanes' time-major
        outputs in reading order and final states (`LaneGroup.run`);
        `last` only when `top`."""
        y = None
        if lane_outputs[0] is None:
            pass  # only the last output is wanted
        elif self.bidirectional:
            y = _merge(lane_outputs[0], lane_outputs[1][::-1], self.merge)
            if mask is not None and not mask.all():
                y[~mask] = 0
        else:
            y = lane_outputs[0]
        last = None
        if top:
            if self.bidirectional:
                last = _merge(finals[0][0], finals[1][0], self.merge)
            else:
                last = finals[0][0]
            if self.skip is not None:
                last = self.combine(last, last_step(x, mask))
        if y is not None:
            # The bidirectional merge is a new array: the skip goes into it.
            y = self.combine(y, x, in_place=self.bidirectional)
        return y, last


class StackPlan:
    """A built `zoo.layers.StackedRNN`, read once (see the module)."""

    def __init__(self, stack):
        if not stack.built:
            raise ValueError(
                f"zoo.engine reads built layers; build stack {stack.name!r} "
                "(call it, or its model, once) first."
            )
        if stack.stateful:
            raise NotImplementedError(
                f"zoo.engine does not keep states between calls: stack "
                f"{stack.name!r} is stateful."
            )
        self.name = stack.name
        self.layers = [LayerPlan(layer) for layer in stack.stack_layers]
        self.return_sequences = bool(stack.return_sequences)
        self.output_mode = stack.output_mode
        self.return_state = bool(stack.return_state)
        self.counts = [
            layer.num_lanes * layer.lanes[0].num_states for layer in self.layers
        ]
        self.lockstep = Lockstep([self])

    def lane_states(self, initial_state):
        """A flat `return_state`-ordered list -> one list per layer of
        each lane's states, or None."""
        if initial_state is None:
            return None
        flat = list(initial_state)
        if len(flat) != sum(self.counts):
            raise ValueError(
                f"`initial_state` must hold {sum(self.counts)} arrays for "
                f"stack {self.name!r}; received {len(flat)}."
            )
        flat = [np.asarray(state, FLOAT) for state in flat]
        per_layer = []
        for layer in self.layers:
            per = layer.lanes[0].num_states
            per_layer.append(
                [flat[k * per : (k + 1) * per] for k in range(layer.num_lanes)]
            )
            flat = flat[per * layer.num_lanes :]
        return per_layer

    def use_table(self, embeddings):
        """Lets the bottom layer read token ids through `embeddings` (its
        input's embedding), projected once (`Lane.use_table`); False
        where a skip connection needs the embedded inputs."""
        bottom = self.layers[0]
        if bottom.skip is not None:
            return False
        for lane in bottom.lanes:
            lane.use_table(embeddings)
        return True

    def step(self, x, states):
        """One step of a one-way stack (a decoder) over `(rows,
        features)` inputs, every row real: `(top output, new states)`,
        the states flat, in `return_state` order."""
        if any(layer.bidirectional for layer in self.layers):
            raise ValueError(f"stack {self.name!r} reads both ways.")
        new_states, start = [], 0
        for layer, count in zip(self.layers, self.counts):
            y, layer_states = layer.step(x, states[start : start + count])
            start += count
            new_states += layer_states
            x = y
            for after in layer.after:
                x = after(x)
        return y, new_states

    def __call__(self, x, mask=None, initial_state=None):
        """Keras's call: `(batch, steps, features)` inputs, optional
        `(batch, steps)` mask and flat initial states; returns what the
        layer returns, as float32 arrays."""
        x = np.asarray(x)
        if x.ndim >= 2 and not x.shape[1]:
            # No timesteps: refused in Keras's words (a row of padding
            # only is fine: it keeps zero states).
            planning.check_inputs(x if x.ndim == 3 else x[..., None])
        if x.dtype.kind not in "iu":  # ids: after `use_table`
            x = x.astype(FLOAT, copy=False)
        xt = np.ascontiguousarray(np.swapaxes(x, 0, 1))
        maskt = None if mask is None else np.asarray(mask, bool).T
        sequences, last, states = self.lockstep.run(
            [xt], maskt, [self.lane_states(initial_state)]
        )[0]
        if self.output_mode == "all":
            result = [_batch_major(y) for y in sequences]
        elif self.return_sequences:
            result = _batch_major(sequences[-1])
        else:
            result = last
        if self.return_state:
            return [result, *states]
        return result


def _batch_major(y):
    return np.ascontiguousarray(y.transpose(1, 0, 2))


class Lockstep:
    """Stacks of equal depth run side by side over time-major inputs:
    at each layer, all their lanes in one `LaneGroup` when they share a
    cell and width (an ELMo biLM's forward and backward stacks), else
    each stack's own. Made once, when the engine compiles a model."""

    def __init__(self, plans):
        self.plans = list(plans)
        depth = len(self.plans[0].layers)
        if any(len(plan.layers) != depth for plan in self.plans):
            raise ValueError("Lockstep needs stacks of equal depth.")
        self.groups = []
        for index in range(depth):
            layers = [plan.layers[index] for plan in self.plans]
            lanes = [lane for layer in layers for lane in layer.lanes]
            if len(layers) > 1 and len({x.signature for x in lanes}) == 1:
                self.groups.append([LaneGroup(lanes)])
            else:
                self.groups.append([layer.group for layer in layers])

    def run(self, inputs, mask, initial=None):
        """Runs the stacks.

        Args:
            inputs: one `(steps, batch, features)` float32 array a stack.
            mask: optional `(steps, batch)` boolean mask, shared.
            initial: optional, one a stack, `StackPlan.lane_states`'
                result (or None).

        Returns:
            One `(sequences, last, states)` a stack: every layer's
            time-major output sequence (before the layers after it) where
            the stack's `output_mode` is `"all"`, else the top layer's
            alone (None where the stack stops returning sequences); the
            top layer's last output (None unless the stack stops
            returning sequences) and the flat final states.
        """
        plans = self.plans
        initial = list(initial or [None] * len(plans))
        xs = list(inputs)
        results = [([], None, []) for _ in plans]
        for index, groups in enumerate(self.groups):
            layers = [plan.layers[index] for plan in plans]
            lane_inputs = [
                xs[p] for p, layer in enumerate(layers) for _ in layer.lanes
            ]
            lane_initial = None
            if any(state is not None for state in initial):
                lane_initial = []
                for p, layer in enumerate(layers):
                    if initial[p] is None:
                        lane_initial += _zero_states(layer, xs[p].shape[1])
                    else:
                        lane_initial += initial[p][index]
            # The top layer's sequences, unless every stack stops
            # returning them (a character encoder): only final states.
            wanted = index < len(self.groups) - 1 or any(
                plan.return_sequences for plan in plans
            )
            sequences, finals, start = [], [], 0
            for group in groups:
                size = len(group.lanes)
                out, fin = group.run(
                    lane_inputs[start : start + size],
                    mask,
                    None
                    if lane_initial is None
                    else lane_initial[start : start + size],
                    sequences=wanted,
                )
                sequences += [
                    None if out is None else out[:, k] for k in range(size)
                ]
                finals += fin
                start += size
            start = 0
            for p, (plan, layer) in enumerate(zip(plans, layers)):
                size = layer.num_lanes
                lane_finals = finals[start : start + size]
                top = index == len(self.groups) - 1
                y, last = layer.outputs(
                    sequences[start : start + size],
                    lane_finals,
                    mask,
                    xs[p],
                    top and not plan.return_sequences,
                )
                start += size
                layer_sequences, _, states = results[p]
                # A layer below the top is kept only where the stack
                # returns every layer (a long sequence is large).
                if top or plan.output_mode == "all":
                    layer_sequences.append(y)
                states.extend(s for lane in lane_finals for s in lane)
                for after in layer.after if y is not None else ():
                    y = after(y)
                xs[p] = y
                if last is not None:
                    results[p] = (layer_sequences, last, states)
            # This layer's lane outputs are read: let them go before the
            # next layer's are made.
            sequences = out = None
        return results


def _zero_states(layer, batch):
    zeros = np.zeros((batch, layer.lanes[0].units), FLOAT)
    return [[zeros] * layer.lanes[0].num_states] * layer.num_lanes
