"""Greedy and beam-search decoding of a `zoo.Seq2Seq` with Keras.

The loops are `zoo.seq2seq.search`'s, the same NumPy loops that
`zoo.engine` serves with: here they drive `KerasPlan`, the model's
`encoder_model()` and `decoder_step_model()` compiled once for the
backend, so the two runners cannot drift apart. Each decoder step is one
compiled call on the rows still being decoded (on JAX, padded to a power
of two, so that a few shapes compile).

Why not `keras_hub.samplers`: its `GreedySampler` / `BeamSampler` would
fit if the RNN states were packed into their `cache` tensor and the
encoder outputs closed over by the `next(prompt, cache, index)` callback,
but keras-hub is not a dependency of this package, the samplers decode
into a prompt buffer of fixed length (a decoder-only layout) and
`BeamSampler` has no length normalisation.

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
decodes to `[end_id, 0, ...]` with score 0.
"""

import keras
import numpy as np
from keras import ops

from zoo import inference
from zoo import validation as v
from zoo.seq2seq import search
from zoo.seq2seq.model import _check_id

METHODS = ("greedy", "beam")


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
    """Range-checks concrete source ids (`zoo.validation.check_ids`) and
    their shape; returns them as an int32 NumPy matrix."""
    size = model.source_vocabulary_size
    ids = v.check_ids(
        "source_ids",
        source_ids,
        size,
        what=f"source token ids (source_vocabulary_size={size})",
    )
    if not isinstance(ids, np.ndarray):  # a backend tensor
        ids = ops.convert_to_numpy(ids)
    ids = ids.astype(np.int32, copy=False)
    if ids.ndim != 2:
        raise ValueError(
            "`source_ids` must be a (batch, steps) matrix of right-padded "
            f"ids; received shape {ids.shape}."
        )
    return ids


def _bucket(rows):
    """The next power of two: on JAX, each new shape compiles."""
    return 1 << max(0, int(rows) - 1).bit_length()


class KerasPlan:
    """`zoo.seq2seq.search`'s plan of a `zoo.Seq2Seq` run by Keras: its
    encoder model and decoder step model, each compiled once for the
    backend (`zoo.inference.compile_function`), reading the model's
    current weights at every call. Made once per model and `jit_compile`
    (`plan`)."""

    def __init__(self, model, jit_compile=False):
        self.target_size = model.target_vocabulary_size
        encoder = model.encoder_model()
        step = model.decoder_step_model()
        self._encoder = inference.compile_function(
            model,
            lambda ids: encoder(ids, training=False),
            jit_compile=jit_compile,
        )
        self._step = inference.compile_function(
            model,
            lambda *inputs: step(list(inputs), training=False),
            jit_compile=jit_compile,
        )
        self._pad = keras.backend.backend() == "jax"

    def encode(self, source_ids):
        outputs = self._encoder(np.asarray(source_ids, np.int32))
        values, mask, *states = (ops.convert_to_numpy(x) for x in outputs)
        return search.Memory(values, mask.astype(bool), None, states)

    def _probabilities(self, previous, memory, states):
        sources, hypotheses = previous.shape
        rows = np.repeat(np.arange(sources), hypotheses)
        inputs = [
            previous.reshape(-1, 1).astype(np.int32),
            memory.values[rows],
            memory.mask[rows],
            *states,
        ]
        count = len(rows)
        if self._pad and _bucket(count) > count:
            extra = _bucket(count) - count
            inputs = [
                np.concatenate([x, np.zeros((extra, *x.shape[1:]), x.dtype)])
                for x in inputs
            ]
            inputs[2][count:] = True  # attention over something
        outputs = [ops.convert_to_numpy(x)[:count] for x in self._step(*inputs)]
        probabilities, *states = outputs
        return probabilities.reshape(sources, hypotheses, -1), states

    def step(self, previous, memory, states):
        probabilities, states = self._probabilities(previous, memory, states)
        return search.clipped_log(probabilities), states

    def step_exps(self, previous, memory, states):
        probabilities, states = self._probabilities(previous, memory, states)
        sums = np.ones(probabilities.shape[:2], np.float32)
        return probabilities, sums, states


