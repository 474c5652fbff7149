"""The ELMo-style biLM (`zoo.language_model`): each direction sees only
its own side, the softmax is exact at inference, the model trains,
reloads and lends its layers to other models."""

import keras
import numpy as np
import pytest

import zoo

SENTENCES = [
    "The cat sat on the mat .".split(),
    "A dog ran in the park .".split(),
    "The end".split(),
    "the dog sat on a cat".split(),
]
WORDS = ["<s>", "</s>", "the", "cat", "sat", "on", "mat", ".", "a", "dog"]


def _vocabularies():
    vocabulary = zoo.layers.TokenVocabulary(WORDS, name="vocabulary")
    characters = zoo.layers.CharacterVocabulary.from_words(
        [w for s in SENTENCES for w in s], name="characters"
    )
    return vocabulary, characters


def _model(num_sampled=4, **kwargs):
    vocabulary, characters = _vocabularies()
    model = zoo.tasks.BiLM.create(
        vocabulary,
        characters,
        units=8,
        num_layers=2,
        char_units=8,
        num_sampled=num_sampled,
        seed=1,
        **kwargs,
    )
    words = vocabulary.encode(SENTENCES)
    chars = characters.encode(SENTENCES, width=words.shape[1])
    return model, words, chars


def _numpy(x):
    return keras.ops.convert_to_numpy(x)


def test_targets_are_the_next_and_previous_words():
    targets = zoo.language_model.LanguageModelTargets(bos_id=2, eos_id=3)
    forward, backward = targets(np.array([[5, 6, 7, 0], [8, 0, 0, 0]]))
    np.testing.assert_array_equal(_numpy(forward), [[6, 7, 3, 0], [3, 0, 0, 0]])
    np.testing.assert_array_equal(
        _numpy(backward), [[2, 5, 6, 0], [2, 0, 0, 0]]
    )


def test_each_direction_sees_only_its_own_side():
    """Changing the words after position t leaves every layer's forward
    half at 0..t as it was, and changing those before t leaves the
    backward half at t..n: a language model never reads what it
    predicts."""
    model, _, chars = _model()
    encoder = zoo.language_model.encoder_of(model)
    units = encoder.units
    row = chars[:1]  # "The cat sat on the mat ." (7 words)
    t = 3
    later = row.copy()
    later[0, t + 1 : 7] = row[0, t + 1 : 7][::-1]  # other words after t
    later[0, t + 1, :2] = [5, 6]
    earlier = row.copy()
    earlier[0, :t] = row[0, :t][::-1]
    earlier[0, 0, :2] = [5, 6]
    base = [_numpy(x) for x in encoder(row)]
    after = [_numpy(x) for x in encoder(later)]
    before = [_numpy(x) for x in encoder(earlier)]
    for layer in range(1, len(base)):  # layer 0 is each word on its own
        np.testing.assert_allclose(
            after[layer][0, : t + 1, :units],
            base[layer][0, : t + 1, :units],
            atol=1e-6,
        )
        np.testing.assert_allclose(
            before[layer][0, t:7, units:],
            base[layer][0, t:7, units:],
            atol=1e-6,
        )
        # ... and each direction does read its own side.
        assert not np.allclose(
            after[layer][0, 6, :units], base[layer][0, 6, :units]
        )
        assert not np.allclose(
            before[layer][0, 0, units:], base[layer][0, 0, units:]
        )


def test_padded_equals_unpadded():
    model, words, chars = _model()
    full = model.predict((words, chars), verbose=0)
    for row, sentence in enumerate(SENTENCES):
        n = len(sentence)
        alone = model.predict(
            (words[row : row + 1, :n], chars[row : row + 1, :n]), verbose=0
        )
        np.testing.assert_allclose(alone[0], full[row, :n], atol=1e-5)


