"""Learning-rate schedules the Keras library does not have.

`SlantedTriangular` is ULMFiT's slanted triangular learning rate (Howard
and Ruder, 2018, eq. 3): a short linear warm-up from `max / ratio` to
`max` over the first `cut_fraction` of the steps, then a long linear
decay back to `max / ratio`. Keras has warm-up only inside `CosineDecay`
(`warmup_target`), whose decay is a cosine, not a line, and which ends at
`alpha * max`; this one is the paper's, in `keras.ops`, on every backend,
and serialisable (`get_config`, registered for `safe_mode=True`).

Example:
```python
schedule = zoo.schedules.SlantedTriangular(0.01, total_steps=1000)
optimizer = keras.optimizers.Adam(schedule)
```
"""

import math

import keras
from keras import ops

from zoo import validation as v
from zoo._package import PACKAGE


@keras.saving.register_keras_serializable(package=PACKAGE)
class SlantedTriangular(keras.optimizers.schedules.LearningRateSchedule):
    """ULMFiT's slanted triangular learning rate.

    With `cut = max(1, floor(total_steps * cut_fraction))` and step `t`:
    `p = t / cut` while `t < cut`, then `1 - (t - cut) / (total_steps -
    cut)` (clipped to `[0, 1]`), and the rate is `max_learning_rate * (1
    + p * (ratio - 1)) / ratio`: `max / ratio` at step 0, `max` at `cut`,
    `max / ratio` again at `total_steps` and after.

    Args:
        max_learning_rate: the peak rate, a float > 0.
        total_steps: optimizer steps of the whole training, an int >= 1.
        cut_fraction: the fraction of the steps that warms up, in (0, 1)
            (the paper's 0.1).
        ratio: how much smaller the lowest rate is than the peak, >= 1
            (the paper's 32).
        name: optional name of the schedule.
    """

    def __init__(
        self,
        max_learning_rate,
        total_steps,
        cut_fraction=0.1,
        ratio=32,
        name=None,
    ):
        super().__init__()
        self.max_learning_rate = v.check_number(
            "max_learning_rate", max_learning_rate, float, 0.0,
            low_inclusive=False,
        )  # fmt: skip
        self.total_steps = v.check_positive_int("total_steps", total_steps)
        self.cut_fraction = v.check_number(
            "cut_fraction", cut_fraction, float, 0.0, 1.0,
            low_inclusive=False, high_inclusive=False,
        )  # fmt: skip
        self.ratio = v.check_number("ratio", ratio, float, 1.0)
        self.name = name
        self.cut = max(1, math.floor(self.total_steps * self.cut_fraction))

    def __call__(self, step):
        step = ops.cast(step, "float32")
        cut = float(self.cut)
        rest = float(max(self.total_steps - self.cut, 1))
        p = ops.where(step < cut, step / cut, 1.0 - (step - cut) / rest)
        p = ops.clip(p, 0.0, 1.0)
        return (
            self.max_learning_rate
            * (1.0 + p * (self.ratio - 1.0))
            / (self.ratio)
        )

    def get_config(self):
        return {
            "max_learning_rate": self.max_learning_rate,
            "total_steps": self.total_steps,
            "cut_fraction": self.cut_fraction,
            "ratio": self.ratio,
            "name": self.name,
        }
