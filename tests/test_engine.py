"""`zoo.engine`: the NumPy forward pass equals Keras's at every real step
(taggers, classifiers, a biLM tagger, stacks of every kind, seq2seq
models with each attention and bridge, the shipped presets), and its
decoders return what `zoo.greedy_decode` and `zoo.beam_search` return."""

import threading

import keras
import numpy as np
import pytest

import zoo
import zoo.engine
from tests import helpers

ATOL = 1e-5
WORDS = ["<s>", "</s>", "the", "cat", "sat", "on", "mat", ".", "a", "dog"]
SENTENCES = [
    "The cat sat on the mat .".split(),
    "A dog ran in the park".split(),
    "The end".split(),
    ["dog"],
]


def _ids(rng, lengths, size):
    """Right-padded random ids in [1, size), one row per length."""
    ids = np.zeros((len(lengths), max(lengths)), "int32")
    for row, length in enumerate(lengths):
        ids[row, :length] = rng.integers(1, size, length)
    return ids


def _chars(rng, ids, size, width=7):
    """Random character ids for each real word (row 0's second word has
    none: a real word without characters)."""
    chars = np.zeros((*ids.shape, width), "int32")
    for (row, word), real in np.ndenumerate(ids != 0):
        if real and (row, word) != (0, 1):
            n = rng.integers(1, width + 1)
            chars[row, word, :n] = rng.integers(1, size, n)
    return chars


def _assert_real_steps_equal(got, want, mask, atol=ATOL):
    got, want = np.asarray(got), helpers.to_numpy(want)
    assert got.shape == want.shape
    if mask is not None and got.ndim >= 2 and got.shape[:2] == mask.shape:
        got, want = got[mask], want[mask]
    np.testing.assert_allclose(got, want, atol=atol)


def _assert_all_equal(got, want, mask):
    got, want = keras.tree.flatten(got), keras.tree.flatten(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _assert_real_steps_equal(g, w, mask)


def _assert_matches_keras(model, inputs, mask):
    got = zoo.engine.function(model)(inputs)
    _assert_all_equal(got, model(inputs, training=False), mask)


# Masks: mostly padding (the ragged loop), mostly real (the masked
# loop) and with holes (a masked step between real ones).
MASKS = {
    "ragged": [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 0, 0, 0, 0]],
    "mostly_real": [[1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 0]],
    "holes": [[1, 0, 1, 1, 0], [0, 1, 1, 1, 1], [1, 1, 0, 0, 0]],
}


def _assert_decoded_equal(got, want):
    np.testing.assert_array_equal(got[0], helpers.to_numpy(want[0]))
    np.testing.assert_allclose(got[1], helpers.to_numpy(want[1]), atol=1e-4)


