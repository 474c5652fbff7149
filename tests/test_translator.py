"""`zoo.subwords.Subwords` (a SentencePiece model carried in a config)
and `zoo.tasks.Translator` (a `Transcriber` over pieces): text in, text
out, saved and reloaded on every backend."""

import builtins
import io

import keras
import numpy as np
import pytest

import zoo
from zoo.subwords import Subwords

pytest.importorskip("sentencepiece")

SPANISH = [
    "la casa es grande",
    "el perro come pan",
    "la casa es pequeña",
    "el gato duerme en la casa",
    "el perro y el gato comen",
]
ENGLISH = [
    "the house is big",
    "the dog eats bread",
    "the house is small",
    "the cat sleeps in the house",
    "the dog and the cat eat",
]


@pytest.fixture(scope="module")
def pieces():
    return Subwords.train(SPANISH * 20, 40), Subwords.train(ENGLISH * 20, 40)


def translator(pieces, **decoding):
    source, target = pieces
    model = zoo.build_seq2seq(
        source.size,
        target.size,
        "lstm",
        1,
        16,
        embedding_dim=8,
        attention="general",
        bridge="dense",
        seed=0,
    )
    return zoo.tasks.Translator.from_seq2seq(
        model, source.proto, target.proto, max_target_length=12, **decoding
    )


def test_subwords_round_trip_text_and_keep_the_special_ids(pieces):
    source, _ = pieces
    assert source.pieces()[:4] == ["<pad>", "<unk>", "<s>", "</s>"]
    ids = source.encode(["la casa es grande", "el gato"])
    assert all(i >= 4 for row in ids for i in row)
    assert source.decode(ids) == ["la casa es grande", "el gato"]
    # Decoding stops at the end id and skips the other specials.
    assert source.decode([[2, *ids[1], 3, *ids[0]]]) == ["el gato"]
    again = Subwords(source.to_text())
    assert again == source and again.encode(["la casa"]) == source.encode(
        ["la casa"]
    )
    assert "".join(source.split("el gato")).replace("▁", " ").strip() == (
        "el gato"
    )


def test_subwords_refuse_what_is_not_a_model_of_this_layout():
    with pytest.raises(ValueError, match="`proto` is not a SentencePiece"):
        Subwords(b"not a model")
    with pytest.raises(ValueError, match="`source_subwords`.*not base64"):
        Subwords("¿no?", name="source_subwords")
    with pytest.raises(TypeError, match="`proto` must be a serialized"):
        Subwords(3)
    import sentencepiece

    written = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(ENGLISH * 20),
        model_writer=written,
        vocab_size=30,
        hard_vocab_limit=False,
        minloglevel=2,
    )  # SentencePiece's own ids: unk 0, bos 1, eos 2, no padding
    with pytest.raises(ValueError, match=r"ids \(-1, 0, 1, 2\); expected"):
        Subwords(written.getvalue())
    with pytest.raises(ValueError, match="`vocabulary_size` must leave room"):
        Subwords.train(ENGLISH, 5)
    with pytest.raises(ValueError, match="`model_type` must be one of"):
        Subwords.train(ENGLISH, 40, model_type="word")
    with pytest.raises(ValueError, match="no text"):
        Subwords.train(["", "  "], 40)


def test_a_missing_sentencepiece_names_the_extra(monkeypatch):
    real = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name == "sentencepiece":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    with pytest.raises(ImportError, match=r"stacked-rnn-zoo\[translation\]"):
        Subwords(b"")


def test_translator_translates_text_in_order(pieces):
    model = translator(pieces)
    out = model.translate(["la casa es grande", "", "la casa es grande"])
    assert all(isinstance(text, str) for text in out)
    assert out[1] == "" and out[0] == out[2]
    assert model("la casa es grande") == out[0]
    assert model(["la casa es grande"]) == [out[0]]
    greedy = model.translate(["el gato"], method="greedy")
    assert isinstance(greedy[0], str)
    with pytest.raises(TypeError, match="`sentences` must hold strings"):
        model.translate(["la casa", 3])
    with pytest.raises(ValueError, match="`method` must be 'beam'"):
        model.translate(["la casa"], method="sample")
    long = " ".join(["casa"] * 40)
    with pytest.warns(UserWarning, match="longer than max_source_length=8"):
        model.configure(max_source_length=8).translate([long])


def test_translator_attention_map_rows_are_distributions(pieces):
    model = translator(pieces)
    source, target, weights = model.attention_map(
        "el perro come pan", "the dog eats bread"
    )
    assert source == [model.source_subwords.pieces()[i] for i in (
        model.source_subwords.encode(["el perro come pan"])[0]
    )]  # fmt: skip
    assert weights.shape == (len(target) + 1, len(source))
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-5)
    bare = zoo.build_seq2seq(20, 20, "lstm", 1, 8, attention=None)
    with pytest.raises(ValueError, match="attention=None"):
        bare.attention_weights(np.ones((1, 3), "int32"), np.ones((1, 2)))


def test_translator_saves_reloads_and_becomes_a_preset(pieces, tmp_path):
    model = translator(pieces, beam_width=3)
    expected = model.translate(SPANISH[:3])
    path = tmp_path / "model.keras"
    model.save(path)
    reloaded = keras.saving.load_model(path, safe_mode=True)
    assert type(reloaded) is zoo.tasks.Translator
    assert reloaded.beam_width == 3
    assert reloaded.source_subwords == model.source_subwords
    assert reloaded.translate(SPANISH[:3]) == expected
    model.save_to_preset(tmp_path / "preset")
    preset = zoo.tasks.Translator.from_preset(tmp_path / "preset")
    assert preset.translate(SPANISH[:3]) == expected
    config = model.get_config()["preprocessor"]["config"]
    assert "source_symbols" not in config
    assert isinstance(config["source_subwords"], str)


def test_translator_refuses_a_bad_subword_model(pieces):
    source, target = pieces
    with pytest.raises(ValueError, match="`target_subwords` is not a"):
        zoo.tasks.TranslatorPreprocessor(source.proto, b"junk")
    preprocessor = zoo.tasks.TranslatorPreprocessor(source.proto, target.proto)
    with pytest.raises(ValueError, match="source_vocabulary_size=9 does"):
        zoo.tasks.Translator(zoo.Seq2Seq(9, target.size), preprocessor)
    with pytest.raises(TypeError, match="zoo.tasks.TranslatorPreprocessor"):
        zoo.tasks.Translator(
            zoo.Seq2Seq(source.size, target.size),
            zoo.tasks.TranscriberPreprocessor(["a"], ["b"]),
        )
