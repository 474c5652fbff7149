"""The grapheme-to-phoneme recipe on a small dictionary written here."""

import json
import random
import subprocess
import sys

import keras
import pytest

import harness
import zoo
from recipes import cli
from recipes import g2p
from recipes import scoring
from recipes import seq2seq
from recipes.data import cmudict
from tests.helpers import usage_error

# One phoneme per letter, so a tiny model can learn the mapping.
SOUNDS = {"a": "AH0", "b": "B", "d": "D", "e": "EH1", "k": "K", "o": "OW1"}


def write_dictionary(path, words=240, seed=0):
    rng = random.Random(seed)
    lines, seen = [], set()
    while len(seen) < words:
        word = "".join(rng.choice("abdeko") for _ in range(rng.randint(2, 6)))
        if word in seen:
            continue
        seen.add(word)
        lines.append(word + " " + " ".join(SOUNDS[c] for c in word))
        if len(seen) % 20 == 0:  # a second pronunciation now and then
            lines.append(f"{word}(2) " + " ".join(SOUNDS[c] for c in word[1:]))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def dictionary(tmp_path, monkeypatch):
    path = write_dictionary(tmp_path / "cmudict.dict")
    monkeypatch.setattr(
        cmudict,
        "load",
        lambda stress=False, **kw: cmudict.read_cmudict(path, stress=stress),
    )
    return path


def tiny_config(tmp_path, **overrides):
    values = dict(
        output=str(tmp_path / "out"),
        epochs=3,
        units=16,
        embedding_dim=8,
        batch_size=16,
        learning_rate=0.01,
        beam_width=3,
        max_output_length=10,
        max_word_length=8,
        tensorboard=False,
    )
    values.update(overrides)
    return g2p.Config(**values)


def test_edit_distance_and_scores():
    assert scoring.edit_distance("kitten", "sitting") == 3
    assert scoring.edit_distance([], ["A", "B"]) == 2
    references = {
        "read": [("R", "EH", "D"), ("R", "IY", "D")],
        "cat": [("K", "AE", "T")],
    }
    # 'read' matches its second reference exactly; 'cat' has 1 edit in 3.
    per, wer = scoring.phoneme_scores(
        {"read": ["R", "IY", "D"], "cat": ["K", "AH", "T"]}, references
    )
    assert per == pytest.approx(100 * 1 / 6)
    assert wer == pytest.approx(50.0)


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_g2p_run_writes_metrics_and_a_reloadable_model(dictionary, tmp_path):
    # --quick: a seeded sample (here the whole small dictionary), at most
    # Config.QUICK's epochs (8; here the config's 3).
    metrics = g2p.run(tiny_config(tmp_path, quick=True))
    assert metrics["epochs_run"] == 3
    out = tmp_path / "out"
    assert metrics["split_words"] == {"train": 216, "dev": 12, "test": 12}
    assert metrics["phonemes"] == 6 and metrics["letters"] == 6
    for key in ("test_per", "test_wer", "greedy_test_per", "beam_test_wer"):
        assert 0 <= metrics[key], key
    assert metrics["test_per"] == metrics["beam_test_per"]
    assert json.loads((out / "metrics.json").read_text()) == metrics
    assert (out / "learning_curves.png").read_bytes()[:4] == b"\x89PNG"
    assert set(metrics["examples"]) == set(g2p.NEW_WORDS)

    model = keras.saving.load_model(out / "model.keras", safe_mode=True)
    assert isinstance(model, zoo.Transcriber)  # it keeps its symbols
    assert model.count_params() == metrics["params"]
    transcribe = g2p.load(out, tiny_config(tmp_path))
    words = ["xyz", "bad", "", "bad", "kodabekodabe"]
    with pytest.warns(UserWarning):
        result = transcribe(words, method="greedy")
    # One list per word, in the input's order, duplicates included.
    assert len(result) == len(words) and result[1] == result[3]
    assert result[2] == []  # empty input, empty pronunciation
    # Letters the model never saw map to the unknown id; no crash.
    assert set(result[0]) <= {p.rstrip("012") for p in SOUNDS.values()}
    assert transcribe.transcribe(["bad"], method="greedy") == [result[1]]
    with pytest.raises(TypeError, match="`words` must be a list"):
        transcribe.transcribe("bad")
    assert transcribe("bad", method="greedy") == result[1]  # one word
    with pytest.warns(UserWarning, match="longer than max_source_length=8"):
        transcribe(["kodabekodabe"])
    # Without a config, the settings it was trained with (its lengths).
    default = g2p.Config().max_word_length
    assert g2p.load(out).max_source_length == 8 != default
    # As a preset: the symbols and the decoding settings travel in its
    # config; it transcribes as the run does.
    from recipes import presets

    found = presets.main(
        [
            "export", str(out), "g2p", "--dest", str(tmp_path), "--float16",
            "--max-float16-loss", "100",  # 12 test words: a word is 8 points
        ]
    )  # fmt: skip
    # The symbols travel in the config; the dictionary it trained on and
    # its heteronyms in the assets (zoo.G2p reads them).
    assert set(found["files"]) == {
        "config.json",
        "model.weights.h5",
        "assets/cmudict.dict.gz",
        "assets/homographs.json",
        "assets/tenses.json",
    }
    assert found["class"] == "zoo>Transcriber"
    # float16's cost, measured by decoding the run's test words both ways.
    assert set(found["float16_check"]) == {"test_per", "test_wer"}
    preset = g2p.load(tmp_path / "g2p")
    assert preset.max_source_length == 8
    assert preset(words[:2], method="greedy") == result[:2]
    # What the weights computed on fixed words, recorded for the tests of
    # the shipped presets (tests/test_presets.py).
    fixed = found["fixed_inputs"]
    assert fixed["words"] == g2p.NEW_WORDS
    assert len(fixed["beam_scores"]) == len(fixed["beam"]) == 5
    # (with the settings it was trained with, as a user gets it).
    words_out = preset(g2p.NEW_WORDS, method="greedy")
    assert fixed["greedy"] == [" ".join(p) for p in words_out]
    # In one line, as g2p_en: a list gives a list per word; a string its
    # words' phonemes and its punctuation, joined by " ".
    # (The run's network alone: a run has no dictionary.)
    system = zoo.G2p(g2p.load(tmp_path / "g2p"), method="greedy")
    assert system(["bad", "xyz"]) == [result[1], result[0]]
    assert system("Bad, xyz") == [*result[1], " ", ",", " ", *result[0]]
    with pytest.raises(ValueError, match="`method` must be"):
        zoo.G2p(g2p.load(tmp_path / "g2p"), method="sample")
    # On the command line: a word a line in, its phonemes a line out.
    (tmp_path / "words.txt").write_text("xyz\n\nbad\n")
    g2p.main(
        [
            "predict", "--model", str(tmp_path / "g2p"), "--method",
            "greedy", "--input", str(tmp_path / "words.txt"), "--output",
            str(tmp_path / "phones.txt"), "--with-words",
        ]
    )  # fmt: skip
    assert (tmp_path / "phones.txt").read_text().split("\n") == [
        "xyz\t" + " ".join(result[0]),
        "",
        "bad\t" + " ".join(result[1]),
        "",
    ]


