"""`recipes.pipeline.Batches`, and the upstream behaviour it works around."""

import keras
import numpy as np
import pytest

from recipes import distributed
from recipes import pipeline


def _collate(batch):
    x = pipeline.pad([[1] * n for n in batch], multiple=1)
    return x, np.zeros(len(batch), "float32"), np.ones(len(batch), "float32")


def test_batches_are_exact_bucketed_and_reshuffled_per_epoch():
    lengths = [1, 2, 3, 9, 10, 11, 12, 30]
    batches = pipeline.Batches(
        lengths, lengths, 2, (4, 16), _collate, shuffle_seed=0
    )
    assert len(batches) == 5  # buckets of 3, 4 and 1 examples: 2 + 2 + 1
    first = [b[0].shape[1] for b in batches]
    for x, _, _ in batches:  # one bucket per batch
        assert len({(w > 4) + (w > 16) for w in x.sum(axis=1)}) == 1
    orders = {tuple(first)}
    for _ in range(5):
        batches.on_epoch_end()
        orders.add(tuple(b[0].shape[1] for b in batches))
    assert len(orders) > 1
    fixed = pipeline.Batches(lengths, lengths, 2, (4, 16), _collate)
    assert [b[0].shape[1] for b in fixed] == [2, 3, 10, 12, 30]


def test_pad_rows_adds_weight_zero_rows():
    x, y, w = pipeline.pad_rows(_collate([1, 2, 3]), 4)
    assert x.shape == (4, 3) and w.tolist() == [1, 1, 1, 0]


@pytest.mark.tf_only
def test_tf_data_batches_keep_every_width_but_one_hot_classes():
    """Per-token targets (a language model's mask) vary in width from
    batch to batch like the inputs; one-hot classes keep theirs."""

    def collate(batch):
        width = max(len(x) for x in batch)
        x = pipeline.pad(batch, width=width)
        mask = (x > 0).astype("float32")
        return x, mask, mask

    examples = [[1] * n for n in (3, 3, 9, 9, 20, 20)]
    batches = pipeline.Batches(
        examples, [len(x) for x in examples], 2, (4, 10), collate
    )
    widths = [
        tuple(y.shape) for _, y, _ in distributed.setup().dataset(batches)
    ]
    assert sorted(widths) == [(2, 3), (2, 9), (2, 20)]

    def classes(batch):
        x = pipeline.pad(batch, width=max(len(x) for x in batch))
        return x, np.eye(3, dtype="float32")[[0] * len(batch)], np.ones(2)

    one_hot = pipeline.Batches(
        examples, [len(x) for x in examples], 2, (4, 10), classes,
        fixed_target_width=True,
    )  # fmt: skip
    dataset = distributed.setup().dataset(one_hot)
    assert dataset.element_spec[1].shape.as_list() == [None, 3]


@pytest.mark.tf_only
def test_keras_pydataset_adapter_fixes_dimensions_its_first_two_batches_share():
    """Why `distributed.Setup.dataset` wraps the batches in `tf.data` on
    TensorFlow: Keras 3.15 infers the input signature from two batches
    (NUM_BATCHES_FOR_TENSOR_SPEC = 2) and keeps any dimension they share,
    so a later, wider batch fails. When this test fails, Keras no longer
    does so and the wrapper can go."""

    class Widths(keras.utils.PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            width = (4, 4, 9)[i]
            x = np.ones((2, width), "float32")
            return x, np.zeros((2, 1), "float32")

    inputs = keras.Input((None,))
    outputs = keras.layers.GlobalAveragePooling1D()(
        keras.layers.Reshape((-1, 1))(inputs)
    )
    model = keras.Model(inputs, outputs)
    model.compile("sgd", "mse")
    with pytest.raises(Exception, match="shape"):
        model.fit(Widths(), epochs=1, verbose=0)
    wrapped = distributed.setup("none").dataset(_AsBatches(Widths()))
    model.fit(wrapped, epochs=1, verbose=0)


class _AsBatches(list):
    """A PyDataset's batches with weights, as `Setup.dataset` takes them."""

    def __init__(self, dataset):
        super().__init__(
            (x, y, np.ones(len(x), "float32"))
            for x, y in (dataset[i] for i in range(len(dataset)))
        )

    def on_epoch_end(self):
        pass


def test_local_rows_are_one_workers_block_of_every_batch_in_order():
    """`LocalRows` (multi-process JAX): worker i's block of each padded
    batch, loaded by one thread (Keras's `PyDataset.workers`), so no
    batch of an old order is read ahead; the epoch hooks reach the
    batches."""
    examples = [[i] * (1 + i % 3) for i in range(12)]

    def collate(batch):
        words = pipeline.pad(batch)
        return words, (words > 0).astype("float32")

    batches = pipeline.Batches(
        examples, [len(e) for e in examples], 4, (2,), collate,
        shuffle_seed=0, pad_to=4,
    )  # fmt: skip
    parts = [pipeline.LocalRows(batches, i, 2) for i in (0, 1)]
    assert [p.workers for p in parts] == [1, 1]
    assert len(parts[0]) == len(batches)
    for index in range(len(batches)):
        whole = batches[index]
        joined = np.concatenate([p[index][0] for p in parts])
        assert np.array_equal(joined, whole[0])
    before = [batches[i][0].tolist() for i in range(len(batches))]
    parts[0].on_epoch_end()
    assert batches.epoch == 1
    after = [batches[i][0].tolist() for i in range(len(batches))]
    assert after != before  # reshuffled for the next epoch
    with pytest.raises(ValueError, match="does not split over 3 workers"):
        pipeline.LocalRows(batches, 0, 3)[0]
