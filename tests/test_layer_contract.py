"""Every zoo layer passes `helpers.run_layer_test`: config, shapes, masks,
a training step, `safe_mode` reload and the fast-path report.

One case (or a few) per registered layer; a new layer without a case
fails `test_every_zoo_layer_has_a_case`. Each layer's own behaviour is
tested in its own file.
"""

import keras
import numpy as np
import pytest

import zoo
from tests import helpers

LENGTHS = [5, 3, 1]  # the real steps of each row of a batch of 3
GRU_FUSED = {"tensorflow": True, "jax": False, "torch": True}


def _ids(shape, high, seed=0):
    """Random ids in [1, high): every step real until padded."""
    ids = np.random.default_rng(seed).integers(1, high, size=shape)
    return ids.astype("int32")


def _characters(words=4, chars=5, high=12):
    """Character ids of 3 rows of words, each word 1-`chars` characters."""
    ids = _ids((3, words, chars), high)
    rng = np.random.default_rng(1)
    for row in range(3):
        for word in range(words):
            ids[row, word, rng.integers(1, chars + 1) :] = 0
    return ids


def case(layer_cls, name=None, **kwargs):
    """A `run_layer_test` case; `init_kwargs` may be a function (for a
    wrapped layer, built afresh in each test)."""
    return pytest.param(layer_cls, kwargs, id=name or layer_cls.__name__)


SEQUENCES = dict(input_shape=(3, 5, 4), lengths=LENGTHS)

