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
  environment variable, once `harness.tf_config.check` has found it well formed
  (one process per machine; `python -m recipes.launch` runs N of them on
  this machine). On JAX the same `TF_CONFIG` starts `jax.distributed`
  (the chief is the coordinator; `recipes.strategies.jax_multi_worker`)
  and a `keras.distribution.DataParallel` over every worker's devices;
  each worker feeds its own rows of every global batch. On PyTorch only
  `none`.
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

This module holds the two flags (`add_arguments`, `Options`) and what a
recipe runs under (`setup`, `Setup`); TensorFlow's strategies are made
in `recipes.strategies` (`read_tf_config`, also importable from here;
`mirrored_strategy`; `multi_worker_strategy`, with the start-up watch).
"""

import atexit
import contextlib
import dataclasses
import hashlib
import os
import pathlib
import shutil
import tempfile

import keras

import harness
import zoo
from harness import flags
from harness import rundir
from harness import tf_config
from recipes import pipeline
from recipes import strategies
from recipes import trainer as trainer_lib
from recipes.strategies import read_tf_config

MODES = ("none", "mirrored", "multi-worker")
DEFAULT_TIMEOUT = 600.0

HELP = {
    "distribute": "none (one device), mirrored (every device of this "
    "machine: tf.distribute.MirroredStrategy, or "
    "keras.distribution.DataParallel on JAX) or multi-worker "
    "(the cluster of the TF_CONFIG environment variable: "
    "tf.distribute.MultiWorkerMirroredStrategy, or jax.distributed and "
    "DataParallel on JAX). --batch-size is per replica",
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
        choices=MODES,
        help=flags.with_default(HELP["distribute"], "none"),
    )
    group.add_argument(
        "--distribute-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=flags.with_default(
            HELP["distribute_timeout"], f"{DEFAULT_TIMEOUT:g}"
        ),
    )


def options_from(args):
    return Options(mode=args.distribute, timeout=args.distribute_timeout)


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
        """`rundir.prepare_output`: `--output` on the chief, a temporary
        directory on other workers, removed by `finish` or at exit (its
        name is fixed by `--output` and the worker, so a rerun also
        removes the one a killed worker left)."""
        if self.is_chief:
            return rundir.prepare_output(config)
        key = hashlib.sha1(
            str(pathlib.Path(config.output).resolve()).encode()
        ).hexdigest()[:12]
        self._temp = os.path.join(
            tempfile.gettempdir(),
            f"recipes-worker{self.worker_index}-{key}",
        )
        shutil.rmtree(self._temp, ignore_errors=True)
        atexit.register(shutil.rmtree, self._temp, ignore_errors=True)
        return rundir.prepare_output(
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
        ready for `fit` and the replicas: on TensorFlow a `tf.data`
        pipeline (`pipeline.tf_dataset`), sharded by data when
        distributed; elsewhere the batches as they are (JAX: padded by
        the task to `pipeline.rows_multiple` rows, a multiple of the
        devices: JAX splits a batch evenly or not at all)."""
        if self.backend != "tensorflow":
            if self.cluster is not None:  # JAX: this worker's rows
                return pipeline.LocalRows(
                    batches, self.worker_index, self.workers
                )
            return batches
        return pipeline.tf_dataset(batches, shard=self.active)

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
        trainer = trainer_lib.Trainer(
            model,
            strategy=self.strategy,
            # TensorFlow's multi-worker log reduction (see Trainer).
            rank_one_logs=self.cluster is not None
            and self.backend == "tensorflow",
            name="trainer",
        )
        with self.scope():
            metrics = task.metrics()
            if self.backend == "jax":
                # One program over the whole (padded) global batch: the
                # plain mean over weights is already the global one.
                trainer.compile(
                    optimizer=optimizer,
                    loss=_replica_loss(
                        model, task, reduction="mean_with_sample_weight"
                    ),
                    weighted_metrics=metrics,
                )
            else:
                # Each replica sums its share of the weighted loss, which
                # `Trainer.compute_loss` divides by the global batch's
                # total weight; the gradients are summed across replicas.
                trainer.compile(
                    optimizer=optimizer,
                    loss=_replica_loss(model, task, reduction="sum"),
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
        worker would otherwise wait for the others). A task model is its
        own: its text methods run on its runner (`zoo.engine`'s NumPy
        pass by default), outside the strategy."""
        if not self.active or isinstance(model, zoo.tasks.Task):
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


def _replica_loss(model, task, reduction):
    """A copy of the loss `model` was compiled with, reduced by
    `reduction`: its settings kept (the classifier's `--label-smoothing`,
    a CRF tagger's likelihood bound to its own layer, which a loss made
    again from its config would not be); the task's own loss where
    `model` was not compiled with a `keras.losses.Loss`."""
    loss = getattr(model, "loss", None)
    if not isinstance(loss, keras.losses.Loss):
        return task.loss(reduction=reduction)
    # Attribute by attribute: `copy.copy` of a Keras object goes through
    # its saving (`__reduce__`), which unbinds a CRF's loss.
    replica = object.__new__(type(loss))
    replica.__dict__.update(vars(loss))
    replica.reduction = reduction
    return replica


def setup(options="none"):
    """The `Setup` for `--distribute` (an `Options` or a mode name); call
    it first in a run, before TensorFlow runs anything: a multi-worker
    strategy must be created at program start."""
    if isinstance(options, str):
        options = Options(mode=options)
    mode = options.mode
    flags.check_choice("distribute", mode, MODES)
    if not options.timeout > 0:
        raise harness.UsageError(
            f"--distribute-timeout must be > 0; received {options.timeout}"
        )
    backend = keras.backend.backend()
    if mode == "none":
        return Setup("none", backend)
    if backend == "jax":
        if mode == "multi-worker":
            cluster = tf_config.Cluster.parse(os.environ.get(tf_config.ENV))
            distribution = strategies.jax_multi_worker(cluster, options.timeout)
            return Setup(
                mode,
                backend,
                distribution=distribution,
                replicas=len(keras.distribution.list_devices()),
                cluster=cluster,
            )
        devices = keras.distribution.list_devices()
        distribution = keras.distribution.DataParallel(devices=devices)
        return Setup(
            mode, backend, distribution=distribution, replicas=len(devices)
        )
    if backend != "tensorflow":
        raise harness.UsageError(
            f"--distribute {mode} is not offered on the {backend} backend "
            f"(allowed on {backend}: none); use the TensorFlow backend "
            "(mirrored, multi-worker) or JAX (mirrored, multi-worker), e.g. "
            "KERAS_BACKEND=tensorflow"
        )
    if mode == "mirrored":
        strategy = strategies.mirrored_strategy()
        return Setup(
            mode,
            backend,
            strategy=strategy,
            replicas=strategy.num_replicas_in_sync,
        )
    cluster = read_tf_config()
    strategy = strategies.multi_worker_strategy(cluster, options.timeout)
    return Setup(
        mode,
        backend,
        strategy=strategy,
        replicas=strategy.num_replicas_in_sync,
        cluster=cluster,
    )
