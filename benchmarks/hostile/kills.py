"""The hostile run's `kills` group: a run stopped at every phase, its
backup damaged, its data changed, its backend switched, its folder taken
by a second job, its disk full; every run a real subprocess.

The run is a tagging run of 3 epochs on a tiny CoNLL-U corpus written
here (seconds). It stops itself at a named phase (the recipes' test hook
`RECIPES_PAUSE_AT`: it prints `paused at PHASE` and sends itself
SIGSTOP), so each signal lands where the attempt says. The promise of a
kill: rerunning the same command ends with exactly the test metrics of
an uninterrupted run of the same seed (run once per process, not an
attempt), a `log.csv` with one row per epoch, and no finished epoch
trained again. A rerun the backup cannot serve (a damaged file, other
data, another backend) is refused in one line naming why. The full disk
is a 2 MB tmpfs mounted as the run's parent folder (root only).
"""

import contextlib
import json
import math
import os
import pathlib
import signal
import subprocess
import sys
import threading

from benchmarks.hostile import attempts
from benchmarks.hostile.attempts import Broken
from benchmarks.hostile.attempts import expect

GROUP = "kills"
ROOT = pathlib.Path(__file__).resolve().parents[2]
EPOCHS = 3
TIMEOUT = 600  # seconds for any one run

# --- the run ----------------------------------------------------------------


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def conllu_text(sentences=120, seed=0):
    """A CoNLL-U corpus of short tagged sentences (twice the cli group's)."""
    return attempts.conllu_text(sentences, seed)


scratch = attempts.scratch


def backend():
    import keras

    return keras.backend.backend()


def other_backend():
    here = backend()
    return attempts.BACKENDS[
        (attempts.BACKENDS.index(here) + 1) % len(attempts.BACKENDS)
    ]


class Run:
    """One run's command: its corpus (a copy of its own, which an attempt
    may change) and its `--output`."""

    def __init__(self, out=None):
        folder = scratch()
        self.corpus = folder / "train.conllu"
        self.corpus.write_text(conllu_text())
        self.out = pathlib.Path(out) if out else folder / "out"

    def argv(self):
        return [
            sys.executable, "-m", "recipes.tagging", "--dataset", "conllu",
            "--train-file", str(self.corpus), "--output", str(self.out),
            "--epochs", str(EPOCHS), "--patience", str(EPOCHS),
            "--units", "8", "--embedding-dim", "8", "--num-layers", "1",
            "--batch-size", "8", "--dropout", "0.3", "--seed", "3",
            "--learning-rate", "0.01", "--no-tensorboard",
            "--no-char-features",
        ]  # fmt: skip

    def run(self, on=None):
        """Runs to the end: `(exit code, stdout, stderr)`."""
        result = subprocess.run(
            self.argv(),
            cwd=ROOT,
            env=environment(on=on),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        return result.returncode, result.stdout, result.stderr

    def start_paused(self, phase):
        """Starts the run; returns it once stopped at `phase`."""
        return Paused(self, phase)


def environment(pause=None, on=None):
    """A user's environment (without our TF_CPP_MIN_LOG_LEVEL), on this
    process's backend (or `on`), pausing at `pause`."""
    values = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "KERAS_BACKEND": on or backend(),
    }
    values.pop("TF_CPP_MIN_LOG_LEVEL", None)
    values.pop("RECIPES_PAUSE_AT", None)
    if pause:
        values["RECIPES_PAUSE_AT"] = pause
    return values