@pytest.mark.every_backend
def test_cli_errors_exit_2(tmp_path, capsys):
    for argv, message in (
        (["--attention", "luong"], "--attention must be one of none, dot"),
        (["--bridge", "linear"], "--bridge must be one of copy, zeros"),
        (["--embedding-dropout", "0.1"], "--embedding-dropout is not used"),
        (["--dataset", "timit"], "--dataset 'timit' is unknown"),
        (["--beam-width", "0"], "--beam-width must be >= 1"),
    ):
        argv = [*argv, "--output", str(tmp_path / "o")]
        assert message in usage_error(g2p.main, argv, capsys)


def test_the_old_name_runs_the_g2p_recipe():
    # `recipes.seq2seq` forwards every name to `recipes.g2p`, and its
    # command prints the same stored `--help` (without importing Keras).
    assert seq2seq.main is g2p.main and seq2seq.TASK is g2p.TASK
    assert seq2seq.run == g2p.run and seq2seq.Config is g2p.Config
    done = subprocess.run(
        [sys.executable, "-m", "recipes.seq2seq", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    help_file = cli.help_folder("recipes.g2p") / "help.txt"
    assert done.stdout == help_file.read_text(encoding="utf-8")


@pytest.mark.every_backend
def test_a_run_folder_without_a_transcriber_is_refused(tmp_path):
    # A bare `zoo.Seq2Seq` (an earlier release's run, its symbols in a
    # `vocab.json` beside it) is not converted: one line naming it.
    run = tmp_path / "old"
    run.mkdir()
    zoo.build_seq2seq(5, 7, "lstm", 1, 8, embedding_dim=4).save(
        run / "model.keras"
    )
    (run / "vocab.json").write_text('{"letters": ["a"], "phonemes": ["AA"]}')
    with pytest.raises(harness.UsageError) as info:
        g2p.load(run)
    message = str(info.value)
    assert message.startswith(f"model {run}: ") and "\n" not in message
