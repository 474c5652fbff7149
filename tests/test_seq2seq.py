"""zoo.Seq2Seq: bridges, attention masking, decoding, jit and saving."""

import json

import keras
import numpy as np
import pytest

import zoo
from tests import helpers

START, END = 2, 3
SOURCE_VOCABULARY, TARGET_VOCABULARY = 9, 8
# Right-padded sources and teacher-forced target inputs (start id first).
SOURCE = np.array(
    [[4, 5, 6, 7, 8], [5, 6, 4, 0, 0], [8, 0, 0, 0, 0]], dtype="int32"
)
TARGET = np.array([[2, 4, 5, 6], [2, 7, 0, 0], [2, 6, 5, 0]], dtype="int32")


def tiny(cell="lstm", encoder=None, decoder=None, **kwargs):
    """A two-layer, four-unit model over the small vocabularies."""
    kwargs.setdefault("embedding_dim", 4)
    return zoo.Seq2Seq(
        SOURCE_VOCABULARY,
        TARGET_VOCABULARY,
        encoder={"cell": cell, "num_layers": 2, "units": 4, **(encoder or {})},
        decoder={"cell": cell, "num_layers": 2, "units": 4, **(decoder or {})},
        **kwargs,
    )


def forward(model, inputs):
    """`model(inputs)` as NumPy; one `jax.jit` per shape on JAX.

    Eager JAX compiles every recurrent layer's scan again at each call, a
    jitted `predict_on_batch` compiles the whole model once per shape.
    """
    if keras.backend.backend() == "jax":
        return helpers.flat_numpy(model.predict_on_batch(inputs))
    return helpers.flat_numpy(model(inputs, training=False))


def tensor(x):
    return keras.ops.convert_to_tensor(x)


def lengths(ids):
    return (np.asarray(ids) != 0).sum(axis=1)


def encoder_final_states(model, source):
    """The encoder stack's own final states, read without the bridge."""
    embedding = model.get_layer("seq2seq_source_embedding")
    stack = model.get_layer("seq2seq_encoder")
    _, *states = stack(embedding(source), mask=source != 0)
    return helpers.flat_numpy(states)


def step_by_step(model, source, target):
    """Runs the decoder step model over `target`, one id at a time."""
    encoder_outputs, mask, *states = forward(model.encoder_model(), source)
    step = model.decoder_step_model()
    outputs = []
    for t in range(target.shape[1]):
        probabilities, *states = forward(
            step, [target[:, t : t + 1], encoder_outputs, mask, *states]
        )
        outputs.append(probabilities[:, 0])
    return np.stack(outputs, axis=1)


def decode(method, model, source, eager=False, **kwargs):
    """Decodes `source`; compiled on JAX unless `eager`.

    On JAX an eager decode compiles each setup op separately for each new
    shape (~30 small XLA compiles, seconds on a loaded machine), one
    `jax.jit` compiles the whole decoder once, so the tests use it there;
    `test_compiled_decoder_matches_eager` checks that both agree.
    """
    options = dict(start_id=START, end_id=END, max_length=6)
    options.update(kwargs)
    if keras.backend.backend() == "jax" and not eager:
        compiled = zoo.seq2seq.compiled_decoder(model, method, **options)
        return helpers.flat_numpy(compiled(source))
    if method == "greedy":
        ids, scores = zoo.greedy_decode(model, source, **options)
    else:
        ids, scores = zoo.beam_search(model, source, **options)
    return helpers.to_numpy(ids), helpers.to_numpy(scores)