def test_the_softmax_is_exact_at_inference():
    layer = zoo.layers.SampledSoftmax(9, num_sampled=3, seed=0)
    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(2, 4, 5)).astype("float32")
    targets = rng.integers(0, 9, size=(2, 4)).astype("int32")
    nll = _numpy(layer([hidden, targets]))
    kernel, bias = (_numpy(w) for w in layer.weights)
    logits = hidden @ kernel.T + bias
    log_softmax = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = -np.take_along_axis(log_softmax, targets[..., None], -1)[..., 0]
    np.testing.assert_allclose(nll, expected, rtol=1e-5, atol=1e-5)
    sampled = _numpy(layer([hidden, targets], training=True))
    assert sampled.shape == (2, 4) and np.isfinite(sampled).all()
    assert not np.allclose(sampled, expected)
    # num_sampled >= the vocabulary: the full softmax while training too.
    full = zoo.layers.SampledSoftmax(9, num_sampled=9)
    full.build([hidden.shape, targets.shape])
    full.set_weights(layer.get_weights())
    np.testing.assert_allclose(
        _numpy(full([hidden, targets], training=True)), expected, rtol=1e-5
    )


def test_the_sampled_loss_is_the_corrected_logits_of_the_drawn_ids():
    """While training: the target's logit against the log-uniform draw
    (the first draw of the layer's seed), every logit less log(S Q(id)),
    a drawn id equal to the target masked out (TensorFlow's formula)."""
    size, drawn = 40, 12
    layer = zoo.layers.SampledSoftmax(size, num_sampled=drawn, seed=5)
    rng = np.random.default_rng(1)
    hidden = rng.normal(size=(3, 4, 6)).astype("float32")
    # Frequent ids as targets, so that some are drawn (accidental hits).
    targets = rng.integers(0, 4, size=(3, 4)).astype("int32")
    layer.build([hidden.shape, targets.shape])
    layer.set_weights(
        [rng.normal(size=(size, 6)).astype("float32"),
         rng.normal(size=(size,)).astype("float32")]
    )  # fmt: skip
    nll = _numpy(layer([hidden, targets], training=True))
    u = _numpy(
        keras.random.uniform(
            (drawn,), seed=keras.random.SeedGenerator(5), dtype="float32"
        )
    )
    ids = np.floor(np.exp(u * np.log(size + 1.0))) - 1.0
    ids = np.clip(ids, 0, size - 1).astype("int64")
    kernel, bias = layer.get_weights()

    def corrected(i):
        q = np.log((i + 2.0) / (i + 1.0)) / np.log(size + 1.0)
        return bias[i] - np.log(q * drawn)

    h, t = hidden.reshape(-1, 6), targets.reshape(-1)
    true = (h * kernel[t]).sum(1) + corrected(t)
    hits = t[:, None] == ids[None, :]
    assert hits.any() and not hits.all()
    logits = h @ kernel[ids].T + corrected(ids) - 1e9 * hits
    every = np.concatenate([true[:, None], logits], 1)
    top = every.max(1, keepdims=True)
    expected = np.log(np.exp(every - top).sum(1)) + top[:, 0] - true
    np.testing.assert_allclose(nll.reshape(-1), expected, rtol=1e-5, atol=1e-5)


def test_k_targets_a_step_score_each_from_its_own_slice():
    """`hidden` (batch, steps, k * width) against (batch, steps, k)
    targets (a biLM's two directions in one call): exact, each target
    scored from its slice as a call per slice scores it; sampled, the
    same as one call on the slices stacked along the batch (one draw of
    negatives for all); a width that k does not divide is refused."""
    rng = np.random.default_rng(2)
    hidden = rng.normal(size=(2, 4, 10)).astype("float32")
    targets = rng.integers(0, 9, size=(2, 4, 2)).astype("int32")
    both = zoo.layers.SampledSoftmax(9, num_sampled=3, seed=4)
    nll = _numpy(both([hidden, targets]))
    assert nll.shape == (2, 4, 2)
    assert [tuple(w.shape) for w in both.weights] == [(9, 5), (9,)]
    one = zoo.layers.SampledSoftmax(9, num_sampled=3, seed=4)
    one.build([(2, 4, 5), (2, 4)])
    one.set_weights(both.get_weights())
    for k in range(2):
        alone = _numpy(one([hidden[..., 5 * k : 5 * (k + 1)], targets[..., k]]))
        np.testing.assert_allclose(nll[..., k], alone, rtol=1e-5, atol=1e-5)
    sampled = _numpy(both([hidden, targets], training=True))
    stacked = _numpy(one([hidden.reshape(2, 4, 2, 5), targets], training=True))
    np.testing.assert_allclose(sampled, stacked, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="k times the width"):
        zoo.layers.SampledSoftmax(9)([hidden, np.zeros((2, 4, 3), "int32")])


