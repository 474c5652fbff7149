"""The attempts' registry and the checks that turn an outcome into a
verdict (see `benchmarks.hostile`).

An attempt is a function that returns when its promise held and raises
`Broken(verdict, detail)` when it did not; any other exception it lets
out is a bug of the attempt itself (verdict `crash`, reported apart).
"""

import atexit
import contextlib
import dataclasses
import io
import pathlib
import random
import re
import shutil
import tempfile

import numpy as np

import harness

BACKENDS = ("tensorflow", "jax", "torch")
GROUPS = ("library", "cli", "kills", "presets")
VERDICTS = (
    "held",
    "silently wrong",
    "traceback",
    "unclear error",
    "lost work",
    "crash",
)


class Broken(Exception):
    """The promise did not hold: `verdict` (one of `VERDICTS`) and what
    was seen."""

    def __init__(self, verdict, detail):
        super().__init__(f"{verdict}: {detail}")
        self.verdict = verdict
        self.detail = detail


@dataclasses.dataclass(frozen=True)
class Attempt:
    """One attempt: its group, a unique name, the promise in words, the
    function that checks it, and the backends it runs on."""

    group: str
    name: str
    promise: str
    check: object
    backends: tuple = BACKENDS


REGISTRY = {}


def add(group, name, promise, check, backends=BACKENDS):
    """Registers `check` (a function of no argument) as an attempt."""
    if group not in GROUPS:
        raise ValueError(f"group must be one of {GROUPS}; received {group!r}")
    key = (group, name)
    if key in REGISTRY:
        raise ValueError(f"two attempts named {name!r} in {group!r}")
    REGISTRY[key] = Attempt(group, name, promise, check, tuple(backends))


def attempts(group, backend):
    """The attempts of `group` that run on `backend`, in order."""
    return [
        a
        for (g, _), a in REGISTRY.items()
        if g == group and backend in a.backends
    ]


def first_line(text, limit=200):
    text = str(text).strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[:limit] + "..."


def _summary(value):
    try:
        array = np.asarray(value)
        if array.dtype.kind == "f":
            return (
                f"array {array.shape}, finite={bool(np.isfinite(array).all())}"
            )
        return f"{type(value).__name__} {first_line(repr(value), 80)}"
    except Exception:  # not array-like
        return f"{type(value).__name__}"


def refused(call, *names, types=(ValueError, TypeError), any_type=False):
    """The promise "`call()` raises an error naming each of `names`".

    `names` are strings (or compiled regexes) the message must contain:
    the argument's name, the value received, the range. Returns the
    message. A return is `silently wrong`; another exception type (unless
    `any_type`, for errors a backend wraps, as JAX's `JaxRuntimeError`
    around a host callback's) or a message missing a name is an
    `unclear error`.
    """
    try:
        value = call()
    except Exception as error:  # the refusal we hope for, or not
        message = str(error)
        if not any_type and not isinstance(error, types):
            raise Broken(
                "unclear error",
                f"{type(error).__name__}: {first_line(message)}",
            ) from None
        missing = [n for n in names if not _contains(message, n)]
        if missing:
            raise Broken(
                "unclear error",
                f"message lacks {missing}: {first_line(message)}",
            ) from None
        return message
    raise Broken("silently wrong", f"accepted; returned {_summary(value)}")


def _contains(text, name):
    if isinstance(name, re.Pattern):
        return bool(name.search(text))
    return str(name) in text


def expect(condition, verdict, detail):
    """Raises `Broken(verdict, detail)` unless `condition`."""
    if not condition:
        raise Broken(verdict, detail)


def call(main, argv):
    """`main(argv)` under `harness.run_cli` (what `python -m` runs):
    `(exit code, stdout, stderr)`; an exception a user would see as a
    traceback is `Broken("traceback", ...)`."""
    out, err = io.StringIO(), io.StringIO()
    exit_code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            harness.run_cli(main, list(argv))
    except SystemExit as stop:
        exit_code = stop.code if isinstance(stop.code, int) else 1
    except Exception as error:  # a traceback a user would have seen
        raise Broken(
            "traceback", f"{type(error).__name__}: {first_line(error)}"
        ) from None
    return exit_code, out.getvalue(), err.getvalue().strip()


def cli(main, argv, *names, code=2):
    """The promise "`main(argv)` under `harness.run_cli` exits `code` with
    one line on standard error, `error: ...`, naming each of `names`"
    (`code=0`: it succeeds). Returns stderr."""
    exit_code, _, text = call(main, argv)
    if code == 0:
        expect(
            exit_code == 0,
            "unclear error",
            f"exit {exit_code}: {first_line(text)}",
        )
        return text
    if exit_code == 0:
        raise Broken("silently wrong", f"exit 0; stderr {first_line(text)!r}")
    lines = [line for line in text.splitlines() if line.strip()]
    expect(
        exit_code == code and len(lines) == 1 and text.startswith("error: "),
        "traceback" if len(lines) > 1 else "unclear error",
        f"exit {exit_code}, {len(lines)} stderr lines: {first_line(text)}",
    )
    missing = [n for n in names if not _contains(text, n)]
    expect(not missing, "unclear error", f"lacks {missing}: {text}")
    return text


# --- fixtures the groups share (tiny, written here, never downloaded) ---

_SCRATCH = []


def scratch():
    """A new empty folder, deleted when the process ends."""
    if not _SCRATCH:
        root = tempfile.mkdtemp(prefix="hostile-")
        _SCRATCH.append(root)
        atexit.register(shutil.rmtree, root, ignore_errors=True)
    return pathlib.Path(tempfile.mkdtemp(dir=_SCRATCH[0]))


LEXICON = {
    "DET": ["the", "a", "no"],
    "NOUN": ["dog", "cat", "table", "key", "house", "jury"],
    "VERB": ["runs", "sees", "likes", "opens"],
    "ADJ": ["big", "old", "red"],
    "ADP": ["on", "in", "near"],
    "PRON": ["he", "she"],
}
PATTERNS = [
    ["DET", "NOUN", "VERB", "DET", "NOUN"],
    ["DET", "ADJ", "NOUN", "VERB", "ADP", "DET", "NOUN"],
    ["PRON", "VERB", "DET", "ADJ", "NOUN"],
]


def token_line(number, word, tag):
    return f"{number}\t{word}\t{word}\t{tag}\t_\t_\t0\tdep\t_\t_"


def conllu_text(sentences=60, seed=0, only=None):
    """A CoNLL-U corpus of `sentences` short tagged sentences (`only`: a
    single tag for every token)."""
    rng = random.Random(seed)
    lines = []
    for index in range(sentences):
        tags = rng.choice(PATTERNS) + ["PUNCT"]
        words = [rng.choice(LEXICON.get(t, ["."])) for t in tags]
        lines.append(f"# sent_id = {index + 1}")
        for number, (word, tag) in enumerate(zip(words, tags), 1):
            lines.append(token_line(number, word, only or tag))
        lines.append("")
    return "\n".join(lines) + "\n"
