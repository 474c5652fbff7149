"""`ProgressLog`: plain progress lines while a model trains, for logs.

Keras's progress bar (`verbose=1`) redraws one line with carriage
returns: right on a terminal, unreadable in a file or a pipe (`make demo
> log`, `| tee`, a background job's `nohup.out`), and `verbose=2` prints
once an epoch, nothing for the whole of a long one. Off a terminal the
recipes train with `verbose=2` and this callback, which prints a line
every tenth of an epoch or every `interval` seconds, whichever comes
first: steps done, the running loss, elapsed time and the epoch's ETA;
and, as each epoch ends, a line with its time, its throughput (`units`:
what a task counts, such as a language model's words), what the task
says of the epoch's logs (`describe`: a language model's dev
perplexity) and the run's ETA (the epochs left at the mean pace of the
epochs this process has run).
"""

import time

import keras


def _duration(seconds):
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class ProgressLog(keras.callbacks.Callback):
    """Prints `epoch E/N: S/T steps (P%), loss L, elapsed, ETA` lines,
    and `epoch E/N done in T; R units/s; ...; run ETA` at an epoch's end.

    Args:
        epochs: the run's epochs (for `E/N`).
        steps: batches in an epoch.
        interval: the most seconds between two lines (default 60).
        print_fn: where lines go (default `print`, flushed).
        units: `(name, count)`: what an epoch processes (`("words",
            1_030_000)`), for a throughput; None: none shown.
        describe: a function of an epoch's logs returning a phrase for
            its line (a dev score), or None.
    """

    def __init__(
        self,
        epochs,
        steps,
        interval=60.0,
        print_fn=None,
        units=None,
        describe=None,
    ):
        super().__init__()
        self.epochs = int(epochs)
        self.steps = max(int(steps), 1)
        self.interval = float(interval)
        self.print_fn = print_fn or (lambda line: print(line, flush=True))
        self.every = max(self.steps // 10, 1)
        self.units = units  # (name, count in an epoch), or None
        self.describe = describe  # epoch logs -> a phrase, or None
        self.durations = []

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch
        self.started = self.last = time.perf_counter()
        self.trained = None

    def on_epoch_end(self, epoch, logs=None):
        seconds = time.perf_counter() - self.started
        self.durations.append(seconds)
        parts = [
            f"epoch {epoch + 1}/{self.epochs} done in {_duration(seconds)}"
        ]
        if self.units:  # over the training steps, not the evaluation
            name, count = self.units
            trained = self.trained or seconds
            parts.append(f"{count / max(trained, 1e-9):,.0f} {name}/s")
        if self.describe is not None and logs:
            parts.append(self.describe(logs))
        left = self.epochs - epoch - 1
        if left > 0:
            pace = sum(self.durations) / len(self.durations)
            parts.append(f"run ETA {_duration(pace * left)}")
        self.print_fn("; ".join(parts))

    def on_train_batch_end(self, batch, logs=None):
        done = batch + 1
        now = time.perf_counter()
        if done >= self.steps:
            self.trained = now - self.started  # before the dev evaluation
            return  # Keras's own end-of-epoch line follows
        if done % self.every and now - self.last < self.interval:
            return
        self.last = now
        elapsed = now - self.started
        eta = elapsed / done * (self.steps - done)
        loss = (logs or {}).get("loss")
        shown = "" if loss is None else f", loss {float(loss):.4f}"
        self.print_fn(
            f"epoch {self.epoch + 1}/{self.epochs}: {done}/{self.steps} "
            f"steps ({100 * done // self.steps}%){shown}, "
            f"{_duration(elapsed)}, ETA {_duration(eta)}"
        )
