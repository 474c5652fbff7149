"""`CharacterEncoder`: one vector per word from its character ids."""

import keras
import numpy as np
import pytest

import zoo
from tests import helpers
from zoo.layers.characters import CharacterEncoder

VOCAB = 12
# (kind, extra arguments): the encoders the shared tests run on.
ENCODERS = [
    ("rnn", {}),
    ("rnn", {"cell": "gru", "bidirectional": False, "num_layers": 2}),
    ("cnn", {"num_layers": 2}),
    ("both", {"char_kernel_size": 2}),
]
IDS = ["bilstm", "gru2", "cnn2", "both"]


def _encoder(kind, extra, **kwargs):
    return CharacterEncoder(
        VOCAB, char_embedding_dim=6, char_units=5, kind=kind, **extra, **kwargs
    )


def _words(rng, lengths, chars=None):
    """One row of words with these character counts (0: a padded word)."""
    chars = chars or max(lengths)
    ids = np.zeros((len(lengths), chars), "int32")
    for word, length in enumerate(lengths):
        ids[word, :length] = rng.integers(1, VOCAB, size=length)
    return ids


def _batch():
    rng = np.random.default_rng(0)
    return np.stack(
        [_words(rng, [3, 1, 4], chars=4), _words(rng, [2, 0, 0], chars=4)]
    )


@pytest.mark.parametrize(
    "kind, extra, width",
    [
        ("rnn", {}, 10),
        ("rnn", {"bidirectional": False}, 5),
        ("rnn", {"bidirectional": [False, True], "num_layers": 2}, 10),
        ("rnn", {"bidirectional": [True, False], "num_layers": 2}, 5),
        ("cnn", {}, 5),
        ("both", {}, 15),
        ("both", {"bidirectional": False}, 10),
    ],
)
def test_output_shape_and_mask(kind, extra, width):
    layer = _encoder(kind, extra)
    ids = _batch()
    out = layer(ids)
    assert tuple(out.shape) == (2, 3, width)
    assert layer.output_dim == width
    mask = helpers.to_numpy(layer.compute_mask(ids))
    np.testing.assert_array_equal(
        mask, [[True, True, True], [True, False, False]]
    )


def test_symbolic_shapes_and_mask_are_dynamic():
    chars = keras.Input((None, None), dtype="int32")
    out = CharacterEncoder(VOCAB, char_units=4)(chars)
    assert tuple(out.shape) == (None, None, 8)
    assert tuple(out._keras_mask.shape) == (None, None)
    model = keras.Model(chars, out)
    for shape in [(2, 3, 4), (1, 5, 9)]:
        ids = np.ones(shape, "int32")
        assert model.predict(ids, verbose=0).shape == shape[:2] + (8,)


@pytest.mark.parametrize("kind, extra", ENCODERS, ids=IDS)
def test_padding_words_and_characters_change_nothing(kind, extra):
    layer = _encoder(kind, extra)
    ids = _batch()
    # The same words with longer character padding, an empty word in the
    # middle of each row and two more at the end.
    padded = np.zeros((2, 6, 9), "int32")
    padded[:, [0, 2, 3], :4] = ids
    real = helpers.to_numpy(layer(ids))
    got = helpers.to_numpy(layer(padded))
    np.testing.assert_allclose(got[:, [0, 2, 3]], real, atol=1e-5)
    np.testing.assert_array_equal(got[:, [1, 4, 5]], 0.0)
    # And each word alone, in a batch of one word without padding.
    for row, word in [(0, 2), (1, 0)]:
        length = int(np.count_nonzero(ids[row, word]))
        alone = helpers.to_numpy(
            layer(ids[row : row + 1, word : word + 1, :length])
        )
        np.testing.assert_allclose(alone[0, 0], real[row, word], atol=1e-5)


@pytest.mark.parametrize("kind, extra", ENCODERS, ids=IDS)
def test_empty_words_give_finite_zeros_and_gradients(kind, extra):
    layer = _encoder(kind, extra, dropout=0.2, seed=3)
    chars = keras.Input((None, None), dtype="int32")
    model = keras.Model(chars, layer(chars))
    ids = _batch()
    ids[1] = 0  # a row with no word at all
    for training in (False, True):
        out = helpers.to_numpy(model(ids, training=training))
        assert np.all(np.isfinite(out))
        np.testing.assert_array_equal(out[1], 0.0)
        assert np.any(out[0] != 0.0)
    assert helpers.missing_gradients(model, ids) == []
    empty = helpers.to_numpy(model(np.zeros((2, 3, 4), "int32")))
    np.testing.assert_array_equal(empty, 0.0)


def test_fused_and_per_layer_paths_agree():
    # On PyTorch the stack runs as one nn.LSTM call (zoo.fused), the empty
    # words included (they read one character); elsewhere this is the
    # same path twice.
    layer = _encoder("rnn", {"num_layers": 2})
    ids = _batch()
    fused = helpers.to_numpy(layer(ids))
    with zoo.fused.disabled():
        plain = helpers.to_numpy(layer(ids))
    np.testing.assert_allclose(fused, plain, atol=1e-5)


