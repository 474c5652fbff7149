"""ONNX Runtime as a third runner of the presets, for `presets_speed.py`.

The issue asked whether ONNX Runtime serves the presets faster than the
NumPy runner (`zoo.engine`), so that the faster of the two is kept. A
tagger is exported whole (`model.export(format="onnx")`); a transcriber
as its encoder and one decoder step (`encoder_model()`,
`decoder_step_model()`), driven by the one greedy and beam loop
(`zoo.seq2seq.search`) through `OnnxPlan`, the Keras runner's plan with
ONNX Runtime sessions in place of the compiled calls. Each contender is
the preset's own `tag` / `transcribe` with only the forward pass
replaced, so the three runners do the same work around it.

Benchmark code only: the library ships no ONNX runner (the numbers in
docs/presets.md say why).
"""

import pathlib

import keras
import numpy as np

from zoo.seq2seq import search as decoding
from zoo.seq2seq.decoding import KerasPlan


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


class OnnxPlan(KerasPlan):
    """`zoo.seq2seq.decoding.KerasPlan` with its encoder and decoder step
    on ONNX Runtime sessions (exported once into `folder`)."""

    def __init__(self, model, folder):
        folder = pathlib.Path(folder)
        self.target_size = model.target_vocabulary_size
        self._pad = False
        ids = np.array([[4, 5, 6]], "int32")
        encoder_model = model.encoder_model()
        encoder = _session(encoder_model, folder / "encoder.onnx", ids)
        first = [keras.ops.convert_to_tensor(x) for x in encoder_model(ids)]
        sample = [keras.ops.convert_to_tensor(np.array([[2]], "int32"))]
        step = _session(
            model.decoder_step_model(), folder / "step.onnx", sample + first
        )
        self._encoder = lambda *x: encoder.run(None, _feed(encoder, x))
        self._step = lambda *x: step.run(None, _feed(step, x))


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
