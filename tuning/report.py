"""What a finished search writes: the trial table, plots, the best model.

Files, in the project folder (`--directory/--project-name`):

- `trials.csv`, `trials.json`: one row per trial: its number (`trial`,
  from 1, as keras-tuner prints it: "Trial 1 Complete") and keras-tuner's
  id (`trial_id`, from 0, which names its folder `trial_<id>`), status,
  the worker that ran it, cell, depth, width (`units`: one width, or one
  per layer joined by `/`), parameters (model and recurrent stack), the
  objective, the training seconds, and every hyperparameter value;
- `best_model.keras`: the best trial's model at its best epoch (reloads
  with `safe_mode=True`), `best_hyperparameters.json`, and
  `best_config.json`: the recipe's settings with the best values in place,
  ready for `python -m recipes.TASK --config best_config.json`;
- `heatmap.png`: the best objective per depth x width, under a title of
  what every trial shares and what was searched (`search_description`);
- `budget.png` (with `--budget-params`): the objective against depth at the
  fixed budget, one line per cell.
"""

import dataclasses
import json
import math
import pathlib
import warnings

import numpy as np

from harness import files
from harness import plots
from recipes import settings
from recipes import training

COLUMNS = (
    "trial",
    "trial_id",
    "status",
    "worker",
    "cell",
    "num_layers",
    "units",
    "width",
    "params",
    "stack_params",
    "objective",
    "score",
    "train_seconds",
    "error",
)


def trial_rows(tuner, hypermodel):
    """One dict per trial, in trial order (see `COLUMNS`)."""
    project = pathlib.Path(tuner.project_dir)
    rows = []
    for trial_id in sorted(tuner.oracle.trials, key=_trial_order):
        trial = tuner.oracle.trials[trial_id]
        values = dict(trial.hyperparameters.values)
        choices = hypermodel.choices(trial.hyperparameters.copy())
        units = choices["units"]
        widths = units if isinstance(units, list) else [units]
        row = {
            "trial": trial_number(trial_id),
            "trial_id": trial_id,
            "status": str(trial.status),
            "worker": _worker(project / f"trial_{trial_id}"),
            "cell": choices["cell"],
            "num_layers": choices["num_layers"],
            "units": "/".join(str(u) for u in widths),
            "width": round(sum(widths) / len(widths), 1),
            "params": _metric(trial, "params", int),
            "stack_params": _metric(trial, "stack_params", int),
            "objective": tuner.oracle.objective.name,
            "score": trial.score,
            "train_seconds": _metric(trial, "train_seconds", float),
            "error": _last_line(trial.message),
        }
        row.update({f"hp_{k}": v for k, v in values.items()})
        rows.append(row)
    return rows


def trial_number(trial_id):
    """The number keras-tuner prints for a trial ("Running Trial #1",
    "Trial 1 Complete"), the one the table and the summary show: its id
    (a counter from 0, which names its folder, `trial_<id>`) plus one."""
    return int(trial_id) + 1 if trial_id.isdigit() else trial_id


def _trial_order(trial_id):
    # Ids are zero-padded to the digits of --max-trials, which may grow
    # when a search is resumed with more trials ("09" then "010").
    return (int(trial_id), trial_id) if trial_id.isdigit() else (-1, trial_id)


def _metric(trial, name, kind):
    if not trial.metrics.exists(name):
        return None
    value = trial.metrics.get_last_value(name)
    return None if value is None else kind(value)


