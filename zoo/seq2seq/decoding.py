"""Greedy and beam-search decoding of a `zoo.Seq2Seq`, jit-compatible.

Both decoders run `model.encoder_model()` once and then
`model.decoder_step_model()` inside a `keras.ops.while_loop` over at most
`max_length` steps, with fixed shapes and per-row finished flags, so the
same code runs eagerly and traces under `tf.function` / `jax.jit`
(`compiled_decoder`).

Why not `keras_hub.samplers`: its `GreedySampler` / `BeamSampler` would
fit if the RNN states were packed into their `cache` tensor and the
encoder outputs closed over by the `next(prompt, cache, index)` callback,
but keras-hub is not a dependency of this package, the samplers decode
into a prompt buffer of fixed length (a decoder-only layout) and
`BeamSampler` has no length normalisation. A small decoder written with
`keras.ops` is simpler to test and to reason about.

Ids are range-checked where they enter: `source_ids` (and
`sequence_log_prob`'s `target_ids`) must hold ids in `[0,
vocabulary_size)`, checked on their values before any compiled call (a
`ValueError` naming the id, not NaN probabilities on JAX); `beam_width`
and `max_length` are integers >= 1 and `length_penalty` a finite float
>= 0.

Conventions: id 0 is padding and is never generated; `start_id` and
`end_id` are ids >= 1 of the target vocabulary (reserving id 1 for
out-of-vocabulary tokens is the suggested convention, and mapping unknown
source tokens to it is the caller's business). Outputs are right-padded
`(batch, max_length)` int32 ids: the generated tokens, then `end_id` (if
it came before `max_length`), then 0. A source row that is all padding
decodes to `[end_id, 0, ...]` with score 0: its row starts finished, so
whatever the decoder computes for it is ignored.
"""

import functools

from keras import ops

from zoo import inference
from zoo import validation as v
from zoo.seq2seq.model import _check_id

# Scores of impossible continuations: finite, so that sums and products
# with it never give NaN (as -inf - -inf or 0 * inf would).
_IMPOSSIBLE = -1e9
# Probabilities are clipped here before the log (a float32 softmax can
# underflow to 0).
_TINY = 1e-30
METHODS = ("greedy", "beam")


def _log_probs(probabilities):
    return ops.log(ops.maximum(probabilities, _TINY))


def _check_model(model):
    for attribute in ("encoder_model", "decoder_step_model"):
        if not callable(getattr(model, attribute, None)):
            raise TypeError(
                "`model` must be a zoo.Seq2Seq (with encoder_model() and "
                f"decoder_step_model()); received {type(model).__name__}."
            )


def _check_common(model, start_id, end_id, max_length):
    _check_model(model)
    vocabulary = model.target_vocabulary_size
    _check_id("start_id", start_id, vocabulary)
    _check_id("end_id", end_id, vocabulary)
    v.check_positive_int("max_length", max_length)


def _check_beam(beam_width, length_penalty):
    v.check_positive_int("beam_width", beam_width)
    # Finite: an infinite or NaN exponent turns every score into garbage.
    v.check_number("length_penalty", length_penalty, float, low=0.0)


def _check_source(model, source_ids):
    """Range-checks concrete source ids (`zoo.validation.check_ids`)."""
    size = model.source_vocabulary_size
    return v.check_ids(
        "source_ids",
        source_ids,
        size,
        what=f"source token ids (source_vocabulary_size={size})",
    )


def _step(step_model, previous, encoder_outputs, source_mask, states):
    outputs = step_model(
        [previous, encoder_outputs, source_mask, *states], training=False
    )
    return _log_probs(outputs[0][:, 0, :]), list(outputs[1:])


def _never_padding(log_probs):
    """Makes id 0 (padding) impossible to generate."""
    vocabulary = ops.arange(ops.shape(log_probs)[-1])
    return ops.where(vocabulary == 0, _IMPOSSIBLE, log_probs)


def _encode(model, source_ids):
    source_ids = _check_source(model, source_ids)
    source_ids = ops.convert_to_tensor(source_ids, "int32")
    if len(source_ids.shape) != 2:
        raise ValueError(
            "`source_ids` must be a (batch, steps) matrix of right-padded "
            f"ids; received shape {tuple(source_ids.shape)}."
        )
    encoder_outputs, source_mask, *states = model.encoder_model()(
        source_ids, training=False
    )
    empty = ops.logical_not(ops.any(source_mask, axis=1))
    return encoder_outputs, source_mask, states, empty


