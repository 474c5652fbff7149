"""`recipes.data.brown_ud`: Brown's tags to UD's (UPOS and EWT's Penn
Treebank tags joined), one test per rule on hand-written Brown sentences,
and the reader's `tagset="ud"` and `"upos"` (`recipes.data.brown`)."""

import collections

import pytest

from recipes.data import brown
from recipes.data import brown_ud
from recipes.data.errors import DataError
from zoo.languages.en.ud import UPOS

pytestmark = pytest.mark.backend_free

# The Penn Treebank's 45 tags and EWT's additions.
XPOS = set(
    "CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB "
    "RBR RBS RP SYM TO UH VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB $ # . , : "
    "`` '' -LRB- -RRB- ADD NFP HYPH AFX GW XX".split()
)
# Sentences on which every rule of `brown_ud.RULES` fires.
EXAMPLES = """
I'm/ppss+bem gonna/vbg+to go/vb ;/. a/at well-known/jj ten-year/jj road/nn
cost/vbd $600/nns and/cc 50%/nn ,/, the/at dog's/nn$ bone/nn (/( 1958/cd -/in
``/`` Go/vb home/nr ''/'' '/' pro/nn '/' Smith/np Sunday/nr Jury/nn-tl
he/pps saw/vbd his/pp$ own/jj something/pn who/wps which/wdt book/nn
,/, this/dt is/bez all/abn the/at men/nns ,/, all/abn of/in us/ppo
both/abx men/nns and/cc women/nns there/ex is/bez a/at man/nn
who/wps has/hvz gone/vbn and/cc had/hvd to/to do/do it/ppo
they/ppss do/do not/* know/vb and/cc can/md see/vb ,/, thanks/nns
please/vb come/vb he/pps looked/vbd up/rp if/cs it/pps was/bedz
older/jjr than/cs John/np for/in doing/vbg ./. So/cs he/pps left/vbd
oh/uh ,/, two/cd first/od very/ql many/ap rather/rb later/rbr de/fw-in
coulda/md+hv made/nil
"""
SENTENCES = [
    [tuple(token.rsplit("/", 1)) for token in line.split()]
    for line in EXAMPLES.strip().splitlines()
]


def ud(text):
    """`word/label` of each UD token of a sentence written `word/tag ...`."""
    sentence = [tuple(token.rsplit("/", 1)) for token in text.split()]
    return [f"{word}/{label}" for word, label in brown_ud.convert(sentence)]


def fired(text):
    counts = collections.Counter()
    brown_ud.convert([tuple(t.rsplit("/", 1)) for t in text.split()], counts)
    return {name for name, n in counts.items() if n}