def test_the_softmax_refuses_targets_out_of_range():
    layer = zoo.layers.SampledSoftmax(9, num_sampled=3)
    hidden = np.zeros((1, 2, 5), "float32")
    with pytest.raises(
        ValueError,
        match=r"`targets` must hold target ids \(vocabulary_size=9\) in "
        r"\[0, 9\); received 9",
    ):
        layer([hidden, np.array([[1, 9]])])


def test_it_trains_with_a_sampled_softmax_and_reloads(tmp_path):
    model, words, chars = _model()
    zoo.language_model.compile_model(model, keras.optimizers.Adam(0.02))
    mask = (words > 0).astype("float32")
    before = model.evaluate(
        (words, chars), mask, sample_weight=mask, verbose=0, return_dict=True
    )
    model.fit((words, chars), mask, sample_weight=mask, epochs=40, verbose=0)
    after = model.evaluate(
        (words, chars), mask, sample_weight=mask, verbose=0, return_dict=True
    )
    # The exact loss (evaluate) fell, in both directions.
    assert after["forward_nll"] < before["forward_nll"] - 0.3
    assert after["backward_nll"] < before["backward_nll"] - 0.3
    assert after["loss"] == pytest.approx(
        (after["forward_nll"] + after["backward_nll"]) / 2, rel=1e-4
    )
    path = tmp_path / "bilm.keras"
    model.save(path)
    reloaded = keras.saving.load_model(path, safe_mode=True)
    np.testing.assert_allclose(
        reloaded.predict((words, chars), verbose=0),
        model.predict((words, chars), verbose=0),
        atol=1e-6,
    )


@pytest.mark.parametrize(
    "frozen",
    [True, pytest.param(False, marks=pytest.mark.slow)],  # slow: make test-all
)
def test_a_contextual_embedding_mixes_the_pretrained_layers(frozen, tmp_path):
    model, words, chars = _model()
    embedding = zoo.language_model.contextual_embedding(model, frozen=frozen)
    inputs = keras.Input((None, None), dtype="int32")
    outputs = keras.layers.Dense(3, activation="softmax")(embedding(inputs))
    tagger = keras.Model(inputs, outputs)
    tagger.compile(
        keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy"
    )
    encoder_before = [
        w.copy() for w in zoo.language_model.encoder_of(model).get_weights()
    ]
    tags = (words % 3).astype("int32")
    tagger.fit(
        chars,
        tags,
        sample_weight=(words > 0).astype("float32"),
        epochs=3,
        verbose=0,
    )
    encoder_after = zoo.language_model.encoder_of(model).get_weights()
    changed = any(
        not np.array_equal(a, b) for a, b in zip(encoder_before, encoder_after)
    )
    assert (
        changed is not frozen
    )  # the same layer: frozen keeps it as pretrained
    weights = embedding.layer_weights
    assert weights.shape == (3,) and weights.sum() == pytest.approx(1.0)
    assert not np.allclose(weights, 1 / 3)  # the mix learned
    path = tmp_path / "tagger.keras"
    tagger.save(path)
    reloaded = keras.saving.load_model(path, safe_mode=True)
    np.testing.assert_allclose(
        _numpy(reloaded(chars)), _numpy(tagger(chars)), atol=1e-6
    )


