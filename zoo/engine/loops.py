"""The time loops of a `zoo.engine.recurrent.LaneGroup`, one per cell.

Each loop takes the group (its weights), the lanes' projected
inputs `(steps, lanes, batch, gates)` in reading order, the steps each
row holds (`hold`, None without padding), the first states and where to
write each step's output (`outputs[t]`, the held one at a masked step,
or a `Ring` when only the final states are wanted), and returns the
final states. The fast loops (tanh and sigmoid; the sigmoid columns read
halved, see `zoo.engine.recurrent`) work in place, about ten NumPy calls
a step; `plain` writes any activation out gate by gate.
"""

import numpy as np

from zoo.engine import functions as fn

FLOAT = fn.FLOAT


class Ring:
    """Two step buffers in turn, where a loop's outputs are not kept."""

    def __init__(self, shape):
        self.buffers = [np.empty(shape, FLOAT), np.empty(shape, FLOAT)]

    def __getitem__(self, step):
        return self.buffers[step % 2]

    def __setitem__(self, step, value):
        self.buffers[step % 2][...] = value


def lstm(group, projected, hold, states, outputs):
    h, c = states
    units = group.units
    z = np.empty(projected.shape[1:], FLOAT)
    scratch = np.empty(h.shape, FLOAT)
    sig, g = z[..., : 3 * units], z[..., 3 * units :]
    i, f, o = (sig[..., k * units : (k + 1) * units] for k in range(3))
    for t in range(len(projected)):
        group.times_recurrent(h, z)
        z += projected[t]
        np.tanh(z, out=z)
        sig *= 0.5
        sig += 0.5
        new_c = f * c
        np.multiply(i, g, out=scratch)
        new_c += scratch
        new_h = outputs[t]
        np.tanh(new_c, out=scratch)
        np.multiply(o, scratch, out=new_h)
        if hold is not None:
            np.copyto(new_h, h, where=hold[t])
            np.copyto(new_c, c, where=hold[t])
        h, c = new_h, new_c
    return [h, c]


def gru(group, projected, hold, states, outputs):
    (h,) = states
    units = group.units
    recurrent_bias = group.recurrent_bias
    hu = np.empty(projected.shape[1:], FLOAT)
    for t in range(len(projected)):
        group.times_recurrent(h, hu)
        hu += recurrent_bias
        new_h = fn.gru_step(projected[t], hu, h, units, outputs[t])
        if hold is not None:
            np.copyto(new_h, h, where=hold[t])
        h = new_h
    return [h]


def simple_rnn(group, projected, hold, states, outputs):
    (h,) = states
    for t in range(len(projected)):
        new_h = outputs[t]
        group.times_recurrent(h, new_h)
        new_h += projected[t]
        np.tanh(new_h, out=new_h)
        if hold is not None:
            np.copyto(new_h, h, where=hold[t])
        h = new_h
    return [h]


def plain(group, projected, hold, states, outputs):
    """Any activations (and `reset_after=False`): the equations of
    `zoo.reference`, gate by gate."""
    units = group.units

    def act(x):
        return fn.apply(group.act, x)

    def gate(x):
        return fn.apply(group.gate, x)

    h = states[0]
    c = states[1] if group.kind == "lstm" else None
    for t in range(len(projected)):
        x = projected[t]
        if group.kind == "lstm":
            z = np.matmul(h, group.recurrent) + x
            i = gate(z[..., :units])
            f = gate(z[..., units : 2 * units])
            o = gate(z[..., 2 * units : 3 * units])
            new_c = f * c + i * act(z[..., 3 * units :])
            new_h = o * act(new_c)
        elif group.kind == "gru":
            hu = np.matmul(h, group.recurrent) + group.recurrent_bias
            z = gate(x[..., :units] + hu[..., :units])
            r = gate(x[..., units : 2 * units] + hu[..., units : 2 * units])
            n = act(x[..., 2 * units :] + r * hu[..., 2 * units :])
            new_h = z * h + (1 - z) * n
        elif group.kind == "gru_v1":
            hu = np.matmul(h, group.recurrent)
            z = gate(x[..., :units] + hu[..., :units])
            r = gate(x[..., units : 2 * units] + hu[..., units:])
            n = act(x[..., 2 * units :] + np.matmul(r * h, group.recurrent_n))
            new_h = z * h + (1 - z) * n
        else:
            new_h = act(np.matmul(h, group.recurrent) + x)
        if hold is not None:
            new_h = np.where(hold[t], h, new_h)
            if c is not None:
                new_c = np.where(hold[t], c, new_c)
        outputs[t] = new_h
        h = outputs[t]
        if c is not None:
            c = new_c
    return [h] if c is None else [h, c]


FAST = {"lstm": lstm, "gru": gru, "simple_rnn": simple_rnn}
