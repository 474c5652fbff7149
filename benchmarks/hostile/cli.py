"""The hostile run's `cli` group: the command lines given bad flags, bad
`--config` files, bad data files and damaged run folders.

Every attempt but a few runs in-process through `attempts.cli` (the
code path of `python -m`: `harness.run_cli`); the promise is one line on
standard error, `error: ...`, naming the flag, key, file or line, and
exit code 2, never exit 0 on bad input. A few run as real subprocesses,
to see that standard error is literally one line (no TensorFlow start-up
lines). The fixtures are written here, tiny: anything that reaches
training trains one epoch of a 4-unit stack on 60 sentences, so that an
input wrongly accepted costs seconds. The attempts that train are
registered for TensorFlow only (the run folders behave the same on
every backend); the others run on all three.
"""

import hashlib
import importlib
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys

import zoo
from benchmarks.hostile import attempts
from benchmarks.hostile.attempts import Broken
from benchmarks.hostile.attempts import call
from benchmarks.hostile.attempts import conllu_text
from benchmarks.hostile.attempts import expect
from benchmarks.hostile.attempts import first_line
from benchmarks.hostile.attempts import scratch
from benchmarks.hostile.attempts import token_line

GROUP = "cli"
ROOT = pathlib.Path(__file__).resolve().parents[2]
TF = ("tensorflow",)
MAINS = {
    "tagging": "recipes.tagging",
    "classification": "recipes.classification",
    "seq2seq": "recipes.g2p",
    "stacks": "recipes.stacks",
    "launch": "recipes.launch",
    "search": "tuning.search",
    "diagnostics": "diagnostics.__main__",
    "language_model": "recipes.language_model",
    "presets": "recipes.presets",
}


# --- scratch folders and fixtures --------------------------------------------


def main_of(name):
    """The `main` of a command line (imported on first use: `tuning`
    imports keras-tuner, which a group may not need)."""
    return importlib.import_module(MAINS[name]).main


def csv_text(rows=40, seed=0):
    """A CSV file of `rows` short texts, two labels, `text,label`."""
    rng = random.Random(seed)
    subjects = {
        "animal": ["the cat", "a dog", "the bird"],
        "car": ["a van", "the truck", "a bus"],
    }
    lines = ["text,label"]
    for index in range(rows):
        label = ("animal", "car")[index % 2]
        verb = rng.choice(["runs", "stops", "waits", "turns"])
        lines.append(f"{rng.choice(subjects[label])} {verb} today,{label}")
    return "\n".join(lines) + "\n"


def write(folder, name, content):
    path = pathlib.Path(folder) / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


_CORPUS = {}


def corpus():
    """The good CoNLL-U training file (written once)."""
    if "conllu" not in _CORPUS:
        _CORPUS["conllu"] = write(scratch(), "train.conllu", conllu_text())
    return _CORPUS["conllu"]


def table():
    """The good CSV training file (written once)."""
    if "csv" not in _CORPUS:
        _CORPUS["csv"] = write(scratch(), "train.csv", csv_text())
    return _CORPUS["csv"]


# Each keeps what an accepted bad input would train to one epoch of a
# tiny model (seconds).
TINY = [
    "--epochs", "1", "--units", "4", "--embedding-dim", "4",
    "--num-layers", "1", "--batch-size", "16", "--seed", "1",
    "--no-tensorboard",
]  # fmt: skip


def default(value, make):
    return make() if value is None else value


def tagging_argv(*extra, train=None, output=None):
    """A tiny tagging run on `train` (default: the good corpus)."""
    output = default(output, lambda: scratch() / "out")
    return [
        "--dataset", "conllu", "--train-file", str(train or corpus()),
        "--output", str(output), *TINY, "--no-char-features", *extra,
    ]  # fmt: skip


def classification_argv(*extra, train=None, output=None):
    output = default(output, lambda: scratch() / "out")
    return [
        "--dataset", "csv", "--train-file", str(train or table()),
        "--output", str(output), *TINY, *extra,
    ]  # fmt: skip


def seq2seq_argv(*extra):
    # If a bad value passes, a few hundred CMUdict words (from the data
    # cache) for one epoch.
    return [
        "--quick", "--train-examples", "200", "--eval-examples", "50",
        "--output", str(scratch() / "out"), *TINY, *extra,
    ]  # fmt: skip


def search_argv(*extra):
    folder = scratch()
    return [
        "--dataset", "conllu", "--train-file", str(corpus()),
        "--directory", str(folder / "runs"), "--project-name", "p",
        "--max-trials", "1", "--epochs", "1", "--units", "4",
        "--embedding-dim", "4", "--widths", "4:8:4", "--layers", "1:2",
        "--batch-size", "16", "--seed", "1", "--no-char-features", *extra,
    ]  # fmt: skip


def digest_folder(folder):
    """`{relative path: sha256}` of the files under `folder` (its lock
    file left out): what a refused command must leave as it was."""
    folder = pathlib.Path(folder)
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != ".lock":
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[str(path.relative_to(folder))] = digest
    return found


def expect_unchanged(folder, before, what="the old run"):
    after = digest_folder(folder)
    if after != before:
        changed = sorted(
            k for k in set(before) | set(after) if before.get(k) != after.get(k)
        )
        raise Broken(
            "lost work", f"{what} changed after a refused command: {changed}"
        )


def expect_cli(name, argv, *names, code=2):
    """`attempts.cli` on the command line `name`: exit `code`, and (unless
    0) one line `error: ...` naming `names`; returns standard error."""
    return attempts.cli(main_of(name), argv, *names, code=code)


def expect_data_error(name, argv, *names):
    """`expect_cli` for a bad data file: the one line also stays under
    1,000 characters (a long offending value is cut)."""
    text = expect_cli(name, argv, *names)
    expect(
        len(text) < 1000,
        "unclear error",
        f"a {len(text):,}-character error line: {text[:120]}...",
    )
    return text


def as_flag(flag, value):
    """`--flag value`, or `--flag=value` for a value starting with `-`
    (which argparse would take for a flag unless it looks like a number:
    `-inf` does not)."""
    if value.startswith("-"):
        return [f"--{flag}={value}"]
    return [f"--{flag}", value]


def add(name, promise, check, backends=attempts.BACKENDS):
    attempts.add(GROUP, name, promise, check, backends)


# --- unknown flags -----------------------------------------------------------

