"""keras-tuner's chief/worker mode, launched and guarded.

keras-tuner runs a search on several processes (or machines) when each
runs the same script with these environment variables:

- `KERASTUNER_TUNER_ID`: `chief` for the one process that holds the oracle
  (it serves trials over gRPC and trains nothing), `tuner0`, `tuner1`, ...
  for the workers, which ask the chief for trials and train them;
- `KERASTUNER_ORACLE_IP`, `KERASTUNER_ORACLE_PORT`: where the chief
  listens (the chief binds to them; workers connect to them).

`launch` starts a chief and N workers of `python -m tuning.search` on this
machine, on a free 127.0.0.1 port, with each process's output prefixed by
its id. It guards against keras-tuner's known failure modes:

- workers start only once the chief accepts connections (no race with a
  chief that is still loading data);
- a chief that dies stops every worker at once (upstream, a worker waits up
  to an hour per call for a dead chief), and `chief_watchdog` gives a
  worker on a cluster the same guard;
- a worker that dies mid-trial is restarted once with the same id, which
  keras-tuner answers with its unfinished trial; a second death stops the
  search (upstream, the chief would wait forever for that trial);
- a chief still running once every worker has finished gets a grace
  period, then is stopped (its state is saved after every trial);
- `timeout` bounds the whole run, and no child outlives the launcher
  (SIGTERM stops them; if the launcher is killed outright, each child
  exits once it sees its parent gone).
"""

import os
import signal
import subprocess
import sys
import threading
import time

from recipes import processes as _processes
from recipes._common import RecipeError

CHIEF = "chief"
ENV_ID = "KERASTUNER_TUNER_ID"
ENV_IP = "KERASTUNER_ORACLE_IP"
ENV_PORT = "KERASTUNER_ORACLE_PORT"
ENV_LAUNCHER = "TUNING_LAUNCHER_PID"
# Worker exit codes that a restart cannot fix: a user error (2), an
# unreachable chief (3), a gone launcher (4).
FINAL_CODES = (2, 3, 4)


def role():
    """`"standalone"`, `"chief"` or `"worker"`, from the environment (the
    same test as keras-tuner's: an id containing "chief" is the chief)."""
    if ENV_IP not in os.environ or ENV_PORT not in os.environ:
        return "standalone"
    tuner_id = os.environ.get(ENV_ID, "")
    if not tuner_id:
        raise RecipeError(
            f"{ENV_IP} and {ENV_PORT} are set but {ENV_ID} is not; set it to "
            "chief on one process and tuner0, tuner1, ... on the workers"
        )
    return "chief" if CHIEF in tuner_id else "worker"


def launcher_watchdog(interval=2.0):
    """In a process started by `launch`: exits (code 4) once the launcher
    is gone, so that no chief or worker outlives a killed launcher."""
    return _processes.parent_watchdog(interval, env=ENV_LAUNCHER)


def free_port(host="127.0.0.1"):
    return _processes.free_ports(1, host)[0]


def reachable(host, port, timeout=2.0):
    return _processes.reachable(f"{host}:{port}", timeout)


def chief_watchdog(timeout, interval=5.0):
    """In a worker: exits the process (code 3) once the chief has not
    accepted a connection for `timeout` seconds, at start or later."""
    host, port = os.environ[ENV_IP], os.environ[ENV_PORT]

    def watch():
        last_seen = time.monotonic()
        while True:
            if reachable(host, port):
                last_seen = time.monotonic()
            elif time.monotonic() - last_seen > timeout:
                print(
                    f"error: the keras-tuner chief at {host}:{port} has not "
                    f"answered for {timeout:g} s; stopping this worker",
                    file=sys.stderr,
                    flush=True,
                )
                os._exit(3)
            time.sleep(interval)

    thread = threading.Thread(target=watch, name="chief-watchdog", daemon=True)
    thread.start()
    return thread


