"""`--word-vectors`: pretrained vectors as a frozen second word channel
(`recipes.data.vectors`, `zoo.stacked_rnn(word_vectors=...)`), on vectors
files written here; the shipped set's cache on a package faked here."""

import dataclasses
import sys
import types

import keras
import numpy as np
import pytest

import harness
import zoo
from recipes import classification
from recipes import tagging
from recipes.data import vectors
from recipes.data.errors import DataError
from tests.recipes import test_classification
from tests.recipes import test_tagging

# Vectors for some of the tagging corpus's words, and for words it lacks.
WORDS = {
    "the": [1.0, 0.0, 0.0],
    "dog": [0.0, 1.0, 0.0],
    "cat": [0.0, 0.9, 0.1],
    "runs": [0.0, 0.0, 1.0],
    "wolf": [0.1, 0.8, 0.1],
    "walks": [0.1, 0.0, 0.9],
}


def write_vectors(path, words=WORDS, header=False):
    lines = [f"{len(words)} 3"] if header else []
    lines += [f"{w} {' '.join(map(str, v))}" for w, v in words.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("header", [False, True])
def test_a_text_file_reads_as_glove_or_word2vec(tmp_path, header):
    found = vectors.load(str(write_vectors(tmp_path / "v.txt", header=header)))
    assert found.words == list(WORDS)
    np.testing.assert_array_equal(
        found.vectors, np.array(list(WORDS.values()), "float32")
    )
    assert found.dim == 3 and found.lowercase


def test_matrix_rows_follow_the_vocabulary_and_extend_adds_unseen_words(
    tmp_path,
):
    found = vectors.load(str(write_vectors(tmp_path / "v.txt")))
    tokens = found.extend(["dog", "The", "zebra"], 2)
    assert tokens == ["dog", "The", "zebra", "the", "cat"]
    matrix, covered = found.matrix(tokens)
    assert matrix.shape == (7, 3) and covered == 4
    np.testing.assert_array_equal(matrix[:2], 0)  # padding, [UNK]
    np.testing.assert_allclose(matrix[2], WORDS["dog"])
    np.testing.assert_allclose(matrix[3], WORDS["the"])  # lower-cased
    np.testing.assert_array_equal(matrix[4], 0)  # zebra: none
    np.testing.assert_allclose(matrix[6], WORDS["cat"])


@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "no word vectors in it (an empty file)"),
        (b"a 1 2 3\nb 1 2\n", "line 2: 2 numbers; the first vector has 3"),
        (b"a 1 2 3\nb 1 x 3\n", "line 2: the vector of 'b' holds a value"),
        (b"caf\xe9 1 2 3\n", "not UTF-8 text"),
        (b"a 1 nan 3\n", "the vector of 'a' is not finite"),
        (b"a\n", "line 1: a word and its vector expected"),
    ],
)
def test_a_bad_vectors_file_is_one_clear_error(tmp_path, content, message):
    path = tmp_path / "v.txt"
    path.write_bytes(content)
    with pytest.raises(DataError) as error:
        vectors.load(str(path))
    assert message in str(error.value)
    assert str(path) in str(error.value)


def test_an_unknown_name_names_the_shipped_sets():
    with pytest.raises(DataError) as error:
        vectors.load("glove-twitter")
    assert "no such file, and not a shipped set (one of: glove-6b-50d)" in (
        str(error.value)
    )


def test_a_shipped_set_is_cached_once_and_checksummed(tmp_path, monkeypatch):
    """The package's two files become `words.txt` and `vectors.npy` with
    their checksums; a second load reads the cache alone (the package is
    not asked again); a cached file changed afterwards is refused."""
    parquet = pytest.importorskip("pyarrow.parquet")
    pyarrow = pytest.importorskip("pyarrow")
    package = tmp_path / "package"
    package.mkdir()
    np.save(package / "emb.npy", np.arange(6, dtype="float32").reshape(3, 2))
    parquet.write_table(
        pyarrow.table({"index": ["the", "of", "dog"]}), package / "ix.parquet"
    )
    asked = []

    def package_file(name, version, relative):
        asked.append(relative)
        source = vectors.SHIPPED["glove-6b-50d"]
        return package / (
            "emb.npy" if relative == source.vectors else "ix.parquet"
        )

    monkeypatch.setattr(vectors.packages, "package_file", package_file)
    cache = tmp_path / "cache"
    first = vectors.load("glove-6b-50d", cache_dir=cache)
    assert first.words == ["the", "of", "dog"]
    np.testing.assert_array_equal(first.vectors[2], [4.0, 5.0])
    assert len(asked) == 2
    again = vectors.load("glove-6b-50d", cache_dir=cache)
    assert again.words == first.words and len(asked) == 2
    np.save(cache / "glove-6b-50d" / "vectors.npy", np.zeros((3, 2), "float32"))
    with pytest.raises(DataError, match="fail their checksum"):
        vectors.load("glove-6b-50d", cache_dir=cache)


