"""`TfIdf`: a text's bag of words as TF-IDF inside the model, the wide
half of a wide-and-deep classifier (`zoo.heads.sequence_classifier(...,
wide=...)`)."""

import keras
import numpy as np
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE

# Id 0 is padding and id 1 `[UNK]` in a `zoo.layers.TokenVocabulary`:
# neither is a word of the bag.
_SKIPPED = 2
# Word pairs hash as `(a * _MULTIPLIER + b) % bigram_buckets`: a prime
# above any vocabulary this fits in int32 with (a, b < 100,000).
_MULTIPLIER = 100_003
# The most buckets of word pairs (a row of the bag is a dense vector).
MAX_BIGRAM_BUCKETS = 2**24


@keras.saving.register_keras_serializable(package=PACKAGE)
class TfIdf(keras.layers.Layer):
    """Token ids in, each text's TF-IDF vector out, on every backend.

    Reads `(batch, timesteps)` ids of a `zoo.layers.TokenVocabulary` (0
    padding and 1 `[UNK]`, both left out of the bag) and returns `(batch,
    vocabulary_size + bigram_buckets)` floats: for each word (and, with
    `bigram_buckets`, each pair of neighbouring words, hashed into that
    many buckets) its count in the text, sublinear (`1 + log(count)`),
    times its inverse document frequency, the row scaled to unit length.
    That is scikit-learn's `TfidfVectorizer(sublinear_tf=True)` with its
    default smooth idf, `log((1 + n) / (1 + df)) + 1`, learned by
    `adapt` from the training texts' ids and kept in the model as a
    non-trainable weight. Padding never counts, so a padded text gives
    what it gives alone.

    Hand-written because Keras's `TextVectorization(output_mode="tf_idf")`
    runs in TensorFlow only (a `tf.data` step, not a layer of a JAX or
    PyTorch model) and takes strings, not the ids the zoo's models read;
    this one is `keras.ops` (a segment sum over `row * width + id`).

    Args:
        vocabulary_size: the ids' range (the `TokenVocabulary`'s
            `vocabulary_size`).
        bigram_buckets: buckets of hashed word pairs (0: words only).
        sublinear: `1 + log(count)` instead of the count.

    Example:
    ```python
    bag = zoo.layers.TfIdf(vocabulary.vocabulary_size)
    bag.adapt(training_ids)           # a list of id lists, or an array
    features = bag(ids)               # (batch, vocabulary_size)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): Keras only
    # (the NumPy runner refuses a model that holds it).
    serving_form = "keras"

    def __init__(
        self, vocabulary_size, bigram_buckets=0, sublinear=True, **kwargs
    ):
        super().__init__(**kwargs)
        # Below the multiplier: word pairs hash in int32.
        v.check_number(
            "vocabulary_size", vocabulary_size, int, 1, _MULTIPLIER - 1
        )
        v.check_number(
            "bigram_buckets", bigram_buckets, int, 0, MAX_BIGRAM_BUCKETS
        )
        v.check_bool("sublinear", sublinear)
        self.vocabulary_size = int(vocabulary_size)
        self.bigram_buckets = int(bigram_buckets)
        self.sublinear = bool(sublinear)
        self.width = self.vocabulary_size + self.bigram_buckets
        self.idf = self.add_weight(
            shape=(self.width,),
            initializer="ones",
            trainable=False,
            name="idf",
        )
        self.built = True

    def _columns(self, ids):
        """The bag's column of each word (and word pair) of `ids`, -1
        where it is not one (padding, `[UNK]`)."""
        ids = ops.cast(ids, "int32")
        words = ops.where(ids >= _SKIPPED, ids, -1)
        if not self.bigram_buckets:
            return words
        first, second = ids[:, :-1], ids[:, 1:]
        pairs = ops.mod(first * _MULTIPLIER + second, self.bigram_buckets)
        real = (first >= _SKIPPED) & (second >= _SKIPPED)
        pairs = ops.where(real, pairs + self.vocabulary_size, -1)
        return ops.concatenate([words, pairs], axis=1)

    def _counts(self, ids):
        columns = self._columns(ids)
        batch = ops.shape(columns)[0]
        rows = ops.expand_dims(ops.arange(batch, dtype="int32"), 1)
        # Each real entry lands in its row's segment; the rest in one
        # extra segment past the end, dropped after the sum.
        total = batch * self.width
        flat = ops.where(columns >= 0, rows * self.width + columns, total)
        flat = ops.reshape(flat, (-1,))
        counts = ops.segment_sum(
            ops.ones(ops.shape(flat), dtype=self.compute_dtype),
            flat,
            num_segments=total + 1,
        )
        return ops.reshape(counts[:total], (batch, self.width))

    def call(self, inputs):
        counts = self._counts(inputs)
        if self.sublinear:
            tf = ops.where(counts > 0, 1 + ops.log(ops.maximum(counts, 1)), 0)
        else:
            tf = counts
        x = tf * ops.cast(self.idf, tf.dtype)
        norm = ops.sqrt(ops.sum(ops.square(x), axis=-1, keepdims=True))
        return x / ops.maximum(norm, 1e-12)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.width)

    def compute_mask(self, inputs, mask=None):
        return None

    def adapt(self, documents):
        """Sets the idf from training texts: `documents` is a list of id
        lists (or a 2-D array, padded with 0). Returns the layer.

        Raises:
            ValueError: no document, or an id outside `[0,
                vocabulary_size)`.
        """
        documents = [np.asarray(d, dtype="int64").ravel() for d in documents]
        if not documents:
            raise ValueError("`documents` must hold at least one text.")
        frequency = np.zeros(self.width, dtype="float64")
        for i, ids in enumerate(documents):
            bad = ids[(ids < 0) | (ids >= self.vocabulary_size)]
            if bad.size:
                raise ValueError(
                    f"ids must be in [0, {self.vocabulary_size}) "
                    f"(`vocabulary_size`); received {bad[0]} in text {i}."
                )
            columns = ops.convert_to_numpy(self._columns(ids[None, :]))[0]
            frequency[np.unique(columns[columns >= 0])] += 1
        idf = np.log((1 + len(documents)) / (1 + frequency)) + 1
        self.idf.assign(idf.astype(self.idf.dtype))
        return self

    def get_config(self):
        return {
            **super().get_config(),
            "vocabulary_size": self.vocabulary_size,
            "bigram_buckets": self.bigram_buckets,
            "sublinear": self.sublinear,
        }
