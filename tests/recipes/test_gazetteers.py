"""Token features: word shape and gazetteer matches
(`zoo.layers.TokenFeatures`, `zoo.stacked_rnn(token_features=...)`), the
tagger's `--gazetteer` and `--word-shape`, and `recipes.data.gazetteers`
(a user's file; the shipped lists' cache on sources faked here)."""

import dataclasses
import types

import keras
import numpy as np
import pytest

import harness
import zoo
from recipes import tagging
from recipes.data import gazetteers
from recipes.data.errors import DataError
from tests.recipes import test_tagging

NAMES = {"location": ["New York", "York", "#Paris"], "person": ["John"]}


def columns(layer, name):
    return layer.feature_names.index(name)


def test_every_matching_span_is_marked_b_then_i():
    """Nested spans both count (`New York` and `York`); case, `#` and `@`
    do not matter; a word alone matches only a one-word name."""
    layer = zoo.layers.TokenFeatures(NAMES, shape=False)
    assert layer.feature_names == [
        "B-location", "I-location", "B-person", "I-person"
    ]  # fmt: skip
    out = layer.features(["i", "love", "NEW", "york", "and", "@john", "new"])
    np.testing.assert_array_equal(
        out,
        [
            [0, 0, 0, 0],
            [0, 0, 0, 0],
            [1, 0, 0, 0],  # new york
            [1, 1, 0, 0],  # ... york, and york alone
            [0, 0, 0, 0],
            [0, 0, 1, 0],  # @john
            [0, 0, 0, 0],  # "new" alone is no name
        ],
    )
    assert layer.features(["paris"])[0, 0] == 1  # "#Paris" listed


def test_word_shapes_read_the_word_as_written():
    layer = zoo.layers.TokenFeatures(shape=True)
    assert layer.num_features == len(zoo.layers.token_features.SHAPES)
    rows = layer.features(["Obama", "NASA", "lol", "2016", "@bob", "#tbt",
                           "https://t.co/x", "!!"])  # fmt: skip
    on = [{layer.feature_names[k] for k in np.flatnonzero(row)} for row in rows]
    assert on[0] == {"capitalised"}
    assert on[1] == {"capitalised", "all_capitals"}
    assert on[2] == {"lower"}
    assert on[3] == {"number", "has_digit"}
    assert "mention" in on[4] and "hashtag" in on[5]
    assert "address" in on[6] and on[7] == {"punctuation"}


def test_encode_pads_and_the_config_round_trips():
    layer = zoo.layers.TokenFeatures(NAMES, name="token_features")
    out = layer.encode([["New", "York"], ["John"]], width=4)
    assert out.shape == (2, 4, layer.num_features) and out.dtype == "float32"
    assert not out[1, 1:].any() and not out[0, 2:].any()
    again = zoo.layers.TokenFeatures.from_config(layer.get_config())
    np.testing.assert_array_equal(
        again.encode([["New", "York"], ["John"]], width=4), out
    )


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        (dict(gazetteer=["a"]), TypeError, "must be a dict"),
        (dict(gazetteer={"x": "Paris"}), TypeError, r"gazetteer\['x'\]"),
        (dict(gazetteer={"x": [" "]}), ValueError, "non-empty strings"),
        (dict(gazetteer={"": ["a"]}), ValueError, "types must be"),
        (dict(gazetteer={"x": []}), ValueError, "is empty"),
        (dict(gazetteer={}, shape=False), ValueError, "has no feature"),
        (dict(shape="yes"), TypeError, "`shape` must be True or False"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, error, message):
    with pytest.raises(error, match=message):
        zoo.layers.TokenFeatures(**kwargs)