CASES = [
    case(
        zoo.layers.StackedRNN,
        "StackedRNN-bilstm-residual",
        init_kwargs=dict(
            cell="lstm",
            units=4,
            num_layers=2,
            bidirectional=True,
            residual=True,
            return_sequences=True,
        ),
        expected_output_shape=(3, 5, 8),
        expected_num_trainable_weights=12,
        check_gradients=True,
        expected_fused=True,
        **SEQUENCES,
    ),
    case(
        zoo.layers.StackedRNN,
        "StackedRNN-gru-highway-states",
        init_kwargs=dict(
            cell="gru",
            units=[4, 6],
            highway=True,
            layer_norm=True,
            return_state=True,
        ),
        expected_output_shape=[(3, 6), (3, 4), (3, 6)],
        expected_num_trainable_weights=11,
        check_gradients=True,
        expected_fused=GRU_FUSED,
        **SEQUENCES,
    ),
    case(
        zoo.layers.StackedRNN,
        "StackedRNN-simple_rnn-all",
        init_kwargs=dict(
            cell="simple_rnn",
            units=3,
            num_layers=3,
            inter_layer_dropout=0.2,
            return_sequences=True,
            output="all",
            seed=1,
        ),
        expected_output_shape=[(3, 5, 3)] * 3,
        expected_num_trainable_weights=9,
        expected_fused=False,
        **SEQUENCES,
    ),
    case(
        zoo.layers.ResidualWrapper,
        init_kwargs=lambda: dict(
            layer=keras.layers.LSTM(4, return_sequences=True)
        ),
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=3,
        check_gradients=True,
        expected_fused=True,
        **SEQUENCES,
    ),
    case(
        zoo.layers.HighwayWrapper,
        "HighwayWrapper-projected",
        init_kwargs=lambda: dict(
            layer=keras.layers.LSTM(5, return_sequences=True), gate_bias=-2.0
        ),
        expected_output_shape=(3, 5, 5),
        expected_num_trainable_weights=6,  # LSTM 3, gate 2, projection 1
        check_gradients=True,
        expected_fused=True,
        **SEQUENCES,
    ),
    case(
        zoo.layers.VariationalDropout,
        init_kwargs=dict(rate=0.3, seed=1),
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
        **SEQUENCES,
    ),
    case(
        zoo.layers.EmbeddingDropout,
        init_kwargs=lambda: dict(
            layer=keras.layers.Embedding(10, 4, mask_zero=True),
            rate=0.2,
            seed=1,
        ),
        input_data=_ids((3, 5), 10),
        lengths=LENGTHS,
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=1,
        check_gradients=True,
    ),
    case(
        zoo.layers.SequencePooling,
        "SequencePooling-attention-scores",
        init_kwargs=dict(
            mode="attention", attention_units=6, return_attention_scores=True
        ),
        expected_output_shape=[(3, 4), (3, 5)],
        expected_num_trainable_weights=3,
        check_gradients=True,
        **SEQUENCES,
    ),
    case(
        zoo.layers.SequencePooling,
        "SequencePooling-last",
        init_kwargs=dict(mode="last"),
        expected_output_shape=(3, 4),
        expected_num_trainable_weights=0,
        **SEQUENCES,
    ),
    case(
        zoo.layers.ScalarMix,
        init_kwargs=dict(initial_scalar_parameters=[0.0, 1.0, -1.0]),
        input_shape=[(3, 5, 4)] * 3,
        lengths=LENGTHS,
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=2,
        check_gradients=True,
    ),
    case(
        zoo.layers.ScalarMix,
        "ScalarMix-fixed-scalars",
        init_kwargs=dict(trainable_scalars=False),
        input_shape=[(3, 5, 4)] * 2,
        expected_num_trainable_weights=1,
        expected_num_non_trainable_weights=1,
    ),
    case(
        zoo.layers.CRF,
        init_kwargs=dict(
            num_tags=4, transitions_initializer="zeros", name="tags"
        ),
        loss=lambda crf: crf.loss,  # a zoo.layers.CRFLoss
        targets=_ids((3, 5), 4) - 1,
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=3,
        check_gradients=True,
        **SEQUENCES,
    ),
    case(
        zoo.layers.CRF,
        "CRF-decode",
        init_kwargs=dict(num_tags=4),
        call_kwargs=dict(decode=True),
        loss=None,  # int32 tags
        expected_output_shape=(3, 5),
        **SEQUENCES,
    ),
    case(
        zoo.layers.WeightDropLSTM,
        init_kwargs=dict(
            units=4, weight_drop=0.3, weight_drop_seed=1, return_sequences=True
        ),
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=3,
        check_gradients=True,
        expected_fused=True,
        **SEQUENCES,
    ),
    case(
        zoo.layers.WeightDropGRU,
        "WeightDropGRU-states",
        init_kwargs=dict(units=4, weight_drop=0.3, return_state=True),
        expected_output_shape=[(3, 4), (3, 4)],
        expected_num_trainable_weights=3,
        check_gradients=True,
        expected_fused=GRU_FUSED,
        **SEQUENCES,
    ),
    case(
        zoo.layers.WeightDropSimpleRNN,
        init_kwargs=dict(units=4, weight_drop=0.3, return_sequences=True),
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=3,
        expected_fused=False,
        **SEQUENCES,
    ),
    case(
        zoo.layers.CharacterEncoder,
        "CharacterEncoder-bilstm",
        init_kwargs=dict(
            char_vocabulary_size=12,
            char_embedding_dim=6,
            char_units=5,
            name="chars",
        ),
        input_data=_characters(),
        lengths=[4, 2, 1],
        expected_output_shape=(3, 4, 10),
        expected_num_trainable_weights=7,
        check_gradients=True,
        expected_fused=True,
    ),
    case(
        zoo.layers.CharacterEncoder,
        "CharacterEncoder-gru-lstm",
        init_kwargs=dict(
            char_vocabulary_size=12,
            char_embedding_dim=6,
            char_units=5,
            num_layers=2,
            cell=["gru", "lstm"],
            bidirectional=False,
            dropout=[0.1, 0.0],
            seed=2,
        ),
        input_data=_characters(),
        lengths=[4, 2, 1],
        expected_output_shape=(3, 4, 5),
        expected_num_trainable_weights=7,
    ),
    case(
        zoo.layers.CharacterEncoder,
        "CharacterEncoder-cnn",
        init_kwargs=dict(
            char_vocabulary_size=12,
            char_embedding_dim=6,
            char_units=5,
            num_layers=2,
            kind="cnn",
            char_kernel_size=5,
            dropout=0.1,
            seed=4,
        ),
        input_data=_characters(),
        lengths=[4, 2, 1],
        expected_output_shape=(3, 4, 5),
        expected_num_trainable_weights=5,
        check_gradients=True,
    ),
    case(
        zoo.layers.TokenEmbedding,
        init_kwargs=dict(input_dim=10, output_dim=4, mask_zero=True),
        input_data=_ids((3, 5), 10),
        lengths=LENGTHS,
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=1,
        check_gradients=True,
    ),
    case(
        zoo.layers.TokenVocabulary,
        init_kwargs=dict(tokens=["the", "cat", "sat"], name="vocabulary"),
        input_data=_ids((3, 5), 5),
        lengths=LENGTHS,
        expected_output_shape=(3, 5),
        expected_num_trainable_weights=0,
        loss=None,  # ids pass through
    ),
    case(
        zoo.layers.CharacterVocabulary,
        init_kwargs=dict(characters=list("abc"), max_chars=6),
        input_data=_characters(chars=6, high=5),
        lengths=[4, 2, 1],
        expected_output_shape=(3, 4, 6),
        expected_num_trainable_weights=0,
        loss=None,  # ids pass through
    ),
    case(
        zoo.layers.TokenFeatures,
        init_kwargs=dict(gazetteer={"location": ["new york"]}, shape=False),
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=0,
        loss=None,  # features pass through
        **SEQUENCES,
    ),
    case(
        zoo.layers.TfIdf,
        init_kwargs=dict(vocabulary_size=9, bigram_buckets=4),
        input_data=_ids((3, 5), 9),
        lengths=LENGTHS,
        expected_output_shape=(3, 13),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=1,  # the idf
        loss=None,  # no weight to train
    ),
    case(
        zoo.layers.LabelNames,
        init_kwargs=dict(labels=["x", "y", "z", "w"]),
        expected_output_shape=(3, 5, 4),
        expected_num_trainable_weights=0,
        **SEQUENCES,
    ),
    case(
        zoo.layers.BiLMEncoder,
        init_kwargs=dict(
            char_vocabulary_size=12,
            units=4,
            num_layers=2,
            char_embedding_dim=6,
            char_units=5,
            dropout=0.1,
            seed=3,
        ),
        input_data=_characters(),
        lengths=[4, 2, 1],
        expected_output_shape=[(3, 4, 8)] * 3,
        # characters 3, projection 2, two stacks of two LSTMs 6 each
        expected_num_trainable_weights=17,
        check_gradients=True,
        expected_fused=True,
    ),
    case(
        zoo.layers.ContextualEmbedding,
        init_kwargs=lambda: dict(
            encoder=zoo.layers.BiLMEncoder(
                12, units=4, num_layers=2, char_embedding_dim=6, char_units=5
            ),
            dropout=0.2,
            seed=1,
        ),
        input_data=_characters(),
        lengths=[4, 2, 1],
        expected_output_shape=(3, 4, 8),
        expected_num_trainable_weights=2,  # the mix's scalars and gamma
        expected_num_non_trainable_weights=17,  # the frozen encoder
        check_gradients=True,
    ),
    case(
        zoo.layers.SampledSoftmax,
        init_kwargs=dict(vocabulary_size=9, num_sampled=4, seed=0),
        input_data=[
            np.random.default_rng(0).normal(size=(3, 5, 4)).astype("float32"),
            _ids((3, 5), 9),
        ],
        expected_output_shape=(3, 5),
        expected_num_trainable_weights=2,
        check_gradients=True,
    ),
    case(
        zoo.language_model.LanguageModelTargets,
        init_kwargs=dict(bos_id=2, eos_id=3),
        input_data=_ids((3, 5), 9),
        lengths=LENGTHS,
        expected_output_shape=[(3, 5), (3, 5)],
        expected_num_trainable_weights=0,
        loss=None,  # ids
    ),
    case(
        zoo.seq2seq.PaddingMask,
        input_data=_ids((3, 5), 9),
        lengths=LENGTHS,
        expected_output_shape=(3, 5),
        loss=None,  # a boolean mask
    ),
    case(
        zoo.seq2seq.ApplyMask,
        keeps_mask=False,  # its mask becomes zeros in the output
        expected_output_shape=(3, 5, 4),
        **SEQUENCES,
    ),
    case(
        zoo.seq2seq.StateBridge,
        "StateBridge-dense",
        init_kwargs=dict(
            mode="dense",
            encoder_cells=["lstm", "lstm"],
            encoder_units=[4, 4],
            encoder_bidirectional=[True, False],
            decoder_cells=["gru"],
            decoder_units=[3],
        ),
        input_shape=[(3, 4)] * 6,  # [h, c] forward and backward, [h, c]
        expected_output_shape=[(3, 3)],
        expected_num_trainable_weights=2,
        check_gradients=True,
    ),
    case(
        zoo.seq2seq.StateBridge,
        "StateBridge-copy-sum",
        init_kwargs=dict(
            mode="copy",
            encoder_cells=["lstm"],
            encoder_units=[4],
            encoder_bidirectional=[True],
            decoder_cells=["lstm"],
            decoder_units=[4],
            merge="sum",
        ),
        input_shape=[(3, 4)] * 4,
        expected_output_shape=[(3, 4), (3, 4)],
        expected_num_trainable_weights=0,
    ),
    case(
        zoo.seq2seq.SourceAttention,
        init_kwargs=dict(score="additive", units=7),
        input_shape=[(3, 5, 4), (3, 5, 3)],
        several_args=True,  # layer(query, values)
        lengths=[5, 3, 2],  # (a one-step source: a softmax of size 1)
        expected_output_shape=(3, 5, 3),
        expected_num_trainable_weights=3,
        check_gradients=True,
    ),
    case(
        zoo.seq2seq.SourceAttention,
        init_kwargs=dict(score="cosine"),
        input_shape=[(3, 5, 4), (3, 5, 3)],
        several_args=True,
        lengths=[5, 3, 2],
        expected_output_shape=(3, 5, 3),
        expected_num_trainable_weights=2,  # the kernel and the sharpness
        check_gradients=True,
    ),
]