def greedy_decode(model, source_ids, *, start_id, end_id, max_length):
    """Decodes each source by taking the most probable token at each step.

    Args:
        model: a `zoo.Seq2Seq`.
        source_ids: `(batch, steps)` right-padded source ids.
        start_id: the target id fed at the first step.
        end_id: the target id that ends a sequence.
        max_length: most tokens to generate (end included).

    Returns:
        `(ids, scores)`: `(batch, max_length)` int32 ids (0 after end) and
        the `(batch,)` float32 log-probability of each sequence under the
        model (end included), as backend tensors.

    To decode many batches, or on JAX (where an eager call compiles its
    loop and setup ops anew each time), use `compiled_decoder`.

    Example:
    ```python
    ids, scores = zoo.greedy_decode(model, source_ids, start_id=2,
                                    end_id=3, max_length=20)
    ```
    """
    _check_common(model, start_id, end_id, max_length)
    step_model = model.decoder_step_model()
    encoder_outputs, source_mask, states, empty = _encode(model, source_ids)
    positions = ops.arange(max_length, dtype="int32")
    zero = ops.zeros_like(ops.cast(empty, "int32"))  # (batch,)
    first = ops.logical_and(
        ops.expand_dims(empty, 1), ops.expand_dims(positions == 0, 0)
    )
    tokens = ops.where(first, end_id, 0 * ops.expand_dims(zero, 1))
    tokens = ops.cast(tokens, "int32")
    scores = ops.cast(zero, "float32")
    previous = ops.expand_dims(zero + start_id, 1)
    step = ops.convert_to_tensor(0, "int32")

    def cond(step, tokens, scores, finished, previous, *states):
        return ops.logical_and(
            step < max_length, ops.logical_not(ops.all(finished))
        )

    def body(step, tokens, scores, finished, previous, *states):
        log_probs, states = _step(
            step_model, previous, encoder_outputs, source_mask, states
        )
        log_probs = _never_padding(log_probs)
        token = ops.cast(ops.argmax(log_probs, axis=-1), "int32")
        token_log_prob = ops.take_along_axis(
            log_probs, ops.expand_dims(token, 1), axis=1
        )[:, 0]
        live = ops.logical_not(finished)
        token = ops.where(live, token, 0)
        scores = scores + ops.where(live, token_log_prob, 0.0)
        write = ops.logical_and(
            ops.expand_dims(positions == step, 0), ops.expand_dims(live, 1)
        )
        tokens = ops.where(write, ops.expand_dims(token, 1), tokens)
        finished = ops.logical_or(finished, token == end_id)
        previous = ops.expand_dims(ops.where(finished, end_id, token), 1)
        return (step + 1, tokens, scores, finished, previous, *states)

    loop = ops.while_loop(
        cond, body, (step, tokens, scores, empty, previous, *states)
    )
    return loop[1], loop[2]


