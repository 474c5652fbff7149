"""`python -m recipes.tagging`: train and evaluate a tagger, or `predict`
with one (a run folder or a preset) on lines of text."""

import harness
import recipes.tagging as package
import zoo
from recipes import cli
from recipes.tagging import config
from recipes.tagging.task import TASK

PREDICT_OPTIONS = (
    (
        ("--tokenized",),
        {
            "action": "store_true",
            "help": "the words of a line are separated by spaces (default: "
            "raw text, split into words and punctuation)",
        },
    ),
    (
        ("--separator",),
        {"default": "/", "help": "between a word and its tag (default: /)"},
    ),
    (
        ("--tagset",),
        {
            "help": "the view of the tags, where the model has it: "
            "'universal' (the 12 universal tags) or 'ptb' (Penn Treebank "
            "tags; pos_en_ud_fast); default: the model's own (UD's 17 "
            "for pos_en_ud_fast)",
        },
    ),
)


def tag_lines(tagger, lines, args):
    """`word/TAG ...` for each line: raw text, or `--tokenized` words; in
    the view `--tagset` names (one line naming the model's otherwise)."""
    if args.tagset not in tagger.tagsets():
        views = ", ".join(str(x) for x in tagger.tagsets() if x)
        raise harness.UsageError(
            f"--tagset {args.tagset}: the model answers in "
            f"{views or 'its own tags only'} (or no --tagset: its own)"
        )
    sentences = [line.split() if args.tokenized else line for line in lines]
    return [
        " ".join(f"{word}{args.separator}{tag}" for word, tag in pairs)
        for pairs in tagger.tag(sentences, tagset=args.tagset)
    ]


def load(spec):
    """`TASK.load` of a run folder or preset; several, separated by
    commas, as one `zoo.tasks.TaggerEnsemble` (their outputs averaged)."""
    parts = [part.strip() for part in spec.split(",")]
    if len(parts) == 1:
        return TASK.load(spec)
    if not all(parts):
        raise harness.UsageError(
            f"--model {spec!r}: an empty name between commas; give run "
            "folders or presets separated by commas"
        )
    try:
        return zoo.tasks.TaggerEnsemble([TASK.load(part) for part in parts])
    except (TypeError, ValueError) as error:
        raise harness.UsageError(f"--model {spec}: {error}") from None


PREDICTOR = cli.Predictor(
    load,
    tag_lines,
    "sentence",
    PREDICT_OPTIONS,
    does="tags text (a sentence a line)",
    model_help=cli.Predictor.model_help
    + "; several, separated by commas: an ensemble that averages their "
    "outputs (zoo.tasks.TaggerEnsemble)",
)

# `main(argv)` trains and evaluates; `main(["predict", ...])` writes
# `word/TAG ...` for each line, one line per line.
PROG, parser, _main = cli.commands(TASK, package, config.HELP, PREDICTOR)


def main(argv=None):
    """`python -m recipes.tagging` with the command-line arguments `argv`
    (default `sys.argv[1:]`): trains, evaluates and saves a tagger and
    returns its metrics; `["predict", ...]` writes `word/TAG ...` a
    line."""
    return _main(argv)
