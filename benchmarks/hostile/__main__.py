"""The hostile run's driver: one worker process per group and backend,
verdicts appended as they come, a summary at the end (see
`benchmarks.hostile`)."""

import argparse
import collections
import importlib
import json
import os
import pathlib
import subprocess
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from benchmarks.hostile import attempts as registry  # noqa: E402

DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "hostile"


def parse(argv):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.hostile",
        description="Hundreds of attempts to make the library and the "
        "command lines silently wrong; a count of what held.",
    )
    parser.add_argument(
        "--backends", nargs="+", default=list(registry.BACKENDS),
        choices=registry.BACKENDS,
    )  # fmt: skip
    parser.add_argument(
        "--groups", nargs="+", default=list(registry.GROUPS),
        choices=registry.GROUPS,
    )  # fmt: skip
    parser.add_argument("--output", type=pathlib.Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--only", default=None, help="run the attempts whose name has this"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="workers at a time (each one group on one backend; the kills "
        "group is slow, about 15 minutes a backend on 2 cores)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def load(group):
    importlib.import_module(f"benchmarks.hostile.{group}")


def results_path(output, group, backend):
    return output / f"{group}_{backend}.jsonl"


def read_results(path):
    if not path.exists():
        return {}
    done = {}
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:  # a line cut by a kill: redo it
            continue
        done[row["name"]] = row
    return done


def work(args):
    """In a worker: runs one group's attempts on this process's backend."""
    import keras

    backend = keras.backend.backend()
    (group,) = args.groups
    load(group)
    path = results_path(args.output, group, backend)
    done = read_results(path)
    todo = [
        a for a in registry.attempts(group, backend)
        if a.name not in done and (args.only is None or args.only in a.name)
    ]  # fmt: skip
    print(
        f"{group} on {backend}: {len(todo)} attempts to run, "
        f"{len(done)} already recorded",
        flush=True,
    )
    with path.open("a") as sink:
        for number, attempt in enumerate(todo, 1):
            start = time.perf_counter()
            try:
                attempt.check()
                verdict, detail = "held", ""
            except registry.Broken as broken:
                verdict, detail = broken.verdict, broken.detail
            except Exception as error:  # a bug of the attempt itself
                verdict = "crash"
                detail = f"{type(error).__name__}: {error}"[:300]
                traceback.print_exc()
            row = {
                "name": attempt.name,
                "group": group,
                "backend": backend,
                "promise": attempt.promise,
                "verdict": verdict,
                "detail": detail,
                "seconds": round(time.perf_counter() - start, 2),
            }
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            os.fsync(sink.fileno())
            mark = "ok" if verdict == "held" else verdict.upper()
            print(
                f"[{number}/{len(todo)}] {mark:<14} {attempt.name}"
                + (f"  -- {detail}" if detail else ""),
                flush=True,
            )


def summarise(output, groups, backends):
    rows = []
    for group in groups:
        for backend in backends:
            rows.extend(
                read_results(results_path(output, group, backend)).values()
            )
    counts = collections.Counter(
        (r["group"], r["backend"], r["verdict"]) for r in rows
    )
    table = []
    header = ["group", "backend", "attempts", *registry.VERDICTS]
    for group in groups:
        for backend in backends:
            n = sum(
                v
                for (g, b, _), v in counts.items()
                if (g, b) == (group, backend)
            )
            if n:
                table.append(
                    [group, backend, n]
                    + [counts[(group, backend, v)] for v in registry.VERDICTS]
                )
    totals = ["all", "", sum(r[2] for r in table)] + [
        sum(r[3 + i] for r in table) for i in range(len(registry.VERDICTS))
    ]
    table.append(totals)
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in table:
        print("| " + " | ".join(str(c) for c in row) + " |")
    failed = [r for r in rows if r["verdict"] != "held"]
    for r in failed:
        print(
            f"{r['verdict']}: [{r['group']} {r['backend']}] {r['name']}"
            f" -- {r['detail']}"
        )
    summary = {
        "command": "python -m benchmarks.hostile " + " ".join(sys.argv[1:]),
        "header": header,
        "table": table,
        "not_held": failed,
    }
    (output / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def main(argv=None):
    args = parse(argv)
    args.output.mkdir(parents=True, exist_ok=True)
    if args.worker:
        return work(args)
    commands = []
    for group in args.groups:
        for backend in args.backends:
            command = [
                sys.executable, "-m", "benchmarks.hostile", "--worker",
                "--groups", group, "--output", str(args.output),
            ] + (["--only", args.only] if args.only else [])  # fmt: skip
            commands.append((group, backend, command))
    running = []
    while commands or running:
        while commands and len(running) < max(args.jobs, 1):
            group, backend, command = commands.pop(0)
            env = {**os.environ, "KERAS_BACKEND": backend}
            if args.jobs > 1:
                # Each worker's share of the cores (and its own log).
                env.update(OMP_NUM_THREADS="1", TF_NUM_INTRAOP_THREADS="1")
                log = (args.output / f"{group}_{backend}.log").open("a")
                process = subprocess.Popen(
                    command, cwd=ROOT, env=env, stdout=log, stderr=log
                )
            else:
                process = subprocess.Popen(command, cwd=ROOT, env=env)
            running.append((group, backend, process))
        time.sleep(1)
        for item in list(running):
            group, backend, process = item
            if process.poll() is not None:
                running.remove(item)
                if process.returncode:
                    print(
                        f"worker {group} on {backend} exited "
                        f"{process.returncode}",
                        flush=True,
                    )
    summarise(args.output, args.groups, args.backends)


if __name__ == "__main__":
    main()
