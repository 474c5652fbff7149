"""The labelled-data curve: test score against the number of training
labels, with and without a pretrained biLM.

    python benchmarks/label_curve.py runs/curve [--output PNG]
    python benchmarks/label_curve.py runs/curve --train \
        --tasks brown,bbc,wnut16 --percents 1,3,10,30,100 --seeds 0,1,2

Reads every run folder under the given folders (`config.json` and
`metrics.json` of `recipes.tagging` or `recipes.classification`), groups
them by dataset and by `--pretrained` (none, or the biLM's name), and for
each puts the test score (entity F1 for NER, accuracy otherwise) at its
training-set size (`--train-examples`, or the whole split), the mean over
seeds where there are several. Prints one table row per run, then the
means (and standard deviations) over seeds, and writes one panel per
dataset (`--output`, default `docs/inspect/label-curve.png`).

`--train` first trains what is missing into the first folder: for each
task, percentage of the training split and seed, the recipe's own
command (`TASKS`) with `--train-examples N` (a seeded sample; the whole
split at 100) and `--seed`, once with `--pretrained none` and once with
`--pretrained BILM` (`--bilm`, default en_bilm_v2: frozen, ELMo's mix), in
`FOLDER/TASK_SIDE_PERCENT[_sSEED]`. `--jobs` runs at a time, each with
its share of the cores (`harness.processes.thread_env`); a finished run
(its `metrics.json`) is skipped and a killed one resumes (the recipes'
run folders), so a rerun after any kill finishes the job. A run the
recipe refuses because its sample lacks a tag that dev or test has
(`REFUSAL`; the sample holds every such tag where N items can) is
recorded in its folder's `refused.txt` with the recipe's one line and
not retried; any other failure is reported, and a rerun tries again.
Each seed draws its own N-item sample (`--sample-seed SEED`, since
2026-12-05), so the spread over seeds holds the sample's luck as well as
the initial weights', dropout's and the batch order's; curves trained
before then (`--sample-seed` absent from their `config.json`: 0) used
one sample for every seed. Hand-written: a queue of subprocesses, which no
library here does better than a dozen lines.

`--peers` fits each task's classical peer
(`PEERS`, from `benchmarks.baselines`: NLTK's perceptron for Brown, the
feature CRF for WNUT-16, TF-IDF + logistic regression for BBC) on the
very same samples (the recipe's `--train-examples N --sample-seed SEED`
cut), in this process, into `FOLDER/TASK_peer_PERCENT[_sSEED]`; the
table and the figure put the peer's curve beside the recipe's. The
peers are deterministic given their sample, so at 100% (one sample) a
single seed is fitted. A sample the recipe refused is skipped for the
peer too.
"""

import argparse
import collections
import importlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import harness  # noqa: E402
from benchmarks import baselines  # noqa: E402
from harness import files  # noqa: E402
from harness import flags  # noqa: E402
from harness import plots  # noqa: E402
from harness import processes  # noqa: E402
from recipes.data import datasets  # noqa: E402

# Each task's recipe and its documented command's flags (docs/recipes.md),
# and the short name of its run folders.
TASKS = {
    "brown": ("tagging", [], "brown"),
    "wnut16": (
        "tagging",
        ["--dataset", "wnut16", "--no-lowercase", "--epochs", "20"]
        + ["--patience", "4"],
        "wnut",
    ),
    "bbc": ("classification", [], "bbc"),
}


# Each task's classical peer: `(label, benchmarks.baselines function,
# its leading arguments)`; the function takes `train_examples` and
# `sample_seed` as the recipe's flags.
PEERS = {
    "brown": ("NLTK perceptron", "perceptron", ("brown", False)),
    "wnut16": ("feature CRF", "crf", (False,)),
    "bbc": ("TF-IDF + LR", "tfidf", (False,)),
}

# The recipe's line for a sample without a tag that dev or test has.
REFUSAL = "occur in dev/test but not in train"


