"""The one greedy and one beam-search loop of a `zoo.Seq2Seq`, in NumPy,
over a *plan*: whatever runs the network. `zoo.engine`'s NumPy plan
(`zoo.engine.seq2seq.Seq2SeqPlan`) and the Keras plan of
`zoo.seq2seq.decoding` (`KerasPlan`: the model's encoder and decoder
step, compiled for the backend) both answer

- `encode(source_ids) -> Memory`: the encoded sources (`Memory`);
- `step_exps(previous, memory, states) -> (exps, sums, states)`: one
  decoder step for `(sources, hypotheses)` ids fed in, rows grouped by
  source, its softmax as two halves (`exps / sums[..., None]`);
- `step(previous, memory, states) -> (log_probs, states)`;
- `target_size`, the target vocabulary's size.

The bookkeeping: id 0 never generated, per-row finished flags, float32
scores, the length penalty `log_prob / length ** alpha`, a finished
hypothesis extended by padding at no cost, and the top `beam_width`
candidates ranked larger first, a tie to the lower index (a stable
sort). A source that is all padding decodes to `[end_id, 0, ...]` with
score 0. The network runs only for rows (greedy) or sources (beam) still
being decoded, since a finished row's log-probabilities are never read;
a finished hypothesis only ever hands its state to finished ones.

Why one loop, on the host: the decoders were written twice, as
`keras.ops.while_loop`s that trace under `tf.function` / `jax.jit` and
as this NumPy loop for serving, and had to be kept step for step equal.
A loop over fixed shapes pays for every finished row at every step;
this one drops them, and the NumPy runner, the fastest at batch 1, needs
it anyway (`benchmarks/presets_speed.py`).
"""

import numpy as np

FLOAT = np.float32
# Scores of impossible continuations: finite, so that sums and products
# with them never give NaN (as -inf - -inf or 0 * inf would).
IMPOSSIBLE = FLOAT(-1e9)
# Probabilities are clipped here before the log (a float32 softmax can
# underflow to 0).
TINY = FLOAT(1e-30)
LOG_TINY = np.log(TINY)
# Room for float32's rounding in `_candidates`' bound, in log-probability.
MARGIN = FLOAT(1e-3)


def clipped_log(probabilities):
    """The decoders' log-probabilities: the log of `probabilities`
    clipped at TINY."""
    return np.log(np.maximum(probabilities, TINY))


class Memory:
    """What the decoder reads of encoded sources: `values` (the encoder
    outputs, zero at padding), `mask`, `keys` (what a plan computes once
    per source for attention, or None) and the decoder's first
    `states`."""

    def __init__(self, values, mask, keys, states):
        self.values, self.mask, self.keys = values, mask, keys
        self.states = states
        self.full = bool(mask.all())

    def take(self, rows):
        """The memory of sources `rows` only."""
        keys = None if self.keys is None else self.keys[rows]
        return Memory(
            self.values[rows],
            self.mask[rows],
            keys,
            [s[rows] for s in self.states],
        )


def top_k(ranked, k):
    """The indices of each row's `k` largest values, largest first, a
    tie to the lower index (`keras.ops.top_k`'s order), `(rows, k)`."""
    if k == 1:
        return np.argmax(ranked, axis=1)[:, None]
    if k >= ranked.shape[1]:
        return np.argsort(-ranked, axis=1, kind="stable")[:, :k]
    rows = np.arange(len(ranked))[:, None]
    part = np.argpartition(-ranked, k - 1, axis=1)[:, :k]
    values = ranked[rows, part]
    threshold = values.min(axis=1, keepdims=True)
    if (np.count_nonzero(ranked >= threshold, axis=1) == k).all():
        # Nothing outside the partition ties its smallest value (the
        # usual case): sort the k, larger first, a tie to the lower index.
        order = np.lexsort((part, -values), axis=1)
        return np.take_along_axis(part, order, axis=1)
    above = ranked > threshold
    ties = ranked == threshold
    need = k - above.sum(axis=1, keepdims=True)
    chosen = above | (ties & (np.cumsum(ties, axis=1) <= need))
    index = np.nonzero(chosen)[1].reshape(len(ranked), k)
    order = np.argsort(-ranked[rows, index], axis=1, kind="stable")
    return np.take_along_axis(index, order, axis=1)


