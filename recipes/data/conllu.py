"""A small reader for CoNLL-U files: words and one tag column.

CoNLL-U (https://universaldependencies.org/format.html) has one token per
line with 10 tab-separated fields (ID, FORM, LEMMA, UPOS, XPOS, FEATS,
HEAD, DEPREL, DEPS, MISC), comment lines starting with `#`, and a blank
line after each sentence. The tagging recipes need only FORM and one tag
column, and error messages that name the file and line, so this reader is
written here rather than taken from the `conllu` package (which parses
every field and would be one more dependency).

Multiword-token ranges (`3-4`) and empty nodes (`8.1`) are skipped: they
are not tagged tokens. Whitespace inside a FORM (allowed in some treebanks)
becomes `_`, because the recipes split raw text on whitespace.

With `mark_pieces=True`, the tokens that are pieces of one written word
(joined by MISC's `SpaceAfter=No`, or parts of one multiword range) carry
`PIECE_MARK` on the joined side: the Turkish treebank's inflectional
groups `bileş` `en` (the word `bileşen`) read `bileş+` `+en`, so a tagger
sees where a word goes on (`mark_word_pieces`).
"""

import pathlib
import re

from harness.errors import shorten
from recipes.data.errors import DataError
from zoo.tasks import conventions

COLUMNS = {
    "upos": 3, "xpos": 4, "ud": 3, "deprel": 7, "head-direction": 6,
}  # fmt: skip
# Between UPOS and XPOS in a "ud" tag (`PRON|PRP$`), as the taggers'
# conventions read it apart (`zoo.languages.en.ud`).
UD_JOIN = conventions.LABEL_JOIN
_RANGE = re.compile(r"[0-9]+-[0-9]+")
_EMPTY = re.compile(r"[0-9]+\.[0-9]+")
_ID = re.compile(r"[0-9]+")
_SPACE = re.compile(r"\s")
# The mark on the joined side of a piece of a written word.
PIECE_MARK = "+"


def mark_word_pieces(words, joined):
    """`words` with the pieces of one written word marked: where
    `joined[i]` (no space between word i and word i + 1 in the text) and
    both sides of the join are letters or digits, word i ends and word
    i + 1 starts with `PIECE_MARK` (`["bileş", "en"], [True, False]` ->
    `["bileş+", "+en"]`). A word glued to punctuation (`imkansız` `.`)
    is left as it is: that join is spelling, not a word's inside.

    Raises:
        ValueError: `joined` is not one flag a word.
    """
    if len(joined) != len(words):
        raise ValueError(
            f"`joined` must have one flag per word ({len(words)}); "
            f"received {len(joined)}."
        )
    marked = list(words)
    for i in range(len(words) - 1):
        left, right = words[i], words[i + 1]
        if joined[i] and left[-1:].isalnum() and right[:1].isalnum():
            marked[i] += PIECE_MARK
            marked[i + 1] = PIECE_MARK + marked[i + 1]
    return marked


def _joined(misc):
    """Whether a token's MISC field says no space follows it."""
    return "SpaceAfter=No" in misc.split("|")


def read_text(path, what):
    """The UTF-8 text of `path`, without a leading byte-order mark.

    Raises:
        DataError: the file is unreadable, or not UTF-8 (with the line of
            the first bad byte).
    """
    path = pathlib.Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise DataError(f"{path}: cannot read {what} ({error})") from error
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise DataError(
            f"{path}:{line}: not UTF-8 (byte {data[error.start]:#04x}); "
            f"{what} must be UTF-8"
        ) from error


def sentence_blocks(text, skip=None):
    """Yields each sentence of a one-token-per-line file as a list of
    `(line number, line)` pairs.

    Sentences end at blank or whitespace-only lines; `\r` line ends are
    dropped; lines for which `skip(line)` is true (comments) are left out.
    """
    block = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip():
            if block:
                yield block
                block = []
        elif not (skip and skip(line)):
            block.append((number, line))
    if block:
        yield block


