"""`python -m recipes.language_model` on a tiny text written here: it
trains, reports perplexity per direction, resumes, and refuses bad text
in one line without writing anything."""

import json
import math
import random
import re

import keras
import numpy as np
import pytest

import harness
import zoo
from recipes import language_model
from recipes import results
from recipes.data import unlabelled

NOUNS = ["dog", "cat", "bird", "horse", "child", "farmer"]
VERBS = ["sees", "likes", "follows", "feeds"]
PLACES = ["park", "farm", "garden", "river"]


def write_text(path, documents=60, sentences=8, seed=0):
    """Documents of patterned sentences ("The dog sees a cat in the
    park."), separated by blank lines."""
    rng = random.Random(seed)
    blocks = []
    for _ in range(documents):
        lines = [
            f"The {rng.choice(NOUNS)} {rng.choice(VERBS)} a "
            f"{rng.choice(NOUNS)} in the {rng.choice(PLACES)}."
            for _ in range(sentences)
        ]
        blocks.append(" ".join(lines))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


def write_mixed_text(path, documents=40, seed=0):
    """Like `write_text`, but every other sentence is long (two clauses,
    20-odd words), so the batches come in several widths."""
    rng = random.Random(seed)

    def clause():
        return (
            f"the {rng.choice(NOUNS)} {rng.choice(VERBS)} a "
            f"{rng.choice(NOUNS)} in the {rng.choice(PLACES)}"
        )

    blocks = []
    for _ in range(documents):
        lines = [
            f"{clause()} and {clause()} ." if i % 2 else f"{clause()} ."
            for i in range(6)
        ]
        blocks.append(" ".join(lines))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


def argv(tmp_path, *extra):
    return [
        "--corpora", "", "--text-file", str(write_text(tmp_path / "t.txt")),
        "--output", str(tmp_path / "out"), "--units", "16",
        "--char-units", "16", "--char-embedding-dim", "8", "--epochs", "4",
        "--shards", "2", "--batch-size", "16", "--learning-rate", "0.01",
        "--num-sampled", "8", "--no-tensorboard", "--eval-examples", "0",
        *extra,
    ]  # fmt: skip


def test_sentences_are_cut_at_their_ends_and_into_words():
    text = 'He said "stop." Then it rained! Did it?\n\nA new paragraph here'
    assert unlabelled.sentences_of(text) == [
        ["He", "said", '"', "stop", ".", '"'],
        ["Then", "it", "rained", "!"],
        ["Did", "it", "?"],
        ["A", "new", "paragraph", "here"],
    ]
    pieces = unlabelled.sentences_of("a b c d e", max_length=2)
    assert pieces == [["a", "b"], ["c", "d"], ["e"]]


@pytest.mark.every_backend
def test_a_quick_run_trains_on_batches_of_several_widths(tmp_path):
    """The recipe on every backend, with sentences short and long (word
    widths 16 and 32 after padding): on TensorFlow its batches go through
    `tf.data`, whose shapes must not fix a width the first batch has
    (`generator yielded an element of shape (64, 16) where an element of
    shape (None, 48) was expected` before)."""
    text = write_mixed_text(tmp_path / "mixed.txt")
    metrics = language_model.main(
        [
            "--corpora", "", "--text-file", str(text), "--quick",
            "--output", str(tmp_path / "out"), "--units", "8",
            "--char-units", "8", "--char-embedding-dim", "4",
            "--epochs", "1", "--shards", "1", "--batch-size", "8",
            "--num-sampled", "4", "--no-tensorboard", "--eval-examples", "0",
        ]
    )  # fmt: skip
    assert metrics["epochs_run"] == 1
    assert math.isfinite(metrics["test_forward_perplexity"])
    model = language_model.load(tmp_path / "out")
    assert isinstance(model, zoo.BiLM)


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_a_run_reports_perplexity_per_direction_and_reloads(tmp_path):
    metrics = language_model.main(argv(tmp_path))
    out = tmp_path / "out"
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["epochs_run"] == metrics["epochs_run"] == 4
    assert saved["corpora"] == ["text_file"]
    # The text has 18 words: a model that learned its patterns is far
    # below the 20-odd words of the vocabulary in perplexity.
    for direction in ("forward", "backward"):
        perplexity = metrics[f"test_{direction}_perplexity"]
        assert perplexity == pytest.approx(
            math.exp(metrics[f"test_{direction}_nll"])
        )
        assert 1 < perplexity < 12
    log = (out / "log.csv").read_text().splitlines()
    assert len(log) == 5 and "val_forward_nll" in log[0]
    assert (out / "learning_curves.png").read_bytes()[:4] == b"\x89PNG"
    model = keras.saving.load_model(out / "model.keras", safe_mode=True)
    encoder = zoo.language_model.encoder_of(model)
    assert encoder.units == 16
    # What a task model reads: the mixed layers, one vector per word.
    characters = model.characters
    chars = characters.encode([["The", "dog", "sees"]])
    mixed = zoo.language_model.contextual_embedding(model)(chars)
    assert tuple(mixed.shape) == (1, 3, 32)
    assert np.isfinite(keras.ops.convert_to_numpy(mixed)).all()
    # A rerun of a finished run trains nothing and returns its metrics.
    again = language_model.main(argv(tmp_path))
    assert again["test_forward_nll"] == metrics["test_forward_nll"]