def _rows(states, rows):
    return [s[rows] for s in states]


def greedy(plan, source_ids, *, start_id, end_id, max_length):
    """Greedy decoding of `plan`: `(ids, scores)`, `(batch, max_length)`
    int32 and `(batch,)` float32 (see the module)."""
    memory = plan.encode(source_ids)
    batch = len(memory.mask)
    finished = ~memory.mask.any(axis=1)
    tokens = np.zeros((batch, max_length), np.int32)
    tokens[finished, 0] = end_id
    scores = np.zeros(batch, FLOAT)
    active = np.flatnonzero(~finished)
    previous = np.full(len(active), start_id, np.int32)
    memory = memory.take(active)
    states = memory.states
    step = 0
    while step < max_length and active.size:
        log_probs, states = plan.step(previous[:, None], memory, states)
        log_probs = log_probs[:, 0]
        log_probs[:, 0] = IMPOSSIBLE
        token = np.argmax(log_probs, axis=1).astype(np.int32)
        scores[active] += log_probs[np.arange(len(token)), token]
        tokens[active, step] = token
        step += 1
        live = token != end_id
        previous = token
        if not live.all():
            active, previous = active[live], previous[live]
            memory = memory.take(live)
            states = _rows(states, live)
    return tokens, scores


def _candidates(exps, sums, scores, norm, live):
    """The live rows' candidates for the next beams: `(source, beam,
    token, totals)` arrays of every token that could be among its
    source's `beams` best, or None where that cannot be told without
    every token's score (`beam` then ranks them all).

    Within a row, the ranked score `(score + log(max(p, TINY))) / norm`
    never falls as a token's probability `p` rises. Each row offers one
    candidate whose score is known (a live row its most likely token, a
    finished one padding), so the lowest of those, `floor`, is at most
    the source's `beams`-th best; a token whose score is below `floor`
    cannot enter. In probabilities that is a threshold per row, `p >=
    exp(floor * norm - score)` (less `MARGIN` for float32's rounding):
    one comparison over the vocabulary instead of a log, a division
    and a partition of every token. The candidates' log-probabilities
    are computed with the same float32 operations as the full ranking,
    so the results are the same. The bound is not used where it reaches
    the probabilities clipped at TINY (every clipped token ties), as on
    the first step, while the other beams score IMPOSSIBLE.

    Args:
        exps, sums: `(sources, beams, vocabulary)` and `(sources, beams)`
            from the plan's `step_exps`; token 0 of `exps` is
            overwritten (never generated).
        scores, norm, live: `(sources, beams)` scores so far, length
            penalties of the next step, and rows not finished.
    """
    exps[..., 0] = -1  # below every threshold: never a candidate
    top = clipped_log(exps.max(axis=2) / sums)
    best = np.where(live, (scores + top) / norm, scores / norm)
    floor = best.min(axis=1, keepdims=True)
    need = floor * norm - scores - MARGIN
    if (need[live] <= LOG_TINY).any():
        return None
    with np.errstate(over="ignore"):
        threshold = np.where(live, sums * np.exp(need), np.inf)
    # One flat nonzero: three times faster than a 3-D one.
    found = np.flatnonzero(exps >= threshold[..., None])
    row, token = np.divmod(found, exps.shape[2])
    source, beam = np.divmod(row, exps.shape[1])
    log_probs = clipped_log(exps[source, beam, token] / sums[source, beam])
    return source, beam, token, scores[source, beam] + log_probs


def _best(batch, beams, vocabulary, norm, source, beam, token, totals):
    """The `beams` best of each source's candidates (`source`, `beam`,
    `token`, `totals` arrays, every source with at least `beams`): flat
    indices `beam * vocabulary + token` and totals, `(batch, beams)`,
    ranked by `totals / norm` as `top_k` ranks (larger first, a tie to
    the lower index)."""
    ranked = totals / norm[source, beam]
    flat = beam.astype(np.int64) * vocabulary + token
    order = np.lexsort((flat, -ranked, source))
    starts = np.searchsorted(source[order], np.arange(batch))
    picks = order[starts[:, None] + np.arange(beams)]
    return flat[picks], totals[picks]


