"""keras-hub's three parts: every task class is built from a backbone and
a preprocessor (named in its constructor), saves them as its config and
comes back from `save_to_preset` / `from_preset` and `.keras` with the
same parts and the same outputs, on every backend. A preset or a run's
`.keras` of 0.1.0's layout (format 2) loads through the one converter."""

import inspect
import json
import zipfile

import keras
import numpy as np
import pytest

import zoo
from tests import helpers

WORDS = ["<s>", "</s>", "the", "dog", "sees", "a", "cat", "."]
SENTENCES = ["the dog sees a cat .", "a cat"]
TASKS = (
    zoo.tasks.Tagger,
    zoo.tasks.TextClassifier,
    zoo.tasks.Transcriber,
    zoo.tasks.Translator,
    zoo.tasks.BiLM,
)


def _vocabularies():
    vocabulary = zoo.layers.TokenVocabulary(WORDS)
    characters = zoo.layers.CharacterVocabulary.from_words(WORDS)
    return vocabulary, characters


def _tagger():
    vocabulary, characters = _vocabularies()
    backbone = zoo.Backbone(
        "lstm", 1, 4, vocabulary_size=vocabulary.vocabulary_size,
        embedding_dim=3, char_vocabulary_size=characters.vocabulary_size,
        char_units=3, bidirectional=True,
    )  # fmt: skip
    preprocessor = zoo.tasks.TaggerPreprocessor(
        vocabulary, ["", "DET", "NOUN", "VERB"], characters=characters
    )
    return zoo.tasks.Tagger(backbone, preprocessor, head="crf", dropout=0.1)


def _classifier():
    vocabulary, _ = _vocabularies()
    backbone = zoo.Backbone(
        "gru", 2, 4, vocabulary_size=vocabulary.vocabulary_size,
        embedding_dim=3,
    )  # fmt: skip
    wide = zoo.layers.TfIdf(vocabulary.vocabulary_size, name="bag_of_words")
    wide.adapt(vocabulary.encode(SENTENCES))
    preprocessor = zoo.tasks.TextClassifierPreprocessor(
        vocabulary, ["animals", "other"]
    )
    return zoo.tasks.TextClassifier(
        backbone, preprocessor, pooling="attention", attention_units=3,
        wide=wide,
    )  # fmt: skip


def _transcriber():
    preprocessor = zoo.tasks.TranscriberPreprocessor(
        list("adgostc"), ["D", "AO1", "G", "K"]
    )
    backbone = zoo.build_seq2seq(
        preprocessor.source_vocabulary_size,
        preprocessor.target_vocabulary_size,
        "lstm", 1, 6, embedding_dim=4, attention="general",
    )  # fmt: skip
    return zoo.tasks.Transcriber(backbone, preprocessor, beam_width=2)


def _translator():
    source = zoo.subwords.Subwords.train(
        ["el perro ve un gato", "un gato"] * 20, vocabulary_size=24
    )
    target = zoo.subwords.Subwords.train(
        ["the dog sees a cat", "a cat"] * 20, vocabulary_size=24
    )
    preprocessor = zoo.tasks.TranslatorPreprocessor(source, target)
    backbone = zoo.build_seq2seq(
        preprocessor.source_vocabulary_size,
        preprocessor.target_vocabulary_size,
        "gru", 1, 6, embedding_dim=4, attention="general",
    )  # fmt: skip
    return zoo.tasks.Translator(
        backbone, preprocessor, max_target_length=6, beam_width=2
    )


def _bilm():
    vocabulary, characters = _vocabularies()
    return zoo.tasks.BiLM.create(
        vocabulary, characters, units=4, num_layers=1, char_units=4,
        num_sampled=0, seed=1,
    )  # fmt: skip


BUILDERS = {
    "Tagger": _tagger,
    "TextClassifier": _classifier,
    "Transcriber": _transcriber,
    "Translator": _translator,
    "BiLM": _bilm,
}


def _answers(model):
    """What a task says of raw text (its `run_text`, and its fixed
    outputs: what a preset records)."""
    if isinstance(model, zoo.tasks.Translator):
        return model.translate(["el perro", "un gato"], method="greedy")
    if isinstance(model, zoo.tasks.Transcriber):
        return model.transcribe(["dog", "cat"])
    if isinstance(model, zoo.tasks.BiLM):
        return [np.round(x, 4).tolist() for x in model.nll(SENTENCES)]
    return model(SENTENCES)


def _json(config):
    """`config` as JSON reads it back (tuples as lists)."""
    return json.loads(json.dumps(config))


@pytest.mark.parametrize("cls", TASKS, ids=lambda cls: cls.__name__)
def test_each_task_names_its_backbone_and_preprocessor(cls):
    parameters = list(inspect.signature(cls.__init__).parameters)
    assert parameters[1:3] == ["backbone", "preprocessor"]
    model = BUILDERS[cls.__name__]()
    config = model.get_config()
    assert isinstance(model.preprocessor, zoo.tasks.Preprocessor)
    assert (
        config["preprocessor"]["class_name"]
        == type(model.preprocessor).__name__
    )
    assert config["backbone"]["class_name"] == type(model.backbone).__name__
    # No vocabulary or label layer sits in the graph: the preprocessor
    # holds them.
    kinds = {type(layer).__name__ for layer in model.layers}
    assert not kinds & {"TokenVocabulary", "LabelNames", "CharacterVocabulary"}