@pytest.mark.parametrize(
    "brown_text, expected",
    [
        ("I'm/ppss+bem", "I/PRON|PRP 'm/AUX|VBP"),
        ("we/ppss don't/do* go/vb",
         "we/PRON|PRP do/AUX|VBP n't/PART|RB go/VERB|VB"),
        ("Don't/do* go/vb", "Do/AUX|VB n't/PART|RB go/VERB|VB"),
        ("can't/md*", "ca/AUX|MD n't/PART|RB"),
        ("won't/md*", "wo/AUX|MD n't/PART|RB"),
        ("Cannot/md* go/vb", "Can/AUX|MD not/PART|RB go/VERB|VB"),
        ("it's/pps+bez", "it/PRON|PRP 's/AUX|VBZ"),
        ("he'll/pps+md", "he/PRON|PRP 'll/AUX|MD"),
        ("we've/ppss+hv gone/vbn", "we/PRON|PRP 've/AUX|VBP gone/VERB|VBN"),
        ("they're/ppss+ber", "they/PRON|PRP 're/AUX|VBP"),
        ("I'd/ppss+md go/vb", "I/PRON|PRP 'd/AUX|MD go/VERB|VB"),
        ("I'd/ppss+hvd gone/vbn", "I/PRON|PRP 'd/AUX|VBD gone/VERB|VBN"),
        ("John's/np$ dog/nn", "John/PROPN|NNP 's/PART|POS dog/NOUN|NN"),
        ("dogs'/nns$ bones/nns", "dogs/NOUN|NNS '/PART|POS bones/NOUN|NNS"),
        ("Let's/vb+ppo go/vb", "Let/VERB|VB 's/PRON|PRP go/VERB|VB"),
        ("I'm/ppss+bem gonna/vbg+to go/vb",
         "I/PRON|PRP 'm/AUX|VBP gon/VERB|VBG na/PART|TO go/VERB|VB"),
        ("I/ppss wanna/vb+to go/vb",
         "I/PRON|PRP wan/VERB|VBP na/PART|TO go/VERB|VB"),
        ("that's/dt+bez", "that/PRON|DT 's/AUX|VBZ"),
        ("'Tis/pps+bez", "'T/PRON|PRP is/AUX|VBZ"),
        ("isn't/bez*", "is/AUX|VBZ n't/PART|RB"),
        ("he's/pps+hvz gone/vbn", "he/PRON|PRP 's/AUX|VBZ gone/VERB|VBN"),
        ("one's/pn$", "one/PRON|NN 's/PART|POS"),
        ("we/ppss gotta/vbn+to", "we/PRON|PRP got/VERB|VBN ta/PART|TO"),
        ("there's/ex+bez", "there/PRON|EX 's/VERB|VBZ"),
        ("shan't/md*", "sha/AUX|MD n't/PART|RB"),
    ],
)  # fmt: skip
def test_split_contractions_as_ud_splits_them(brown_text, expected):
    assert ud(brown_text) == expected.split()
    assert "split" in fired(brown_text)


def test_split_symbol_and_symbol():
    assert ud("cost/vbd $600/nns and/cc 50%/nn") == [
        "cost/VERB|VBD", "$/SYM|$", "600/NUM|CD", "and/CCONJ|CC",
        "50/NUM|CD", "%/SYM|NN",
    ]  # fmt: skip
    assert ud("1958/cd -/in 59/cd") == ["1958/NUM|CD", "-/SYM|SYM", "59/NUM|CD"]
    assert {"split-symbol", "symbol"} <= fired("$5/nns")


def test_hyphenated_words_are_split_as_ewt_splits_them():
    assert ud("a/at well-known/jj by-products/nns ten-year/jj") == [
        "a/DET|DT", "well/ADV|RB", "-/PUNCT|HYPH", "known/ADJ|JJ",
        "by/NOUN|NN", "-/PUNCT|HYPH", "products/NOUN|NNS",
        "ten/ADJ|JJ", "-/PUNCT|HYPH", "year/ADJ|JJ",
    ]  # fmt: skip
    assert ud("1960-61/cd")[1] == "-/PUNCT|HYPH"
    # EWT keeps prefixes on: non-, e-mail, co-, pre-.
    assert ud("non-violent/jj co-op/nn") == [
        "non-violent/ADJ|JJ", "co-op/NOUN|NN",
    ]  # fmt: skip
    assert {"split-hyphen", "hyphen"} <= fired("so-called/jj")


def test_possessive_nouns():
    assert ud("the/at man's/nn$ hat/nn")[1:3] == ["man/NOUN|NN", "'s/PART|POS"]
    assert ud("women's/nns$")[1] == "'s/PART|POS"


def test_punctuation_takes_ewts_tags():
    assert ud("(/( yes/rb )/) ;/. no/rb --/-- :/: ?/. ,/, !/.") == [
        "(/PUNCT|-LRB-", "yes/ADV|RB", ")/PUNCT|-RRB-", ";/PUNCT|,",
        "no/ADV|RB", "--/PUNCT|,", ":/PUNCT|:", "?/PUNCT|.", ",/PUNCT|,",
        "!/PUNCT|.",
    ]  # fmt: skip


