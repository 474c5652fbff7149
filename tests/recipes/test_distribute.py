"""`--distribute` in the recipes and `python -m recipes.launch`.

Bad input is checked in-process (nothing starts); the launcher's process
handling with stand-in commands (plain `python -c`, a second or two).
Training under a strategy runs in subprocesses where devices must be set
up before TensorFlow starts (two logical CPU devices, or two JAX host
devices) and, for multi-worker, as real worker processes on 127.0.0.1;
those runs take tens of seconds each, so they are marked slow
(`make test-slow`).
"""

import contextlib
import csv
import importlib.util
import io
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import keras
import pytest

import harness
from harness import processes
from harness import tf_config
from recipes import distributed
from recipes import launch
from recipes import tagging
from tests.recipes.test_language_model import write_text
from tests.recipes.test_tagging import tiny_config
from tests.recipes.test_tagging import write_corpus
from tests.recipes.test_tagging import write_ner

ROOT = pathlib.Path(__file__).resolve().parents[2]
ON_TF = keras.backend.backend() == "tensorflow"
TINY = [
    "--units", "8", "--embedding-dim", "8", "--no-tensorboard",
    "--learning-rate", "0.01",
]  # fmt: skip


def env(**extra):
    values = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "TF_NUM_INTEROP_THREADS": "1",
        "TF_NUM_INTRAOP_THREADS": "1",
        **extra,
    }
    for name in ("TF_CONFIG", "XLA_FLAGS"):
        if name not in extra:
            values.pop(name, None)
    return values


