"""The stacked-RNN claims, tested on a recipe's real data: depth with and
without residuals, and depth against width at a fixed parameter budget.

    python -m diagnostics study depth --task seq2seq --quick
    python -m diagnostics study depth --task tagging \\
        --depths 1,2,3,4,6,8 --seeds 0,1,2 --variants plain,residual,highway \\
        --epochs 8 --train-examples 3000 --units 64
    python -m diagnostics study budget --task classification \\
        --budgets 50k,200k --depths 1,2,3,4,6 --seeds 0,1,2

Each study is a set of `tuning.search` grid searches (`--tuner grid`), one
per variant (`depth`: plain, residual, highway stacks) or per budget
(`budget`: `--budget-params`, the width from `zoo.width_for_budget`), each
trying every depth in `--depths` with every seed in `--seeds` (the seed
sets the initial weights and dropout masks; the data order is the
recipe's). A trial trains exactly the model that `python -m recipes.TASK`
would train with the same flags, early-stopped on the recipe's validation
objective; every other flag (`--units`, `--epochs`, `--train-examples`,
`--cell`, ...) goes to the recipe as it does in `tuning.search`; a
budget study also takes the stack's `--residual` / `--highway` (the
recipe's default otherwise), which the depth study sets per variant.

Its score is keras-tuner's: the best validation objective of its epochs
(`val_accuracy` for POS tagging and teacher-forced G2P, `val_macro_f1`
for classification). Written to `--output`:

- `searches/GROUP/`: the keras-tuner projects (each resumes where it
  stopped: rerun the same command after a kill);
- `trials.csv` / `.json`: one row per trial (group, depth, seed, width,
  parameters, score, epochs, seconds);
- `summary.json`: per group and depth the mean, standard deviation, min
  and max of the score over seeds, the best depth and the *ceiling* (the
  deepest depth whose mean is within one standard deviation of the best
  mean, i.e. where depth stops helping), with the command;
- `study.png`: score against depth per group (mean, with error bars of
  one standard deviation over seeds) and the validation loss per epoch
  by depth (mean over seeds), one panel per group.

`--quick` is a smoke run for the tests: the recipe's `--quick` subset and
epochs, depths 1,2 (`depth`) with seeds 0,1 and two groups.

    python -m diagnostics study merge runs/study/depth-seq2seq \
        runs/study/depth-seq2seq-8 --output runs/study/depth-seq2seq-all

puts finished studies of one kind and task, run with the same recipe
flags (depths, seeds and groups aside), into one table, summary and plot:
depths added later get the figure of the whole study. A trial (group,
depth, seed) that two of them ran is refused, as are studies trained
differently.
"""

import dataclasses
import json
import pathlib
import shlex
import statistics
import sys

import keras

import harness
from diagnostics import _shared
from harness import files
from harness import flags
from harness import plots
from tuning import search

KINDS = ("depth", "budget")
VARIANTS = {
    "plain": ["--no-residual", "--no-highway"],
    "residual": ["--residual", "--no-highway"],
    "highway": ["--no-residual", "--highway"],
}
# What the study sets in each search itself.
OWN_FLAGS = (
    "--tuner",
    "--search",
    "--layers",
    "--range",
    "--directory",
    "--project-name",
    "--budget-params",
    "--max-trials",
    "--distributed",
    "--overwrite",
    # The recipe's own, which every trial's searched values replace.
    "--seed",
    "--num-layers",
)
# What the depth study sets per variant; a budget study passes them on
# (`--residual` for residual stacks at every width).
VARIANT_FLAGS = ("--residual", "--no-residual", "--highway", "--no-highway")
DEFAULTS = {
    "depth": {"depths": "1,2,3,4,6,8", "groups": "plain,residual"},
    "budget": {"depths": "1,2,3,4,6", "groups": "50k,200k"},
}
QUICK = {
    "depth": {"depths": "1,2", "seeds": "0,1", "groups": "plain,residual"},
    "budget": {"depths": "1,2", "seeds": "0,1", "groups": "20k,40k"},
}


