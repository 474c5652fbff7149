"""`python -m recipes.translation`: train and evaluate a translation
model, or `predict` with one (a run folder or a preset folder) on
sentences, one a line."""

import sys
import warnings

import recipes.translation as package
from recipes import cli
from recipes import encoder_decoder
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
    encoder_decoder.PREDICT_METHOD,
    (
        ("--with-source",),
        {
            "action": "store_true",
            "help": "write SOURCE<TAB>TRANSLATION (default: the translation "
            "only)",
        },
    ),
)


PREDICTOR = cli.Predictor(
    TASK.load,
    translate_lines,
    "sentence",
    PREDICT_OPTIONS,
    does="translates sentences (a sentence a line)",
)

# `main(argv)` trains and evaluates; `main(["predict", ...])` writes each
# sentence's translation (`--with-source`: after the source), a line each.
PROG, parser, _main = cli.commands(TASK, package, config.HELP, PREDICTOR)


def main(argv=None):
    """`python -m recipes.translation` with the command-line arguments `argv`
    (default `sys.argv[1:]`): trains, evaluates and saves a translator and
    returns its metrics; `["predict", ...]` writes each line's translation."""
    return _main(argv)
