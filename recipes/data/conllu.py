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
"""

import pathlib
import re

from harness.errors import shorten
from recipes.data.errors import DataError

COLUMNS = {"upos": 3, "xpos": 4, "deprel": 7, "head-direction": 6}
_RANGE = re.compile(r"[0-9]+-[0-9]+")
_EMPTY = re.compile(r"[0-9]+\.[0-9]+")
_ID = re.compile(r"[0-9]+")
_SPACE = re.compile(r"\s")


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


def read_conllu(path, column="upos"):
    """The sentences of a CoNLL-U file as `(words, tags)` tuples.

    `column` is "upos" (universal tags), "xpos" (language-specific tags),
    "deprel" (the universal dependency relation, its subtype after `:`
    dropped: `obl:tmod` is `obl`) or "head-direction" (where the word's
    head is: "left" of it, "right" of it, or "root").

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
        words, tags = [], []
        for number, line in block:
            fields = line.split("\t")
            if len(fields) != 10:
                raise DataError(
                    f"{path}:{number}: expected 10 tab-separated fields, got "
                    f"{len(fields)}: {shorten(line)}"
                )
            token_id, form, tag = fields[0], fields[1], fields[index]
            if _RANGE.fullmatch(token_id) or _EMPTY.fullmatch(token_id):
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
            if column == "head-direction":
                tag = _direction(path, number, token_id, tag)
            elif column == "deprel":
                tag = tag.split(":")[0]
            words.append(_SPACE.sub("_", form))
            tags.append(tag)
        if words:
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