def numpy_bridge(bridge, states):
    """The `StateBridge` rules, written out in NumPy."""
    per_direction = {"lstm": 2, "gru": 1, "simple_rnn": 1}
    layers, start = [], 0
    for cell, bidirectional in zip(
        bridge.encoder_cells, bridge.encoder_bidirectional
    ):
        n = per_direction[cell]
        forward = states[start : start + n]
        backward = states[start + n : start + 2 * n] if bidirectional else None
        start += 2 * n if bidirectional else n
        layers.append((forward, backward))
    outputs = []
    for j, (cell, units) in enumerate(
        zip(bridge.decoder_cells, bridge.decoder_units)
    ):
        n = per_direction[cell]
        dense = [
            (helpers.to_numpy(d.kernel), helpers.to_numpy(d.bias))
            for d in bridge.projections[j]
        ]
        if bridge.mode == "zeros":
            outputs += [np.zeros((len(states[0]), units), "float32")] * n
            continue
        forward, backward = layers[bridge.sources[j]]
        summed = (
            None
            if backward is None
            else [f + b for f, b in zip(forward, backward)]
        )
        if bridge.mode == "copy":
            if backward is None:
                outputs += forward
            elif bridge.merge == "sum":
                outputs += summed
            else:
                outputs += [
                    np.tanh(np.concatenate([f, b], -1) @ k + c)
                    for (k, c), f, b in zip(dense, forward, backward)
                ]
            continue
        if backward is None:
            parts = forward
        elif bridge.merge == "sum":
            parts = summed
        else:
            parts = forward + backward
        x = np.concatenate(parts, -1)
        outputs += [np.tanh(x @ k + c) for k, c in dense]
    return outputs


@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize(
    "mode, merge",
    [
        ("copy", "concat+dense"),
        ("copy", "sum"),
        ("zeros", "concat+dense"),
        ("dense", "concat+dense"),
        ("dense", "sum"),
    ],
)
def test_state_bridge_matches_numpy(mode, merge, cell):
    # Encoder: a bidirectional layer under a unidirectional one.
    other = {"lstm": "gru", "gru": "lstm"}[cell]
    decoder_cells = [cell, cell] if mode == "copy" else [other] * 3
    decoder_units = [4, 4] if mode == "copy" else [3, 5, 2]
    bridge = zoo.seq2seq.StateBridge(
        mode,
        [cell, cell],
        [4, 4],
        [True, False],
        decoder_cells,
        decoder_units,
        merge=merge,
    )
    per_direction = 2 if cell == "lstm" else 1
    rng = np.random.default_rng(0)
    states = [
        rng.normal(size=(3, 4)).astype("float32")
        for _ in range(3 * per_direction)
    ]
    got = helpers.flat_numpy(bridge(states))
    want = numpy_bridge(bridge, states)
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=1e-5)
    if mode == "copy":
        assert bridge.sources == [0, 1]
        projected = merge == "concat+dense"
        assert len(bridge.weights) == (2 * per_direction if projected else 0)
    elif mode == "zeros":
        assert bridge.sources == [None] * 3 and bridge.weights == []
    else:
        assert bridge.sources == [0, 1, 1]


@pytest.mark.grid(stride=2, core_only=True)
@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize("bridge", ["copy", "zeros", "dense"])
def test_bridges_start_the_decoder_in_a_model(bridge, cell):
    attention = "general" if bridge == "zeros" else None
    model = tiny(cell, bridge=bridge, attention=attention)
    _, mask, *states = forward(model.encoder_model(), SOURCE)
    np.testing.assert_array_equal(mask, SOURCE != 0)
    per_layer = 2 if cell == "lstm" else 1
    assert [s.shape for s in states] == [(3, 4)] * (2 * per_layer)
    raw = encoder_final_states(model, SOURCE)
    if bridge == "copy":
        assert model.bridge_sources == [0, 1]
        want = raw  # no projection: the encoder's own final states
    else:
        layer = model.get_layer("seq2seq_bridge")
        want = numpy_bridge(layer, raw)
    for got, expected in zip(states, want):
        np.testing.assert_allclose(got, expected, atol=1e-5)
    if bridge == "zeros":
        assert model.bridge_sources == [None, None]
        np.testing.assert_array_equal(np.concatenate(states), 0.0)


def test_bidirectional_sum_copies_forward_plus_backward():
    model = tiny(
        "lstm", encoder={"bidirectional": True}, bidirectional_merge="sum"
    )
    assert model.encoder_output_width == 8
    _, _, *states = forward(model.encoder_model(), SOURCE)
    raw = encoder_final_states(model, SOURCE)  # per layer h_f c_f h_b c_b
    assert model.get_layer("seq2seq_bridge").weights == []
    for layer in range(2):
        f_h, f_c, b_h, b_c = raw[4 * layer : 4 * layer + 4]
        np.testing.assert_allclose(states[2 * layer], f_h + b_h, atol=1e-6)
        np.testing.assert_allclose(states[2 * layer + 1], f_c + b_c, atol=1e-6)