def parse(argv):
    parser = flags.ArgumentParser(
        prog="python -m diagnostics study",
        description=flags.describe(__doc__),
        allow_abbrev=False,  # --seed is the recipe's, not --seeds
        epilog="Every other flag goes to each trial's recipe, as in "
        "python -m tuning.search (see its --help).",
    )
    parser.add_argument(
        "kind",
        help="the study: "
        + ", ".join(KINDS)
        + " (or merge FOLDER... --output OUT: finished studies in one)",
    )
    parser.add_argument(
        "--task",
        default="tagging",
        help="the recipe: tagging, classification, seq2seq or translation "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--depths",
        help="comma-separated depths (default: 1,2,3,4,6,8 for depth, "
        "1,2,3,4,6 for budget)",
    )
    parser.add_argument(
        "--seeds",
        default="0,1,2",
        help="comma-separated seeds (default: 0,1,2)",
    )
    parser.add_argument(
        "--variants",
        help="depth: comma-separated stacks from "
        + ", ".join(VARIANTS)
        + " (default: plain,residual)",
    )
    parser.add_argument(
        "--budgets",
        help="budget: comma-separated parameter budgets of the recurrent "
        "stack(s), e.g. 50k,200k (default: 50k,200k)",
    )
    parser.add_argument(
        "--output", help="the study's folder (default: runs/study/KIND-TASK)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: the recipe's --quick data and epochs, 2 depths, "
        "2 seeds",
    )
    args, rest = parser.parse_known_args(argv)
    if args.kind not in KINDS:
        raise harness.UsageError(
            f"the study must be one of {', '.join(KINDS)} (or merge); "
            f"received {args.kind!r}"
        )
    own = OWN_FLAGS + (VARIANT_FLAGS if args.kind == "depth" else ())
    mine = [f for f in rest if f.split("=")[0] in own]
    if mine:
        raise harness.UsageError(
            f"{mine[0].split('=')[0]} is set by the study itself; use "
            "--depths, --seeds, --variants or --budgets"
        )
    if args.kind == "depth" and args.budgets:
        raise harness.UsageError("--budgets is for the budget study")
    if args.kind == "budget" and args.variants:
        raise harness.UsageError("--variants is for the depth study")
    preset = QUICK[args.kind] if args.quick else DEFAULTS[args.kind]
    args.depths = args.depths or preset["depths"]
    if args.quick and args.seeds == "0,1,2":
        args.seeds = preset["seeds"]
    groups = args.variants if args.kind == "depth" else args.budgets
    args.groups = groups or preset["groups"]
    args.output = args.output or f"runs/study/{args.kind}-{args.task}"
    if args.quick:
        rest = [*rest, "--quick"]
    given = {f.split("=")[0] for f in rest}
    if (
        args.task in ("tagging", "classification")
        and "--pretrained" not in given
    ):
        # A study measures the stack: without the biLM that the recipes'
        # `--pretrained auto` adds on some data, unless asked for.
        rest = [*rest, "--pretrained", "none"]
    return args, rest


