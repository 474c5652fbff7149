"""Test hooks that stop a recipe's run at a chosen phase.

`RECIPES_PAUSE_AT=PHASE` (`PAUSE_ENV`) stops the run at that phase (it
prints `paused at PHASE` to stderr and stops itself with SIGSTOP), so
that a test can kill it there (or let it go on with SIGCONT) instead of
guessing a moment (tests/recipes/test_resume.py, which kills runs to show
that `recipes.checkpoints.RunBackup` survives a kill at each phase).
`recipes.training` calls `pause_point` at each phase, and adds
`PauseMidEpoch` to the callbacks when the variable is set; unset, they
do nothing. These names are also importable from `recipes.checkpoints`.

The phases: `epoch:N` (after the first batch of epoch N, 1-based),
`after-fit`, `saving` (`model.keras` half written), `after-save`
(`model.keras` written, `metrics.json` not yet), `after-metrics` (the
backup not yet deleted).
"""

import os
import signal
import sys

import keras

PAUSE_ENV = "RECIPES_PAUSE_AT"


def pause_point(phase):
    """Stops this process (SIGSTOP) if `RECIPES_PAUSE_AT` is `phase`."""
    if os.environ.get(PAUSE_ENV) == phase:
        print(f"paused at {phase}", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGSTOP)


class PauseMidEpoch(keras.callbacks.Callback):
    """`pause_point("epoch:N")` after the first batch of each epoch."""

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch + 1

    def on_train_batch_end(self, batch, logs=None):
        if batch == 0:
            pause_point(f"epoch:{self._epoch}")