# Registered zoo objects that are not layers of their own.
NOT_LAYERS = {
    "CRFLoss": "a loss: the CRF case trains with it",
    "LanguageModelLoss": "a loss: tests/test_language_model.py",
    "backward_nll": "a metric function: tests/test_language_model.py",
    "forward_nll": "a metric function: tests/test_language_model.py",
    "nll": "a metric function: tests/test_metrics.py",
    "TokenMean": "a metric: tests/test_metrics.py",
    "Seq2Seq": "a model of these layers: tests/test_seq2seq.py",
    "Tagger": "a task model of these layers: tests/test_tasks.py",
    "TextClassifier": "a task model of these layers: tests/test_tasks.py",
    "Transcriber": "a task model on a Seq2Seq: tests/test_tasks.py",
    "Backbone": "a model of these layers: tests/test_parts.py",
    "TaggerPreprocessor": "a task's preprocessor: tests/test_parts.py",
    "TextClassifierPreprocessor": "a preprocessor: tests/test_parts.py",
    "TranscriberPreprocessor": "a preprocessor: tests/test_parts.py",
    "TranslatorPreprocessor": "a preprocessor: tests/test_parts.py",
    "BiLMPreprocessor": "a task's preprocessor: tests/test_parts.py",
    "Translator": "a task model (a Transcriber): tests/test_translator.py",
    "BiLM": "a task model of these layers: tests/test_tasks.py",
    "SlantedTriangular": "a learning-rate schedule: tests/test_layers.py",
    "DiscriminativeAdam": "an optimizer: tests/test_optimizers.py",
    "Adam": "an optimizer: tests/test_optimizers.py",
    "StackLayer": "the record of one layer of a StackedRNN, no Keras object",
}