def test_quotes_are_written_as_ewt_writes_them():
    assert ud("``/`` Go/vb ''/'' '/' pro/nn '/'") == [
        '"/PUNCT|``', "Go/VERB|VB", "\"/PUNCT|''", "'/PUNCT|``",
        "pro/NOUN|NN", "'/PUNCT|''",
    ]  # fmt: skip


def test_proper_nouns_and_titles():
    assert ud("Smith/np Americans/nps Sunday/nr Sundays/nrs") == [
        "Smith/PROPN|NNP", "Americans/PROPN|NNPS", "Sunday/PROPN|NNP",
        "Sundays/PROPN|NNPS",
    ]  # fmt: skip
    assert ud("the/at-tl United/vbn-tl States/nns-tl Grand/jj-tl Jury/nn-tl")[
        1:
    ] == [
        "United/ADJ|NNP", "States/PROPN|NNPS", "Grand/ADJ|NNP",
        "Jury/PROPN|NNP",
    ]  # fmt: skip
    # A title's function words and lower-case words keep their tags.
    assert ud("The/at-tl Sun/nn-tl of/in-tl life/nn-tl") == [
        "The/DET|DT", "Sun/PROPN|NNP", "of/ADP|IN", "life/NOUN|NN",
    ]  # fmt: skip
    assert "title" in fired("Jury/nn-tl")


def test_nouns():
    assert ud("dog/nn dogs/nns today/nr") == [
        "dog/NOUN|NN", "dogs/NOUN|NNS", "today/NOUN|NN",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "word, tag, label",
    [
        ("he", "pps", "PRON|PRP"), ("I", "ppss", "PRON|PRP"),
        ("them", "ppo", "PRON|PRP"), ("himself", "ppl", "PRON|PRP"),
        ("themselves", "ppls", "PRON|PRP"), ("mine", "pp$$", "PRON|PRP"),
        ("yours", "pp$$", "PRON|PRP"),
        *[(w, "pp$", "PRON|PRP$") for w in
          "my your his her our their its".split()],
        ("something", "pn", "PRON|NN"), ("nothing", "pn", "PRON|NN"),
        ("who", "wps", "PRON|WP"), ("whom", "wpo", "PRON|WP"),
        ("whose", "wp$", "PRON|WP$"), ("that", "wps", "PRON|WDT"),
        ("there", "ex", "PRON|EX"),
    ],
)  # fmt: skip
def test_pronouns(word, tag, label):
    assert ud(f"{word}/{tag} ./.")[0] == f"{word}/{label}"


def test_wh_words_before_a_noun_are_determiners_alone_pronouns():
    assert ud("which/wdt book/nn")[0] == "which/DET|WDT"
    assert ud("what/wdt kind/nn")[0] == "what/DET|WDT"
    assert ud("the/at book/nn which/wdt he/pps read/vbd")[2] == (
        "which/PRON|WDT"
    )
    assert ud("what/wdt he/pps said/vbd")[0] == "what/PRON|WP"
    assert ud("whatever/wdt ./.")[0] == "whatever/PRON|WP"


def test_demonstratives_before_a_noun_phrase_are_determiners():
    assert ud("this/dt book/nn")[0] == "this/DET|DT"
    assert ud("those/dts old/jj men/nns")[0] == "those/DET|DT"
    assert ud("this/dt is/bez")[0] == "this/PRON|DT"
    assert ud("those/dts who/wps")[0] == "those/PRON|DT"
    assert ud("he/pps said/vbd that/cs it/pps")[2] == "that/SCONJ|IN"