def test_attention_layers_take_the_keras_mask():
    # Keras fills `values_mask` from the values' mask in a functional model.
    query = keras.Input((None, 4))
    values = keras.Input((None, 3))
    masked = keras.layers.Masking(0.0)(values)
    contexts = [
        zoo.seq2seq.SourceAttention(score, name=score)(
            keras.layers.Dense(3)(query) if score == "dot" else query, masked
        )
        for score in ("dot", "general", "additive", "cosine")
    ]
    model = keras.Model([query, values], contexts)
    rng = np.random.default_rng(0)
    q = rng.normal(size=(3, 2, 4)).astype("float32")
    v = rng.normal(size=(3, 5, 3)).astype("float32")
    v[SOURCE == 0] = 0.0
    full = helpers.flat_numpy(model([q, v]))
    alone = helpers.flat_numpy(model([q[1:2], v[1:2, :3]]))
    for a, b in zip(alone, full):
        np.testing.assert_allclose(a[0], b[1], atol=1e-5)


def test_dense_bridge_feeds_the_documented_encoder_layers():
    assert zoo.seq2seq.bridge_sources("dense", 3, 2) == [1, 2]
    assert zoo.seq2seq.bridge_sources("dense", 4, 2) == [1, 3]
    assert zoo.seq2seq.bridge_sources("dense", 2, 4) == [0, 0, 1, 1]
    assert zoo.seq2seq.bridge_sources("dense", 1, 3) == [0, 0, 0]
    assert zoo.seq2seq.bridge_sources("dense", 3, 3) == [0, 1, 2]
    # GRU encoder (3 layers, widths 3, 4, 5) into an LSTM decoder (2
    # layers, widths 6 and 2): decoder layer j depends on encoder layer
    # sources[j] only.
    bridge = zoo.seq2seq.StateBridge(
        "dense", ["gru"] * 3, [3, 4, 5], [False] * 3, ["lstm"] * 2, [6, 2]
    )
    assert bridge.sources == [1, 2]
    rng = np.random.default_rng(0)
    states = [rng.normal(size=(2, w)).astype("float32") for w in (3, 4, 5)]
    base = helpers.flat_numpy(bridge(states))
    assert [s.shape for s in base] == [(2, 6), (2, 6), (2, 2), (2, 2)]
    for layer in range(3):
        moved = list(states)
        moved[layer] = moved[layer] + 1.0
        out = helpers.flat_numpy(bridge(moved))
        changed = [not np.allclose(a, b) for a, b in zip(out, base)]
        # decoder layer 0 (h, c) reads encoder layer 1; layer 1 reads 2.
        assert changed == [layer == 1] * 2 + [layer == 2] * 2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(encoder={"num_layers": 3}),
            r"same depth.*encoder with num_layers=3.*decoder with "
            r"num_layers=2",
        ),
        (
            dict(encoder={"units": 6}),
            r"as wide.*layer 0: the encoder has cell='lstm', units=6.*"
            r"the decoder has cell='lstm', units=4",
        ),
        (
            dict(decoder={"cell": "gru"}),
            r"same states.*\[h, c\].*encoder has cell='lstm'.*decoder has "
            r"cell='gru'",
        ),
        (
            dict(
                encoder={"bidirectional": True, "units": [4, 2]},
                bidirectional_merge="sum",
            ),
            r"layer 1: the encoder has cell='lstm', units=2, bidirectional "
            r"with bidirectional_merge='sum'.*decoder has cell='lstm', "
            r"units=4",
        ),
        (
            dict(encoder={"bidirectional": True}, attention="dot"),
            r"attention='dot'.*decoder units=4 and encoder output width 8",
        ),
        (
            dict(bridge="zeros"),
            r"never sees the source.*bridge='zeros', attention=None",
        ),
    ],
)
def test_wrong_combinations_raise_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tiny(**kwargs)


