import keras
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE
from zoo.layers import shapes

MODES = ("mean", "max", "last", "concat", "attention")


@keras.saving.register_keras_serializable(package=PACKAGE)
class SequencePooling(keras.layers.Layer):
    """Mask-aware pooling of a sequence into one vector per example.

    Puts a classifier on top of a stack's output sequence: it reads a
    `(batch, timesteps, features)` tensor and the Keras mask and returns
    `(batch, features)`. Padded steps never contribute, so a padded batch
    gives, for every example, what that example gives alone without
    padding. Each mode:

    - `"mean"`: the mean over the real steps.
    - `"max"`: the feature-wise max over the real steps (padded steps
      never win, however negative the real values are).
    - `"concat"`: ULMFiT's concat pooling (Howard & Ruder 2018), the
      last real step, the max and the mean side by side: `(batch,
      3 * features)`.
    - `"last"`: the last real step, the one at the last `True` position of
      the mask: the step `length - 1` for right padding, and the final
      step for left padding (it is read from the mask, not assumed).
    - `"attention"`: additive self-attention pooling (Yang et al. 2016;
      Lin et al. 2017): `score_t = v^T tanh(W h_t + b)`, weights
      `a = softmax(score)` over the real steps only (exactly 0 on padding)
      and output `sum_t a_t h_t`.

    A row with no real step at all gives zeros in every mode (no NaN, in
    the forward pass or the gradients). The softmax and the max use no
    large constant: padded steps are filled with the row's own minimum,
    so they work in any float dtype, `mixed_float16` included.

    Bidirectional stacks: the backward half of a step's output has read
    the sequence from its end up to that step, so `"last"` takes the
    backward direction after it has seen *one* token, not the whole
    sequence. The exact "final states" summary of a bidirectional stack
    is `zoo.layers.StackedRNN(..., return_sequences=False)` (forward state
    at the last real step, backward state at the first). Over the output
    sequence of a bidirectional stack, prefer `"mean"` or `"attention"`
    (or `return_sequences=False` instead of this layer).

    Args:
        mode: `"mean"`, `"max"`, `"last"`, `"concat"` or `"attention"`.
        attention_units: hidden size of the attention scorer (`W` maps
            the features to this many units); used by `"attention"` only.
        return_attention_scores: with `mode="attention"`, also return the
            `(batch, timesteps)` attention weights.

    Call arguments:
        inputs: a `(batch, timesteps, features)` tensor.
        mask: optional `(batch, timesteps)` boolean mask; `None` means
            every step is real. Keras passes it automatically after a
            masking layer such as `Embedding(mask_zero=True)`.

    Returns:
        A `(batch, features)` tensor, or `(pooled, weights)` when
        `return_attention_scores=True`. The output carries no mask.

    Example:
    ```python
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(1000, 32, mask_zero=True)(ids)
    x = zoo.layers.StackedRNN(units=64, return_sequences=True)(x)
    x = zoo.layers.SequencePooling("attention")(x)
    classifier = keras.Model(ids, keras.layers.Dense(2)(x))
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(
        self,
        mode="mean",
        attention_units=128,
        return_attention_scores=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.mode = v.check_choice("mode", mode, MODES)
        self.attention_units = v.check_positive_int(
            "attention_units", attention_units
        )
        self.return_attention_scores = v.check_bool(
            "return_attention_scores", return_attention_scores
        )
        if self.return_attention_scores and self.mode != "attention":
            raise ValueError(
                "`return_attention_scores=True` needs mode='attention'; "
                f"received return_attention_scores=True with "
                f"mode={self.mode!r}."
            )
        self.supports_masking = True

    def build(self, input_shape):
        shapes.check_rank_3("SequencePooling", input_shape)
        if self.mode == "attention":
            features = input_shape[-1]
            if features is None:
                raise ValueError(
                    "SequencePooling(mode='attention') needs a known "
                    "feature size; received an input of shape "
                    f"{tuple(input_shape)}."
                )
            self.kernel = self.add_weight(
                shape=(features, self.attention_units),
                initializer="glorot_uniform",
                name="kernel",
            )
            self.bias = self.add_weight(
                shape=(self.attention_units,), initializer="zeros", name="bias"
            )
            self.context = self.add_weight(
                shape=(self.attention_units, 1),
                initializer="glorot_uniform",
                name="context",
            )

    def call(self, inputs, mask=None):
        if mask is None:
            mask = ops.ones_like(inputs[:, :, 0], dtype="bool")
        else:
            mask = ops.cast(mask, "bool")
        steps = ops.expand_dims(mask, -1)
        # Zero the padded steps first: whatever they hold (even inf or
        # NaN) then reaches neither the output nor the gradients.
        x = ops.where(steps, inputs, ops.zeros_like(inputs))
        if self.mode == "concat":
            return ops.concatenate(
                [
                    self._last(x, mask),
                    self._max(x, steps),
                    self._mean(x, steps),
                ],
                axis=-1,
            )
        if self.mode in ("mean", "max"):
            return getattr(self, f"_{self.mode}")(x, steps)
        if self.mode == "last":
            return self._last(x, mask)
        weights = self._attention_weights(x, mask)
        pooled = ops.sum(ops.expand_dims(weights, -1) * x, axis=1)
        if self.return_attention_scores:
            return pooled, weights
        return pooled

    @staticmethod
    def _mean(x, steps):
        count = ops.sum(ops.cast(steps, x.dtype), axis=1)
        return ops.sum(x, axis=1) / ops.maximum(count, 1)

    @staticmethod
    def _max(x, steps):
        # The filler is <= every real value (and 0 for an empty row).
        filler = ops.stop_gradient(ops.min(x, axis=1, keepdims=True))
        return ops.max(ops.where(steps, x, filler), axis=1)

    @staticmethod
    def _last(x, mask):
        positions = ops.cumsum(ops.ones_like(mask, dtype="int32"), axis=1)
        real = ops.where(mask, positions, ops.zeros_like(positions))
        last = ops.max(real, axis=1, keepdims=True)
        pick = ops.expand_dims(ops.equal(real, last), -1)
        # An empty row has last == 0, which only its padding matches, and
        # its padding was zeroed in `call`.
        return ops.sum(ops.where(pick, x, ops.zeros_like(x)), axis=1)

    def _attention_weights(self, x, mask):
        hidden = ops.tanh(ops.matmul(x, self.kernel) + self.bias)
        scores = ops.squeeze(ops.matmul(hidden, self.context), axis=-1)
        # A softmax over the real steps with no large constant (which
        # float16 may not hold): padded scores become the row's minimum,
        # so the shift is the max over real steps and no exponent is > 0.
        filler = ops.stop_gradient(ops.min(scores, axis=1, keepdims=True))
        scores = ops.where(mask, scores, filler)
        shift = ops.stop_gradient(ops.max(scores, axis=1, keepdims=True))
        exps = ops.exp(scores - shift)
        exps = ops.where(mask, exps, ops.zeros_like(exps))
        total = ops.sum(exps, axis=1, keepdims=True)
        total = ops.where(total > 0, total, ops.ones_like(total))
        return exps / total

    def compute_output_shape(self, input_shape):
        features = input_shape[-1]
        if self.mode == "concat" and features is not None:
            features = 3 * features
        pooled = (input_shape[0], features)
        if self.return_attention_scores:
            return pooled, (input_shape[0], input_shape[1])
        return pooled

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        config = super().get_config()
        config["mode"] = self.mode
        config["attention_units"] = self.attention_units
        config["return_attention_scores"] = self.return_attention_scores
        return config