UNKNOWN = {
    "tagging": ("tagging", []),
    "classification": ("classification", []),
    "seq2seq": ("seq2seq", []),
    "stacks": ("stacks", []),
    "launch": ("launch", []),
    "search": ("search", []),
    "diagnostics-activations": ("diagnostics", ["activations"]),
    "diagnostics-gradients": ("diagnostics", ["gradients"]),
    "diagnostics-probe": ("diagnostics", ["probe"]),
    "diagnostics-cost": ("diagnostics", ["cost"]),
    "diagnostics-study": ("diagnostics", ["study", "depth"]),
}
for _label, (_cli, _before) in UNKNOWN.items():
    add(
        f"unknown-flag/{_label}",
        f"{_label}: an unknown flag is one line naming it, exit 2",
        lambda cli=_cli, before=_before: expect_cli(
            cli, [*before, "--no-such-flag", "3"], "--no-such-flag"
        ),
    )
add(
    "unknown-flag/diagnostics-tool",
    "python -m diagnostics with an unknown tool names it, exit 2",
    lambda: expect_cli("diagnostics", ["nosuchtool"], "nosuchtool"),
)

# --- flag values: the tagger (every stack and training flag) -----------------

TAGGING_FLAGS = [
    ("seed", "-1"),
    ("seed", "4294967296"),
    ("seed", "1.5"),
    ("seed", "abc"),
    ("epochs", "0"),
    ("epochs", "-3"),
    ("epochs", "two"),
    ("units", "0"),
    ("units", "-8"),
    ("units", "2.5"),
    ("num-layers", "0"),
    ("dropout", "1.5"),
    ("dropout", "-0.1"),
    ("dropout", "nan"),
    ("dropout", "inf"),
    ("recurrent-dropout", "1"),
    ("inter-layer-dropout", "-inf"),
    ("embedding-dropout", "2"),
    ("weight-drop", "nan"),
    ("batch-size", "0"),
    ("batch-size", "-16"),
    ("learning-rate", "0"),
    ("learning-rate", "-0.01"),
    ("learning-rate", "nan"),
    ("learning-rate", "inf"),
    ("learning-rate", "fast"),
    ("patience", "-1"),
    ("train-examples", "-5"),
    ("eval-examples", "1.5"),
    ("embedding-dim", "0"),
    ("min-count", "0"),
    ("cell", "transformer"),
    ("lr-schedule", "step"),
    ("mixed-precision", "float8"),
    ("head", "mlp"),
    ("tagset", "penn"),
    ("model", "no_such_backbone"),
    ("dataset", "no-such-corpus"),
]


def add_flag_attempts(cli, cases, argv_of, before=()):
    """One attempt per `(flag, value)` of `cases`: command line `cli` run
    with `argv_of(*before, --flag value)` is one line naming the flag and
    the value, exit 2."""
    given = "".join(f"{word} " for word in before)
    for flag, value in cases:
        add(
            f"flag/{cli} --{flag} {value}",
            f"{MAINS[cli]} {given}--{flag} {value} is one line naming the "
            "flag and the value, exit 2",
            lambda flag=flag, value=value: expect_cli(
                cli,
                argv_of(*before, *as_flag(flag, value)),
                f"--{flag}",
                value,
            ),
        )


add_flag_attempts("tagging", TAGGING_FLAGS, tagging_argv)

CHARACTER_FLAGS = [("max-chars", "0"), ("char-units", "0"), ("char-kind", "x")]
add_flag_attempts(
    "tagging", CHARACTER_FLAGS, tagging_argv, before=("--char-features",)
)

add(
    "flag/tagging --unroll",
    "--unroll is refused in one line (the batches have variable lengths)",
    lambda: expect_cli("tagging", tagging_argv("--unroll"), "--unroll"),
)
add(
    "flag/tagging --output ''",
    "an empty --output is one line naming --output",
    lambda: expect_cli("tagging", tagging_argv(output=""), "--output"),
)
add(
    "flag/tagging --data-dir ' '",
    "a blank --data-dir is one line naming it",
    lambda: expect_cli(
        "tagging", tagging_argv("--data-dir", " "), "--data-dir"
    ),
)


def _other_backend():
    import keras

    backends = attempts.BACKENDS
    here = keras.backend.backend()
    return backends[(backends.index(here) + 1) % len(backends)]


add(
    "flag/tagging --backend (another than imported)",
    "--backend naming another backend than the one Keras was imported "
    "with is one line naming --backend, not a run on the wrong one",
    lambda: expect_cli(
        "tagging",
        tagging_argv("--backend", _other_backend()),
        "--backend",
        _other_backend(),
    ),
)
add(
    "flag/tagging --dataset conllu without --train-file",
    "--dataset conllu without --train-file names --train-file",
    lambda: expect_cli(
        "tagging",
        ["--dataset", "conllu", "--output", str(scratch() / "o"), *TINY],
        "--train-file",
    ),
)

# --- flag values: the classifier, the G2P recipe -----------------------------

CLASSIFICATION_FLAGS = [
    ("pooling", "median"),
    ("max-length", "0"),
    ("head-dropout", "1.5"),
    ("max-vocabulary", "0"),
    ("attention-units", "0"),
    ("dataset", "imdb-typo"),
    ("fine-tune-epochs", "0"),
]
add_flag_attempts("classification", CLASSIFICATION_FLAGS, classification_argv)
add(
    "flag/classification --fine-tune without --pretrained",
    "--fine-tune without a biLM to fine-tune names --pretrained, exit 2",
    lambda: expect_cli(
        "classification",
        classification_argv("--fine-tune"),
        "--fine-tune",
        "--pretrained",
    ),
)

SEQ2SEQ_FLAGS = [
    ("beam-width", "0"),
    ("length-penalty", "nan"),
    ("length-penalty", "6"),
    ("attention", "luong-typo"),
    ("decoder-layers", "-1"),
    ("max-output-length", "0"),
    ("embedding-dropout", "0.1"),
    ("init-from", "model.keras"),
    ("dataset", "wiktionary"),
]
add_flag_attempts("seq2seq", SEQ2SEQ_FLAGS, seq2seq_argv)


def _seq2seq_config_init_from():
    path = write(scratch(), "c.json", '{"init_from": "runs/x/model.keras"}')
    expect_cli("seq2seq", seq2seq_argv("--config", str(path)), "init-from")


add(
    "config/seq2seq init_from",
    "recipes.g2p takes no --init-from, so a --config file's "
    "`init_from` is refused in one line, not ignored",
    _seq2seq_config_init_from,
)

# --- --config files ----------------------------------------------------------