def test_the_builder_adds_a_frozen_channel_with_the_rows_given():
    rows = np.arange(15, dtype="float32").reshape(5, 3)
    model = zoo.stacked_rnn(
        "lstm", 1, 4, vocabulary_size=5, embedding_dim=2, word_vectors=rows,
        name="enc",
    )  # fmt: skip
    layer = model.get_layer("enc_word_vectors")
    assert not layer.trainable
    assert all(w.path != layer.embeddings.path for w in model.trainable_weights)
    np.testing.assert_array_equal(layer.get_weights()[0], rows)
    with pytest.raises(ValueError, match=r"shape \(vocabulary_size, dim\)"):
        zoo.stacked_rnn("lstm", 1, 4, vocabulary_size=6, word_vectors=rows)
    with pytest.raises(ValueError, match="`word_vectors` are looked up"):
        zoo.stacked_rnn("lstm", 1, 4, input_dim=3, word_vectors=rows)


@pytest.mark.every_backend
def test_a_tagger_reads_the_vectors_and_reloads_with_them(tmp_path):
    """The vocabulary gains the vectors' unseen words; the frozen channel
    holds each word's vector after training; the saved model reloads
    (`safe_mode`) with them and tags a padded batch as it tags each
    sentence alone."""
    path = write_vectors(tmp_path / "v.txt")
    config = test_tagging.tiny_config(
        tmp_path, word_vectors=str(path), vector_words=5
    )
    metrics = tagging.run(config)
    assert metrics["test_accuracy"] > 0.5
    model = keras.saving.load_model(
        tmp_path / "out" / "model.keras", safe_mode=True
    )
    vocabulary = model.vocabulary
    tokens = list(vocabulary.tokens)
    assert {"wolf", "walks"} <= set(tokens)  # from the vectors alone
    layer = next(
        layer for layer in zoo.walk.iter_layers(model)
        if layer.name.endswith("_word_vectors")
    )  # fmt: skip
    table = layer.get_weights()[0]
    for word in ("dog", "wolf", "the"):
        row = vocabulary.text_ids(word)[0]
        np.testing.assert_allclose(table[row], WORDS[word])
    assert not table[vocabulary.text_ids("jury")[0]].any()
    # The words only the vectors know have no trained row: they read
    # [UNK]'s (id 1) in the trained embedding.
    trained = next(
        layer for layer in zoo.walk.iter_layers(model)
        if isinstance(layer, zoo.layers.TokenEmbedding)
    )  # fmt: skip
    assert trained.input_dim == vocabulary.vocabulary_size - 2
    assert trained.accepted_ids == vocabulary.vocabulary_size
    assert max(vocabulary.text_ids("wolf walks")) >= trained.input_dim
    wolf, unk = keras.ops.convert_to_numpy(
        trained(np.array([[vocabulary.text_ids("wolf")[0], 1]]))
    )[0]
    np.testing.assert_array_equal(wolf, unk)
    short = model.predict(vocabulary.encode(["the wolf runs"]), verbose=0)
    both = model.predict(
        vocabulary.encode(["the wolf runs", "the big red dog sees a cat"]),
        verbose=0,
    )
    np.testing.assert_allclose(both[0, :3], short[0, :3], atol=1e-5)


@pytest.mark.parametrize(
    "recipe,make", [("tagging", tagging), ("classification", classification)]
)
def test_bad_vectors_on_the_command_line_exit_2_with_one_line(
    tmp_path, capsys, recipe, make
):
    path = tmp_path / "v.txt"
    path.write_bytes(b"a 1 2 3\nb 1 2\n")
    if recipe == "tagging":
        data = ["--corpus-dir", str(test_tagging.write_corpus(tmp_path / "c"))]
    else:
        csv = test_classification.write_csv(tmp_path / "t.csv")
        data = ["--dataset", "csv", "--train-file", str(csv)]
    argv = [*data, "--word-vectors", str(path), "--output", str(tmp_path / "o")]
    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(make.main, argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "line 2: 2 numbers; the first vector has 3" in err


def test_without_pyarrow_the_first_fetch_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(DataError) as error:
        vectors.load("glove-6b-50d", cache_dir=tmp_path)
    assert "pip install 'stacked-rnn-zoo[vectors]'" in str(error.value)
    assert list(tmp_path.iterdir()) == []  # nothing half-written


@pytest.mark.parametrize("task", [tagging.TASK, classification.TASK])
def test_a_vectors_file_is_part_of_the_runs_fingerprint(tmp_path, task):
    """A rerun compares its data files with its backup's: a vectors file
    changed under a run stops it from resuming (`recipes.checkpoints`)."""
    path = write_vectors(tmp_path / "v.txt")
    config = dataclasses.replace(
        test_tagging.tiny_config(tmp_path)
        if task is tagging.TASK
        else test_classification.tiny_config(tmp_path),
        word_vectors=str(path),
    )
    data = types.SimpleNamespace(train=[], dev=[], test=[])
    before = task.data_fingerprint(config, data)["files"]
    assert f"--word-vectors {path}" in before
    write_vectors(path, {**WORDS, "fox": [0.5, 0.5, 0.0]})
    assert task.data_fingerprint(config, data)["files"] != before
