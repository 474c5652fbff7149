"""keras-tuner search spaces over the recipes' tasks, and the search CLI.

`tuning.StackedRNNHyperModel` declares depth, width, cell and
regularisation as hyperparameters (`tuning.space`) and builds each trial
through a recipe's task (`recipes.task.Recipe`: its model, loss and
metrics), so a search trains what the recipe trains; `python -m
tuning.search` runs a search over a recipe's task and data, resumes it,
runs it on several workers, and writes a table, plots and the best model.
"""

import os

# Quiet TensorFlow's C++ start-up logs unless asked for: the one setting
# made at import here (never the backend), because `python -m
# tuning.search` imports Keras through this package
# before any entry code runs (the recipes set it in their `__main__`,
# `harness.entry.quiet_tensorflow`).
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from tuning import space  # noqa: E402
from tuning.hypermodel import DEFAULT_RANGES  # noqa: E402
from tuning.hypermodel import DEFAULT_SEARCH  # noqa: E402
from tuning.hypermodel import SEARCHABLE  # noqa: E402
from tuning.hypermodel import StackedRNNHyperModel  # noqa: E402
from tuning.hypermodel import defaults  # noqa: E402

__all__ = [
    "DEFAULT_RANGES",
    "DEFAULT_SEARCH",
    "SEARCHABLE",
    "StackedRNNHyperModel",
    "defaults",
    "space",
]
