"""Search depth, width and cell of a recipe's model with keras-tuner.

    python -m tuning.search --quick                   # POS tagging, Brown
    python -m tuning.search --task classification --tuner bayesian \\
        --max-trials 20 --search cell,num_layers,units,dropout
    python -m tuning.search --budget-params 400k --layers 1:4 --quick
    python -m tuning.search --quick --distributed --workers 2

Each trial trains the recipe's model (`--task tagging|classification|
seq2seq|translation`, with the recipe's data flags: `--dataset`,
`--train-file`, ..., and its settings for what is not searched) for the
recipe's `--epochs` (at most 2 with `--quick`, which also takes the
recipe's small subset), early-stopped on the validation objective:
`val_accuracy` (POS), `val_f1` (BIO tags), `val_macro_f1`
(classification) or `val_accuracy` (seq2seq and translation,
teacher-forced). `--search` names the hyperparameters to search
(`tuning.SEARCHABLE`); `--cells`, `--layers`, `--widths` and `--range
NAME=MIN:MAX[:STEP]` set their ranges. With `--budget-params N` the
width is derived per trial so every recurrent stack has about N
parameters.

keras-tuner prints each trial's values and progress. At the end, the
project folder (`--directory`/`--project-name`) holds `trials.csv` and
`trials.json`, `heatmap.png` (objective over depth x width), `budget.png`
(with a budget), `best_model.keras` (reloads with `safe_mode=True`),
`best_hyperparameters.json` and `best_config.json` (for `python -m
recipes.TASK --config`). Rerunning the same command resumes the search:
finished trials are kept and an interrupted trial runs again.
`--distributed --workers N` runs keras-tuner's chief and N workers here;
see `tuning.distributed` and docs/tuning.md for a cluster.
"""

import argparse
import dataclasses
import json
import math
import os
import pathlib
import re
import sys
import typing

import keras
import keras_tuner as kt

import harness
import tuning
from harness import files
from harness import flags
from harness import rundir
from recipes import arguments
from recipes import distributed as recipe_distribution
from recipes.task import Recipe
from tuning import distributed
from tuning import report
from tuning import space
from tuning import tuners
from tuning.hypermodel import RECIPES

TUNERS = ("random", "bayesian", "hyperband", "grid")
TASKS = tuple(RECIPES)
STAMP = "search.json"
# Options that may change between runs of one search.
RUN_ONLY = (
    "max_trials",
    "directory",
    "project_name",
    "overwrite",
    "distributed",
    "workers",
    "chief_timeout",
    "timeout",
    "report",
    "max_retries",
)


@dataclasses.dataclass
class SearchOptions:
    task: str = "tagging"
    tuner: str = "random"
    max_trials: int = 0
    budget_params: str = ""
    search: str = "cell,num_layers,units"
    cells: str = "lstm,gru"
    layers: str = "1:4"
    widths: str = "32:256:32"
    range: list = dataclasses.field(default_factory=list)
    per_layer_units: bool = False
    directory: str = "runs/tuning"
    project_name: str = ""
    overwrite: bool = False
    max_retries: int = 1
    distributed: bool = False
    workers: int = 2
    chief_timeout: float = 600.0
    timeout: float = 0.0
    report: bool = True


HELP = {
    "task": "the recipe whose model and data are searched: " + ", ".join(TASKS),
    "tuner": "keras-tuner algorithm: " + ", ".join(TUNERS),
    "max_trials": "number of trials; 0: 10 for random and bayesian, the "
    "whole grid for grid (hyperband sets its own from the epochs)",
    "budget_params": "fixed parameter budget of the recurrent stack, e.g. "
    "400000, 400k or 1.6M: the width follows from depth and cell",
    "search": "comma-separated hyperparameters to search, from: "
    + ", ".join(space.NAMES)
    + " (recurrent_dropout leaves the fused kernel; seed makes "
    "replicates: other initial weights and dropout masks; the char_ "
    "options are the tagger's); the others keep the recipe's value",
    "cells": "comma-separated cells for `cell`",
    "layers": "MIN:MAX depth for `num_layers`, or the depths A,B,...",
    "widths": "MIN:MAX:STEP width for `units`, or the widths A,B,...",
    "range": "NAME=MIN:MAX[:STEP] (numbers) or NAME=A,B,... (the values "
    "themselves) for any other searched name; repeatable",
    "per_layer_units": "one width per layer (units_1, units_2, ...)",
    "directory": "where keras-tuner keeps its projects",
    "project_name": "the search's folder (default: TASK-DATASET, plus "
    "-budget with --budget-params)",
    "overwrite": "delete the project and start again (default: resume)",
    "max_retries": "times an interrupted or failed trial runs again",
    "distributed": "run keras-tuner's chief and --workers workers here",
    "workers": "worker processes with --distributed",
    "chief_timeout": "seconds a worker waits for an unreachable chief",
    "timeout": "seconds for a --distributed run (0: no limit)",
    "report": "write the table, plots and best model at the end",
}
# Recipe settings that mean nothing for a search.
SKIPPED = ("output", "init_from", "tensorboard")