def test_wrong_combinations_that_are_fine_elsewhere():
    # What "copy" refuses, "dense" accepts; concat+dense projects widths.
    tiny(
        encoder={"num_layers": 3, "units": 6},
        decoder={"cell": "gru"},
        bridge="dense",
    )
    tiny(encoder={"bidirectional": True, "units": [4, 2]})
    tiny(encoder={"bidirectional": True, "units": 2}, attention="dot")


def test_bad_options_name_the_argument():
    with pytest.raises(
        ValueError,
        match=r"`encoder` got unknown.*'unit'.*"
        r"allowed: \['cell', 'units'",
    ):
        tiny(encoder={"unit": 4})
    with pytest.raises(ValueError, match="cannot be bidirectional"):
        tiny(decoder={"bidirectional": True})
    with pytest.raises(ValueError, match="unknown.*'return_state'"):
        tiny(decoder={"return_state": False})
    with pytest.raises(ValueError, match=r"In `encoder`: `cell` must be"):
        tiny(encoder={"cell": "rnn"})
    with pytest.raises(TypeError, match="`decoder` must be a dict"):
        zoo.Seq2Seq(5, 5, decoder=["lstm"])
    with pytest.raises(ValueError, match=r"`bridge` must be one of 'copy'"):
        tiny(bridge="identity")
    with pytest.raises(ValueError, match="`bidirectional_merge`.*'ave'"):
        tiny(bidirectional_merge="ave")
    with pytest.raises(ValueError, match=r"`attention`.*'luong'"):
        tiny(attention="luong")
    with pytest.raises(ValueError, match="source_vocabulary_size"):
        zoo.Seq2Seq(0, 5)
    with pytest.raises(TypeError, match="seed"):
        tiny(seed=1.5)
    with pytest.raises(ValueError, match="build_seq2seq.*'bidi'"):
        zoo.build_seq2seq(5, 5, bidi=True)
    with pytest.raises(ValueError, match="`units` sizes the additive"):
        zoo.seq2seq.SourceAttention("dot", units=3)


@pytest.mark.grid(stride=2, core_only=True)
@pytest.mark.parametrize(
    "attention", [None, "dot", "general", "additive", "cosine"]
)
def test_padding_never_changes_the_outputs(attention):
    model = tiny(
        "gru",
        encoder={"bidirectional": True, "units": 2, "num_layers": 1},
        decoder={"num_layers": 1},
        bridge="dense",
        attention=attention,
    )
    # Three more padding columns on the source; row 1 (3 source and 2
    # target steps, both padded in the batch) against itself unpadded.
    wider = np.pad(SOURCE, ((0, 0), (0, 3)))
    (padded,) = forward(model, (wider, TARGET))
    (alone,) = forward(model, (SOURCE[1:2, :3], TARGET[1:2, :2]))
    np.testing.assert_allclose(alone[0], padded[1, :2], atol=1e-5)
    assert np.isfinite(padded).all()


def test_the_cosine_score_is_bounded_by_its_sharpness():
    # general's score grows with the inputs' scale until its softmax is
    # one-hot; cosine's does not: the weights ignore the scale, and no
    # two scores differ by more than twice the sharpness.
    rng = np.random.default_rng(1)
    query = rng.normal(size=(2, 3, 4)).astype("float32")
    values = rng.normal(size=(2, 6, 5)).astype("float32")
    cosine = zoo.seq2seq.SourceAttention("cosine")
    general = zoo.seq2seq.SourceAttention("general")
    for layer in (cosine, general):
        layer(query, values)  # builds the weights
    weights = {}
    for scale in (1.0, 1000.0):
        for layer in (cosine, general):
            weights[layer.score, scale] = helpers.to_numpy(
                layer.attention_weights(query * scale, values * scale)
            )
    np.testing.assert_allclose(
        weights["cosine", 1.0], weights["cosine", 1000.0], atol=1e-5
    )
    assert weights["general", 1000.0].max(-1).min() > 0.99  # saturated
    sharpness = float(helpers.to_numpy(cosine.sharpness))
    assert sharpness == zoo.seq2seq.layers.COSINE_SHARPNESS
    logs = np.log(weights["cosine", 1000.0])
    assert (logs.max(-1) - logs.min(-1)).max() <= 2 * sharpness + 1e-3


