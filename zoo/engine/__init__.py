"""A compile-free NumPy float32 forward pass of the zoo's task models.

    tagger = zoo.Tagger.from_preset("pos_en_universal")
    forward = zoo.engine.function(tagger)
    probabilities = forward(tagger.encode([["The", "cat", "sat"]]))
    g2p = zoo.Transcriber.from_preset("g2p_en_cmudict")
    decode = zoo.engine.decoder(g2p.backbone, "beam", start_id=2, end_id=3,
                                max_length=40, beam_width=5)
    ids, scores = decode(g2p.source_batch(["keras"]))

`function(model)` reads a model's graph from Keras's functional config
(`zoo.walk.graph_config`: layers, their calls and the masks Keras
records) and its weights from its variables, once, and returns a
function `inputs -> NumPy outputs` with the model's inputs (what
`zoo.inference_function` takes): a tagger's or a classifier's
probabilities (or CRF emissions), a `zoo.Seq2Seq`'s teacher-forced
probabilities. `decoder(model, method,
**options)` returns `source_ids -> (ids, scores)`, what
`zoo.seq2seq.greedy_decode` and `beam_search` return for the same
options, as NumPy arrays. `supports(model)` says whether the engine runs
a model at all, `unsupported(model)` why not (from the layers' declared
`serving_form`, without reading a weight); a layer it has no NumPy form
of is a `NotImplementedError` naming its class. The task models choose
between this and Keras by their named runner (`zoo.tasks.Task.
set_runner`), never by a failure here.

Why hand-written: serving runs one request at a time, where a step of a
recurrent layer costs a few microseconds of arithmetic. Keras's compiled
call adds a framework's overhead to every call (milliseconds on
TensorFlow and PyTorch), and JAX compiles anew for every input shape
(seconds). Here each layer is a handful of NumPy calls on float32 arrays,
the same on every backend: each recurrent layer's whole input sequence
is projected by one matmul and its loop does only `h @ U` and the gates
(`zoo.engine.recurrent`), a bidirectional layer's two directions (and an
ELMo biLM's two stacks) step together, a tagger's character encoder
reads every word of a batch at once, and a batch of mixed lengths skips
its padding (`zoo.engine.ragged`).

Results equal Keras's (`model(x, training=False)`) to float32 rounding
at every real step; values at padded steps may differ. Dropout is off;
a mixed-precision model runs in float32.

Weights are read when a model is compiled: after training it further,
call the function's `refresh()` (or make it again). A task
model's NumPy runner does that for you whenever a weight changes. A compiled
function keeps no state between calls and may be shared by threads.
NumPy's BLAS picks its own threads; on a busy machine
`OPENBLAS_NUM_THREADS=1` is often faster.
"""

import keras
import numpy as np

from zoo import walk
from zoo.engine import graph as graph_lib
from zoo.engine import threads
from zoo.engine.layers import CRFLayer
from zoo.engine.seq2seq import Seq2SeqPlan
from zoo.seq2seq import Seq2Seq
from zoo.seq2seq import decoding as seq2seq_decoding

__all__ = [
    "crf_decoder",
    "decoder",
    "function",
    "set_threads",
    "supports",
    "unsupported",
]

set_threads = threads.set_threads


def _check_model(model):
    if not isinstance(model, keras.Model):
        raise TypeError(
            f"`model` must be a keras.Model; received {type(model).__name__}."
        )


def _build(model):
    """`inputs -> outputs` of `model` in NumPy, its weights read now."""
    if isinstance(model, Seq2Seq):
        plan = Seq2SeqPlan(model)

        def forward(inputs):
            source_ids, target_ids = inputs
            return plan.forward(source_ids, target_ids)

        return forward
    config = walk.graph_config(model)
    if config is None:
        raise NotImplementedError(
            f"zoo.engine runs functional models (and zoo.Seq2Seq); "
            f"{model.name!r} is a {type(model).__name__}."
        )
    graph = graph_lib.Graph(model, config)

    def forward(inputs):
        if isinstance(inputs, dict):
            inputs = [inputs[name] for name in graph.input_names]
        elif isinstance(inputs, (list, tuple)):
            inputs = list(inputs)
        else:
            inputs = [inputs]
        if len(inputs) != len(graph.inputs):
            raise ValueError(
                f"`inputs` must hold {len(graph.inputs)} arrays for model "
                f"{model.name!r}; received {len(inputs)}."
            )
        arrays = [
            np.asarray(x, dtype=dtype)
            for x, dtype in zip(inputs, graph.input_dtypes)
        ]
        outputs, _ = graph.run(arrays)
        return graph_lib.unpack(outputs)

    return forward


class Compiled:
    """A model's NumPy forward pass (`function`); `refresh()` reads the
    model's weights again."""

    def __init__(self, model):
        self.model = model
        self._forward = _build(model)

    def __call__(self, inputs):
        with threads.limited(_rows(inputs)):
            return self._forward(inputs)

    def refresh(self):
        """Reads the model's graph and weights again (after training)."""
        self._forward = _build(self.model)
        return self


