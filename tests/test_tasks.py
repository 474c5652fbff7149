"""`zoo.tasks`: task models carry their preprocessing. Raw text goes in
(`tag`, `classify`, `transcribe`, `embed`, and the same through
`__call__` and `predict`), arrays still reach Keras, and a model saved to
`.keras` or a preset comes back as its class with the same results."""

import keras
import numpy as np
import pytest

import zoo
from tests.test_language_model import _model as _language_model

WORDS = ["the", "dog", "sees", "a", "cat", "."]
SENTENCES = ["the dog sees a cat .", "a cat sees the dog"]


def _tagger(crf=False, characters=True):
    vocabulary = zoo.layers.TokenVocabulary(WORDS, name="vocabulary")
    spell = None
    extra = {}
    if characters:
        spell = zoo.layers.CharacterVocabulary.from_words(
            WORDS, name="characters"
        )
        extra = dict(
            char_vocabulary_size=spell.vocabulary_size,
            char_embedding_dim=4,
            char_units=4,
        )
    backbone = zoo.stacked_lstm(
        1,
        4,
        vocabulary_size=vocabulary.vocabulary_size,
        embedding_dim=4,
        **extra,
    )
    preprocessor = zoo.tasks.TaggerPreprocessor(
        vocabulary, ["", "DET", "NOUN", "VERB"], characters=spell
    )
    return zoo.Tagger(backbone, preprocessor, head="crf" if crf else "softmax")


def _classifier():
    vocabulary = zoo.layers.TokenVocabulary(WORDS, name="vocabulary")
    backbone = zoo.stacked_lstm(
        1, 4, vocabulary_size=vocabulary.vocabulary_size, embedding_dim=4
    )
    preprocessor = zoo.tasks.TextClassifierPreprocessor(
        vocabulary, ["animals", "other"]
    )
    return zoo.TextClassifier(backbone, preprocessor)


def _transcriber(**decoding):
    model = zoo.build_seq2seq(
        5, 7, "lstm", 1, 8, embedding_dim=4, attention="general"
    )
    return zoo.Transcriber.from_seq2seq(
        model, list("abc"), ["AA", "B", "K"], **decoding
    )


@pytest.mark.parametrize("crf", [False, True])
def test_a_tagger_tags_raw_text_through_every_entry(crf):
    tagger = _tagger(crf=crf)
    tagged = tagger.tag(SENTENCES + [["a", "dog"]])
    assert [len(s) for s in tagged] == [6, 5, 2]
    assert tagged[2][0][0] == "a"
    assert all(tag in {"DET", "NOUN", "VERB"} for s in tagged for _, tag in s)
    assert tagger(SENTENCES) == tagged[:2]
    assert tagger.predict(SENTENCES) == tagged[:2]
    assert tagger("the dog") == tagger.tag(["the dog"])[0]
    # Arrays are Keras's: the model's outputs.
    ids = tagger.vocabulary.encode([["the", "dog"]])
    chars = tagger.characters.encode([["the", "dog"]], width=ids.shape[1])
    outputs = keras.ops.convert_to_numpy(tagger((ids, chars)))
    assert outputs.shape == (1, 2, 4)


def test_a_tagger_saves_and_reloads_as_a_tagger(tmp_path):
    tagger = _tagger()
    tagger.save(tmp_path / "tagger.keras")
    loaded = keras.saving.load_model(tmp_path / "tagger.keras", safe_mode=True)
    assert type(loaded) is zoo.Tagger
    assert loaded.tag(SENTENCES) == tagger.tag(SENTENCES)
    tagger.save_to_preset(tmp_path / "preset")
    again = zoo.Tagger.from_preset(tmp_path / "preset")
    assert again.tag(SENTENCES) == tagger.tag(SENTENCES)
    recorded = zoo.presets.metadata(tmp_path / "preset")["fixed_inputs"]
    assert recorded == again.fixed_outputs()


def test_a_tagger_needs_its_backbone_and_preprocessor():
    backbone = zoo.stacked_lstm(1, 4, vocabulary_size=9, embedding_dim=4)
    vocabulary = zoo.layers.TokenVocabulary(WORDS)
    with pytest.raises(TypeError, match="`preprocessor` must be a zoo.tasks"):
        zoo.Tagger(backbone, vocabulary)
    with pytest.raises(TypeError, match="`backbone` must be a built Keras"):
        zoo.Tagger("model", zoo.tasks.TaggerPreprocessor(vocabulary, ["", "A"]))
    spelled = zoo.tasks.TaggerPreprocessor(
        vocabulary,
        ["", "A"],
        characters=zoo.layers.CharacterVocabulary.from_words(WORDS),
    )
    with pytest.raises(ValueError, match="with `characters`, character ids"):
        zoo.Tagger(backbone, spelled)
    with pytest.raises(TypeError, match="`vocabulary` must be a zoo.layers"):
        zoo.tasks.TaggerPreprocessor(["the"], ["", "A"])
    with pytest.raises(ValueError, match="`conventions` must be one of"):
        zoo.tasks.TaggerPreprocessor(vocabulary, ["", "A"], conventions="x")
    with pytest.raises(TypeError, match="a list of sentences"):
        _tagger().tag("the dog")