def test_determiners_predeterminers_and_quantifiers():
    assert ud("a/at the/at no/at every/at some/dti any/dti each/dt") == [
        f"{w}/DET|DT" for w in "a the no every some any each".split()
    ]
    assert ud("all/abn the/at men/nns")[0] == "all/DET|PDT"
    assert ud("both/abx his/pp$ hands/nns")[0] == "both/DET|PDT"
    assert ud("such/abl a/at day/nn")[0] == "such/DET|PDT"
    assert ud("all/abn of/in them/ppo")[0] == "all/DET|DT"
    assert ud("half/abn of/in it/ppo")[0] == "half/NOUN|NN"
    assert ud("such/abl things/nns")[0] == "such/ADJ|JJ"
    assert ud("quite/abl so/ql")[0] == "quite/ADV|RB"
    assert ud("many/abn a/at man/nn")[0] == "many/ADJ|JJ"
    assert ud("both/abx men/nns and/cc women/nns")[0] == "both/CCONJ|CC"
    assert ud("both/abx of/in us/ppo and/cc")[0] == "both/DET|DT"


def test_be_is_aux_with_its_tense_or_a_verb_after_existential_there():
    text = "be/be were/bed was/bedz being/beg am/bem been/ben are/ber is/bez"
    tenses = "VB VBD VBD VBG VBP VBN VBP VBZ".split()
    assert ud(text) == [
        f"{word.split('/')[0]}/AUX|{tense}"
        for word, tense in zip(text.split(), tenses)
    ]
    assert ud("there/ex is/bez a/at way/nn")[:2] == [
        "there/PRON|EX", "is/VERB|VBZ",
    ]  # fmt: skip
    assert ud("is/bez there/ex")[0] == "is/VERB|VBZ"
    assert ud("there/ex has/hvz been/ben one/cd")[1:3] == [
        "has/AUX|VBZ", "been/VERB|VBN",
    ]  # fmt: skip
    assert ud("there's/ex+bez no/at way/nn")[1] == "'s/VERB|VBZ"
    assert ud("there/ex was/bedz found/vbn")[1] == "was/AUX|VBD"
    assert ud("there/ex was/bedz never/rb found/vbn")[1] == "was/AUX|VBD"
    assert ud("there/ex must/md be/be")[1:] == ["must/AUX|MD", "be/VERB|VB"]


def test_have_and_do_are_aux_when_they_head_a_verb_group():
    assert ud("we/ppss have/hv seen/vbn")[1] == "have/AUX|VBP"
    assert ud("he/pps has/hvz not/* yet/rb gone/vbn")[1] == "has/AUX|VBZ"
    assert ud("Have/hv you/ppss seen/vbn it/ppo ?/.")[0] == "Have/AUX|VBP"
    assert ud("I/ppss have/hv a/at car/nn")[1] == "have/VERB|VBP"
    assert ud("he/pps had/hvd to/to go/vb")[1] == "had/VERB|VBD"
    assert ud("Do/do you/ppss know/vb ?/.")[:3] == [
        "Do/AUX|VBP", "you/PRON|PRP", "know/VERB|VB",
    ]  # fmt: skip
    assert ud("he/pps did/dod not/* go/vb")[1] == "did/AUX|VBD"
    assert ud("he/pps does/doz it/ppo")[1] == "does/VERB|VBZ"
    assert ud("I/ppss didn't/dod* ./.")[1] == "did/AUX|VBD"
    assert ud("Do/do it/ppo now/rb ./.")[0] == "Do/VERB|VB"
    assert ud("it/pps is/bez done/dod")[2] == "done/VERB|VBN"
    assert ud("he/pps must/md go/vb")[1] == "must/AUX|MD"


def test_base_forms_are_vbp_when_finite():
    assert ud("they/ppss go/vb")[1] == "go/VERB|VBP"
    assert ud("the/at men/nns go/vb")[2] == "go/VERB|VBP"
    assert ud("the/at police/nn have/hv gone/vbn")[2] == "have/AUX|VBP"
    assert ud("they/ppss sit/vb and/cc talk/vb") == [
        "they/PRON|PRP", "sit/VERB|VBP", "and/CCONJ|CC", "talk/VERB|VBP",
    ]  # fmt: skip
    assert ud("to/to go/vb")[1] == "go/VERB|VB"
    assert ud("can/md they/ppss go/vb")[2] == "go/VERB|VB"
    assert ud("let/vb him/ppo go/vb")[2] == "go/VERB|VB"
    assert ud("made/vbd the/at men/nns go/vb")[3] == "go/VERB|VB"
    assert ud("Go/vb home/nr ./.")[0] == "Go/VERB|VB"
    assert "present" in fired("we/ppss know/vb")


