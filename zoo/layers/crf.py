"""A linear-chain conditional random field (CRF) for sequence tagging.

A CRF scores a whole tag sequence `y` of an input with emission scores `e`
(one row of `num_tags` scores per step) as

    score(y) = start[y_0] + sum_t e[t, y_t]
               + sum_{t>0} transitions[y_{t-1}, y_t] + end[y_last]

and models `p(y | x) = exp(score(y)) / Z`, where the partition function
`Z` sums `exp(score)` over every possible tag sequence (the forward
algorithm, in log space). The most likely sequence is found by Viterbi
decoding. Unlike a per-step softmax, the tags of neighbouring steps are
scored jointly, so the model can learn that, say, `I-PER` never follows
`B-LOC`.

Design (how it fits `compile`/`fit`, saving and inference):

* `CRF` does not project features: its input is the emission scores,
  `(batch, time, num_tags)`, from a `Dense(num_tags)` before it. It owns
  the `transitions`, `start_transitions` and `end_transitions` weights.
* `crf(emissions)` returns the emissions unchanged (as float32) and keeps
  their Keras mask, so a training model ends in the CRF and `y_pred` is the
  emission scores. `crf.loss` is a `CRFLoss` (a `keras.losses.Loss`) bound
  to the layer's weights: `model.compile(optimizer, loss=crf.loss)` and
  `model.fit(tokens, tags)` with integer tags `(batch, time)` train every
  weight, the CRF's included, on every backend.
* The mask reaches the loss the ordinary Keras way (the mask of `y_pred`).
  `CRFLoss` needs no private Keras API to read it: it returns one value per
  step whose sum over the first `L` steps is exactly the negative
  log-likelihood of the first `L` steps (the increments of the log
  partition function and of the gold score of each prefix), so Keras's
  masking of the trailing padded steps yields the exact loss of each
  right-padded sequence. (A mask with holes, or left padding, is not
  exact in the loss: the recursion still runs through the masked steps.
  `log_likelihood` is exact for any mask.) With Keras's default
  `sum_over_batch_size` reduction the reported loss is therefore the
  negative log-likelihood per real token; `reduction="sum"` gives the
  summed sequence losses.
* `crf(emissions, decode=True)`, the same layer called a second time, gives
  the Viterbi tags `(batch, time)` as int32 (0 at masked steps): build the
  inference model on the same graph, sharing every weight. The methods
  `log_likelihood`, `negative_log_likelihood` and `decode` take tensors
  directly and accept any mask (a masked step carries the state unchanged).
* Saving: both models save and reload with `safe_mode=True`. A Keras loss
  cannot hold a reference to a layer in a saved file, so a reloaded
  compiled model carries an unbound `CRFLoss`; it raises a clear error if
  used. Recompile after loading:
  `model.compile(optimizer=model.optimizer, loss=model.get_layer(name).loss)`.

Why not the alternatives: a layer that adds its own loss (`add_loss`) needs
the gold tags as a model input; a `train_step` override needs a custom
`Model` subclass; and packing the transitions into `y_pred` would make
`predict` return something other than scores.

All scores are computed in float32: the layer's dtype policy defaults to
`float32`, so under `mixed_float16` the emissions are cast up on the way in
and the weights, the log-likelihood and the loss stay float32. The
recursions run in `keras.ops.scan`, so the time dimension may be dynamic on
TensorFlow, JAX and PyTorch alike. On TensorFlow the layer opts out of XLA
(`supports_jit=False`): TensorFlow cannot differentiate that loop under
XLA, so `jit_compile="auto"` resolves to a plain graph there (JAX still
jit-compiles).

Example:
```python
tokens = keras.Input((None,), dtype="int32")
x = keras.layers.Embedding(1000, 32, mask_zero=True)(tokens)
x = keras.layers.Bidirectional(
    keras.layers.LSTM(32, return_sequences=True))(x)
emissions = keras.layers.Dense(num_tags)(x)
crf = CRF(num_tags)
model = keras.Model(tokens, crf(emissions))
model.compile("adam", loss=crf.loss)
model.fit(train_tokens, train_tags, epochs=3)
tagger = keras.Model(tokens, crf(emissions, decode=True))
predicted = tagger.predict(test_tokens)  # int32 tags, 0 where padded
```
"""

