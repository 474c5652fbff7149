"""A `zoo.Seq2Seq` (and so a `zoo.Transcriber`) in NumPy: the encoder,
the state bridge, one decoder step with attention, and the
teacher-forced forward pass.

`Seq2SeqPlan` reads the model's parts by their documented names
(`f"{name}_encoder"`, `_bridge`, `_attention`, ...) once. `encode` gives
a `Memory` (the encoder outputs zeroed at padding, the source mask, the
decoder's first states, and what attention can compute once per source
rather than per step); `step` runs the decoder one token further for
`(sources, hypotheses)` rows grouped by source, so a beam's hypotheses
attend to their source's outputs with one batched matmul and no copy of
them. Each computation follows `zoo.seq2seq`'s layers (`StateBridge`,
`SourceAttention`'s masked softmax, the Luong output `tanh(W_c [h; c])`,
the float32 softmax and the decoders' clipped log).
"""

import numpy as np

from zoo import cells
from zoo.engine import functions as fn
from zoo.engine.layers import check_ids
from zoo.engine.layers import lookup
from zoo.engine.stacks import StackPlan
from zoo.seq2seq.search import Memory
from zoo.seq2seq.search import clipped_log
from zoo.walk import optional_layer

FLOAT = fn.FLOAT


def _dense(layer):
    kernel = fn.array(layer.kernel)
    bias = fn.array(layer.bias) if layer.use_bias else None
    return kernel, bias


def _apply_dense(weights, x, activation=None):
    kernel, bias = weights
    # One 2-D product: NumPy runs `(sources, beams, width) @ kernel` as a
    # loop of small products, 8 times slower for beam search's 8,000-way
    # softmax (77.6 against 9.6 ms for 64 x 5 rows, one thread).
    y = x.reshape(-1, x.shape[-1]) @ kernel
    y = y.reshape(*x.shape[:-1], kernel.shape[-1])
    if bias is not None:
        y += bias
    return y if activation is None else activation(y)


class Bridge:
    """`zoo.seq2seq.StateBridge`: the encoder's final states to the
    decoder's first ones."""

    def __init__(self, bridge):
        self.mode, self.merge = bridge.mode, bridge.merge
        self.sources = list(bridge.sources)
        self.encoder = [
            (cells.get(c).states_per_direction, bool(b))
            for c, b in zip(bridge.encoder_cells, bridge.encoder_bidirectional)
        ]
        self.decoder = [
            (cells.get(c).states_per_direction, u)
            for c, u in zip(bridge.decoder_cells, bridge.decoder_units)
        ]
        self.projections = [
            [_dense(dense) for dense in layer] for layer in bridge.projections
        ]

    def __call__(self, states):
        layers, start = [], 0
        for count, bidirectional in self.encoder:
            forward = states[start : start + count]
            start += count
            backward = None
            if bidirectional:
                backward = states[start : start + count]
                start += count
            layers.append((forward, backward))
        outputs = []
        for j, (count, units) in enumerate(self.decoder):
            if self.mode == "zeros":
                zeros = np.zeros((len(states[0]), units), FLOAT)
                outputs += [zeros] * count
                continue
            forward, backward = layers[self.sources[j]]
            dense = self.projections[j]
            if self.mode == "copy":
                if backward is None:
                    outputs += forward
                elif self.merge == "sum":
                    outputs += [f + b for f, b in zip(forward, backward)]
                else:
                    outputs += [
                        _apply_dense(d, np.concatenate([f, b], -1), np.tanh)
                        for d, f, b in zip(dense, forward, backward)
                    ]
                continue
            parts = forward
            if backward is not None:
                if self.merge == "sum":
                    parts = [f + b for f, b in zip(forward, backward)]
                else:
                    parts = forward + backward
            x = parts[0] if len(parts) == 1 else np.concatenate(parts, -1)
            outputs += [_apply_dense(d, x, np.tanh) for d in dense]
        return outputs


def _unit(x):
    """`x` over its L2 norm on the last axis (`SourceAttention`'s)."""
    norm = np.sqrt(np.sum(np.square(x), axis=-1, keepdims=True))
    return x / (norm + FLOAT(1e-6))