def test_shards_cut_each_pass_into_epochs_of_equal_size():
    sentences = [["w"] * (1 + i % 5) for i in range(40)]
    batches = language_model.ShardedBatches(
        sentences,
        [len(s) for s in sentences],
        4,
        (8,),
        lambda b: (np.zeros((len(b), 1)),),
        shuffle_seed=0,
        shards=3,
    )
    seen = []
    for epoch in range(3):
        batches.start_at(epoch)
        assert len(batches) == 3  # 10 batches a pass, 3 an epoch
        seen.extend(tuple(b) for b in batches._order)
    assert len(set(seen)) == 9  # one pass: no batch twice
    with pytest.raises(Exception, match="--shards 20: the training text"):
        language_model.ShardedBatches(
            sentences, [1] * 40, 4, (8,), None, shards=20
        )


@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "empty; plain UTF-8 text needed"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "a binary file"),
        (
            "caf\u00e9 au lait".encode("latin-1"),
            r"not UTF-8 \(byte 0xe9 at offset 3\)",
        ),
        (b"Too short.\n", "fewer than one batch|too little text"),
    ],
)
def test_bad_text_is_one_line_and_nothing_is_written(
    tmp_path, capsys, content, message
):
    text = tmp_path / "bad.txt"
    text.write_bytes(content)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(
            language_model.main,
            ["--corpora", "", "--text-file", str(text), "--output", str(out)],
        )
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(message, err[0]), err
    assert not out.exists() or not any(out.iterdir())


def test_bad_flags_are_one_line(tmp_path, capsys):
    for extra, message in (
        (["--corpora", "wikipedia"], "--corpora: 'wikipedia' is not a corpus"),
        (["--corpora", ""], "no text: name --corpora or give a --text-file"),
        (["--shards", "0"], "--shards must be >= 1"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            harness.run_cli(
                language_model.main,
                [*extra, "--output", str(tmp_path / "out")],
            )
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0]


def test_init_from_refuses_a_model_that_is_no_language_model(tmp_path, capsys):
    tagger = zoo.heads.sequence_tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=9), 3
    )
    path = tmp_path / "tagger.keras"
    tagger.save(path)
    with pytest.raises(SystemExit):
        harness.run_cli(
            language_model.main, argv(tmp_path, "--init-from", str(path))
        )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a language model" in err[0]


@pytest.fixture(scope="module")
def bilm_run(tmp_path_factory):
    """A tiny biLM pretrained on the tagging tests' words."""
    root = tmp_path_factory.mktemp("bilm")
    language_model.main(argv(root))
    return root / "out"


@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_init_from_trains_on_with_this_runs_sampled_softmax(bilm_run, tmp_path):
    before = keras.saving.load_model(bilm_run / "model.keras", safe_mode=True)
    assert before.softmax.num_sampled == 8
    metrics = language_model.main(
        argv(
            tmp_path, "--init-from", str(bilm_run), "--num-sampled", "12",
            "--epochs", "1",
        )
    )  # fmt: skip
    assert metrics["epochs_run"] == 1
    after = keras.saving.load_model(
        tmp_path / "out" / "model.keras", safe_mode=True
    )
    assert after.softmax.num_sampled == 12
    # Trained on: the weights moved from the loaded model's.
    moved = [
        not np.allclose(a, b)
        for a, b in zip(before.get_weights(), after.get_weights())
    ]
    assert any(moved)


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_a_tagger_trains_on_a_pretrained_bilm_and_reloads(bilm_run, tmp_path):
    from recipes import tagging
    from tests.recipes.test_tagging import tiny_config

    config = tiny_config(tmp_path, pretrained=str(bilm_run), epochs=2)
    metrics = tagging.run(config)
    weights = metrics["pretrained_layer_weights"]
    assert len(weights) == 3 and sum(weights) == pytest.approx(1, abs=1e-3)
    model = keras.saving.load_model(
        tmp_path / "out" / "model.keras", safe_mode=True
    )
    # The tagger spells with the biLM's characters and holds its encoder,
    # frozen: the biLM's weights, unchanged by the tagger's training.
    bilm = keras.saving.load_model(bilm_run / "model.keras", safe_mode=True)
    assert model.characters.characters == bilm.characters.characters
    mixes = [
        layer
        for layer in zoo.walk.iter_layers(model)
        if isinstance(layer, zoo.layers.ContextualEmbedding)
    ]
    assert len(mixes) == 1
    for mine, theirs in zip(
        mixes[0].encoder.get_weights(),
        zoo.language_model.encoder_of(bilm).get_weights(),
    ):
        np.testing.assert_array_equal(mine, theirs)
    tagged = tagging.load(tmp_path / "out").tag(["the dog sees a cat ."])[0]
    assert [w for w, _ in tagged] == ["the", "dog", "sees", "a", "cat", "."]