def train_size(task):
    """The number of items in `task`'s training split."""
    recipe, _, _ = TASKS[task]
    module = importlib.import_module(f"recipes.{recipe}")
    config = module.Config(dataset=task, pretrained="none")
    load = getattr(datasets, f"load_{recipe}")
    return len(load(config).train)


def _name(bilm):
    """A folder-name-safe name of `--bilm` (a preset name or a path)."""
    name = pathlib.Path(bilm.rstrip("/")).name or "bilm"
    return "".join(c if c.isalnum() or c in "-." else "_" for c in name)


def sample_sizes(task, percents):
    """`(percent, N)` for each percentage of `task`'s training split: N
    for `--train-examples` (0: the whole split, at 100)."""
    total = train_size(task)
    return [
        (p, 0 if p >= 100 else max(1, int(total * p / 100 + 0.5)))
        for p in percents
    ]


def point_name(task, side, percent, seed):
    """The folder of one point of the curve: `TASK_SIDE_PERCENT[_sSEED]`
    (`side`: `scratch`, the biLM's name, `peer`, or `*` in a glob)."""
    return f"{TASKS[task][2]}_{side}_{percent:g}" + (
        f"_s{seed}" if seed else ""
    )


def planned(folder, tasks, percents, seeds, bilm):
    """`(name, command)` of each run of the curve, smallest first."""
    jobs = []
    for task in tasks:
        recipe, task_flags, _ = TASKS[task]
        for percent, size in sample_sizes(task, percents):
            for seed in seeds:
                for side in ("none", bilm):
                    label = "scratch" if side == "none" else _name(side)
                    name = point_name(task, label, percent, seed)
                    command = [
                        sys.executable, "-m", f"recipes.{recipe}",
                        *task_flags, "--train-examples", str(size),
                        "--seed", str(seed), "--sample-seed", str(seed),
                        "--pretrained", side,
                        "--output", str(folder / name),
                    ]  # fmt: skip
                    jobs.append((percent, name, command))
    return [(name, command) for _, name, command in sorted(jobs)]


def fit_peers(folder, tasks, percents, seeds):
    """Fits each task's peer (`PEERS`) on the samples of the curve that
    have no result yet, writing a run-like `config.json` and
    `metrics.json` per point (`metrics.json` last: a point is done once
    it exists)."""
    for task in tasks:
        label, function, leading = PEERS[task]
        for percent, size in sample_sizes(task, percents):
            for seed in seeds[:1] if not size else seeds:
                name = point_name(task, "peer", percent, seed)
                out = folder / name
                if (out / "metrics.json").exists():
                    continue
                pattern = point_name(task, "*", percent, seed)
                if any(folder.glob(f"{pattern}/refused.txt")):
                    print(f"skipped {name}: the recipe refused its sample")
                    continue
                start = time.perf_counter()
                result = getattr(baselines, function)(
                    *leading, train_examples=size, sample_seed=seed
                )
                split = result["split"]
                unit = "sentences" if "sentences" in split else "examples"
                config = {
                    "dataset": task, "peer": label, "seed": seed,
                    "sample_seed": seed, "train_examples": size,
                    "baseline": result["baseline"],
                }  # fmt: skip
                metrics = {
                    f"split_{unit}": split[unit],
                    **result["scores"],
                    "train_seconds": result["train_seconds"],
                    "printed": [result["line"]],
                }  # fmt: skip
                out.mkdir(parents=True, exist_ok=True)
                files.write_json(out / "config.json", config)
                files.write_json(out / "metrics.json", metrics)
                print(
                    f"fitted {name} in {time.perf_counter() - start:.0f} s: "
                    f"{result['line']}",
                    flush=True,
                )


def _numbers(name, text, kind):
    """`--NAME`'s comma-separated numbers, or one line naming it."""
    try:
        return [kind(part) for part in text.split(",")]
    except ValueError:
        raise harness.UsageError(
            f"--{name}: received {text!r}; give comma-separated "
            f"{'integers' if kind is int else 'numbers'}, e.g. 1,3,10"
        ) from None