class Seq2SeqPlan:
    """A `zoo.Seq2Seq`, read once (see the module)."""

    def __init__(self, model):
        def part(suffix):
            return optional_layer(model, f"{model.name}_{suffix}")

        self.source_size = model.source_vocabulary_size
        self.target_size = model.target_vocabulary_size
        self.source_table = fn.array(part("source_embedding").embeddings)
        self.target_table = fn.array(part("target_embedding").embeddings)
        self.encoder = StackPlan(part("encoder"))
        self.decoder = StackPlan(part("decoder"))
        self.bridge = Bridge(part("bridge"))
        self.output = _dense(part("output"))
        attention = part("attention") if model.attention else None
        self.score = None if attention is None else attention.score
        if self.score in ("general", "cosine"):
            self.kernel = fn.array(attention.kernel)
        if self.score == "cosine":
            self.sharpness = FLOAT(fn.array(attention.sharpness))
        if self.score == "additive":
            self.query_kernel = fn.array(attention.query_kernel)
            self.value_kernel = fn.array(attention.value_kernel)
            self.scale = fn.array(attention.scale)
        if attention is not None:
            self.attention_output = _dense(part("attention_output"))
        # Each stack's bottom layer reads ids: its embedding projected.
        self.encoder_ids = self.encoder.use_table(self.source_table)
        self.decoder_ids = self.decoder.use_table(self.target_table)

    def _embedded(self, ids, table, by_id, name):
        """Time-major inputs of a stack: the ids (a stack that reads them
        through `use_table`) or their embedding."""
        if by_id:
            check_ids(ids, len(table), name)
            return np.ascontiguousarray(ids.T)
        x = lookup(table, ids, name)
        return np.ascontiguousarray(x.transpose(1, 0, 2))

    def encode(self, source_ids):
        """A `Memory` of `(batch, steps)` right-padded source ids."""
        ids = np.asarray(source_ids)
        # Steps that no source reaches change nothing (they are masked
        # out of the states and of attention): left out.
        mask = ids != 0
        if mask.any():
            width = mask.shape[1] - int(np.argmax(mask.any(axis=0)[::-1]))
            ids, mask = ids[:, :width], mask[:, :width]
        xt = self._embedded(
            ids, self.source_table, self.encoder_ids, "source_embedding"
        )
        sequences, _, states = self.encoder.lockstep.run(
            [xt], None if mask.all() else np.ascontiguousarray(mask.T)
        )[0]
        top = sequences[-1].transpose(1, 0, 2)
        values = np.where(mask[..., None], top, FLOAT(0))
        keys = None
        if self.score == "additive":
            keys = values @ self.value_kernel
        elif self.score == "cosine":
            keys = _unit(values)
        return Memory(values, mask, keys, self.bridge(states))

    def attend(self, query, memory):
        """The `(sources, queries, width)` contexts of `(sources,
        queries, units)` decoder outputs (`SourceAttention`)."""
        values, mask = memory.values, memory.mask
        if self.score == "additive":
            queries = query @ self.query_kernel
            hidden = np.tanh(queries[:, :, None, :] + memory.keys[:, None])
            scores = hidden @ self.scale
        elif self.score == "cosine":
            query = _unit(query @ self.kernel) * self.sharpness
            scores = query @ memory.keys.transpose(0, 2, 1)
        else:
            if self.score == "general":
                query = query @ self.kernel
            scores = query @ values.transpose(0, 2, 1)
        if memory.full:  # no padding: the plain softmax, the same
            return fn.softmax(scores) @ values
        keep = mask[:, None, :]
        scores = np.where(keep, scores, scores.min(axis=-1, keepdims=True))
        exps = np.exp(scores - scores.max(axis=-1, keepdims=True))
        exps = np.where(keep, exps, FLOAT(0))
        total = exps.sum(axis=-1, keepdims=True)
        weights = exps / np.where(total > 0, total, FLOAT(1))
        return weights @ values

    def _logits(self, y, memory):
        """`(sources, queries, units)` decoder outputs to logits."""
        if self.score is not None:
            context = self.attend(y, memory)
            joined = np.concatenate([y, context], axis=-1)
            y = _apply_dense(self.attention_output, joined, np.tanh)
        return _apply_dense(self.output, y)

    def _outputs(self, y, memory):
        """`(sources, queries, units)` decoder outputs to probabilities."""
        return fn.softmax(self._logits(y, memory))

    def step(self, previous, memory, states):
        """One decoder step.

        Args:
            previous: `(sources, hypotheses)` target ids fed in.
            memory: the `Memory` of those sources.
            states: the decoder states, each `(sources * hypotheses,
                units)`, rows grouped by source.

        Returns:
            `(log_probs, states)`: `(sources, hypotheses, vocabulary)`
            clipped log-probabilities and the new states.
        """
        exps, sums, states = self.step_exps(previous, memory, states)
        return clipped_log(exps / sums[..., None]), states

    def step_exps(self, previous, memory, states):
        """`step` up to the softmax's two halves: `(exps, sums, states)`,
        `exps` `(sources, hypotheses, vocabulary)` the exponentials of
        the logits less their largest and `sums` their totals, so that
        `exps / sums[..., None]` is the softmax (as `fn.softmax` computes
        it). Beam search reads the log-probabilities of its candidates
        only (`zoo.seq2seq.search.beam`)."""
        sources, hypotheses = previous.shape
        x = previous.reshape(-1)
        if not self.decoder_ids:
            x = np.take(self.target_table, x, axis=0)
        y, states = self.decoder.step(x, states)
        y = y.reshape(sources, hypotheses, -1)
        exps = self._logits(y, memory)
        exps -= exps.max(axis=-1, keepdims=True)
        np.exp(exps, out=exps)
        return exps, exps.sum(axis=-1), states

    def forward(self, source_ids, target_ids):
        """The teacher-forced probabilities, `(batch, steps,
        vocabulary)`: what `model((source_ids, target_ids))` returns."""
        memory = self.encode(source_ids)
        ids = np.asarray(target_ids)
        mask = ids != 0
        xt = self._embedded(
            ids, self.target_table, self.decoder_ids, "target_embedding"
        )
        sequences, _, _ = self.decoder.lockstep.run(
            [xt],
            None if mask.all() else np.ascontiguousarray(mask.T),
            [self.decoder.lane_states(memory.states)],
        )[0]
        y = np.ascontiguousarray(sequences[-1].transpose(1, 0, 2))
        return self._outputs(y, memory)