def test_attention_weights_are_zero_on_padding():
    rng = np.random.default_rng(0)
    query = rng.normal(size=(3, 2, 4)).astype("float32")
    values = rng.normal(size=(3, 5, 4)).astype("float32")
    mask = SOURCE != 0
    values[~mask] = 1e4  # would dominate any score if it leaked in
    empty = mask.copy()
    empty[2] = False
    for score in ("dot", "general", "additive", "cosine"):
        layer = zoo.seq2seq.SourceAttention(score)
        context = helpers.to_numpy(layer(query, values, values_mask=empty))
        weights = helpers.to_numpy(
            layer.attention_weights(query, values, empty)
        )
        padding = np.broadcast_to(~empty[:, None, :], weights.shape)
        np.testing.assert_array_equal(weights[padding], 0.0)
        np.testing.assert_allclose(weights[:2].sum(-1), 1.0, atol=1e-5)
        # A source with no real step gets a zero context, not NaN.
        np.testing.assert_array_equal(context[2], 0.0)
        assert np.abs(context).max() < 100.0


@pytest.mark.parametrize(
    "config",
    [
        dict(cell="lstm"),
        dict(
            cell="gru",
            bridge="dense",
            attention="general",
            encoder={"bidirectional": True, "num_layers": 1},
        ),
        dict(
            cell="lstm",
            bridge="zeros",
            attention="additive",
            encoder={"num_layers": 1},
            decoder={"residual": True, "layer_norm": True},
        ),
        dict(
            cell="gru",
            attention="dot",
            encoder={"bidirectional": True, "merge_mode": "sum"},
            decoder={"num_layers": 2},
            bidirectional_merge="sum",
        ),
    ],
    ids=[
        "lstm-copy",
        "bigru-dense-general",
        "lstm-zeros-additive",
        "bigru-sum-dot",
    ],
)
def test_teacher_forcing_equals_step_by_step_decoding(config):
    model = tiny(**config)
    (forced,) = forward(model, (SOURCE, TARGET))
    stepped = step_by_step(model, SOURCE, TARGET)
    real = TARGET != 0
    np.testing.assert_allclose(stepped[real], forced[real], atol=1e-5)


def random_model():
    return tiny(
        "gru",
        encoder={"num_layers": 1},
        decoder={"num_layers": 1},
        attention="general",
    )


def random_sources(rows=6, steps=5, seed=0):
    rng = np.random.default_rng(seed)
    source = rng.integers(1, SOURCE_VOCABULARY, size=(rows, steps))
    for row in range(rows):
        source[row, rng.integers(1, steps + 1) :] = 0
    return source.astype("int32")


def check_well_formed(ids):
    """Tokens (never 0), then at most one end id, then padding only."""
    for row in ids:
        ended = np.flatnonzero(row == END)
        stop = ended[0] if ended.size else len(row)
        assert ended.size <= 1 and (row[stop + 1 :] == 0).all()
        assert (row[:stop] != 0).all()


def test_greedy_and_beam_search():
    model = random_model()
    source = random_sources(rows=6)
    source[4] = 0  # an empty source among real ones
    greedy_ids, greedy_scores = decode("greedy", model, source)
    assert greedy_ids.shape == (6, 6) and greedy_ids.dtype == np.int32
    # Beam search with one beam is greedy decoding.
    one_ids, one_scores = decode("beam", model, source, beam_width=1)
    np.testing.assert_array_equal(one_ids, greedy_ids)
    np.testing.assert_allclose(one_scores, greedy_scores, atol=1e-5)
    # Ranked by total log-prob, the best of 4 beams is at least as
    # probable as greedy here (not a theorem: the greedy prefix can fall
    # out of the beam), and the search did something.
    all_ids, all_scores = decode(
        "beam",
        model,
        source,
        beam_width=4,
        length_penalty=0.0,
        return_all_beams=True,
    )
    assert all_ids.shape == (6, 4, 6) and all_scores.shape == (6, 4)
    beam_ids, beam_scores = all_ids[:, 0], all_scores[:, 0]
    assert (beam_scores >= greedy_scores - 1e-5).all()
    assert (beam_ids != greedy_ids).any()
    assert (np.diff(all_scores[[0, 1, 2, 3, 5]], axis=1) <= 1e-5).all()
    # An empty source decodes to [end] with score 0; the other rows are
    # unaffected by it: their scores are their own log-probabilities.
    for ids, scores in ((greedy_ids, greedy_scores), (beam_ids, beam_scores)):
        np.testing.assert_array_equal(ids[4], [END, 0, 0, 0, 0, 0])
        assert scores[4] == 0.0
        check_well_formed(ids)
    own = helpers.to_numpy(
        zoo.seq2seq.sequence_log_prob(
            model,
            np.concatenate([source] * 2),
            np.concatenate([greedy_ids, beam_ids]),
            start_id=START,
        )
    )
    real = [0, 1, 2, 3, 5]
    np.testing.assert_allclose(
        own[real + [6 + r for r in real]],
        np.concatenate([greedy_scores[real], beam_scores[real]]),
        atol=1e-4,
    )
    # The model reads an empty source too: log p(end | nothing) < 0.
    assert np.isfinite(own).all() and own[4] < 0
    # length_penalty=1 ranks the beams by mean log-prob per token.
    ids, scores = decode(
        "beam", model, source, beam_width=3, return_all_beams=True
    )
    mean = scores / np.maximum(lengths(ids.reshape(-1, 6)).reshape(6, 3), 1)
    assert (np.diff(mean[[0, 1, 2, 3, 5]], axis=1) <= 1e-5).all()