def plan(model, jit_compile=False):
    """The model's `KerasPlan`, made once per model and `jit_compile`."""
    key = ("plan", bool(jit_compile))
    cache = model._inference_models  # the Seq2Seq's own cache
    if key not in cache:
        cache[key] = KerasPlan(model, jit_compile)
    return cache[key]


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
        model (end included), as NumPy arrays.

    Example:
    ```python
    ids, scores = zoo.greedy_decode(model, source_ids, start_id=2,
                                    end_id=3, max_length=20)
    ```
    """
    _check_common(model, start_id, end_id, max_length)
    return search.greedy(
        plan(model),
        _check_source(model, source_ids),
        start_id=start_id,
        end_id=end_id,
        max_length=max_length,
    )


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
    it usually does.

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
        best first, as NumPy arrays. Hypotheses that never got off the
        ground (more beams than possible sequences) have scores near
        -1e9.

    Example:
    ```python
    ids, scores = zoo.beam_search(model, source_ids, start_id=2, end_id=3,
                                  max_length=20, beam_width=5)
    ```
    """
    _check_common(model, start_id, end_id, max_length)
    _check_beam(beam_width, length_penalty)
    return search.beam(
        plan(model),
        _check_source(model, source_ids),
        start_id=start_id,
        end_id=end_id,
        max_length=max_length,
        beam_width=beam_width,
        length_penalty=length_penalty,
        return_all_beams=return_all_beams,
    )


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
    probabilities = model((source_ids, inputs), training=False)
    log_probs = ops.log(ops.maximum(probabilities, float(search.TINY)))
    picked = ops.take_along_axis(
        log_probs, ops.expand_dims(target_ids, -1), axis=-1
    )[..., 0]
    return ops.sum(ops.where(real, picked, 0.0), axis=1)


def compiled_decoder(model, method="greedy", *, jit_compile=False, **options):
    """`greedy_decode` or `beam_search` as one function of the source ids,
    its options checked now: the one loop (`zoo.seq2seq.search`) over the
    model's `KerasPlan`, whose encoder and decoder step are compiled for
    the backend (`zoo.inference.compile_function`: a `tf.function`, with
    XLA when `jit_compile=True`, TensorFlow only; a `jax.jit` function of
    the current variable values; PyTorch's eager call under
    `inference_mode`). The weights are read at each call.

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
    v.check_bool("jit_compile", jit_compile)
    options = check_options(model, method, options)
    return Decoder(model, method, lambda: plan(model, jit_compile), options)


def check_options(model, method, options):
    """A decoder's `method` and `options`, checked (each named with what
    was received) and completed with beam search's defaults."""
    v.check_choice("method", method, METHODS)
    options = dict(options)
    allowed = {"start_id", "end_id", "max_length"}
    if method == "beam":
        allowed |= {"beam_width", "length_penalty", "return_all_beams"}
        options.setdefault("beam_width", 4)
        options.setdefault("length_penalty", 1.0)
        options.setdefault("return_all_beams", False)
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(
            f"decoder({method!r}) takes no option {unknown[0]!r}; it "
            f"takes {', '.join(sorted(allowed))}."
        )
    _check_common(
        model,
        options.get("start_id"),
        options.get("end_id"),
        options.get("max_length"),
    )
    if method == "beam":
        _check_beam(options["beam_width"], options["length_penalty"])
        v.check_bool("return_all_beams", options["return_all_beams"])
    return options


class Decoder:
    """`source_ids -> (ids, scores)`: the one loop of `method` over a plan
    (`make_plan()`: a `KerasPlan` or `zoo.engine`'s NumPy plan) with
    checked `options`; the source ids are checked at each call."""

    def __init__(self, model, method, make_plan, options):
        self.model, self.options, self.make_plan = model, options, make_plan
        self.decode = search.greedy if method == "greedy" else search.beam
        self.plan = make_plan()

    def __call__(self, source_ids):
        ids = _check_source(self.model, source_ids)
        return self.decode(self.plan, ids, **self.options)

    def refresh(self):
        """Makes the plan again (a NumPy plan reads the weights anew)."""
        self.plan = self.make_plan()
        return self
