"""`zoo.G2p`, a pronunciation system on the shipped `g2p_en_cmudict`: the
dictionary first, homographs by part of speech, numbers read out, the
user's lexicon over everything, the network for the rest; any case or
Unicode form of a word gives the same phonemes; bad input is one clear
error naming it, and nothing is dropped."""

import unicodedata

import pytest

import zoo
from zoo.languages.en import g2p as g2p_lib
from zoo.languages.en import homographs
from zoo.languages.en import lexicon as lexicon_lib
from zoo.languages.en import verbalize as verbalize_lib


@pytest.fixture(scope="module")
def g2p():
    return zoo.G2p(method="greedy")


def _dictionary(word):
    return list(zoo.G2p().dictionary.lookup(word)[0])


def test_dictionary_words_take_the_dictionarys_pronunciation(g2p):
    # Words the network alone got wrong (issue 42): exact now.
    expected = {
        "of": "AH1 V",
        "have": "HH AE1 V",
        "from": "F R AH1 M",
        "only": "OW1 N L IY0",
        "cabinet": "K AE1 B AH0 N AH0 T",
    }
    found = g2p.pronounce_words(list(expected))
    for record, (word, phones) in zip(found, expected.items()):
        assert " ".join(record.phones) == phones, word
        assert record.source == "dictionary"


@pytest.mark.parametrize(
    "forms",
    [
        ("keras", "Keras", "KERAS", "kErAs"),
        ("zoo", "Zoo", "ZOO"),
        ("café", unicodedata.normalize("NFD", "café"), "CAFÉ", "cafe"),
        ("naïve", unicodedata.normalize("NFD", "naïve"), "naive"),
    ],
)
def test_a_word_is_one_word_in_any_case_and_unicode_form(g2p, forms):
    results = [g2p([form])[0] for form in forms]
    assert all(r == results[0] for r in results), results
    assert results[0]


def test_homographs_take_their_part_of_speech(g2p):
    noun = g2p("The refuse was collected.")
    verb = g2p("They refuse to pay.")
    assert " ".join(noun).count("R EH1 F Y UW2 Z") == 1
    assert "R AH0 F Y UW1 Z" in " ".join(verb)
    sources = {s.word: s.source for s in g2p.pronounce("They refuse to pay.")}
    assert sources["refuse"] == "homograph"


@pytest.mark.parametrize(
    "text, phones",
    [
        ("I will read it again.", "R IY1 D"),  # a modal: the present
        ("I want to read more.", "R IY1 D"),
        ("Read the manual!", "R IY1 D"),  # nothing before it says past
        ("I have read it.", "R EH1 D"),  # the participle
        ("She had never read it.", "R EH1 D"),  # the adverb skipped
        ("He read the paper yesterday.", "R EH1 D"),  # he reads / he read
        ("The sign was misread.", "M IH0 S R EH1 D"),
    ],
)
def test_a_verb_read_by_tense_takes_the_one_the_word_before_says(
    g2p, text, phones
):
    # CMUdict lists `read` past first (R EH1 D): "I will read it" read
    # that way before the preset's `tenses.json`.
    (found,) = [s for s in g2p.pronounce(text) if "read" in s.word.lower()]
    assert " ".join(found.phones) == phones, text
    assert found.source == "homograph"


def test_the_word_before_a_verb_skips_adverbs_and_not():
    keys = ["she", "had", "not", "really", "read", "it"]
    tags = ["PRON", "VERB", "PRT", "ADV", "VERB", "PRON"]
    assert g2p_lib.skipped_before_verb("not", "PRT")
    assert not g2p_lib.skipped_before_verb("had", "VERB")
    assert g2p_lib.word_before(keys, tags, 4) == "had"
    assert g2p_lib.word_before(keys, tags, 1) == "she"
    assert g2p_lib.word_before(keys, tags, 0) == g2p_lib.SENTENCE_START
    assert g2p_lib.word_before(["never"], ["ADV"], 1) == "<s>"