def train(folder, tasks, percents, seeds, bilm, jobs):
    """Runs what is missing of the curve, `jobs` at a time."""
    folder.mkdir(parents=True, exist_ok=True)
    todo = [
        (name, command)
        for name, command in planned(folder, tasks, percents, seeds, bilm)
        if not (folder / name / "metrics.json").exists()
        and not (folder / name / "refused.txt").exists()
    ]
    env = {**os.environ, **processes.thread_env(jobs)}
    print(
        f"{len(todo)} runs to train in {folder}, {jobs} at a time", flush=True
    )
    running = {}
    while todo or running:
        while todo and len(running) < jobs:
            name, command = todo.pop(0)
            # Both streams into the log (a pipe read only at the end would
            # block a child that writes more than its buffer); the
            # recipe's one-line refusal is its last `error: ` line.
            log_path = folder / f"{name}.log"
            offset = log_path.stat().st_size if log_path.exists() else 0
            with log_path.open("a") as log:
                process = subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, env=env
                )
            running[name] = (process, log_path, offset, time.perf_counter())
            print(f"started {name}: {' '.join(command[1:])}", flush=True)
        time.sleep(2)
        for name, (process, log_path, offset, started) in list(running.items()):
            if process.poll() is None:
                continue
            del running[name]
            seconds = time.perf_counter() - started
            with log_path.open("rb") as log:
                log.seek(offset)  # this attempt's lines only
                lines = log.read().decode(errors="replace").splitlines()
            refusal = next(
                (
                    line
                    for line in reversed(lines)
                    if line.startswith("error: ")
                ),
                None,
            )
            # Only the sample's own refusal is final; any other exit 2 (a
            # fetch that failed, a folder still locked) is retried.
            if process.returncode == 2 and refusal and REFUSAL in refusal:
                (folder / name).mkdir(exist_ok=True)
                (folder / name / "refused.txt").write_text(refusal + "\n")
                print(f"refused {name}: {refusal}", flush=True)
            elif process.returncode:
                print(
                    f"failed {name} (exit {process.returncode}, "
                    f"{log_path}); a rerun resumes it",
                    flush=True,
                )
            else:
                print(f"finished {name} in {seconds:.0f} s", flush=True)


def _read_run(folder):
    """`(config, metrics)` of a finished tagging or classification run,
    or a `harness.UsageError` naming the folder and what is wrong (a
    damaged file, a run of another recipe)."""
    read = {}
    for name in ("config.json", "metrics.json"):
        path = folder / name
        try:
            read[name] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError) as error:
            raise harness.UsageError(
                f"{path}: not a readable JSON file ({error})"
            ) from None
        if not isinstance(read[name], dict):
            raise harness.UsageError(f"{path}: not a JSON object")
    config, metrics = read["config.json"], read["metrics.json"]
    sizes = metrics.get("split_sentences") or metrics.get("split_examples")
    score = metrics.get("test_f1", metrics.get("test_accuracy"))
    if (
        not isinstance(sizes, dict)
        or not isinstance(sizes.get("train"), int)
        or not isinstance(score, (int, float))
        or not isinstance(config.get("dataset"), str)
    ):
        raise harness.UsageError(
            f"{folder}: not a finished run of recipes.tagging or "
            "recipes.classification (no test score or training size)"
        )
    return config, metrics


def runs(folders):
    """`(dataset, pretrained, train size, seed, score name, score)` of
    every finished run under `folders`."""
    found = []
    for folder in folders:
        for metrics_path in sorted(pathlib.Path(folder).glob("*/metrics.json")):
            config, metrics = _read_run(metrics_path.parent)
            if "test_f1" in metrics:
                name, score = "entity F1", metrics["test_f1"]
            else:
                name, score = "accuracy", metrics["test_accuracy"]
            sizes = metrics.get("split_sentences") or metrics.get(
                "split_examples"
            )
            side = config.get("peer")
            side = f"peer: {side}" if side else None
            found.append(
                (
                    config["dataset"],
                    side or config.get("pretrained") or "none",
                    sizes["train"],
                    config.get("seed", 0),
                    name,
                    score,
                    metrics_path.parent.name,
                )
            )
    return found