def test_a_classifier_classifies_raw_text():
    classifier = _classifier()
    found = classifier.classify(SENTENCES)
    assert [label for label, _ in found] == [
        label for label, _ in classifier(SENTENCES)
    ]
    assert all(label in ("animals", "other") for label, _ in found)
    assert all(0.5 <= p <= 1 for _, p in found)
    assert classifier.predict(SENTENCES) == found
    assert classifier.classify([]) == []
    with pytest.raises(TypeError, match="must hold strings"):
        classifier.classify(["fine", 5])


def test_a_transcriber_keeps_its_symbols_and_settings(tmp_path):
    transcriber = _transcriber(beam_width=3, max_source_length=6)
    words = ["abc", "", "cab", "abc"]
    phones = transcriber.transcribe(words, method="greedy")
    assert len(phones) == 4 and phones[1] == [] and phones[0] == phones[3]
    assert all(p in ("AA", "B", "K") for row in phones for p in row)
    assert transcriber(words, method="greedy") == phones
    config = transcriber.get_config()
    assert config["preprocessor"]["config"]["source_symbols"] == list("abc")
    assert config["beam_width"] == 3
    assert config["backbone"]["class_name"] == "Seq2Seq"
    transcriber.save(tmp_path / "g2p.keras")
    loaded = keras.saving.load_model(tmp_path / "g2p.keras", safe_mode=True)
    assert type(loaded) is zoo.Transcriber
    assert loaded.beam_width == 3 and loaded.max_source_length == 6
    assert loaded.transcribe(words) == transcriber.transcribe(words)
    with pytest.warns(UserWarning, match="were cut"):
        transcriber.transcribe(["abcabcabc"])
    with pytest.raises(ValueError, match="'beam' or 'greedy'"):
        transcriber.transcribe(["abc"], method="sample")
    with pytest.raises(TypeError, match="must hold strings"):
        transcriber.transcribe(["abc", b"abc"])
    with pytest.raises(ValueError, match="length_penalty"):
        transcriber.configure(length_penalty=float("nan"))


def test_a_transcriber_refuses_sizes_that_do_not_match_its_symbols():
    preprocessor = zoo.tasks.TranscriberPreprocessor(list("ab"), ["X"])
    with pytest.raises(ValueError, match="source_vocabulary_size=9"):
        zoo.Transcriber(zoo.Seq2Seq(9, 5), preprocessor)
    with pytest.raises(TypeError, match="`backbone` must be a zoo.Seq2Seq"):
        zoo.Transcriber(keras.layers.Dense(3), preprocessor)
    with pytest.raises(ValueError, match="distinct non-empty strings"):
        zoo.tasks.TranscriberPreprocessor(list("aa"), ["X"])


def test_a_bilm_scores_and_embeds_raw_text():
    bilm, _, _ = _language_model()
    sentences = ["the cat sat .", ["a", "dog"]]
    rows = bilm.nll(sentences)
    assert [row.shape for row in rows] == [(4, 2), (2, 2)]
    assert np.all(np.concatenate(rows) > 0)
    perplexity = bilm.perplexity(sentences)
    assert set(perplexity) == {"forward", "backward"}
    layers = bilm(sentences)
    assert [x.shape for x in layers] == [(4, 3, 16), (2, 3, 16)]
    assert len(bilm.next_words("the cat sat")) == 3
    assert isinstance(
        bilm.contextual_embedding(), zoo.layers.ContextualEmbedding
    )


def test_a_bilm_refuses_what_is_not_text_in_one_line():
    bilm, _, _ = _language_model()
    refused = [
        (None, TypeError, r"`sentence` must be a string or a list of words"
         r"; received None of type NoneType"),
        (5, TypeError, r"`sentence` must be .*received 5 of type int"),
        (b"the cat", TypeError, r"`sentence` .*of type bytes"),
        (["the", None], TypeError, r"`sentence\[1\]` must be a word"),
        (["the", " "], ValueError, r"`sentence\[1\]` is empty"),
    ]  # fmt: skip
    for value, error, message in refused:
        with pytest.raises(error, match=message):
            bilm.next_words(value)
    with pytest.raises(TypeError, match=r"`sentences\[1\]` must be a str"):
        bilm.nll(["the cat", 3])
    with pytest.raises(TypeError, match="`sentences` must be a list"):
        bilm.perplexity(None)
    assert bilm.next_words("") == bilm.next_words([]) == []
    assert bilm.next_words(("the", "cat")) == bilm.next_words("the cat")


@pytest.mark.parametrize("value", ["text", ["a", "b"], [["a"], "b"]])
def test_raw_text_is_strings_and_lists_of_them(value):
    assert zoo.tasks.is_text(value)


@pytest.mark.parametrize("value", [[], [1, 2], np.zeros((2, 3)), [["a", 1]]])
def test_anything_else_goes_to_keras(value):
    assert not zoo.tasks.is_text(value)