def beam_search(
    model,
    source_ids,
    *,
    start_id,
    end_id,
    max_length,
    beam_width=4,
    length_penalty=1.0,
    return_all_beams=False,
):
    """Decodes each source with a batched beam search.

    At each step every live hypothesis is extended by every token (id 0
    excepted), and the `beam_width` best of the `beam_width * vocabulary`
    candidates survive, ranked by the length-normalised score
    `log_prob / length ** length_penalty` (`length` counts the generated
    tokens, end included; `length_penalty=0` ranks by total log-prob, 1
    by mean log-prob per token). A hypothesis that emitted `end_id` stays
    in the beam with a fixed score until better ones push it out. The
    search stops when every hypothesis has ended, or after `max_length`
    steps (unfinished hypotheses then compete as they are). With
    `beam_width=1` this is greedy decoding.

    Beam search is not guaranteed to find a more probable sequence than
    greedy decoding (the greedy prefix can fall out of the beam), though
    it usually does. To decode many batches, or on JAX, use
    `compiled_decoder`.

    Args:
        model: a `zoo.Seq2Seq`.
        source_ids: `(batch, steps)` right-padded source ids.
        start_id: the target id fed at the first step.
        end_id: the target id that ends a sequence.
        max_length: most tokens to generate (end included).
        beam_width: hypotheses kept per source.
        length_penalty: exponent `alpha` of the length normalisation.
        return_all_beams: return every final hypothesis, best first.

    Returns:
        `(ids, scores)`: `(batch, max_length)` int32 ids (0 after end) of
        the best hypothesis and its `(batch,)` log-probability under the
        model (not length-normalised); with `return_all_beams=True`,
        `(batch, beam_width, max_length)` and `(batch, beam_width)`,
        best first. Hypotheses that never got off the ground (more beams
        than possible sequences) have scores near -1e9.

    Example:
    ```python
    ids, scores = zoo.beam_search(model, source_ids, start_id=2, end_id=3,
                                  max_length=20, beam_width=5)
    ```
    """
    _check_common(model, start_id, end_id, max_length)
    _check_beam(beam_width, length_penalty)
    v.check_bool("return_all_beams", return_all_beams)
    step_model = model.decoder_step_model()
    vocabulary = model.target_vocabulary_size
    beams = beam_width
    encoder_outputs, source_mask, states, empty = _encode(model, source_ids)
    # Every source row becomes `beams` consecutive rows.
    encoder_outputs = ops.repeat(encoder_outputs, beams, axis=0)
    source_mask = ops.repeat(source_mask, beams, axis=0)
    states = [ops.repeat(s, beams, axis=0) for s in states]

    positions = ops.arange(max_length, dtype="int32")
    finished = ops.repeat(ops.expand_dims(empty, 1), beams, axis=1)  # (B, K)
    zero = ops.zeros_like(ops.cast(finished, "int32"))  # (B, K)
    first = ops.logical_and(
        ops.expand_dims(finished, 2), positions == 0
    )  # (B, K, L)
    tokens = ops.cast(ops.where(first, end_id, 0), "int32")
    lengths = ops.cast(finished, "int32")
    # Only the first beam is live at the start, so the first step expands
    # one hypothesis instead of `beams` copies of it.
    beam_index = ops.arange(beams, dtype="int32")
    scores = ops.where(beam_index == 0, 0.0, _IMPOSSIBLE)
    scores = ops.cast(zero, "float32") + ops.cast(scores, "float32")
    previous = ops.reshape(zero + start_id, (-1, 1))
    step = ops.convert_to_tensor(0, "int32")
    # A finished hypothesis has one continuation: padding, at no cost.
    only_padding = ops.where(ops.arange(vocabulary) == 0, 0.0, _IMPOSSIBLE)
    only_padding = ops.cast(only_padding, "float32")

    def cond(step, tokens, scores, lengths, finished, previous, *states):
        return ops.logical_and(
            step < max_length, ops.logical_not(ops.all(finished))
        )

    def body(step, tokens, scores, lengths, finished, previous, *states):
        log_probs, states = _step(
            step_model, previous, encoder_outputs, source_mask, states
        )
        log_probs = _never_padding(log_probs)
        log_probs = ops.reshape(log_probs, (-1, beams, vocabulary))
        log_probs = ops.where(
            ops.expand_dims(finished, 2), only_padding, log_probs
        )
        totals = ops.expand_dims(scores, 2) + log_probs  # (B, K, V)
        new_lengths = lengths + ops.cast(ops.logical_not(finished), "int32")
        norm = ops.power(ops.cast(new_lengths, "float32"), length_penalty)
        ranked = totals / ops.expand_dims(norm, 2)
        ranked = ops.reshape(ranked, (-1, beams * vocabulary))
        _, best = ops.top_k(ranked, beams)  # (B, K), sorted
        best = ops.cast(best, "int32")
        source_beam = best // vocabulary
        token = best % vocabulary

        def pick(x):  # (B, K, ...) -> the surviving hypotheses' rows
            index = source_beam
            if len(x.shape) == 3:
                index = ops.expand_dims(index, 2)  # broadcast over axis 2
            return ops.take_along_axis(x, index, axis=1)

        scores = ops.take_along_axis(
            ops.reshape(totals, (-1, beams * vocabulary)), best, axis=1
        )
        was_finished = pick(finished)
        lengths = pick(new_lengths)
        tokens = pick(tokens)
        live = ops.logical_not(was_finished)
        token = ops.where(live, token, 0)
        write = ops.logical_and(ops.expand_dims(live, 2), positions == step)
        tokens = ops.where(write, ops.expand_dims(token, 2), tokens)
        finished = ops.logical_or(was_finished, token == end_id)
        states = [
            ops.reshape(
                pick(ops.reshape(s, (-1, beams, s.shape[-1]))),
                (-1, s.shape[-1]),
            )
            for s in states
        ]
        previous = ops.reshape(ops.where(finished, end_id, token), (-1, 1))
        return (
            step + 1,
            tokens,
            scores,
            lengths,
            finished,
            previous,
            *states,
        )

    loop = ops.while_loop(
        cond,
        body,
        (step, tokens, scores, lengths, finished, previous, *states),
    )
    tokens, scores = loop[1], loop[2]
    if return_all_beams:
        return tokens, scores
    return tokens[:, 0], scores[:, 0]