def _integers(flag, text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 0 or len(set(values)) != len(values):
        raise harness.UsageError(
            f"{flag} must be distinct integers A,B,... (>= 0); received "
            f"{text!r}"
        )
    return values


def plan(args):
    """`{group: search flags}`: one grid search per group."""
    depths = _integers("--depths", args.depths)
    if min(depths) < 1:
        raise harness.UsageError(f"--depths must be >= 1; received {depths}")
    seeds = _integers("--seeds", args.seeds)
    for seed in seeds:
        flags.check_seed("seeds", seed)
    names = [g.strip() for g in args.groups.split(",") if g.strip()]
    if not names or len(set(names)) != len(names):
        flag = "--variants" if args.kind == "depth" else "--budgets"
        raise harness.UsageError(
            f"{flag} must name distinct groups; received {args.groups!r}"
        )
    grid = [
        "--task",
        args.task,
        "--tuner",
        "grid",
        "--search",
        "num_layers,seed",
        "--layers",
        ",".join(map(str, depths)) + ("," if len(depths) == 1 else ""),
        "--range",
        "seed=" + ",".join(map(str, seeds)) + ("," if len(seeds) == 1 else ""),
        "--directory",
        str(pathlib.Path(args.output) / "searches"),
    ]
    searches = {}
    for name in names:
        if args.kind == "depth":
            if name not in VARIANTS:
                raise harness.UsageError(
                    f"--variants must be some of {', '.join(VARIANTS)}; "
                    f"received {name!r}"
                )
            extra = VARIANTS[name]
        else:
            try:
                search.parse_budget(name)
            except harness.UsageError:
                raise harness.UsageError(
                    "--budgets must be parameter counts such as 50000, 50k "
                    f"or 1.2M; received {name!r}"
                ) from None
            extra = ["--budget-params", name]
        searches[name] = [*grid, "--project-name", name, *extra]
    return searches, depths, seeds


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["merge"]:
        return merge(argv[1:])
    args, rest = parse(argv)
    searches, depths, seeds = plan(args)
    output = pathlib.Path(args.output)
    lock = _shared.lock_output(output)
    try:
        for number, (name, words) in enumerate(searches.items(), 1):
            print(
                f"\n== {args.kind} study, {args.task}: {name} "
                f"({number} of {len(searches)}; depths "
                f"{','.join(map(str, depths))} x seeds "
                f"{','.join(map(str, seeds))}) ==",
                flush=True,
            )
            search.main([*words, *rest])
        rows, curves = collect(output / "searches", list(searches))
        summary = summarise(rows, args, argv)
        return write(rows, curves, summary, output)
    finally:
        lock.release()


def write(rows, curves, summary, output):
    """Writes a study's table, curves, summary and plot; prints the
    summary."""
    files.write_rows(
        rows,
        output,
        "trials",
        columns=("group", "depth", "seed", "width", "score"),
    )
    files.write_json(output / "curves.json", curves)
    files.write_json(output / "summary.json", summary)
    plot(rows, curves, summary, output / "study.png")
    for group, info in summary["groups"].items():
        print(
            f"{group:>9}: best depth {info['best_depth']} "
            f"({info['best_mean']:.4f}), ceiling {info['ceiling']}; "
            + ", ".join(
                f"L{d['depth']} {d['mean']:.4f}±{d['std']:.4f}"
                for d in info["depths"]
            )
        )
    print(f"wrote {output}/study.png, trials.csv, summary.json")
    return summary


def merge(argv):
    """`study merge FOLDER... --output OUT`: finished studies in one."""
    parser = flags.ArgumentParser(
        prog="python -m diagnostics study merge",
        description="Finished studies of one kind and task, trained with "
        "the same recipe settings, in one table, summary and plot.",
        allow_abbrev=False,
    )
    parser.add_argument(
        "folders", nargs="+", help="the studies' --output folders"
    )
    parser.add_argument("--output", required=True, help="the merged study")
    args = parser.parse_args(argv)
    output = pathlib.Path(args.output)
    if any(output.resolve() == pathlib.Path(f).resolve() for f in args.folders):
        raise harness.UsageError(
            f"--output {output} is one of the studies merged; write the "
            "merged study to a folder of its own"
        )
    if (output / "searches").exists() or (
        (output / "summary.json").is_file()
        and "sources" not in _read(output / "summary.json")
    ):
        raise harness.UsageError(
            f"--output {output} holds a study that trained; write the "
            "merged study to a folder of its own"
        )
    rows, curves, sources, backends, first = [], [], [], set(), None
    seen = {}
    for folder in map(pathlib.Path, args.folders):
        parts = {}
        for name in ("summary", "trials", "curves"):
            path = folder / f"{name}.json"
            if not path.is_file():
                raise harness.UsageError(
                    f"{folder} is not a finished study: it has no {path.name}"
                )
            parts[name] = _read(path)
        if not parts["trials"]:
            raise harness.UsageError(f"{folder}/trials.json holds no trial")
        summary = parts["summary"]
        backends.add(summary.get("backend"))
        # A merged study's own sources, or the one command that ran it.
        for command in summary.get("sources") or [summary.get("command")]:
            own, trained = _trained(folder, command)
            if first is None:
                first = (folder, own, trained)
            differences = flags.differences(
                ("", trained, first[2]), here_name=f"in {first[0]}"
            )
            if differences:
                raise harness.UsageError(
                    f"{folder} was trained otherwise ({differences}): merge "
                    "only studies of one kind and task trained with the same "
                    "settings (depths, seeds and groups aside)"
                )
            sources.append(command)
        if len(backends - {None}) > 1:
            raise harness.UsageError(
                f"{folder} ran on another backend than the studies before "
                f"it ({', '.join(sorted(backends - {None}))}): merge studies "
                "of one backend"
            )
        for row in parts["trials"]:
            cell = (row["group"], row["depth"], row["seed"])
            if cell in seen:
                raise harness.UsageError(
                    f"{seen[cell]} and {folder} both trained {cell[0]} at "
                    f"depth {cell[1]}, seed {cell[2]}; merge each trial once"
                )
            seen[cell] = folder
            rows.append({**row, "source": row.get("source", str(folder))})
        curves += parts["curves"]
    order = {
        g: i for i, g in enumerate(dict.fromkeys(r["group"] for r in rows))
    }

    def key(item):
        return order[item["group"]], item["depth"], item["seed"]

    rows.sort(key=key)
    curves.sort(key=key)
    summary = summarise(rows, first[1], ["merge", *argv])
    known = backends - {None}
    summary["backend"] = known.pop() if known else None
    summary["sources"] = sources
    lock = _shared.lock_output(output)
    try:
        return write(rows, curves, summary, output)
    finally:
        lock.release()


def _read(path):
    """A JSON file of a study, or a one-line error naming it."""
    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError) as error:
        raise harness.UsageError(f"{path}: unreadable ({error})") from None