def test_bad_arguments_are_named():
    vocabulary, characters = _vocabularies()
    plain = zoo.layers.TokenVocabulary(["the", "cat"])
    with pytest.raises(
        ValueError,
        match=r"must hold the sentence boundaries.*lacks \['<s>', '</s>'\]",
    ):
        zoo.tasks.BiLM.create(plain, characters)
    with pytest.raises(TypeError, match="`characters` must be"):
        zoo.tasks.BiLM.create(vocabulary, vocabulary)
    with pytest.raises(TypeError, match="`encoder` must be a"):
        zoo.language_model.bilm_graph(keras.layers.Dense(2), vocabulary)
    tagger = zoo.heads.sequence_tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=9), 3
    )
    with pytest.raises(ValueError, match="not a bidirectional language model"):
        zoo.language_model.contextual_embedding(tagger)
    with pytest.raises(
        TypeError, match="`encoder` must be a `zoo.layers.BiLMEncoder`"
    ):
        zoo.layers.ContextualEmbedding(keras.layers.Dense(3))
    with pytest.raises(ValueError, match="num_sampled"):
        zoo.layers.SampledSoftmax(9, num_sampled=-1)


def test_a_backbone_reads_the_pretrained_layers_beside_its_words():
    model, words, chars = _model()
    contextual = zoo.language_model.contextual_embedding(model)
    backbone = zoo.stacked_rnn(
        "lstm", 1, 4, vocabulary_size=12, embedding_dim=3, contextual=contextual
    )
    assert len(backbone.inputs) == 2  # token ids, then character ids
    features = backbone.get_layer(f"{backbone.name}_word_features")
    assert features.output.shape[-1] == 3 + 2 * 8
    out = keras.ops.convert_to_numpy(backbone([words, chars]))
    assert out.shape == (*words.shape, 4) and np.isfinite(out).all()
    with pytest.raises(TypeError, match="`contextual` must be a"):
        zoo.stacked_rnn(vocabulary_size=12, contextual=keras.layers.Dense(2))
    with pytest.raises(ValueError, match="`contextual` reads the characters"):
        zoo.stacked_rnn(input_dim=3, contextual=contextual)


def test_the_top_and_average_mixes_are_fixed_baselines():
    model, _, chars = _model()
    encoder = zoo.language_model.encoder_of(model)
    layers = [_numpy(x) for x in encoder(chars)]
    top = zoo.language_model.contextual_embedding(model, mix="top")
    np.testing.assert_allclose(_numpy(top(chars)), layers[-1], atol=1e-5)
    average = zoo.language_model.contextual_embedding(model, mix="average")
    np.testing.assert_allclose(
        _numpy(average(chars)), np.mean(layers, axis=0), atol=1e-5
    )
    for layer in (top, average):  # only gamma learns
        assert [w.name for w in layer.trainable_weights] == ["gamma"]
    with pytest.raises(ValueError, match="`mix` must be one of"):
        zoo.language_model.contextual_embedding(model, mix="bottom")


def test_the_model_scores_the_next_word_forward_and_the_previous_backward():
    """The model's output, recomputed by hand from its encoder's halves,
    its softmax weights and targets written out here: column 0 scores
    word t+1 (`</s>` after the last) from the forward half at t, column 1
    word t-1 (`<s>` before the first) from the backward half. (A first
    version gave its functional graph one targets tensor for both.)"""
    model, words, chars = _model()
    nll = model.predict((words, chars), verbose=0)
    encoder = zoo.language_model.encoder_of(model)
    top = _numpy(encoder(chars)[-1])
    softmax = model.softmax
    kernel, bias = (_numpy(w) for w in (softmax.kernel, softmax.bias))
    bos, eos = 2, 3  # "<s>", "</s>" in WORDS
    for row, sentence in enumerate(SENTENCES):
        n = len(sentence)
        ids = list(words[row, :n])
        targets = ([*ids[1:], eos], [bos, *ids[:-1]])
        halves = (top[row, :n, : encoder.units], top[row, :n, encoder.units :])
        for column, (hidden, target) in enumerate(zip(halves, targets)):
            logits = hidden @ kernel.T + bias
            log_softmax = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
            expected = -log_softmax[np.arange(n), target]
            np.testing.assert_allclose(
                nll[row, :n, column], expected, rtol=1e-4, atol=1e-4
            )
