"""The translation model's first training steps: whether, and when, its
loss leaves the target's unigram plateau.

    python -m benchmarks.translation_start --steps 160
    python -m benchmarks.translation_start --steps 160 -- --no-residual \\
        --no-layer-norm

Everything after `--` is the translation recipe's own flags (its
parser, its defaults), so any of its models can be tried on its data
and batches. The model trains `--steps` steps of the recipe's shuffled,
length-bucketed batches (Adam at the recipe's learning rate, constant:
the schedule is not the question), and every `--every` steps the mean
training loss of those steps is printed beside the unigram entropy of
the target pieces (what a model that ignores its inputs reaches). A
model that stays at that entropy has learned nothing yet: this is how
the recipe's default of residual connections and layer normalisation
was chosen (docs/recipes.md, the translation section).
"""

import argparse
import math
import sys
import time

import keras
import numpy as np

import harness
from recipes import arguments
from recipes import cli
from recipes.translation import config as translation_config
from recipes.translation import task as translation


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.translation_start",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("--steps", type=int, default=160)
    parser.add_argument("--every", type=int, default=20)
    parser.add_argument(
        "recipe", nargs="*", help="after --: the recipe's flags"
    )
    args = parser.parse_args(argv)
    for name in ("steps", "every"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    return args


def recipe_config(flags):
    """The recipe's `Config` from its own flags."""
    parser = cli.parser_for(
        translation.TASK,
        "python -m recipes.translation",
        "",
        translation_config.HELP,
    )
    config = arguments.resolve_config(
        translation.TASK.Config, parser.parse_args(flags)
    )
    translation.TASK.check(config)
    return config


def unigram_entropy(batches):
    """Entropy (nats) of the target pieces of `batches`, padding left
    out."""
    counts = {}
    for i in range(len(batches)):
        _, targets, weights = batches[i]
        ids, found = np.unique(targets[weights > 0], return_counts=True)
        for key, count in zip(ids.tolist(), found.tolist()):
            counts[key] = counts.get(key, 0) + count
    total = sum(counts.values())
    return -sum(c / total * math.log(c / total) for c in counts.values())


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    config = recipe_config(args.recipe)
    keras.utils.set_random_seed(config.seed)
    state = translation.TASK.prepare(config)
    train, _, _ = translation.TASK.datasets(config, state, config.batch_size)
    model = translation.TASK.model_for(
        config, state.target.size, vocabulary_size=state.source.size
    )
    model.compile(
        keras.optimizers.Adam(config.learning_rate), translation.TASK.loss()
    )
    entropy = unigram_entropy(train)
    print(
        f"{model.count_params():,} parameters on {keras.backend.backend()}; "
        f"unigram entropy of the target pieces {entropy:.3f}",
        flush=True,
    )
    losses = []
    started = time.perf_counter()
    while len(losses) < args.steps:
        for i in range(len(train)):
            x, y, weights = train[i]
            model.reset_metrics()
            logs = model.train_on_batch(
                x, y, sample_weight=weights, return_dict=True
            )
            losses.append(float(logs["loss"]))
            if len(losses) % args.every == 0:
                print(
                    f"step {len(losses)}: loss of the last {args.every} "
                    f"steps {np.mean(losses[-args.every :]):.3f} "
                    f"({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
            if len(losses) == args.steps:
                break
    return losses, entropy


if __name__ == "__main__":
    harness.run_cli(main, sys.argv[1:])
