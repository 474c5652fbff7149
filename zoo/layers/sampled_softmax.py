import math

import keras
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE

# Subtracted from the logit of a sampled id that is the target itself
# (an "accidental hit"), so it does not count as a negative.
_HIT = 1e9


@keras.saving.register_keras_serializable(package=PACKAGE)
class SampledSoftmax(keras.layers.Layer):
    """A softmax over a large output vocabulary that returns, per token,
    the negative log-likelihood of its target: sampled while training,
    exact otherwise.

    Keras 3 has no sampled or adaptive softmax, and a language model's
    full softmax over tens of thousands of words costs more than its
    LSTMs on a CPU, so this layer is written here (`keras.ops` only, every
    backend). While training, the target's logit competes with
    `num_sampled` ids drawn once per batch from the log-uniform (Zipf)
    distribution of Jean et al. (2015) as TensorFlow's
    `tf.nn.sampled_softmax_loss` draws them (ids must then be ordered by
    falling frequency, as `zoo.text.build_vocabulary` orders them), each
    logit corrected by `log(num_sampled * Q(id))`; a sampled id equal to
    the target is masked out. At inference, or when `num_sampled` is 0 or
    at least the vocabulary, the exact log-softmax over every id is used,
    so `evaluate` reports the true held-out loss.

    Args:
        vocabulary_size: the number of output ids (target ids are in
            `[0, vocabulary_size)`).
        num_sampled: negatives drawn per batch while training; 0: always
            the full softmax.
        seed: optional integer seed of the sampler.

    Call arguments:
        inputs: `[hidden, targets]`: `(batch, timesteps, width)` floats
            and `(batch, timesteps)` integer target ids; or `(batch,
            timesteps, k * width)` and `(batch, timesteps, k)`: k targets
            per step, each scored from its own `width` slice of `hidden`
            (a biLM's two directions in one call: one gather of the
            kernel's rows and one draw of negatives for both).
        training: whether to sample.

    Returns:
        float32 negative log-likelihoods (nats), the shape of `targets`.

    Example:
    ```python
    hidden = keras.Input((None, 32))
    targets = keras.Input((None,), dtype="int32")
    nll = zoo.layers.SampledSoftmax(20000, num_sampled=512)(
        [hidden, targets])
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): Keras only
    # (the NumPy runner refuses a model that holds it).
    serving_form = "keras"

    def __init__(self, vocabulary_size, num_sampled=512, seed=None, **kwargs):
        super().__init__(**kwargs)
        v.check_number("vocabulary_size", vocabulary_size, int, low=2)
        v.check_number("num_sampled", num_sampled, int, low=0)
        if seed is not None:
            v.check_number("seed", seed, int)
        self.vocabulary_size = vocabulary_size
        self.num_sampled = num_sampled
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed)

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) != 2:
            raise ValueError(
                "SampledSoftmax expects `[hidden, targets]`; received an "
                f"input of shape {input_shape}."
            )
        hidden_shape, target_shape = input_shape
        width = hidden_shape[-1]
        if width is None:
            raise ValueError(
                "SampledSoftmax needs the hidden width (the last dimension "
                f"of `hidden`) known; received shape {hidden_shape}."
            )
        if len(target_shape) == len(hidden_shape):  # k targets per step
            groups = target_shape[-1]
            if groups is None or groups < 1 or width % groups:
                raise ValueError(
                    "SampledSoftmax: `targets` of the same rank as `hidden` "
                    "hold k targets per step and need `hidden`'s last "
                    "dimension to be k times the width; received hidden "
                    f"{hidden_shape} and targets {target_shape}."
                )
            width //= groups
        self.kernel = self.add_weight(
            shape=(self.vocabulary_size, width),
            initializer="glorot_uniform",
            name="kernel",
        )
        self.bias = self.add_weight(
            shape=(self.vocabulary_size,), initializer="zeros", name="bias"
        )

    @property
    def samples(self):
        """Whether training samples (else it is the full softmax)."""
        return 0 < self.num_sampled < self.vocabulary_size

    def call(self, inputs, training=None):
        hidden, targets = inputs
        targets = v.check_ids(
            "targets",
            ops.cast(targets, "int32"),
            self.vocabulary_size,
            what=f"target ids (vocabulary_size={self.vocabulary_size})",
        )
        shape = ops.shape(targets)
        width = self.kernel.shape[-1]
        grouped = len(targets.shape) == len(hidden.shape)
        groups = targets.shape[-1] if grouped else 1
        # (rows, groups, width) and (rows, groups): each group's logits
        # apart (as large as one direction's), after one gather.
        flat = ops.cast(ops.reshape(hidden, (-1, groups, width)), "float32")
        flat_targets = ops.reshape(targets, (-1, groups))
        kernel = ops.cast(self.kernel, "float32")
        bias = ops.cast(self.bias, "float32")
        if training and self.samples:
            nll = self._sampled(flat, flat_targets, kernel, bias)
        else:
            nll = [
                self._exact(flat[:, g], flat_targets[:, g], kernel, bias)
                for g in range(groups)
            ]
        return ops.reshape(ops.stack(nll, axis=1), shape)

    @staticmethod
    def _exact(flat, flat_targets, kernel, bias):
        logits = ops.matmul(flat, ops.transpose(kernel)) + bias
        true = ops.take_along_axis(logits, flat_targets[:, None], axis=1)
        return ops.logsumexp(logits, axis=1) - true[:, 0]

    def _log_expected(self, ids):
        """`log(num_sampled * Q(id))` under the log-uniform sampler."""
        ids = ops.cast(ids, "float32")
        q = ops.log((ids + 2.0) / (ids + 1.0)) / math.log(
            self.vocabulary_size + 1.0
        )
        return ops.log(q * float(self.num_sampled))

    def _sampled(self, flat, flat_targets, kernel, bias):
        u = keras.random.uniform(
            (self.num_sampled,), seed=self.seed_generator, dtype="float32"
        )
        sampled = (
            ops.floor(ops.exp(u * math.log(self.vocabulary_size + 1.0))) - 1.0
        )
        sampled = ops.cast(
            ops.clip(sampled, 0.0, self.vocabulary_size - 1.0), "int32"
        )
        # One gather of every target's and the negatives' rows: on
        # PyTorch each gather's gradient is a dense (vocabulary, width)
        # array, so two gathers cost two of them and their sum (XLA
        # merges them on JAX either way). Then each group's logits apart:
        # one matrix of every group's rows at once was slower on a CPU
        # with 2,048 negatives (8% a step on PyTorch, one thread).
        groups = flat_targets.shape[-1]
        every = ops.reshape(flat_targets, (-1,))
        count = ops.shape(every)[0]
        ids = ops.concatenate([every, sampled], axis=0)
        rows = ops.take(kernel, ids, axis=0)
        biases = ops.take(bias, ids) - self._log_expected(ids)
        target_rows = ops.reshape(rows[:count], (-1, groups, rows.shape[-1]))
        target_biases = ops.reshape(biases[:count], (-1, groups))
        negatives = ops.transpose(rows[count:])
        negative_biases = biases[count:]
        nll = []
        for g in range(groups):
            hidden, targets = flat[:, g], flat_targets[:, g]
            true_logit = (
                ops.sum(hidden * target_rows[:, g], axis=1)
                + target_biases[:, g]
            )
            sampled_logits = ops.matmul(hidden, negatives) + negative_biases
            hits = ops.equal(targets[:, None], sampled[None, :])
            sampled_logits = sampled_logits - _HIT * ops.cast(hits, "float32")
            logits = ops.concatenate(
                [true_logit[:, None], sampled_logits], axis=1
            )
            nll.append(ops.logsumexp(logits, axis=1) - true_logit)
        return nll

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[1])

    def compute_output_spec(self, inputs, training=None):
        return keras.KerasTensor(inputs[1].shape, dtype="float32")

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "vocabulary_size": self.vocabulary_size,
                "num_sampled": self.num_sampled,
                "seed": self.seed,
            }
        )
        return config
