"""Ids, tags and numbers are range-checked where they enter the library
(issue 30, items 4-7 and 14): an out-of-range value is a `ValueError`
naming the argument, the value and what is allowed, on every backend,
never a NaN, a wrapped index or a backend's own error.

Not parametrized, so that `make test` runs each on TensorFlow, JAX and
PyTorch.
"""

import math
import re

import keras
import numpy as np
import pytest

import zoo
from zoo.layers.crf import CRF

BAD_IDS = np.array([[1, 2, 99], [3, 0, 0]], "int32")


def _backbone():
    return zoo.stacked_lstm(1, 4, vocabulary_size=10, embedding_dim=3)


def _seq2seq():
    return zoo.Seq2Seq(
        10,
        8,
        embedding_dim=4,
        encoder={"cell": "gru", "num_layers": 1, "units": 4},
        decoder={"cell": "gru", "num_layers": 1, "units": 4},
    )


# Item 4: token ids at or above vocabulary_size (NaN rows on JAX).


def test_an_out_of_range_token_id_is_named_when_called_eagerly():
    model = _backbone()
    with pytest.raises(ValueError, match=r"\[0, 10\).*99"):
        model(BAD_IDS)
    with pytest.raises(ValueError, match=r"\[0, 10\).*-1"):
        model(np.array([[1, -1]], "int32"))
    assert np.isfinite(keras.ops.convert_to_numpy(model(BAD_IDS % 10))).all()


def test_the_inference_function_checks_ids_before_compiling():
    predict = zoo.inference_function(_backbone())
    with pytest.raises(ValueError, match=r"`inputs`.*\[0, 10\).*99"):
        predict(BAD_IDS)
    assert np.isfinite(predict(BAD_IDS % 10)).all()


def test_seq2seq_refuses_an_out_of_range_source_id():
    model = _seq2seq()
    targets = np.array([[2, 3, 4], [2, 3, 0]], "int32")
    with pytest.raises(ValueError, match=r"\[0, 10\).*99"):
        model((BAD_IDS, targets))
    with pytest.raises(ValueError, match=r"`target_ids`.*\[0, 8\).*received 8"):
        zoo.seq2seq.sequence_log_prob(
            model, BAD_IDS % 10, targets + 5, start_id=2
        )
    options = dict(start_id=2, end_id=3, max_length=4)
    with pytest.raises(ValueError, match=r"`source_ids`.*\[0, 10\).*99"):
        zoo.greedy_decode(model, BAD_IDS, **options)
    with pytest.raises(ValueError, match=r"`source_ids`.*\[0, 10\).*99"):
        zoo.beam_search(model, BAD_IDS, beam_width=2, **options)
    decode = zoo.seq2seq.compiled_decoder(model, "greedy", **options)
    with pytest.raises(ValueError, match=r"`source_ids`.*\[0, 10\).*99"):
        decode(BAD_IDS)
    _, scores = decode(BAD_IDS % 10)
    assert np.isfinite(keras.ops.convert_to_numpy(scores)).all()


def _raises_naming(value, allowed="[0, 10)"):
    """An error whatever its type (JAX reports the library's `ValueError`
    raised in a host callback as a `JaxRuntimeError`; TensorFlow's graph
    its own index error) whose message names `value` and the range."""
    value, allowed = str(value), re.escape(allowed)
    return pytest.raises(
        Exception, match=rf"(?s){allowed}.*{value}|{value}.*{allowed}"
    )