def run_python(*argv, timeout, **extra):
    """`python *argv` in a process of its own, from the repository root,
    with `env(**extra)`: its `subprocess.CompletedProcess`."""
    return subprocess.run(
        [sys.executable, *argv],
        env=env(**extra),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def one_line_error(capsys, run, argv):
    with pytest.raises(SystemExit) as exit_info:
        harness.run_cli(run, argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@contextlib.contextmanager
def held_port():
    """A port that something listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


# --- TF_CONFIG ---------------------------------------------------------------

TWO = {"worker": ["127.0.0.1:2001", "127.0.0.1:2002"]}


def config_text(cluster=None, task=None):
    return json.dumps(
        {
            "cluster": TWO if cluster is None else cluster,
            "task": {"type": "worker", "index": 0} if task is None else task,
        }
    )


MALFORMED = [
    (None, "needs the TF_CONFIG environment variable"),
    ("{'cluster': 1", "TF_CONFIG is not valid JSON"),
    ("[1, 2]", "TF_CONFIG must be a JSON object"),
    (json.dumps({"task": {}}), "TF_CONFIG 'cluster' must map"),
    (
        config_text({"ps": ["h:1"], **TWO}),
        "cluster job 'ps' is not supported",
    ),
    (
        config_text({"chief": ["a:1", "b:2"], **TWO}),
        "cluster.chief must be one address",
    ),
    (
        config_text({"worker": ["127.0.0.1:2001", "localhost"]}),
        "cluster.worker[1] must be 'host:port' with a port in "
        "1..65535; received 'localhost'",
    ),
    (
        config_text({"worker": ["h:2001", "h:99999"]}),
        "received 'h:99999'",
    ),
    (
        config_text({"worker": ["h:2001", "h:2001"]}),
        "cluster.worker[1] repeats the address 'h:2001'",
    ),
    (json.dumps({"cluster": TWO}), "TF_CONFIG 'task' must be"),
    (
        config_text(task={"type": "chief", "index": 0}),
        "task.type 'chief' is not a job of the cluster; allowed: worker",
    ),
    (
        config_text(task={"type": "worker", "index": "1"}),
        "task.index must be an integer; received '1'",
    ),
    (
        config_text(task={"type": "worker", "index": 2}),
        "task.index 2 is out of range: job 'worker' has 2 address(es), "
        "so allowed: 0..1",
    ),
    (
        config_text(task={"type": "worker", "index": -1}),
        "task.index -1 is out of range",
    ),
]


def test_malformed_tf_config_is_a_clear_error():
    # One test for all cases: each test costs a Keras session reset here.
    for text, message in MALFORMED:
        with pytest.raises(harness.UsageError) as error:
            tf_config.check(text)
        assert message in str(error.value), (text, str(error.value))
        assert len(str(error.value).splitlines()) == 1


def read(monkeypatch, text):
    """`distributed.read_tf_config()` with `TF_CONFIG=text`."""
    monkeypatch.setenv("TF_CONFIG", text)
    return distributed.read_tf_config()


@pytest.mark.tf_only
def test_tf_config_roles_put_the_chief_first(monkeypatch):
    workers = read(
        monkeypatch, config_text(task={"type": "worker", "index": 1})
    )
    assert (workers.worker_index, workers.is_chief) == (1, False)
    assert workers.address == "127.0.0.1:2002"
    assert read(monkeypatch, config_text()).is_chief
    cluster = {"chief": ["c:1"], **TWO}
    chief = read(
        monkeypatch, config_text(cluster, {"type": "chief", "index": 0})
    )
    first_worker = read(monkeypatch, config_text(cluster))
    assert chief.is_chief and chief.addresses[0] == "c:1"
    assert (first_worker.worker_index, first_worker.is_chief) == (1, False)


@pytest.mark.tf_only
def test_the_cluster_is_what_tensorflows_resolver_reads(monkeypatch):
    """The cluster and task come from `TFConfigClusterResolver` (which
    the strategy is given), not from a parse of our own."""
    import tensorflow as tf

    text = config_text(
        {"chief": ["c:1"], **TWO}, {"type": "worker", "index": 1}
    )
    cluster = read(monkeypatch, text)
    resolver = cluster.resolver
    assert isinstance(
        resolver, tf.distribute.cluster_resolver.TFConfigClusterResolver
    )
    assert cluster.jobs == resolver.cluster_spec().as_dict()
    assert cluster.jobs == {"chief": ["c:1"], **TWO}
    assert (cluster.task_type, cluster.task_index) == ("worker", 1)
    assert (resolver.task_type, resolver.task_id) == ("worker", 1)
    assert cluster.address == "127.0.0.1:2002"
    assert cluster.worker_index == 2


@pytest.mark.tf_only
def test_a_port_in_use_is_named(monkeypatch):
    with held_port() as port:
        cluster = read(
            monkeypatch,
            config_text({"worker": [f"127.0.0.1:{port}", "127.0.0.1:2"]}),
        )
        with pytest.raises(harness.UsageError) as error:
            tf_config.check_own_port(cluster)
    assert f"cluster.worker[0] = 127.0.0.1:{port}: port {port} is " in str(
        error.value
    )


# --- the recipes' flags ------------------------------------------------------


@pytest.mark.parametrize(
    "argv,message",
    [
        (
            ["--distribute", "horovod"],
            "--distribute must be one of none, mirrored, multi-worker; "
            "received 'horovod'",
        ),
        (
            ["--distribute", "mirrored", "--distribute-timeout", "0"],
            "--distribute-timeout must be > 0; received 0.0",
        ),
    ],
)
def test_bad_distribute_flags_exit_2(argv, message, tmp_path, capsys):
    err = one_line_error(
        capsys, tagging.main, [*argv, "--output", str(tmp_path)]
    )
    assert message in err


@pytest.mark.tf_only
@pytest.mark.parametrize(
    "tf_config,message",
    [
        (None, "needs the TF_CONFIG environment variable"),
        ('{"cluster": ', "TF_CONFIG is not valid JSON"),
        (
            config_text(task={"type": "worker", "index": 5}),
            "task.index 5 is out of range",
        ),
        ("in use", "is already in use on this machine"),
    ],
)
def test_multi_worker_bad_input_exits_2_before_starting(
    tf_config, message, tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    argv = ["--distribute", "multi-worker", "--output", str(tmp_path / "o")]
    with held_port() as port:
        if tf_config == "in use":
            tf_config = config_text(
                {"worker": [f"127.0.0.1:{port}", "127.0.0.1:2"]}
            )
        if tf_config is not None:
            monkeypatch.setenv("TF_CONFIG", tf_config)
        err = one_line_error(capsys, tagging.main, argv)
    assert message in err
    assert not (tmp_path / "o").exists()  # nothing was written


@pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="needs torch installed"
)
def test_distribute_on_torch_says_what_is_offered(tmp_path):
    """PyTorch has no `--distribute` but `none`: one line naming what is
    offered, exit 2, nothing written (a process of its own: the backend
    is chosen before Keras is imported)."""
    result = run_python(
        "-m", "recipes.tagging", "--backend", "torch",
        "--distribute", "multi-worker", "--output", str(tmp_path / "o"),
        timeout=120,
        TF_CONFIG=config_text(),
    )  # fmt: skip
    assert result.returncode == 2, result.stderr[-3000:]
    assert result.stderr.strip() == (
        "error: --distribute multi-worker is not offered on the torch "
        "backend (allowed on torch: none); use the TensorFlow backend "
        "(mirrored, multi-worker) or JAX (mirrored, multi-worker), e.g. "
        "KERAS_BACKEND=tensorflow"
    )
    assert not (tmp_path / "o").exists()


@pytest.mark.tf_only
def test_a_crf_tagger_learns_under_mirrored(tmp_path):
    """The replicas train on the CRF's likelihood: with the task's sparse
    cross-entropy on the emissions (before 2026-12-06) this run's test F1
    was 0.03, its loss stuck at log 6."""
    train = write_ner(tmp_path / "ner.txt")
    config = tiny_config(
        tmp_path, dataset="columns", train_file=str(train), learning_rate=0.02
    )
    metrics = tagging.run(config, distribute="mirrored")
    assert metrics["head"] == "crf"
    assert metrics["test_f1"] > 0.8


@pytest.mark.tf_only
def test_mirrored_runs_the_whole_recipe_in_process(tmp_path):
    """The distributed path end to end on this process's devices (one
    CPU here): vectorising pipeline, trainer, chief's outputs."""
    corpus = write_corpus(tmp_path / "corpus", documents=10, sentences=8)
    config = tagging.Config(
        corpus_dir=str(corpus),
        output=str(tmp_path / "out"),
        epochs=1,
        units=4,
        embedding_dim=4,
        batch_size=8,
        tensorboard=False,
    )
    metrics = tagging.run(config, distribute="mirrored")
    described = metrics["distribute"]
    assert described["mode"] == "mirrored" and described["chief"]
    assert described["global_batch_size"] == 8 * described["replicas"]
    saved = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert saved["distribute"] == described
    assert "distribute" not in json.loads(
        (tmp_path / "out" / "config.json").read_text()
    )
    model = keras.saving.load_model(
        tmp_path / "out" / "model.keras", safe_mode=True
    )
    assert len(model.tag(["the dog runs ."])[0]) == 4
    assert not (tmp_path / "out" / "backup").exists()


# --- the launcher, with stand-in workers --------------------------------------


LAUNCHER_ERRORS = [
    (["--workers", "2"], "no command to run: put it after --"),
    (["--workers", "0", "--", "true"], "--workers must be [1, 64]"),
    (["--workers", "2", "--"], "no command to run after --"),
    (
        ["--", sys.executable, "-m", "recipes.tagging", "--quick"],
        "runs recipes.tagging without --distribute multi-worker",
    ),
    (
        ["--ports", "7001", "--", "true"],
        "--ports must list 2 different port(s)",
    ),
    (["--ports", "70000,1", "--", "true"], "--ports must be"),
    (["--timeout", "-1", "--", "true"], "--timeout must be >= 0"),
]


def test_launcher_bad_input_exits_2(capsys):
    for argv, message in LAUNCHER_ERRORS:
        assert message in one_line_error(capsys, launch.main, argv), argv


def test_launcher_refuses_a_port_in_use(capsys):
    with held_port() as port:
        err = one_line_error(
            capsys, launch.main, ["--ports", f"{port},1", "--", "true"]
        )
    assert f"--ports: port {port} is already in use" in err


WORKER = (
    "import json, os, sys, time; "
    "c = json.loads(os.environ['TF_CONFIG']); i = c['task']['index']; "
    "print('index', i, 'of', len(c['cluster']['worker']), flush=True); "
    "time.sleep(float(sys.argv[1 + i])); "
    "sys.exit(int(sys.argv[3 + i]))"
)


def run_launcher(*argv):
    """`launch.main` in this process (the stand-in workers are separate
    processes); returns `(exit code, output)`."""
    log = io.StringIO()
    options, command = launch.parse(list(argv))
    code = launch.launch(
        command,
        options.workers,
        ports=launch.check(options, command),
        timeout=options.timeout,
        grace=options.grace,
        log=log,
    )
    return code, log.getvalue()


def test_launcher_gives_each_worker_its_tf_config_and_a_prefix():
    code, output = run_launcher(
        "--workers", "2", "--", sys.executable, "-c", WORKER, "0", "0",
        "0", "0",
    )  # fmt: skip
    assert code == 0, output
    lines = output.splitlines()
    assert "[worker 0] index 0 of 2" in lines
    assert "[worker 1] index 1 of 2" in lines
    assert any(
        x.startswith("[launcher] worker 0 (chief): 127.0") for x in lines
    )
    assert lines[-1] == "[launcher] all 2 worker(s) finished"


def test_launcher_stops_every_worker_when_one_fails():
    start = time.monotonic()
    # Worker 1 fails at once with code 3; worker 0 would run for 60 s.
    code, output = run_launcher(
        "--workers", "2", "--grace", "2", "--", sys.executable, "-c", WORKER,
        "60", "0", "0", "3",
    )  # fmt: skip
    assert code == 3, output
    assert time.monotonic() - start < 30
    assert "[launcher] worker 1 exited with exit code 3; stopping" in output


def test_launcher_timeout_stops_everything():
    start = time.monotonic()
    code, output = run_launcher(
        "--workers", "2", "--timeout", "1", "--grace", "2", "--",
        sys.executable, "-c", WORKER, "60", "60", "0", "0",
    )  # fmt: skip
    assert code == launch.TIMED_OUT
    assert time.monotonic() - start < 30
    assert "--timeout 1 s passed; stopping every worker" in output


def test_deadline_kills_a_process_stuck_in_native_code():
    """What guards the multi-worker start-up: TensorFlow waits for every
    worker holding Python's lock, so the watch is another process."""
    # `harness` imports no Keras: the child starts in a moment.
    code = (
        "import time\n"
        "from harness import processes as p\n"
        "p.Deadline(0.5, 'gave up on {silent}', ['127.0.0.1:1'])\n"
        "time.sleep(60)\n"
    )
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == -signal.SIGKILL
    assert time.monotonic() - start < 30
    assert result.stderr.strip() == "gave up on 127.0.0.1:1"


# --- real training under a strategy (slow) -----------------------------------


def check(*argv, timeout=600, **extra):
    result = run_python(
        "-m", "tests.recipes.distributed_check", *argv, timeout=timeout, **extra
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def assert_same_trajectory(first, second, tolerance=1e-5):
    assert len(first) == len(second)
    for a, b in zip(first, second):
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] == pytest.approx(b[key], rel=tolerance, abs=1e-6), (
                key,
                first,
                second,
            )


@pytest.mark.slow
@pytest.mark.xdist_group("distribute")  # one at a time: they start processes
@pytest.mark.tf_only
def test_mirrored_on_two_devices_equals_one_device(tmp_path):
    """Two logical CPU devices, batch 4 each, against one device with
    batch 8: the same loss and accuracy every epoch (train and dev, as
    Keras logs them), the same test loss and the same trained weights.
    The corpus's length buckets leave odd batches (3 rows over 2
    replicas, and some of 1 row), so uneven splits are covered."""
    corpus = write_corpus(tmp_path / "corpus", documents=10, sentences=8)
    result = check("tagging", str(corpus), str(tmp_path / "out"))
    assert result["distribute"]["replicas"] == 2
    assert result["distribute"]["global_batch_size"] == 8
    assert_same_trajectory(result["mirrored"], result["one"])
    assert result["mirrored_test"] == pytest.approx(result["one_test"], 1e-5)
    assert result["weights_difference"] < 1e-5


@pytest.mark.slow
@pytest.mark.xdist_group("distribute")  # one at a time: they start processes
@pytest.mark.tf_only
def test_classification_and_seq2seq_train_under_mirrored(tmp_path):
    corpus = write_corpus(tmp_path / "corpus", documents=4)
    result = check("others", str(corpus), str(tmp_path / "out"))
    for recipe in ("classification", "seq2seq"):
        described = result[recipe]["distribute"]
        assert (described["mode"], described["replicas"]) == ("mirrored", 2)
    assert 0 <= result["classification"]["test_accuracy"] <= 1
    assert result["seq2seq"]["test_per"] >= 0


@pytest.mark.slow
@pytest.mark.xdist_group("distribute")  # one at a time: they start processes
@pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="needs jax installed"
)
def test_jax_data_parallel_on_two_devices_equals_one_device(tmp_path):
    """`--distribute mirrored` on JAX: keras.distribution.DataParallel
    over 2 host devices (batch 4 each) against 1 device (batch 8)."""
    corpus = write_corpus(tmp_path / "corpus", documents=10, sentences=8)
    runs = [
        check(
            "tagging",
            str(corpus),
            str(tmp_path / f"out{devices}"),
            "--alone",
            "--per-replica",
            str(8 // devices),
            KERAS_BACKEND="jax",
            XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
        )  # fmt: skip
        for devices in (2, 1)
    ]
    assert [r["distribute"]["replicas"] for r in runs] == [2, 1]
    assert [r["distribute"]["backend"] for r in runs] == ["jax", "jax"]
    assert_same_trajectory(runs[0]["mirrored"], runs[1]["mirrored"])
    assert runs[0]["mirrored_test"] == pytest.approx(
        runs[1]["mirrored_test"], 1e-5
    )


def two_workers(*argv, timeout=300):
    """`distributed_check ARGV` as both workers of a 2-worker cluster on
    127.0.0.1 (started here, not by the launcher); their JSON lines."""
    ports = processes.free_ports(2)
    cluster = {"worker": [f"127.0.0.1:{port}" for port in ports]}
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.recipes.distributed_check", *argv],
            env=env(
                TF_CONFIG=config_text(cluster, {"type": "worker", "index": i})
            ),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    results = []
    try:
        for worker in workers:
            out, err = worker.communicate(timeout=timeout)
            assert worker.returncode == 0, err[-3000:]
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    return results


@pytest.mark.slow
@pytest.mark.xdist_group("distribute")  # one at a time: they start processes
@pytest.mark.tf_only
def test_upstream_multi_worker_bugs_are_still_there():
    """The upstream bugs `trainer.Trainer` works around, shown with
    Keras's own `fit` on a 1-unit `Dense` model under a 2-worker
    `MultiWorkerMirroredStrategy`. When an assertion below fails, that
    bug is fixed upstream and its workaround can go:

    - a model built in the strategy's scope fails on its first batch
      (Keras reduces the whole batch to build it symbolically): the
      `Trainer` is created outside the scope;
    - the scalar logs fail Keras's cross-worker average along axis 0
      (https://github.com/tensorflow/tensorflow/issues/72388): the
      `Trainer`'s `rank_one_logs`.
    """
    results = two_workers("keras-72388")
    assert [r["worker"] for r in results] == [0, 1]
    for result in results:
        assert "Attempt to convert a value (PerReplica" in (
            result["in_scope_error"] or "it trained"
        )
        assert "Invalid reduction dimension 0 for input with 0 dimensions" in (
            result["scalar_logs_error"] or "it trained"
        )
        # The workaround trains, and both workers log the same losses.
        losses = result["rank_one_loss"]
        assert len(losses) == 2 and losses[1] < losses[0]
    assert results[0]["rank_one_loss"] == results[1]["rank_one_loss"]


def launch_tagging(tmp_path, *extra, workers=2, timeout=300, **popen):
    corpus = tmp_path / "corpus"
    if not corpus.exists():
        write_corpus(corpus, documents=10, sentences=8)
    command = [
        sys.executable, "-m", "recipes.launch", "--workers", str(workers),
        "--timeout", str(timeout), "--grace", "3", "--",
        sys.executable, "-m", "recipes.tagging", "--corpus-dir", str(corpus),
        "--output", str(tmp_path / "out"), "--distribute", "multi-worker",
        "--distribute-timeout", "120", *TINY, *extra,
    ]  # fmt: skip
    return subprocess.Popen(
        command,
        env=env(TMPDIR=str(tmp_path / "tmp")),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **popen,
    )


def epochs_logged(output):
    log = output / "log.csv"
    if not log.is_file():
        return []
    with log.open() as handle:
        return [int(row["epoch"]) for row in csv.DictReader(handle)]


@pytest.mark.slow
@pytest.mark.xdist_group("distribute")  # one at a time: they start processes
@pytest.mark.tf_only
def test_two_workers_train_and_only_the_chief_writes(tmp_path):
    (tmp_path / "tmp").mkdir()
    process = launch_tagging(tmp_path, "--quick", "--batch-size", "4")
    output, _ = process.communicate(timeout=400)
    assert process.returncode == 0, output[-3000:]
    lines = output.splitlines()
    for index in (0, 1):
        assert any(x.startswith(f"[worker {index}] Epoch 2/2") for x in lines)
    assert "[worker 1] worker 1 finished; the chief wrote" in output
    out = tmp_path / "out"
    assert f"[worker 0] wrote {out}/: config.json, metrics.json" in output
    assert sorted(p.name for p in out.iterdir()) == [  # no .lock left
        "config.json",
        "learning_curves.png",
        "log.csv",
        "metrics.json",
        "model.keras",
    ]
    assert epochs_logged(out) == [1, 2]  # one writer, no duplicate rows
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["distribute"]["workers"] == 2
    assert metrics["distribute"]["global_batch_size"] == 8
    # The other worker's temporary directory is gone.
    assert list((tmp_path / "tmp").iterdir()) == []
    model = keras.saving.load_model(out / "model.keras", safe_mode=True)
    tagged = model.tag(["the dog sees a cat ."])[0]
    assert [w for w, _ in tagged] == ["the", "dog", "sees", "a", "cat", "."]


@pytest.mark.slow
@pytest.mark.xdist_group("distribute")  # one at a time: they start processes
@pytest.mark.tf_only
def test_a_killed_worker_is_resumed_from_the_chiefs_backup(tmp_path):
    """Kill worker 1 (SIGKILL) mid-training: the launcher stops the chief
    and fails; the same launch again resumes from the last backed-up
    epoch, and log.csv keeps every epoch written before the kill."""
    epochs = 30
    extra = ["--epochs", str(epochs), "--patience", str(epochs)]
    process = launch_tagging(tmp_path, *extra, "--batch-size", "4")
    out = tmp_path / "out"
    pid, lines = None, []
    deadline = time.monotonic() + 300
    os.set_blocking(process.stdout.fileno(), False)
    while len(epochs_logged(out)) < 3:
        assert process.poll() is None, "".join(lines)[-3000:]
        assert time.monotonic() < deadline, "no 3 epochs in 300 s"
        lines += process.stdout.readlines()
        for line in lines:
            if line.startswith("[launcher] worker 1: "):
                pid = int(line.rsplit("pid ", 1)[1])
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    os.set_blocking(process.stdout.fileno(), True)
    output = "".join(lines) + process.communicate(timeout=120)[0]
    assert process.returncode == 128 + signal.SIGKILL, output[-3000:]
    assert "[launcher] worker 1 exited with exit code 137 (SIGKILL)" in output
    before = epochs_logged(out)
    assert 3 <= len(before) < epochs
    assert not (out / "metrics.json").exists()
    backup = json.loads((out / "backup" / "training_metadata.json").read_text())

    again = launch_tagging(tmp_path, *extra, "--batch-size", "4")
    output, _ = again.communicate(timeout=600)
    assert again.returncode == 0, output[-3000:]
    after = epochs_logged(out)
    assert after[: len(before)] == before  # nothing written is lost
    resumed = after[len(before) :]
    # Training went on from the chief's last backup, not from epoch 0.
    # (log.csv numbers epochs from 1; the backup counts those done.)
    assert resumed[0] == backup["epoch"] + 1 and backup["epoch"] >= before[-1]
    assert after == list(range(1, epochs + 1))
    assert f"[worker 0] Epoch {backup['epoch'] + 1}/{epochs}" in output
    assert f"[worker 1] Epoch {backup['epoch'] + 1}/{epochs}" in output
    print(
        f"worker 1 killed after epochs {before[0]}..{before[-1]} were "
        f"logged; the rerun resumed at epoch {resumed[0]} (the chief's "
        f"backup) and ran to {after[-1]}"
    )


@pytest.mark.slow
@pytest.mark.xdist_group("distribute")  # one at a time: they start processes
@pytest.mark.tf_only
def test_a_worker_whose_peer_never_starts_stops_at_the_timeout(tmp_path):
    corpus = write_corpus(tmp_path / "corpus", documents=4)
    with held_port() as absent:
        pass  # free again: nothing will answer there
    port = processes.free_ports(1)[0]
    tf_config = config_text(
        {"worker": [f"127.0.0.1:{port}", f"127.0.0.1:{absent}"]}
    )
    start = time.monotonic()
    result = run_python(
        "-m", "recipes.tagging", "--corpus-dir",
        str(corpus), "--output", str(tmp_path / "out"), *TINY,
        "--distribute", "multi-worker", "--distribute-timeout", "5",
        timeout=120,
        TF_CONFIG=tf_config,
    )  # fmt: skip
    assert time.monotonic() - start < 90
    assert result.returncode == -signal.SIGKILL
    assert (
        "error: the multi-worker cluster did not form within "
        f"--distribute-timeout 5 s (no answer from: 127.0.0.1:{absent})"
    ) in result.stderr


def launch_language_model(tmp_path, output, *extra, workers=2):
    """`python -m recipes.language_model` on JAX as `workers` local
    workers of one job (`python -m recipes.launch`); its output."""
    text = tmp_path / "text.txt"
    if not text.exists():
        write_text(text)
    command = [
        "-m", "recipes.launch", "--workers", str(workers),
        "--timeout", "400", "--grace", "3", "--",
        sys.executable, "-m", "recipes.language_model", *LM_TINY,
        "--text-file", str(text), "--output", str(output),
        "--distribute", "multi-worker", "--distribute-timeout", "120",
        *extra,
    ]  # fmt: skip
    result = run_python(
        *command,
        timeout=600,
        KERAS_BACKEND="jax",
        TMPDIR=str(tmp_path / "tmp"),
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    return result.stdout


LM_TINY = [
    "--corpora", "", "--units", "16", "--char-units", "16",
    "--char-embedding-dim", "8", "--learning-rate", "0.01",
    "--num-sampled", "0", "--dropout", "0", "--no-tensorboard",
    "--eval-examples", "0", "--shards", "1", "--backend", "jax",
]  # fmt: skip


@pytest.mark.xdist_group("distribute")  # one at a time: they start processes
@pytest.mark.tf_only  # the workers are JAX processes of their own
@pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="needs jax installed"
)
@pytest.mark.slow  # 47 s: the two-worker recipe runs on TensorFlow in make test
def test_the_language_model_trains_on_two_jax_workers(tmp_path):
    """`--distribute multi-worker` on JAX (jax.distributed, the chief the
    coordinator): two workers of batch 8 train as one process of batch
    16 does (2 epochs of 3 steps: the same test scores to float
    precision), both log the same numbers, only the chief writes."""
    (tmp_path / "tmp").mkdir()
    out = tmp_path / "out"
    output = launch_language_model(
        tmp_path, out, "--epochs", "2", "--train-examples", "48",
        "--batch-size", "8",
    )  # fmt: skip
    assert "[launcher] all 2 worker(s) finished" in output
    assert f"[worker 1] worker 1 finished; the chief wrote {out}" in output
    logs = [
        [line.split("] ", 1)[1] for line in output.splitlines()
         if line.startswith(f"[worker {i}] 3/3 - ")]
        for i in (0, 1)
    ]  # fmt: skip
    assert logs[0] and [x.split(" - ", 3)[-1] for x in logs[0]] == [
        x.split(" - ", 3)[-1] for x in logs[1]
    ]
    assert sorted(p.name for p in out.iterdir()) == [
        "config.json", "learning_curves.png", "log.csv", "metrics.json",
        "model.keras",
    ]  # fmt: skip
    assert list((tmp_path / "tmp").iterdir()) == []
    two = json.loads((out / "metrics.json").read_text())
    assert two["distribute"]["workers"] == 2
    assert two["distribute"]["backend"] == "jax"
    assert two["distribute"]["global_batch_size"] == 16
    result = run_python(
        "-m", "recipes.language_model", *LM_TINY,
        "--text-file", str(tmp_path / "text.txt"), "--output",
        str(tmp_path / "one"), "--epochs", "2", "--train-examples",
        "48", "--batch-size", "16",
        timeout=600,
        KERAS_BACKEND="jax",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    one = json.loads((tmp_path / "one" / "metrics.json").read_text())
    for name in ("test_forward_nll", "test_backward_nll"):
        assert two[name] == pytest.approx(one[name], rel=1e-5)
