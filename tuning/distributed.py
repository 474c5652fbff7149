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
its id (`harness.processes.Supervisor`, which `recipes.launch` uses too).
It guards against keras-tuner's known failure modes:

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
- `timeout` bounds the whole run (exit code 124), and no child outlives
  the launcher (SIGTERM or Ctrl-C stops them; if the launcher is killed
  outright, each child exits once it sees its parent gone).
"""

import os
import sys
import threading
import time

import harness
from harness import processes

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
        raise harness.UsageError(
            f"{ENV_IP} and {ENV_PORT} are set but {ENV_ID} is not; set it to "
            "chief on one process and tuner0, tuner1, ... on the workers"
        )
    return "chief" if CHIEF in tuner_id else "worker"


def launcher_watchdog(interval=2.0):
    """In a process started by `launch`: exits (code 4) once the launcher
    is gone, so that no chief or worker outlives a killed launcher."""
    return processes.parent_watchdog(interval, env=ENV_LAUNCHER)


def chief_watchdog(timeout, interval=5.0):
    """In a worker: exits the process (code 3) once the chief has not
    accepted a connection for `timeout` seconds, at start or later."""
    host, port = os.environ[ENV_IP], os.environ[ENV_PORT]

    def watch():
        last_seen = time.monotonic()
        while True:
            if processes.reachable(f"{host}:{port}"):
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
    on 127.0.0.1; returns 0 when every process finished cleanly, else the
    first failure's exit code (124 when `timeout` passed).

    Args:
        argv: the search's arguments, without `--distributed`.
        workers: number of worker processes.
        chief_timeout: seconds to wait for the chief to accept connections
            (it loads the data first).
        chief_grace: seconds a chief may run on once every worker is done,
            and workers once the chief is done.
        timeout: seconds for the whole run (0: no limit).
        max_restarts: restarts per worker that died with an error.
    """
    port = processes.free_ports(1)[0]
    address = f"127.0.0.1:{port}"
    command = [sys.executable, "-m", "tuning.search", *argv]
    env = {**os.environ, ENV_IP: "127.0.0.1", ENV_PORT: str(port)}
    with processes.Supervisor(
        log=log,
        env=env,
        timeout=timeout,
        poll=0.5,
        watchdog_env=ENV_LAUNCHER,
        kind="process",
        share_cores=workers,  # the chief only hands out trials
    ) as group:
        group.say(f"chief on {address}, {workers} worker(s)")
        chief = group.start(CHIEF, command, {ENV_ID: CHIEF})
        while not processes.reachable(address, timeout=1.0):
            code = chief.poll()
            if code is not None:
                group.say(f"the chief exited with {code} before serving")
                return processes.exit_code(code) or 1
            if group.elapsed() > chief_timeout or group.late():
                group.say(f"the chief did not serve within {chief_timeout:g} s")
                return 1
            time.sleep(0.5)
        tuners = [
            group.start(
                tuner_id,
                command,
                {ENV_ID: tuner_id},
                restarts=max_restarts,
                final=FINAL_CODES,
            )
            for tuner_id in (f"tuner{i}" for i in range(workers))
        ]
        code = group.wait(_lingering(group, chief, tuners, chief_grace))
        if code not in (0, processes.TIMED_OUT, *FINAL_CODES):
            group.say("rerun the same command to resume the search")
        return code


def _lingering(group, chief, tuners, grace):
    """`Supervisor.wait`'s check: once the chief, or every worker, has
    finished cleanly, the others get `grace` seconds, then the search is
    done (0)."""
    since = None

    def check():
        nonlocal since
        chief_done = chief.poll() == 0
        if not chief_done and not all(t.poll() == 0 for t in tuners):
            return None
        since = since or time.monotonic()
        if time.monotonic() - since <= grace:
            return None
        if chief_done:
            group.say(
                "the chief finished the search but a worker still runs "
                f"after {grace:g} s; stopping it"
            )
        else:
            group.say(
                f"every worker is done but the chief still runs after "
                f"{grace:g} s; stopping it"
            )
        return 0

    return check
