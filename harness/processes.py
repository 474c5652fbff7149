"""Local processes for `python -m recipes.launch` and `tuning.distributed`.

One supervisor, `Supervisor`, runs the children of both launchers (the
workers of a multi-worker recipe; keras-tuner's chief and workers): each
child's output copied here a whole line at a time, prefixed `[name] `; the
launcher's process id in `ENV_LAUNCHER`, so that a child exits once its
launcher is gone (`parent_watchdog`, called in the child); restarts of a
child that failed; one exit code for the group (the first failure's); and
a clean shutdown (SIGTERM, then SIGKILL after a grace period) when one
child fails, when the timeout passes, on SIGTERM or Ctrl-C, or when the
launcher returns; and a share of the CPU cores for each child
(`thread_env`). The guards the children need (`parent_watchdog`, free
ports, a port-in-use check, reachability, and a deadline for waits inside
native code) are in `harness.guards`, and importable from here too. The
module itself uses the standard library only (no Keras, no keras-tuner).
"""

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

from harness.errors import UsageError
from harness.guards import ENV_LAUNCHER
from harness.guards import ORPHANED  # noqa: F401  (re-exported)
from harness.guards import Deadline  # noqa: F401  (re-exported)
from harness.guards import free_ports  # noqa: F401  (re-exported)
from harness.guards import parent_watchdog  # noqa: F401  (re-exported)
from harness.guards import port_in_use  # noqa: F401  (re-exported)
from harness.guards import reachable  # noqa: F401  (re-exported)

# The group's exit code when its timeout passed (as timeout(1)'s).
TIMED_OUT = 124
# What sizes the backends' CPU thread pools: PyTorch's and oneDNN's
# OpenMP threads, TensorFlow's op threads.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "TF_NUM_INTRAOP_THREADS")