FILE = "<the file>"  # in `names`: the --config file's path
CONFIGS = [
    # (label, file name, content, names the message must hold). A file
    # that does not parse is named; a bad value names its key (as the
    # key or as its flag: `learning_rate` or `--learning-rate`).
    ("JSON cut short", "c.json", '{"units": 8,', [FILE, "line 1"]),
    ("YAML unclosed list", "c.yaml", "units: 8\ndropout: [0.1\n",
     [FILE, "line"]),
    ("not UTF-8", "c.json", b'{"units": 8, "cell": "\xff"}', [FILE, "UTF-8"]),
    ("JSON key twice", "c.json", '{"units": 8, "units": 16}',
     [FILE, "units"]),
    ("YAML key twice", "c.yaml", "units: 8\nseed: 1\nunits: 16\n",
     [FILE, "units", "line 3"]),
    ("list top level", "c.json", "[1, 2]", [FILE, "mapping"]),
    ("empty YAML", "c.yaml", "", [FILE, "mapping"]),
    ("empty JSON", "c.json", "", [FILE, "cannot parse"]),
    ("unknown key", "c.json", '{"unitz": 8}', ["--config", "unitz"]),
    ("string for int", "c.json", '{"units": "8"}', ["units", "string"]),
    ("bool for int", "c.json", '{"units": true}', ["units", "True"]),
    ("float for int", "c.json", '{"epochs": 1.5}', ["epochs", "1.5"]),
    ("null value", "c.json", '{"dropout": null}', ["dropout", "null"]),
    ("unroll", "c.json", '{"unroll": true}', ["unroll"]),
    ("seed 2**32", "c.json", '{"seed": 4294967296}', ["seed", "4294967296"]),
    ("JSON NaN", "c.json", '{"learning_rate": NaN}', ["learning", "nan"]),
    ("YAML .inf", "c.yaml", "dropout: .inf\n", ["dropout", "inf"]),
    ("YAML -1e-3", "c.yaml", "learning_rate: -1e-3\n",
     ["learning", "-0.001"]),
    ("dropout 1.0", "c.yaml", "dropout: 1.0\n", ["dropout", "1.0"]),
    ("per-layer units 0", "c.json", '{"units": [4, 0]}', ["units", "0"]),
    ("output a number", "c.json", '{"output": 5}', ["output", "5"]),
]  # fmt: skip
for _label, _name, _content, _names in CONFIGS:

    def _config_check(name=_name, content=_content, names=tuple(_names)):
        path = write(scratch(), name, content)
        # Not TINY's flags: the file's values must not be overridden.
        argv = [
            "--dataset", "conllu", "--train-file", str(corpus()),
            "--output", str(path.parent / "out"), "--config", str(path),
            "--no-char-features", "--no-tensorboard", "--num-layers", "2",
        ]  # fmt: skip
        if "units" not in str(content):
            argv += ["--units", "4", "--embedding-dim", "4"]
        if "epochs" not in str(content):
            argv += ["--epochs", "1"]
        names = [str(path) if n == FILE else n for n in names]
        expect_cli("tagging", argv, *names)
        expect(
            not (path.parent / "out").exists(),
            "silently wrong",
            "a refused --config left an output folder behind",
        )

    add(
        f"config/{_label}",
        f"a --config file with {_label} is one line naming the file (a "
        "parse error) or the key and value, exit 2, and leaves no output "
        "folder",
        _config_check,
    )


def _config_missing():
    path = scratch() / "none.yaml"
    expect_cli("tagging", tagging_argv("--config", str(path)), str(path))


def _config_directory():
    path = scratch()
    expect_cli("tagging", tagging_argv("--config", str(path)), str(path))


add(
    "config/missing file",
    "a --config file that does not exist is one line naming it",
    _config_missing,
)
add(
    "config/a directory",
    "a --config that is a folder is one line naming it",
    _config_directory,
)


def _yaml_exponent():
    path = write(scratch(), "c.yaml", "learning_rate: 1e-2\nunits: 4\n")
    out = path.parent / "out"
    argv = tagging_argv("--config", str(path), output=out)
    argv.remove("--units")
    argv.remove("4")
    expect_cli("tagging", argv, code=0)
    saved = json.loads((out / "config.json").read_text())
    expect(
        saved.get("learning_rate") == 0.01 and saved.get("units") == 4,
        "silently wrong",
        f"config.json holds learning_rate={saved.get('learning_rate')!r}, "
        f"units={saved.get('units')!r} from a file saying 1e-2 and 4",
    )


add(
    "config/YAML 1e-2 is a number",
    "YAML's `learning_rate: 1e-2` is the number 0.01 (YAML 1.2), and the "
    "run trains with it",
    _yaml_exponent,
    backends=TF,
)


def _flag_wins_over_config():
    path = write(scratch(), "c.json", '{"units": 6, "seed": 5}')
    out = path.parent / "out"
    expect_cli(
        "tagging", tagging_argv("--config", str(path), output=out), code=0
    )
    saved = json.loads((out / "config.json").read_text())
    expect(
        saved.get("units") == 4 and saved.get("seed") == 1,
        "silently wrong",
        f"config.json holds units={saved.get('units')}, seed="
        f"{saved.get('seed')}; the flags said 4 and 1",
    )


add(
    "config/flags win over the file",
    "a flag given explicitly wins over the --config file's value",
    _flag_wins_over_config,
    backends=TF,
)

# --- training files: CSV (classification) and CoNLL-U (tagging) --------------


def add_file_attempts(kind, cli, argv_of, file_name, files, what, naming):
    """One attempt per `(label, content, names[, extra flags])` of
    `files`: a training file `file_name` holding `content` is one line
    (under 1,000 characters) naming `names`, exit 2; then a folder given
    as --train-file is one line naming it."""
    for label, content, names, *flags in files:
        flags = flags[0] if flags else ()

        def check(content=content, names=tuple(names), flags=tuple(flags)):
            path = write(scratch(), file_name, content)
            expect_data_error(cli, argv_of(*flags, train=path), *names)

        add(
            f"{kind}/{label}",
            f"{what} with {label} is one line (under 1,000 characters) "
            f"naming {naming}, exit 2",
            check,
        )

    def directory():
        folder = scratch()
        expect_cli(cli, argv_of(train=folder), str(folder))

    add(
        f"{kind}/a directory as --train-file",
        "a folder given as --train-file is one line naming it",
        directory,
    )


def add_dev_unseen(kind, cli, argv_of, file_name, content, unseen, what):
    """A dev and test file `file_name` holding `content`, whose `what`
    `unseen` the training file lacks, is one line naming it."""

    def check():
        dev = write(scratch(), file_name, content)
        argv = argv_of("--dev-file", str(dev), "--test-file", str(dev))
        expect_cli(cli, argv, unseen)

    add(
        f"{kind}/dev {what} never seen in train",
        f"a dev/test {what} the training file lacks is one line naming it",
        check,
    )


