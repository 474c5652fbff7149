"""A saved model that does not load is one line naming the flag and the
file: an empty or cut-short `.keras` file is said to be that, not Keras's
"File not found" (issue 30, found by the hostile run)."""

import keras
import numpy as np
import pytest

import harness
from recipes import models


def test_an_empty_or_truncated_keras_file_is_named(tmp_path):
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    whole = tmp_path / "model.keras"
    model.save(whole)
    loaded = models.load_saved_model(whole, "--init-from")
    np.testing.assert_allclose(
        loaded.predict(np.ones((1, 3)), verbose=0),
        model.predict(np.ones((1, 3)), verbose=0),
    )
    data = whole.read_bytes()
    for name, content in (("empty", b""), ("cut", data[: len(data) // 2])):
        path = tmp_path / f"{name}.keras"
        path.write_bytes(content)
        with pytest.raises(harness.UsageError) as info:
            models.load_saved_model(path, "--init-from")
        message = str(info.value)
        assert message.startswith(f"--init-from {path}: not a whole .keras")
        assert f"({len(content)} bytes" in message
        assert "File not found" not in message


def test_a_run_folder_of_the_last_release_loads_as_a_task_model(tmp_path):
    """Runs saved before the recipes saved `zoo.tasks` classes: a plain
    functional tagger, and a G2P `zoo.Seq2Seq` with its `vocab.json` and
    `config.json` beside it; each loads as its task model and reads raw
    text."""
    import json

    import zoo
    from recipes import seq2seq
    from recipes import tagging

    words = ["the", "dog", "runs", "."]
    vocabulary = zoo.layers.TokenVocabulary(words, name="vocabulary")
    backbone = zoo.stacked_lstm(
        1, 4, vocabulary_size=vocabulary.vocabulary_size, embedding_dim=4
    )
    plain = zoo.heads.sequence_tagger(
        backbone, 3, labels=["", "DET", "NOUN"], vocabulary=vocabulary
    )
    assert not isinstance(plain, zoo.Tagger)
    (tmp_path / "tagging").mkdir()
    plain.save(tmp_path / "tagging" / "model.keras")
    tagger = tagging.load(tmp_path / "tagging")
    assert isinstance(tagger, zoo.Tagger)
    assert [w for w, _ in tagger.tag(["the dog runs ."])[0]] == words

    run = tmp_path / "g2p"
    run.mkdir()
    zoo.build_seq2seq(5, 7, "lstm", 1, 8, embedding_dim=4).save(
        run / "model.keras"
    )
    (run / "vocab.json").write_text(
        json.dumps({"letters": list("abc"), "phonemes": ["AA", "B", "K"]})
    )
    (run / "config.json").write_text(
        json.dumps({"max_word_length": 6, "beam_width": 2})
    )
    transcriber = seq2seq.load(run)
    assert isinstance(transcriber, zoo.Transcriber)
    assert transcriber.max_source_length == 6
    assert transcriber.beam_width == 2
    assert len(transcriber.transcribe(["cab", "abc"], method="greedy")) == 2