def test_the_builder_and_head_take_the_features_as_one_more_input():
    layer = zoo.layers.TokenFeatures(NAMES, name="token_features")
    backbone = zoo.stacked_rnn(
        "lstm", 1, 4, vocabulary_size=6, token_features=layer.num_features
    )
    assert [i.shape[-1] for i in backbone.inputs] == [None, layer.num_features]
    with pytest.raises(ValueError, match="`token_features` join"):
        zoo.stacked_rnn("lstm", 1, 4, input_dim=3, token_features=2)
    with pytest.raises(ValueError, match="positive integer|>= 1|token_feat"):
        zoo.stacked_rnn("lstm", 1, 4, vocabulary_size=6, token_features=0)
    narrow = zoo.stacked_rnn("lstm", 1, 4, vocabulary_size=6, token_features=2)
    vocabulary = zoo.layers.TokenVocabulary(["dog"])
    preprocessor = zoo.tasks.TaggerPreprocessor(
        vocabulary, ["", "a", "b"], token_features=layer
    )
    with pytest.raises(ValueError, match="gives 13 features a token"):
        zoo.tasks.Tagger(narrow, preprocessor)
    plain = zoo.stacked_rnn("lstm", 1, 4, vocabulary_size=6)
    with pytest.raises(ValueError, match="with `token_features`, float"):
        zoo.tasks.Tagger(plain, preprocessor)