def parse(argv):
    """`(SearchOptions, recipe config, recipe module)` from the command."""
    first = flags.ArgumentParser(add_help=False, allow_abbrev=False)
    first.add_argument("--task", default="tagging")
    task = first.parse_known_args(argv)[0].task
    flags.check_choice("task", task, TASKS)
    recipe = RECIPES[task]
    parser = flags.ArgumentParser(
        prog="python -m tuning.search",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # children get this argv minus --distributed
    )
    own = parser.add_argument_group("search")
    for field in dataclasses.fields(SearchOptions):
        flag = "--" + field.name.replace("_", "-")
        text = f"{HELP.get(field.name, '')} (default: {field.default})"
        if field.type is bool:
            own.add_argument(
                flag, action=argparse.BooleanOptionalAction, help=text
            )
        elif field.name == "range":
            own.add_argument(
                flag, action="append", default=[], help=HELP["range"]
            )
        else:
            own.add_argument(flag, type=field.type, help=text)
    group = parser.add_argument_group(
        f"{task} recipe settings (every trial; searched names are replaced)"
    )
    arguments.add_config_arguments(group, recipe.Config, recipe.HELP, SKIPPED)
    args = parser.parse_args(argv)
    values = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(SearchOptions)
        if getattr(args, f.name) is not None
    }
    options = SearchOptions(**values)
    config = arguments.resolve_config(recipe.Config, args)
    return options, config, recipe


def parse_budget(text):
    if not text:
        return None
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1].lower(), 1)
    number = text[:-1] if scale != 1 else text
    try:
        value = float(number) * scale
        value = round(value) if math.isfinite(value) else 0
    except ValueError:
        value = 0
    if value < 1:
        raise harness.UsageError(
            f"--budget-params must be a positive number such as 400000, "
            f"400k or 1.6M; received {text!r}"
        )
    return value


def _integers(flag, text, count=(2, 3)):
    """`_numbers`, each a whole number (a depth, a width)."""
    numbers = _numbers(flag, text, count)
    if not all(isinstance(n, int) for n in numbers):
        shape = "MIN:MAX" if count == (2,) else "MIN:MAX[:STEP]"
        raise harness.UsageError(
            f"{flag} must be {shape} integers; received {text!r}"
        )
    return numbers


def _numbers(flag, text, count=(2, 3)):
    parts = text.split(":")
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        numbers = []
    if len(numbers) not in count or not all(map(math.isfinite, numbers)):
        shape = "MIN:MAX" if count == (2,) else "MIN:MAX[:STEP]"
        raise harness.UsageError(
            f"{flag} must be {shape} finite numbers; received {text!r}"
        )
    return tuple(int(n) if n.is_integer() else n for n in numbers)


def ranges_of(options):
    """The hypermodel's `ranges` from `--cells`, `--layers`, `--widths`
    and `--range`."""
    ranges = {
        "cell": tuple(c for c in options.cells.split(",") if c),
        "num_layers": (
            _values("--layers", options.layers, integers=True)
            if "," in options.layers
            else _integers("--layers", options.layers, (2,))
        ),
        "units": (
            _values("--widths", options.widths, integers=True)
            if "," in options.widths
            else _integers("--widths", options.widths)
        ),
    }
    for item in options.range:
        name, _, spec = item.partition("=")
        name = name.strip().replace("-", "_")
        if not spec or not name:
            raise harness.UsageError(
                f"--range must be NAME=MIN:MAX[:STEP] or NAME=A,B; "
                f"received {item!r}"
            )
        if name in ("cell", "batch_size"):
            values = tuple(v for v in spec.split(",") if v)
            ranges[name] = (
                values
                if name == "cell"
                else tuple(
                    _numbers("--range batch_size", v, (1,))[0] for v in values
                )
            )
        elif "," in spec:
            ranges[name] = _values(
                f"--range {name}", spec, integers=name in ("seed",)
            )
        else:
            ranges[name] = _numbers(f"--range {name}", spec)
    return ranges