# CSV files (recipes.classification --dataset csv)

HEADER = "text,label\n"
GOOD_ROWS = csv_text(20).split("\n", 1)[1]
BIG = "word " * 400_000  # 2,000,000 characters
CSVS = [
    # (label, content, names the message must hold, extra flags)
    (
        "unquoted comma inventing a class",
        HEADER + GOOD_ROWS + "good movie, really good,animal\n",
        ["train.csv:22", "3 fields"],
        [],
    ),
    (
        "extra column in one row",
        HEADER + GOOD_ROWS + "a cat,animal,extra\n",
        ["train.csv:22"],
        [],
    ),
    (
        "missing column in one row",
        HEADER + GOOD_ROWS + "a lonely text\n",
        ["train.csv:22"],
        [],
    ),
    (
        "duplicate header name",
        "text,label,text\n"
        + "".join(f"{r},x\n" for r in GOOD_ROWS.splitlines()),
        ["train.csv:1", "text"],
        [],
    ),
    (
        "header with a space before a name",
        "text, label\n" + GOOD_ROWS,
        ["train.csv:1", "label"],
        [],
    ),
    ("empty file", "", ["train.csv", "empty"], []),
    ("header only", HEADER, ["train.csv", "no rows"], []),
    (
        "unclosed quote",
        HEADER + GOOD_ROWS + '"an open quote,animal\nmore,car\nand more,car\n',
        ["train.csv:22", "quote"],
        [],
    ),
    (
        "2 MB line with one field",
        HEADER + GOOD_ROWS + BIG + "\n",
        ["train.csv:22", "2,000,000"],
        [],
    ),
    (
        "binary garbage",
        bytes(random.Random(7).randrange(256) for _ in range(4096)),
        ["train.csv"],
        [],
    ),
    (
        "UTF-16 (a spreadsheet's Unicode export)",
        (HEADER + GOOD_ROWS).encode("utf-16"),
        ["train.csv", "UTF-8"],
        [],
    ),
    ("one label only", HEADER + "a cat,animal\n" * 30, ["one label"], []),
    (
        "empty label",
        HEADER + GOOD_ROWS + "a cat,\n",
        ["train.csv:22", "label"],
        [],
    ),
    (
        "missing text column",
        HEADER + GOOD_ROWS,
        ["body"],
        ["--text-column", "body"],
    ),
    (
        "text column == label column",
        HEADER + GOOD_ROWS,
        ["--text-column", "--label-column", "label"],
        ["--text-column", "label"],
    ),
]
add_file_attempts(
    "csv",
    "classification",
    classification_argv,
    "train.csv",
    CSVS,
    "a training CSV",
    "the file, line or column",
)


def _csv_missing():
    path = scratch() / "trian.csv"
    expect_cli("classification", classification_argv(train=path), str(path))


add(
    "csv/nonexistent --train-file",
    "a --train-file that does not exist is one line naming it",
    _csv_missing,
)
add_dev_unseen(
    "csv",
    "classification",
    classification_argv,
    "dev.csv",
    HEADER + "a ship sails,boat\n",
    "boat",
    "label",
)

# --- CoNLL-U and column files (recipes.tagging) ------------------------------

GOOD = conllu_text(20)
CONLLUS = [
    # (label, content, names the message must hold)
    (
        "tag with whitespace",
        GOOD + token_line(1, "dog", "NOUN ") + "\n",
        ["train.conllu:", "NOUN"],
    ),
    ("one tag only", conllu_text(30, only="NOUN"), ["one tag", "NOUN"]),
    (
        "four fields",
        GOOD + "1\tdog\tdog\tNOUN\n",
        ["train.conllu:", "10"],
    ),
    (
        "spaces for tabs",
        GOOD + token_line(1, "dog", "NOUN").replace("\t", " ") + "\n",
        ["train.conllu:"],
    ),
    ("empty file", "", ["train.conllu", "no sentences"]),
    ("only comments", "# a\n# b\n\n", ["train.conllu", "no sentences"]),
    (
        "token id not a number",
        GOOD + token_line(1, "dog", "NOUN").replace("1", "x", 1) + "\n",
        ["train.conllu:", "x"],
    ),
    (
        "no tag",
        GOOD + token_line(1, "dog", "_") + "\n",
        ["train.conllu:", "dog"],
    ),
    (
        "not UTF-8",
        GOOD.encode() + token_line(1, "caf\xe9", "NOUN").encode("latin-1"),
        ["train.conllu:", "UTF-8"],
    ),
    (
        "2 MB line",
        GOOD + "1\t" + BIG + "\n",
        ["train.conllu:", "2,000,002"],
    ),
]
add_file_attempts(
    "conllu",
    "tagging",
    tagging_argv,
    "train.conllu",
    CONLLUS,
    "a CoNLL-U training file",
    "the file and line",
)
add_dev_unseen(
    "conllu",
    "tagging",
    tagging_argv,
    "dev.conllu",
    token_line(1, "run", "X") + "\n",
    "X",
    "tag",
)

COLUMNS = [
    (
        "a line with one column",
        "the\tDET\ndog\tNOUN\n\ncat\tNOUN\nlonely\n",
        ["train.txt:5"],
    ),
    (
        "a comment line",
        "# a comment here\nthe\tDET\ndog\tNOUN\n",
        ["train.txt:"],
    ),
]
for _label, _content, _names in COLUMNS:

    def _columns_check(content=_content, names=tuple(_names)):
        path = write(scratch(), "train.txt", content)
        argv = tagging_argv(train=path)
        argv[argv.index("conllu")] = "columns"
        expect_cli("tagging", argv, *names)

    add(
        f"columns/{_label}",
        f"a token<TAB>tag file with {_label} is one line naming the file "
        "and line",
        _columns_check,
    )

# --- --init-from -------------------------------------------------------------


def _init_from_missing():
    path = scratch() / "model.keras"
    expect_cli("tagging", tagging_argv("--init-from", str(path)), str(path))


def _init_from_text():
    path = write(scratch(), "model.keras", "not a model\n")
    text = expect_cli(
        "tagging", tagging_argv("--init-from", str(path)), str(path)
    )
    expect(
        "not found" not in text.lower(),
        "unclear error",
        f"a file that exists is said not to be found: {text}",
    )