class Paused:
    """A run stopped at `phase` (standard output to a file, standard
    error read here up to its `paused at PHASE` line)."""

    def __init__(self, run, phase):
        self.phase = phase
        self.stdout_path = scratch() / "stdout.txt"
        self._stdout = self.stdout_path.open("w")
        self.process = subprocess.Popen(
            run.argv(),
            cwd=ROOT,
            env=environment(pause=phase),
            stdout=self._stdout,
            stderr=subprocess.PIPE,
            text=True,
            # As a user's foreground run has it: a hostile run started in
            # the background (`nohup ... &`) has SIGINT ignored, and its
            # children would inherit that (Python then installs no
            # KeyboardInterrupt handler).
            preexec_fn=_default_sigint,
        )
        # A run that never pauses (nor ends) is killed.
        self._timer = threading.Timer(TIMEOUT, self.process.kill)
        self._timer.start()
        self.stderr = []
        for line in self.process.stderr:
            if line.strip() == f"paused at {phase}":
                return
            self.stderr.append(line)
        self.process.wait()
        self.close()
        raise RuntimeError(
            f"the run never paused at {phase} (exit "
            f"{self.process.returncode}): {''.join(self.stderr)[-600:]}"
        )

    @property
    def pid(self):
        return self.process.pid

    def kill(self, number=signal.SIGKILL):
        """Sends `number`; a stopped process gets it once continued
        (SIGKILL needs no SIGCONT). Returns the exit code."""
        self.process.send_signal(number)
        if number != signal.SIGKILL:
            self.process.send_signal(signal.SIGCONT)
        return self.finish()

    def resume(self):
        self.process.send_signal(signal.SIGCONT)
        return self.finish()

    def finish(self):
        """Waits for the end; returns the exit code (its whole standard
        error, but the `paused at` line, is then in `rest`)."""
        self.rest = "".join(self.stderr) + self.process.stderr.read()
        code = self.process.wait(TIMEOUT)
        self.close()
        return code

    def output(self):
        return self.stdout_path.read_text()

    def close(self):
        self._timer.cancel()
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process.stderr.close()
        self._stdout.close()


def trained(stdout):
    """The epochs (1-based) a run's standard output says it trained."""
    return [
        int(line.split()[1].split("/")[0])
        for line in stdout.splitlines()
        if line.startswith("Epoch ")
    ]


def logged(out):
    """The epochs of `log.csv` (its first column)."""
    log = pathlib.Path(out) / "log.csv"
    if not log.is_file():
        return []
    return [line.split(",")[0] for line in log.read_text().splitlines()[1:]]


_REFERENCE = {}


def reference():
    """The test metrics of an uninterrupted run (once per process)."""
    if "metrics" not in _REFERENCE:
        run = Run()
        code, stdout, stderr = run.run()
        if code != 0:
            raise RuntimeError(
                f"the reference run failed (exit {code}): {stderr[-600:]}"
            )
        _REFERENCE["metrics"] = json.loads(
            (run.out / "metrics.json").read_text()
        )
        _REFERENCE["trained"] = trained(stdout)
    return _REFERENCE["metrics"]


KEYS = ("test_accuracy", "test_loss", "epochs_run", "params")


def like_reference(run, code, stdout, stderr, retrained):
    """The promise after a kill: the rerun (`code`, `stdout`, `stderr`)
    exits 0, trains only `retrained` (the epochs not backed up), and ends
    with the uninterrupted run's metrics and a clean log.csv."""
    expected = reference()
    expect(
        code == 0,
        "traceback" if "Traceback" in stderr else "unclear error",
        f"the rerun exited {code}: {one(stderr)}",
    )
    again = trained(stdout)
    expect(
        again == list(retrained),
        "lost work",
        f"the rerun trained epochs {again}; expected {list(retrained)}",
    )
    metrics = json.loads((run.out / "metrics.json").read_text())
    different = {
        key: (metrics.get(key), expected.get(key))
        for key in KEYS
        if not same(metrics.get(key), expected.get(key))
    }
    expect(
        not different,
        "silently wrong",
        "metrics.json differs from the uninterrupted run's "
        + ", ".join(f"{k}: {a} != {b}" for k, (a, b) in different.items()),
    )
    rows = logged(run.out)
    expect(
        rows == [str(e) for e in range(1, EPOCHS + 1)],
        "silently wrong",
        f"log.csv has the epochs {rows}",
    )
    expect(
        not (run.out / "backup").exists(),
        "silently wrong",
        "the backup was left behind by a finished run",
    )


def same(got, want):
    """Equal, a float to 1e-5 (the project's promise for a resume)."""
    if isinstance(want, float) and isinstance(got, float):
        return math.isclose(got, want, rel_tol=0, abs_tol=1e-5)
    return got == want


def one(text):
    """Standard error, its traceback's last line if it holds one."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def error_lines(text, paused=None):
    """The lines of standard error, but the hook's `paused at` line."""
    return [
        line
        for line in text.strip().splitlines()
        if line.strip() and line.strip() != f"paused at {paused}"
    ]