def test_all_empty_batch_decodes_to_end():
    model = random_model()
    empty = np.zeros((2, 3), "int32")
    for method in ("greedy", "beam"):
        ids, scores = decode(method, model, empty)
        np.testing.assert_array_equal(ids[:, 0], END)
        np.testing.assert_array_equal(ids[:, 1:], 0)
        np.testing.assert_array_equal(scores, 0.0)


@pytest.mark.parametrize("method", ["greedy", "beam"])
def test_compiled_decoder_matches_eager(method):
    model = random_model()
    source = random_sources(rows=4)
    options = dict(start_id=START, end_id=END, max_length=6)
    if method == "beam":
        options.update(beam_width=3, length_penalty=0.6)
    # On TensorFlow: greedy as a graph, beam search with XLA too.
    compiled = zoo.seq2seq.compiled_decoder(
        model, method, jit_compile=method == "beam", **options
    )
    ids, scores = helpers.flat_numpy(compiled(source))
    eager_ids, eager_scores = decode(
        method, model, source, eager=True, **options
    )
    np.testing.assert_array_equal(ids, eager_ids)
    np.testing.assert_allclose(scores, eager_scores, atol=1e-5)
    # The compiled function reads the current weights, not a snapshot.
    bias = model.get_layer("seq2seq_output").bias
    bias.assign(np.where(np.arange(8) == END, 50.0, 0.0).astype("float32"))
    ids, _ = helpers.flat_numpy(compiled(source))
    np.testing.assert_array_equal(ids[:, 0], END)
    np.testing.assert_array_equal(ids[:, 1:], 0)


def test_decoder_arguments_are_checked():
    model = random_model()
    good = dict(start_id=START, end_id=END, max_length=4)
    with pytest.raises(ValueError, match=r"`start_id` must be >= 1"):
        zoo.greedy_decode(model, SOURCE, **{**good, "start_id": 0})
    with pytest.raises(ValueError, match=r"`end_id`.*< 8.*end_id=8"):
        zoo.beam_search(model, SOURCE, **{**good, "end_id": 8})
    with pytest.raises(ValueError, match="max_length"):
        zoo.greedy_decode(model, SOURCE, **{**good, "max_length": 0})
    with pytest.raises(ValueError, match="beam_width"):
        zoo.beam_search(model, SOURCE, beam_width=0, **good)
    with pytest.raises(ValueError, match="length_penalty"):
        zoo.beam_search(model, SOURCE, length_penalty=-1.0, **good)
    with pytest.raises(ValueError, match="`method`.*'sample'"):
        zoo.seq2seq.compiled_decoder(model, "sample", **good)
    with pytest.raises(TypeError, match="zoo.Seq2Seq"):
        zoo.greedy_decode(keras.Sequential(), SOURCE, **good)
    with pytest.raises(ValueError, match=r"\(batch, steps\)"):
        zoo.greedy_decode(model, SOURCE[0], **good)