add(
    "init-from/missing file",
    "--init-from a file that does not exist is one line naming it",
    _init_from_missing,
)
add(
    "init-from/a text file",
    "--init-from a text file is one line naming it and saying what is "
    "wrong with it (it exists: not 'File not found')",
    _init_from_text,
)

# --- run folders -------------------------------------------------------------

_FINISHED = {}


def finished_run():
    """A finished tiny tagging run (trained once per process): its
    folder, to copy."""
    if "path" not in _FINISHED:
        out = scratch() / "finished"
        code, _, err = call(main_of("tagging"), tagging_argv(output=out))
        if code != 0:
            raise RuntimeError(f"the finished run failed: {err[-500:]}")
        _FINISHED["path"] = out
    return _FINISHED["path"]


def copy_of_finished():
    """`(folder, argv)`: a copy of the finished run and the command that
    reruns it (config.json's `output` set to the copy)."""
    out = scratch() / "run"
    shutil.copytree(finished_run(), out)
    path = out / "config.json"
    config = json.loads(path.read_text())
    config["output"] = str(out)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return out, tagging_argv(output=out)


def _rerun_finished():
    out, argv = copy_of_finished()
    before = digest_folder(out)
    code, stdout, err = call(main_of("tagging"), argv)
    expect(code == 0, "unclear error", f"exit {code}: {first_line(err)}")
    expect(
        "holds a finished run" in stdout and "Epoch " not in stdout,
        "lost work",
        f"a finished run was trained again: {first_line(stdout[-300:])}",
    )
    expect_unchanged(out, before, "the finished run")


def _rerun_other_config():
    out, argv = copy_of_finished()
    before = digest_folder(out)
    argv[argv.index("--units") + 1] = "6"
    expect_cli("tagging", argv, "units", str(out))
    expect_unchanged(out, before)


def _overwrite_bad_data(kind):
    def check():
        out, argv = copy_of_finished()
        before = digest_folder(out)
        folder = scratch()
        if kind == "missing":
            bad = folder / "trian.conllu"
        else:
            bad = write(folder, "bad.conllu", GOOD + "1\tdog\tdog\tNOUN\n")
        argv[argv.index("--train-file") + 1] = str(bad)
        argv[argv.index("--units") + 1] = "6"
        expect_cli("tagging", [*argv, "--overwrite"], str(bad))
        expect_unchanged(out, before)

    return check


def _overwrite_bad_flag():
    out, argv = copy_of_finished()
    before = digest_folder(out)
    expect_cli("tagging", [*argv, "--overwrite", "--dropout", "2"], "--dropout")
    expect_unchanged(out, before)


add(
    "rundir/rerun of a finished run",
    "rerunning a finished run's command says it is finished, exits 0, "
    "trains nothing and changes no file",
    _rerun_finished,
    backends=TF,
)
add(
    "rundir/another config on a finished run",
    "a finished run's folder given another --units is refused naming "
    "the setting, and left as it was",
    _rerun_other_config,
    backends=TF,
)
add(
    "rundir/--overwrite with a missing --train-file",
    "--overwrite with a --train-file that does not exist is one line "
    "naming it, and the finished run is left whole",
    _overwrite_bad_data("missing"),
    backends=TF,
)
add(
    "rundir/--overwrite with a malformed --train-file",
    "--overwrite with a malformed --train-file is one line naming it, "
    "and the finished run is left whole",
    _overwrite_bad_data("malformed"),
    backends=TF,
)
add(
    "rundir/--overwrite with a bad flag",
    "--overwrite --dropout 2 is refused and the finished run left whole",
    _overwrite_bad_flag,
    backends=TF,
)

DAMAGED = [
    # (label, file, content: text, bytes, or "dir" for a folder there)
    ("metrics.json cut short", "metrics.json", '{"test_accuracy": 0.9, "wr'),
    ("metrics.json NaN", "metrics.json", '{"test_accuracy": NaN}'),
    ("metrics.json a list", "metrics.json", "[1]"),
    ("metrics.json empty", "metrics.json", ""),
    ("metrics.json missing keys", "metrics.json", '{"wrote": []}'),
    ("metrics.json a folder", "metrics.json", "dir"),
    ("config.json cut short", "config.json", '{"units": 4'),
    ("config.json a list", "config.json", "[1, 2]"),
    ("config.json not UTF-8", "config.json", b"\xff\xfe{}"),
    ("config.json a folder", "config.json", "dir"),
]
for _label, _file, _content in DAMAGED:

    def _damaged_check(file=_file, content=_content):
        out, argv = copy_of_finished()
        path = out / file
        path.unlink()
        if content == "dir":
            path.mkdir()
        else:
            write(out, file, content)
        before = digest_folder(out)
        expect_cli("tagging", argv, file, "--overwrite")
        expect_unchanged(out, before, "the damaged run")

    add(
        f"rundir/{_label}",
        f"a finished run whose {_label.split()[0]} is damaged ({_label}) is "
        "one line naming the file, exit 2, and nothing is changed",
        _damaged_check,
        backends=TF,
    )

METADATA = "training_metadata.json"
NAMES_WEIGHTS = '{"epoch": 1, "weights": "epoch-1.weights.h5"}'
BACKUPS = [
    # (label, files written in OUT/backup, the file the message names)
    ("metadata cut short", {METADATA: '{"epoch": 1, "we'}, METADATA),
    ("metadata a list", {METADATA: "[1]"}, METADATA),
    ("metadata with no epoch", {METADATA: '{"weights": "w.h5"}'}, METADATA),
    (
        "weights file garbage",
        {METADATA: NAMES_WEIGHTS, "epoch-1.weights.h5": "\x89HDF garbage"},
        "epoch-1.weights.h5",
    ),
    ("weights file missing", {METADATA: NAMES_WEIGHTS}, "epoch-1.weights.h5"),
]
for _label, _files, _name in BACKUPS:

    def _backup_check(files=_files, name=_name):
        out, argv = copy_of_finished()
        (out / "metrics.json").unlink()  # an interrupted run
        (out / "backup").mkdir()
        for file, content in files.items():
            write(out / "backup", file, content)
        before = digest_folder(out)
        expect_cli("tagging", argv, name, "--overwrite")
        expect_unchanged(out, before, "the interrupted run")

    add(
        f"rundir/backup {_label}",
        f"an interrupted run whose backup has its {_label} is refused in "
        "one line naming the file (not resumed on fresh weights)",
        _backup_check,
        backends=TF,
    )


def _backup_a_file():
    out, argv = copy_of_finished()
    (out / "metrics.json").unlink()
    write(out, "backup", "not a folder")
    expect_cli("tagging", argv, "backup")


