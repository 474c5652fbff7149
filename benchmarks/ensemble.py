"""Does averaging seeds pay? Tagging runs scored alone and as one
`zoo.tasks.TaggerEnsemble`, on their recipe's own dev and test splits
and scorers (entity span F1 for BIO tags, else token accuracy).

    python -m benchmarks.ensemble runs/wnut_s0 runs/wnut_s1 runs/wnut_s2

The runs must share their data settings (their `config.json`'s dataset,
files and split); each member reads the words with its own vocabulary.
Prints one line per split and writes the numbers to `--output`
(default `benchmarks/results/ensemble.json`, keyed by the runs).
"""

import argparse
import dataclasses
import json
import pathlib
import sys

import numpy as np

import harness
import zoo
from harness import flags
from recipes import scoring
from recipes import tagging
from recipes.data import datasets

DATA_KEYS = (
    "dataset", "tagset", "corpus_dir", "train_file", "dev_file",
    "test_file", "tfds_data_dir", "tfds_tokens_feature", "tfds_tags_feature",
    "quick", "train_examples", "sample_seed",
)  # fmt: skip


def data_config(runs):
    """The tagging `Config` of the runs' data; runs that differ in a data
    setting are refused, naming it."""
    fields = {f.name for f in dataclasses.fields(tagging.Config)}
    settings = []
    for run in runs:
        values = flags.read_config_file(pathlib.Path(run) / "config.json")
        settings.append({k: values[k] for k in DATA_KEYS if k in values})
    for run, values in zip(runs[1:], settings[1:]):
        for key in DATA_KEYS:
            if values.get(key) != settings[0].get(key):
                raise harness.UsageError(
                    f"{run}: {key} {values.get(key)!r}, but {runs[0]} has "
                    f"{settings[0].get(key)!r}: an ensemble is scored on one "
                    "split"
                )
    chosen = {k: v for k, v in settings[0].items() if k in fields}
    return tagging.Config(**chosen, pretrained="")


def score(part, predicted, entities):
    if entities:
        return scoring.span_scores(part, predicted)["f1"]
    return scoring.token_accuracy(part, predicted)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.ensemble",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("runs", nargs="+", help="tagging run folders")
    parser.add_argument("--output", default="benchmarks/results/ensemble.json")
    args = parser.parse_args(argv)
    if len(args.runs) < 2:
        raise harness.UsageError("give at least two run folders to average")
    data = tagging.TASK.load_data(data_config(args.runs))
    entities = datasets.is_bio(data.train)
    members = [tagging.load(run) for run in args.runs]
    ensemble = zoo.tasks.TaggerEnsemble(members)
    metric = "entity F1" if entities else "accuracy"
    result = {"runs": args.runs, "metric": metric}
    for name, part in (("dev", data.dev), ("test", data.test)):
        words = [w for w, _ in part]
        alone = [score(part, m.predict_tags(words), entities) for m in members]
        joint = score(part, ensemble.predict_tags(words), entities)
        result[name] = {"members": alone, "ensemble": joint}
        print(
            f"{name} {metric}: members "
            + ", ".join(f"{x:.4f}" for x in alone)
            + f" (mean {np.mean(alone):.4f} ± {np.std(alone, ddof=1):.4f}); "
            f"ensemble {joint:.4f}",
            flush=True,
        )
    print("command: python -m benchmarks.ensemble " + " ".join(args.runs))
    path = pathlib.Path(args.output)
    found = json.loads(path.read_text()) if path.is_file() else {}
    found[" ".join(args.runs)] = result
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(found, indent=2, sort_keys=True) + "\n")
    return result


if __name__ == "__main__":
    harness.run_cli(main, sys.argv[1:])
