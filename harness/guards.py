"""What keeps a group of local processes from hanging or colliding: the
guards the children of `harness.processes.Supervisor` need.

- `parent_watchdog`, called in a child, makes it exit (code `ORPHANED`)
  once its launcher is gone (the launcher's process id is in the
  `ENV_LAUNCHER` variable, which the supervisor sets);
- `free_ports`, `port_in_use` and `reachable`: ports for local workers,
  a port-in-use check, and whether a peer answers;
- `Deadline`: a deadline for waits inside native code that holds
  Python's lock (TensorFlow's multi-worker start-up).

Standard library only (no Keras, no keras-tuner). Every name here is
also importable from `harness.processes`, which holds the supervisor.
"""

import contextlib
import errno
import os
import socket
import subprocess
import sys
import threading
import time

# Set by `recipes.launch` in its children: the launcher's process id.
ENV_LAUNCHER = "RECIPES_LAUNCHER_PID"
# A child's exit code when its launcher is gone.
ORPHANED = 4


def free_ports(count, host="127.0.0.1"):
    """`count` distinct ports that were free on `host` a moment ago.

    The sockets are held open together while the kernel picks, so the
    ports differ; they are closed before returning, so a process started
    right after can bind them (another program could take one first: the
    worker's own port check then fails with a clear error).
    """
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket())
            sock.bind((host, 0))
            ports.append(sock.getsockname()[1])
        return ports


def port_in_use(port):
    """Whether a TCP server could not bind `port` on every interface now
    (the address TensorFlow's gRPC server binds)."""
    with socket.socket() as sock:
        try:
            sock.bind(("", int(port)))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def reachable(address, timeout=2.0):
    """Whether something accepts TCP connections at `host:port`."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def parent_watchdog(interval=1.0, env=ENV_LAUNCHER):
    """In a child of a `Supervisor`: exits (code 4) once the launcher is
    gone, so that no child outlives a killed launcher (a worker blocked in
    a collective would otherwise wait for its timeout). Does nothing
    outside a launcher. `env` names the variable holding the launcher's
    process id (the supervisor's `watchdog_env`; `tuning.distributed` uses
    its own)."""
    parent = os.environ.get(env, "")
    if not parent.isdigit():
        return None

    def watch():
        while os.getppid() == int(parent):
            time.sleep(interval)
        # The output usually went to the launcher: a broken pipe now.
        with contextlib.suppress(OSError, ValueError):
            print("error: the launcher is gone; stopping", file=sys.stderr)
        os._exit(ORPHANED)

    thread = threading.Thread(target=watch, name="launcher-watchdog")
    thread.daemon = True
    thread.start()
    return thread


_DEADLINE = r"""
import os, select, signal, socket, sys

parent, timeout, message, peers = (
    int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4:]
)
if select.select([sys.stdin], [], [], timeout)[0]:
    sys.exit(0)  # the parent got past its wait, or is gone

def answers(address):
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
        return True
    except (OSError, ValueError):
        return False

silent = [a for a in peers if not answers(a)] or ["none refuses; one hangs"]
print(message.replace("{silent}", ", ".join(silent)), file=sys.stderr)
sys.stderr.flush()
os.kill(parent, signal.SIGKILL)
"""


class Deadline:
    """Kills this process (SIGKILL, after printing `message`) unless
    `cancel` is called within `timeout` seconds.

    For waits inside native code that holds Python's lock (TensorFlow's
    multi-worker start-up does), where no Python thread, timer or signal
    handler of this process can run, the watch runs in a small separate
    process. `{silent}` in `message` becomes the `peers` (host:port) that
    refuse connections at that moment.
    """

    def __init__(self, timeout, message, peers=()):
        self.popen = subprocess.Popen(
            [
                sys.executable,
                "-S",
                "-c",
                _DEADLINE,
                str(os.getpid()),
                str(timeout),
                message,
                *peers,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
        )

    def cancel(self):
        with contextlib.suppress(OSError):
            self.popen.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(10)
