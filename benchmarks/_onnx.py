"""ONNX Runtime as a third runner of the presets, for `presets_speed.py`.

The issue asked whether ONNX Runtime serves the presets faster than the
NumPy runner (`zoo.engine`), so that the faster of the two is kept. A
tagger is exported whole (`model.export(format="onnx")`); a transcriber
as its encoder and one decoder step (`encoder_model()`,
`decoder_step_model()`), driven by the engine's own greedy and beam
loops (`zoo.engine.decoding`) through `OnnxPlan`, which answers what
`zoo.engine.seq2seq.Seq2SeqPlan` answers. Each contender is the preset's
own `tag` / `transcribe` with only the forward pass replaced, so the
three runners do the same work around it.

Benchmark code only: the library ships no ONNX runner (the numbers in
docs/presets.md say why).
"""

import pathlib

import keras
import numpy as np

from zoo.engine import decoding
from zoo.engine.seq2seq import Memory
from zoo.engine.seq2seq import clipped_log


def _session(model, path, sample):
    """An ONNX Runtime session of `model`, exported to `path` once."""
    import onnxruntime

    path = pathlib.Path(path)
    if not path.is_file():
        model(sample)  # Keras exports only a model that has been called
        path.parent.mkdir(parents=True, exist_ok=True)
        model.export(str(path), format="onnx", verbose=False)
    options = onnxruntime.SessionOptions()
    return onnxruntime.InferenceSession(str(path), options)


def _feed(session, arrays):
    return {
        spec.name: np.asarray(array)
        for spec, array in zip(session.get_inputs(), arrays)
    }


def onnx_tagger(tagger, folder):
    """`tagger` (a `zoo.Tagger`) with its forward pass on ONNX Runtime."""
    sample = tagger.encode([["The", "cat", "sat", "."]])
    session = _session(
        tagger, pathlib.Path(folder) / f"{tagger.name}.onnx", sample
    )

    def infer(inputs):
        arrays = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        return session.run(None, _feed(session, arrays))[0]

    tagger.infer = infer  # the instance's: `tag` is otherwise unchanged
    return tagger


class OnnxPlan:
    """`Seq2SeqPlan`'s `encode`, `step` and `step_exps` on ONNX Runtime
    sessions of a `zoo.Seq2Seq`'s encoder and decoder step."""

    def __init__(self, model, folder):
        folder = pathlib.Path(folder)
        self.target_size = model.target_vocabulary_size
        ids = np.array([[4, 5, 6]], "int32")
        encoder = model.encoder_model()
        self.encoder = _session(encoder, folder / "encoder.onnx", ids)
        first = [keras.ops.convert_to_tensor(x) for x in encoder(ids)]
        sample = [keras.ops.convert_to_tensor(np.array([[2]], "int32"))]
        sample += first
        self.step_session = _session(
            model.decoder_step_model(), folder / "step.onnx", sample
        )

    def encode(self, source_ids):
        ids = np.asarray(source_ids, np.int32)
        values, mask, *states = self.encoder.run(
            None, _feed(self.encoder, [ids])
        )
        return Memory(values, mask.astype(bool), None, states)

    def _probabilities(self, previous, memory, states):
        sources, hypotheses = previous.shape
        rows = np.repeat(np.arange(sources), hypotheses)
        arrays = [
            previous.reshape(-1, 1).astype(np.int32),
            memory.values[rows],
            memory.mask[rows],
            *states,
        ]
        probabilities, *states = self.step_session.run(
            None, _feed(self.step_session, arrays)
        )
        return probabilities.reshape(sources, hypotheses, -1), states

    def step(self, previous, memory, states):
        probabilities, states = self._probabilities(previous, memory, states)
        return clipped_log(probabilities), states

    def step_exps(self, previous, memory, states):
        probabilities, states = self._probabilities(previous, memory, states)
        sums = np.ones(probabilities.shape[:2], np.float32)
        return probabilities, sums, states


def onnx_transcriber(transcriber, folder):
    """`transcriber` with its decoders on ONNX Runtime (the engine's loops
    over `OnnxPlan`)."""
    plan = OnnxPlan(transcriber, folder)
    decoders = {"greedy": decoding.greedy, "beam": decoding.beam}

    def decoder(method="beam"):
        options = transcriber._options(method)
        return lambda ids: decoders[method](plan, np.asarray(ids), **options)

    transcriber.decoder = decoder
    return transcriber


__all__ = ["OnnxPlan", "onnx_tagger", "onnx_transcriber"]
