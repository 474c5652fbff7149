"""Data-parallel training for every recipe: the `--distribute` flag.

Every recipe takes the same two flags (they are run options, not model
settings, so they are not written to `config.json` and a `--config` file
cannot set them):

- `--distribute none` (default): one process, one device; the recipe runs
  exactly as it always has.
- `--distribute mirrored`: synchronous data parallelism over this
  machine's devices. TensorFlow: `tf.distribute.MirroredStrategy` over
  the local GPUs, or over the CPU devices when there is no GPU (one,
  unless logical CPU devices were configured, as the tests do). JAX:
  `keras.distribution.DataParallel` over `keras.distribution.list_devices()`.
- `--distribute multi-worker`: `tf.distribute.MultiWorkerMirroredStrategy`
  given the cluster that `tf.distribute.cluster_resolver.
  TFConfigClusterResolver` reads from the standard `TF_CONFIG`
  environment variable, once `check_tf_config` has found it well formed
  (one process per machine; `python -m recipes.launch` runs N of them on
  this machine). TensorFlow backend only; on PyTorch only `none`.
- `--distribute-timeout SECONDS` (default 600): a multi-worker process
  whose cluster has not formed after this long (a peer never started, or
  listens elsewhere) prints which addresses did not answer and is killed
  (exit code 137: TensorFlow waits there holding Python's lock, so a
  separate process watches); after that, each collective that waits this
  long fails (and TensorFlow's heartbeats report a dead peer sooner).

What changes under `mirrored` and `multi-worker`:

- `--batch-size` is per replica: the global batch is `--batch-size` x
  replicas (`metrics.json` records both under `distribute`). The loss is
  the mean over the global batch's tokens (examples), exactly as one
  device computes it on that batch, so gradients have the same scale; the
  learning rate is not changed (there are `replicas` times fewer steps per
  epoch; raise `--learning-rate` yourself if you want the linear scaling
  rule).
- The model reads token ids (text is turned into ids in the input
  pipeline), so the replicas train the whole model; `Trainer` below only
  fixes the loss scale across replicas and an upstream logging bug.
- Each worker builds the same seeded pipeline and keeps its share of every
  global batch: `tf.data` auto-sharding with the policy set explicitly to
  `DATA` (the data come from memory, not from files, so `FILE` does not
  apply).
- Only the chief (task `chief`, or `worker` 0 when the cluster has no
  chief) writes to `--output`. Other workers run the same code (every
  worker must take part in every collective) but write to a temporary
  directory that is deleted at the end: TensorFlow's documented pattern.
- Backups (`recipes.checkpoints.RunBackup`): the chief backs up to
  `OUTPUT/backup`; every worker restores from there when a run restarts
  (so `--output` must be on a file system all workers see), and
  non-chief workers back up to their temporary directory.
"""

import atexit
import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import pathlib
import shutil
import tempfile

import keras
import numpy as np

from recipes import common
from recipes import pipeline
from recipes import processes as _processes

MODES = ("none", "mirrored", "multi-worker")
ENV_TF_CONFIG = "TF_CONFIG"
DEFAULT_TIMEOUT = 600.0
JOBS = ("chief", "worker")

HELP = {
    "distribute": "none (one device), mirrored (every device of this "
    "machine: tf.distribute.MirroredStrategy, or "
    "keras.distribution.DataParallel on JAX) or multi-worker "
    "(tf.distribute.MultiWorkerMirroredStrategy from the TF_CONFIG "
    "environment variable; TensorFlow only). --batch-size is per replica",
    "distribute_timeout": "multi-worker: seconds a worker waits for the "
    "others to join, and at each collective, before it stops",
}


@dataclasses.dataclass
class Options:
    """The run options `--distribute` and `--distribute-timeout`."""

    mode: str = "none"
    timeout: float = DEFAULT_TIMEOUT


def add_arguments(parser):
    group = parser.add_argument_group("distribution (not saved in config)")
    group.add_argument(
        "--distribute",
        default="none",
        metavar="{none,mirrored,multi-worker}",
        help=f"{HELP['distribute']} (default: none)",
    )
    group.add_argument(
        "--distribute-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"{HELP['distribute_timeout']} (default: {DEFAULT_TIMEOUT:g})",
    )