def _stats(points):
    """`{training items: (mean, sd, seeds)}` of `(size, score)` points
    (sd 0 for one seed)."""
    by_size = collections.defaultdict(list)
    for size, score in points:
        by_size[size].append(score)
    return {
        size: (
            statistics.mean(scores),
            statistics.stdev(scores) if len(scores) > 1 else 0,
            len(scores),
        )
        for size, scores in by_size.items()
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--output", default="docs/inspect/label-curve.png")
    parser.add_argument(
        "--train", action="store_true", help="train the missing runs first"
    )
    parser.add_argument("--tasks", default="brown,bbc,wnut16")
    parser.add_argument("--percents", default="1,3,10,30,100")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--bilm", default="en_bilm_v2")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--peers",
        action="store_true",
        help="fit each task's classical peer on the samples the runs of "
        "--tasks, --percents and --seeds have (with or without --train)",
    )
    args = parser.parse_args(argv)
    if args.train or args.peers:
        tasks = args.tasks.split(",")
        for task in tasks:
            flags.check_choice("tasks", task, tuple(TASKS))
        percents = _numbers("percents", args.percents, float)
        for percent in percents:
            flags.check_range("percents", percent, low=0.01, high=100)
        seeds = _numbers("seeds", args.seeds, int)
        flags.check_range("jobs", args.jobs, low=1)
    if args.train:
        train(
            pathlib.Path(args.folders[0]),
            tasks,
            percents,
            seeds,
            args.bilm,
            args.jobs,
        )
    if args.peers:
        fit_peers(pathlib.Path(args.folders[0]), tasks, percents, seeds)
    found = runs(args.folders)
    if not found:
        print(f"no finished runs under {', '.join(args.folders)}")
        return 2
    print("| run | dataset | pretrained | training items | seed | score |")
    print("|---|---|---|---|---|---|")
    curves = collections.defaultdict(lambda: collections.defaultdict(list))
    names = {}
    for dataset, pretrained, size, seed, name, score, run in sorted(found):
        print(
            f"| {run} | {dataset} | {pretrained} | {size:,} | {seed} | "
            f"{name} {score:.4f} |"
        )
        curves[dataset][pretrained].append((size, score))
        names[dataset] = name
    print()
    print("Means over seeds (± standard deviation; n: seeds), side by side:")
    stats = {
        dataset: {p: _stats(points) for p, points in sides.items()}
        for dataset, sides in curves.items()
    }
    for dataset, sides in sorted(stats.items()):
        others = sorted(p for p in sides if p != "none")
        columns = ["none", *others] if "none" in sides else others
        heads = ["from scratch" if p == "none" else p for p in columns]
        print()
        print(f"| {dataset}: training items | " + " | ".join(heads) + " |")
        print("|---" * (len(columns) + 1) + "|")
        for size in sorted({size for p in columns for size in sides[p]}):
            cells = [
                "{:.4f} ± {:.4f} (n={})".format(*sides[p][size])
                if size in sides[p]
                else "-"
                for p in columns
            ]
            print(f"| {size:,} | " + " | ".join(cells) + " |")
    plt = plots.pyplot()
    fig, axes = plt.subplots(
        1, len(curves), figsize=(4 * len(curves), 3.4), squeeze=False
    )
    for axis, (dataset, sides) in zip(axes[0], sorted(stats.items())):
        for pretrained, by_size in sorted(sides.items()):
            xs = sorted(by_size)
            ys = [by_size[x][0] for x in xs]
            spread = [by_size[x][1] for x in xs]
            label = "from scratch" if pretrained == "none" else pretrained
            axis.errorbar(
                xs, ys, yerr=spread, marker="o", capsize=3, label=label
            )
        axis.set_xscale("log")
        axis.set_xlabel("training items (log)")
        axis.set_ylabel(f"test {names[dataset]}")
        axis.set_title(dataset)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    fig.tight_layout()
    output = pathlib.Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    plt.close(fig)
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(harness.run_cli(main))