def _last_line(message):
    """The exception line of a failed trial's traceback, or ''."""
    lines = [line for line in (message or "").splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def _worker(trial_dir):
    try:
        return json.loads((trial_dir / "worker.json").read_text())["tuner_id"]
    except (OSError, ValueError, KeyError):
        return ""


def plot_heatmap(rows, path, title):
    """Best score per (depth, width) cell of the trials that completed."""
    plt = plots.pyplot()
    done = [r for r in rows if r["score"] is not None]
    if not done:
        return False
    depths = sorted({r["num_layers"] for r in done})
    widths = sorted({r["width"] for r in done})
    grid = np.full((len(depths), len(widths)), np.nan)
    for r in done:
        i, j = depths.index(r["num_layers"]), widths.index(r["width"])
        if np.isnan(grid[i, j]) or r["score"] > grid[i, j]:
            grid[i, j] = r["score"]
    fig, ax = plt.subplots(
        figsize=(
            max(4.0, 0.9 * len(widths) + 2),
            max(3.0, 0.7 * len(depths) + 2),
        )
    )
    image = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto")
    for i in range(len(depths)):
        for j in range(len(widths)):
            if not np.isnan(grid[i, j]):
                ax.text(
                    j,
                    i,
                    f"{grid[i, j]:.3f}",
                    ha="center",
                    va="center",
                    color="white",
                    fontsize=8,
                )
    ax.set_xticks(range(len(widths)), [_label(w) for w in widths])
    ax.set_yticks(range(len(depths)), [str(d) for d in depths])
    ax.set_xlabel("width (units per layer; mean if per-layer)")
    ax.set_ylabel("depth (layers)")
    plots.fit_title(fig, title, fontsize=9)
    fig.colorbar(image, ax=ax, label=done[0]["objective"])
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def plot_budget(rows, path, title):
    """The best score against depth at the fixed budget, one line per cell."""
    plt = plots.pyplot()
    done = [r for r in rows if r["score"] is not None]
    if not done:
        return False
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for cell in sorted({r["cell"] for r in done}):
        best = {}
        for r in done:
            if r["cell"] == cell:
                d = r["num_layers"]
                if d not in best or r["score"] > best[d]["score"]:
                    best[d] = r
        depths = sorted(best)
        ax.plot(depths, [best[d]["score"] for d in depths], "o-", label=cell)
        for d in depths:
            ax.annotate(
                f"u={_label(best[d]['width'])}",
                (d, best[d]["score"]),
                textcoords="offset points",
                xytext=(0, 6),
                ha="center",
                fontsize=7,
            )
    ax.set_xlabel("depth (layers)")
    ax.set_ylabel(done[0]["objective"])
    ax.set_xticks(sorted({r["num_layers"] for r in done}))
    ax.legend()
    ax.grid(alpha=0.3)
    plots.fit_title(fig, title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def heatmap_title(objective, rows, where):
    """The heatmap's title; its count of trials, "(2 trials)", is one
    word (a non-breaking space), which wrapping keeps on one line."""
    count = f"{len(rows)}\N{NO-BREAK SPACE}trial{'s' * (len(rows) != 1)}"
    return f"best {objective} over depth x width ({count})\n{where}"


def search_description(problem, hypermodel):
    """What the plots' subtitle says of a search: what every trial shares
    and what was searched, e.g. "tagging: bidirectional RNN tagger, Brown
    corpus, ...; searched: cell, num_layers, units".

    The task's title describes the recipe's one model ("2-layer
    bidirectional lstm tagger"); the stack's searched parts leave it (no
    depth when `num_layers` is searched, "RNN" for a searched cell, no
    "bidirectional" when that is searched).
    """
    config = problem.config
    searched = list(hypermodel.search)
    title = problem.description
    stack = settings.describe_stack(config)
    if not config.model and title.startswith(stack):
        words = []
        if "num_layers" not in searched:
            words.append(f"{config.num_layers}-layer")
        if config.bidirectional and "bidirectional" not in searched:
            words.append("bidirectional")
        words.append("RNN" if "cell" in searched else config.cell)
        title = " ".join(words) + title[len(stack) :]
    what = ", ".join(searched)
    if hypermodel.budget_params:
        what += " (the width from the parameter budget)"
    return f"{problem.task}: {title}; searched: {what}"


def _label(width):
    return str(int(width)) if float(width).is_integer() else f"{width:g}"


def write(tuner, hypermodel, problem, budget_params=None):
    """Writes every file of a finished (or stopped) search; returns a
    summary dict (best trial, counts, paths)."""
    project = pathlib.Path(tuner.project_dir)
    rows = trial_rows(tuner, hypermodel)
    files.write_rows(rows, project, "trials", COLUMNS)
    wrote = ["trials.csv", "trials.json"]
    objective = tuner.oracle.objective.name
    where = search_description(problem, hypermodel)
    if plot_heatmap(
        rows, project / "heatmap.png", heatmap_title(objective, rows, where)
    ):
        wrote.append("heatmap.png")
    if budget_params and plot_budget(
        rows,
        project / "budget.png",
        f"{objective} vs depth at ~{budget_params:,} stack parameters\n{where}",
    ):
        wrote.append("budget.png")
    completed = [r for r in rows if r["score"] is not None]
    summary = {
        "trials": len(rows),
        "completed": len(completed),
        "objective": objective,
        "project": str(project),
        "wrote": wrote,
    }
    best_trials = [
        t for t in tuner.oracle.get_best_trials(1) if t.score is not None
    ]
    if not best_trials or (
        isinstance(best_trials[0].score, float)
        and math.isnan(best_trials[0].score)
    ):
        return summary
    best = best_trials[0]
    choices = hypermodel.choices(best.hyperparameters.copy())
    row = next(r for r in rows if r["trial_id"] == best.trial_id)
    summary["best"] = {
        k: row[k]
        for k in (
            "trial",
            "trial_id",
            "cell",
            "num_layers",
            "units",
            "params",
            "score",
        )
    }
    config = dataclasses.asdict(hypermodel.config_for(choices))
    config["output"] = str(project / "best")
    files.write_json(project / "best_config.json", config)
    best_values = {
        "trial": row["trial"],
        "trial_id": best.trial_id,
        "objective": objective,
        "score": best.score,
        "values": best.hyperparameters.values,
        "choices": choices,
        "params": row["params"],
    }
    files.write_json(project / "best_hyperparameters.json", best_values)
    wrote += ["best_config.json", "best_hyperparameters.json"]
    try:
        with warnings.catch_warnings():
            # The trial checkpoint holds the optimizer's state, which the
            # new model's optimizer skips: the weights are what count.
            warnings.filterwarnings("ignore", "Skipping variable loading")
            model = tuner.load_model(best)
    except OSError as error:
        # A cluster without a shared --directory: the worker that ran the
        # trial holds its checkpoint.
        summary["missing"] = f"best_model.keras not written ({error})"
        return summary
    training.save_and_reload(model, project, "best_model.keras")
    wrote.append("best_model.keras")
    return summary
