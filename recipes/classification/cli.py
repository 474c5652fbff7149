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


PREDICTOR = cli.Predictor(
    TASK.load,
    classify_lines,
    "text",
    PREDICT_OPTIONS,
    does="classifies text (a text a line)",
)

# `main(argv)` trains and evaluates; `main(["predict", ...])` writes
# `LABEL<TAB>probability` for each line, one line per line.
PROG, parser, _main = cli.commands(TASK, package, config.HELP, PREDICTOR)


def main(argv=None):
    """`python -m recipes.classification` with the command-line
    arguments `argv` (default `sys.argv[1:]`): trains, evaluates and
    saves a text classifier and returns its metrics; `["predict", ...]`
    writes each line's class and probability."""
    return _main(argv)
