"""`Trainer`: the model the replicas of a distributed recipe train.

It calls the recipe's model (sharing its layers) and works around two
things that `tf.distribute` strategies do with a plain Keras model;
`recipes.distributed.Setup.trainer` makes one. TensorFlow only: this
module imports TensorFlow when its loss runs under a strategy.
"""

import keras


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
        if self.strategy is None or loss is None or sample_weight is None:
            return loss  # JAX: one program over the whole global batch
        import tensorflow as tf  # the TensorFlow backend's own API

        context = tf.distribute.get_replica_context()
        if context is None:
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