def test_pretrained_must_be_a_language_model(tmp_path, capsys):
    from recipes import tagging
    from tests.recipes.test_tagging import write_corpus

    tagger = zoo.tasks.Tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=9),
        zoo.tasks.TaggerPreprocessor(
            zoo.layers.TokenVocabulary(["the"]), ["", "A", "B"]
        ),
    )
    path = tmp_path / "tagger.keras"
    tagger.save(path)
    corpus = write_corpus(tmp_path / "corpus")
    for pretrained, message in (
        (path, "a tagger, not a language model saved by"),
        (tmp_path / "none.keras", "no such file"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            harness.run_cli(
                tagging.main,
                [
                    "--corpus-dir", str(corpus), "--pretrained",
                    str(pretrained), "--output", str(tmp_path / "out"),
                ],
            )  # fmt: skip
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], err
        assert not (tmp_path / "out" / "model.keras").exists()


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_a_classifier_trains_on_a_pretrained_bilm_and_reloads(
    bilm_run, tmp_path
):
    from recipes import classification
    from tests.recipes.test_classification import tiny_config

    config = tiny_config(tmp_path, pretrained=str(bilm_run), epochs=2)
    metrics = classification.run(config)
    assert 0 <= metrics["test_accuracy"] <= 1
    classifier = classification.load(tmp_path / "out")
    assert classifier.characters is not None
    texts = ["The bank said profit rose", "a new phone chip"]
    ids, chars = classifier.encode(texts)
    # One spelled word per id, in the text's own case.
    assert chars.shape[:2] == ids.shape
    spelling = classifier.characters
    assert chars[0, 0, :3].tolist() == spelling.spell("The")
    assert len(classifier.classify(texts)) == 2


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_ulmfit_fine_tunes_the_bilm_then_unfreezes_it_a_group_an_epoch(
    bilm_run, tmp_path
):
    from recipes import classification
    from tests.recipes.test_classification import tiny_config

    config = tiny_config(
        tmp_path,
        pretrained=str(bilm_run),
        fine_tune=True,
        fine_tune_epochs=1,
        epochs=2,
        pooling="concat",
        lr_schedule="slanted",
    )
    metrics = classification.run(config)
    out = tmp_path / "out"
    # First stage: the biLM, fine-tuned on the training texts in a run of
    # its own, moved away from the pretrained one.
    lm = json.loads((out / "language_model" / "metrics.json").read_text())
    assert metrics["fine_tune_language_model"] == {
        k: lm[k] for k in metrics["fine_tune_language_model"]
    }
    assert set(metrics["fine_tune_language_model"]) == {
        "test_forward_perplexity",
        "test_backward_perplexity",
    }
    texts = (out / classification.FINE_TUNE_TEXT).read_text().splitlines()
    assert len(texts) == metrics["split_examples"]["train"]
    pretrained = zoo.language_model.encoder_of(
        keras.saving.load_model(bilm_run / "model.keras", safe_mode=True)
    )
    tuned = zoo.language_model.encoder_of(
        keras.saving.load_model(
            out / "language_model" / "model.keras", safe_mode=True
        )
    )
    assert any(
        not np.allclose(a, b)
        for a, b in zip(pretrained.get_weights(), tuned.get_weights())
    )
    # Second stage: the head learns from the start, each biLM group one
    # epoch after the one above it, at 2.6 times less; in 2 epochs the
    # character encoder, 2 groups down, is still frozen.
    assert metrics["pretrained_trainable"] is True
    model = keras.saving.load_model(out / "model.keras", safe_mode=True)
    encoder = next(
        layer
        for layer in zoo.walk.iter_layers(model)
        if isinstance(layer, zoo.layers.ContextualEmbedding)
    ).encoder
    groups = encoder.fine_tuning_groups()
    assert len(groups) == tuned.num_layers + 1
    assert all("characters" in p or "projection" in p for p in groups[-1])
    assert all("layer1" in p for p in groups[0])  # the top LSTM layer
    optimizer = classification.fine_tune_optimizer(model, config, steps=16)
    assert optimizer.unfreeze_steps == 8 and optimizer.decay == 2.6
    group = {v.path: optimizer.group_of(v) for v in model.trainable_variables}
    assert group[model.get_layer("classes").kernel.path] == 0
    assert {group[p] for p in groups[0]} == {1}
    assert {group[p] for p in groups[-1]} == {len(groups)}
    moved = {
        mine.path: not np.allclose(
            keras.ops.convert_to_numpy(mine), keras.ops.convert_to_numpy(old)
        )
        for mine, old in zip(
            encoder.trainable_variables, tuned.trainable_variables
        )
    }
    assert not any(moved[p] for p in groups[-1])
    assert 0 <= metrics["test_accuracy"] <= 1
    # A rerun of the same config trains nothing again.
    assert isinstance(classification.run(config), results.Finished)


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_a_run_becomes_a_checksummed_preset_that_the_recipes_load(
    bilm_run, tmp_path, capsys
):
    from recipes import models
    from recipes import presets
    from recipes import tagging
    from tests.recipes.test_tagging import write_corpus

    export = ["export", str(bilm_run), "tiny", "--dest", str(tmp_path)]
    found = presets.main([*export, "--float16"])
    folder = tmp_path / "tiny"
    assert found["weights_dtype"] == "float16"
    assert found["recipe"] == "recipes.language_model"
    assert found["command"].startswith("python -m recipes.language_model ")
    for flag in ("--corpora '' ", "--text-file ", "--units 16 ", "--epochs 4"):
        assert flag in found["command"]
    assert "--output" not in found["command"]
    # The export scored the run's own test split again, both ways: in
    # float32 it is the run's own number.
    check = found["float16_check"]["test_forward_perplexity"]
    assert check["float32"] == pytest.approx(
        found["metrics"]["test_forward_perplexity"], rel=1e-4
    )
    assert abs(check["float16"] - check["float32"]) < 0.1
    # Loaded by path where a recipe takes a biLM, it computes what the
    # metadata recorded.
    model = models.load_language_model(folder)
    assert isinstance(model, zoo.BiLM)
    fixed = model.fixed_outputs()
    assert fixed["next_words"] == found["fixed_inputs"]["next_words"]
    for direction in ("forward_nll", "backward_nll"):
        np.testing.assert_allclose(
            fixed[direction], found["fixed_inputs"][direction], atol=1e-3
        )
    shown = presets.main(["show", str(folder)])
    assert shown["files"] == found["files"]
    capsys.readouterr()
    # A second export to the same name, a run that is no run, a damaged
    # preset: one line each, exit 2, nothing written.
    weights = folder / "model.weights.h5"
    weights.write_bytes(weights.read_bytes()[:-100])
    corpus = write_corpus(tmp_path / "corpus")
    out = tmp_path / "out"
    for main, args, message in (
        (presets.main, export, "holds a preset; pass --overwrite"),
        (presets.main, ["export", str(corpus), "x"], "no config.json"),
        (presets.main, ["show", "no_such_preset"], "no such preset"),
        (presets.main, ["fetch"], "received 'fetch'"),
        (
            tagging.main,
            [
                "--corpus-dir", str(corpus), "--pretrained", str(folder),
                "--output", str(out),
            ],
            "model.weights.h5 fails its checksum",
        ),
    ):  # fmt: skip
        with pytest.raises(SystemExit) as exit_info:
            harness.run_cli(main, args)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], err
    assert not out.exists()
    assert not (tmp_path / "x").exists()


@pytest.mark.every_backend
@pytest.mark.torch_tier  # TensorFlow and JAX in make test-all (tracing)
def test_each_layer_of_a_bilm_is_probed_and_mixed_from_its_characters(
    bilm_run, tmp_path
):
    from diagnostics import probing
    from tests.recipes.test_tagging import write_corpus

    corpus = write_corpus(tmp_path / "corpus")
    summary = probing.main(
        [
            "--model", str(bilm_run), "--output", str(tmp_path / "probe"),
            "--quick", "--corpus-dir", str(corpus), "--properties", "pos",
            "--epochs", "1",
        ]
    )  # fmt: skip
    # Layer 0 (characters) and both LSTM layers, and ELMo's mix of all
    # three.
    assert list(summary["accuracy"]["pos"]) == ["0", "1", "2", "mix"]
    weights = summary["mix_weights"]["pos"]
    assert len(weights) == 3 and sum(weights) == pytest.approx(1, abs=1e-3)