def test_a_traced_predict_or_fit_never_turns_a_bad_id_into_nan():
    # `predict` and `fit` trace their step on TensorFlow and JAX, where no
    # value can be read: JAX used to gather id 99 as a row of NaN.
    # On TensorFlow, Keras's `take` wrapped -1 to the last row.
    for bad in (99, -1):
        model = _backbone()
        model.predict(BAD_IDS % 10, verbose=0)  # compiled with good ids
        with _raises_naming(bad):
            model.predict(np.array([[1, 2, bad]], "int32"), verbose=0)
    tagger = keras.Sequential([_backbone(), keras.layers.Dense(3)])
    tagger.compile(
        "sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    )
    with _raises_naming(99):
        tagger.fit(BAD_IDS, np.zeros((2, 3)), verbose=0)


# Item 5: CRF tags out of range (-1 wrapped to the last tag).


def test_the_crf_refuses_tags_out_of_range():
    crf = CRF(3)
    emissions = np.random.default_rng(0).normal(size=(1, 3, 3))
    emissions = emissions.astype("float32")
    crf.build(emissions.shape)
    for bad in (-1, 7):
        tags = np.array([[0, 1, bad]], "int32")
        with pytest.raises(ValueError, match=rf"`tags`.*\[0, 3\).*{bad}"):
            crf.log_likelihood(emissions, tags)
        with pytest.raises(ValueError, match=rf"`tags`.*\[0, 3\).*{bad}"):
            crf.loss(tags, emissions)
    # Masked steps are ignored, whatever they hold.
    mask = np.array([[True, True, False]])
    tags = np.array([[0, 1, 7]], "int32")
    assert np.isfinite(
        keras.ops.convert_to_numpy(crf.log_likelihood(emissions, tags, mask))
    ).all()


def _crf_tagger():
    tokens = keras.Input((None,), dtype="int32")
    emissions = keras.layers.Dense(3)(
        keras.layers.Embedding(4, 4, mask_zero=True)(tokens)
    )
    crf = CRF(3)
    model = keras.Model(tokens, crf(emissions))
    model.compile("sgd", loss=crf.loss)
    return model


def test_a_crf_trained_with_fit_refuses_a_tag_out_of_range():
    # On JAX, tag 7 of 3 inside a traced train step gave a NaN loss; on
    # TensorFlow, -1 was the last tag. A new model each time: after an
    # error inside a JAX `fit`, Keras has dropped the model's variables.
    ids = np.array([[1, 1, 1], [1, 1, 0]], "int32")
    for bad in (7, -1):
        model = _crf_tagger()
        model.fit(ids, np.array([[0, 1, 2], [1, 2, 0]], "int32"), verbose=0)
        tags = np.array([[0, 1, bad], [1, 2, 0]], "int32")
        with _raises_naming(bad, "[0, 3)"):
            model.fit(ids, tags, verbose=0)


# Item 6: beam search's numbers.


def test_beam_search_requires_a_finite_length_penalty():
    model = _seq2seq()
    options = dict(start_id=2, end_id=3, max_length=4, beam_width=2)
    for bad in (math.inf, math.nan, -1.0):
        with pytest.raises(ValueError, match="`length_penalty`"):
            zoo.beam_search(model, BAD_IDS % 10, length_penalty=bad, **options)
        with pytest.raises(ValueError, match="`length_penalty`"):
            zoo.seq2seq.compiled_decoder(
                model, "beam", length_penalty=bad, **options
            )
    for name in ("beam_width", "max_length"):
        with pytest.raises(ValueError, match=f"`{name}`"):
            zoo.beam_search(model, BAD_IDS % 10, **{**options, name: 0})


# Item 7: mask_value with a vocabulary; duplicate label names.


def test_mask_value_with_a_vocabulary_is_refused():
    with pytest.raises(ValueError, match="`mask_value`.*vocabulary_size"):
        zoo.stacked_lstm(vocabulary_size=10, mask_value=0.0)


def test_duplicate_label_names_are_refused():
    vocabulary = zoo.layers.TokenVocabulary(["the"])
    with pytest.raises(ValueError, match=r"`labels`.*'a'"):
        zoo.tasks.TextClassifierPreprocessor(vocabulary, ["a", "a"])
    with pytest.raises(ValueError, match=r"`labels`.*'b'"):
        zoo.tasks.TaggerPreprocessor(vocabulary, ["a", "b", "b"])
    with pytest.raises(ValueError, match=r"`labels`.*'a'"):
        zoo.layers.LabelNames(["a", "b", "a"])


def test_head_sizes_and_an_empty_vocabulary_are_named():
    # Found by the hostile run: `num_outputs` was named, not the argument.
    with pytest.raises(ValueError, match=r"`num_classes`.*0"):
        zoo.heads.sequence_classifier(_backbone(), 0)
    with pytest.raises(ValueError, match=r"`num_tags`.*0"):
        zoo.heads.sequence_tagger(_backbone(), 0)
    with pytest.raises(ValueError, match=r"`tokens`.*at least one"):
        zoo.layers.TokenVocabulary([])


# Item 14: an empty time axis, a mask of the wrong shape.


@pytest.mark.every_backend
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_an_empty_time_axis_is_named(cell):
    stack = zoo.layers.StackedRNN(cell, 4, 2, return_sequences=True)
    with pytest.raises(ValueError, match=r"`inputs`.*\(2, 0, 3\).*at least"):
        stack(np.zeros((2, 0, 3), "float32"))


@pytest.mark.every_backend
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_a_mask_of_the_wrong_shape_is_named(cell):
    stack = zoo.layers.StackedRNN(cell, 4, 2, return_sequences=True)
    x = np.zeros((2, 5, 3), "float32")
    for shape in ((2, 6), (3, 5), (2, 5, 1)):
        with pytest.raises(ValueError, match=rf"`mask`.*{shape}.*\(2, 5\)"):
            stack(x, mask=np.ones(shape, bool))
    # The right shape still runs.
    assert stack(x, mask=np.ones((2, 5), bool)).shape == (2, 5, 4)
