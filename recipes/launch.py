"""Run a command as N local workers of one multi-worker job.

    python -m recipes.launch --workers 2 -- python -m recipes.tagging \\
        --quick --distribute multi-worker --output runs/tagging-2w

For trying `--distribute multi-worker` on one machine: builds `TF_CONFIG`
for N workers on free 127.0.0.1 ports (worker 0 is the chief, the only one
that writes `--output`), starts N copies of the command with it, and
copies their output here, each line prefixed `[worker i]`. It stops every
worker as soon as one fails (and exits with that worker's code), when
`--timeout` passes (exit code 124), or when it is stopped itself (SIGTERM,
Ctrl-C); each stop is SIGTERM, then SIGKILL after `--grace` seconds. A
worker whose launcher is killed outright exits on its own (the recipes
watch for it). Rerunning the same command after a failure resumes the job
from the chief's last backup (`recipes.checkpoints.RunBackup` in
`OUTPUT/backup`).

On a real cluster there is no launcher: run the same recipe command on
every machine with its own `TF_CONFIG` (see docs/scaling-out.md).
"""

import sys

import harness
from harness import flags
from harness import processes
from harness import tf_config

RECIPES = (
    "recipes.tagging",
    "recipes.classification",
    "recipes.g2p",
    "recipes.seq2seq",  # recipes.g2p's earlier name
    "recipes.translation",
)
MAX_WORKERS = 64
TIMED_OUT = processes.TIMED_OUT  # the exit code when --timeout passes


def launch(
    command,
    workers,
    *,
    ports=None,
    timeout=0.0,
    grace=10.0,
    log=sys.stdout,
    poll=0.2,
):
    """Runs `command` as `workers` local workers; returns the exit code
    (0 when every worker finished cleanly). `ports`: one per worker, or
    None to pick free ones."""
    ports = list(ports) if ports else processes.free_ports(workers)
    addresses = [f"127.0.0.1:{port}" for port in ports]
    with processes.Supervisor(
        log=log, timeout=timeout, grace=grace, poll=poll, share_cores=workers
    ) as group:
        for index in range(workers):
            worker = group.start(
                f"worker {index}",
                command,
                {tf_config.ENV: tf_config.for_worker(addresses, index)},
            )
            role = " (chief)" if index == 0 else ""
            group.say(
                f"worker {index}{role}: {addresses[index]}, pid {worker.pid}"
            )
        return group.wait()


def parse(argv):
    """`(options, command)` from `[options] -- command ...`."""
    parser = flags.ArgumentParser(
        prog="python -m recipes.launch",
        description=__doc__.splitlines()[0],
        usage="python -m recipes.launch [options] -- COMMAND [ARGS ...]",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="number of worker processes (default: 2)",
    )
    parser.add_argument(
        "--ports",
        default="",
        help="comma-separated ports, one per worker (default: free ones)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=0.0,
        help="seconds before every worker is stopped (default: 0, no limit)",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=10.0,
        help="seconds between SIGTERM and SIGKILL when stopping a worker "
        "(default: 10)",
    )
    if "--" not in argv:
        options = parser.parse_args(argv)  # --help, or a bad option
        raise harness.UsageError(
            "no command to run: put it after --, e.g. python -m "
            "recipes.launch --workers 2 -- python -m recipes.tagging "
            "--quick --distribute multi-worker"
        )
    split = argv.index("--")
    options = parser.parse_args(argv[:split])
    return options, argv[split + 1 :]


def check(options, command):
    flags.check_range("workers", options.workers, low=1, high=MAX_WORKERS)
    flags.check_range("timeout", options.timeout, low=0)
    flags.check_range("grace", options.grace, low=0)
    if not command:
        raise harness.UsageError("no command to run after --")
    processes.check_command(command, "the command after --")
    recipe = next((r for r in RECIPES if r in command), None)
    joined = " ".join(command)
    if recipe and not (
        "--distribute=multi-worker" in command
        or any(
            a == "--distribute" and b == "multi-worker"
            for a, b in zip(command, command[1:])
        )
    ):
        raise harness.UsageError(
            f"the command runs {recipe} without --distribute multi-worker, "
            "so each worker would train alone and write the same --output; "
            f"received: {joined}"
        )
    if not options.ports:
        return None
    ports = []
    for text in options.ports.split(","):
        text = text.strip()
        if not text.isdigit() or not 1 <= int(text) <= 65535:
            raise harness.UsageError(
                "--ports must be comma-separated ports in 1..65535; "
                f"received {options.ports!r}"
            )
        ports.append(int(text))
    if len(ports) != options.workers or len(set(ports)) != len(ports):
        raise harness.UsageError(
            f"--ports must list {options.workers} different port(s), one "
            f"per worker; received {options.ports!r}"
        )
    for port in ports:
        if processes.port_in_use(port):
            raise harness.UsageError(
                f"--ports: port {port} is already in use on this machine; "
                "stop what holds it or choose another port"
            )
    return ports


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    options, command = parse(argv)
    ports = check(options, command)
    return launch(
        command,
        options.workers,
        ports=ports,
        timeout=options.timeout,
        grace=options.grace,
    )


if __name__ == "__main__":
    raise SystemExit(harness.run_cli(main))