def test_verbs_keep_their_tense():
    assert ud("said/vbd gone/vbn seems/vbz going/vbg") == [
        "said/VERB|VBD", "gone/VERB|VBN", "seems/VERB|VBZ",
        "going/VERB|VBG",
    ]  # fmt: skip


def test_function_words():
    assert ud("for/in doing/vbg it/ppo")[0] == "for/SCONJ|IN"
    assert ud("looked/vbd up/rp to/to see/vb not/* if/cs and/cc in/in") == [
        "looked/VERB|VBD", "up/ADP|RP", "to/PART|TO", "see/VERB|VB",
        "not/PART|RB", "if/SCONJ|IN", "and/CCONJ|CC", "in/ADP|IN",
    ]  # fmt: skip
    assert ud("oh/uh ,/,")[0] == "oh/INTJ|UH"
    assert ud("please/vb come/vb")[0] == "please/INTJ|UH"
    assert ud("Thanks/nns ./.")[0] == "Thanks/NOUN|NN"
    assert ud("Thank/vb you/ppo")[0] == "Thank/VERB|VBP"
    assert ud("to/to please/vb them/ppo")[1] == "please/VERB|VB"


def test_as_than_like_before_a_noun_phrase_are_adpositions():
    assert ud("older/jjr than/cs John/np")[1] == "than/ADP|IN"
    assert ud("more/ap than/cs he/pps did/dod")[1] == "than/SCONJ|IN"
    assert ud("like/cs a/at bird/nn")[0] == "like/ADP|IN"
    assert ud("as/cs we/ppss know/vb")[0] == "as/SCONJ|IN"


def test_so_opening_a_clause_is_an_adverb_so_that_a_subordinator():
    assert ud("So/cs he/pps left/vbd")[0] == "So/ADV|RB"
    assert ud(",/, so/cs he/pps left/vbd")[1] == "so/ADV|RB"
    assert ud("so/cs that/cs he/pps left/vbd")[0] == "so/SCONJ|IN"
    assert ud("early/rb so/cs he/pps could/md")[1] == "so/SCONJ|IN"


def test_numbers_adjectives_adverbs_and_qualifiers():
    assert ud("two/cd first/od big/jj bigger/jjr biggest/jjt main/jjs") == [
        "two/NUM|CD", "first/ADJ|JJ", "big/ADJ|JJ", "bigger/ADJ|JJR",
        "biggest/ADJ|JJS", "main/ADJ|JJ",
    ]  # fmt: skip
    assert ud("many/ap more/ap most/ap other/ap less/ap") == [
        "many/ADJ|JJ", "more/ADJ|JJR", "most/ADJ|JJS", "other/ADJ|JJ",
        "less/ADJ|JJR",
    ]  # fmt: skip
    assert ud("soon/rb later/rbr best/rbt when/wrb however/wrb how/wql") == [
        "soon/ADV|RB", "later/ADV|RBR", "best/ADV|RBS", "when/ADV|WRB",
        "however/ADV|RB", "how/ADV|WRB",
    ]  # fmt: skip
    assert ud("very/ql too/ql more/ql most/ql enough/qlp") == [
        "very/ADV|RB", "too/ADV|RB", "more/ADV|RBR", "most/ADV|RBS",
        "enough/ADV|RB",
    ]  # fmt: skip


