"""Does averaging seeds pay? Runs of one recipe scored alone and as one
ensemble, on their recipe's own dev and test splits and scorers: tagging
runs as a `zoo.tasks.TaggerEnsemble` (entity span F1 for BIO tags, else
token accuracy), classification runs by their mean class probabilities
(accuracy).

    python -m benchmarks.ensemble runs/wnut_s0 runs/wnut_s1 runs/wnut_s2
    python -m benchmarks.ensemble runs/bbc_s0 runs/bbc_s1 runs/bbc_s2

The runs must share their recipe and data settings (their
`config.json`'s dataset, files and split); each member reads the text
with its own vocabulary.
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
from benchmarks import baselines
from harness import flags
from recipes import classification
from recipes import models
from recipes import scoring
from recipes import tagging
from recipes.data import datasets

DATA_KEYS = (
    "dataset", "tagset", "corpus_dir", "train_file", "dev_file",
    "test_file", "tfds_data_dir", "tfds_tokens_feature", "tfds_tags_feature",
    "text_column", "label_column", "tfds_text_feature", "tfds_label_feature",
    "quick", "train_examples", "sample_seed",
)  # fmt: skip
RECIPES = {"tagger": tagging, "classifier": classification}


def data_config(runs, recipe):
    """The recipe's `Config` of the runs' data; runs that differ in a
    data setting are refused, naming it."""
    fields = {f.name for f in dataclasses.fields(recipe.Config)}
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
    return recipe.Config(**chosen, pretrained="")


def taggers(data, members):
    """The metric's name and `part -> (member scores, ensemble score)`."""
    entities = datasets.is_bio(data.train)
    ensemble = zoo.tasks.TaggerEnsemble(members)

    def score(part, predicted):
        if entities:
            return scoring.span_scores(part, predicted)["f1"]
        return scoring.token_accuracy(part, predicted)

    def predict_all(part):
        words = [w for w, _ in part]
        alone = [score(part, m.predict_tags(words)) for m in members]
        return alone, score(part, ensemble.predict_tags(words))

    return ("entity F1" if entities else "accuracy"), predict_all


def classifiers(data, members):
    """The same for classifiers: accuracy of each member's and of the
    mean class probabilities."""
    labels = list(members[0].labels)
    if any(list(m.labels) != labels for m in members):
        raise harness.UsageError("the classifiers' labels differ")

    def accuracy(truth, probabilities):  # the recipe's own metric
        return baselines.recipe_scores(labels, truth, probabilities)["accuracy"]

    def predict_all(part):
        texts = [text for text, _ in part]
        truth = [label for _, label in part]
        probabilities = [m.probabilities(texts) for m in members]
        alone = [accuracy(truth, p) for p in probabilities]
        return alone, accuracy(truth, np.mean(probabilities, axis=0))

    return "accuracy", predict_all


SCORERS = {"tagger": taggers, "classifier": classifiers}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.ensemble",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "runs",
        nargs="+",
        help="run folders of one recipe (tagging or classification)",
    )
    parser.add_argument("--output", default="benchmarks/results/ensemble.json")
    args = parser.parse_args(argv)
    if len(args.runs) < 2:
        raise harness.UsageError("give at least two run folders to average")
    members = [models.load_saved_model(run, "run") for run in args.runs]
    kinds = {run: models.model_kind(m) for run, m in zip(args.runs, members)}
    kind = kinds[args.runs[0]]
    if kind not in RECIPES or len(set(kinds.values())) != 1:
        raise harness.UsageError(
            f"runs of one recipe, all taggers or all classifiers, are "
            f"needed; received {kinds}"
        )
    recipe = RECIPES[kind]
    data = recipe.TASK.load_data(data_config(args.runs, recipe))
    score, predict_all = SCORERS[kind](data, members)
    result = {"runs": args.runs, "metric": score}
    for name, part in (("dev", data.dev), ("test", data.test)):
        alone, joint = predict_all(part)
        result[name] = {"members": alone, "ensemble": joint}
        print(
            f"{name} {score}: members "
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