add(
    "rundir/backup is a file",
    "an interrupted run whose backup/ is a file is one line naming it, "
    "not a traceback after training",
    _backup_a_file,
    backends=TF,
)


def _lock_a_directory():
    out = scratch() / "run"
    (out / ".lock").mkdir(parents=True)
    expect_cli("tagging", tagging_argv(output=out), ".lock")


def _output_a_file():
    path = write(scratch(), "out", "a file")
    expect_cli("tagging", tagging_argv(output=path), str(path))
    expect(
        path.read_text() == "a file",
        "lost work",
        "the file given as --output was changed",
    )


def _output_foreign():
    out = scratch() / "mine"
    out.mkdir()
    write(out, "notes.txt", "mine")
    expect_cli("tagging", tagging_argv(output=out), str(out))
    expect(
        sorted(p.name for p in out.iterdir()) == ["notes.txt"],
        "lost work",
        f"the foreign folder now holds {sorted(os.listdir(out))}",
    )


add(
    "rundir/.lock is a folder",
    "an --output whose .lock is a folder is one line naming it",
    _lock_a_directory,
)
add(
    "rundir/--output is a file",
    "an --output that is a file is one line naming it, the file untouched",
    _output_a_file,
)
add(
    "rundir/--output holds something else",
    "a non-empty --output holding no run is refused, left as it was",
    _output_foreign,
)


def _init_from_unseen_tag():
    model = finished_run() / "model.keras"
    path = write(scratch(), "other.conllu", GOOD + token_line(1, "x", "SYM"))
    expect_cli(
        "tagging",
        tagging_argv("--init-from", str(model), "--epochs", "0", train=path),
        "SYM",
    )


def _init_from_a_tagger_into_classification():
    model = finished_run() / "model.keras"
    expect_cli(
        "classification",
        classification_argv("--init-from", str(model)),
        str(model),
    )


add(
    "init-from/a tag the model lacks",
    "--init-from a tagger with --epochs 0 on data with a tag it lacks is "
    "one line naming the tag (label set mismatch)",
    _init_from_unseen_tag,
    backends=TF,
)
add(
    "init-from/a tagger into the classifier",
    "recipes.classification --init-from a tagger's model.keras is one "
    "line naming it",
    _init_from_a_tagger_into_classification,
    backends=TF,
)

# --- recipes.stacks ----------------------------------------------------------

STACKS = [
    ("epochs 0", ["--epochs", "0"], ["--epochs"]),
    ("epochs -1", ["--epochs", "-1"], ["--epochs"]),
    ("epochs abc", ["--epochs", "abc"], ["--epochs", "abc"]),
    ("seed -1", ["--seed", "-1"], ["--seed"]),
]
for _label, _argv, _names in STACKS:
    add(
        f"stacks/{_label}",
        f"recipes.stacks {' '.join(_argv)} is one line naming the flag",
        lambda argv=tuple(_argv), names=tuple(_names): expect_cli(
            "stacks",
            [*argv, "--output", str(scratch() / "out")],
            *names,
        ),
    )


def _stacks_output_a_file():
    path = write(scratch(), "out", "a file")
    expect_cli("stacks", ["--epochs", "1", "--output", str(path)], str(path))


add(
    "stacks/--output is a file",
    "recipes.stacks --output naming a file is one line naming it",
    _stacks_output_a_file,
)

# --- recipes.launch ----------------------------------------------------------


def _launch_text_file():
    path = write(scratch(), "notes.txt", "not a program\n")
    expect_cli("launch", ["--workers", "1", "--", str(path)], str(path))


LAUNCHES = [
    ("no such binary", ["--", "/nonexistent/binary"], ["/nonexistent/binary"]),
    ("not on PATH", ["--", "no-such-command-x"], ["no-such-command-x"]),
    ("no --", ["--workers", "1"], ["--"]),
    ("nothing after --", ["--"], ["--"]),
    ("workers 0", ["--workers", "0", "--", "true"], ["--workers"]),
    ("workers 65", ["--workers", "65", "--", "true"], ["--workers"]),
    ("workers abc", ["--workers", "abc", "--", "true"], ["--workers"]),
    ("timeout nan", ["--timeout", "nan", "--", "true"], ["--timeout"]),
    ("grace -1", ["--grace", "-1", "--", "true"], ["--grace"]),
    ("ports 0,70000", ["--ports", "0,70000", "--", "true"], ["--ports"]),
    ("three ports, two workers", ["--ports", "5001,5002,5003", "--", "true"],
     ["--ports"]),
    (
        "a recipe without --distribute",
        ["--workers", "2", "--", "python", "-m", "recipes.tagging"],
        ["--distribute"],
    ),
]  # fmt: skip
for _label, _argv, _names in LAUNCHES:
    add(
        f"launch/{_label}",
        f"recipes.launch {' '.join(_argv)} is one line naming what is wrong",
        lambda argv=tuple(_argv), names=tuple(_names): expect_cli(
            "launch", list(argv), *names
        ),
    )
add(
    "launch/a text file as the command",
    "recipes.launch -- a text file (not executable) names it",
    _launch_text_file,
)

# --- tuning.search -----------------------------------------------------------

SEARCHES = [
    ("range NaN", ["--range", "dropout=0:nan"], ["--range", "0:nan"]),
    ("range words", ["--range", "dropout=low:high"], ["--range"]),
    ("range no =", ["--range", "dropout"], ["--range", "dropout"]),
    ("range no name", ["--range", "=0:0.5"], ["--range"]),
    ("range unknown name", ["--range", "depthh=1:3"], ["--range", "depthh"]),
    ("range out of bounds", ["--range", "dropout=0:2"], ["--range dropout"]),
    ("range empty", ["--range", "units=5:1"], ["--range units"]),
    ("tuner", ["--tuner", "sweep"], ["--tuner", "sweep"]),
    ("max-trials -1", ["--max-trials", "-1"], ["--max-trials"]),
    ("budget lots", ["--budget-params", "lots"], ["--budget-params"]),
    ("layers 4:1", ["--layers", "4:1"], ["--layers"]),
    ("widths 8", ["--widths", "8"], ["--widths"]),
    ("learning-rate inf", ["--learning-rate", "inf"], ["--learning-rate"]),
    ("search unknown", ["--search", "cell,depth"], ["depth"]),
]
for _label, _argv, _names in SEARCHES:
    add(
        f"search/{_label}",
        f"tuning.search {' '.join(_argv)} is one line naming the flag",
        lambda argv=tuple(_argv), names=tuple(_names): expect_cli(
            "search", search_argv(*argv), *names
        ),
    )