def beam(
    plan,
    source_ids,
    *,
    start_id,
    end_id,
    max_length,
    beam_width=4,
    length_penalty=1.0,
    return_all_beams=False,
):
    """Beam search over `plan`: `(ids, scores)` of the best hypothesis,
    `(batch, max_length)` int32 and `(batch,)` float32 (every beam, best
    first, with `return_all_beams`).

    Each step ranks only the candidates that can enter the beams
    (`_candidates`); finished hypotheses offer padding at no cost and
    the next tokens at IMPOSSIBLE, in their order. Where the bound
    cannot be used, every token is ranked (`top_k`)."""
    full = plan.encode(source_ids)
    batch, beams = len(full.mask), beam_width
    vocabulary = plan.target_size
    penalty = FLOAT(length_penalty)
    finished = np.repeat(~full.mask.any(axis=1)[:, None], beams, axis=1)
    tokens = np.zeros((batch, beams, max_length), np.int32)
    tokens[..., 0] = np.where(finished, end_id, 0)
    lengths = finished.astype(np.int32)
    scores = np.where(np.arange(beams) == 0, FLOAT(0), IMPOSSIBLE)
    scores = np.repeat(scores[None].astype(FLOAT), batch, axis=0)
    previous = np.full((batch, beams), start_id, np.int32)
    states = [np.repeat(s[:, None], beams, axis=1) for s in full.states]
    only_padding = np.full(vocabulary, IMPOSSIBLE, FLOAT)
    only_padding[0] = 0
    # What a finished hypothesis offers, in `top_k`'s order among ties.
    offered = np.arange(min(beams, vocabulary), dtype=np.int64)
    rows = np.arange(batch)[:, None]
    active, memory = None, None
    step = 0
    while step < max_length and not finished.all():
        # The network, for the sources with a live hypothesis only.
        now = np.flatnonzero(~finished.all(axis=1))
        if active is None or not np.array_equal(now, active):
            active, memory = now, full.take(now)
        flat = [s[active].reshape(-1, s.shape[-1]) for s in states]
        exps, sums, new_states = plan.step_exps(previous[active], memory, flat)
        new_lengths = lengths + ~finished
        norm = np.power(new_lengths.astype(FLOAT), penalty)
        found = _candidates(
            exps,
            sums,
            scores[active],
            norm[active],
            ~finished[active],
        )
        if found is None:
            log_probs = np.empty((batch, beams, vocabulary), FLOAT)
            log_probs[active] = clipped_log(exps / sums[..., None])
            log_probs[..., 0] = IMPOSSIBLE
            log_probs = np.where(finished[..., None], only_padding, log_probs)
            totals = scores[..., None] + log_probs
            ranked = (totals / norm[..., None]).reshape(batch, -1)
            best = top_k(ranked, beams)
            scores = np.take_along_axis(totals.reshape(batch, -1), best, 1)
        else:
            source, beam_, token, totals = found
            # The finished hypotheses' offers: padding, then IMPOSSIBLE.
            done_source, done_beam = np.nonzero(finished)
            offers = len(offered)
            done_totals = scores[done_source, done_beam][:, None]
            done_totals = done_totals + only_padding[:offers]
            best, scores = _best(
                batch,
                beams,
                vocabulary,
                norm,
                np.concatenate([active[source], done_source.repeat(offers)]),
                np.concatenate([beam_, done_beam.repeat(offers)]),
                np.concatenate([token, np.tile(offered, len(done_source))]),
                np.concatenate([totals, done_totals.reshape(-1)]),
            )
        source_beam, token = best // vocabulary, best % vocabulary
        was_finished = finished[rows, source_beam]
        lengths = new_lengths[rows, source_beam]
        tokens = tokens[rows, source_beam]
        token = np.where(was_finished, 0, token).astype(np.int32)
        tokens[..., step] = np.where(was_finished, tokens[..., step], token)
        finished = was_finished | (token == end_id)
        pick = source_beam[active]
        for s, new in zip(states, new_states):
            new = new.reshape(len(active), beams, -1)
            s[active] = new[np.arange(len(active))[:, None], pick]
        previous = np.where(finished, end_id, token).astype(np.int32)
        step += 1
    if return_all_beams:
        return tokens, scores
    return tokens[:, 0], scores[:, 0]