def expect_one_line(text, code, codes, *names):
    """Standard error `text` of a run that exited `code` is one line
    `error: ...` naming `names`, and `code` is one of `codes`."""
    lines = error_lines(text)
    if code == 0:
        raise Broken("silently wrong", f"exit 0; stderr {one(text)!r}")
    expect(
        code in codes and len(lines) == 1 and lines[0].startswith("error: "),
        "traceback" if len(lines) > 1 else "unclear error",
        f"exit {code}, {len(lines)} stderr lines: "
        + " | ".join(line[:160] for line in lines[-3:]),
    )
    missing = [n for n in names if n not in lines[0]]
    expect(not missing, "unclear error", f"lacks {missing}: {lines[0]}")
    return lines[0]


def add(name, promise, check):
    attempts.add(GROUP, name, promise, check)


# --- a kill at each phase, then the same command ------------------------------

PHASES = {
    # phase: the epochs the rerun trains again (the backed-up ones not)
    "epoch:1": [1, 2, 3],
    "epoch:2": [2, 3],
    "after-fit": [],
    "saving": [],
    "after-save": [],
    "after-metrics": [],
}
for _phase, _retrained in PHASES.items():

    def _killed(phase=_phase, retrained=tuple(_retrained)):
        reference()
        run = Run()
        run.start_paused(phase).kill(signal.SIGKILL)
        like_reference(run, *run.run(), retrained)

    add(
        f"SIGKILL at {_phase}",
        f"a run SIGKILLed at {_phase} and rerun with the same command ends "
        "with the uninterrupted run's test metrics and one log.csv row "
        f"per epoch, training only epochs {_retrained or 'none'} again",
        _killed,
    )


def _terminated():
    reference()
    run = Run()
    run.start_paused("epoch:2").kill(signal.SIGTERM)
    like_reference(run, *run.run(), [2, 3])


def _interrupted():
    reference()
    run = Run()
    paused = run.start_paused("epoch:2")
    code = paused.kill(signal.SIGINT)
    expect_one_line(paused.rest, code, (130,), "interrupted", str(run.out))
    like_reference(run, *run.run(), [2, 3])


def _killed_twice():
    reference()
    run = Run()
    run.start_paused("epoch:2").kill()
    run.start_paused("epoch:3").kill()
    like_reference(run, *run.run(), [3])


add(
    "SIGTERM at epoch:2",
    "a run SIGTERMed in epoch 2 and rerun ends as the uninterrupted run",
    _terminated,
)
add(
    "SIGINT at epoch:2",
    "Ctrl-C in epoch 2 is one line naming the folder to resume (exit "
    "130), and the rerun ends as the uninterrupted run",
    _interrupted,
)
add(
    "SIGKILL in epoch 2, then in epoch 3 of the rerun",
    "a run killed twice (the rerun killed too) ends as the uninterrupted "
    "run, each backed-up epoch trained once",
    _killed_twice,
)

# --- a damaged backup, other data, another backend: refused -------------------


def killed_at_epoch_2():
    """A run killed in epoch 2: its backup holds epoch 1."""
    reference()
    run = Run()
    run.start_paused("epoch:2").kill()
    backup = run.out / "backup"
    expect(
        (backup / "training_metadata.json").is_file(),
        "lost work",
        f"no backup after a kill in epoch 2: {sorted(os.listdir(run.out))}",
    )
    return run, json.loads((backup / "training_metadata.json").read_text())


