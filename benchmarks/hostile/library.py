"""The library's attempts: builders, layers, heads, decoding and saving
called with bad arguments and bad data, and the results that could be
wrong without a word (padded against unpadded, NumPy reference, saved
and reloaded), on the backend this process runs (see
`benchmarks.hostile`).

The option attempts come from `zoo.options.ALL_OPTIONS`, the one list of
options: every option gets the values its declaration refuses, so an
option added later is attacked too.
"""

import math
import os
import re
import tempfile

import keras
import numpy as np

import zoo
from benchmarks.hostile import attempts as a
from zoo.layers.crf import CRF

GROUP = "library"
BAD_IDS = np.array([[1, 2, 99], [3, 0, 0]], "int32")
GOOD_IDS = BAD_IDS % 10


def add(name, promise, check, backends=a.BACKENDS):
    a.add(GROUP, name, promise, check, backends)


def to_numpy(value):
    return keras.ops.convert_to_numpy(value)


def backbone(**options):
    options.setdefault("embedding_dim", 3)
    return zoo.stacked_rnn(
        options.pop("cell", "lstm"),
        options.pop("num_layers", 1),
        options.pop("units", 4),
        vocabulary_size=options.pop("vocabulary_size", 10),
        **options,
    )


def seq2seq():
    return zoo.Seq2Seq(
        10,
        8,
        embedding_dim=4,
        encoder={"cell": "gru", "num_layers": 1, "units": 4},
        decoder={"cell": "gru", "num_layers": 1, "units": 4},
    )


# --- Every option, with the values its declaration refuses -------------


def _bad_values(option):
    """`(label, value)` pairs that `option` must refuse."""
    if option.keras_object is not None:
        return [("unknown name", "no_such_thing"), ("a number", 3)]
    if option.type is bool:
        return [("a string", "yes"), ("an int", 2)]
    if option.type is str:
        return [("an unknown choice", "nope"), ("a number", 3)]
    bad = []
    if option.low is not None:
        low = option.low
        below = low if not option.low_inclusive else (
            low - 1 if option.type is int else low - 0.1
        )  # fmt: skip
        bad.append(("below the range", below))
    if option.high is not None:
        high = option.high
        above = high if not option.high_inclusive else high + 1
        bad.append(("above the range", above))
    if option.type is float:
        bad += [("NaN", math.nan), ("a string", "0.1")]
    if option.type is int:
        bad += [("a float", 2.5), ("a string", "2")]
    if option.choices is not None:
        bad.append(("an unknown choice", "nope"))
    return bad


def _build_with(option, value):
    """Builds the smallest stack that reads `option` = `value`."""
    name = option.name
    kwargs = {"input_dim": 3} if name not in _TOKEN_OPTIONS else {}
    if name in _TOKEN_OPTIONS:
        kwargs["vocabulary_size"] = 10
    if name.startswith("char_") or name == "max_chars":
        kwargs["char_vocabulary_size"] = 20
    cell = "gru" if name == "reset_after" else "lstm"
    if name == "cell":
        return zoo.stacked_rnn(value, 1, 4, input_dim=3)
    if name == "units":
        return zoo.stacked_rnn(cell, 1, value, input_dim=3)
    if name == "num_layers":
        return zoo.stacked_rnn(cell, value, 4, input_dim=3)
    if name == "merge_mode":
        kwargs["bidirectional"] = True
    if name == "max_chars":
        return zoo.layers.CharacterVocabulary(["a", "b"], max_chars=value)
    kwargs[name] = value
    if name == "mask_value":
        kwargs.pop("vocabulary_size", None)
        kwargs["input_dim"] = 3
    return zoo.stacked_rnn(cell, 1, 4, **kwargs)


_TOKEN_OPTIONS = {
    "vocabulary_size",
    "embedding_dim",
    "embedding_dropout",
    "mask_zero",
    "char_vocabulary_size",
    "char_embedding_dim",
    "char_units",
    "char_kind",
}


def _option_attempt(option, label, value):
    def check():
        a.refused(lambda: _build_with(option, value), option.name)

    add(
        f"option {option.name} = {label} ({value!r})",
        f"`{option.name}={value!r}` is refused naming `{option.name}`",
        check,
    )


for _option in zoo.options.ALL_OPTIONS:
    if _option.name in ("mask_value",):  # any float is a mask value
        continue
    for _label, _value in _bad_values(_option):
        _option_attempt(_option, _label, _value)


