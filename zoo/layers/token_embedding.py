"""`TokenEmbedding`: a `keras.layers.Embedding` that refuses ids it has no
row for, where it can see them."""

import keras

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

    def call(self, inputs):
        inputs = v.check_ids(
            "inputs",
            inputs,
            self.input_dim,
            what=f"token ids of layer {self.name!r} (input_dim="
            f"{self.input_dim})",
        )
        return super().call(inputs)