def test_numbers_money_and_abbreviations_are_read_out(g2p):
    text = " ".join(g2p("I have 3 apples, $3.50 and Dr. Who in 1984."))
    for said in ("TH R IY1", "D AA1 L ER0 Z", "S EH1 N T S", "D AA1 K T ER0"):
        assert said in text
    assert "N AY1 N T IY1 N" in text  # nineteen (eighty-four)
    assert "$" not in text and "3" not in text
    tokens = [s.token for s in g2p.pronounce("in 1984")]
    assert tokens == ["in", "1984", "1984", "1984"]  # one token, 3 words


def test_the_users_lexicon_overrides_everything(g2p, tmp_path):
    mine = zoo.G2p(
        method="greedy", lexicon={"keras": "K EH1 R AH0 S", "of": ["AA1", "F"]}
    )
    assert mine(["Keras", "of"]) == [
        ["K", "EH1", "R", "AH0", "S"],
        ["AA1", "F"],
    ]
    assert mine.pronounce("keras")[0].source == "lexicon"
    path = tmp_path / "mine.dict"
    path.write_text("keras  K EH1 R AH0 S\n# a comment\nzoo(2) Z UW1\n")
    assert zoo.G2p(method="greedy", lexicon=path)(["keras"]) == [
        ["K", "EH1", "R", "AH0", "S"]
    ]


@pytest.mark.parametrize(
    "lexicon, message",
    [
        ({"keras": "K EH1 R AH0 XX9"}, "'XX9', which is not one of"),
        ({"keras": "k eh1"}, "not a phoneme"),
        ({"": "K"}, "a word must be a non-empty string"),
        ({"keras": []}, "must map to phonemes"),
        (["keras"], "`lexicon` must be a dict"),
    ],
)
def test_a_bad_lexicon_entry_is_named(lexicon, message):
    with pytest.raises((ValueError, TypeError), match=message):
        zoo.G2p(method="greedy", lexicon=lexicon)


def test_a_malformed_lexicon_file_is_named_with_its_line(tmp_path):
    path = tmp_path / "bad.dict"
    path.write_text("keras K EH1 R AH0 S\nzoo\n")
    with pytest.raises(ValueError, match=r"bad.dict:2: expected 'WORD"):
        zoo.G2p(lexicon=path)
    with pytest.raises(ValueError, match="no such file"):
        zoo.G2p(lexicon=tmp_path / "missing.dict")


@pytest.mark.parametrize(
    "text, error, message",
    [
        ([b"keras"], TypeError, r"`text\[0\]` must be a word"),
        ([5], TypeError, r"`text\[0\]` must be a word"),
        (["keras", ""], ValueError, r"`text\[1\]` is empty"),
        (5, TypeError, "`text` must be a string or a list"),
        (None, TypeError, "`text` must be a string or a list"),
    ],
)
def test_bad_input_is_one_error_naming_it(g2p, text, error, message):
    with pytest.raises(error, match=message):
        g2p(text)


def test_a_preset_that_is_none_is_named():
    with pytest.raises(zoo.presets.PresetError, match="^preset: expected"):
        zoo.G2p("")
    with pytest.raises(zoo.presets.PresetError, match="not a Transcriber"):
        zoo.G2p("pos_en_universal")


def test_nothing_is_dropped_and_what_cannot_be_read_is_said(g2p):
    spoken = g2p.pronounce("Blorptastic 👍🏽 https://keras.io !")
    assert [s.token for s in spoken] == [
        "Blorptastic",
        "👍🏽",
        "https://keras.io",
        "!",
    ]
    sources = [s.source for s in spoken]
    assert sources == [
        "predicted",
        "untranscribed",
        "untranscribed",
        "untranscribed",
    ]
    assert g2p("👍🏽 ok")[0] == "👍🏽"
    # A phrase in a list is read as text is, its words joined by " ".
    assert g2p(["keras zoo"]) == [g2p("keras zoo")]


