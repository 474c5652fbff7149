"""`python -m recipes.g2p`: train and evaluate a G2P model, or
`predict` with one (a run folder or a preset) on words, one a line."""

import sys
import warnings

import harness
import recipes.g2p as package
from recipes import cli
from recipes import encoder_decoder
from recipes.g2p import config
from recipes.g2p.task import TASK


def transcribe_lines(transcriber, lines, args):
    """Each line's phonemes (`--with-words`: after the word and a tab)."""
    words = [line.strip() for line in lines]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cut words: said once below
        phones = transcriber.transcribe(words, method=args.method)
    long = [w for w in words if len(w) > transcriber.max_source_length]
    if long:
        print(
            f"warning: {len(long)} word(s) longer than "
            f"{transcriber.max_source_length} letters were cut (e.g. "
            f"{long[0]!r})",
            file=sys.stderr,
        )
    return [
        (f"{word}\t" if args.with_words else "") + " ".join(p)
        for word, p in zip(words, phones)
    ]


PREDICT_OPTIONS = (
    encoder_decoder.PREDICT_METHOD,
    (
        ("--with-words",),
        {
            "action": "store_true",
            "help": "write WORD<TAB>PHONEMES (default: the phonemes only)",
        },
    ),
)


def load_for_cli(path):
    """`load`, its failures one line naming --model."""
    try:
        return TASK.load(path)
    except harness.UsageError:
        raise  # already one line
    except (OSError, ValueError) as error:
        raise harness.UsageError(f"--model {path}: {error}") from None


PREDICTOR = cli.Predictor(
    load_for_cli,
    transcribe_lines,
    "word",
    PREDICT_OPTIONS,
    does="transcribes words (a word a line)",
)

# `main(argv)` trains and evaluates; `main(["predict", ...])` writes each
# word's phonemes (`--with-words`: after the word and a tab), a line each.
PROG, parser, _main = cli.commands(TASK, package, config.HELP, PREDICTOR)


def main(argv=None):
    """`python -m recipes.g2p` with the command-line arguments `argv`
    (default `sys.argv[1:]`): trains, evaluates and saves a
    grapheme-to-phoneme model and returns its metrics; `["predict", ...]`
    writes each word's phonemes."""
    return _main(argv)