def write_gazetteer(path, lines=("animal\tdog", "animal\tbig cat")):
    path.write_text("# animals\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.every_backend
def test_a_tagger_reads_the_features_and_reloads_with_them(tmp_path):
    """`--gazetteer FILE --word-shape`: the saved tagger keeps its lists,
    reloads with `safe_mode`, computes the features of new text itself
    (same outputs as the model called on the recipe's own encoding), and
    tags a padded batch as it tags each sentence alone."""
    path = write_gazetteer(tmp_path / "names.tsv")
    config = test_tagging.tiny_config(
        tmp_path, gazetteer=str(path), word_shape=True, char_features=True
    )
    metrics = tagging.run(config)
    assert metrics["test_accuracy"] > 0.5
    assert "B-animal" in metrics["token_features"]
    assert "capitalised" in metrics["token_features"]
    tagger = keras.saving.load_model(
        tmp_path / "out" / "model.keras", safe_mode=True
    )
    layer = tagger.token_features
    assert layer.gazetteer == {"animal": ["big cat", "dog"]} and layer.shape
    inputs = tagger.encode([["the", "big", "cat", "runs"]])
    assert len(inputs) == 3  # ids, characters, features
    marked = inputs[2][0, :, columns(layer, "B-animal")]
    np.testing.assert_array_equal(marked, [0, 1, 0, 0])
    np.testing.assert_allclose(
        tagger.infer(inputs),
        keras.ops.convert_to_numpy(tagger(list(inputs), training=False)),
        atol=1e-5,
    )
    alone = tagger.infer(tagger.encode([["the", "dog", "runs"]]))
    both = tagger.infer(
        tagger.encode(
            [["the", "dog", "runs"], ["the", "big", "red", "dog", "a", "cat"]]
        )
    )
    np.testing.assert_allclose(both[0, :3], alone[0], atol=1e-5)


def test_padding_stays_masked_with_token_features():
    """The features input has no mask of its own: the backbone masks its
    all-zero padding, so a bidirectional stack gives a sentence the same
    outputs alone and in a longer batch (Keras's path and the engine's)."""
    layer = zoo.layers.TokenFeatures(NAMES, name="token_features")
    backbone = zoo.stacked_rnn(
        "lstm", 1, 4, vocabulary_size=6, bidirectional=True, seed=1,
        token_features=layer.num_features,
    )  # fmt: skip
    vocabulary = zoo.layers.TokenVocabulary(
        ["new", "york", "is", "big"], name="vocabulary"
    )
    preprocessor = zoo.tasks.TaggerPreprocessor(
        vocabulary, ["", "a", "b"], token_features=layer
    )
    tagger = zoo.tasks.Tagger(backbone, preprocessor)
    short = [["New", "York"]]
    batch = [["New", "York"], ["York", "is", "big", "big", "new"]]
    run = keras.ops.convert_to_numpy
    alone = run(tagger(list(tagger.encode(short)), training=False))
    both = run(tagger(list(tagger.encode(batch)), training=False))
    np.testing.assert_allclose(both[0, :2], alone[0], atol=1e-5)
    np.testing.assert_allclose(
        tagger.infer(tagger.encode(batch))[0, :2], alone[0], atol=1e-5
    )


@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "no names in it"),
        (b"# only a comment\n", "no names in it"),
        (b"animal dog\n", "line 1: 'type<TAB>name' expected"),
        (b"animal\t\n", "line 1: 'type<TAB>name' expected"),
        (b"animal\tdog\n\tcat\n", "line 2: 'type<TAB>name' expected"),
        (
            "animal\tK\u00f6ln\n".encode("latin-1"),
            "names.tsv:1: not UTF-8 (byte 0xf6)",
        ),
    ],
)
def test_a_bad_gazetteer_file_exits_2_with_one_line(
    tmp_path, capsys, content, message
):
    path = tmp_path / "names.tsv"
    path.write_bytes(content)
    corpus = test_tagging.write_corpus(tmp_path / "c")
    argv = ["--corpus-dir", str(corpus), "--gazetteer", str(path),
            "--output", str(tmp_path / "o")]  # fmt: skip
    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(tagging.main, argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_an_unknown_name_and_an_empty_part_are_refused(tmp_path):
    with pytest.raises(DataError, match="not a shipped gazetteer"):
        gazetteers.load("no-such-list")
    path = write_gazetteer(tmp_path / "a.tsv")
    with pytest.raises(DataError, match="an empty name between commas"):
        gazetteers.load(f"{path},")


def test_several_parts_are_joined_by_type(tmp_path):
    a = write_gazetteer(tmp_path / "a.tsv")
    b = write_gazetteer(tmp_path / "b.tsv", ["animal\twolf", "city\tRome"])
    assert gazetteers.load(f"{a}, {b}") == {
        "animal": ["dog", "big cat", "wolf"],
        "city": ["Rome"],
    }


def test_the_shipped_lists_are_gathered_once_and_checksummed(
    tmp_path, monkeypatch
):
    """Each type's names, cleaned (spaces, duplicates, one- and
    two-letter names and Brown's common words dropped), become one file;
    a second load reads the cache alone; a changed file is refused."""
    asked = []

    def source(names):
        def read(*args):
            asked.append(names)
            return list(names)

        return read

    monkeypatch.setattr(gazetteers, "_locations", source(["New  York", "Oslo"]))
    monkeypatch.setattr(
        gazetteers, "_lines", source(["John", "Will", "Al", "John"])
    )
    monkeypatch.setattr(gazetteers, "_simple_icons", source(["Nike"]))
    monkeypatch.setattr(gazetteers, "_brands", source(["Home Depot"]))
    monkeypatch.setattr(gazetteers, "_common_words", lambda: {"will"})
    cache = tmp_path / "cache"
    first = gazetteers.load("en-entities", cache_dir=cache)
    assert first == {
        "location": ["New York", "Oslo"],
        "person": ["John"],
        "organisation": ["Home Depot", "John", "Nike"],
    }
    calls = len(asked)
    assert gazetteers.load("en-entities", cache_dir=cache) == first
    assert len(asked) == calls
    (cache / "en-entities" / "person.txt").write_text("Bob", encoding="utf-8")
    with pytest.raises(DataError, match="fail their checksum"):
        gazetteers.load("en-entities", cache_dir=cache)


def test_token_features_with_init_from_are_refused(tmp_path):
    config = test_tagging.tiny_config(tmp_path, epochs=1)
    tagging.run(config)
    again = dataclasses.replace(
        config,
        init_from=str(tmp_path / "out" / "model.keras"),
        output=str(tmp_path / "again"),
        word_shape=True,
    )
    with pytest.raises(harness.UsageError, match="--word-shape with --init"):
        tagging.run(again)


def test_a_gazetteer_file_is_part_of_the_runs_fingerprint(tmp_path):
    path = write_gazetteer(tmp_path / "a.tsv")
    config = test_tagging.tiny_config(tmp_path, gazetteer=str(path))
    data = types.SimpleNamespace(train=[], dev=[], test=[])
    before = tagging.TASK.data_fingerprint(config, data)["files"]
    assert f"--gazetteer {path}" in before
    write_gazetteer(path, ["animal\twolf"])
    assert tagging.TASK.data_fingerprint(config, data)["files"] != before
    other = write_gazetteer(tmp_path / "b.tsv")
    both = dataclasses.replace(config, gazetteer=f"{path},{other}")
    found = tagging.TASK.data_fingerprint(both, data)["files"]
    assert {f"--gazetteer {path}", f"--gazetteer {other}"} == set(found)