def _search_directory_a_file():
    path = write(scratch(), "taken", "a file")
    argv = search_argv("--directory", str(path / "x"))
    expect_cli("search", argv, "--directory", str(path))


add(
    "search/--directory under a file",
    "tuning.search --directory under a file is one line naming it",
    _search_directory_a_file,
)

# --- diagnostics -------------------------------------------------------------

GRADIENTS_TINY = [
    "--depths", "1", "--steps", "2", "--batch-size", "2", "--timesteps",
    "3", "--units", "4", "--configs", "plain",
]  # fmt: skip
DIAGNOSTICS = [
    ("gradients --depths 0", ["gradients", "--depths", "0"], ["--depths"]),
    ("gradients --depths a,b", ["gradients", "--depths", "a,b"], ["--depths"]),
    (
        "gradients --learning-rate nan",
        ["gradients", "--learning-rate", "nan"],
        ["--learning-rate"],
    ),
    (
        "gradients --learning-rate inf",
        ["gradients", "--learning-rate", "inf"],
        ["--learning-rate"],
    ),
    ("gradients --units 0", ["gradients", "--units", "0"], ["--units"]),
    (
        "gradients --configs nosuch",
        ["gradients", "--configs", "nosuch"],
        ["--configs", "nosuch"],
    ),
    ("cost --depths 3:1", ["cost", "--depths", "3:1"], ["--depths"]),
    ("cost --units 0", ["cost", "--quick", "--units", "0"], ["--units"]),
    (
        "cost --budget-params 1",
        ["cost", "--quick", "--budget-params", "1"],
        ["--budget-params"],
    ),
    ("activations --sentence blank", ["activations", "--sentence", " "],
     ["--sentence"]),
    (
        "activations --model missing",
        ["activations", "--model", "/nonexistent/model.keras"],
        ["/nonexistent/model.keras"],
    ),
    (
        "probe --properties nosuch",
        ["probe", "--properties", "nosuch", "--model", "/nonexistent"],
        ["--properties", "nosuch"],
    ),
    ("probe --epochs 0", ["probe", "--epochs", "0", "--model", "/nonexistent"],
     ["--epochs"]),
    ("study unknown kind", ["study", "breadth"], ["breadth"]),
    ("study --seeds -1", ["study", "depth", "--seeds", "-1"], ["--seeds"]),
    (
        "study --seeds 2**32",
        ["study", "depth", "--seeds", "0,4294967296"],
        ["--seeds", "4294967296"],
    ),
    ("study --depths 0", ["study", "depth", "--depths", "0,1"], ["--depths"]),
    (
        "study merge of nothing",
        ["study", "merge", "/nonexistent/study"],
        ["/nonexistent/study"],
    ),
]  # fmt: skip
for _label, _argv, _names in DIAGNOSTICS:

    def _diagnostics_check(argv=tuple(_argv), names=tuple(_names)):
        argv = list(argv)
        if argv[0] == "gradients":  # tiny, if a bad value passes
            argv += with_defaults(argv, GRADIENTS_TINY)
        expect_cli(
            "diagnostics", [*argv, "--output", str(scratch() / "o")], *names
        )

    add(
        f"diagnostics/{_label}",
        f"python -m diagnostics {' '.join(_argv)} is one line naming the "
        "flag, exit 2",
        _diagnostics_check,
    )


def with_defaults(argv, defaults):
    """The `--flag value` pairs of `defaults` whose flag `argv` lacks."""
    pairs = zip(defaults[::2], defaults[1::2])
    return [
        x for flag, value in pairs if flag not in argv for x in (flag, value)
    ]


def _activations_text_model():
    path = write(scratch(), "model.keras", "not a model")
    expect_cli(
        "diagnostics",
        ["activations", "--model", str(path), "--output", str(scratch())],
        str(path),
    )


add(
    "diagnostics/activations --model a text file",
    "python -m diagnostics activations --model TEXT names the file",
    _activations_text_model,
)

# --- real subprocesses: literally one line on standard error -----------------