def cpu_count():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def thread_env(processes, environ=None):
    """`{variable: threads}` giving each of `processes` busy processes on
    this machine an equal share of its cores (at least one thread), for
    the `THREAD_VARIABLES` that `environ` (default: this process's) does
    not set already: a user's own setting wins.

    Why: each backend sizes its thread pool to every core, so two training
    processes on one machine ask for twice the cores there are. PyTorch's
    OpenMP threads suffer most: on a 2-core machine with one other busy
    process, a 4-layer bidirectional classifier's training step took
    1.2-1.5 s with 2 threads and 0.5-0.6 s with 1 (0.45 s alone).
    """
    environ = os.environ if environ is None else environ
    threads = str(max(1, cpu_count() // max(1, processes)))
    return {name: threads for name in THREAD_VARIABLES if name not in environ}


def check_command(command, what="the command"):
    """Raises `UsageError` unless `command[0]` is an executable (a path,
    or a name found on PATH), naming it: before any process starts."""
    if not command:
        raise UsageError(f"{what} is empty")
    if shutil.which(command[0]) is None:
        path = command[0]
        reason = (
            "no such file"
            if os.sep in path and not os.path.exists(path)
            else "not an executable file"
            if os.sep in path
            else "not found on PATH"
        )
        raise UsageError(
            f"{what} cannot run: {path}: {reason}; received: "
            f"{shlex.join(command)}"
        )


def exit_code(code):
    """A shell's exit code for a `Popen.returncode`: a death by signal N
    is -N there, 128 + N here."""
    return 128 - code if code < 0 else code


def describe(code):
    """`exit code 3`, or `exit code 137 (SIGKILL)` for a death by signal."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"exit code {128 - code} ({name})"
    return f"exit code {code}"


class Child:
    """A process of a `Supervisor`: `command` with `env`, its output lines
    copied to `log` prefixed `[name] ` (one whole line at a time, under
    `lock`, which all children of a group share). `restarts`: how many
    times it is started again after dying with a non-zero code that is
    not in `final`."""

    def __init__(self, name, command, env, log, lock, restarts=0, final=()):
        self.name = name
        self.command = list(command)
        self.env = env
        self.log = log
        self.lock = lock
        self.restarts = restarts
        self.final = tuple(final)
        self.restarted = 0
        self.start()

    def start(self):
        try:
            self.popen = self._popen()
        except OSError as error:  # no such executable, or not executable
            raise UsageError(
                f"cannot start {self.name}: {self.command[0]}: "
                f"{error.strerror or error}; received: "
                f"{shlex.join(self.command)}"
            ) from None
        self.reader = threading.Thread(
            target=self._stream, name=f"{self.name}-output", daemon=True
        )
        self.reader.start()

    def _popen(self):
        return subprocess.Popen(
            self.command,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            errors="replace",
            # Its own process group, so that `signal` reaches whatever it
            # starts in turn (a shell's commands, a tool's workers).
            start_new_session=True,
        )

    @property
    def pid(self):
        return self.popen.pid

    def _stream(self):
        for line in self.popen.stdout:
            with self.lock:
                self.log.write(f"[{self.name}] {line.rstrip(chr(10))}\n")
                self.log.flush()

    def poll(self):
        return self.popen.poll()

    def signal(self, number):
        """Sends `number` to the child's whole process group."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, number)

    def may_restart(self, code):
        return self.restarted < self.restarts and code not in self.final

    def restart(self):
        self.reader.join(5)  # the last lines of the run that ended
        self.signal(signal.SIGKILL)  # what the run that ended left
        self.restarted += 1
        self.start()


class Supervisor:
    """Runs a group of child processes until they are done; a context
    manager, so that no child outlives the `with` block.

        with Supervisor(timeout=60) as group:
            group.start("worker 0", [sys.executable, "-c", "..."])
            group.start("worker 1", [sys.executable, "-c", "..."])
            code = group.wait()

    `env`: the children's environment (default: this one's), plus
    `PYTHONUNBUFFERED=1` and `watchdog_env` = this process's id (for
    `parent_watchdog` in the children). `timeout`: seconds for the whole
    group (0: no limit). `grace`: seconds between SIGTERM and SIGKILL when
    stopping the children. `kind`: what the messages call a child. Inside
    the block SIGTERM and SIGINT (Ctrl-C) raise `SystemExit(128 + signal)`,
    so the children are stopped on the way out. The launcher's own lines
    go to `log` prefixed `[launcher] `. `share_cores`: the number of busy
    children that will share this machine's cores; each child's thread
    pools get an equal share (`thread_env`; 0: leave them as they are).
    """

    def __init__(
        self,
        *,
        log=sys.stdout,
        env=None,
        timeout=0.0,
        grace=10.0,
        poll=0.2,
        watchdog_env=ENV_LAUNCHER,
        kind="worker",
        share_cores=0,
    ):
        self.log = log
        environ = os.environ if env is None else env
        self.env = {
            **environ,
            **(thread_env(share_cores, environ) if share_cores else {}),
            "PYTHONUNBUFFERED": "1",
            watchdog_env: str(os.getpid()),
        }
        self.timeout = timeout
        self.grace = grace
        self.interval = poll
        self.kind = kind
        self.lock = threading.Lock()
        self.children = []
        self.started = time.monotonic()
        self._previous = {}

    def __enter__(self):
        def on_signal(signum, frame):
            raise SystemExit(128 + signum)  # leaves the block: stop()

        if threading.current_thread() is threading.main_thread():
            self._previous = {
                number: signal.signal(number, on_signal)
                for number in (signal.SIGTERM, signal.SIGINT)
            }
        return self

    def __exit__(self, *exc_info):
        for number, handler in self._previous.items():
            if handler is not None:  # None: not set from Python
                signal.signal(number, handler)
        self._previous = {}
        self.stop()

    def say(self, message):
        with self.lock:
            self.log.write(f"[launcher] {message}\n")
            self.log.flush()

    def start(self, name, command, env=None, *, restarts=0, final=()):
        """Starts a child; `env` adds variables to the group's. Returns
        the `Child`."""
        child = Child(
            name,
            command,
            {**self.env, **(env or {})},
            self.log,
            self.lock,
            restarts=restarts,
            final=final,
        )
        self.children.append(child)
        return child

    def elapsed(self):
        return time.monotonic() - self.started

    def late(self):
        """Whether the group's timeout has passed."""
        return bool(self.timeout) and self.elapsed() > self.timeout

    def wait(self, check=None):
        """Watches the children until one of these, and returns:

        - every child finished with code 0: 0;
        - a child died with a non-zero code and may not restart: its exit
          code (128 + N for signal N); one that may is started again;
        - the timeout passed: `TIMED_OUT`;
        - `check()`, called every poll, returned a code: that code.

        The children still running are left to `stop` (the `with` block's
        end)."""
        while True:
            running = False
            for child in self.children:
                code = child.poll()
                if code is None:
                    running = True
                elif code != 0 and child.may_restart(code):
                    child.restart()
                    running = True
                    self.say(
                        f"{child.name} exited with {describe(code)}; "
                        f"restarting it ({child.restarted} of "
                        f"{child.restarts}), pid {child.pid}"
                    )
                elif code != 0:
                    again = " again" if child.restarted else ""
                    self.say(
                        f"{child.name} exited with {describe(code)}{again}; "
                        "stopping the others"
                    )
                    return exit_code(code)
            if not running:
                for child in self.children:
                    child.reader.join(5)  # their last lines first
                self.say(f"all {len(self.children)} {self.kind}(s) finished")
                return 0
            code = check() if check else None
            if code is not None:
                return code
            if self.late():
                self.say(
                    f"--timeout {self.timeout:g} s passed; stopping every "
                    f"{self.kind}"
                )
                return TIMED_OUT
            time.sleep(self.interval)

    def stop(self):
        """SIGTERM to every child's process group (the last started first),
        SIGKILL to those left after `grace` seconds, then SIGKILL to what
        is left of every group (grandchildren included); every wait is
        bounded."""
        running = [c for c in reversed(self.children) if c.poll() is None]
        for child in running:
            child.signal(signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        for child in running:
            try:
                child.popen.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.signal(signal.SIGKILL)
        for child in running:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.popen.wait(10)
        for child in self.children:
            # What a child started and left behind (its group outlives it).
            child.signal(signal.SIGKILL)
        for child in self.children:
            child.reader.join(5)