def _trained(folder, command):
    """`(study args, settings)` of the study `command` ran: its kind and
    task and every recipe setting its trials shared, defaults filled in
    (`tuning.search.parse`), the ones a depth study sets per variant
    left out."""
    try:
        words = shlex.split(command or "")
    except ValueError:
        words = []
    if words[:4] != ["python", "-m", "diagnostics", "study"]:
        raise harness.UsageError(
            f"{folder}/summary.json: its command is not a study's; "
            f"received {command!r}"
        )
    own, rest = parse(words[4:])
    _, config, _ = search.parse(["--task", own.task, *rest])
    variant = ("residual", "highway") if own.kind == "depth" else ()
    settings = {
        key: value
        for key, value in dataclasses.asdict(config).items()
        if key not in search.SKIPPED + variant
    }
    return own, {"study": own.kind, "task": own.task, **settings}


def collect(folder, groups):
    """Per-trial rows and validation-loss curves from the grid searches'
    keras-tuner projects (`trial_*/trial.json`: its values, score and
    per-epoch metrics)."""
    rows, curves = [], []
    for group in groups:
        project = folder / group
        for path in sorted(project.glob("trial_*/trial.json")):
            trial = json.loads(path.read_text())
            logged = path.parent / "history.json"
            if trial.get("status") != "COMPLETED" or not logged.is_file():
                continue
            values = trial["hyperparameters"]["values"]
            logged = json.loads(logged.read_text())
            objective = logged["objective"]
            epochs = logged["executions"][0]

            def history(name, epochs=epochs):
                return epochs.get(name, [])

            last = {
                name: (history(name) or [None])[-1]
                for name in ("width", "params", "stack_params", "train_seconds")
            }
            rows.append(
                {
                    "group": group,
                    "depth": int(values["num_layers"]),
                    "seed": int(values["seed"]),
                    "width": last["width"],
                    "params": last["params"],
                    "stack_params": last["stack_params"],
                    "score": trial["score"],
                    "objective": objective,
                    "epochs": len(history("loss")),
                    "train_seconds": last["train_seconds"],
                    "trial": f"{group}/{path.parent.name}",
                }
            )
            curves.append(
                {
                    "group": group,
                    "depth": int(values["num_layers"]),
                    "seed": int(values["seed"]),
                    "loss": history("loss"),
                    "val_loss": history("val_loss"),
                    objective: history(objective),
                }
            )
    if not rows:
        raise harness.UsageError(
            f"no trial of {folder} completed; see the searches' trials.csv"
        )
    return rows, curves


