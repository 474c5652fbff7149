"""Seeing inside a stack: what each layer does, what depth costs.

    python -m diagnostics activations --model runs/tagging/model.keras
    python -m diagnostics gradients --quick
    python -m diagnostics probe --model runs/tagging/model.keras
    python -m diagnostics cost --quick
    python -m diagnostics study depth --task seq2seq --quick

Each tool writes PNG plots and its numbers (JSON and CSV) to `--output`,
has a `--quick` mode, and prints one line and exits with code 2 on bad
input. docs/inspection.md has real figures.
"""

import os

# Quiet TensorFlow's C++ start-up logs unless asked for: the one setting
# made at import here (never the backend), because `python -m
# diagnostics TOOL` imports Keras before any entry code runs (the
# recipes set it in their `__main__`, `harness.entry.quiet_tensorflow`).
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

TOOLS = {
    "activations": "per-layer hidden-state activity over a sentence",
    "gradients": "gradient norm by layer for plain, residual and highway "
    "stacks of several depths, and their loss curves",
    "probe": "linear probes on each frozen layer (and on a ScalarMix of "
    "the stack's layers)",
    "cost": "step time, latency, peak memory and parameters against depth",
    "study": "the depth and fixed-budget studies: grid searches over depth "
    "x seed (plain/residual/highway, or budgets) on a recipe's data",
}
