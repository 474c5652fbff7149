"""Right-padded batches without their padding: the recurrent loop of a
`zoo.engine.recurrent.LaneGroup` over real steps only.

A batch of sequences of mixed lengths (sentences of 5 to 40 words, the
characters of short and long words) is mostly padding at its later
steps. Sorted by falling length, the rows still running at step `t` are
the first `n_t` of them, so each step multiplies `h[:n_t] @ U` only, and
each lane's input projection is one matmul over the real steps alone
(gathered step by step, each step's rows side by side; a block of steps
at a time where they are many, `blocks`). A row that has
ended keeps its state, as a masked step does in Keras; a backward lane
starts each row at its own last step. Outputs at padded steps are zero.

Only right-padded masks take this path (`layout` says whether a mask is
one), with the usual activations; the lanes then run one after the other
rather than side by side, which pays when much of a batch is padding.
"""

import numpy as np

from zoo.engine import functions as fn

FLOAT = fn.FLOAT
# Below this share of real steps a padded batch runs ragged.
REAL_SHARE = 0.8


class Layout:
    """Where the real steps of a right-padded `(steps, batch)` mask are,
    its rows sorted by falling length."""

    def __init__(self, lengths, steps):
        self.order = np.argsort(-lengths, kind="stable")
        self.inverse = np.argsort(self.order)
        ranked = lengths[self.order]
        self.counts = (ranked[None, :] > np.arange(steps)[:, None]).sum(1)
        self.offsets = np.concatenate([[0], np.cumsum(self.counts)])
        self.time = np.repeat(np.arange(steps), self.counts)
        rank = np.arange(self.offsets[-1]) - self.offsets[self.time]
        self.rows = self.order[rank]


def layout(mask):
    """A `Layout` for a time-major mask that is right-padded and mostly
    padding (`REAL_SHARE`), else None."""
    steps, batch = mask.shape
    if batch < 2:
        return None
    lengths = mask.sum(axis=0)
    if lengths.sum() >= REAL_SHARE * mask.size:
        return None
    if not np.array_equal(mask, np.arange(steps)[:, None] < lengths):
        return None
    return Layout(lengths, steps)


def _lstm(lane, states, n, x, out):
    h, c = states
    units = lane.units
    z = lane.recurrent_matrix.dot(h[:n])
    z += x
    np.tanh(z, out=z)
    sig = z[:, : 3 * units]
    sig *= 0.5
    sig += 0.5
    kept = c[:n]
    kept *= z[:, units : 2 * units]
    kept += z[:, :units] * z[:, 3 * units :]
    np.tanh(kept, out=out)
    out *= z[:, 2 * units : 3 * units]
    h[:n] = out


def _gru(lane, states, n, x, out):
    (h,) = states
    units = lane.units
    hu = lane.recurrent_matrix.dot(h[:n])
    hu += lane.recurrent_bias
    h[:n] = fn.gru_step(x, hu, h[:n], units, out)


def _simple_rnn(lane, states, n, x, out):
    (h,) = states
    new = lane.recurrent_matrix.dot(h[:n])
    new += x
    np.tanh(new, out=out)
    h[:n] = out


STEPS = {"lstm": _lstm, "gru": _gru, "simple_rnn": _simple_rnn}


def blocks(where, width):
    """`(start, stop)` time steps of `where`, each block holding at most
    `fn.BLOCK_BYTES` of projected inputs `width` wide (at least one
    step), in time order."""
    limit = fn.block_steps(width)
    offsets = where.offsets
    steps = len(offsets) - 1
    bounds, start = [], 0
    while start < steps:
        stop = int(np.searchsorted(offsets, offsets[start] + limit, "right"))
        stop = min(steps, max(start + 1, stop - 1))
        bounds.append((start, stop))
        start = stop
    return bounds


def run(group, inputs, where, initial=None, sequences=True):
    """`LaneGroup.run`'s results (outputs in each lane's reading order,
    or None without `sequences`; final states) for a group of fast lanes
    over the `Layout` `where`. Each lane's real steps are projected a
    block of steps at a time (`blocks`), just ahead of its loop."""
    steps, batch = inputs[0].shape[:2]
    units = group.units
    outputs = out = None
    if sequences:
        outputs = np.empty((steps, len(group.lanes), batch, units), FLOAT)
        # One buffer for every lane: each writes the same real steps (in
        # its own order), so the padding stays zero.
        out = np.zeros((steps, batch, units), FLOAT)
    finals, gathered = [], {}
    step = STEPS[group.kind]
    bounds = blocks(where, group.lanes[0].gates)
    for d, lane in enumerate(group.lanes):
        x = inputs[d]
        states = [np.zeros((batch, units), FLOAT)]
        if group.kind == "lstm":
            states.append(np.zeros((batch, units), FLOAT))
        if initial is not None:
            states = [np.asarray(s, FLOAT)[where.order] for s in initial[d]]
        for start, stop in reversed(bounds) if lane.reverse else bounds:
            first, last = where.offsets[start], where.offsets[stop]
            # One block: the directions of a layer share their gather.
            key = (id(x), start)
            rows = gathered.get(key)
            if rows is None:
                rows = x[where.time[first:last], where.rows[first:last]]
                if len(bounds) == 1:
                    gathered[key] = rows
            projected = lane.project(rows)
            times = range(start, stop)
            for t in reversed(times) if lane.reverse else times:
                n = where.counts[t]
                if n:
                    at = where.offsets[t] - first
                    # Without sequences a step writes its rows' h in place.
                    target = out[t, :n] if sequences else states[0][:n]
                    step(lane, states, n, projected[at : at + n], target)
        if sequences:
            # The batch's own row order, the lane's reading order, straight
            # into `outputs` ("clip": no temporary; every index is valid).
            np.take(
                out[::-1] if lane.reverse else out,
                where.inverse,
                axis=1,
                out=outputs[:, d],
                mode="clip",
            )
        finals.append([s[where.inverse] for s in states])
    return outputs, finals