def read_conllu(path, column="upos", mark_pieces=False):
    """The sentences of a CoNLL-U file as `(words, tags)` tuples.

    `column` is "upos" (universal tags), "xpos" (language-specific tags),
    "ud" (both, joined by `UD_JOIN`: `PRON|PRP$`; a token without an
    XPOS is refused), "deprel" (the universal dependency relation, its
    subtype after `:` dropped: `obl:tmod` is `obl`) or "head-direction"
    (where the word's
    head is: "left" of it, "right" of it, or "root"). With `mark_pieces`,
    the pieces of one written word are marked (`mark_word_pieces`): a
    token with `SpaceAfter=No` in MISC is joined to the next, and so are
    the tokens of one multiword range.

    Raises:
        ValueError: `column` is not one of `COLUMNS`.
        DataError: the file is unreadable, not UTF-8, malformed (with file
            and line), has a token without a tag (`_`) or with whitespace in
            its tag (`NOUN ` would be a tag of its own), or has no sentence.
    """
    if column not in COLUMNS:
        raise ValueError(
            f"`column` must be one of {', '.join(map(repr, COLUMNS))}; "
            f"received {column!r}."
        )
    index = COLUMNS[column]
    path = pathlib.Path(path)
    text = read_text(path, "a CoNLL-U file")
    sentences = []
    for block in sentence_blocks(text, skip=lambda line: line[:1] == "#"):
        words, tags, joined = [], [], []
        # The open multiword range: its last id and whether its word is
        # joined to the next.
        span = None
        for number, line in block:
            fields = line.split("\t")
            if len(fields) != 10:
                raise DataError(
                    f"{path}:{number}: expected 10 tab-separated fields, got "
                    f"{len(fields)}: {shorten(line)}"
                )
            token_id, form, tag = fields[0], fields[1], fields[index]
            if _RANGE.fullmatch(token_id):
                span = int(token_id.split("-")[1]), _joined(fields[9])
                continue
            if _EMPTY.fullmatch(token_id):
                continue
            if not _ID.fullmatch(token_id):
                raise DataError(
                    f"{path}:{number}: token id {shorten(token_id)} is not an "
                    "integer"
                )
            if not form:
                raise DataError(
                    f"{path}:{number}: token {token_id} has no FORM"
                )
            if not tag or tag == "_":
                raise DataError(
                    f"{path}:{number}: token {shorten(form)} has no "
                    f"{column.upper()} tag ({shorten(tag)})"
                )
            if _SPACE.search(tag):
                raise DataError(
                    f"{path}:{number}: token {shorten(form)}'s "
                    f"{column.upper()} tag {shorten(tag)} holds whitespace "
                    "(CoNLL-U fields are separated by single tabs)"
                )
            if column == "ud":
                xpos = fields[COLUMNS["xpos"]]
                if not xpos or xpos == "_" or _SPACE.search(xpos):
                    raise DataError(
                        f"{path}:{number}: token {shorten(form)} has no "
                        f"XPOS tag ({shorten(xpos)}); --tagset ud reads "
                        "UPOS and XPOS"
                    )
                tag = f"{tag}{UD_JOIN}{xpos}"
            elif column == "head-direction":
                tag = _direction(path, number, token_id, tag)
            elif column == "deprel":
                tag = tag.split(":")[0]
            words.append(_SPACE.sub("_", form))
            tags.append(tag)
            if span is None:
                joined.append(_joined(fields[9]))
            elif int(token_id) < span[0]:
                joined.append(True)  # a part of the range's word
            else:
                joined.append(span[1])  # its last part
                span = None
        if words:
            if mark_pieces:
                words = mark_word_pieces(words, joined)
            sentences.append((words, tags))
    if not sentences:
        raise DataError(f"{path}: no sentences (is it a CoNLL-U file?)")
    return sentences


def _direction(path, number, token_id, head):
    """ "left", "right" or "root": where token `token_id`'s `head` is."""
    if not _ID.fullmatch(head):
        raise DataError(
            f"{path}:{number}: token {token_id}'s HEAD {shorten(head)} is not "
            "an integer"
        )
    head, token = int(head), int(token_id)
    return "root" if head == 0 else ("left" if head < token else "right")


def write_conllu(sentences, path):
    """Writes `(words, tags)` sentences to `path` as CoNLL-U (ids, FORM,
    and UPOS, or UPOS and XPOS where a tag joins them, `PRON|PRP$`; the
    other fields `_`), which `read_conllu` reads back (`column="ud"`)."""
    lines = []
    for words, tags in sentences:
        for i, (word, tag) in enumerate(zip(words, tags), 1):
            upos, _, xpos = tag.partition(UD_JOIN)
            fields = [str(i), word, "_", upos, xpos or "_"] + ["_"] * 5
            lines.append("\t".join(fields))
        lines.append("")
    pathlib.Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_splits(folder, parts):
    """`write_conllu` of the train, dev and test sentences `parts` as
    `folder/{train,dev,test}.conllu` (the folder made if need be);
    returns the paths."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{name}.conllu" for name in ("train", "dev", "test")]
    for path, sentences in zip(paths, parts):
        write_conllu(sentences, path)
    return paths