def test_saves_and_reloads_with_safe_mode(tmp_path):
    model = tiny(
        "lstm",
        encoder={"bidirectional": True, "num_layers": 1},
        decoder={"residual": True, "layer_norm": True},
        bridge="dense",
        attention="additive",
        seed=7,
    )
    reloaded = helpers.check_saves_and_reloads(
        model, (SOURCE, TARGET), tmp_path, atol=1e-5
    )
    assert type(reloaded) is zoo.Seq2Seq
    assert reloaded.get_config() == model.get_config()
    encoder = helpers.check_saves_and_reloads(
        model.encoder_model(), SOURCE, tmp_path, atol=1e-5
    )
    # Keras refuses a list that mixes NumPy arrays and tensors.
    step_inputs = [tensor(TARGET[:, :1]), *encoder(SOURCE)]
    helpers.check_saves_and_reloads(
        model.decoder_step_model(), step_inputs, tmp_path, atol=1e-5
    )


def test_step_model_without_attention_saves_and_reloads(tmp_path):
    # Its encoder-output and mask inputs are accepted and unused.
    model = tiny("gru", decoder={"num_layers": 1}, bridge="dense")
    step = model.decoder_step_model()
    assert len(step.inputs) == 4
    inputs = [tensor(TARGET[:, :1]), *model.encoder_model()(SOURCE)]
    helpers.check_saves_and_reloads(step, inputs, tmp_path, atol=1e-5)


def test_config_round_trips():
    model = tiny(
        "gru",
        encoder={"bidirectional": True, "units": [4, 4], "dropout": 0.1},
        decoder={"units": [4, 4], "inter_layer_dropout": 0.2},
        bridge="copy",
        bidirectional_merge="concat+dense",
        attention="general",
        seed=3,
        name="g2p",
    )
    config = model.get_config()
    assert config == json.loads(json.dumps(config))
    rebuilt = helpers.check_config_round_trip(model)
    assert rebuilt.name == "g2p"
    assert rebuilt.get_layer("g2p_decoder").num_layers == 2
    assert rebuilt.count_params() == model.count_params()
    for name in (
        "PaddingMask",
        "ApplyMask",
        "SourceAttention",
        "StateBridge",
        "Seq2Seq",
    ):
        cls = getattr(zoo.seq2seq, name)
        assert keras.saving.get_registered_name(cls) == f"zoo>{name}"


def test_param_init_draws_every_weight_but_the_chosen_ones():
    options = dict(
        encoder={"bidirectional": True, "layer_norm": True, "highway": True},
        decoder={"layer_norm": True},
        attention="cosine",
    )
    model = tiny(**options, param_init=0.25, seed=5)
    default = {w.path: w for w in tiny(**options).weights}
    kept = ("gamma", "beta", "sharpness", "gate/bias")
    for weight in model.weights:
        values = keras.ops.convert_to_numpy(weight)
        if weight.path.endswith(kept):
            np.testing.assert_array_equal(
                values,
                keras.ops.convert_to_numpy(default[weight.path]),
                err_msg=weight.path,
            )
            continue
        assert np.abs(values).max() <= 0.25, weight.path
        # A draw, not Keras's start (zero biases, a constant forget bias):
        # no two values alike.
        assert np.unique(values).size == values.size, weight.path
    again = tiny(**options, param_init=0.25, seed=5)
    for a, b in zip(model.weights, again.weights):
        np.testing.assert_array_equal(
            keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b)
        )
    assert helpers.check_config_round_trip(model).param_init == 0.25


@pytest.mark.parametrize("value", [0, -0.1, float("nan"), "0.1", True])
def test_param_init_refuses_what_is_not_a_positive_number(value):
    with pytest.raises((ValueError, TypeError), match=r"param_init"):
        tiny(param_init=value)


def test_dropout_acts_only_in_training():
    model = tiny(
        "lstm",
        encoder={"dropout": 0.3, "inter_layer_dropout": 0.3},
        decoder={"recurrent_dropout": 0.3, "inter_layer_dropout": 0.3},
        attention="dot",
        seed=1,
    )
    first, second, off, again = (
        helpers.to_numpy(model((SOURCE, TARGET), training=training))
        for training in (True, True, False, False)
    )
    assert np.isfinite(first).all() and not np.allclose(first, second)
    np.testing.assert_array_equal(off, again)
    assert not np.allclose(first, off)


