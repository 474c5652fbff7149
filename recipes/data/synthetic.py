"""A generated sequence task that needs no data: memory across time.

Each timestep of a random sequence is labelled with whether the running
sum of its first feature is positive so far. The demo of each cell's
stack (`python -m recipes.stacks`) and the gradient tool
(`python -m diagnostics gradients`) train on it.
"""

import numpy as np


def make_task(num_sequences=1024, steps=20, features=4, seed=0):
    """`(x, y)`: random sequences `(num_sequences, steps, features)`
    (float32) and the sign of their first feature's running sum per step
    `(num_sequences, steps, 1)` (1.0 where positive)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(num_sequences, steps, features)).astype("float32")
    y = (np.cumsum(x[..., 0], axis=1) > 0).astype("float32")[..., None]
    return x, y