def _values(flag, text, integers=False):
    """`A,B,...` as a list of numbers: the values themselves, searched as
    a keras-tuner Choice (`tuning.hypermodel.Values`)."""
    try:
        values = [
            _numbers(flag, part.strip(), (1,))[0]
            for part in text.split(",")
            if part.strip()
        ]
    except harness.UsageError:
        values = []
    if not values:
        raise harness.UsageError(
            f"{flag} must be finite numbers A,B,...; received {text!r}"
        )
    if integers and not all(isinstance(v, int) for v in values):
        raise harness.UsageError(
            f"{flag} must be integers A,B,...; received {text!r}"
        )
    return values


def project_dir(options, config):
    name = options.project_name or (
        f"{options.task}-{config.dataset}".replace(":", "-")
        + ("-budget" if options.budget_params else "")
    )
    return pathlib.Path(options.directory) / name


def stamp_of(options, config):
    """What identifies a search: every setting but the run-only ones."""
    search = {
        k: v
        for k, v in dataclasses.asdict(options).items()
        if k not in RUN_ONLY
    }
    # The same search however it is spelled.
    search["search"] = sorted({s.strip() for s in options.search.split(",")})
    search["budget_params"] = parse_budget(options.budget_params)
    search["range"] = sorted(options.range)
    recipe = {
        k: v for k, v in dataclasses.asdict(config).items() if k not in SKIPPED
    }
    return json.loads(json.dumps({"search": search, "recipe": recipe}))


def check_project(project, stamp, overwrite):
    """Refuses a project folder that holds another search (`search.json`
    differs, or a keras-tuner project without one); with `overwrite`,
    deletes what the folder holds instead (but the lock of this job)."""
    if overwrite and project.exists():
        rundir.empty_folder(project)
    path = project / STAMP
    if path.is_file():
        old = json.loads(path.read_text())
        differences = flags.differences(
            *(
                (f"{part}.", old.get(part, {}), stamp[part])
                for part in ("search", "recipe")
            )
        )
        if differences:
            raise harness.UsageError(
                f"{project} holds a different search ({differences}); use "
                "another --project-name, or --overwrite to replace it"
            )
        return
    if (project / "oracle.json").exists():
        raise harness.UsageError(
            f"{project} holds a keras-tuner project not started by "
            "tuning.search; use another --project-name, or --overwrite"
        )


def write_stamp(project, stamp):
    """Marks the folder as this search's, once its settings are valid."""
    project.mkdir(parents=True, exist_ok=True)
    if not (project / STAMP).is_file():
        files.write_json(project / STAMP, stamp)


def check(options, config):
    """Refuses bad search flags before any data is read."""
    flags.check_choice("tuner", options.tuner, TUNERS)
    directory = pathlib.Path(options.directory)
    for folder in (directory, *directory.parents):
        if folder.exists():
            if not folder.is_dir():
                raise harness.UsageError(
                    f"--directory {options.directory}: {folder} is a file, "
                    "not a folder; name a folder for the search projects"
                )
            break
    epochs = search_epochs(config)
    if options.tuner == "hyperband" and epochs < 2:
        raise harness.UsageError(
            f"--tuner hyperband needs --epochs of 2 or more; received {epochs}"
        )
    flags.check_range("max_trials", options.max_trials, low=0)
    flags.check_range("workers", options.workers, low=1)
    flags.check_range("max_retries", options.max_retries, low=0)
    flags.check_range("chief_timeout", options.chief_timeout, low=1)
    flags.check_range("timeout", options.timeout, low=0)


def make_hypermodel(problem, options):
    config = problem.config
    if config.model:
        # A variant leaves its stack settings at None ("the variant's"),
        # which are no baseline values for the hypermodel's space.
        raise harness.UsageError(
            f"--model {config.model}: a search builds zoo.stacked_rnn "
            "stacks from the stack flags (--cell, --units, ...), not a "
            "registered backbone; leave --model out"
        )
    if options.budget_params and (
        getattr(config, "decoder_layers", 0)
        or getattr(config, "decoder_units", 0)
    ):
        raise harness.UsageError(
            "--budget-params sets one depth and width for the encoder and "
            "the decoder; leave --decoder-layers and --decoder-units at 0"
        )
    search = [s.strip() for s in options.search.split(",") if s.strip()]
    if options.budget_params and "units" in search:
        search.remove("units")  # the budget sets the width
    try:
        return tuning.StackedRNNHyperModel(
            problem.recipe,
            config=config,
            state=problem.state,
            search=search,
            ranges=ranges_of(options),
            per_layer_units=options.per_layer_units,
            budget_params=parse_budget(options.budget_params),
            data=problem.data,
            epochs=search_epochs(config),
            name=f"{problem.task}_stack",
        )
    except ValueError as error:
        ranged = {
            item.partition("=")[0].strip().replace("-", "_")
            for item in options.range
        }
        raise harness.UsageError(_flags(str(error), ranged)) from None


