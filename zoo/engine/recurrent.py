"""The recurrent loops of the engine: LSTM, GRU and SimpleRNN directions
in NumPy float32, several directions at once.

A `Lane` is one direction of one Keras recurrent layer (its weights,
read once); a `LaneGroup` runs lanes of the same cell and width side by
side. Each lane's input sequence is projected by one matmul (`x W + b`)
before the loop (a long one a block of steps at a time, just ahead of
the loop, so that its memory stays bounded: `functions.BLOCK_BYTES`);
the loop only does `h U` for every lane in one batched matmul, `(lanes,
batch, units) @ (lanes, units, gates)`, and the gates, in place. Running
a bidirectional layer's two directions (or an ELMo biLM's forward and
backward stacks) as one group halves the NumPy calls per step, which is
what a step costs at batch 1.

For the usual activations (tanh, sigmoid) the sigmoid gates' weights are
scaled by 0.5 when read, so that one `tanh` over every gate gives them
all: `sigmoid(x) = 0.5 * tanh(x / 2) + 0.5`. Other activations take a
plainer loop with the same results.

Masks follow Keras: a masked step keeps the previous state (and the
previous output). A lane that reads backwards (`go_backwards`) walks the
steps from last to first, so right padding is skipped before its first
real step, as Keras's reversed read does.
"""

import numpy as np

from zoo import cells
from zoo.engine import functions as fn
from zoo.engine import loops
from zoo.engine import ragged

FLOAT = fn.FLOAT


def _bias(cell, width, rows=None):
    if cell.use_bias:
        return fn.array(cell.bias)
    return np.zeros(width if rows is None else (rows, width), FLOAT)


def _reading(x, start, stop, reverse):
    """Reading steps `start` to `stop` of time-major `x`: time steps
    `start` to `stop`, or, reading backwards, the last `start` to
    `stop` time steps, last first."""
    if not reverse:
        return x[start:stop]
    steps = len(x)
    return x[steps - stop : steps - start][::-1]


