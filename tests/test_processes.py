"""`harness.processes.Supervisor`, the one process supervisor of
`python -m recipes.launch` and of the tuning search's chief and workers:
prefixed output, restarts, the group's exit code, and its shutdown (when
a child fails, on a timeout, on SIGTERM, and when the launcher is killed
outright). The children are tiny `python -c` commands; each test takes a
second or two."""

import io
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

from harness import processes

# `harness` imports no Keras, so a launcher in a subprocess starts in a
# moment.
LOAD = "from harness import processes as p\n"


def python(code):
    return [sys.executable, "-c", textwrap.dedent(code)]


def supervise(*children, **options):
    """Runs `(name, code, start options)` children; returns `(exit code,
    log lines, the children, seconds)`."""
    log = io.StringIO()
    start = time.monotonic()
    with processes.Supervisor(log=log, poll=0.05, **options) as group:
        started = [
            group.start(name, python(code), **more)
            for name, code, more in children
        ]
        code = group.wait()
    return code, log.getvalue().splitlines(), started, time.monotonic() - start


def test_each_line_is_prefixed_with_its_childs_name():
    code, lines, _, _ = supervise(
        ("worker 0", "print('one'); print('two', flush=True)", {}),
        ("worker 1", "import sys; sys.stdout.write('no newline')", {}),
    )
    assert code == 0, lines
    assert lines.index("[worker 0] one") < lines.index("[worker 0] two")
    assert "[worker 1] no newline" in lines
    assert lines[-1] == "[launcher] all 2 worker(s) finished"


def test_children_get_the_environment_and_the_watchdog_variable():
    code, lines, _, _ = supervise(
        (
            "a",
            f"import os; print(os.environ['X'], os.environ["
            f"{processes.ENV_LAUNCHER!r}], os.environ['PYTHONUNBUFFERED'])",
            {"env": {"X": "x"}},
        ),
    )
    assert code == 0, lines
    assert f"[a] x {os.getpid()} 1" in lines