def options_from(args):
    return Options(mode=args.distribute, timeout=args.distribute_timeout)


# --- TF_CONFIG -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Cluster:
    """The cluster and task of `TF_CONFIG` as TensorFlow reads them (its
    `TFConfigClusterResolver`, which the strategy is given too): every
    address in replica order (the chief first) and this process's place
    in it."""

    jobs: dict
    task_type: str
    task_index: int
    resolver: object = dataclasses.field(default=None, compare=False)

    @classmethod
    def from_resolver(cls, resolver):
        return cls(
            jobs=resolver.cluster_spec().as_dict(),
            task_type=resolver.task_type,
            task_index=resolver.task_id,
            resolver=resolver,
        )

    @property
    def addresses(self):
        return [a for job in JOBS for a in self.jobs.get(job, [])]

    @property
    def worker_index(self):
        """This process's position in `addresses` (0 is the chief)."""
        if self.task_type == "chief":
            return 0
        return len(self.jobs.get("chief", [])) + self.task_index

    @property
    def is_chief(self):
        return self.worker_index == 0

    @property
    def address(self):
        return self.jobs[self.task_type][self.task_index]


def read_tf_config():
    """The `Cluster` of the `TF_CONFIG` environment variable, read by
    `tf.distribute.cluster_resolver.TFConfigClusterResolver` once
    `check_tf_config` has found it well formed (the resolver itself
    checks nothing: it raises a bare `KeyError` or `JSONDecodeError`, or
    accepts what the strategy then fails on, such as a `ps` job or an
    index out of range)."""
    check_tf_config(os.environ.get(ENV_TF_CONFIG))
    import tensorflow as tf

    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    return Cluster.from_resolver(resolver)


def _short(value, limit=120):
    text = value if isinstance(value, str) else json.dumps(value)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def check_tf_config(text):
    """`RecipeError` naming the field, what it holds and what is allowed
    when `text` (the value of `TF_CONFIG`) is not a cluster of `chief`
    and `worker` jobs with distinct `host:port` addresses and a task of
    one of them."""
    if text is None or not text.strip():
        raise common.RecipeError(
            "--distribute multi-worker needs the TF_CONFIG environment "
            'variable, e.g. {"cluster": {"worker": ["host1:12345", '
            '"host2:12345"]}, "task": {"type": "worker", "index": 0}}; '
            "it is not set (python -m recipes.launch sets it for local "
            "processes)"
        )
    try:
        values = json.loads(text)
    except json.JSONDecodeError as error:
        raise common.RecipeError(
            f"TF_CONFIG is not valid JSON ({error}); received {_short(text)}"
        ) from None
    if not isinstance(values, dict):
        raise common.RecipeError(
            "TF_CONFIG must be a JSON object with 'cluster' and 'task'; "
            f"received {_short(text)}"
        )
    cluster = values.get("cluster")
    if not isinstance(cluster, dict) or not cluster:
        raise common.RecipeError(
            "TF_CONFIG 'cluster' must map 'chief' and/or 'worker' to lists "
            f"of 'host:port' addresses; received {_short(cluster)}"
        )
    seen = {}
    for job, addresses in cluster.items():
        if job not in JOBS:
            raise common.RecipeError(
                f"TF_CONFIG cluster job {job!r} is not supported by "
                f"--distribute multi-worker; allowed jobs: {', '.join(JOBS)}"
            )
        if (
            not isinstance(addresses, list)
            or not addresses
            or (job == "chief" and len(addresses) != 1)
        ):
            allowed = "one address" if job == "chief" else "a list of addresses"
            raise common.RecipeError(
                f"TF_CONFIG cluster.{job} must be {allowed} ('host:port'); "
                f"received {_short(addresses)}"
            )
        for index, address in enumerate(addresses):
            where = f"cluster.{job}[{index}]"
            _check_address(where, address)
            if address in seen:
                raise common.RecipeError(
                    f"TF_CONFIG {where} repeats the address {address!r} of "
                    f"{seen[address]}; every task needs its own host:port"
                )
            seen[address] = where
    task = values.get("task")
    if not isinstance(task, dict) or "type" not in task or "index" not in task:
        raise common.RecipeError(
            'TF_CONFIG \'task\' must be {"type": "worker", "index": N} '
            f"(type chief or worker); received {_short(task)}"
        )
    task_type, index = task["type"], task["index"]
    if task_type not in cluster:
        raise common.RecipeError(
            f"TF_CONFIG task.type {task_type!r} is not a job of the cluster; "
            f"allowed: {', '.join(j for j in JOBS if j in cluster)}"
        )
    if not isinstance(index, int) or isinstance(index, bool):
        raise common.RecipeError(
            f"TF_CONFIG task.index must be an integer; received {index!r}"
        )
    count = len(cluster[task_type])
    if not 0 <= index < count:
        raise common.RecipeError(
            f"TF_CONFIG task.index {index} is out of range: job "
            f"{task_type!r} has {count} address(es), so allowed: "
            f"0..{count - 1}"
        )


