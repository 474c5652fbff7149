"""What a run leaves for its caller: its metrics checked and printed.

`finished_metrics` reads a finished run's `metrics.json` back (what a
rerun returns without training), `finite_metrics` makes the metrics JSON
(NaN and infinities as null), `check_finite` turns a diverged run into a
`TrainingDiverged` error, `print_summary` is the end of a run on screen.
"""

import json

import numpy as np

import harness


class Finished(dict):
    """The metrics of a run that had finished before this job started: it
    trained and wrote nothing (what `print_summary` says)."""


def finite_metrics(metrics):
    """`metrics` with NaN/inf floats as None (`metrics.json` stays JSON)."""
    if isinstance(metrics, dict):
        return {k: finite_metrics(v) for k, v in metrics.items()}
    if isinstance(metrics, list):
        return [finite_metrics(v) for v in metrics]
    if isinstance(metrics, float) and not np.isfinite(metrics):
        return None
    return metrics


RERUN_ADVICE = (
    "the run's results cannot be shown: pass --overwrite to train again, "
    "or choose another --output"
)


def finished_metrics(task, path, advice=RERUN_ADVICE):
    """The `metrics.json` of a finished run, checked to be whole (what a
    rerun prints): a damaged one is one line naming it, ending in
    `advice`."""

    def refuse(found):
        return harness.UsageError(f"{path} is damaged: {found}; {advice}")

    def no_constant(name):  # NaN, Infinity: metrics.json writes null
        raise ValueError(f"{name} is not a value metrics.json holds")

    try:
        metrics = json.loads(path.read_text(), parse_constant=no_constant)
    except (ValueError, UnicodeDecodeError) as error:
        raise refuse(f"not JSON ({error})") from None
    if not isinstance(metrics, dict):
        raise refuse(f"a JSON {type(metrics).__name__}, not an object")
    try:
        task.summary(metrics)
        if not isinstance(metrics["wrote"], list):
            raise TypeError("'wrote' is not a list")
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise refuse(f"{type(error).__name__}: {error}") from None
    return metrics


class TrainingDiverged(harness.UsageError):
    """The loss became NaN or infinite: the run's results are written
    (`metrics.json` says at which epoch), but it did not succeed."""

    exit_code = 1


def check_finite(metrics):
    """Raises `TrainingDiverged` for the metrics of a run whose loss
    became non-finite."""
    epoch = metrics.get("diverged_at_epoch")
    if epoch:
        raise TrainingDiverged(
            f"training diverged: the loss became non-finite in epoch {epoch}"
            " (model.keras holds the best epoch before it, if there was "
            "one); lower --learning-rate and rerun with --overwrite"
        )


def print_summary(task, config, metrics):
    """The end of a run on screen: the task's lines, then what it wrote."""
    print()
    for line in task.summary(metrics):
        print(line)
    described = metrics.get("distribute", {})
    if described and not described["chief"]:
        print(
            f"worker {described['worker_index']} finished; the chief wrote "
            f"{config.output}"
        )
    elif isinstance(metrics, Finished):
        print(
            f"{config.output}/ holds what that run wrote: "
            f"{', '.join(metrics['wrote'])}"
        )
    else:
        print(f"wrote {config.output}/: {', '.join(metrics['wrote'])}")
