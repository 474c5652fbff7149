"""`zoo.heads.sequence_tagger` with character features and a CRF head."""

import keras
import numpy as np
import pytest

import zoo


def _tagger(head="crf", chars=True):
    words = zoo.layers.TokenVocabulary(["the", "cat", "sat"], name="vocabulary")
    characters = (
        zoo.layers.CharacterVocabulary.from_words(
            ["the", "cat", "sat", "The"], name="characters"
        )
        if chars
        else None
    )
    backbone = zoo.stacked_lstm(
        1,
        8,
        vocabulary_size=words.vocabulary_size,
        embedding_dim=8,
        char_vocabulary_size=characters.vocabulary_size if chars else None,
        char_units=4,
    )
    preprocessor = zoo.tasks.TaggerPreprocessor(
        words, ["", "DET", "NOUN", "VERB"], characters=characters
    )
    model = zoo.tasks.Tagger(backbone, preprocessor, head=head)
    return model, words, characters


def _inputs(words, characters, sentences):
    ids = words.encode(sentences)
    if characters is None:
        return ids
    return [ids, characters.encode(sentences, width=ids.shape[1])]


def test_a_crf_tagger_over_words_and_characters_trains_and_reloads(tmp_path):
    model, words, characters = _tagger()
    sentences = [["The", "cat", "sat"], ["the", "cat"]] * 8
    x = _inputs(words, characters, sentences)
    y = np.array([[1, 2, 3], [1, 2, 0]] * 8)
    crf = model.crf
    model.compile(keras.optimizers.Adam(0.05), loss=crf.loss)
    model.fit(x, y, epochs=30, verbose=0)
    emissions = model.predict(x, verbose=0)
    path = np.asarray(crf.decode(emissions, x[0] > 0))
    np.testing.assert_array_equal(path, y)
    model.save(tmp_path / "m.keras")
    again = keras.saving.load_model(tmp_path / "m.keras", safe_mode=True)
    np.testing.assert_allclose(
        again.predict(x, verbose=0), emissions, rtol=1e-5, atol=1e-5
    )
    assert again.characters.characters == characters.characters
    assert again.crf.get_config() == crf.get_config()


def test_character_vocabulary_keeps_case_and_cuts_long_words():
    spell = zoo.layers.CharacterVocabulary.from_words(["ab", "Ab"], max_chars=4)
    assert spell.characters == ["b", "A", "a"]
    assert spell.spell("Abz") == [3, 2, 1]  # unseen "z" is id 1
    assert spell.spell("abbbbA") == [4, 2, 2, 3]  # first 2 and last 2
    assert spell.encode([["ab"], ["ab", "b"]]).shape == (2, 2, 8)


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        ({"head": "hmm"}, ValueError, "head"),
        ({"dropout": 2}, ValueError, "dropout"),
    ],
)
def test_bad_head_arguments_name_the_argument(kwargs, error, message):
    backbone = zoo.stacked_lstm(1, 4, vocabulary_size=10)
    with pytest.raises(error, match=message):
        zoo.heads.sequence_tagger(backbone, 3, **kwargs)


def test_characters_need_a_backbone_that_reads_them():
    backbone = zoo.stacked_lstm(1, 4, vocabulary_size=10)
    preprocessor = zoo.tasks.TaggerPreprocessor(
        zoo.layers.TokenVocabulary(["a"]),
        ["", "A", "B"],
        characters=zoo.layers.CharacterVocabulary(["a"]),
    )
    with pytest.raises(ValueError, match="with `characters`, character ids"):
        zoo.tasks.Tagger(backbone, preprocessor)
    with pytest.raises(TypeError, match="CharacterVocabulary"):
        zoo.tasks.TaggerPreprocessor(
            zoo.layers.TokenVocabulary(["a"]), ["", "A"], characters="abc"
        )


def test_char_vocabulary_size_needs_token_inputs():
    with pytest.raises(ValueError, match="char_vocabulary_size"):
        zoo.stacked_lstm(1, 4, input_dim=3, char_vocabulary_size=5)