import keras
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE

__all__ = ["CRF", "CRFLoss"]


def _time_major(x):
    """`(batch, time, ...)` to `(time, batch, ...)`."""
    axes = [1, 0] + list(range(2, len(x.shape)))
    return ops.transpose(x, axes)


def _gather_rows(table, index):
    """`table[b, index[b]]` for a `(batch, n)` table and `(batch,)` index."""
    return ops.take_along_axis(table, ops.expand_dims(index, -1), axis=1)[:, 0]


def _scan(step, init, xs):
    """`ops.scan(step, init, xs)` over a tuple of time-major tensors,
    passed to the loop as one float32 tensor and split again inside.

    Keras 3.15's TensorFlow `scan` fails on several `xs` whose time
    dimension is unknown (`'NoneType' object has no attribute
    'assert_is_compatible_with'`, as in a `tf.data` pipeline with dynamic
    shapes); one tensor avoids that check. Ids and booleans are exact in
    float32 (tag ids are far below 2**24).
    """
    dtypes = [keras.backend.standardize_dtype(x.dtype) for x in xs]
    flat = [len(x.shape) == 2 for x in xs]
    widths = [1 if f else x.shape[-1] for f, x in zip(flat, xs)]
    packed = ops.concatenate(
        [
            ops.cast(x if len(x.shape) == 3 else x[..., None], "float32")
            for x in xs
        ],
        axis=-1,
    )

    def unpacked(carry, row):
        parts, offset = [], 0
        for dtype, width, squeeze in zip(dtypes, widths, flat):
            part = row[:, offset : offset + width]
            part = part[:, 0] if squeeze else part
            if dtype == "bool":
                part = part > 0.5
            elif dtype != "float32":
                part = ops.cast(ops.round(part), dtype)
            parts.append(part)
            offset += width
        return step(carry, tuple(parts))

    return ops.scan(unpacked, init, packed)