def _rows(inputs):
    """The batch size of a call's inputs (its first array's rows)."""
    while isinstance(inputs, (list, tuple, dict)):
        if not inputs:
            return 0
        inputs = (
            next(iter(inputs.values()))
            if isinstance(inputs, dict)
            else inputs[0]
        )
    return int(np.shape(inputs)[0]) if np.ndim(inputs) else 1


class NumpyDecoder(seq2seq_decoding.Decoder):
    """The engine's decoder: BLAS threads set per call
    (`zoo.engine.threads`)."""

    def __call__(self, source_ids):
        with threads.limited(_rows(source_ids)):
            return super().__call__(source_ids)


def function(model):
    """`model(inputs, training=False)` in NumPy (see the module); its
    calls run with the BLAS threads `zoo.engine.threads` sets.

    Args:
        model: a functional `keras.Model` of the zoo's layers (a
            `zoo.Tagger`, `zoo.TextClassifier`, a `zoo.heads` model, a
            backbone), or a `zoo.Seq2Seq` / `zoo.Transcriber`.

    Returns:
        A `Compiled` function `inputs -> outputs`: `inputs` as the model
        takes them (an array, or a list or tuple of arrays), outputs as
        float32 NumPy arrays in the model's output structure.

    Raises:
        NotImplementedError: a layer (or op) the engine has no NumPy form
            of, named.
    """
    _check_model(model)
    return Compiled(model)


def supports(model):
    """Whether `function(model)` runs `model` (it reads the weights to
    find out: call `function` itself where you will use the result)."""
    _check_model(model)
    try:
        _build(model)
    except NotImplementedError:
        return False
    return True


def serving_form(layer):
    """How the engine serves `layer`: `"numpy"` or `"keras"` (Keras
    only). A zoo layer's class declares it (`serving_form`); a Keras
    layer has a NumPy form where the engine has one (`FACTORIES`)."""
    declared = getattr(type(layer), "serving_form", None)
    if declared is not None:
        return declared
    if type(layer) in graph_lib.FACTORIES or _functional(layer):
        return "numpy"
    return "keras"


def _functional(layer):
    """A model of a graph of layers (`keras.Model(inputs, outputs)`)."""
    if not isinstance(layer, keras.Model):
        return False
    try:
        return bool(layer.inputs)
    except (AttributeError, ValueError):
        return False


def unsupported(model):
    """Why the engine cannot run `model`, read from its layers' declared
    forms without reading a weight (one sentence), or None. A layer
    inside any other (a stack's recurrent layers, a character encoder's
    convolutions) is its container's to run; the layers of a functional
    graph are each the engine's. `function` may still refuse a layer
    option (an activation, a quantized kernel) that no class declares.
    """
    _check_model(model)
    for layer in walk.iter_layers(model):
        if getattr(type(layer), "serving_form", None) == "keras":
            return (
                f"layer {layer.name!r} ({type(layer).__name__}) is served "
                "by Keras only."
            )
    graphs = [model] if _functional(model) else []
    while graphs:
        for layer in graphs.pop().layers:
            if isinstance(layer, keras.layers.InputLayer):
                continue
            if _functional(layer):
                graphs.append(layer)
            elif serving_form(layer) != "numpy":
                return (
                    f"layer {layer.name!r} ({type(layer).__name__}) has no "
                    "NumPy form."
                )
    return None


def decoder(model, method="greedy", **options):
    """`zoo.seq2seq.compiled_decoder` on the engine's NumPy plan:
    `source_ids -> (ids, scores)`, the same loop (`zoo.seq2seq.search`)
    and options (`start_id`, `end_id`, `max_length`; `beam_width`,
    `length_penalty`, `return_all_beams` for `"beam"`), int32 and float32
    NumPy arrays. Weights are read now (`refresh()` reads them again)."""
    if not isinstance(model, Seq2Seq):
        raise TypeError(
            "`model` must be a zoo.Seq2Seq (or zoo.Transcriber); received "
            f"{type(model).__name__}."
        )
    options = seq2seq_decoding.check_options(model, method, options)
    return NumpyDecoder(model, method, lambda: Seq2SeqPlan(model), options)


def crf_decoder(crf):
    """`zoo.layers.CRF.decode`'s NumPy twin for `crf` (its weights read
    now): `(emissions, mask=None) -> tags`, int32 `(batch, steps)`, 0 at
    masked steps. `crf` may be a list of CRFs over the same tags: their
    transition scores are averaged (an ensemble's decoder, for emissions
    averaged the same way)."""
    crfs = list(crf) if isinstance(crf, (list, tuple)) else [crf]
    layers = [CRFLayer(c) for c in crfs]
    first = layers[0]
    if len(layers) > 1:
        for name in ("transitions", "start", "end"):
            values = [getattr(layer, name) for layer in layers]
            if any(x.shape != values[0].shape for x in values):
                raise ValueError(
                    "the CRFs of an ensemble must score the same tags; "
                    f"received transition shapes {[x.shape for x in values]}."
                )
            setattr(first, name, np.mean(values, axis=0))
    return first.decode
