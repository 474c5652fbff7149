"""`python -m recipes.translation`: train and evaluate a translation
model, or `predict` with one (a run folder or a preset folder) on
sentences, one a line."""

import sys
import warnings

import recipes.translation as package
from recipes import cli
from recipes.translation import config
from recipes.translation.task import TASK


def translate_lines(translator, lines, args):
    """Each line's translation (`--with-source`: after the line and a
    tab)."""
    sentences = [line.strip() for line in lines]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cut sentences: said once below
        translations = translator.translate(sentences, method=args.method)
    long = [
        s
        for s in sentences
        if translator.source_length(s) > translator.max_source_length
    ]
    if long:
        print(
            f"warning: {len(long)} sentence(s) longer than "
            f"{translator.max_source_length} pieces were cut (e.g. "
            f"{long[0][:40]!r})",
            file=sys.stderr,
        )
    return [
        (f"{source}\t" if args.with_source else "") + text
        for source, text in zip(sentences, translations)
    ]


PREDICT_OPTIONS = (
    (
        ("--method",),
        {
            "default": "beam",
            "choices": ("beam", "greedy"),
            "help": "beam search (the run's width and length penalty) or "
            "greedy decoding (default: beam)",
        },
    ),
    (
        ("--with-source",),
        {
            "action": "store_true",
            "help": "write SOURCE<TAB>TRANSLATION (default: the translation "
            "only)",
        },
    ),
)


PROG = "python -m recipes.translation"


def parser():
    """The recipe's argument parser (what `--help` shows)."""
    return cli.parser_for(TASK, PROG, package.__doc__, config.HELP, PREDICTOR)


def main(argv=None):
    """`python -m recipes.translation` with the command-line arguments
    `argv` (a list of strings; default `sys.argv[1:]`); returns the run's
    metrics. Bad arguments raise `harness.UsageError` (one line, exit 2
    from the command line).

    `python -m recipes.translation predict --model RUN` translates each
    line of `--input` (a sentence; standard input by default), one line
    per line."""
    return cli.main(
        TASK, PROG, package.__doc__, config.HELP, argv, predictor=PREDICTOR
    )


PREDICTOR = cli.Predictor(
    TASK.load,
    translate_lines,
    "sentence",
    PREDICT_OPTIONS,
    does="translates sentences (a sentence a line)",
)