def summarise(rows, args, argv):
    groups = {}
    for group in dict.fromkeys(r["group"] for r in rows):
        per_depth = []
        for depth in sorted({r["depth"] for r in rows if r["group"] == group}):
            scores = [
                r["score"]
                for r in rows
                if r["group"] == group and r["depth"] == depth
            ]
            widths = {
                r["width"]
                for r in rows
                if r["group"] == group and r["depth"] == depth
            }
            per_depth.append(
                {
                    "depth": depth,
                    "mean": round(statistics.fmean(scores), 4),
                    "std": round(
                        statistics.stdev(scores) if len(scores) > 1 else 0.0, 4
                    ),
                    "min": round(min(scores), 4),
                    "max": round(max(scores), 4),
                    "seeds": len(scores),
                    "width": sorted(w for w in widths if w is not None),
                }
            )
        best = max(per_depth, key=lambda d: d["mean"])
        ceiling = max(
            d["depth"]
            for d in per_depth
            if d["mean"] >= best["mean"] - max(best["std"], 1e-9)
        )
        groups[group] = {
            "depths": per_depth,
            "best_depth": best["depth"],
            "best_mean": best["mean"],
            "ceiling": ceiling,
        }
    return {
        "study": args.kind,
        "task": args.task,
        "objective": rows[0]["objective"],
        "command": "python -m diagnostics study " + shlex.join(argv),
        "backend": keras.backend.backend(),
        "quick": args.quick,
        "groups": groups,
        "ceiling_rule": "the deepest depth whose mean score is within one "
        "standard deviation (over seeds) of the best depth's mean",
    }


def plot(rows, curves, summary, path):
    plt = plots.pyplot()

    groups = list(summary["groups"])
    fig, axes = plt.subplots(
        1, 1 + len(groups), figsize=(4.2 * (1 + len(groups)), 3.8)
    )
    ax = axes[0]
    for index, group in enumerate(groups):
        info = summary["groups"][group]["depths"]
        ax.errorbar(
            [d["depth"] for d in info],
            [d["mean"] for d in info],
            yerr=[d["std"] for d in info],
            marker="o",
            capsize=3,
            color=f"C{index}",
            label=group,
        )
    ax.set_xlabel("depth (layers)")
    ax.set_ylabel(f"{summary['objective']} (mean ± sd over seeds)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_xticks(sorted({r["depth"] for r in rows}))
    depths = sorted({c["depth"] for c in curves})
    colours = plt.get_cmap("viridis")
    for ax, group in zip(axes[1:], groups):
        for index, depth in enumerate(depths):
            runs = [
                c["val_loss"]
                for c in curves
                if c["group"] == group and c["depth"] == depth and c["val_loss"]
            ]
            if not runs:
                continue
            # Early stopping ends some runs sooner: each epoch's mean is
            # over the seeds that reached it.
            length = max(len(r) for r in runs)
            mean = [
                statistics.fmean(r[i] for r in runs if len(r) > i)
                for i in range(length)
            ]
            ax.plot(
                range(1, length + 1),
                mean,
                color=colours(index / max(len(depths) - 1, 1)),
                label=f"L={depth}",
                marker="o" if length == 1 else None,  # one epoch: a point
            )
        ax.set_title(f"{group}: validation loss", fontsize=9)
        ax.set_xlabel("epoch")
        plots.integer_ticks(ax.xaxis)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    title = f"{summary['study']} study, {summary['task']}" + (
        " (--quick: a smoke run)" if summary["quick"] else ""
    )
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
