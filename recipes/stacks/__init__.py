"""`make demo-stacks`: build each cell's stack, train it, print a table.

    python -m recipes.stacks [--epochs 6] [--output runs/demo-stacks] [--seed 0]

The task is generated, so it needs no data (`recipes.data.synthetic`):
each timestep of a random sequence is labelled with whether the running
sum of its first feature is positive so far, which needs memory across
timesteps.
Results: a table on screen, `metrics.json` and `loss.png` in `--output`.
"""

from recipes import lazy

__getattr__ = lazy.exports(__name__, ("cli",))