def test_foreign_unsplit_and_untagged_words():
    assert ud("de/fw-in l'union/fw-at+nn-tl") == [
        "de/X|FW", "l'union/X|FW",
    ]  # fmt: skip
    assert ud("coulda/md+hv big-large/jj+jj doan/do*") == [
        "coulda/AUX|MD", "big-large/ADJ|JJ", "doan/VERB|VB",
    ]  # fmt: skip
    assert ud("made/nil (/nil 38/nil") == [
        "made/X|XX", "(/PUNCT|-LRB-", "38/NUM|CD",
    ]  # fmt: skip
    assert {"unsplit", "untagged"} <= fired("coulda/md+hv made/nil")


def test_every_rule_fires_on_the_examples_and_every_label_is_uds():
    counts = brown_ud.count_rules(SENTENCES)
    assert set(counts) == brown_ud.RULE_NAMES
    assert [name for name, n in counts.items() if n == 0] == []
    labels = {label for s in SENTENCES for _, label in brown_ud.convert(s)}
    for label in labels:
        upos, xpos = label.split(brown_ud.JOIN)
        assert upos in UPOS and xpos in XPOS, label
    assert len(brown_ud.RULE_NAMES) == len(brown_ud.RULES)


@pytest.mark.parametrize(
    "sentence, message",
    [
        ([("dog", "zz")], r"tag 'zz' \(of 'dog'\) at position 0: not a Brown"),
        ([("dog", "nn"), ("x's", "vb+zz")], r"tag 'vb\+zz'.*position 1"),
        ([("x", "zz+vb")], r"tag 'zz\+vb'"),
        ([("dog",)], r"\(word, tag\) pairs .* received \('dog',\)"),
        ([("", "nn")], r"non-empty strings; received \('', 'nn'\)"),
        (["dog/nn"], r"received 'dog/nn' at position 0"),
    ],
)
def test_bad_input_names_the_argument_and_what_is_allowed(sentence, message):
    with pytest.raises(ValueError, match=message) as error:
        brown_ud.convert(sentence)
    assert "`sentence`" in str(error.value)


DOC = (
    "\n\n\tThe/at Fulton/np-tl County/nn-tl Jury/nn-tl said/vbd "
    "it's/pps+bez ``/`` his/pp$ ''/'' ./.\n"
)


def test_the_reader_gives_ud_tokens_and_labels(tmp_path):
    path = tmp_path / "ca01"
    path.write_text(DOC)
    ((words, tags),) = brown.read_document(path, tagset="ud")
    assert words == [
        "The", "Fulton", "County", "Jury", "said", "it", "'s", '"', "his",
        '"', ".",
    ]  # fmt: skip
    assert tags[:6] == [
        "DET|DT", "PROPN|NNP", "PROPN|NNP", "PROPN|NNP", "VERB|VBD",
        "PRON|PRP",
    ]  # fmt: skip
    ((_, upos),) = brown.read_document(path, tagset="upos")
    assert upos == [tag.split("|")[0] for tag in tags]
    # The other tag sets are as they were.
    ((words, tags),) = brown.read_document(path, tagset="brown")
    assert words[5] == "it's" and tags[1:3] == ["np", "nn"]
    (cats := tmp_path / "cats.txt").write_text("ca01 news\n")
    counts = collections.Counter()
    documents = brown.load_documents(tmp_path, tagset="ud", counts=counts)
    assert documents[0].sentences[0][1] == tags_of(path)
    assert counts["title"] == 2 and counts["split"] == 1
    assert cats.is_file()


def tags_of(path):
    return brown.read_document(path, tagset="ud")[0][1]


def test_the_reader_names_the_tag_sets_and_a_bad_tag(tmp_path):
    path = tmp_path / "ca01"
    path.write_text(DOC)
    with pytest.raises(
        ValueError,
        match=r"`tagset` must be one of 'universal', 'brown', 'ud', "
        r"'upos'; received 'penn'",
    ):
        brown.read_document(path, tagset="penn")
    path.write_text("\tThe/at dog/zz\n")
    with pytest.raises(DataError, match=r"ca01:1: `sentence` has the tag"):
        brown.read_document(path, tagset="ud")
