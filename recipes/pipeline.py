"""The recipes' input pipeline: length-bucketed NumPy batches.

A `keras.utils.PyDataset`, so that it feeds `fit` on every Keras backend
without TensorFlow (`tf.data` would tie the recipes to TensorFlow, and the
GPU machines carry only JAX or PyTorch). Tokenisation and vocabulary
lookup happen before it (`zoo.layers.TokenVocabulary.encode`); it only
groups examples of similar length, pads them and, for training, shuffles
with a seed per epoch. `len()` is the exact number of batches, so Keras
knows the epoch size.
"""

import bisect
import random

import keras
import numpy as np


def pad(sequences, dtype="int32", width=None, multiple=16):
    """A `(len(sequences), width)` array, 0-padded on the right; `width`
    defaults to the longest sequence rounded up to a `multiple`, so that
    few distinct shapes reach a compiled step (JAX compiles each anew)."""
    if width is None:
        longest = max((len(s) for s in sequences), default=1) or 1
        width = -(-longest // multiple) * multiple
    out = np.zeros((len(sequences), width), dtype)
    for i, s in enumerate(sequences):
        out[i, : len(s)] = s[:width]
    return out


class Batches(keras.utils.PyDataset):
    """Batches of examples of similar length.

    Args:
        examples: a list of per-example items (anything `collate` reads).
        lengths: the length of each example (what buckets group by).
        batch_size: examples per batch (the last of a bucket may have
            fewer).
        boundaries: bucket boundaries on `lengths` (sorted).
        collate: `list of examples -> batch` (e.g. `(x, y, weights)` of
            NumPy arrays).
        shuffle_seed: shuffle examples within buckets and the batches'
            order, anew each epoch (seed + epoch); `None`: a fixed order.
        pad_to: pad every batch's rows to a multiple of this with rows of
            weight 0 (JAX splits a batch over devices evenly or not at
            all); the last element of a batch must then be its weights.
        fixed_target_width: whether the targets' dimensions after the
            batch's are the same in every batch (one-hot classes: a
            metric such as `F1Score` needs their number); otherwise
            every dimension may differ from batch to batch (per-token
            targets, masks). `tf_dataset` declares its shapes so.
    """

    def __init__(
        self,
        examples,
        lengths,
        batch_size,
        boundaries,
        collate,
        shuffle_seed=None,
        pad_to=1,
        fixed_target_width=False,
    ):
        super().__init__()
        self.fixed_target_width = bool(fixed_target_width)
        if len(examples) != len(lengths):
            raise ValueError(
                f"`lengths` must have one entry per example: "
                f"{len(examples)} examples, {len(lengths)} lengths."
            )
        self.examples = examples
        self.batch_size = int(batch_size)
        self.collate = collate
        self.shuffle_seed = shuffle_seed
        self.pad_to = int(pad_to)
        self.epoch = 0
        buckets = {}
        for i, n in enumerate(lengths):
            buckets.setdefault(bisect.bisect_right(boundaries, n), []).append(i)
        self._buckets = [buckets[k] for k in sorted(buckets)]
        self._order = self._batches()

    def _batches(self):
        rng = (
            random.Random(self.shuffle_seed + self.epoch)
            if self.shuffle_seed is not None
            else None
        )
        batches = []
        for bucket in self._buckets:
            bucket = list(bucket)
            if rng:
                rng.shuffle(bucket)
            for start in range(0, len(bucket), self.batch_size):
                batches.append(bucket[start : start + self.batch_size])
        if rng:
            rng.shuffle(batches)
        return batches

    def __len__(self):
        return len(self._order)

    def __getitem__(self, index):
        if index >= len(self._order):
            raise IndexError(index)
        batch = self.collate([self.examples[i] for i in self._order[index]])
        return pad_rows(batch, self.pad_to)

    def on_epoch_end(self):
        self.epoch += 1
        self._order = self._batches()

    def start_at(self, epoch):
        """Orders the batches as for `epoch` (0-based): a run resumed at
        epoch N sees the batches an uninterrupted run would."""
        self.epoch = int(epoch)
        self._order = self._batches()


def split_batches(
    parts,
    length,
    collate,
    batch_size,
    boundaries,
    seed,
    pad_to=1,
    fixed_target_width=False,
):
    """One `Batches` per split in `parts` (train, dev, ...): the first is
    shuffled with `seed`, the others keep a fixed order; `length(example)`
    is what buckets group by (`fixed_target_width`: `Batches`')."""
    return tuple(
        Batches(
            part,
            [length(example) for example in part],
            batch_size,
            boundaries,
            collate,
            shuffle_seed=seed if i == 0 else None,
            pad_to=pad_to,
            fixed_target_width=fixed_target_width,
        )
        for i, part in enumerate(parts)
    )


def rows_multiple(batch_size, backend):
    """What a batch's rows are padded to a multiple of: the full batch
    size on JAX, which compiles a step for each batch shape (extra rows
    have weight 0, so only the widths vary; `pad` rounds them), else 1."""
    return batch_size if backend == "jax" else 1


def num_rows(x):
    """The rows of an array, or of the first array of nested tuples."""
    while isinstance(x, (tuple, list)):
        x = x[0]
    return len(x)


def pad_rows(batch, multiple):
    """`batch` (arrays, or nested tuples of them, the last one with a row
    per example) with rows of zeros (weight 0) up to a multiple of
    `multiple`."""
    rows = num_rows(batch[-1])
    extra = -rows % multiple
    if not extra:
        return batch

    def grow(a):
        if isinstance(a, (tuple, list)):
            return type(a)(grow(x) for x in a)
        return np.concatenate([a, np.zeros((extra, *a.shape[1:]), a.dtype)])

    return grow(batch)


class LocalRows(keras.utils.PyDataset):
    """One worker's rows of every batch of `batches` (a `Batches` whose
    rows are a multiple of `workers`: JAX pads them to the global batch),
    for multi-process JAX: each process feeds its own part of a global
    batch and Keras joins the parts into one array over every worker's
    devices (`keras.distribution` with `auto_shard_dataset` off). Worker
    `index` takes the `index`-th of `workers` equal blocks of rows; the
    epoch hooks go to `batches`, so each worker orders the same seeded
    batches as the others."""

    def __init__(self, batches, index, workers):
        # One thread loads the batches, in order (`PyDataset.workers` is
        # Keras's loader threads, not these workers: threads reading
        # ahead would serve a batch of the order before `on_epoch_end`).
        super().__init__(workers=1)
        self.batches = batches
        self.index = int(index)
        self.parts = int(workers)

    def __len__(self):
        return len(self.batches)

    def __getitem__(self, position):
        batch = self.batches[position]
        rows = num_rows(batch[-1])
        if rows % self.parts:
            raise ValueError(
                f"a batch of {rows} rows does not split over "
                f"{self.parts} workers; pad its rows to a multiple of "
                "the global batch (`rows_multiple`)"
            )
        size = rows // self.parts
        part = slice(self.index * size, (self.index + 1) * size)

        def cut(a):
            if isinstance(a, (tuple, list)):
                return type(a)(cut(x) for x in a)
            return a[part]

        return cut(batch)

    def on_epoch_end(self):
        self.batches.on_epoch_end()

    def __getattr__(self, name):  # epoch, start_at, ...: the batches'
        if name == "batches":
            raise AttributeError(name)
        return getattr(self.batches, name)


def first_batch(dataset):
    """The first batch of a `Batches` or a `tf.data.Dataset`."""
    if isinstance(dataset, keras.utils.PyDataset):
        return dataset[0]
    return next(iter(dataset.take(1)))


def tf_dataset(batches, shard=False):
    """`batches` (a `Batches` of `(x, y, weights)`) as a `tf.data`
    pipeline whose every dimension is dynamic, for `fit` on TensorFlow:
    Keras's own `PyDataset` adapter fixes each dimension that its first
    two batches share (`NUM_BATCHES_FOR_TENSOR_SPEC = 2` in Keras 3.15),
    so length-bucketed batches of other widths fail
    (`tests/recipes/test_pipeline.py` shows it, and fails once Keras no
    longer does so).

    With `shard`, auto-sharding is set explicitly to `DATA` (each worker
    builds the same seeded batches and keeps its share of every global
    batch; the data come from memory, not files, so `FILE` does not
    apply).
    """
    import tensorflow as tf  # the TensorFlow backend's own API

    def spec(array, fixed=False):
        # Padded ids, weights and per-token targets: every dimension
        # dynamic; one-hot classes (`fixed_target_width`): only the
        # batch dimension.
        array = np.asarray(array)
        shape = (None, *array.shape[1:]) if fixed else (None,) * array.ndim
        return tf.TensorSpec(shape, tf.as_dtype(array.dtype))

    x, y, weights = batches[0]
    fixed = getattr(batches, "fixed_target_width", False)
    signature = (
        tf.nest.map_structure(spec, x),
        tf.nest.map_structure(lambda a: spec(a, fixed=fixed), y),
        spec(weights),
    )

    def generate():
        yield from batches
        batches.on_epoch_end()  # the next epoch's shuffle

    ds = tf.data.Dataset.from_generator(generate, output_signature=signature)
    ds = ds.apply(tf.data.experimental.assert_cardinality(len(batches)))
    if shard:
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = (
            tf.data.experimental.AutoShardPolicy.DATA
        )
        ds = ds.with_options(options)
    return ds.prefetch(tf.data.AUTOTUNE)