def test_verbalize_joins_a_sign_to_its_number():
    tokens = zoo.text.tokenize(
        "$3.50 or 50% on the 21st", lowercase=False, split_punctuation=True
    )
    assert verbalize_lib.verbalize(tokens) == [
        ("$3.50", ["three", "dollars", "fifty", "cents"]),
        ("or", ["or"]),
        ("50%", ["fifty", "percent"]),
        ("on", ["on"]),
        ("the", ["the"]),
        ("21st", ["twenty", "first"]),
    ]


def test_entities_tags_and_titles_are_read_as_what_they_stand_for():
    tokens = zoo.text.tokenize(
        "Dr. Who &amp; $AAPL &#39; @keras on Baker St.",
        lowercase=False,
        split_punctuation=True,
    )
    assert verbalize_lib.verbalize(tokens) == [
        ("Dr.", ["doctor"]),  # a capitalised name follows
        ("Who", ["Who"]),
        ("&amp;", ["and"]),
        ("$AAPL", ["AAPL"]),
        ("&#39;", []),  # an apostrophe: nothing to say
        ("@keras", ["keras"]),
        ("on", ["on"]),
        ("Baker", ["Baker"]),
        ("St.", ["street"]),  # nothing capitalised follows
    ]


def test_a_predicted_word_keeps_the_token_it_was_read_from(g2p):
    spoken = g2p.pronounce("@zorblax and $QQQX")
    assert [(s.token, s.word, s.source) for s in spoken] == [
        ("@zorblax", "zorblax", "predicted"),
        ("and", "and", "dictionary"),
        ("$QQQX", "QQQX", "predicted"),
    ]


def test_the_lexicon_reader_keeps_every_variant_in_order():
    entries = lexicon_lib.parse(["read R IY1 D", "read(2) R EH1 D", ";;; x"])
    assert entries == {"read": [("R", "IY1", "D"), ("R", "EH1", "D")]}
    found = lexicon_lib.Lexicon(entries).lookup("READ")
    assert found[1] == ("R", "EH1", "D")


def test_g2p_is_english_and_the_generic_tasks_do_not_know_it():
    assert zoo.G2p is zoo.languages.en.G2p is g2p_lib.G2p
    assert zoo.languages.en.TRANSCRIBER == "g2p_en_cmudict"
    assert not hasattr(zoo.tasks, "G2p")


def test_the_dictionary_asset_is_written_as_it_is_read(tmp_path):
    entries = {
        "read": [("R", "IY1", "D"), ("R", "EH1", "D")],
        "café": [("K", "AE0", "F", "EY1")],
    }
    path = lexicon_lib.write(entries, tmp_path / "cmudict.dict.gz")
    assert lexicon_lib.read(path) == entries
    # The same entries, the same bytes (a preset's checksum).
    (tmp_path / "again").mkdir()
    again = lexicon_lib.write(entries, tmp_path / "again" / path.name)
    assert path.read_bytes() == again.read_bytes()


def test_the_homograph_tables_come_from_a_dictionary_and_a_tagged_corpus():
    entries = {
        "record": [
            ("R", "EH1", "K", "ER0", "D"),
            ("R", "IH0", "K", "AO1", "R", "D"),
        ],
        "the": [("DH", "AH0")],
    }
    sentences = [
        (["I", "will", "record", "it"], ["ppss", "md", "vb", "ppo"]),
        (["the", "record"], ["at", "nn"]),
    ]
    universal = {
        "ppss": "PRON", "ppo": "PRON", "md": "VERB", "vb": "VERB",
        "at": "DET", "nn": "NOUN",
    }.get  # fmt: skip
    found = homographs.tables(entries, sentences, universal)
    assert found == {
        g2p_lib.HOMOGRAPHS_ASSET: {
            "record": {
                "NOUN": "R EH1 K ER0 D",
                "ADJ": "R EH1 K ER0 D",
                "VERB": "R IH0 K AO1 R D",
            }
        },
        # One verb: too few to say a tense after any word.
        g2p_lib.TENSES_ASSET: {"after": {}, "otherwise": "present"},
    }
    assert set(found) == set(g2p_lib.G2p.preset_assets) - {
        g2p_lib.DICTIONARY_ASSET
    }
