"""`TokenEmbedding`: a `keras.layers.Embedding` that refuses ids it has no
row for, where it can see them."""

import keras
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE


@keras.saving.register_keras_serializable(package=PACKAGE)
class TokenEmbedding(keras.layers.Embedding):
    """`keras.layers.Embedding` that names an out-of-range token id.

    An id outside `[0, input_dim)` has no row: JAX's gather returns NaN
    rows for it without a word, TensorFlow and PyTorch raise their own
    index errors. This layer raises a `ValueError` instead, naming the
    id, where it is and the allowed range, whenever its inputs hold
    values (`zoo.validation.check_ids`): every eager call on every
    backend (`model(ids)`, a PyTorch `fit`, `zoo.inference_function`'s
    check before it compiles). While a step is traced (`fit`, `predict`
    and `evaluate` on TensorFlow and JAX, a `tf.data` map) there are no
    values and nothing is checked, so the compiled step costs what
    `keras.layers.Embedding`'s does; docs/limits.md lists what stays
    unchecked there. Arguments and weights are `keras.layers.Embedding`'s,
    so a file saved with one loads into the other.

    With `vocabulary_size` larger than `input_dim`, ids in `[input_dim,
    vocabulary_size)` are words without a trained row (words that only
    pretrained vectors know, `zoo.stacked_rnn(embedding_rows=...)`):
    they read row 1, the zoo's `[UNK]`; ids from `vocabulary_size` on
    are refused.

    The zoo's builders (`zoo.stacked_rnn`, `zoo.create_model`) and
    `zoo.Seq2Seq` embed their token ids with it.

    Example:
    ```python
    embedding = zoo.layers.TokenEmbedding(10, 4, mask_zero=True)
    embedding(np.array([[1, 99]]))
    # ValueError: `inputs` must hold token ids of layer 'token_embedding'
    # (input_dim=10) in [0, 10); received 99 at index (0, 1).
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(self, input_dim, output_dim, vocabulary_size=None, **kwargs):
        super().__init__(input_dim, output_dim, **kwargs)
        if vocabulary_size is not None:
            v.check_positive_int("vocabulary_size", vocabulary_size)
            if vocabulary_size < input_dim or input_dim < 2:
                raise ValueError(
                    "`vocabulary_size` must be at least `input_dim` (>= 2, "
                    "row 1 being [UNK]); received vocabulary_size="
                    f"{vocabulary_size!r} with input_dim={input_dim!r}."
                )
        self.vocabulary_size = vocabulary_size

    @property
    def accepted_ids(self):
        """Ids in `[0, accepted_ids)` are looked up: `vocabulary_size`, or
        `input_dim` without it."""
        return self.vocabulary_size or self.input_dim

    def call(self, inputs):
        inputs = v.check_ids(
            "inputs",
            inputs,
            self.accepted_ids,
            what=f"token ids of layer {self.name!r} ("
            + (
                f"vocabulary_size={self.vocabulary_size}"
                if self.vocabulary_size
                else f"input_dim={self.input_dim}"
            )
            + ")",
        )
        if self.accepted_ids > self.input_dim:
            inputs = ops.where(
                ops.less(inputs, self.input_dim),
                inputs,
                ops.ones_like(inputs),
            )
        return super().call(inputs)

    def get_config(self):
        config = super().get_config()
        if self.vocabulary_size is not None:
            config["vocabulary_size"] = self.vocabulary_size
        return config