def _flags(message, ranged=()):
    """The hypermodel's argument names as this command's flags; a name in
    `ranged` was given by `--range NAME=...` (which wins over `--cells`,
    `--layers` and `--widths`)."""
    for old, new in (
        ("`budget_params`", "--budget-params"),
        ("`search`", "--search"),
        ("`ranges['cell']`", "--cells"),
        ("`ranges['num_layers']`", "--layers"),
        ("`ranges['units']`", "--widths"),
    ):
        if old.startswith("`ranges[") and old[9:-3] in ranged:
            continue  # `--range NAME` below
        message = message.replace(old, new)
    message = message.replace("`ranges` has unknown", "--range has unknown")
    return re.sub(r"`ranges\['(\w+)'\]`", r"--range \1", message).rstrip(".")


def make_tuner(options, hypermodel, problem, project, epochs):
    shared = dict(
        objective=problem.objective,
        directory=str(project.parent),
        project_name=project.name,
        seed=problem.config.seed,
        max_retries_per_trial=options.max_retries,
        max_consecutive_failed_trials=3,
        overwrite=False,
    )
    if options.tuner == "hyperband":
        return tuners.Hyperband(
            hypermodel, max_epochs=epochs, factor=3, **shared
        )
    if options.tuner == "grid":
        # Every combination of the searched values once (in keras-tuner's
        # order), or the first --max-trials of them.
        return tuners.GridSearch(
            hypermodel, max_trials=options.max_trials or None, **shared
        )
    cls = (
        tuners.RandomSearch
        if options.tuner == "random"
        else tuners.BayesianOptimization
    )
    return cls(hypermodel, max_trials=options.max_trials or 10, **shared)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    options, config, _ = parse(argv)
    check(options, config)
    project = project_dir(options, config)
    harness.errors.writes_to(project)  # a rerun resumes the search
    stamp = stamp_of(options, config)
    # One search per project: the job that owns it (a standalone search,
    # or the launcher of a --distributed one, whose chief and tuners are
    # part of the same job) locks it for as long as it runs.
    role = "launcher" if options.distributed else distributed.role()
    lock = None
    if role in ("launcher", "standalone"):
        lock = rundir.FolderLock(project, flag="--project-name").acquire()
    try:
        result = _main(argv, options, config, project, stamp, role)
    except BaseException:
        if lock is not None:  # a refused search leaves no new folder
            lock.release(remove=lock.created)
        raise
    if lock is not None:
        lock.release()
    return result


def _main(argv, options, config, project, stamp, role):
    if options.distributed:
        check_project(project, stamp, options.overwrite)
        # The children run the same search; this process has done the
        # --overwrite, and writes the report once they are done.
        child = [a for a in argv if a not in ("--distributed", "--overwrite")]
        code = distributed.launch(
            child + ["--no-report"],
            options.workers,
            chief_timeout=options.chief_timeout,
            timeout=options.timeout,
        )
        if code == 2:
            raise harness.UsageError(
                "the search stopped on a user error (see the [chief] or "
                "[tunerN] lines above)"
            )
        if code != 0:
            raise SystemExit(code)
        if options.report:
            return finish(options, config, project, stamp, report_only=True)
        return None
    if role == "worker":
        distributed.chief_watchdog(options.chief_timeout)
    else:
        check_project(project, stamp, options.overwrite)
    distributed.launcher_watchdog()
    return finish(options, config, project, stamp, role=role)


