"""`python -m recipes.translation`: a run on a user's parallel files
(tiny, written here), its model reloaded and used from the command
line, and its bad input refused in one line."""

import json
import math
import random

import numpy as np
import pytest

import zoo
from harness import extras
from recipes import encoder_decoder
from recipes import translation
from recipes.data import cache
from tests.helpers import usage_error

pytest.importorskip("sentencepiece")
pytest.importorskip("sacrebleu")

WORDS = {
    "casa": "house",
    "perro": "dog",
    "gato": "cat",
    "pan": "bread",
    "agua": "water",
    "grande": "big",
    "come": "eats",
    "bebe": "drinks",
}


def sentence_pairs(count, seed):
    rng = random.Random(seed)
    names = list(WORDS)
    pairs = []
    for _ in range(count):
        words = [rng.choice(names) for _ in range(rng.randint(2, 5))]
        pairs.append((" ".join(words), " ".join(WORDS[w] for w in words)))
    return pairs


def write_split(folder, name, count, seed):
    pairs = sentence_pairs(count, seed)
    source, target = folder / f"{name}.es", folder / f"{name}.en"
    source.write_text("".join(f"{s}\n" for s, _ in pairs), encoding="utf-8")
    target.write_text("".join(f"{t}\n" for _, t in pairs), encoding="utf-8")
    return f"{source},{target}"


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    folder = tmp_path / "data"
    folder.mkdir()
    return {
        "train_files": write_split(folder, "train", 300, 0),
        "dev_files": write_split(folder, "dev", 20, 1),
        "test_files": write_split(folder, "test", 20, 2),
    }


def tiny_config(tmp_path, corpus, **overrides):
    values = dict(
        output=str(tmp_path / "out"),
        dataset="files",
        **corpus,
        epochs=2,
        units=16,
        num_layers=1,
        embedding_dim=16,
        vocabulary_size=40,
        batch_size=32,
        learning_rate=0.01,
        beam_width=2,
        max_target_length=12,
        tensorboard=False,
    )
    values.update(overrides)
    return translation.Config(**values)


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_a_run_on_files_scores_saves_and_translates(corpus, tmp_path):
    metrics = translation.run(tiny_config(tmp_path, corpus))
    assert metrics["split_pairs"] == {"train": 300, "dev": 20, "test": 20}
    for key in ("test_bleu", "test_chrf", "greedy_test_bleu"):
        assert 0.0 <= metrics[key] <= 100.0
    assert metrics["beam_sentences_per_second"] > 0
    assert len(metrics["examples"]) == 5
    out = tmp_path / "out"
    assert {"model.keras", "attention.png", "learning_curves.png"} <= set(
        metrics["wrote"]
    )
    assert (out / "attention.png").stat().st_size > 0
    model = translation.load(out)
    assert isinstance(model, zoo.tasks.Translator)
    texts = model.translate(["casa grande", "perro"])
    assert all(isinstance(t, str) for t in texts)
    # The subword models were learned once, into the data cache.
    learned = list((tmp_path / "cache" / "subwords").iterdir())
    assert len(learned) == 1 and (learned[0] / "SHA256SUMS").is_file()
    # A finished run is not retrained.
    again = translation.run(tiny_config(tmp_path, corpus))
    assert again["test_bleu"] == metrics["test_bleu"]
    # `predict`: a translation a line, the empty line kept.
    source = tmp_path / "in.txt"
    source.write_text("casa grande\n\nperro\n", encoding="utf-8")
    written = tmp_path / "out.txt"
    translation.cli.main(
        ["predict", "--model", str(out), "--input", str(source),
         "--output", str(written), "--with-source"]
    )  # fmt: skip
    lines = written.read_text(encoding="utf-8").split("\n")
    assert lines[0] == "casa grande\t" + texts[0]
    assert lines[1] == "" and lines[2] == "perro\t" + texts[1]
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["test_chrf"] == metrics["test_chrf"]


def one_line_exit_2(capsys, argv):
    return usage_error(translation.main, argv, capsys)