def _check_address(where, address):
    host, _, port = str(address).rpartition(":")
    if (
        not isinstance(address, str)
        or not host
        or not port.isdigit()
        or not 1 <= int(port) <= 65535
    ):
        raise common.RecipeError(
            f"TF_CONFIG {where} must be 'host:port' with a port in "
            f"1..65535; received {address!r}"
        )


def check_own_port(cluster):
    """This task's port must be free here: TensorFlow's server binds it
    (and fails less clearly, or later, when it cannot)."""
    port = int(cluster.address.rpartition(":")[2])
    if _processes.port_in_use(port):
        raise common.RecipeError(
            f"TF_CONFIG cluster.{cluster.task_type}[{cluster.task_index}] = "
            f"{cluster.address}: port {port} is already in use on this "
            "machine; stop what holds it or give this task another port"
        )


# --- the set-up a recipe runs under ------------------------------------------


class Setup:
    """How one recipe process trains: its strategy (TensorFlow) or
    distribution (JAX), its replicas and whether it is the chief.

    With `mode="none"` every method is the identity, so a recipe's
    default path is what it was before this module existed.
    """

    def __init__(
        self,
        mode="none",
        backend="tensorflow",
        *,
        strategy=None,
        distribution=None,
        replicas=1,
        cluster=None,
    ):
        self.mode = mode
        self.backend = backend
        self.strategy = strategy
        self.distribution = distribution
        self.replicas = replicas
        self.cluster = cluster
        self._temp = None

    @property
    def active(self):
        return self.mode != "none"

    @property
    def workers(self):
        return len(self.cluster.addresses) if self.cluster else 1

    @property
    def worker_index(self):
        return self.cluster.worker_index if self.cluster else 0

    @property
    def is_chief(self):
        return self.cluster is None or self.cluster.is_chief

    def scope(self):
        """Where the model's variables are created."""
        if self.strategy is not None:
            return self.strategy.scope()
        if self.distribution is not None:
            return self.distribution.scope()
        return contextlib.nullcontext()

    def fit_scope(self):
        """Where the trainer's `fit` and `evaluate` run. On TensorFlow the
        trainer carries its strategy, so none is needed (and callbacks,
        which run inside, predict on this process alone); on JAX the
        distribution shards each batch over the devices."""
        if self.distribution is not None:
            return self.distribution.scope()
        return contextlib.nullcontext()

    def global_batch(self, batch_size):
        return batch_size * self.replicas

    def prepare_output(self, config):
        """`common.prepare_output`: `--output` on the chief, a temporary
        directory on other workers, removed by `finish` or at exit (its
        name is fixed by `--output` and the worker, so a rerun also
        removes the one a killed worker left)."""
        if self.is_chief:
            return common.prepare_output(config)
        key = hashlib.sha1(
            str(pathlib.Path(config.output).resolve()).encode()
        ).hexdigest()[:12]
        self._temp = os.path.join(
            tempfile.gettempdir(),
            f"recipes-worker{self.worker_index}-{key}",
        )
        shutil.rmtree(self._temp, ignore_errors=True)
        atexit.register(shutil.rmtree, self._temp, ignore_errors=True)
        return common.prepare_output(
            dataclasses.replace(config, output=self._temp)
        )

    def finish(self):
        if self._temp:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None

    def backup(self, config, output):
        """`(directory, source)` for this job's `RunBackup`: where it
        backs up to and where it resumes from; `None` means the recipe's
        own (`OUTPUT/backup` for both, which is also the chief's). A
        non-chief worker resumes from the chief's backup (all workers
        must resume from the same epoch) and backs up to its own
        directory, which no one reads. Every backup is complete before
        it is named (`recipes.checkpoints`), so a worker killed while
        writing one leaves the previous one."""
        chief = pathlib.Path(config.output) / "backup"
        own = pathlib.Path(output) / "backup"
        if not self.active or own == chief:
            return None
        return own, chief

    def dataset(self, batches):
        """A recipe's batches (`pipeline.Batches` of `(x, y, weights)`),
        ready for `fit` and the replicas.

        On TensorFlow, a `tf.data` pipeline over them whose every
        dimension is dynamic: Keras's own `PyDataset` adapter fixes each
        dimension that its first two batches share (`NUM_BATCHES_FOR_
        TENSOR_SPEC = 2` in Keras 3.15), so length-bucketed batches of
        other widths fail (`tests/recipes/test_pipeline.py` shows it, and
        fails once Keras no longer does so).
        Auto-sharding is set explicitly to `DATA` (each worker builds the
        same seeded batches and keeps its share of every global batch;
        the data come from memory, not files, so `FILE` does not apply).
        Elsewhere the batches as they are (JAX: padded by the task to
        `pipeline.rows_multiple` rows, a multiple of the devices: JAX
        splits a batch evenly or not at all).
        """
        if self.backend != "tensorflow":
            return batches
        import tensorflow as tf

        def spec(array, fixed=False):
            # Padded ids and weights: every dimension dynamic; float
            # targets (one-hot classes): only the batch dimension.
            array = np.asarray(array)
            fixed = fixed and array.dtype.kind == "f"
            shape = (None, *array.shape[1:]) if fixed else (None,) * array.ndim
            return tf.TensorSpec(shape, tf.as_dtype(array.dtype))

        x, y, weights = batches[0]
        signature = (
            tf.nest.map_structure(spec, x),
            tf.nest.map_structure(lambda a: spec(a, fixed=True), y),
            spec(weights),
        )

        def generate():
            yield from batches
            batches.on_epoch_end()  # the next epoch's shuffle

        ds = tf.data.Dataset.from_generator(
            generate, output_signature=signature
        )
        ds = ds.apply(tf.data.experimental.assert_cardinality(len(batches)))
        if self.active:
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = (
                tf.data.experimental.AutoShardPolicy.DATA
            )
            ds = ds.with_options(options)
        return ds.prefetch(tf.data.AUTOTUNE)

    def trainer(self, model, task, sample):
        """The model that `fit` and `evaluate` run: `model` itself without
        distribution; otherwise a `Trainer` around `model`, compiled for
        replicas with `model`'s optimizer (so the saved `model.keras`
        holds the trained optimizer state) and `task`'s loss and metrics
        (made in the strategy's scope: metric variables made outside it
        would count on each worker alone). `sample`, a dataset from
        `self.dataset`, builds the trainer with its first batch.
        """
        if not self.active:
            return model
        optimizer = model.optimizer
        trainer = Trainer(
            model,
            strategy=self.strategy,
            rank_one_logs=self.cluster is not None,
            name="trainer",
        )
        with self.scope():
            metrics = task.metrics()
            if self.backend == "jax":
                # One program over the whole (padded) global batch: the
                # plain mean over weights is already the global one.
                trainer.compile(
                    optimizer=optimizer,
                    loss=task.loss(reduction="mean_with_sample_weight"),
                    weighted_metrics=metrics,
                )
            else:
                # Each replica sums its share of the weighted loss, which
                # `Trainer.compute_loss` divides by the global batch's
                # total weight; the gradients are summed across replicas.
                trainer.compile(
                    optimizer=optimizer,
                    loss=task.loss(reduction="sum"),
                    weighted_metrics=metrics,
                )
            x, y, weights = pipeline.first_batch(sample)
            y_pred = trainer(x)
            if self.backend == "tensorflow":
                # Create the optimizer's and metrics' variables here, in
                # the strategy's scope, not lazily inside a replica.
                optimizer.build(trainer.trainable_variables)
                trainer.compute_metrics(x, y, y_pred, weights)
                trainer.compute_loss(x, y, y_pred, weights)
                trainer.reset_metrics()
        return trainer

    def predictor(self, model):
        """A model for predictions in a callback: the same weights, but
        run on this process alone (no strategy: a prediction on one
        worker would otherwise wait for the others)."""
        if not self.active:
            return model
        return keras.Model(model.inputs, model.outputs, name=model.name)

    def describe(self, batch_size, steps_per_epoch=None):
        values = {
            "mode": self.mode,
            "backend": self.backend,
            "replicas": self.replicas,
            "workers": self.workers,
            "worker_index": self.worker_index,
            "chief": self.is_chief,
            "batch_size_per_replica": batch_size,
            "global_batch_size": self.global_batch(batch_size),
        }
        if steps_per_epoch is not None:
            values["steps_per_epoch"] = steps_per_epoch
        return values


