"""`zoo.tasks.TaggerEnsemble`: taggers that tag as one, their outputs
averaged; and `python -m recipes.tagging predict --model A,B`."""

import dataclasses

import numpy as np
import pytest

import harness
import zoo
from benchmarks import ensemble as ensemble_benchmark
from recipes import classification
from recipes import tagging
from tests.recipes import test_classification
from tests.recipes import test_tagging

WORDS = ["the", "dog", "cat", "runs", "sees"]


def tiny_tagger(seed, head="softmax", labels=("", "DET", "NOUN", "VERB")):
    backbone = zoo.stacked_rnn(
        "lstm", 1, 4, vocabulary_size=len(WORDS) + 2, bidirectional=True,
        seed=seed, embedding_dim=3,
    )  # fmt: skip
    vocabulary = zoo.layers.TokenVocabulary(WORDS, name="vocabulary")
    preprocessor = zoo.tasks.TaggerPreprocessor(vocabulary, list(labels))
    tagger = zoo.tasks.Tagger(backbone, preprocessor, head=head)
    for i, weight in enumerate(tagger.weights):  # distinct members
        rng = np.random.default_rng(seed * 100 + i)
        weight.assign(rng.normal(0, 0.5, weight.shape).astype("float32"))
    return tagger


SENTENCES = [["the", "dog", "runs"], ["the", "cat", "sees", "the", "dog"]]


def test_a_softmax_ensemble_takes_the_best_of_the_mean_probabilities():
    members = [tiny_tagger(0), tiny_tagger(1), tiny_tagger(2)]
    ensemble = zoo.tasks.TaggerEnsemble(members)
    mean = np.mean([m.infer(m.encode(SENTENCES)) for m in members], axis=0)
    best = mean[..., 1:].argmax(axis=-1) + 1
    expected = [
        [members[0].labels[j] for j in row[: len(s)]]
        for row, s in zip(best, SENTENCES)
    ]
    assert ensemble.predict_tags(SENTENCES) == expected
    tagged = ensemble.tag(["the dog runs"])
    assert [w for w, _ in tagged[0]] == ["the", "dog", "runs"]


def test_a_crf_ensemble_decodes_with_the_mean_transitions():
    members = [tiny_tagger(0, "crf"), tiny_tagger(1, "crf")]
    ensemble = zoo.tasks.TaggerEnsemble(members)
    emissions = np.mean([m.infer(m.encode(SENTENCES)) for m in members], 0)
    emissions[..., 0] = -1e9
    decode = zoo.engine.crf_decoder([m.crf for m in members])
    real = members[0].vocabulary.encode(SENTENCES) > 0
    expected = decode(emissions, real)
    got = ensemble.batch_tag_ids(SENTENCES)
    np.testing.assert_array_equal(got, expected)
    # The mean transitions are used: a decoder of one member differs
    # from the ensemble's where the members disagree.
    one = zoo.engine.crf_decoder(members[0].crf)
    same = zoo.engine.crf_decoder([members[0].crf, members[0].crf])
    np.testing.assert_array_equal(one(emissions, real), same(emissions, real))


def test_one_tagger_averaged_with_itself_tags_as_it_does():
    tagger = tiny_tagger(3, "crf")
    ensemble = zoo.tasks.TaggerEnsemble([tagger, tagger])
    assert ensemble.predict_tags(SENTENCES) == tagger.predict_tags(SENTENCES)


@pytest.mark.parametrize(
    "members,error,message",
    [
        (lambda: [tiny_tagger(0)], ValueError, "at least two taggers"),
        (lambda: "tagger", TypeError, "a list of zoo.tasks.Tagger"),
        (lambda: [tiny_tagger(0), "x"], TypeError, r"`taggers\[1\]` must be"),
        (
            lambda: [tiny_tagger(0), tiny_tagger(1, labels=("", "A", "B"))],
            ValueError,
            "must share their labels",
        ),
        (
            lambda: [tiny_tagger(0), tiny_tagger(1, "crf")],
            ValueError,
            "differ in their heads",
        ),
    ],
)
def test_members_that_cannot_join_are_named(members, error, message):
    with pytest.raises(error, match=message):
        zoo.tasks.TaggerEnsemble(members())


@pytest.mark.every_backend
@pytest.mark.torch_tier  # four trainings: every backend in make test-all
def test_predict_with_several_runs_tags_with_their_ensemble(tmp_path, capsys):
    config = test_tagging.tiny_config(tmp_path, output=str(tmp_path / "run0"))
    runs = [str(tmp_path / "run0"), str(tmp_path / "run1")]
    tagging.run(config)
    tagging.run(dataclasses.replace(config, output=runs[1], seed=1))
    text = tmp_path / "in.txt"
    text.write_text("the dog runs\n", encoding="utf-8")
    capsys.readouterr()
    argv = ["predict", "--model", ",".join(runs), "--input", str(text),
            "--tokenized"]  # fmt: skip
    harness.run_cli(tagging.main, argv)
    out = capsys.readouterr().out.strip()
    ensemble = zoo.tasks.TaggerEnsemble([tagging.load(r) for r in runs])
    expected = ensemble.tag([["the", "dog", "runs"]])[0]
    assert out == " ".join(f"{w}/{t}" for w, t in expected)
    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(tagging.main, ["predict", "--model", f"{runs[0]},"])
    assert exit_info.value.code == 2
    assert "an empty name between commas" in capsys.readouterr().err
    # The benchmark scores the members and their ensemble on the split.
    result = ensemble_benchmark.main([*runs, "--output", str(tmp_path / "e")])
    assert len(result["test"]["members"]) == 2
    assert 0.5 < result["test"]["ensemble"] <= 1.0
    other = dataclasses.replace(
        config, output=str(tmp_path / "run2"), tagset="brown"
    )
    tagging.run(other)
    with pytest.raises(harness.UsageError, match="tagset 'brown'"):
        ensemble_benchmark.main([runs[0], other.output])


@pytest.mark.every_backend
@pytest.mark.torch_tier  # two trainings: every backend in make test-all
def test_the_benchmark_averages_classifiers_and_refuses_mixed_runs(tmp_path):
    # One epoch: the test is what is averaged, not how well it scores.
    config = test_classification.tiny_config(
        tmp_path, output=str(tmp_path / "c0"), epochs=1
    )
    runs = [str(tmp_path / "c0"), str(tmp_path / "c1")]
    classification.run(config)
    classification.run(dataclasses.replace(config, output=runs[1], seed=1))
    result = ensemble_benchmark.main([*runs, "--output", str(tmp_path / "e")])
    assert result["metric"] == "accuracy"
    members = [classification.load(run) for run in runs]
    data = classification.TASK.load_data(config)
    texts = [text for text, _ in data.test]
    labels = list(members[0].labels)
    mean = np.mean([m.probabilities(texts) for m in members], axis=0)
    truth = [labels.index(label) for _, label in data.test]
    expected = float(np.mean(mean.argmax(-1) == np.array(truth)))
    assert result["test"]["ensemble"] == pytest.approx(expected)
    # A tagger's run folder (its saved model is all the check reads).
    (tmp_path / "t0").mkdir()
    tiny_tagger(0).save(tmp_path / "t0" / "model.keras")
    with pytest.raises(harness.UsageError, match="all taggers or all"):
        ensemble_benchmark.main([runs[0], str(tmp_path / "t0")])