def _per_layer_length():
    a.refused(
        lambda: zoo.stacked_rnn("lstm", 2, [4, 4, 4], input_dim=3),
        "units",
    )


add("per-layer list of the wrong length", "named", _per_layer_length)


def _per_layer_entry():
    a.refused(
        lambda: zoo.stacked_rnn("lstm", 2, 4, input_dim=3, dropout=[0.1, 1.5]),
        "dropout",
        "1.5",
    )


add("per-layer entry out of range", "named", _per_layer_entry)
add(
    "mask_value with a vocabulary",
    "refused: a token model masks id 0",
    lambda: a.refused(
        lambda: zoo.stacked_lstm(1, 4, vocabulary_size=10, mask_value=0.0),
        "mask_value",
    ),
)
add(
    "neither input_dim nor vocabulary_size",
    "refused naming both",
    lambda: a.refused(
        lambda: zoo.stacked_lstm(1, 4), "input_dim", "vocabulary_size"
    ),
)
add(
    "both input_dim and vocabulary_size",
    "refused naming both",
    lambda: a.refused(
        lambda: zoo.stacked_lstm(1, 4, input_dim=3, vocabulary_size=10),
        "input_dim",
        "vocabulary_size",
    ),
)
add(
    "create_model with an unknown name",
    "refused listing the known names",
    lambda: a.refused(lambda: zoo.create_model("lstm_hugee"), "lstm_base"),
)
add(
    "create_model with a bad override",
    "refused naming the option",
    lambda: a.refused(
        lambda: zoo.create_model("lstm_tiny", dropout=2.0), "dropout"
    ),
)
add(
    "count_params with units 0",
    "refused naming units",
    lambda: a.refused(lambda: zoo.count_params("lstm", 3, 0), "units"),
)
add(
    "width_for_budget below the smallest stack",
    "refused naming budget",
    lambda: a.refused(lambda: zoo.width_for_budget("lstm", 3, 2, 5), "budget"),
)
add(
    "width_for_budget of a negative budget",
    "refused naming budget",
    lambda: a.refused(
        lambda: zoo.width_for_budget("lstm", 3, 2, -100), "budget"
    ),
)


# --- Token ids ---------------------------------------------------------

for _bad, _where in ((99, "above"), (-1, "negative"), (10, "equal to size")):

    def _eager(bad=_bad):
        ids = np.array([[1, 2, bad]], "int32")
        a.refused(lambda: backbone()(ids), "inputs", str(bad), "[0, 10)")

    add(
        f"token id {_where} in an eager call",
        "ValueError naming inputs, the id and [0, 10)",
        _eager,
    )

    def _predict(bad=_bad):
        model = backbone()
        model.predict(GOOD_IDS, verbose=0)
        ids = np.array([[1, 2, bad]], "int32")
        a.refused(
            lambda: model.predict(ids, verbose=0),
            re.compile(rf"\[0, 10\).*{bad}|{bad}.*\[0, 10\)", re.S),
            any_type=True,
        )

    add(
        f"token id {_where} in predict (a traced step)",
        "an error naming the id and the range, never NaN rows",
        _predict,
    )