def test_bad_input_is_one_line_and_exit_2(corpus, tmp_path, capsys):
    out = ["--output", str(tmp_path / "o")]
    files = ["--dataset", "files"]
    given = [
        *files,
        "--train-files", corpus["train_files"],
        "--dev-files", corpus["dev_files"],
    ]  # fmt: skip
    assert "needs --test-files" in one_line_exit_2(capsys, [*given, *out])
    err = one_line_exit_2(
        capsys, ["--train-files", corpus["train_files"], *out]
    )
    assert "--train-files is read with --dataset files only" in err
    err = one_line_exit_2(capsys, [*given, "--test-files", "a.es", *out])
    assert "expected SOURCE,TARGET" in err
    short = tmp_path / "short.en"
    short.write_text("one line\n", encoding="utf-8")
    es = corpus["test_files"].split(",")[0]
    err = one_line_exit_2(
        capsys, [*given, "--test-files", f"{es},{short}", *out]
    )
    assert "has 20 lines" in err and "short.en" in err
    latin = tmp_path / "latin.en"
    latin.write_bytes("caf\xe9\n".encode("latin-1") * 20)
    err = one_line_exit_2(
        capsys, [*given, "--test-files", f"{es},{latin}", *out]
    )
    assert "latin.en" in err and "UTF-8" in err
    for argv, message in (
        (["--attention", "luong"], "--attention must be one of none, dot"),
        (["--subword-model", "word"], "--subword-model must be one of"),
        (["--direction", "fr-en"], "--direction must be one of es-en"),
        (["--vocabulary-size", "8"], "--vocabulary-size 8: at least 16"),
        (["--embedding-dropout", "0.1"], "--embedding-dropout is not used"),
    ):
        assert message in one_line_exit_2(capsys, [*argv, *out])
    # Fewer pieces than the text has characters: SentencePiece refuses.
    err = one_line_exit_2(
        capsys,
        [*given, "--test-files", corpus["test_files"],
         "--vocabulary-size", "16", *out],
    )  # fmt: skip
    assert "the source side" in err and "vocabulary_size=16" in err


def test_without_the_translation_extra_one_line_names_it(
    tmp_path, monkeypatch, capsys
):
    real = extras.installed
    monkeypatch.setattr(
        extras, "installed", lambda name: name != "sacrebleu" and real(name)
    )
    err = one_line_exit_2(capsys, ["--output", str(tmp_path / "o")])
    assert "`translation` extra" in err and "sacrebleu" in err


def test_a_missing_sword_module_names_its_debian_package(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("SWORD_PATH", str(tmp_path / "no-sword"))
    (tmp_path / "no-sword").mkdir()
    err = one_line_exit_2(capsys, ["--output", str(tmp_path / "o")])
    assert "apt install sword-text-" in err


@pytest.mark.every_backend
@pytest.mark.torch_tier
def test_the_first_steps_benchmark_reads_the_recipes_flags(corpus, capsys):
    from benchmarks import translation_start

    flags = [
        "--dataset", "files", *(
            x for name in ("train", "dev", "test")
            for x in (f"--{name}-files", corpus[f"{name}_files"])
        ),
        "--units", "8", "--embedding-dim", "8", "--num-layers", "2",
        "--vocabulary-size", "40", "--no-residual",
    ]  # fmt: skip
    losses, entropy, use = translation_start.main(
        [
            "--steps", "12", "--every", "5", "--source-every", "6",
            "--clipnorm", "1", "--", *flags,
        ]
    )  # fmt: skip
    assert len(losses) == 12 and all(np.isfinite(losses))
    # 8 words' pieces plus the end: between 2 and 4 nats or so.
    assert 1.0 < entropy < math.log(40)
    printed = capsys.readouterr().out
    assert "unigram entropy of the target pieces" in printed
    assert "step 5:" in printed and "step 10:" in printed
    assert "step 12: loss" not in printed
    assert set(use) == {"own", "shuffled"} and "shuffled" in printed
    # The source check every 6 steps, with the attention's spread.
    checks = [line for line in printed.splitlines() if "own source" in line]
    assert [line.split(":")[0] for line in checks[:2]] == ["step 6", "step 12"]
    assert all("attention entropy" in line for line in checks)
    assert len(checks) == 3  # and once more at the end, on 20 batches


def test_translation_and_g2p_share_one_encoder_decoder():
    # The model, batches, loss and decoder settings are
    # `recipes.encoder_decoder`'s, whose start and end ids are the
    # SentencePiece models' too.
    assert isinstance(translation.TASK, encoder_decoder.EncoderDecoderTask)
    assert issubclass(translation.Config, encoder_decoder.DecoderOptions)
    assert (encoder_decoder.START, encoder_decoder.END) == (
        zoo.subwords.START,
        zoo.subwords.END,
    )
