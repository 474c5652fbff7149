"""`python -m recipes.classification`: train and evaluate a text
classifier, or `predict` with one (a run folder or a preset) on lines of
text."""

import recipes.classification as package
from recipes import cli
from recipes.classification import config
from recipes.classification.task import TASK


def classify_lines(classifier, lines, args):
    """`LABEL<TAB>probability` (and, `--with-text`, the text) a line."""
    return [
        f"{label}\t{probability:.4f}" + (f"\t{line}" if args.with_text else "")
        for line, (label, probability) in zip(
            lines, classifier.classify(list(lines))
        )
    ]


PREDICT_OPTIONS = (
    (
        ("--with-text",),
        {
            "action": "store_true",
            "help": "write LABEL<TAB>PROBABILITY<TAB>TEXT (default: the "
            "label and its probability)",
        },
    ),
)


PROG = "python -m recipes.classification"
PREDICTOR = cli.Predictor(
    TASK.load,
    classify_lines,
    "text",
    PREDICT_OPTIONS,
    does="classifies text (a text a line)",
)


def parser():
    """The recipe's argument parser (what `--help` shows)."""
    return cli.parser_for(TASK, PROG, package.__doc__, config.HELP, PREDICTOR)


def main(argv=None):
    """`python -m recipes.classification` with the command-line arguments
    `argv` (a list of strings; default `sys.argv[1:]`); returns the run's
    metrics. Bad arguments raise `harness.UsageError` (one line, exit 2
    from the command line).

    `python -m recipes.classification predict --model NAME_OR_RUN`
    classifies each line of `--input` (standard input by default) and
    writes `LABEL<TAB>probability`, one line per line."""
    return cli.main(
        TASK, PROG, package.__doc__, config.HELP, argv, predictor=PREDICTOR
    )