def sequence_log_prob(model, source_ids, target_ids, *, start_id):
    """The model's log-probability of given output sequences.

    Scores each target by teacher forcing, with the same clipping as the
    decoders, so `sequence_log_prob(model, x, greedy_ids)` equals the
    greedy scores (for non-empty sources).

    Args:
        model: a `zoo.Seq2Seq`.
        source_ids: `(batch, steps)` right-padded source ids.
        target_ids: `(batch, length)` right-padded output ids, end id
            included where the sequence ended (the decoders' `ids`).
        start_id: the target id fed at the first step.

    Returns:
        A `(batch,)` float32 tensor: the sum of `log p(y_t | y_<t, x)`
        over the non-padding `y_t`.
    """
    _check_model(model)
    _check_id("start_id", start_id, model.target_vocabulary_size)
    source_ids = _check_source(model, source_ids)
    size = model.target_vocabulary_size
    target_ids = v.check_ids(
        "target_ids",
        target_ids,
        size,
        what=f"target token ids (target_vocabulary_size={size})",
    )
    source_ids = ops.convert_to_tensor(source_ids, "int32")
    target_ids = ops.convert_to_tensor(target_ids, "int32")
    start = ops.zeros_like(target_ids[:, :1]) + start_id
    inputs = ops.concatenate([start, target_ids[:, :-1]], axis=1)
    real = target_ids != 0
    inputs = ops.where(real, inputs, 0)
    log_probs = _log_probs(model((source_ids, inputs), training=False))
    picked = ops.take_along_axis(
        log_probs, ops.expand_dims(target_ids, -1), axis=-1
    )[..., 0]
    return ops.sum(ops.where(real, picked, 0.0), axis=1)


def compiled_decoder(model, method="greedy", *, jit_compile=False, **options):
    """`greedy_decode` or `beam_search` compiled for the current backend.

    TensorFlow: a `tf.function` (graph mode; `reduce_retracing=True`, so
    new batch sizes and source widths soon stop retracing), compiled with
    XLA when `jit_compile=True` (checked on CPU; on GPU, XLA cannot compile
    the cuDNN LSTM/GRU kernels Keras picks there, so keep the default).
    JAX: a `jax.jit` function that takes the model's current variable
    values on each call (via `keras.StatelessScope`), so weights trained
    later are used without recompiling; each new source shape compiles
    once (pad sources to a few fixed widths). Other backends get the eager
    function. The backend is imported lazily, here only.

    On JAX prefer this to calling the decoders eagerly: eagerly, every
    setup op and the loop compile separately at each call.

    Args:
        model: a `zoo.Seq2Seq`.
        method: `"greedy"` or `"beam"`.
        jit_compile: TensorFlow only: compile the graph with XLA.
        **options: the decoder's keyword arguments (`start_id`, `end_id`,
            `max_length`, and `beam_width`, `length_penalty`,
            `return_all_beams` for `"beam"`).

    Returns:
        A function `source_ids -> (ids, scores)`.

    Example:
    ```python
    decode = zoo.seq2seq.compiled_decoder(
        model, "beam", start_id=2, end_id=3, max_length=20, beam_width=4
    )
    ids, scores = decode(source_ids)
    ```
    """
    v.check_choice("method", method, METHODS)
    v.check_bool("jit_compile", jit_compile)
    decode = greedy_decode if method == "greedy" else beam_search
    # Check the options now, not at the first call, and build the
    # inference models outside any trace.
    _check_common(
        model,
        options.get("start_id"),
        options.get("end_id"),
        options.get("max_length"),
    )
    if method == "beam":
        _check_beam(
            options.get("beam_width", 4), options.get("length_penalty", 1.0)
        )
    model.encoder_model()
    model.decoder_step_model()
    function = functools.partial(decode, model, **options)
    compiled = inference.compile_function(
        model, function, jit_compile=jit_compile
    )

    def run(source_ids):
        # Here, not in the trace: a compiled call has no values to check.
        source_ids = _check_source(model, source_ids)
        return compiled(source_ids)

    return run
