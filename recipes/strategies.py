"""TensorFlow's strategies for `--distribute` (`recipes.distributed`).

- `read_tf_config`: the cluster of the `TF_CONFIG` environment variable,
  checked by `harness.tf_config.check` before TensorFlow's resolver
  reads it;
- `mirrored_strategy`: the one `tf.distribute.MirroredStrategy` of this
  process, over the local GPUs or else the CPU devices;
- `multi_worker_strategy`: a `tf.distribute.MultiWorkerMirroredStrategy`
  for that cluster, whose start-up is bounded by `--distribute-timeout`
  (`harness.guards.Deadline`) and that stops once its launcher is gone
  (`harness.guards.parent_watchdog`).

- `jax_multi_worker`: on JAX, this process joined to the same cluster
  through `jax.distributed.initialize` (the chief's address is the
  coordinator's; CPU collectives over gloo) and a
  `keras.distribution.DataParallel` over every device of every worker.

TensorFlow and JAX are imported inside these functions only, when a run
asks for one: other backends never import them.
"""

import functools
import os

import keras

from harness import guards
from harness import tf_config


def read_tf_config():
    """The `Cluster` of the `TF_CONFIG` environment variable, read by
    `tf.distribute.cluster_resolver.TFConfigClusterResolver` once
    `harness.tf_config.check` has found it well formed (the resolver itself
    checks nothing: it raises a bare `KeyError` or `JSONDecodeError`, or
    accepts what the strategy then fails on, such as a `ps` job or an
    index out of range)."""
    tf_config.check(os.environ.get(tf_config.ENV))
    import tensorflow as tf

    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    return tf_config.Cluster.from_resolver(resolver)


@functools.cache
def mirrored_strategy():
    """One `MirroredStrategy` per process: two over the same devices can
    collide in their collective ops (a second recipe run in one process,
    as the tests do, would otherwise fail with a shape mismatch)."""
    import tensorflow as tf

    devices = tf.config.list_logical_devices("GPU") or (
        tf.config.list_logical_devices("CPU")
    )
    return tf.distribute.MirroredStrategy([d.name for d in devices])


def _forming(cluster, timeout):
    """The `guards.Deadline` of a cluster's start-up: after `timeout`
    seconds the process is killed, naming the peers that did not answer.
    """
    return guards.Deadline(
        timeout,
        "error: the multi-worker cluster did not form within "
        f"--distribute-timeout {timeout:g} s (no answer from: "
        "{silent}); start every worker with its own TF_CONFIG, or raise "
        "--distribute-timeout",
        [a for a in cluster.addresses if a != cluster.address],
    )


def multi_worker_strategy(cluster, timeout):
    """The `MultiWorkerMirroredStrategy` of `cluster` (`read_tf_config`),
    once this worker's own port is found free; it waits `timeout` seconds
    at most for the cluster to form (then the process is killed, naming
    the peers that did not answer), and each collective as long."""
    import tensorflow as tf

    tf_config.check_own_port(cluster)
    guards.parent_watchdog()
    # The strategy's constructor waits until every task of the cluster has
    # registered (TensorFlow's own limit is an hour), holding Python's lock;
    # after that, each collective is bounded by the communication timeout,
    # and a dead peer is detected by TensorFlow's heartbeats.
    waiting = _forming(cluster, timeout)
    try:
        return tf.distribute.MultiWorkerMirroredStrategy(
            cluster_resolver=cluster.resolver,
            communication_options=(
                tf.distribute.experimental.CommunicationOptions(
                    timeout_seconds=timeout
                )
            ),
        )
    finally:
        waiting.cancel()


def jax_multi_worker(cluster, timeout):
    """This JAX process joined to `cluster` (`harness.tf_config.Cluster`):
    `jax.distributed.initialize` with the chief's address as the
    coordinator's and this worker's place as its process id (CPU
    collectives over gloo, the implementation JAX offers for CPUs), then
    a `keras.distribution.DataParallel` over every worker's devices whose
    batches each worker feeds its own rows of (`auto_shard_dataset` off:
    `recipes.pipeline.LocalRows` cuts them). Start-up is bounded by
    `timeout` as on TensorFlow (the process is killed, naming the peers
    that did not answer); it must come before JAX computes anything."""
    import jax

    tf_config.check_own_port(cluster)
    guards.parent_watchdog()
    if not jax.distributed.is_initialized():
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        waiting = _forming(cluster, timeout)
        try:
            jax.distributed.initialize(
                coordinator_address=cluster.addresses[0],
                num_processes=len(cluster.addresses),
                process_id=cluster.worker_index,
                initialization_timeout=max(int(timeout), 1),
            )
        finally:
            waiting.cancel()
    distribution = keras.distribution.DataParallel(
        devices=keras.distribution.list_devices()
    )
    distribution.auto_shard_dataset = False
    return distribution