class Trainer(keras.Model):
    """What the replicas train: calls `model` (sharing its layers).

    Created outside the strategy's scope (its variables are `model`'s,
    created inside), so Keras's `fit` does not first average a sample
    batch across replicas (`strategy.reduce` of the whole batch, to build
    the model symbolically), which fails for batches that split unevenly
    under `MirroredStrategy`, and for every batch under a
    `MultiWorkerMirroredStrategy` of two workers ("Attempt to convert a
    value (PerReplica ...) to a Tensor"; no upstream report was found);
    `distribute_strategy` names the strategy instead, so `fit` and
    `evaluate` need no scope.

    `rank_one_logs` works around an upstream bug: under
    `MultiWorkerMirroredStrategy` with more than one worker, Keras 3.15's
    `fit` averages each step's logs across workers with
    `strategy.reduce("MEAN", value, axis=0)`, which fails on the scalar
    logs ("Invalid reduction dimension 0 for input with 0 dimensions",
    https://github.com/tensorflow/tensorflow/issues/72388, closed as
    stale; it still happens with Keras 3.15). The logs are returned with
    shape (1,), which that average turns back into scalars.
    `test_upstream_multi_worker_bugs_are_still_there`
    (tests/recipes/test_distribute.py) shows both bugs; once it fails,
    upstream has fixed one, and its workaround can go.
    """

    def __init__(self, model, strategy=None, rank_one_logs=False, **kwargs):
        super().__init__(**kwargs)
        self.body = model
        self.strategy = strategy
        self.rank_one_logs = rank_one_logs

    @property
    def distribute_strategy(self):
        if self.strategy is not None:
            return self.strategy
        return super().distribute_strategy

    def call(self, inputs, training=None):
        return self.body(inputs, training=training)

    def compute_loss(
        self, x=None, y=None, y_pred=None, sample_weight=None, training=True
    ):
        """On TensorFlow, this replica's share of the global batch's loss.

        The compiled loss sums `loss x weight` over the replica's part of
        the batch; dividing by the whole batch's weight (one all-reduce)
        makes the replicas' shares, and their summed gradients, exactly
        one device's on that batch. A constant (no gradient) fixes what
        Keras logs: it averages `replicas x value` weighted by each
        replica's row count, which is the global loss only when every
        replica got as many rows; with the constant, `replicas x value x
        rows = share x rows of the whole batch` on each replica.
        """
        loss = super().compute_loss(
            x=x,
            y=y,
            y_pred=y_pred,
            sample_weight=sample_weight,
            training=training,
        )
        import tensorflow as tf

        context = tf.distribute.get_replica_context()
        if (
            self.strategy is None
            or context is None
            or loss is None
            or sample_weight is None
        ):
            return loss
        weights = tf.cast(sample_weight, loss.dtype)
        rows = tf.cast(tf.shape(weights)[0], loss.dtype)
        total_weight, total_rows = tf.unstack(
            tf.stop_gradient(
                context.all_reduce(
                    tf.distribute.ReduceOp.SUM,
                    tf.stack([tf.reduce_sum(weights), rows]),
                )
            )
        )
        share = tf.math.divide_no_nan(loss, total_weight)
        replicas = context.num_replicas_in_sync
        logged = tf.math.divide_no_nan(share * total_rows, replicas * rows)
        return share + tf.stop_gradient(logged - share)

    def train_step(self, *args, **kwargs):
        return self._logs(super().train_step(*args, **kwargs))

    def test_step(self, *args, **kwargs):
        return self._logs(super().test_step(*args, **kwargs))

    def _logs(self, logs):
        if not self.rank_one_logs:
            return logs
        return {k: keras.ops.reshape(v, (1,)) for k, v in logs.items()}


