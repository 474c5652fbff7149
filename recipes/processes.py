"""Process plumbing for running a recipe on several local processes.

The same guards as `tuning.distributed` (keras-tuner's launcher), for
`recipes.launch` and for the workers it starts: free ports on one host, a
port-in-use check, child output streamed with a prefix, and a watchdog
that ends a child whose launcher is gone. They live here rather than being
imported from `tuning`, whose package imports keras-tuner (an optional
extra the recipes do not need).
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
    """In a process started by `recipes.launch`: exits (code 4) once the
    launcher is gone, so that no worker outlives a killed launcher (a
    worker blocked in a collective would otherwise wait for its timeout).
    Does nothing outside a launcher. `env` names the variable holding the
    launcher's process id (`tuning.distributed` uses its own)."""
    parent = os.environ.get(env, "")
    if not parent.isdigit():
        return None

    def watch():
        while os.getppid() == int(parent):
            time.sleep(interval)
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


class PrefixedProcess:
    """A child process whose output lines are copied to `log` with a
    prefix, one whole line at a time (`lock` is shared by all children)."""

    def __init__(self, name, command, env, log, lock):
        self.name = name
        self.log = log
        self.lock = lock
        self.popen = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            errors="replace",
        )
        self.reader = threading.Thread(
            target=self._stream, name=f"{name}-output", daemon=True
        )
        self.reader.start()

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

    def stop(self, grace=10.0):
        """SIGTERM, then SIGKILL after `grace` seconds; every wait is
        bounded."""
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(grace)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(grace)
        self.reader.join(5)
        return self.popen.poll()