def subprocess_one_line(module, argv, *names):
    """`python -m module argv` as a user runs it (no TF_CPP_MIN_LOG_LEVEL
    of ours): exit 2 and standard error exactly one line `error: ...`
    naming `names`."""
    import keras

    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "KERAS_BACKEND": keras.backend.backend(),
    }
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    result = subprocess.run(
        [sys.executable, "-m", module, *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    err = result.stderr.strip()
    if result.returncode == 0:
        raise Broken("silently wrong", f"exit 0; stderr {first_line(err)!r}")
    lines = err.splitlines()
    expect(
        result.returncode == 2 and len(lines) == 1 and err[:7] == "error: ",
        "traceback" if len(lines) > 1 else "unclear error",
        f"exit {result.returncode}, {len(lines)} stderr lines: "
        + " | ".join(line[:100] for line in lines[:4]),
    )
    missing = [n for n in names if n not in err]
    expect(not missing, "unclear error", f"lacks {missing}: {err}")


def _subprocess_bad_csv():
    path = write(
        scratch(),
        "train.csv",
        HEADER + GOOD_ROWS + "good movie, really good,animal\n",
    )
    subprocess_one_line(
        "recipes.classification",
        classification_argv(train=path),
        "train.csv:22",
    )


def _subprocess_bad_yaml():
    path = write(scratch(), "c.yaml", "units: [8\n")
    subprocess_one_line(
        "recipes.tagging", tagging_argv("--config", str(path)), str(path)
    )


SUBPROCESSES = {
    "recipes.tagging --seed -1": lambda: subprocess_one_line(
        "recipes.tagging", tagging_argv("--seed", "-1"), "--seed"
    ),
    "recipes.classification unquoted comma": _subprocess_bad_csv,
    "recipes.tagging malformed YAML": _subprocess_bad_yaml,
    "tuning.search --tuner sweep": lambda: subprocess_one_line(
        "tuning.search", search_argv("--tuner", "sweep"), "--tuner"
    ),
    "diagnostics gradients --depths 0": lambda: subprocess_one_line(
        "diagnostics",
        ["gradients", "--depths", "0", "--output", str(scratch())],
        "--depths",
    ),
}
for _label, _check in SUBPROCESSES.items():
    add(
        f"subprocess/{_label}",
        f"`python -m {_label}` as a user runs it: exit 2 and standard "
        "error is exactly one line (no TensorFlow start-up lines)",
        _check,
    )


# --- the language model, the presets and --pretrained -------------------------


def language_model_argv(*extra, text=None):
    """A tiny biLM run on `text` (default: a few hundred good sentences)."""
    if text is None:
        text = write(
            scratch(),
            "text.txt",
            "\n\n".join(
                "The dog sees a cat in the park. A cat likes the dog."
                for _ in range(80)
            ),
        )
    return [
        "--corpora", "", "--text-file", str(text), "--output",
        str(scratch() / "out"), "--epochs", "1", "--units", "8",
        "--char-units", "8", "--num-sampled", "4", "--shards", "1",
        "--batch-size", "16", "--no-tensorboard", *extra,
    ]  # fmt: skip


LANGUAGE_MODEL_FLAGS = [
    ("max-words", "0"),
    ("min-count", "0"),
    ("max-length", "1"),
    ("num-sampled", "-1"),
    ("shards", "0"),
    ("dropout", "1.5"),
    ("units", "0"),
    ("max-chars", "1"),
    ("corpora", "wikipedia"),
]
add_flag_attempts("language_model", LANGUAGE_MODEL_FLAGS, language_model_argv)

BAD_TEXTS = {
    "empty": (b"", "empty"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR", "binary"),
    "latin-1": ("caf\u00e9 au lait. " * 40).encode("latin-1"),
    "one sentence": (b"Too short.\n", "--text-file"),
}
for _label, _case in BAD_TEXTS.items():
    _content, _word = (
        _case if isinstance(_case, tuple) else (_case, "not UTF-8")
    )
    add(
        f"data/language_model --text-file ({_label})",
        f"a {_label} --text-file is one line naming the file, exit 2, "
        "nothing written",
        lambda content=_content, word=_word: _bad_text(content, word),
    )


add(
    "data/language_model --text-file (fewer sentences than a batch)",
    "a --text-file whose training part is smaller than one batch is one "
    "line naming it and --batch-size, exit 2, nothing written",
    lambda: _bad_text(
        b"A cat sat. The dog ran.\n\n" * 100,
        "--batch-size",
        "--batch-size",
        "512",
    ),
)


def _bad_text(content, word, *extra):
    path = write(scratch(), "bad.txt", content)
    argv = language_model_argv(*extra, text=path)
    output = pathlib.Path(argv[argv.index("--output") + 1])
    expect_cli("language_model", argv, "--text-file", word)
    expect(
        not output.exists() or not any(output.iterdir()),
        "lost work",
        f"a refused --text-file left files in {output}",
    )


_PRESET = {}


def tiny_preset():
    """A preset folder of a tiny biLM (built once, never trained)."""
    if "folder" not in _PRESET:
        words = ["<s>", "</s>", "the", "dog"]
        vocabulary = zoo.layers.TokenVocabulary(words, name="vocabulary")
        characters = zoo.layers.CharacterVocabulary.from_words(
            words, name="characters"
        )
        model = zoo.BiLM.create(
            vocabulary, characters, units=4, char_units=4, num_sampled=2
        )
        _PRESET["folder"] = scratch() / "tiny_bilm"
        zoo.presets.save_preset(model, _PRESET["folder"])
    return _PRESET["folder"]


def damaged_preset(how):
    """A copy of `tiny_preset` with one file damaged."""
    folder = scratch() / "damaged"
    shutil.copytree(tiny_preset(), folder)
    if how == "truncated weights":
        path = folder / "model.weights.h5"
        path.write_bytes(path.read_bytes()[:500])
    elif how == "edited config":
        path = folder / "config.json"
        path.write_text(path.read_text().replace('"units": 4', '"units": 5'))
    elif how == "no weights":
        (folder / "model.weights.h5").unlink()
    elif how == "metadata not JSON":
        (folder / "metadata.json").write_text("{")
    return folder


PRESET_DAMAGE = {
    "truncated weights": "fails its checksum",
    "edited config": "fails its checksum",
    "no weights": "is missing",
    "metadata not JSON": "not valid JSON",
}
for _how, _word in PRESET_DAMAGE.items():
    add(
        f"data/tagging --pretrained (preset, {_how})",
        f"a preset with {_how} given to --pretrained is one line naming "
        "the file, exit 2, before any training",
        lambda how=_how, word=_word: expect_cli(
            "tagging",
            tagging_argv("--pretrained", str(damaged_preset(how))),
            "--pretrained",
            word,
        ),
    )
add(
    "data/tagging --pretrained (unknown preset name)",
    "--pretrained naming no preset and no file is one line, exit 2",
    lambda: expect_cli(
        "tagging", tagging_argv("--pretrained", "en_bim"), "--pretrained"
    ),
)
add(
    "data/classification --pretrained (a tagger)",
    "--pretrained pointing at a tagger is one line saying it is a "
    "tagger, exit 2",
    lambda: _pretrained_tagger(),
)


def _pretrained_tagger():
    tagger = zoo.heads.sequence_tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=9), 3
    )
    path = scratch() / "tagger.keras"
    tagger.save(path)
    expect_cli(
        "classification",
        classification_argv("--pretrained", str(path)),
        "--pretrained",
        "a tagger",
    )


# python -m recipes.presets, and the predict command lines given a preset
# of another kind (a shipped name each) or an unknown name.
PRESET_COMMANDS = {
    "unknown command": ("presets", ["fetch"], "fetch"),
    "show an unknown name": ("presets", ["show", "en_bim"], "en_bim"),
    "export a folder with no run": (
        "presets",
        ["export", "/nonexistent-run", "x"],
        "no config.json",
    ),
    "export to a name with a slash": (
        "presets",
        ["export", ".", "a/b"],
        "name",
    ),
    "unknown flag": ("presets", ["list", "--all"], "--all"),
    "predict, a language model for a G2P": (
        "seq2seq",
        ["predict", "--model", "en_bilm"],
        "not a seq2seq",
    ),
    "predict, a tagger for a G2P": (
        "seq2seq",
        ["predict", "--model", "pos_en_universal"],
        "not a seq2seq",
    ),
    "predict, a language model for a tagger": (
        "tagging",
        ["predict", "--model", "en_bilm"],
        "not a tagger",
    ),
    "predict, an unknown preset name": (
        "tagging",
        ["predict", "--model", "pos_en_univresal"],
        "pos_en_univresal",
    ),
}
for _label, (_name, _argv, _word) in PRESET_COMMANDS.items():
    add(
        f"flag/{_name} ({_label})",
        f"python -m {MAINS[_name]}, {_label}: one line, exit 2",
        lambda name=_name, argv=_argv, word=_word: expect_cli(name, argv, word),
    )
