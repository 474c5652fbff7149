"""`zoo.optimizers.Adam`: Keras's Adam, fused on PyTorch, checkpoints
shared with Keras's. `zoo.optimizers.DiscriminativeAdam`: Adam where
every group is one, a lower rate per group down the stack, groups frozen
until their step."""

import keras
import numpy as np
import pytest
from keras import ops

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


# On TensorFlow and JAX `make test` checks the update that is not fused
# through DiscriminativeAdam's test above (the same `_adam`); here the
# fused one, on PyTorch (`make test-all`: every backend).
@pytest.mark.torch_tier
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"amsgrad": True},
        {"weight_decay": 0.05, "clipnorm": 0.5},
        {"use_ema": True, "ema_momentum": 0.9, "beta_2": 0.99},
        {"epsilon": 1e-3},
        {"gradient_accumulation_steps": 2, "amsgrad": True},
    ],
    ids=["plain", "amsgrad", "decay-clip", "ema", "epsilon", "accumulation"],
)
def test_adam_is_keras_adam(kwargs):
    schedule = keras.optimizers.schedules.CosineDecay(0.05, decay_steps=8)
    _, ours = _fit(zoo.optimizers.Adam(schedule, **kwargs), 6)
    before, adam = _fit(keras.optimizers.Adam(schedule, **kwargs), 6)
    for a, b, start in zip(ours, adam, before):
        assert not np.allclose(b, start)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


class _TwoOfAName(keras.layers.Layer):
    """Two weights with one path (Keras allows it), a third that its
    gradient overwrites (as float8 scales are)."""

    def build(self, input_shape):
        self.a = self.add_weight((4, 1), name="w")
        self.b = self.add_weight((4, 1), name="w")
        self.scale = self.add_weight((1,), name="scale", initializer="ones")
        self.scale.overwrite_with_gradient = True

    def call(self, x):
        return (
            ops.matmul(x, self.a) - 2 * ops.matmul(x, self.b) + 0 * self.scale
        )


def test_adam_keeps_weights_of_one_path_apart_and_skips_overwritten_ones():
    x, y = _data()
    results = []
    for optimizer in (zoo.optimizers.Adam(0.05), keras.optimizers.Adam(0.05)):
        keras.utils.set_random_seed(0)
        model = keras.Sequential([keras.Input((4,)), _TwoOfAName()])
        model.compile(optimizer=optimizer, loss="mse")
        model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        results.append((model.get_weights(), len(optimizer.variables)))
    (ours, count), (adam, keras_count) = results
    assert count == keras_count
    for a, b in zip(ours, adam):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert not np.allclose(ours[0], ours[1])


def test_adam_is_fused_on_pytorch_only():
    assert zoo.optimizers.Adam().fused == (keras.backend.backend() == "torch")


def test_adam_resumes_from_a_keras_adam_checkpoint_and_back(tmp_path):
    """The variables are laid out as Keras's Adam lays out its own: a
    run saved with either goes on with the other, the same steps."""
    x, y = _data()

    def model_with(optimizer):
        model = _model()
        model.compile(optimizer=optimizer, loss="mse")
        return model

    for first, second in (
        (keras.optimizers.Adam, zoo.optimizers.Adam),
        (zoo.optimizers.Adam, keras.optimizers.Adam),
    ):
        trained = model_with(first(0.02, amsgrad=True))
        trained.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
        path = tmp_path / f"{first.__module__}.weights.h5"
        trained.save_weights(path)
        resumed = model_with(second(0.02, amsgrad=True))
        resumed.optimizer.build(resumed.trainable_variables)
        resumed.load_weights(path)
        assert int(resumed.optimizer.iterations) == 4
        for model in (trained, resumed):
            model.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
        for a, b in zip(resumed.get_weights(), trained.get_weights()):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_adam_saves_in_a_model_and_refuses_bad_arguments(tmp_path):
    model = _model()
    model.compile(
        optimizer=zoo.optimizers.Adam(3e-3, beta_2=0.99, amsgrad=True),
        loss="mse",
    )
    x, y = _data()
    model.fit(x, y, epochs=1, verbose=0)
    path = tmp_path / "model.keras"
    model.save(path)
    again = keras.saving.load_model(path, safe_mode=True)
    assert isinstance(again.optimizer, zoo.optimizers.Adam)
    assert again.optimizer.get_config() == model.optimizer.get_config()
    for a, b in zip(again.optimizer.variables, model.optimizer.variables):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    for kwargs, message in (
        ({"beta_1": 1.5}, "`beta_1` must be"),
        ({"beta_2": 1.0}, "`beta_2` must be"),
        ({"epsilon": -1e-7}, "`epsilon` must be"),
        ({"amsgrad": "yes"}, "`amsgrad` must be True or False"),
    ):
        with pytest.raises(ValueError, match=message):
            zoo.optimizers.Adam(**kwargs)