@pytest.mark.every_backend
@pytest.mark.parametrize("cls", TASKS, ids=lambda cls: cls.__name__)
def test_a_task_from_parts_round_trips_through_a_preset(cls, tmp_path):
    model = BUILDERS[cls.__name__]()
    before = _answers(model)
    model.save_to_preset(tmp_path / "preset")
    found = zoo.presets.metadata(tmp_path / "preset")
    assert found["format_version"] == zoo.presets.FORMAT_VERSION == 3
    again = cls.from_preset(tmp_path / "preset")
    assert type(again) is cls
    assert type(again.backbone) is type(model.backbone)
    assert _json(again.preprocessor.get_config()) == _json(
        model.preprocessor.get_config()
    )
    assert _json(again.get_config()) == _json(model.get_config())
    assert _answers(again) == before
    for mine, theirs in zip(model.get_weights(), again.get_weights()):
        np.testing.assert_array_equal(mine, theirs)
    model.save(tmp_path / "model.keras")
    reloaded = keras.saving.load_model(tmp_path / "model.keras")
    assert type(reloaded) is cls and _answers(reloaded) == before


def test_a_backbones_config_is_its_arguments():
    vectors = np.random.default_rng(0).normal(size=(9, 3)).astype("float32")
    backbone = zoo.stacked_rnn(
        "gru", 2, 5, vocabulary_size=9, word_vectors=vectors,
        kernel_regularizer=keras.regularizers.L2(0.01), name="words",
    )  # fmt: skip
    assert isinstance(backbone, zoo.Backbone)
    config = backbone.get_config()
    assert (config["cell"], config["num_layers"], config["units"]) == (
        "gru", 2, 5,
    )  # fmt: skip
    assert config["word_vectors_shape"] == [9, 3]  # the values are weights
    assert "word_vectors" not in config and "layers" not in config
    again = zoo.Backbone.from_config(json.loads(json.dumps(config)))
    again.set_weights(backbone.get_weights())
    ids = np.array([[1, 2, 3, 0]])
    np.testing.assert_allclose(
        helpers.to_numpy(again(ids)), helpers.to_numpy(backbone(ids)), atol=1e-6
    )
    assert (
        zoo.create_model("lstm_tiny", vocabulary_size=9).arguments["units"]
        == 32
    )


def _as_first_release_keras(folder, path):
    """A `.keras` file as 0.1.0 saved a task model: the format-2 preset
    folder's config and weights in Keras's archive."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "3"}))
        for name in ("config.json", "model.weights.h5"):
            archive.write(folder / name, name)


@pytest.mark.parametrize("name", ["pos_en_universal_fast", "g2p_en_cmudict"])
def test_a_first_release_preset_and_run_convert_to_the_parts(name, tmp_path):
    folder = zoo.presets.resolve(name)
    assert zoo.presets.metadata(name)["format_version"] == 2
    preset = zoo.presets.from_preset(name)
    assert isinstance(preset.preprocessor, zoo.tasks.Preprocessor)
    recorded = zoo.presets.metadata(name)["fixed_inputs"]
    fixed = preset.fixed_outputs()
    key = "sentences" if "sentences" in recorded else "words"
    assert fixed[key] == recorded[key]
    assert (
        fixed["tags" if key == "sentences" else "beam"]
        == (recorded["tags" if key == "sentences" else "beam"])
    )
    _as_first_release_keras(folder, tmp_path / "model.keras")
    run = zoo.tasks.convert.load_model(tmp_path / "model.keras")
    assert type(run) is type(preset)
    assert run.fixed_outputs() == preset.fixed_outputs()
    # Saved again, it is a preset of this release's layout.
    run.save_to_preset(tmp_path / "again")
    assert zoo.presets.metadata(tmp_path / "again")["format_version"] == 3
    assert type(zoo.presets.from_preset(tmp_path / "again")) is type(preset)
    with pytest.raises(ValueError, match="not a task model saved by 0.1.0"):
        run.save(tmp_path / "new.keras")
        zoo.tasks.convert.load_model(tmp_path / "new.keras")


def test_a_presets_preprocessor_loads_on_its_own():
    preprocessor = zoo.tasks.TaggerPreprocessor.from_preset(
        "pos_en_universal_fast"
    )
    assert preprocessor.conventions == "en_brown"
    ids = preprocessor.encode([["The", "cat"]])
    assert ids[0].shape == (1, 2) and ids[0].min() > 1
    with pytest.raises(zoo.presets.PresetError, match="not a TaggerPre"):
        zoo.tasks.TaggerPreprocessor.from_preset("g2p_en_cmudict")