def _fit_bad_id():
    model = keras.Sequential([backbone(), keras.layers.Dense(3)])
    model.compile(
        "sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    )
    a.refused(
        lambda: model.fit(BAD_IDS, np.zeros((2, 3)), verbose=0),
        re.compile(r"(?s)\[0, 10\).*99|99.*\[0, 10\)"),
        any_type=True,
    )


add("token id 99 in fit", "an error naming 99 and [0, 10)", _fit_bad_id)


def _float_ids():
    model = backbone()
    out = to_numpy(model(np.array([[1.0, 2.0, 3.0]], "float32")))
    a.expect(np.isfinite(out).all(), "silently wrong", "NaN from float ids")


add("whole-number float ids", "read as ids, finite outputs", _float_ids)
add(
    "inference_function with id 99",
    "ValueError naming inputs",
    lambda: a.refused(
        lambda: zoo.inference_function(backbone())(BAD_IDS), "inputs", "99"
    ),
)
add(
    "Seq2Seq source id 99",
    "ValueError naming 99 and [0, 10)",
    lambda: a.refused(
        lambda: seq2seq()((BAD_IDS, np.array([[2, 3, 4], [2, 3, 0]]))),
        "99",
        "[0, 10)",
    ),
)
add(
    "Seq2Seq target id 8 of 8",
    "ValueError naming target_ids",
    lambda: a.refused(
        lambda: zoo.seq2seq.sequence_log_prob(
            seq2seq(), GOOD_IDS, np.array([[2, 8, 3]]), start_id=2
        ),
        "target_ids",
    ),
)
_DECODE = dict(start_id=2, end_id=3, max_length=4)
add(
    "greedy_decode with source id 99",
    "ValueError naming source_ids",
    lambda: a.refused(
        lambda: zoo.greedy_decode(seq2seq(), BAD_IDS, **_DECODE),
        "source_ids",
    ),
)
for _key, _value in (
    ("start_id", 8),
    ("end_id", -1),
    ("max_length", 0),
    ("beam_width", 0),
    ("length_penalty", math.inf),
    ("length_penalty", math.nan),
    ("length_penalty", -1.0),
):

    def _beam(key=_key, value=_value):
        options = {**_DECODE, "beam_width": 2, key: value}
        a.refused(lambda: zoo.beam_search(seq2seq(), GOOD_IDS, **options), key)

    add(
        f"beam_search {_key}={_value!r}",
        f"refused naming {_key}",
        _beam,
    )


def _greedy_equals_beam_of_one():
    model = seq2seq()
    greedy, _ = zoo.greedy_decode(model, GOOD_IDS, **_DECODE)
    beam, _ = zoo.beam_search(
        model, GOOD_IDS, beam_width=1, length_penalty=0.0, **_DECODE
    )
    a.expect(
        np.array_equal(to_numpy(greedy), to_numpy(beam)),
        "silently wrong",
        f"greedy {to_numpy(greedy).tolist()} != beam-1 "
        f"{to_numpy(beam).tolist()}",
    )


add(
    "greedy decoding equals a beam of width 1",
    "the same sequences",
    _greedy_equals_beam_of_one,
)


# --- CRF ---------------------------------------------------------------

_EMISSIONS = np.random.default_rng(0).normal(size=(1, 3, 3)).astype("float32")


def _crf():
    crf = CRF(3)
    crf.build(_EMISSIONS.shape)
    return crf


for _tag in (-1, 3, 7):
    add(
        f"CRF tag {_tag} of 3 in log_likelihood",
        "ValueError naming tags",
        lambda tag=_tag: a.refused(
            lambda: _crf().log_likelihood(
                _EMISSIONS, np.array([[0, 1, tag]], "int32")
            ),
            "tags",
            str(tag),
        ),
    )


def _crf_fit(tag=7):
    tokens = keras.Input((None,), dtype="int32")
    emissions = keras.layers.Dense(3)(
        keras.layers.Embedding(4, 4, mask_zero=True)(tokens)
    )
    crf = CRF(3)
    model = keras.Model(tokens, crf(emissions))
    model.compile("sgd", loss=crf.loss)
    ids = np.array([[1, 1, 1], [1, 1, 0]], "int32")
    model.fit(ids, np.array([[0, 1, 2], [1, 2, 0]], "int32"), verbose=0)
    a.refused(
        lambda: model.fit(
            ids, np.array([[0, 1, tag], [1, 2, 0]], "int32"), verbose=0
        ),
        re.compile(rf"(?s)\[0, 3\).*{tag}|{tag}.*\[0, 3\)"),
        any_type=True,
    )


add("CRF tag 7 of 3 in fit", "an error naming 7 and [0, 3)", _crf_fit)
add(
    "CRF tag -1 of 3 in fit",
    "an error naming -1 and [0, 3)",
    lambda: _crf_fit(-1),
)


def _crf_masked_tag():
    out = to_numpy(
        _crf().log_likelihood(
            _EMISSIONS,
            np.array([[0, 1, 7]], "int32"),
            np.array([[True, True, False]]),
        )
    )
    a.expect(np.isfinite(out).all(), "silently wrong", f"got {out}")


add("CRF tag out of range at a masked step", "ignored", _crf_masked_tag)
add(
    "CRF num_tags 0",
    "refused naming num_tags",
    lambda: a.refused(lambda: CRF(0), "num_tags"),
)
add(
    "CRF emissions of another width than num_tags",
    "refused naming the widths",
    lambda: a.refused(lambda: CRF(3)(np.zeros((1, 3, 5), "float32")), "3", "5"),
)


# --- Shapes ------------------------------------------------------------

for _cell in ("lstm", "gru", "simple_rnn"):
    add(
        f"{_cell}: empty time axis",
        "named",
        lambda cell=_cell: a.refused(
            lambda: zoo.stacked_rnn(cell, 1, 4, input_dim=3)(
                np.zeros((2, 0, 3), "float32")
            ),
            re.compile("time|timesteps|steps"),
        ),
    )
    add(
        f"{_cell}: mask of the wrong shape",
        "named",
        lambda cell=_cell: a.refused(
            lambda: zoo.layers.StackedRNN(cell=cell, units=4, num_layers=1)(
                np.zeros((2, 5, 3), "float32"), mask=np.ones((2, 4), bool)
            ),
            "mask",
        ),
    )
add(
    "2-D float input to a stack of input_dim 3",
    "refused naming the shape",
    lambda: a.refused(
        lambda: zoo.stacked_lstm(1, 4, input_dim=3)(
            np.zeros((2, 3), "float32")
        ),
        re.compile("shape|ndim|dimension|rank", re.I),
    ),
)
add(
    "features of another width than input_dim",
    "refused naming the widths",
    lambda: a.refused(
        lambda: zoo.stacked_lstm(1, 4, input_dim=3)(
            np.zeros((2, 5, 5), "float32")
        ),
        "3",
        "5",
    ),
)


# --- Heads and small layers -------------------------------------------

add(
    "classifier with duplicate labels",
    "refused naming labels",
    lambda: a.refused(
        lambda: zoo.tasks.TextClassifierPreprocessor(
            zoo.layers.TokenVocabulary(["the"]), ["a", "a"]
        ),
        "labels",
    ),
)
add(
    "classifier whose preprocessor is a vocabulary",
    "refused naming preprocessor",
    lambda: a.refused(
        lambda: zoo.tasks.TextClassifier(
            backbone(), zoo.layers.TokenVocabulary(["the"])
        ),
        "preprocessor",
    ),
)
add(
    "classifier with 0 classes",
    "refused naming num_classes",
    lambda: a.refused(
        lambda: zoo.heads.sequence_classifier(backbone(), 0), "num_classes"
    ),
)
add(
    "classifier pooling 'median'",
    "refused naming pooling",
    lambda: a.refused(
        lambda: zoo.heads.sequence_classifier(backbone(), 2, pooling="median"),
        "pooling",
    ),
)
add(
    "classifier dropout 1.5",
    "refused naming dropout",
    lambda: a.refused(
        lambda: zoo.heads.sequence_classifier(backbone(), 2, dropout=1.5),
        "dropout",
    ),
)
add(
    "tagger head 'hmm'",
    "refused naming head",
    lambda: a.refused(
        lambda: zoo.heads.sequence_tagger(backbone(), 3, head="hmm"), "head"
    ),
)
add(
    "tagger with 0 tags",
    "refused naming num_tags",
    lambda: a.refused(
        lambda: zoo.heads.sequence_tagger(backbone(), 0), "num_tags"
    ),
)
add(
    "LabelNames empty",
    "refused naming labels",
    lambda: a.refused(lambda: zoo.layers.LabelNames([]), "labels"),
)
add(
    "TokenVocabulary of no tokens",
    "refused naming tokens",
    lambda: a.refused(lambda: zoo.layers.TokenVocabulary([]), "tokens"),
)
add(
    "SequencePooling mode 'median'",
    "refused naming mode",
    lambda: a.refused(lambda: zoo.layers.SequencePooling("median"), "mode"),
)
add(
    "VariationalDropout rate 1.0",
    "refused naming rate",
    lambda: a.refused(lambda: zoo.layers.VariationalDropout(1.0), "rate"),
)
add(
    "ScalarMix given 3 weights for 2 layers",
    "refused naming the counts",
    lambda: a.refused(
        lambda: zoo.layers.ScalarMix([0.0, 0.0, 0.0])(
            [np.zeros((1, 2, 3), "float32")] * 2
        ),
        "3",
        "2",
    ),
)
add(
    "ScalarMix of layers of different shapes",
    "refused naming the shapes",
    lambda: a.refused(
        lambda: zoo.layers.ScalarMix()(
            [np.zeros((1, 2, 3), "float32"), np.zeros((1, 2, 4), "float32")]
        ),
        re.compile("shape", re.I),
    ),
)
add(
    "CharacterEncoder kind 'rnnn'",
    "refused naming kind",
    lambda: a.refused(
        lambda: zoo.layers.CharacterEncoder(20, kind="rnnn"), "kind"
    ),
)


# --- Results that could be wrong without a word ------------------------

_RNG = np.random.default_rng(0)
_FEATURES = _RNG.normal(size=(3, 6, 3)).astype("float32")
_LENGTHS = (6, 4, 2)
_VARIANTS = {
    "lstm": {},
    "gru": {"cell": "gru"},
    "simple_rnn": {"cell": "simple_rnn"},
    "bidirectional lstm": {"bidirectional": True},
    "bidirectional gru sum": {"cell": "gru", "bidirectional": True,
                              "merge_mode": "sum"},
    "3 layers residual": {"num_layers": 3, "residual": True},
    "highway": {"num_layers": 2, "highway": True},
    "layer norm": {"num_layers": 2, "layer_norm": True},
    "per-layer widths": {"num_layers": 3, "units": [6, 4, 5]},
    "output all": {"num_layers": 2, "output": "all"},
    "gru reset_after False": {"cell": "gru", "reset_after": False},
}  # fmt: skip


def _stack(options):
    options = dict(options)
    return zoo.stacked_rnn(
        options.pop("cell", "lstm"),
        options.pop("num_layers", 2),
        options.pop("units", 4),
        input_dim=3,
        seed=1,
        **options,
    )


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [to_numpy(value)]


for _label, _options in _VARIANTS.items():

    def _padding(options=_options):
        model = _stack(options)
        real = np.arange(6)[None] < np.array(_LENGTHS)[:, None]
        padded = _flat(model(_FEATURES, mask=real))
        for row, length in enumerate(_LENGTHS):
            alone = _flat(model(_FEATURES[row : row + 1, :length]))
            for got, want in zip(padded, alone, strict=True):
                got = got[row, :length] if got.ndim == 3 else got[row]
                if not np.allclose(got, want[0], atol=1e-5):
                    raise a.Broken(
                        "silently wrong",
                        f"row {row} (length {length}) differs by "
                        f"{np.abs(got - want[0]).max():.2g}",
                    )

    add(
        f"padded equals unpadded: {_label}",
        "each row of a padded, masked batch equals the row alone",
        _padding,
    )

    def _reference(options=_options):
        model = _stack(options)
        if options.get("output") == "all":
            return
        want = zoo.reference.forward(model, _FEATURES)["output"]
        got = to_numpy(model(_FEATURES))
        a.expect(
            np.allclose(got, want, atol=1e-4),
            "silently wrong",
            "differs from the NumPy reference by "
            f"{np.abs(got - want).max():.2g}",
        )

    if "norm" not in _label and "highway" not in _label:
        add(
            f"NumPy reference agrees: {_label}",
            "the layer's output equals zoo.reference.forward's",
            _reference,
        )

    def _reload(options=_options):
        model = _stack(options)
        want = _flat(model(_FEATURES))
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "model.keras")
        model.save(path)
        loaded = keras.saving.load_model(path, safe_mode=True)
        got = _flat(loaded(_FEATURES))
        for g, w in zip(got, want, strict=True):
            a.expect(
                np.allclose(g, w, atol=1e-6),
                "silently wrong",
                f"reloaded output differs by {np.abs(g - w).max():.2g}",
            )

    add(
        f"save and reload (safe_mode): {_label}",
        "the reloaded model gives the same outputs",
        _reload,
    )


def _count_params():
    for options in _VARIANTS.values():
        options = dict(options)
        model = _stack(options)
        cell = options.pop("cell", "lstm")
        counted = zoo.count_params(
            cell,
            3,
            options.pop("units", 4),
            num_layers=options.pop("num_layers", 2),
            **options,
        )
        a.expect(
            counted == model.count_params(),
            "silently wrong",
            f"{options}: count_params {counted} != {model.count_params()}",
        )


add("count_params equals Keras's count", "for every variant", _count_params)


def _tampered_config():
    config = keras.saving.serialize_keras_object(_stack({}))
    text = repr(config).replace("'units': 4", "'units': -4")
    config = eval(text)  # noqa: S307 - our own repr of plain values
    a.refused(lambda: keras.saving.deserialize_keras_object(config), "units")


add(
    "a saved config with units -4",
    "refused naming units when deserialised",
    _tampered_config,
)