def finish(
    options, config, project, stamp, role="standalone", report_only=False
):
    keras.utils.set_random_seed(config.seed)
    problem = problem_for(options.task, config)
    hypermodel = make_hypermodel(problem, options)
    epochs = search_epochs(config)
    if role != "worker":
        write_stamp(project, stamp)
        # keras-tuner reloads a project only when this process's own
        # `<tuner id>.json` exists; a search started in another mode
        # (standalone, chief, a worker that never finished a trial) has
        # the oracle's state but not that file.
        tuner_id = os.environ.get(distributed.ENV_ID, "tuner0")
        own = project / f"{tuner_id}.json"
        if (project / "oracle.json").is_file() and not own.is_file():
            own.write_text("{}")
    tuner = make_tuner(options, hypermodel, problem, project, epochs)
    failure = None
    if not report_only:
        failure = run_search(tuner, problem, config, epochs)
    if role == "worker" or not options.report:
        if failure:
            raise harness.UsageError(failure)
        return None
    summary = report.write(
        tuner, hypermodel, problem, parse_budget(options.budget_params)
    )
    if failure:
        raise harness.UsageError(f"{failure} (see {project}/trials.csv)")
    print(
        f"\n{summary['completed']} of {summary['trials']} trials completed; "
        f"written to {summary['project']}: {', '.join(summary['wrote'])}"
    )
    if summary["completed"] == 0:
        raise harness.UsageError(
            f"no trial completed; the error column of {project}/trials.csv "
            "says why"
        )
    best = summary["best"]
    print(
        f"best: trial {best['trial']} (folder trial_{best['trial_id']}), "
        f"{best['num_layers']}-layer "
        f"{best['cell']}, units {best['units']}, {best['params']:,} "
        f"parameters, {summary['objective']} {best['score']:.4f}"
    )
    if "missing" in summary:
        print(f"note: {summary['missing']}")
    return summary


@dataclasses.dataclass
class Problem:
    """A recipe's task as a search needs it: its data prepared once, and
    batched once per batch size; a trial trains exactly the model the
    recipe would train with the trial's settings, on the same batches
    (`tuning.StackedRNNHyperModel` with the task and its `state`)."""

    task: str
    recipe: Recipe
    config: typing.Any
    state: typing.Any  # what recipe.prepare(config) returned
    description: str
    objective: typing.Any  # keras_tuner.Objective
    data: typing.Callable  # batch_size -> (train, validation)
    callbacks: list


def search_epochs(config):
    """The epochs of each trial: `--epochs`, at most 2 with `--quick`."""
    return min(config.epochs, 2) if config.quick else config.epochs


def problem_for(name, config):
    """The `Problem` of recipe `name` (`recipes.<name>.TASK`)."""
    task = RECIPES[name].TASK
    config = dataclasses.replace(config, init_from="")
    task.check(config)
    state = task.prepare(config)
    feed = recipe_distribution.setup("none")
    cache = {}

    def data(batch_size):
        if batch_size not in cache:
            train, dev, _ = task.datasets(config, state, batch_size)
            cache[batch_size] = (feed.dataset(train), feed.dataset(dev))
        return cache[batch_size]

    return Problem(
        task=name,
        recipe=task,
        config=config,
        state=state,
        description=task.run_title(config, state),
        objective=kt.Objective(task.monitor(state), "max"),
        data=data,
        callbacks=task.callbacks(config, state, None),
    )


def search_callbacks(problem, config):
    """Each trial's callbacks: the task's validation metrics, early
    stopping, a NaN guard; with `--ema`, the averaged weights swapped in
    first (`keras.callbacks.SwapEMAWeights`), so that the objective and
    the best epoch keras-tuner keeps are the averages, as in a recipe
    run (`recipes.checkpoints.AveragedWeights`)."""
    averaging = (
        [keras.callbacks.SwapEMAWeights(swap_on_epoch=True)]
        if config.ema
        else []
    )
    return [
        *averaging,
        *problem.callbacks,
        keras.callbacks.EarlyStopping(
            monitor=problem.objective.name,
            mode="max",
            patience=config.patience,
        ),
        keras.callbacks.TerminateOnNaN(),
    ]


def run_search(tuner, problem, config, epochs):
    """Runs the trials; returns `None`, or why keras-tuner gave up."""
    callbacks = search_callbacks(problem, config)
    try:
        tuner.search(
            epochs=epochs,
            callbacks=callbacks,
            shuffle=False,  # the recipes' batches shuffle themselves
            verbose=1 if os.isatty(1) else 2,
        )
    except Exception as error:  # RuntimeError; grpc.RpcError on a worker
        if "consecutive failures" not in str(error):
            raise
        # keras-tuner stops after 3 failed trials in a row; each one's
        # traceback is in its trial folder, its last line in trials.csv.
        lines = [x.strip() for x in str(error).splitlines() if x.strip()]
        head = next(x for x in lines if "consecutive failures" in x)
        return (
            f"the search stopped: {head.rstrip('.')}; the last error: "
            f"{lines[-1]}"
        )
    return None


if __name__ == "__main__":
    harness.run_cli(main)
