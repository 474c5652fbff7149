"""Optimizers the Keras library does not have.

`Adam` is Keras's Adam, the same update and arguments, whose step on the
PyTorch backend is PyTorch's fused Adam kernel: one vectorised pass over
each variable and its moments, where Keras's PyTorch Adam makes ten
`torch._foreach_*` calls over every weight, five of which allocate a
temporary the size of the weights. On the biLM's 9.9 M weights (2-core CPU,
`KERAS_BACKEND=torch python benchmarks/optimizer_speed.py`) that was
43.4 ms a step against 11.5 ms (PyTorch's own fused Adam: 10.3 ms), in
a training step of about 0.2 s. On TensorFlow and JAX, where the step
is compiled and fused already, it is Keras's update written out.

`DiscriminativeAdam` is Adam with ULMFiT's discriminative fine-tuning and
gradual unfreezing (Howard and Ruder, 2018, sections 3.2 and 3.3): the
variables fall into groups, top (the task's head) first; group `k`
learns at `learning_rate / decay**k` and stays frozen until step
`k * unfreeze_steps`. Keras optimizers take one learning rate for every
variable, and freezing a layer needs `trainable = False` and a recompile
(a retrace of the training step); this does both inside one compiled
step, from the optimizer's own step count, so it works unchanged under
`tf.function`, JAX's stateless apply and PyTorch, and a resumed run
picks the schedule up where it was. Hand-written on Keras's public
`keras.optimizers.Optimizer` API (its `build`, `add_variable_from_reference`
and `update_step`), the update being Adam's (Kingma and Ba, 2015) with
the bias correction counted from a group's unfreezing, so that a group
starts as a fresh Adam would.

Example:
```python
optimizer = zoo.optimizers.DiscriminativeAdam(
    learning_rate=zoo.schedules.SlantedTriangular(0.01, total_steps=600),
    groups=[["head"], ["encoder/layer_2"], ["encoder/layer_1"]],
    unfreeze_steps=200,  # an epoch: one more group each epoch
)
```
"""

import keras
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE
from zoo.kernels import dispatch