class _Process:
    """A child `python -m tuning.search` whose output is prefixed."""

    def __init__(self, tuner_id, argv, env, log=sys.stdout):
        self.tuner_id = tuner_id
        self.argv = argv
        self.env = env
        self.log = log
        self.restarts = 0
        self.start()

    def start(self):
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "tuning.search", *self.argv],
            env={**self.env, ENV_ID: self.tuner_id},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self.reader = threading.Thread(target=self._stream, daemon=True)
        self.reader.start()

    def _stream(self):
        for line in self.popen.stdout:
            self.log.write(f"[{self.tuner_id}] {line}")
            self.log.flush()

    def poll(self):
        return self.popen.poll()

    def stop(self, grace=10.0):
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(grace)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self.reader.join(5)


def launch(
    argv,
    workers,
    *,
    chief_timeout=600.0,
    chief_grace=60.0,
    timeout=0.0,
    max_restarts=1,
    log=sys.stdout,
):
    """Runs a chief and `workers` workers of `python -m tuning.search argv`
    on 127.0.0.1; returns 0 when every process finished cleanly.

    Args:
        argv: the search's arguments, without `--distributed`.
        workers: number of worker processes.
        chief_timeout: seconds to wait for the chief to accept connections
            (it loads the data first).
        chief_grace: seconds a chief may run on once every worker is done.
        timeout: seconds for the whole run (0: no limit).
        max_restarts: restarts per worker that died with an error.
    """
    port = free_port()
    env = {
        **os.environ,
        ENV_IP: "127.0.0.1",
        ENV_PORT: str(port),
        ENV_LAUNCHER: str(os.getpid()),
        "PYTHONUNBUFFERED": "1",
    }

    def say(message):
        log.write(f"[launcher] {message}\n")
        log.flush()

    start = time.monotonic()

    def late():
        return timeout and time.monotonic() - start > timeout

    say(f"chief on 127.0.0.1:{port}, {workers} worker(s)")
    processes = []

    def on_term(signum, frame):
        raise SystemExit(128 + signum)  # runs the `finally` below

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        chief = _Process(CHIEF, argv, env, log)
        processes.append(chief)
        while not reachable("127.0.0.1", port, timeout=1.0):
            if chief.poll() is not None:
                say(f"the chief exited with {chief.poll()} before serving")
                return chief.poll() or 1
            if time.monotonic() - start > chief_timeout or late():
                say(f"the chief did not serve within {chief_timeout:g} s")
                return 1
            time.sleep(0.5)
        tuners = [_Process(f"tuner{i}", argv, env, log) for i in range(workers)]
        processes += tuners
        done_at = chief_done_at = None
        while True:
            if late():
                say(f"stopping everything: --timeout {timeout:g} s passed")
                return 1
            code = chief.poll()
            if code is not None and code != 0:
                say(f"the chief exited with {code}; stopping the workers")
                return code
            if code == 0:
                chief_done_at = chief_done_at or time.monotonic()
                if time.monotonic() - chief_done_at > chief_grace:
                    say(
                        "the chief finished the search but a worker still "
                        f"runs after {chief_grace:g} s; stopping it"
                    )
                    return 0
            finished = True
            for tuner in tuners:
                code = tuner.poll()
                if code is None:
                    finished = False
                elif code != 0:
                    if code in FINAL_CODES:
                        say(
                            f"{tuner.tuner_id} exited with {code}; stopping "
                            "the search"
                        )
                        return code
                    if tuner.restarts >= max_restarts:
                        say(
                            f"{tuner.tuner_id} exited with {code} again; "
                            "stopping the search (rerun the same command "
                            "to resume it)"
                        )
                        return code
                    tuner.restarts += 1
                    say(
                        f"{tuner.tuner_id} exited with {code}; restarting it "
                        "to finish its trial"
                    )
                    tuner.start()
                    finished = False
            if finished:
                if chief.poll() is not None:
                    return 0
                done_at = done_at or time.monotonic()
                if time.monotonic() - done_at > chief_grace:
                    say(
                        f"every worker is done but the chief still runs "
                        f"after {chief_grace:g} s; stopping it"
                    )
                    return 0
            time.sleep(0.5)
    finally:
        signal.signal(signal.SIGTERM, previous)
        for process in reversed(processes):
            process.stop()