def setup(options="none"):
    """The `Setup` for `--distribute` (an `Options` or a mode name); call
    it first in a run, before TensorFlow runs anything: a multi-worker
    strategy must be created at program start."""
    if isinstance(options, str):
        options = Options(mode=options)
    mode = options.mode
    if mode not in MODES:
        raise common.RecipeError(
            f"--distribute must be one of {', '.join(MODES)}; received {mode!r}"
        )
    if not options.timeout > 0:
        raise common.RecipeError(
            f"--distribute-timeout must be > 0; received {options.timeout}"
        )
    backend = keras.backend.backend()
    if mode == "none":
        return Setup("none", backend)
    if backend == "jax":
        if mode == "multi-worker":
            raise common.RecipeError(
                "--distribute multi-worker runs on the TensorFlow backend "
                "only (tf.distribute.MultiWorkerMirroredStrategy); on JAX "
                "it would need jax.distributed, which is not wired up here "
                "because it could not be tested on one machine; received "
                "KERAS_BACKEND=jax (allowed on JAX: none, mirrored)"
            )
        devices = keras.distribution.list_devices()
        distribution = keras.distribution.DataParallel(devices=devices)
        return Setup(
            mode, backend, distribution=distribution, replicas=len(devices)
        )
    if backend != "tensorflow":
        raise common.RecipeError(
            f"--distribute {mode} is not offered on the {backend} backend "
            f"(allowed on {backend}: none); use the TensorFlow backend "
            "(mirrored, multi-worker) or JAX (mirrored), e.g. "
            "KERAS_BACKEND=tensorflow"
        )
    import tensorflow as tf

    if mode == "mirrored":
        strategy = _mirrored_strategy()
        return Setup(
            mode,
            backend,
            strategy=strategy,
            replicas=strategy.num_replicas_in_sync,
        )
    cluster = read_tf_config()
    check_own_port(cluster)
    _processes.parent_watchdog()
    # The strategy's constructor waits until every task of the cluster has
    # registered (TensorFlow's own limit is an hour), holding Python's lock;
    # after that, each collective is bounded by the communication timeout,
    # and a dead peer is detected by TensorFlow's heartbeats.
    waiting = _processes.Deadline(
        options.timeout,
        "error: the multi-worker cluster did not form within "
        f"--distribute-timeout {options.timeout:g} s (no answer from: "
        "{silent}); start every worker with its own TF_CONFIG, or raise "
        "--distribute-timeout",
        [a for a in cluster.addresses if a != cluster.address],
    )
    try:
        strategy = tf.distribute.MultiWorkerMirroredStrategy(
            cluster_resolver=cluster.resolver,
            communication_options=(
                tf.distribute.experimental.CommunicationOptions(
                    timeout_seconds=options.timeout
                )
            ),
        )
    finally:
        waiting.cancel()
    return Setup(
        mode,
        backend,
        strategy=strategy,
        replicas=strategy.num_replicas_in_sync,
        cluster=cluster,
    )


@functools.cache
def _mirrored_strategy():
    """One `MirroredStrategy` per process: two over the same devices can
    collide in their collective ops (a second recipe run in one process,
    as the tests do, would otherwise fail with a shape mismatch)."""
    import tensorflow as tf

    devices = tf.config.list_logical_devices("GPU") or (
        tf.config.list_logical_devices("CPU")
    )
    return tf.distribute.MirroredStrategy([d.name for d in devices])