def test_children_share_the_cores_unless_the_user_set_the_threads():
    cores = processes.cpu_count()
    show = (
        "import os; print(os.environ.get('OMP_NUM_THREADS'), "
        "os.environ.get('TF_NUM_INTRAOP_THREADS'))"
    )
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in processes.THREAD_VARIABLES
    }
    code, lines, _, _ = supervise(
        ("a", show, {}), ("b", show, {}), env=environ, share_cores=2
    )
    assert code == 0, lines
    share = str(max(1, cores // 2))
    assert f"[a] {share} {share}" in lines and f"[b] {share} {share}" in lines
    # A user's own setting wins; 0 leaves the pools alone.
    code, lines, _, _ = supervise(
        ("a", show, {}), env={**environ, "OMP_NUM_THREADS": "7"}, share_cores=64
    )
    assert "[a] 7 1" in lines, lines
    code, lines, _, _ = supervise(("a", show, {}), env=environ)
    assert "[a] None None" in lines, lines


def test_one_failure_stops_the_others_and_is_the_exit_code():
    code, lines, (slow, failing), seconds = supervise(
        ("slow", "import time; time.sleep(60)", {}),
        ("failing", "import sys; sys.exit(3)", {}),
    )
    assert code == 3
    assert (
        "[launcher] failing exited with exit code 3; stopping the others"
        in (lines)
    )
    assert slow.poll() == -signal.SIGTERM
    assert seconds < 30


def test_a_death_by_signal_is_128_plus_the_signal():
    code, lines, _, _ = supervise(
        (
            "killed",
            "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
            {},
        )
    )
    assert code == 128 + signal.SIGKILL
    assert lines[-1] == (
        "[launcher] killed exited with exit code 137 (SIGKILL); "
        "stopping the others"
    )


def test_a_child_ignoring_sigterm_is_killed_after_the_grace_period():
    ignoring = """
        import signal, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print('ready', flush=True)
        time.sleep(60)
    """
    log = io.StringIO()
    start = time.monotonic()
    with processes.Supervisor(log=log, grace=0.5) as group:
        child = group.start("stubborn", python(ignoring))
        while "[stubborn] ready" not in log.getvalue():
            assert child.poll() is None and time.monotonic() - start < 30
            time.sleep(0.05)
    assert child.poll() == -signal.SIGKILL
    assert time.monotonic() - start < 30


def test_a_failed_child_is_restarted_up_to_its_restarts(tmp_path):
    # Fails on its first two runs, then succeeds.
    flaky = f"""
        import pathlib, sys
        runs = pathlib.Path({str(tmp_path / "runs")!r})
        runs.write_text(runs.read_text() + 'x' if runs.exists() else 'x')
        print('run', len(runs.read_text()))
        sys.exit(0 if len(runs.read_text()) > 2 else 1)
    """
    code, lines, _, _ = supervise(("flaky", flaky, {"restarts": 2}))
    assert code == 0, lines
    assert [x for x in lines if x.startswith("[flaky]")] == [
        "[flaky] run 1",
        "[flaky] run 2",
        "[flaky] run 3",
    ]
    restarts = [x for x in lines if "restarting it" in x]
    assert len(restarts) == 2
    assert restarts[0].startswith(
        "[launcher] flaky exited with exit code 1; restarting it (1 of 2), pid "
    )

    (tmp_path / "runs").unlink()
    code, lines, _, _ = supervise(("flaky", flaky, {"restarts": 1}))
    assert code == 1
    assert lines[-1] == (
        "[launcher] flaky exited with exit code 1 again; stopping the others"
    )


def test_a_final_code_is_never_restarted():
    code, lines, _, _ = supervise(
        (
            "user error",
            "import sys; sys.exit(2)",
            {"restarts": 3, "final": (2,)},
        )
    )
    assert code == 2
    assert not any("restarting" in x for x in lines)


def test_the_timeout_stops_every_child():
    code, lines, (child,), seconds = supervise(
        ("sleeper", "import time; time.sleep(60)", {}), timeout=0.5
    )
    assert code == processes.TIMED_OUT
    assert lines[-1] == (
        "[launcher] --timeout 0.5 s passed; stopping every worker"
    )
    assert child.poll() is not None
    assert seconds < 30


def test_a_check_can_end_the_wait_with_its_code():
    log = io.StringIO()
    with processes.Supervisor(log=log, poll=0.05) as group:
        child = group.start("sleeper", python("import time; time.sleep(60)"))
        assert group.wait(lambda: 7 if group.elapsed() > 0.3 else None) == 7
    assert child.poll() == -signal.SIGTERM


def gone(pid):
    """Whether process `pid` has exited (a zombie, whose parent is gone
    and that no one has reaped, counts)."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def wait_for_pid(path, process, deadline):
    while not path.exists() or not path.read_text().strip():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return int(path.read_text())


CHILD = (
    LOAD + "import os, sys, time\n"
    "p.parent_watchdog(0.1)\n"
    "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
    "time.sleep(60)\n"
)


def launcher(tmp_path):
    """A launcher in a subprocess, whose one child writes its pid to a
    file; returns `(launcher, the child's pid)`."""
    pid_file = tmp_path / "child.pid"
    code = LOAD + (
        "import sys\n"
        "with p.Supervisor(grace=5) as group:\n"
        f"    group.start('child', [sys.executable, '-c', {CHILD!r}, "
        f"{str(pid_file)!r}])\n"
        "    sys.exit(group.wait())\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return process, wait_for_pid(pid_file, process, time.monotonic() + 30)


def test_sigterm_to_the_launcher_stops_its_children(tmp_path):
    process, child = launcher(tmp_path)
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM, output
    assert gone(child)


def test_a_child_exits_once_its_launcher_is_killed_outright(tmp_path):
    process, child = launcher(tmp_path)
    try:
        process.kill()
        process.wait(30)
        deadline = time.monotonic() + 30
        while not gone(child):
            assert time.monotonic() < deadline, (
                "the child outlived its launcher"
            )
            time.sleep(0.05)
    finally:
        if not gone(child):
            os.kill(child, signal.SIGKILL)


def test_stopping_the_group_stops_what_the_children_started(tmp_path):
    # A child that starts a grandchild (as a shell or a tool's worker pool
    # does) and is then stopped: the grandchild, which no watchdog
    # watches, goes with it, because the child has its own process group.
    pid_file = tmp_path / "grandchild.pid"
    code = f"""
        import subprocess, sys, time
        grandchild = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(300)"]
        )
        open({str(pid_file)!r}, "w").write(str(grandchild.pid))
        time.sleep(300)
    """
    log = io.StringIO()
    with processes.Supervisor(log=log, poll=0.05, grace=5) as group:
        group.start("parent", python(code))
        grandchild = wait_for_pid(
            pid_file, group.children[0].popen, time.monotonic() + 30
        )
        assert group.wait(lambda: 7) == 7
    deadline = time.monotonic() + 10
    try:
        while not gone(grandchild):
            assert time.monotonic() < deadline, "the grandchild outlived it"
            time.sleep(0.05)
    finally:
        if not gone(grandchild):
            os.kill(grandchild, signal.SIGKILL)