def test_both_is_the_two_encoders_side_by_side():
    ids = _batch()
    both = _encoder("both", {})
    rnn, cnn = _encoder("rnn", {}), _encoder("cnn", {})
    both(ids), rnn(ids), cnn(ids)  # build
    # The one embedding feeds both halves.
    for half in (rnn, cnn):
        half.embedding.set_weights(both.embedding.get_weights())
    rnn.stack.set_weights(both.stack.get_weights())
    cnn.convolutions[0].set_weights(both.convolutions[0].get_weights())
    expected = np.concatenate(
        [helpers.to_numpy(rnn(ids)), helpers.to_numpy(cnn(ids))], axis=-1
    )
    np.testing.assert_allclose(helpers.to_numpy(both(ids)), expected, atol=1e-6)
    config = both.get_config()
    assert config["kind"] == "both"
    assert CharacterEncoder.from_config(config).output_dim == 15


def test_config_names_the_vocabulary_size():
    config = CharacterEncoder(VOCAB, name="chars").get_config()
    assert config["char_vocabulary_size"] == VOCAB


def _tagger(kind="rnn"):
    words = keras.Input((None,), dtype="int32", name="words")
    chars = keras.Input((None, None), dtype="int32", name="chars")
    x = keras.layers.Concatenate()(
        [
            keras.layers.Embedding(20, 6, mask_zero=True)(words),
            CharacterEncoder(VOCAB, 4, 3, kind=kind, name="encoder")(chars),
        ]
    )
    x = zoo.layers.StackedRNN(
        "lstm", 5, 1, return_sequences=True, name="sentence"
    )(x)
    tags = keras.layers.Dense(3, activation="softmax")(x)
    return keras.Model([words, chars], tags, name=f"tagger_{kind}")


@pytest.mark.parametrize("kind", ["rnn", "cnn", "both"])
def test_tagger_trains_and_reloads(kind, tmp_path):
    rng = np.random.default_rng(1)
    lengths = rng.integers(1, 6, size=16)
    words = np.zeros((16, 5), "int32")
    chars = np.zeros((16, 5, 6), "int32")
    for row, length in enumerate(lengths):
        words[row, :length] = rng.integers(1, 20, size=length)
        chars[row, :length] = _words(rng, rng.integers(1, 7, size=length), 6)
    tags = rng.integers(0, 3, size=(16, 5))
    model = _tagger(kind)
    model.compile("adam", "sparse_categorical_crossentropy")
    history = model.fit(
        [words, chars], tags, batch_size=16, epochs=2, verbose=0
    )
    assert np.all(np.isfinite(history.history["loss"]))
    helpers.check_saves_and_reloads(model, [words, chars], tmp_path, atol=1e-5)


def test_fast_path_report_lists_the_inner_stack():
    report = zoo.fast_path_report(_tagger())
    names = [entry["layer"] for entry in report]
    assert names == [
        "forward_encoder_stack_layer0_lstm",
        "backward_encoder_stack_layer0_lstm",
        "sentence_layer0_lstm",
    ]
    for entry in report:
        assert entry["run"] == "0-0"
        assert all(b["fused"] for b in entry["backends"].values())
    assert zoo.fast_path_report(_tagger("cnn"))[0]["layer"] == (
        "sentence_layer0_lstm"
    )
    # Beside the convolutions the character BiLSTM stays fused.
    assert [e["layer"] for e in zoo.fast_path_report(_tagger("both"))] == names


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            {"char_vocabulary_size": 1},
            r"`char_vocabulary_size` must be an integer >= 2.*"
            r"received char_vocabulary_size=1",
        ),
        (
            {"char_vocabulary_size": "abc"},
            r"char_vocabulary_size='abc' of type str",
        ),
        (
            {"char_embedding_dim": 0},
            r"`char_embedding_dim` must be an integer >= 1",
        ),
        ({"char_units": 2.5}, r"`char_units` must be an integer >= 1"),
        ({"num_layers": 0}, r"`num_layers` must be an integer >= 1"),
        (
            {"kind": "lstm"},
            r"`kind` must be one of 'rnn', 'cnn', 'both'; received kind='lstm'",
        ),
        ({"cell": "rnn"}, r"`cell` must be one of 'simple_rnn', 'gru', 'lstm'"),
        ({"bidirectional": "yes"}, r"`bidirectional` must be True, False"),
        ({"dropout": 1.0}, r"`dropout` must be a float in \[0, 1\)"),
        (
            {"char_kernel_size": 0},
            r"`char_kernel_size` must be an integer >= 1",
        ),
        ({"seed": -1}, r"`seed` must be an integer >= 0"),
        ({"cell": ["gru", "lstm"]}, r"`cell` has 2 entries but num_layers=1"),
        (
            {"kind": "cnn", "dropout": [0.1, 0.2]},
            r"`dropout` has 2 entries but the stack has num_layers=1",
        ),
    ],
)
def test_bad_arguments_are_rejected(kwargs, match):
    kwargs = {"char_vocabulary_size": VOCAB, **kwargs}
    with pytest.raises(ValueError, match=match):
        CharacterEncoder(**kwargs)


def test_wrong_rank_is_rejected():
    with pytest.raises(ValueError, match=r"rank 3 \(batch, words, chars\)"):
        CharacterEncoder(VOCAB)(np.ones((2, 3), "int32"))