def damage(key, how):
    """Deletes or cuts in half the backup file `key` names (`key`: a
    key of the metadata, or `metadata` for the metadata file itself)."""

    def check():
        run, metadata = killed_at_epoch_2()
        backup = run.out / "backup"
        name = "training_metadata.json" if key == "metadata" else metadata[key]
        path = backup / name
        if how == "delete":
            path.unlink()
        else:
            data = path.read_bytes()
            path.write_bytes(data[: len(data) // 2])
        left = sorted(os.listdir(backup))
        code, _, stderr = run.run()
        expect_one_line(stderr, code, (2,), str(path), "--overwrite")
        expect(
            sorted(os.listdir(backup)) == left,
            "lost work",
            "the refused rerun changed the backup",
        )

    return check


DAMAGES = [
    ("weights", "delete"),
    ("weights", "truncate"),
    ("rng", "truncate"),
    ("best_weights", "truncate"),
    ("metadata", "truncate"),
]
for _key, _how in DAMAGES:
    add(
        f"backup {_key} file {_how}d after a kill",
        f"a killed run whose backup {_key} file is {_how}d is refused on "
        "rerun in one line naming the file (exit 2), not resumed on fresh "
        "weights",
        damage(_key, _how),
    )


def _corpus_changed():
    run, _ = killed_at_epoch_2()
    with run.corpus.open("a") as handle:
        handle.write(conllu_text(3, seed=9))
    code, _, stderr = run.run()
    expect_one_line(stderr, code, (2,), "data", str(run.corpus))


def _other_backend():
    run, _ = killed_at_epoch_2()
    there = other_backend()
    code, _, stderr = run.run(on=there)
    expect_one_line(stderr, code, (2,), "backend", there)
    # The refusal left the backup: the run resumes on its own backend.
    like_reference(run, *run.run(), [2, 3])


add(
    "corpus edited after a kill",
    "a killed run rerun on a changed --train-file is refused in one line "
    "naming the data and the file",
    _corpus_changed,
)
add(
    "rerun on another backend after a kill",
    "a run killed on this backend and rerun on another is refused in one "
    "line naming the backend; rerun on this one, it then ends as the "
    "uninterrupted run",
    _other_backend,
)

# --- a second job on a running folder -------------------------------------


def _second_job():
    reference()
    run = Run()
    first = run.start_paused("epoch:2")
    try:
        code, _, stderr = run.run()
        expect_one_line(stderr, code, (2,), str(run.out), f"job {first.pid}")
        finished = first.resume()
    finally:
        first.close()
    expect(
        finished == 0,
        "lost work",
        f"the first job exited {finished} after the second was refused: "
        f"{one(first.rest)}",
    )
    like_reference(run, 0, first.output(), "", [1, 2, 3])


add(
    "a second job on a running folder",
    "a second job on the folder of a running one exits 2 with one line "
    "naming the folder and the job; the first then finishes as an "
    "uninterrupted run",
    _second_job,
)

# --- a full disk -----------------------------------------------------------


@contextlib.contextmanager
def small_disk(size="2m"):
    """A tmpfs of `size` mounted on a new folder (root only); unmounted
    on the way out."""
    folder = scratch() / "disk"
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(f"cannot mount a tmpfs: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def fill(folder):
    """Writes `folder/filler` until the disk is full; returns its path."""
    path = pathlib.Path(folder) / "filler"
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    block = b"\0" * 4096
    try:
        while True:
            try:
                if os.write(handle, block) < len(block):
                    break
            except OSError:
                break
    finally:
        os.close(handle)
    return path


def _full_from_the_start():
    reference()
    with small_disk() as disk:
        fill(disk)
        run = Run(out=disk / "run")
        code, _, stderr = run.run()
        expect_one_line(stderr, code, (1, 2), str(run.out))


def full_at(phase, codes, retrained):
    """The disk fills while the run is stopped at `phase`; once space is
    freed, the same command finishes as the uninterrupted run."""

    def check():
        reference()
        with small_disk() as disk:
            run = Run(out=disk / "run")
            paused = run.start_paused(phase)
            try:
                filler = fill(disk)
                code = paused.resume()
            finally:
                paused.close()
            expect_one_line(paused.rest, code, codes, str(run.out))
            filler.unlink()
            like_reference(run, *run.run(), retrained)

    return check


add(
    "full disk from the start",
    "a run whose --output is on a full disk stops at once with one line "
    "naming the folder (exit 1 or 2)",
    _full_from_the_start,
)
FULL = [
    # (phase the disk fills at, exit codes, epochs the rerun trains)
    ("epoch:2", (1,), [2, 3]),
    ("after-fit", (1, 2), []),
    ("after-save", (1, 2), []),
]
for _phase, _codes, _retrained in FULL:
    add(
        f"full disk at {_phase}",
        f"the disk filling at {_phase} is one line naming the folder (exit "
        f"{' or '.join(map(str, _codes))}); once space is freed the same "
        "command ends as the uninterrupted run, losing no finished epoch",
        full_at(_phase, _codes, _retrained),
    )