@keras.saving.register_keras_serializable(package=PACKAGE)
class CRF(keras.layers.Layer):
    """A linear-chain CRF over emission scores (see the module docstring).

    Args:
        num_tags: the number of tags, the width of the emission scores.
        transitions_initializer: initializer of `transitions`, the
            `(num_tags, num_tags)` scores of tag `i` followed by tag `j`.
        boundary_initializer: initializer of `start_transitions` and
            `end_transitions`, the `(num_tags,)` scores of a sequence
            starting and ending with each tag.
        **kwargs: base `Layer` arguments. `dtype` defaults to `"float32"`
            so that the scores stay float32 under mixed precision.

    Call arguments:
        emissions: `(batch, time, num_tags)` scores, e.g. `Dense(num_tags)`.
        mask: optional boolean `(batch, time)`; the previous layer's Keras
            mask is used by default.
        decode: False (default) returns the emissions as float32, for
            `crf.loss`; True returns the Viterbi tags, int32
            `(batch, time)`, 0 at masked steps.

    Example:
    ```python
    crf = CRF(5)
    model = keras.Model(tokens, crf(keras.layers.Dense(5)(features)))
    model.compile("adam", loss=crf.loss)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(
        self,
        num_tags,
        transitions_initializer="glorot_uniform",
        boundary_initializer="zeros",
        **kwargs,
    ):
        kwargs.setdefault("dtype", "float32")
        super().__init__(**kwargs)
        self.num_tags = v.check_positive_int("num_tags", num_tags)
        self.transitions_initializer = keras.initializers.get(
            transitions_initializer
        )
        self.boundary_initializer = keras.initializers.get(boundary_initializer)
        self.supports_masking = True
        # TensorFlow cannot take the gradient of `ops.scan` (a `while_loop`
        # without `maximum_iterations`) under XLA, so on TensorFlow the
        # layer opts out: `jit_compile="auto"` (XLA on a GPU) resolves to
        # False, and `jit_compile=True` warns and falls back to plain
        # graph execution. JAX and PyTorch compile it as usual.
        self.supports_jit = keras.backend.backend() != "tensorflow"

    def build(self, input_shape):
        shape = tuple(input_shape)
        if len(shape) != 3 or (
            shape[-1] is not None and shape[-1] != self.num_tags
        ):
            raise ValueError(
                "CRF expects emission scores of shape (batch, time, "
                f"num_tags) with num_tags={self.num_tags}; received an "
                f"input of shape {shape}. Put a "
                f"keras.layers.Dense({self.num_tags}) before the CRF."
            )
        tags = self.num_tags
        self.transitions = self.add_weight(
            shape=(tags, tags),
            initializer=self.transitions_initializer,
            dtype="float32",
            name="transitions",
        )
        self.start_transitions = self.add_weight(
            shape=(tags,),
            initializer=self.boundary_initializer,
            dtype="float32",
            name="start_transitions",
        )
        self.end_transitions = self.add_weight(
            shape=(tags,),
            initializer=self.boundary_initializer,
            dtype="float32",
            name="end_transitions",
        )

    # --- Keras plumbing ---------------------------------------------------

    def call(self, emissions, mask=None, decode=False):
        if decode:
            return self.decode(emissions, mask=mask)
        return ops.cast(emissions, "float32")

    def compute_output_shape(self, input_shape, decode=False):
        if decode:
            return tuple(input_shape)[:2]
        return tuple(input_shape)

    def compute_output_spec(self, emissions, mask=None, decode=False):
        shape = tuple(emissions.shape)
        if decode:
            return keras.KerasTensor(shape[:2], dtype="int32")
        return keras.KerasTensor(shape, dtype="float32")

    def compute_mask(self, inputs, mask=None):
        return mask

    @property
    def loss(self):
        """A new `CRFLoss` bound to this layer, for `model.compile(loss=)`."""
        return CRFLoss(self)

    def get_config(self):
        config = super().get_config()
        config["num_tags"] = self.num_tags
        config["transitions_initializer"] = keras.initializers.serialize(
            self.transitions_initializer
        )
        config["boundary_initializer"] = keras.initializers.serialize(
            self.boundary_initializer
        )
        return config

    # --- Inputs -----------------------------------------------------------

    def _prepare(self, emissions, mask):
        """Float32 emissions, time-major, and a boolean time-major mask."""
        if not self.built:
            self.build(tuple(emissions.shape))
        emissions = ops.cast(ops.convert_to_tensor(emissions), "float32")
        if len(emissions.shape) != 3:
            raise ValueError(
                "`emissions` must have shape (batch, time, num_tags); "
                f"received emissions of shape {tuple(emissions.shape)}."
            )
        if mask is None:
            mask = ops.ones(ops.shape(emissions)[:2], dtype="bool")
        else:
            mask = ops.cast(ops.convert_to_tensor(mask), "bool")
        return emissions, _time_major(emissions), _time_major(mask)

    def _weights(self):
        return (
            ops.cast(self.transitions, "float32"),
            ops.cast(self.start_transitions, "float32"),
            ops.cast(self.end_transitions, "float32"),
        )

    # --- Likelihood -------------------------------------------------------

    def _check_tags(self, tags, mask=None):
        """Range-checks concrete `tags` against `num_tags`: -1 would wrap
        to the last tag, and on JAX a tag >= num_tags gives NaN."""
        return v.check_ids(
            "tags",
            tags,
            self.num_tags,
            what=f"tags of CRF {self.name!r} (num_tags={self.num_tags})",
            mask=mask,
        )

    def log_likelihood(self, emissions, tags, mask=None):
        """Log-probability of `tags` under the CRF, `(batch,)` float32.

        The forward algorithm in log space. A masked step is skipped (the
        state carries over it), so the mask need not be right-padded. A
        sequence with no unmasked step has log-likelihood 0.

        Args:
            emissions: `(batch, time, num_tags)` scores.
            tags: integer `(batch, time)` gold tags in `[0, num_tags)`;
                masked steps ignored. A tag out of range at an unmasked
                step is an error naming it (a `ValueError` in eager calls;
                inside a step that JAX or TensorFlow traces, the backend's
                error around the same words), never a wrapped index.
            mask: optional boolean `(batch, time)`.
        """
        tags = self._check_tags(tags, mask)
        emissions, steps, mask = self._prepare(emissions, mask)
        tags = _time_major(ops.cast(ops.convert_to_tensor(tags), "int32"))
        # A masked step is ignored whatever it holds (-1 padding too): it
        # is never gathered.
        tags = ops.where(mask, tags, 0)
        transitions, start, end = self._weights()
        batch = ops.shape(emissions)[0]

        def step(carry, inputs):
            alpha, gold, previous, started = carry[:4]
            emission, tag, real = inputs
            tag_score = _gather_rows(emission, tag)
            # Entering step t from any tag i: alpha_i + transitions[i, j].
            chained = (
                ops.logsumexp(
                    ops.expand_dims(alpha, 2) + transitions[None], axis=1
                )
                + emission
            )
            first = start[None] + emission
            new_alpha = ops.where(started[:, None], chained, first)
            link = _gather_rows(ops.take(transitions, previous, axis=0), tag)
            new_gold = (
                gold
                + tag_score
                + ops.where(started, link, ops.take(start, tag))
            )
            alpha = ops.where(real[:, None], new_alpha, alpha)
            gold = ops.where(real, new_gold, gold)
            previous = ops.where(real, tag, previous)
            started = ops.logical_or(started, real)
            carry = (alpha, gold, previous, started)
            return carry, carry

        init = (
            ops.zeros((batch, self.num_tags), "float32"),
            ops.zeros((batch,), "float32"),
            ops.zeros((batch,), "int32"),
            ops.zeros((batch,), "bool"),
        )
        (alpha, gold, previous, started), _ = _scan(
            step, init, (steps, tags, mask)
        )
        log_partition = ops.logsumexp(alpha + end[None], axis=1)
        gold = gold + ops.take(end, previous)
        return ops.where(started, gold - log_partition, 0.0)

    def negative_log_likelihood(self, emissions, tags, mask=None):
        """`-log_likelihood(emissions, tags, mask)`, `(batch,)` float32."""
        return -self.log_likelihood(emissions, tags, mask=mask)

    def _step_losses(self, emissions, tags):
        """Per-step terms whose first `L` sum to the length-`L` NLL.

        Term t is `(log Z_t - log Z_{t-1}) - (S_t - S_{t-1})`, where `Z_t`
        and `S_t` are the partition function and the gold score of the
        first `t + 1` steps, end transitions included. Padded steps after
        the last real one do not change the earlier terms, so summing
        only the real steps (Keras's mask) gives the exact NLL of a
        right-padded sequence. Returns `(batch, time)` float32.
        """
        tags = self._check_tags(tags)
        emissions, steps, _ = self._prepare(emissions, None)
        tags = ops.cast(ops.convert_to_tensor(tags), "int32")
        transitions, start, end = self._weights()
        first = ops.broadcast_to(
            (ops.arange(ops.shape(steps)[0]) == 0)[:, None],
            ops.shape(steps)[:2],
        )

        def step(carry, inputs):
            alpha = carry[0]
            emission, is_first = inputs
            chained = ops.logsumexp(
                ops.expand_dims(alpha, 2) + transitions[None], axis=1
            )
            alpha = emission + ops.where(
                is_first[:, None], start[None], chained
            )
            carry = (alpha, ops.logsumexp(alpha + end[None], axis=1))
            return carry, carry

        batch = ops.shape(emissions)[0]
        init = (
            ops.zeros((batch, self.num_tags), "float32"),
            ops.zeros((batch,), "float32"),
        )
        _, (_, log_partition) = _scan(step, init, (steps, first))
        previous = ops.concatenate(
            [ops.zeros_like(log_partition[:1]), log_partition[:-1]], axis=0
        )
        partition_increments = _time_major(log_partition - previous)

        one_hot = ops.one_hot(tags, self.num_tags, dtype="float32")
        gold = ops.sum(emissions * one_hot, axis=-1)
        gold = gold + ops.take(end, tags)
        links = ops.sum(
            ops.matmul(one_hot[:, :-1], transitions) * one_hot[:, 1:], axis=-1
        ) - ops.take(end, tags[:, :-1])
        links = ops.concatenate([ops.take(start, tags[:, :1]), links], axis=1)
        return partition_increments - (gold + links)

    # --- Decoding ---------------------------------------------------------

    def decode(self, emissions, mask=None):
        """The Viterbi (most likely) tags, int32 `(batch, time)`.

        Masked steps are skipped (the best path carries over them) and
        get tag 0.

        Args:
            emissions: `(batch, time, num_tags)` scores.
            mask: optional boolean `(batch, time)`.
        """
        emissions, steps, mask = self._prepare(emissions, mask)
        transitions, start, end = self._weights()
        batch = ops.shape(emissions)[0]
        stay = ops.broadcast_to(
            ops.arange(self.num_tags, dtype="int32")[None],
            (batch, self.num_tags),
        )

        def forward(carry, inputs):
            score, started = carry[0], carry[2]
            emission, real = inputs
            candidates = ops.expand_dims(score, 2) + transitions[None]
            chained = ops.max(candidates, axis=1) + emission
            pointers = ops.cast(ops.argmax(candidates, axis=1), "int32")
            first = start[None] + emission
            chain = ops.logical_and(started, real)
            new_score = ops.where(started[:, None], chained, first)
            score = ops.where(real[:, None], new_score, score)
            pointers = ops.where(chain[:, None], pointers, stay)
            started = ops.logical_or(started, real)
            carry = (score, pointers, started)
            return carry, carry

        init = (
            ops.zeros((batch, self.num_tags), "float32"),
            stay,
            ops.zeros((batch,), "bool"),
        )
        (score, _, _), (_, pointers, _) = _scan(forward, init, (steps, mask))
        last = ops.cast(ops.argmax(score + end[None], axis=1), "int32")

        def backward(carry, step_pointers):
            tag = carry[0]
            carry = (_gather_rows(step_pointers, tag), tag)
            return carry, carry

        _, (_, tags) = ops.scan(backward, (last, last), pointers, reverse=True)
        return _time_major(ops.where(mask, tags, ops.zeros_like(tags)))


class _Bound:
    """Holds a loss's layer out of sight of Keras's saving walk.

    Keras loads a saved model by walking every attribute of every Keras
    object and marks an object visited only after its children, so a
    loss attribute pointing back at its layer would recurse forever.
    """

    __slots__ = ("layer",)

    def __init__(self, layer):
        self.layer = layer


@keras.saving.register_keras_serializable(package=PACKAGE)
class CRFLoss(keras.losses.Loss):
    """The negative log-likelihood of a `CRF`; use `crf.loss`.

    `y_true` is integer tags `(batch, time)` (or `(batch, time, 1)`),
    `y_pred` the CRF layer's output (the emissions). It returns one value
    per step whose masked sum is each sequence's negative log-likelihood
    (exact for right-padded masks, see the module docstring), so the
    default `sum_over_batch_size` reduction gives the NLL per real token
    and `reduction="sum"` the summed NLL of the batch.

    Args:
        crf: the `CRF` layer whose weights score the transitions; None
            only in a loss restored by `from_config` (see the module
            docstring), which raises if called.
        reduction, name, dtype: as for `keras.losses.Loss`.
        crf_name: the layer's name, kept in the config for the message
            of a restored (unbound) loss; taken from `crf` when given.
    """

    def __init__(
        self,
        crf=None,
        reduction="sum_over_batch_size",
        name="crf_loss",
        dtype=None,
        crf_name=None,
    ):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        if crf is not None and not isinstance(crf, CRF):
            v.fail("crf", crf, "a zoo CRF layer", wrong_type=True)
        self._bound = _Bound(crf)
        self.crf_name = crf.name if crf is not None else crf_name

    def call(self, y_true, y_pred):
        crf = self._bound.layer
        if crf is None:
            layer = repr(self.crf_name) if self.crf_name else "NAME"
            raise ValueError(
                "This CRFLoss is not bound to a CRF layer: Keras restores a "
                "saved loss without the layer it reads. Recompile the "
                "reloaded model with the layer's loss, e.g. "
                "`model.compile(optimizer=model.optimizer, "
                f"loss=model.get_layer({layer}).loss)`."
            )
        if len(y_true.shape) == 3:
            y_true = ops.squeeze(y_true, axis=-1)
        return crf._step_losses(y_pred, y_true)

    def get_config(self):
        config = super().get_config()
        config["crf_name"] = self.crf_name
        return config