class Lane:
    """One direction of a Keras LSTM / GRU / SimpleRNN layer.

    Attributes:
        kind: `"lstm"`, `"gru"` (`reset_after=True`), `"gru_v1"`
            (`reset_after=False`) or `"simple_rnn"`.
        units: the state width.
        reverse: whether it reads the steps last to first.
        fast: tanh / sigmoid, with the sigmoid columns pre-scaled.
        kernel, bias: the input projection (`x kernel + bias`).
        recurrent, recurrent_bias: `h recurrent (+ recurrent_bias)`.
    """

    def __init__(self, rnn, reverse=None):
        record = cells.of_layer(rnn)
        if record is None:
            raise NotImplementedError(
                f"zoo.engine runs LSTM, GRU and SimpleRNN layers; layer "
                f"{rnn.name!r} is a {type(rnn).__name__}."
            )
        if getattr(rnn, "stateful", False):
            raise NotImplementedError(
                f"zoo.engine does not keep states between calls: layer "
                f"{rnn.name!r} is stateful."
            )
        cell = rnn.cell
        units = cell.units
        where = f"layer {rnn.name!r}"
        self.units = units
        self.reverse = bool(rnn.go_backwards if reverse is None else reverse)
        self.act = fn.activation(cell.activation, where)
        self.gate = None
        if hasattr(cell, "recurrent_activation"):
            self.gate = fn.activation(cell.recurrent_activation, where)
        kernel = fn.array(cell.kernel)
        recurrent = fn.array(cell.recurrent_kernel)
        self.recurrent_bias = None
        if record is cells.LSTM:
            self.kind = "lstm"
            bias = _bias(cell, 4 * units)
            # Keras's gates i, f, g, o become i, f, o, g: the sigmoid
            # gates side by side.
            order = np.r_[
                0 : 2 * units, 3 * units : 4 * units, 2 * units : 3 * units
            ]
            kernel, recurrent, bias = (
                w[..., order] for w in (kernel, recurrent, bias)
            )
            sigmoid_columns = 3 * units
        elif record is cells.GRU and cell.reset_after:
            self.kind = "gru"
            bias = _bias(cell, 3 * units, rows=2)
            bias, self.recurrent_bias = bias[0].copy(), bias[1].copy()
            sigmoid_columns = 2 * units
        elif record is cells.GRU:
            self.kind = "gru_v1"
            bias = _bias(cell, 3 * units)
            sigmoid_columns = 2 * units
        else:
            self.kind = "simple_rnn"
            bias = _bias(cell, units)
            sigmoid_columns = 0
        # reset_after=False takes the plain loop (two matmuls a step).
        self.fast = (
            self.kind != "gru_v1"
            and fn.is_tanh(self.act)
            and (self.gate is None or fn.is_sigmoid(self.gate))
        )
        if self.fast and sigmoid_columns:
            for w in (kernel, recurrent, bias, self.recurrent_bias):
                if w is not None:
                    w[..., :sigmoid_columns] *= 0.5
        self.kernel = np.ascontiguousarray(kernel)
        self.recurrent = np.ascontiguousarray(recurrent)
        self.bias = np.ascontiguousarray(bias)
        # One step at a time (a decoder): `[x, h] @ [kernel; recurrent]`,
        # one matmul (an LSTM; a GRU's reset gate needs `h U` alone).
        self.stacked = self.table = None
        if self.fast and self.kind == "lstm":
            self.stacked = fn.Matrix(
                np.concatenate([self.kernel, self.recurrent])
            )
        self.kernel_matrix = fn.Matrix(self.kernel)
        self.recurrent_matrix = fn.Matrix(self.recurrent)

    @property
    def signature(self):
        """What lanes must share to run in one group."""
        return (self.kind, self.units, self.fast, self.act, self.gate)

    @property
    def num_states(self):
        return 2 if self.kind == "lstm" else 1

    @property
    def gates(self):
        """The width of a step's projected input (`x kernel + bias`)."""
        return self.kernel.shape[-1]

    def use_table(self, embeddings):
        """Reads token ids through `embeddings` (the embedding before
        this layer) projected once, now: `project(ids)` is then a lookup
        of `embeddings @ kernel + bias`."""
        self.table = embeddings @ self.kernel
        self.table += self.bias

    def project(self, x):
        """`x kernel + bias` for `(..., features)` inputs, or the rows of
        `table` for integer ids."""
        if x.dtype.kind in "iu":
            return np.take(self.table, x, axis=0)
        flat = x.reshape(-1, x.shape[-1])
        out = self.kernel_matrix.dot(flat)
        out += self.bias
        return out.reshape(*x.shape[:-1], out.shape[-1])

    def step(self, x, states):
        """One step of every row (all real) of `(rows, features)` inputs:
        `(output, states)`, or None where only the loop runs this cell
        (`LaneGroup.run` over one step)."""
        units = self.units
        if self.stacked is not None:
            if x.dtype.kind in "iu":
                z = self.recurrent_matrix.dot(states[0])
                z += self.project(x)
            else:
                z = self.stacked.dot(np.concatenate([x, states[0]], axis=1))
                z += self.bias
            np.tanh(z, out=z)
            sig = z[:, : 3 * units]
            sig *= 0.5
            sig += 0.5
            c = z[:, units : 2 * units] * states[1]
            c += z[:, :units] * z[:, 3 * units :]
            h = np.tanh(c)
            h *= z[:, 2 * units : 3 * units]
            return h, [h, c]
        if self.fast and self.kind == "gru":
            h = states[0]
            x = self.project(x)
            hu = self.recurrent_matrix.dot(h)
            hu += self.recurrent_bias
            new = fn.gru_step(x, hu, h, units, np.empty_like(hu[:, :units]))
            return new, [new]
        return None