@pytest.mark.parametrize("layer_cls, kwargs", CASES)
def test_layer_contract(layer_cls, kwargs, tmp_path):
    init_kwargs = kwargs.get("init_kwargs")
    if callable(init_kwargs):
        kwargs = {**kwargs, "init_kwargs": init_kwargs()}
    helpers.run_layer_test(layer_cls, tmp_path=tmp_path, **kwargs)


def test_every_zoo_layer_has_a_case():
    covered = {param.values[0] for param in CASES}
    registered = {
        name.removeprefix("zoo>"): cls
        for name, cls in keras.saving.get_custom_objects().items()
        if name.startswith("zoo>")
    }
    public = {name: getattr(zoo.layers, name) for name in zoo.layers.__all__}
    objects = {**registered, **public}
    assert set(public) - set(NOT_LAYERS) <= set(registered)
    missing = [
        name
        for name, cls in sorted(objects.items())
        if cls not in covered and name not in NOT_LAYERS
    ]
    assert missing == [], "add a case to CASES for each"
    for name in NOT_LAYERS:
        cls = objects[name]
        # A preprocessor is a layer that is never called (it carries the
        # vocabularies; tests/test_parts.py round-trips each).
        assert not isinstance(cls, type) or (
            not issubclass(cls, keras.layers.Layer)
            or issubclass(cls, (keras.Model, zoo.tasks.Preprocessor))
        )
