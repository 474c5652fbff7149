"""Optimizers the Keras library does not have.

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


@keras.saving.register_keras_serializable(package=PACKAGE)
class DiscriminativeAdam(keras.optimizers.Optimizer):
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
        beta_1, beta_2, epsilon: Adam's.
        **kwargs: the other `keras.optimizers.Optimizer` arguments
            (`weight_decay`, `clipnorm`, `name`, ...).
    """

    def __init__(
        self,
        learning_rate=0.001,
        groups=(),
        decay=2.6,
        unfreeze_steps=0,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
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
        self.beta_1 = v.check_number("beta_1", beta_1, float, 0.0, 1.0)
        self.beta_2 = v.check_number("beta_2", beta_2, float, 0.0, 1.0)
        self.epsilon = v.check_number("epsilon", epsilon, float, 0.0)

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

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._slots = {}
        self.momentums = []
        self.velocities = []
        for variable in var_list:
            self._slots[_path_of(variable)] = len(self.momentums)
            self.momentums.append(
                self.add_variable_from_reference(variable, "momentum")
            )
            self.velocities.append(
                self.add_variable_from_reference(variable, "velocity")
            )

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        index = self.group_of(variable)
        start = index * self.unfreeze_steps
        live = ops.cast(ops.greater_equal(self.iterations, start), dtype)
        lr = ops.cast(learning_rate, dtype) * (self.decay**-index) * live
        gradient = ops.cast(gradient, dtype)
        # Adam's bias correction, counted from the group's first live step.
        step = ops.maximum(ops.cast(self.iterations + 1 - start, dtype), 1.0)
        beta_1_power = ops.power(ops.cast(self.beta_1, dtype), step)
        beta_2_power = ops.power(ops.cast(self.beta_2, dtype), step)
        slot = self._slots[_path_of(variable)]
        m, v_ = self.momentums[slot], self.velocities[slot]
        alpha = lr * ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        self.assign_add(m, (gradient - m) * (1 - self.beta_1) * live)
        self.assign_add(
            v_, (ops.square(gradient) - v_) * (1 - self.beta_2) * live
        )
        self.assign_sub(variable, m * alpha / (ops.sqrt(v_) + self.epsilon))

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "groups": self.groups,
                "decay": self.decay,
                "unfreeze_steps": self.unfreeze_steps,
                "beta_1": self.beta_1,
                "beta_2": self.beta_2,
                "epsilon": self.epsilon,
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
