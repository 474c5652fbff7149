"""How task models serve raw text: a runner the caller names
(`set_runner`, `from_preset(..., runner=...)`), never chosen by
`compile()`, and never serving weights older than the model's own.

Each way of changing weights (a layer's `set_weights`, the model's
`load_weights`, `fit`, an assignment to a variable) is tried on the NumPy
runner, which must then answer as the Keras runner does, on every
backend. The declared serving form of every registered zoo layer is held
against the engine's own table.
"""

import keras
import numpy as np
import pytest

import zoo
from tests.test_tasks import SENTENCES
from tests.test_tasks import WORDS
from tests.test_tasks import _classifier
from tests.test_tasks import _tagger
from tests.test_tasks import _transcriber
from zoo import engine
from zoo.engine import graph

WAYS = ["layer_set_weights", "load_weights", "fit", "assign"]
SPLIT = [s.split() for s in SENTENCES]


def _outputs(model):
    """What the model serves for the test inputs, as comparable values."""
    if isinstance(model, zoo.Transcriber):
        return model.transcribe(["abc", "cab", "b"], "greedy") + [
            model.transcribe(["abc", "ca"], "beam")
        ]
    if isinstance(model, zoo.Tagger):
        return model.infer(model.encode(SPLIT)), model.tag(SPLIT)
    return model.infer(model.vocabulary.encode(SPLIT)), model.classify(
        SENTENCES
    )


def _same(got, want):
    if isinstance(got, tuple):
        np.testing.assert_allclose(got[0], want[0], atol=2e-5)
        assert [_label(x) for x in got[1]] == [_label(x) for x in want[1]]
    else:
        assert got == want


def _label(item):
    """A classifier's label (its probability is compared above), or a
    tagged sentence."""
    return item[0] if isinstance(item[1], float) else item


def _change(model, way, tmp_path):
    """Changes every weight of `model` by `way`, so the outputs move."""
    rng = np.random.default_rng(3)
    if way == "layer_set_weights":
        for layer in model.layers:
            weights = layer.get_weights()
            if weights:
                layer.set_weights(
                    [w + rng.normal(0, 1.0, w.shape).astype(w.dtype)
                     for w in weights]
                )  # fmt: skip
    elif way == "load_weights":
        other = keras.saving.deserialize_keras_object(
            keras.saving.serialize_keras_object(model)
        )
        other.set_weights(
            [w + rng.normal(0, 1.0, w.shape).astype(w.dtype)
             for w in model.get_weights()]
        )  # fmt: skip
        other.save_weights(tmp_path / "other.weights.h5")
        model.load_weights(tmp_path / "other.weights.h5")
    elif way == "assign":
        for variable in model.trainable_variables:
            value = keras.ops.convert_to_numpy(variable)
            variable.assign(value + rng.normal(0, 1.0, value.shape))
    else:
        _fit(model)


def _fit(model):
    model.compile(optimizer=keras.optimizers.SGD(5.0), loss=_loss(model))
    if isinstance(model, zoo.Transcriber):
        source = model.source_batch(["abc", "cab", "b"])
        target = np.array([[2, 4, 5, 3], [2, 6, 3, 0], [2, 5, 3, 0]], "int32")
        x, y = (source, target[:, :-1]), target[:, 1:]
    elif isinstance(model, zoo.Tagger):
        x = model.encode(SPLIT)
        ids = x[0] if isinstance(x, tuple) else x
        y = (ids % 3 + 1) * (ids > 0)
    else:
        x = model.vocabulary.encode(SPLIT)
        y = np.array([1, 0])
    model.fit(x, y, epochs=3, batch_size=2, verbose=0)


def _loss(model):
    if isinstance(model, zoo.Tagger) and model.crf is not None:
        return zoo.layers.CRFLoss(model.crf)
    return "sparse_categorical_crossentropy"


MODELS = {
    "tagger": lambda: _tagger(),
    "crf_tagger": lambda: _tagger(crf=True),
    "classifier": _classifier,
    "transcriber": _transcriber,
}


@pytest.mark.every_backend
@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_the_numpy_runner_serves_the_current_weights(kind, way, tmp_path):
    keras.utils.set_random_seed(7)
    model = MODELS[kind]().set_runner("numpy")
    before = _outputs(model)  # the NumPy snapshot is made here
    _change(model, way, tmp_path)
    assert model.runner == "numpy"  # compile() in `fit` changes nothing
    after = _outputs(model)
    keras_runner = _outputs(model.set_runner("keras"))
    _same(after, keras_runner)
    if isinstance(before, tuple):
        assert not np.allclose(before[0], after[0], atol=1e-3)
    else:
        assert before != after or kind == "transcriber"


