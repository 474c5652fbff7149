"""The labelled-data curve from finished recipe runs: test score against
the number of training labels, with and without a pretrained biLM.

    python benchmarks/label_curve.py runs/curve [--output PNG]

Reads every run folder under the given folders (`config.json` and
`metrics.json` of `recipes.tagging` or `recipes.classification`), groups
them by dataset and by `--pretrained` (none, or the biLM's name), and for
each puts the test score (entity F1 for NER, accuracy otherwise) at its
training-set size (`--train-examples`, or the whole split), the mean over
seeds where there are several. Prints one table row per run and writes
one panel per dataset (`--output`, default
`docs/inspect/label-curve.png`). The runs themselves are the recipes'
own commands with `--train-examples N` (a seeded sample of the training
split) and, for the pretrained side, `--pretrained en_bilm`; this script
trains nothing.
"""

import argparse
import collections
import json
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from harness import plots  # noqa: E402


def runs(folders):
    """`(dataset, pretrained, train size, seed, score name, score)` of
    every finished run under `folders`."""
    found = []
    for folder in folders:
        for metrics_path in sorted(pathlib.Path(folder).glob("*/metrics.json")):
            config = json.loads(
                (metrics_path.parent / "config.json").read_text()
            )
            metrics = json.loads(metrics_path.read_text())
            if "test_f1" in metrics:
                name, score = "entity F1", metrics["test_f1"]
            else:
                name, score = "accuracy", metrics["test_accuracy"]
            sizes = metrics.get("split_sentences") or metrics.get(
                "split_examples"
            )
            found.append(
                (
                    config["dataset"],
                    config.get("pretrained") or "none",
                    sizes["train"],
                    config["seed"],
                    name,
                    score,
                    metrics_path.parent.name,
                )
            )
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--output", default="docs/inspect/label-curve.png")
    args = parser.parse_args(argv)
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
    plt = plots.pyplot()
    fig, axes = plt.subplots(
        1, len(curves), figsize=(4 * len(curves), 3.4), squeeze=False
    )
    for axis, (dataset, sides) in zip(axes[0], sorted(curves.items())):
        for pretrained, points in sorted(sides.items()):
            by_size = collections.defaultdict(list)
            for size, score in points:
                by_size[size].append(score)
            xs = sorted(by_size)
            ys = [statistics.mean(by_size[x]) for x in xs]
            label = "from scratch" if pretrained == "none" else pretrained
            axis.plot(xs, ys, marker="o", label=label)
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
    sys.exit(main())