STACKS = {
    "lstm_bidirectional_residual": (
        "ragged",
        dict(
            cell="lstm",
            units=7,
            num_layers=3,
            bidirectional=True,
            residual=True,
        ),
    ),
    "gru_highway_layer_norm_sum": (
        "mostly_real",
        dict(
            cell="gru",
            units=6,
            num_layers=3,
            bidirectional=[True, False, True],
            merge_mode="sum",
            highway=True,
            layer_norm=True,
        ),
    ),
    "lstm_ave_mul_last_states": (
        "holes",
        dict(
            cell="lstm",
            units=5,
            num_layers=2,
            bidirectional=True,
            merge_mode=["ave", "mul"],
            residual=True,
            return_sequences=False,
            return_state=True,
        ),
    ),
    "simple_rnn_and_gru_v1": (
        "ragged",
        dict(
            cell=["simple_rnn", "gru"],
            units=[5, 6],
            reset_after=False,
            bidirectional=True,
            return_state=True,
        ),
    ),
    "lstm_other_activations_all": (
        "holes",
        dict(
            cell="lstm",
            units=6,
            num_layers=2,
            activation="relu",
            recurrent_activation="hard_sigmoid",
            use_bias=False,
            residual=True,
            output="all",
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(STACKS))
def test_a_stack_matches_keras_at_every_real_step(name):
    masks, options = STACKS[name]
    stack = zoo.layers.StackedRNN(**{"return_sequences": True, **options})
    mask = np.array(MASKS[masks], bool)
    x = np.random.default_rng(0).normal(size=(3, 5, 6)).astype("float32")
    want = stack(x, mask=mask, training=False)  # builds the stack
    _assert_all_equal(zoo.engine.stacks.StackPlan(stack)(x, mask), want, mask)


@pytest.mark.parametrize("char_kind", ["rnn", "cnn", "both"])
@pytest.mark.parametrize("head", ["softmax", "crf"])
def test_a_tagger_matches_keras(char_kind, head):
    rng = np.random.default_rng(1)
    options = dict(char_vocabulary_size=9, char_units=4, residual=True)
    backbone = zoo.stacked_rnn(
        "lstm", 2, 6, vocabulary_size=20, embedding_dim=5, bidirectional=True,
        char_kind=char_kind, name=f"b_{char_kind}_{head}", **options
    )  # fmt: skip
    tagger = zoo.heads.sequence_tagger(backbone, 5, head=head)
    ids = _ids(rng, [5, 2, 4, 1], 20)
    inputs = [ids, _chars(rng, ids, 9)]
    _assert_matches_keras(tagger, inputs, ids != 0)
    if head == "crf":
        crf = tagger.get_layer("crf")
        emissions = zoo.engine.function(tagger)(inputs)
        want = helpers.to_numpy(crf.decode(emissions, ids != 0))
        got = zoo.engine.crf_decoder(crf)(emissions, ids != 0)
        np.testing.assert_array_equal(got, want)


def test_a_crf_decoding_model_matches_keras():
    rng = np.random.default_rng(2)
    ids = keras.Input((None,), dtype="int32")
    x = zoo.layers.TokenEmbedding(12, 4, mask_zero=True)(ids)
    x = zoo.layers.StackedRNN("gru", 5, 1, return_sequences=True)(x)
    crf = zoo.layers.CRF(4)
    tags = crf(keras.layers.Dense(4)(x), decode=True)
    model = keras.Model(ids, tags)
    batch = _ids(rng, [4, 1, 3], 12)
    got = zoo.engine.function(model)(batch)
    np.testing.assert_array_equal(got, helpers.to_numpy(model(batch)))


@pytest.mark.parametrize(
    "pooling", ["mean", "max", "last", "concat", "attention"]
)
def test_a_classifier_matches_keras(pooling):
    rng = np.random.default_rng(3)
    backbone = zoo.stacked_gru(
        2, 6, vocabulary_size=15, embedding_dim=4, name=f"c_{pooling}"
    )
    model = zoo.heads.sequence_classifier(
        backbone, 3, pooling=pooling, attention_units=5
    )
    _assert_matches_keras(model, _ids(rng, [4, 1, 3, 2], 15), None)


def _bilm_tagger():
    """A tagger on a pretrained biLM (ELMo), and the biLM's layer."""
    vocabulary = zoo.layers.TokenVocabulary(WORDS, name="vocabulary")
    characters = zoo.layers.CharacterVocabulary.from_words(
        [w for s in SENTENCES for w in s], name="characters"
    )
    bilm = zoo.tasks.BiLM.create(
        vocabulary, characters, units=6, num_layers=2, char_units=5, seed=1
    )
    contextual = zoo.language_model.contextual_embedding(bilm)
    backbone = zoo.stacked_rnn(
        "lstm", 2, 4, vocabulary_size=vocabulary.vocabulary_size,
        embedding_dim=3, char_vocabulary_size=characters.vocabulary_size,
        char_units=3, contextual=contextual, bidirectional=True, name="elmo"
    )  # fmt: skip
    preprocessor = zoo.tasks.TaggerPreprocessor(
        vocabulary, ["", "A", "B", "C"], characters=characters
    )
    tagger = zoo.Tagger(backbone, preprocessor)
    return tagger, contextual


def test_a_tagger_on_a_pretrained_bilm_matches_keras():
    tagger, contextual = _bilm_tagger()
    inputs = tagger.encode(SENTENCES)
    _assert_matches_keras(tagger, inputs, inputs[0] != 0)
    encoder = zoo.engine.words.Encoder(contextual.encoder)
    chars = inputs[1]
    got = encoder.layers(chars)
    want = contextual.encoder(chars, training=False)
    for g, w in zip(got, want):
        _assert_real_steps_equal(g, w, chars.any(axis=-1))


SEQ2SEQ = [
    # attention, bridge, cell, bidirectional encoder, decoder units, and
    # the beam search's width and length penalty
    (None, "copy", "lstm", True, 8, 3, 1.0),
    ("dot", "dense", "gru", False, 8, 4, 0.0),
    ("general", "dense", "lstm", True, 6, 4, 0.5),
    ("additive", "zeros", "gru", True, 8, 3, 1.0),
    ("general", "copy", "simple_rnn", False, 8, 2, 2.0),
    ("cosine", "dense", "lstm", True, 6, 3, 1.0),
]


@pytest.mark.parametrize(
    "attention,bridge,cell,bidirectional,units,width,penalty", SEQ2SEQ
)
def test_a_seq2seq_model_and_its_decoders_match_keras(
    attention, bridge, cell, bidirectional, units, width, penalty
):
    rng = np.random.default_rng(4)
    encoder = {"cell": cell, "units": 8, "bidirectional": bidirectional}
    model = zoo.Seq2Seq(
        11, 9, embedding_dim=5, encoder=encoder, bridge=bridge,
        decoder={"cell": cell, "units": units}, attention=attention
    )  # fmt: skip
    source = np.concatenate(
        [_ids(rng, [5, 3, 1, 4], 11), np.zeros((1, 5), "int32")]
    )  # the last source is empty
    lengths = [4, 4, 4, 3, 4] if width == 4 else [3, 2, 4, 1, 2]  # MASKS
    target = _ids(rng, lengths, 9)
    got = zoo.engine.function(model)((source, target))
    _assert_real_steps_equal(got, model((source, target)), target != 0)
    options = dict(start_id=2, end_id=3, max_length=6)
    want_ids, want_scores = zoo.greedy_decode(model, source, **options)
    got_ids, got_scores = zoo.engine.decoder(model, "greedy", **options)(source)
    _assert_decoded_equal((got_ids, got_scores), (want_ids, want_scores))
    beam = dict(options, beam_width=width, length_penalty=penalty)
    want_ids, want_scores = zoo.beam_search(
        model, source, return_all_beams=True, **beam
    )
    got_ids, got_scores = zoo.engine.decoder(
        model, "beam", return_all_beams=True, **beam
    )(source)
    _assert_decoded_equal((got_ids, got_scores), (want_ids, want_scores))


def _written_tags(tagger, outputs, sentences, mask):
    tags = (outputs[..., 1:].argmax(axis=-1) + 1) * mask
    return [
        " ".join(tagger.labels[t] for t in row[: len(s)])
        for row, s in zip(tags, sentences)
    ]


def test_the_pos_preset_tags_what_its_metadata_recorded():
    tagger = zoo.Tagger.from_preset("pos_en_universal")
    recorded = zoo.presets.verify("pos_en_universal")["fixed_inputs"]
    sentences = [s.split() for s in recorded["sentences"]]
    inputs = tagger.encode(sentences)
    mask = inputs[0] != 0
    got = zoo.engine.function(tagger)(inputs)
    assert _written_tags(tagger, got, sentences, mask) == recorded["tags"]
    top = got.max(axis=-1)[mask]  # row by row, as recorded
    np.testing.assert_allclose(top, recorded["top_outputs"], atol=2e-4)


@pytest.mark.tf_tier  # Keras compiles the tagger: slow on JAX
def test_the_pos_preset_matches_keras():
    tagger = zoo.Tagger.from_preset("pos_en_universal")
    sentences = [
        "Time flies like an arrow .".split(),
        "I refuse to collect the refuse around here .".split(),
        ["Hi"],
    ]
    inputs = tagger.encode(sentences)
    mask = inputs[0] != 0
    got = zoo.engine.function(tagger)(inputs)
    _assert_real_steps_equal(got, tagger.infer(inputs), mask, atol=1e-4)
    written = _written_tags(tagger, got, sentences, mask)
    assert written == [" ".join(t for _, t in s) for s in tagger.tag(sentences)]


def test_the_g2p_preset_transcribes_what_its_metadata_recorded():
    g2p = zoo.Transcriber.from_preset("g2p_en_cmudict")
    recorded = zoo.presets.verify("g2p_en_cmudict")["fixed_inputs"]
    words = recorded["words"]
    source = g2p.source_batch(words)
    options = dict(start_id=2, end_id=3, max_length=g2p.max_target_length)
    greedy = zoo.engine.decoder(g2p.backbone, "greedy", **options)
    ids, _ = greedy(source)
    assert [" ".join(g2p.decode_ids(r)) for r in ids] == recorded["greedy"]
    options.update(beam_width=g2p.beam_width, length_penalty=1.0)
    beam = zoo.engine.decoder(g2p.backbone, "beam", **options)
    ids, scores = beam(source)
    assert [" ".join(g2p.decode_ids(r)) for r in ids] == recorded["beam"]
    np.testing.assert_allclose(scores, recorded["beam_scores"], atol=2e-4)
    # One word at a time gives the same as the batch.
    for row, word in enumerate(words[:2]):
        alone, score = beam(g2p.source_batch([word]))
        np.testing.assert_array_equal(alone[0], ids[row])
        np.testing.assert_allclose(score[0], scores[row], atol=1e-5)


@pytest.mark.tf_tier  # Keras compiles each decoder: slow on JAX
def test_the_g2p_preset_decodes_as_keras_decoders_do():
    g2p = zoo.Transcriber.from_preset("g2p_en_cmudict")
    source = g2p.source_batch(["keras", "blorptastic", "xyzzy", "a"])
    for method in ("greedy", "beam"):
        want_ids, want_scores = g2p.decoder(method)(source)
        options = dict(start_id=2, end_id=3, max_length=g2p.max_target_length)
        if method == "beam":
            options.update(beam_width=g2p.beam_width, length_penalty=1.0)
        got = zoo.engine.decoder(g2p.backbone, method, **options)(source)
        _assert_decoded_equal(got, (want_ids, want_scores))


def test_a_layer_without_a_numpy_form_is_named():
    inputs = keras.Input((None, 3))
    x = keras.layers.Conv1D(4, 2)(inputs)
    model = keras.Model(inputs, x)
    assert not zoo.engine.supports(model)
    with pytest.raises(NotImplementedError, match="Conv1D"):
        zoo.engine.function(model)
    stack = zoo.stacked_lstm(1, 4, input_dim=3)
    assert zoo.engine.supports(stack)
    with pytest.raises(TypeError, match="keras.Model"):
        zoo.engine.function(keras.layers.Dense(2))


def test_refresh_reads_weights_trained_later_and_threads_share_a_call():
    rng = np.random.default_rng(5)
    model = zoo.heads.sequence_tagger(
        zoo.stacked_lstm(1, 5, vocabulary_size=10, name="r"), 3
    )
    ids = _ids(rng, [3, 2], 10)
    run = zoo.engine.function(model)
    before = run(ids)
    for variable in model.trainable_variables:
        variable.assign(variable * 0.5)
    np.testing.assert_array_equal(run(ids), before)
    _assert_real_steps_equal(run.refresh()(ids), model(ids), ids != 0)
    batches = [_ids(rng, [4, 1], 10) for _ in range(8)]
    want = [run(b) for b in batches]
    results = [None] * len(batches)

    def work(i):
        results[i] = run(batches[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for got, expected in zip(results, want):
        np.testing.assert_array_equal(got, expected)


def test_bad_ids_and_options_are_named():
    model = zoo.heads.sequence_tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=10, name="e"), 3
    )
    with pytest.raises(ValueError, match="in \\[0, 10\\)"):
        zoo.engine.function(model)(np.array([[1, 12]], "int32"))
    seq2seq = zoo.build_seq2seq(7, 8, "gru", 1, 4, embedding_dim=3)
    with pytest.raises(ValueError, match="end_id"):
        zoo.engine.decoder(seq2seq, start_id=2, end_id=9, max_length=3)
    with pytest.raises(TypeError, match="beam_width"):
        zoo.engine.decoder(
            seq2seq, "greedy", start_id=2, end_id=3, max_length=3, beam_width=2
        )
    decode = zoo.engine.decoder(seq2seq, start_id=2, end_id=3, max_length=3)
    with pytest.raises(ValueError, match="source_ids"):
        decode(np.array([[1, 7]], "int32"))


def test_top_k_ranks_larger_first_a_tie_to_the_lower_index():
    # Integer scores tie often (the slow path), normal ones almost never
    # (the partition alone); both must rank as the engine documents and
    # keras.ops.top_k does on TensorFlow and JAX: larger first, a tie to
    # the lower index (a stable sort; PyTorch's topk breaks ties its own
    # way, so the rule is checked against NumPy, not the backend).
    from zoo.seq2seq.search import top_k

    rng = np.random.default_rng(0)
    for trial in range(200):
        if trial % 2:
            ranked = rng.integers(0, 6, size=(4, 30)).astype("float32")
        else:
            ranked = rng.normal(size=(4, 30)).astype("float32")
        k = int(rng.integers(1, 8))
        expected = np.argsort(-ranked, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(top_k(ranked, k), expected)


@pytest.mark.parametrize("width,penalty", [(1, 1.0), (3, 0.0), (5, 1.0)])
@pytest.mark.parametrize("tied", [False, True])
def test_beam_search_ranking_candidates_only_changes_nothing(
    monkeypatch, width, penalty, tied
):
    # Beam search ranks only the tokens that can enter the beams
    # (`decoding._candidates`); without the bound it ranks them all.
    # Both must give the same ids and the same float32 scores, with
    # hypotheses ending at different steps, an empty source, and (tied)
    # every token equally likely, where only the index breaks ties.
    from zoo.seq2seq import search as decoding

    keras.utils.set_random_seed(1)
    model = zoo.Seq2Seq(
        12, 40, embedding_dim=6, encoder={"units": 8, "bidirectional": True},
        decoder={"units": 8}, attention="general",
    )  # fmt: skip
    rng = np.random.default_rng(2)
    source = np.concatenate(
        [_ids(rng, [5, 3, 6, 1, 4, 2, 5], 12), np.zeros((1, 6), "int32")]
    )
    output = model.get_layer(f"{model.name}_output")
    kernel, bias = (helpers.to_numpy(w) for w in output.weights)
    if tied:
        output.set_weights([kernel * 0, bias * 0])
    else:  # peaked, with hypotheses that end at different steps
        kernel = kernel * 6
        kernel[:, 3] = rng.normal(size=len(kernel)) * 8
        output.set_weights([kernel, bias])
    options = dict(start_id=2, end_id=3, max_length=9)
    options.update(beam_width=width, length_penalty=penalty)
    decode = zoo.engine.decoder(model, "beam", return_all_beams=True, **options)
    bounded = []
    candidates = decoding._candidates

    def counted(*args):
        found = candidates(*args)
        bounded.append(found is not None)
        return found

    monkeypatch.setattr(decoding, "_candidates", counted)
    got_ids, got_scores = decode(source)
    monkeypatch.setattr(decoding, "_candidates", lambda *args: None)
    want_ids, want_scores = decode(source)
    assert sum(bounded) >= 3  # the bound did the ranking
    np.testing.assert_array_equal(got_ids, want_ids)
    np.testing.assert_array_equal(got_scores, want_scores)
    if not tied and width > 1:
        assert len(set(np.count_nonzero(got_ids, axis=2).ravel())) > 2


# ---- all-padding batches ----------------------------------------------
# An empty sentence or text is a row of padding only; a batch of them
# (`tag([[], []])`, `classify(["", ""])`, sources of padding only) must
# answer as Keras does: no tags, the classifier's prior, the decoders'
# immediate end. `every_backend`: the core tier runs every case on JAX
# and PyTorch too (not a sample).
TASK_WORDS = ["the", "dog", "sees", "a", "cat", "."]


def _task_tagger(head):
    vocabulary = zoo.layers.TokenVocabulary(TASK_WORDS, name="vocabulary")
    characters = zoo.layers.CharacterVocabulary.from_words(
        TASK_WORDS, name="characters"
    )
    backbone = zoo.stacked_rnn(
        "lstm", 2, 5, vocabulary_size=vocabulary.vocabulary_size,
        embedding_dim=4, bidirectional=True, residual=True,
        char_vocabulary_size=characters.vocabulary_size, char_units=3,
        name=f"empty_{head}",
    )  # fmt: skip
    preprocessor = zoo.tasks.TaggerPreprocessor(
        vocabulary, ["", "DET", "NOUN", "VERB"], characters=characters
    )
    return zoo.Tagger(backbone, preprocessor, head=head)


def _task_classifier(pooling):
    vocabulary = zoo.layers.TokenVocabulary(TASK_WORDS, name="vocabulary")
    backbone = zoo.stacked_gru(
        2, 5, vocabulary_size=vocabulary.vocabulary_size, embedding_dim=4,
        bidirectional=True, name=f"empty_{pooling}",
    )  # fmt: skip
    preprocessor = zoo.tasks.TextClassifierPreprocessor(
        vocabulary, ["animals", "food", "other"]
    )
    return zoo.TextClassifier(
        backbone, preprocessor, pooling=pooling, attention_units=4
    )


def _empty_tagger(head):
    tagger = _task_tagger(head)
    empty = [[], []]
    assert tagger.tag(empty) == [[], []]
    assert tagger.tag(["", "  "]) == [[], []]
    assert tagger(["", ""]) == [[], []]
    # An empty sentence beside others changes nothing of theirs.
    alone = tagger.tag([["the", "dog"]])[0]
    assert tagger.tag([[], ["the", "dog"], []]) == [[], alone, []]
    # The engine's outputs and Keras's on the same rows: the tags of a
    # CRF's Viterbi path (none) over them.
    inputs = tagger.encode(empty)
    mask = inputs[0] != 0
    got = zoo.engine.function(tagger)(inputs)
    want = helpers.to_numpy(tagger(inputs, training=False))
    assert got.shape == want.shape == (2, 1, 4)
    if head == "crf":
        crf = tagger.get_layer("crf")
        np.testing.assert_array_equal(
            zoo.engine.crf_decoder(crf)(got, mask),
            helpers.to_numpy(crf.decode(want, mask)),
        )


def _empty_classifier(pooling):
    classifier = _task_classifier(pooling)
    empty = ["", "  ", ""]
    inputs = classifier.encode(empty)
    assert not inputs.any()
    # Keras's answer for a text of padding only: the model's prior.
    want = helpers.to_numpy(classifier(inputs, training=False))
    np.testing.assert_allclose(
        zoo.engine.function(classifier)(inputs), want, atol=ATOL
    )
    np.testing.assert_allclose(classifier.probabilities(empty), want, atol=ATOL)
    labels = classifier.labels
    found = classifier.classify(empty)
    assert [label for label, _ in found] == [
        labels[i] for i in want.argmax(axis=1)
    ]
    np.testing.assert_allclose([p for _, p in found], want.max(axis=1), 1e-5)


def _empty_seq2seq(bridge):
    model = zoo.Seq2Seq(
        11, 9, embedding_dim=5, encoder={"units": 6, "bidirectional": True},
        bridge=bridge, decoder={"units": 6}, attention="general",
    )  # fmt: skip
    source = np.zeros((3, 4), "int32")
    options = dict(start_id=2, end_id=3, max_length=5)
    want = zoo.greedy_decode(model, source, **options)
    got = zoo.engine.decoder(model, "greedy", **options)(source)
    _assert_decoded_equal(got, want)
    beam = dict(options, beam_width=3, length_penalty=1.0)
    want = zoo.beam_search(model, source, return_all_beams=True, **beam)
    got = zoo.engine.decoder(model, "beam", return_all_beams=True, **beam)(
        source
    )
    _assert_decoded_equal(got, want)
    # Teacher forcing from sources of padding only: the real target steps.
    target = np.array([[2, 5, 0], [2, 0, 0], [2, 4, 6]], "int32")
    got = zoo.engine.function(model)((source, target))
    _assert_real_steps_equal(got, model((source, target)), target != 0)


EMPTY = {
    "tagger_softmax": lambda: _empty_tagger("softmax"),
    "tagger_crf": lambda: _empty_tagger("crf"),
    "classifier_mean": lambda: _empty_classifier("mean"),
    "classifier_attention": lambda: _empty_classifier("attention"),
    "seq2seq_dense_bridge": lambda: _empty_seq2seq("dense"),
}


@pytest.mark.every_backend
@pytest.mark.parametrize("kind", sorted(EMPTY))
def test_an_all_padding_batch_answers_as_keras_does(kind):
    EMPTY[kind]()


def test_a_batch_of_no_rows_gives_no_rows_and_no_steps_is_refused():
    tagger = _task_tagger("softmax")
    run = zoo.engine.function(tagger)
    ids = np.zeros((0, 3), "int32")
    chars = np.zeros((0, 3, 4), "int32")
    assert run((ids, chars)).shape == (0, 3, 4)
    classifier = _task_classifier("max")
    assert zoo.engine.function(classifier)(ids).shape == (0, 3)
    model = zoo.build_seq2seq(7, 8, "gru", 1, 4, embedding_dim=3)
    options = dict(start_id=2, end_id=3, max_length=4)
    found, scores = zoo.engine.decoder(model, **options)(ids)
    assert found.shape == (0, 4) and scores.shape == (0,)
    found, scores = zoo.engine.decoder(model, "beam", **options)(ids)
    assert found.shape == (0, 4) and scores.shape == (0,)
    # No timesteps at all: refused in the words of Keras's stack.
    with pytest.raises(ValueError, match="has no timesteps"):
        run((np.zeros((2, 0), "int32"), np.zeros((2, 0, 4), "int32")))
    with pytest.raises(ValueError, match="has no timesteps"):
        zoo.engine.function(classifier)(np.zeros((2, 0), "int32"))


# ---- long inputs --------------------------------------------------------
def test_long_inputs_run_in_blocks_with_the_same_results(monkeypatch):
    # A long input is projected a block of steps at a time and its words
    # are read a chunk at a time (`functions.BLOCK_BYTES`, `words.
    # CHUNK_WORDS`); with blocks of one step and chunks of three words,
    # every path (masked, ragged, the plain loop, only final states, a
    # biLM, a seq2seq with initial states) gives what it gives at once.
    from zoo.engine import functions
    from zoo.engine import words

    rng = np.random.default_rng(6)
    backbone = zoo.stacked_rnn(
        "lstm", 2, 6, vocabulary_size=20, embedding_dim=5, bidirectional=True,
        char_kind="both", char_vocabulary_size=9, char_units=4, residual=True,
        name="blocks",
    )  # fmt: skip
    tagger = zoo.heads.sequence_tagger(backbone, 5, head="crf")
    batches = []
    for lengths in ([30], [30, 3, 1], [12, 11, 12]):  # one, ragged, masked
        ids = _ids(rng, lengths, 20)
        batches.append([ids, _chars(rng, ids, 9)])
    seq2seq = zoo.Seq2Seq(
        11, 9, embedding_dim=5, encoder={"units": 8, "bidirectional": True},
        decoder={"units": 8}, attention="additive",
    )  # fmt: skip
    pair = (_ids(rng, [9, 2, 7], 11), _ids(rng, [6, 6, 3], 9))
    elmo, _ = _bilm_tagger()
    elmo_inputs = elmo.encode(SENTENCES)
    x = rng.normal(size=(3, 5, 6)).astype("float32")
    stacks = {}
    for name, (masks, options) in STACKS.items():
        stack = zoo.layers.StackedRNN(**{"return_sequences": True, **options})
        mask = np.array(MASKS[masks], bool)
        stack(x, mask=mask, training=False)  # builds it
        stacks[name] = (stack, mask)

    def run_all():
        results = [zoo.engine.function(tagger)(b) for b in batches]
        results.append(zoo.engine.function(seq2seq)(pair))
        results.append(zoo.engine.function(elmo)(elmo_inputs))
        for stack, mask in stacks.values():
            plan = zoo.engine.stacks.StackPlan(stack)
            results += keras.tree.flatten(plan(x, mask))
        return results

    whole = run_all()
    monkeypatch.setattr(functions, "BLOCK_BYTES", 4)
    monkeypatch.setattr(words, "CHUNK_WORDS", 3)
    blocked = run_all()
    # At once, each equals Keras (the tests above); in blocks, the same.
    assert len(blocked) == len(whole) >= 5 + len(STACKS)
    for got, want in zip(blocked, whole):
        np.testing.assert_allclose(got, want, atol=1e-6)