def test_build_seq2seq_shares_options_between_stacks():
    model = zoo.build_seq2seq(
        9,
        8,
        "gru",
        2,
        4,
        bidirectional=True,
        embedding_dim=4,
        dropout=0.1,
        decoder={"num_layers": 1},
        bridge="dense",
    )
    config = model.get_config()
    assert config["encoder"] == dict(
        cell="gru", num_layers=2, units=4, dropout=0.1, bidirectional=True
    )
    assert config["decoder"] == dict(
        cell="gru", num_layers=1, units=4, dropout=0.1
    )
    assert model.bridge_sources == [1]
    assert model.attention is None and model.bridge == "dense"


def test_shift_targets():
    inputs, targets = zoo.seq2seq.shift_targets(
        [[5, 6], [7], []], start_id=START, end_id=END
    )
    np.testing.assert_array_equal(inputs, [[2, 5, 6], [2, 7, 0], [2, 0, 0]])
    np.testing.assert_array_equal(targets, [[5, 6, 3], [7, 3, 0], [3, 0, 0]])
    padded = np.array([[5, 6, 0], [7, 0, 0]])
    again, _ = zoo.seq2seq.shift_targets(padded, start_id=START, end_id=END)
    np.testing.assert_array_equal(again, inputs[:2])
    with pytest.raises(ValueError, match="start_id"):
        zoo.seq2seq.shift_targets([[5]], start_id=0, end_id=END)


def reversal_data(rng, count):
    """Sequences of 2-4 symbols (ids 4-7) and their reversals."""
    sources = np.zeros((count, 4), "int32")
    reversed_rows = []
    for row in range(count):
        symbols = rng.integers(4, 8, size=rng.integers(2, 5))
        sources[row, : len(symbols)] = symbols
        reversed_rows.append(symbols[::-1])
    inputs, targets = zoo.seq2seq.shift_targets(
        reversed_rows, start_id=START, end_id=END
    )
    return sources, inputs, targets


def test_learns_to_reverse_short_sequences():
    rng = np.random.default_rng(0)
    model = zoo.build_seq2seq(
        8,
        8,
        "gru",
        1,
        32,
        bidirectional=True,
        encoder={"units": 16},
        embedding_dim=16,
        bridge="dense",
        attention="additive",
        seed=0,
    )
    model.compile(
        optimizer=keras.optimizers.Adam(0.02),
        loss="sparse_categorical_crossentropy",
        weighted_metrics=[],
    )
    before = {w.path: helpers.to_numpy(w).copy() for w in model.weights}
    sources, inputs, targets = reversal_data(rng, 2048)
    model.fit(
        (sources, inputs),
        targets,
        sample_weight=(targets != 0).astype("float32"),
        batch_size=64,
        epochs=4,  # 128 steps
        verbose=0,
    )
    # Adam moves every weight that gets any gradient: the bridge, the
    # attention scorer and the Luong output layer included.
    unchanged = [
        w.path
        for w in model.weights
        if np.array_equal(helpers.to_numpy(w), before[w.path])
    ]
    assert unchanged == []
    sources, _, targets = reversal_data(rng, 64)
    expected = np.pad(targets, ((0, 0), (0, 6 - targets.shape[1])))
    for method in ("greedy", "beam"):
        ids, _ = decode(method, model, sources)
        np.testing.assert_array_equal(ids, expected)


@pytest.mark.tf_tier  # 20-90 s; every backend in make test-all
def test_the_docs_training_example_runs_and_learns(capsys):
    import pathlib
    import re

    text = (
        pathlib.Path(__file__).parent.parent / "docs" / "seq2seq.md"
    ).read_text()
    block = re.search(
        r"## Training one in your own code.*?```python\n(.*?)```", text, re.S
    )
    assert block, "no training example in docs/seq2seq.md"
    namespace = {}
    exec(compile(block.group(1), "docs/seq2seq.md", "exec"), namespace)
    assert namespace["exact"] >= 0.8
    assert "reversed exactly:" in capsys.readouterr().out