def test_the_runner_is_named_not_chosen_by_compile():
    tagger = _tagger()
    assert tagger.runner == "numpy"  # "auto": every layer has a form
    tagger.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    assert tagger.runner == "numpy"
    assert tagger.set_runner("keras").runner == "keras"
    with pytest.raises(ValueError, match="runner.*'gpu'"):
        tagger.set_runner("gpu")
    assert tagger.runner == "keras"


def test_a_keras_only_layer_is_named_by_the_numpy_runner():
    vocabulary = zoo.layers.TokenVocabulary(WORDS, name="vocabulary")
    backbone = zoo.stacked_lstm(
        1, 4, vocabulary_size=vocabulary.vocabulary_size, embedding_dim=4
    )
    wide = zoo.layers.TfIdf(vocabulary.vocabulary_size, name="wide")
    wide.adapt(vocabulary.encode(SPLIT))
    classifier = zoo.TextClassifier(
        backbone,
        zoo.tasks.TextClassifierPreprocessor(vocabulary, ["a", "b"]),
        wide=wide,
    )
    assert classifier.runner == "keras"  # "auto": TfIdf is Keras only
    assert len(classifier.classify(SENTENCES)) == 2
    with pytest.raises(ValueError) as error:
        classifier.set_runner("numpy")
    message = str(error.value)
    assert "'wide' (TfIdf)" in message and "runner='keras'" in message
    assert "\n" not in message
    assert classifier.runner == "keras"


def test_an_engine_refusal_is_one_line_naming_the_layer():
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(9, 4)(inputs)
    x = keras.layers.Conv1D(3, 2, padding="same", name="conv")(x)
    preprocessor = zoo.tasks.TaggerPreprocessor(
        zoo.layers.TokenVocabulary(WORDS), ["", "A", "B"]
    )
    model = zoo.Tagger(keras.Model(inputs, x), preprocessor)
    assert "'conv' (Conv1D)" in engine.unsupported(model)


def _registered_layers():
    return {
        name: cls
        for name, cls in keras.saving.get_custom_objects().items()
        if name.startswith("zoo>")
        and isinstance(cls, type)
        and issubclass(cls, keras.layers.Layer)
        and not issubclass(cls, keras.Model)
    }


# The zoo layers that the engine runs inside a plan rather than as a
# node of a graph: a stack's recurrent layers and wrappers
# (`engine.stacks`), a `zoo.Seq2Seq`'s parts (`engine.seq2seq`).
PLANNED = (
    zoo.layers.WeightDropLSTM,
    zoo.layers.WeightDropGRU,
    zoo.layers.WeightDropSimpleRNN,
    zoo.layers.ResidualWrapper,
    zoo.layers.HighwayWrapper,
    zoo.seq2seq.layers.PaddingMask,
    zoo.seq2seq.layers.ApplyMask,
    zoo.seq2seq.layers.StateBridge,
    zoo.seq2seq.layers.SourceAttention,
)


@pytest.mark.parametrize("name", sorted(_registered_layers()))
def test_every_zoo_layer_declares_how_it_is_served(name):
    cls = _registered_layers()[name]
    form = getattr(cls, "serving_form", None)
    assert form in ("numpy", "keras")
    in_engine = cls in graph.FACTORIES or issubclass(cls, PLANNED)
    # A preprocessor is never a node of the graph: it turns text into ids
    # in NumPy outside it, for either runner.
    in_engine = in_engine or issubclass(cls, zoo.tasks.Preprocessor)
    assert in_engine == (form == "numpy"), (
        f"{name} declares {form!r} but the engine "
        f"{'has' if in_engine else 'has no'} NumPy form of it"
    )


def test_a_very_long_sentence_is_tagged_alone_not_padded_into():
    tagger = _tagger()
    shapes = []
    tag_ids = tagger.batch_tag_ids

    def recorded(sentences):
        shapes.append((len(sentences), max(len(s) for s in sentences)))
        return tag_ids(sentences)

    tagger.batch_tag_ids = recorded
    long = ["the", "dog"] * 5000
    sentences = [["a", "cat"]] * 63 + [long]
    tagged = tagger.tag(sentences)
    assert shapes == [(63, 2), (1, 10000)]
    assert tagged[-1] == tagger.tag([long])[0]
    assert tagged[0] == tagger.tag([["a", "cat"]])[0]


def test_a_very_long_text_is_classified_alone_not_padded_into():
    classifier = _classifier()
    widths = []
    infer = classifier.infer

    def recorded(inputs):
        widths.append(np.shape(inputs))
        return infer(inputs)

    classifier.infer = recorded
    long = " ".join(["the dog sees a cat ."] * 2000)
    texts = ["a cat", long, "the dog sees a cat ."]
    found = classifier.classify(texts)
    assert [shape[0] for shape in widths] == [2, 1]
    assert found == [classifier.classify([t])[0] for t in texts]