@keras.saving.register_keras_serializable(package=PACKAGE)
class Adam(keras.optimizers.Optimizer):
    """`keras.optimizers.Adam`, with a fused step on the PyTorch backend.

    The update is Keras's, to float rounding (`tests/test_optimizers.py`
    compares the two on every backend): `m = b1 m + (1 - b1) g`, `v = b2
    v + (1 - b2) g^2`, `w -= lr sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v)
    + epsilon)` (with `amsgrad`, the running maximum of `v`). Its
    variables are laid out as Keras's Adam lays out its own (a momentum
    and a velocity for each weight in turn, then the `amsgrad` maxima),
    so a checkpoint of either loads into the other.

    On PyTorch each variable's step is one call of PyTorch's fused Adam
    kernel, which computes the same update with the epsilon inside the
    bias correction (`sqrt(v) / sqrt(1 - b2^t) + epsilon'`): passing
    `epsilon' = epsilon / sqrt(1 - b2^t)` gives Keras's update exactly.
    The kernel is `torch._fused_adam_`, PyTorch's own entry point for
    `torch.optim.Adam(fused=True)` (there is no public one), called by
    `zoo.kernels.torch_backend`; where it is missing, while
    `torch.compile` traces the step, for a variable of another dtype,
    and on the other backends, the step is Keras's formula in
    `keras.ops`. `fused` says whether this backend has the kernel.

    Args:
        learning_rate, beta_1, beta_2, epsilon, amsgrad: as
            `keras.optimizers.Adam`'s (the same defaults).
        **kwargs: the other `keras.optimizers.Optimizer` arguments
            (`weight_decay`, `clipnorm`, `use_ema`, `name`, ...).
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name="adam",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = v.check_number("beta_1", beta_1, float, 0.0, 1.0)
        self.beta_2 = v.check_number(
            "beta_2", beta_2, float, 0.0, 1.0, high_inclusive=False
        )
        self.epsilon = v.check_number("epsilon", epsilon, float, 0.0)
        if not isinstance(amsgrad, bool):
            v.fail("amsgrad", amsgrad, "True or False", wrong_type=True)
        self.amsgrad = amsgrad

    @property
    def fused(self):
        """True where float variables take a fused kernel (PyTorch's, on
        the PyTorch backend: `zoo.kernels`)."""
        return dispatch.active().fuses_adam

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        # A variable's slot by the variable: Keras's, or the backend
        # variable that TensorFlow's step passes (its `value`); by its
        # path for a replica's copy under a `tf.distribute` strategy.
        self._slots, self._slot_paths = {}, {}
        tensorflow = keras.backend.backend() == "tensorflow"
        for index, variable in enumerate(var_list):
            self._slots[id(variable)] = index
            if tensorflow:
                self._slots[id(variable.value)] = index
            self._slot_paths.setdefault(_path_of(variable), index)
        # Keras's own layout: the momentum and velocity of each variable
        # in turn (None for one its gradient overwrites), then the maxima.
        self.momentums, self.velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"]
        )
        self.velocity_hats = (
            self.add_optimizer_variables(var_list, "velocity_hat")
            if self.amsgrad
            else []
        )

    def slots(self, variable):
        """`variable`'s momentum, velocity and (with `amsgrad`) velocity
        maximum."""
        slot = self._slots.get(id(variable))
        if slot is None:
            slot = self._slot_paths[_path_of(variable)]
        found = [self.momentums[slot], self.velocities[slot]]
        return found + ([self.velocity_hats[slot]] if self.amsgrad else [])

    def update_step(self, gradient, variable, learning_rate):
        self._adam(gradient, variable, learning_rate)

    def _adam(self, gradient, variable, learning_rate, start=0, live=None):
        """Adam's step with the bias correction counted from step `start`
        (`live`: 1 once there, 0 before, in the variable's dtype; None:
        always live)."""
        slots = self.slots(variable)
        if dispatch.active().adam_step(
            variable, gradient, slots, self.iterations, learning_rate, self,
            start=start,
        ):  # fmt: skip
            return
        dtype = variable.dtype
        gradient = ops.cast(gradient, dtype)
        step = ops.maximum(ops.cast(self.iterations + 1 - start, dtype), 1.0)
        beta_1_power = ops.power(ops.cast(self.beta_1, dtype), step)
        beta_2_power = ops.power(ops.cast(self.beta_2, dtype), step)
        lr = ops.cast(learning_rate, dtype)
        alpha = lr * ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m, v_ = slots[0], slots[1]
        gate = 1 if live is None else live
        self.assign_add(m, (gradient - m) * (1 - self.beta_1) * gate)
        self.assign_add(
            v_, (ops.square(gradient) - v_) * (1 - self.beta_2) * gate
        )
        if self.amsgrad:
            self.assign(slots[2], ops.maximum(slots[2], v_))
            v_ = slots[2]
        self.assign_sub(variable, m * alpha / (ops.sqrt(v_) + self.epsilon))

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "beta_1": self.beta_1,
                "beta_2": self.beta_2,
                "epsilon": self.epsilon,
                "amsgrad": self.amsgrad,
            }
        )
        return config


@keras.saving.register_keras_serializable(package=PACKAGE)
class DiscriminativeAdam(Adam):
    """Adam with a learning rate and an unfreezing step per variable group.

    Args:
        learning_rate: the top group's rate: a float or a
            `keras.optimizers.schedules.LearningRateSchedule` (ULMFiT uses
            `zoo.schedules.SlantedTriangular`).
        groups: a list of groups, top first; each a list of layer names
            or paths (`"head"`, `"encoder/forward_stack"`): a variable is
            in the first group one of whose entries comes whole in its
            `variable.path` (`"sequential/top/kernel"` is in `"top"`'s); a
            variable in none is in group 0 (the head).
        decay: group `k`'s rate is `learning_rate / decay**k` (ULMFiT's
            2.6), a float >= 1.
        unfreeze_steps: group `k` is frozen (no update, its moments kept
            at zero) until step `k * unfreeze_steps`; 0 unfreezes every
            group from the start.
        **kwargs: `zoo.optimizers.Adam`'s other arguments, by name:
            `beta_1`, `beta_2`, `epsilon`, `amsgrad` (its fused step on
            PyTorch included), and those of `keras.optimizers.Optimizer`
            (`weight_decay`, `clipnorm`, ...).
    """

    def __init__(
        self,
        learning_rate=0.001,
        groups=(),
        decay=2.6,
        unfreeze_steps=0,
        name="discriminative_adam",
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if isinstance(groups, str) or not all(
            isinstance(group, (list, tuple))
            and group
            and all(isinstance(p, str) and p for p in group)
            for group in groups
        ):
            v.fail(
                "groups",
                groups,
                "a list of groups, each a non-empty list of variable path "
                "prefixes",
                wrong_type=True,
            )
        self.groups = [list(group) for group in groups]
        self.decay = v.check_number("decay", decay, float, 1.0)
        self.unfreeze_steps = v.check_number(
            "unfreeze_steps", unfreeze_steps, int, 0
        )

    def group_of(self, variable):
        """The index of `variable`'s group (0: the head, the default): the
        first group with a prefix whose `/`-separated parts come, in
        order and whole, in the variable's path (`"top"` matches
        `"sequential/top/kernel"`)."""
        parts = _path_of(variable).split("/")
        for index, prefixes in enumerate(self.groups):
            for prefix in prefixes:
                want = prefix.strip("/").split("/")
                if any(
                    parts[i : i + len(want)] == want
                    for i in range(len(parts) - len(want) + 1)
                ):
                    return index
        return 0

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        index = self.group_of(variable)
        start = index * self.unfreeze_steps
        live = ops.cast(ops.greater_equal(self.iterations, start), dtype)
        lr = ops.cast(learning_rate, dtype) * (self.decay**-index) * live
        self._adam(gradient, variable, lr, start=start, live=live)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "groups": self.groups,
                "decay": self.decay,
                "unfreeze_steps": self.unfreeze_steps,
            }
        )
        return config


def _path_of(variable):
    """A variable's path: `keras.Variable.path`, or, for the backend
    variable that TensorFlow's optimizer step passes to `update_step`,
    its name without the `:0` (the same path)."""
    path = getattr(variable, "path", None)
    if path is None:
        path = variable.name.rsplit(":", 1)[0]
    return path
