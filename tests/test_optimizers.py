"""`zoo.optimizers.DiscriminativeAdam`: Adam where every group is one,
a lower rate per group down the stack, groups frozen until their step."""

import keras
import numpy as np
import pytest

import zoo


def _model(seed=0):
    keras.utils.set_random_seed(seed)
    return keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(8, activation="tanh", name="bottom"),
            keras.layers.Dense(1, name="top"),
        ]
    )


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype("float32")
    return x, (x.sum(axis=1, keepdims=True) > 0).astype("float32")


def _fit(optimizer, steps):
    model = _model()
    model.compile(optimizer=optimizer, loss="mse")
    x, y = _data()
    before = [w.copy() for w in model.get_weights()]
    model.fit(x, y, batch_size=32, epochs=steps, verbose=0, shuffle=False)
    return before, model.get_weights()


def test_with_one_group_it_is_adam():
    _, ours = _fit(zoo.optimizers.DiscriminativeAdam(0.01), 5)
    _, adam = _fit(keras.optimizers.Adam(0.01), 5)
    for a, b in zip(ours, adam):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_lower_groups_learn_slower_and_wait_for_their_step():
    lr, decay = 0.01, 2.0

    def run(steps):
        optimizer = zoo.optimizers.DiscriminativeAdam(
            lr,
            groups=[["top"], ["bottom"]],
            decay=decay,
            unfreeze_steps=3,
            epsilon=1e-12,  # so that a tiny gradient moves by the rate too
        )
        return _fit(optimizer, steps)

    before, after3 = run(3)
    # Steps 0-2: the bottom layer (group 1) is frozen, the top learns.
    for b, a in zip(before[:2], after3[:2]):
        np.testing.assert_array_equal(a, b)
    assert not np.allclose(before[2], after3[2])
    # Step 3, its first: Adam's first step moves each weight by its rate
    # (the bias correction counted from the group's start), here lr/2.
    _, after4 = run(4)
    moved = np.abs(after4[0] - after3[0])
    np.testing.assert_allclose(moved, lr / decay, rtol=2e-3)


def test_it_saves_and_refuses_bad_arguments():
    optimizer = zoo.optimizers.DiscriminativeAdam(
        zoo.schedules.SlantedTriangular(0.01, total_steps=10),
        groups=[["head"], ["encoder/layer_2"]],
        unfreeze_steps=5,
    )
    again = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
    assert again.groups == [["head"], ["encoder/layer_2"]]
    assert again.unfreeze_steps == 5 and again.decay == 2.6
    for kwargs, message in (
        ({"groups": "head"}, "`groups` must be a list of groups"),
        ({"groups": [[]]}, "`groups` must be a list of groups"),
        ({"decay": 0.5}, "`decay` must be"),
        ({"unfreeze_steps": -1}, "`unfreeze_steps` must be"),
    ):
        with pytest.raises(ValueError, match=message):
            zoo.optimizers.DiscriminativeAdam(**kwargs)