class LaneGroup:
    """Lanes of one signature, run side by side (see the module)."""

    def __init__(self, lanes):
        lanes = list(lanes)
        if len({lane.signature for lane in lanes}) != 1:
            raise ValueError("a LaneGroup's lanes must share their cell.")
        self.lanes = lanes
        first = lanes[0]
        self.kind, self.units, self.fast = first.kind, first.units, first.fast
        self.act, self.gate = first.act, first.gate
        self.reverse = [lane.reverse for lane in lanes]
        recurrent = np.stack([lane.recurrent for lane in lanes])
        units = self.units
        if self.kind == "gru_v1":
            self.recurrent = np.ascontiguousarray(recurrent[..., : 2 * units])
            self.recurrent_n = np.ascontiguousarray(recurrent[..., 2 * units :])
        else:
            self.recurrent = recurrent
        # By lane and column block where that is faster (`fn.Matrix`).
        self.blocked = all(lane.recurrent_matrix.blocks for lane in lanes)
        self.recurrent_bias = None
        if self.kind == "gru":
            self.recurrent_bias = np.stack(
                [lane.recurrent_bias for lane in lanes]
            )[:, None, :]

    @property
    def num_states(self):
        return 2 if self.kind == "lstm" else 1

    def run(self, inputs, mask=None, initial=None, sequences=True):
        """Runs every lane over its own time-major inputs.

        Args:
            inputs: one `(steps, batch, features)` float32 array per lane
                (the same object for the two directions of a layer).
            mask: optional `(steps, batch)` boolean mask, shared.
            initial: optional list, one per lane, of its states
                (`[h]` or `[h, c]`, each `(batch, units)`).
            sequences: whether to keep every step's outputs (else only
                the final states are wanted).

        Returns:
            `(outputs, states)`: `(steps, lanes, batch, units)` outputs in
            each lane's reading order (a backward lane's step `t` is time
            `steps - 1 - t`), None without `sequences`, and each lane's
            final states.
        """
        if mask is not None and self.fast:
            where = ragged.layout(mask)
            if where is not None:
                return ragged.run(self, inputs, where, initial, sequences)
        lanes = len(self.lanes)
        steps, batch = inputs[0].shape[:2]
        units = self.units
        states = [np.zeros((lanes, batch, units), FLOAT)]
        if self.kind == "lstm":
            states.append(np.zeros((lanes, batch, units), FLOAT))
        if initial is not None:
            for k, state in enumerate(states):
                for d, lane_states in enumerate(initial):
                    state[d] = lane_states[k]
        outputs = None
        if sequences:
            outputs = np.empty((steps, lanes, batch, units), FLOAT)
        loop = loops.FAST[self.kind] if self.fast else loops.plain
        masked = mask is not None and not mask.all()
        size = fn.block_steps(lanes * batch * self.lanes[0].gates)
        for start in range(0, steps, size):
            stop = min(steps, start + size)
            projected = self.project(inputs, start, stop)
            hold = None
            if masked:
                keep = np.empty((stop - start, lanes, batch, 1), bool)
                for d, reverse in enumerate(self.reverse):
                    keep[:, d, :, 0] = _reading(mask, start, stop, reverse)
                hold = ~keep
            # A fresh ring each block: the one before holds the states.
            out = (
                outputs[start:stop]
                if sequences
                else loops.Ring((lanes, batch, units))
            )
            states = loop(self, projected, hold, states, out)
        finals = [[s[d] for s in states] for d in range(lanes)]
        if sequences:
            # Copies: a final state may be a step of `outputs`, a view
            # that would keep every step's outputs alive.
            finals = [[s.copy() for s in lane] for lane in finals]
        return outputs, finals

    def project(self, inputs, start, stop):
        """Every lane's projected inputs at its reading steps `start` to
        `stop`, `(stop - start, lanes, batch, gates)`: a backward lane
        reads its inputs from the last step."""
        projected = None
        steps = len(inputs[0])
        for d, lane in enumerate(self.lanes):
            if lane.reverse:
                x = lane.project(inputs[d][steps - stop : steps - start])
                x = x[::-1]
            else:
                x = lane.project(inputs[d][start:stop])
            if projected is None:
                projected = np.empty(
                    (stop - start, len(self.lanes), *x.shape[1:]), FLOAT
                )
            projected[:, d] = x
        return projected

    def times_recurrent(self, h, out):
        """`h @ recurrent` of every lane, `(lanes, batch, units)`."""
        if self.blocked and h.shape[1] in fn.Matrix.FEW:
            for d, lane in enumerate(self.lanes):
                lane.recurrent_matrix.dot(h[d], out[d])
        else:
            np.matmul(h, self.recurrent, out=out)
