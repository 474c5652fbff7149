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
was chosen (docs/recipes.md, the translation section). At the end it
prints the dev loss (teacher forced, 20 batches) with each verse's own
source and with the sources shuffled: a model whose two losses are
equal translates nothing, whatever its loss.
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
        "--source-every",
        type=int,
        default=0,
        help="also print, every this many steps, the dev loss with own "
        "and shuffled sources (5 batches) and the attention's entropy",
    )
    parser.add_argument(
        "--clipnorm",
        type=float,
        default=0.0,
        help="clip the gradients' global norm to this (Adam's "
        "global_clipnorm; OpenNMT-py clips at 5); 0 does not clip",
    )
    parser.add_argument(
        "recipe", nargs="*", help="after --: the recipe's flags"
    )
    args = parser.parse_args(argv)
    for name in ("steps", "every"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    for name in ("source_every", "clipnorm"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be at least 0")
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


def source_use(model, batches, seed=0, limit=20):
    """Teacher-forced loss (nats a target piece) of the first `limit`
    `batches` with their own sources and with each batch's sources
    shuffled among its rows: equal, the model ignores its source (a
    language model of the target side)."""
    rng = np.random.default_rng(seed)
    totals = {"own": [0.0, 0.0], "shuffled": [0.0, 0.0]}
    for i in range(min(limit, len(batches))):
        (source, inputs), targets, weights = batches[i]
        for name, rows in (
            ("own", source),
            ("shuffled", source[rng.permutation(len(source))]),
        ):
            probabilities = model.predict_on_batch((rows, inputs))
            picked = np.take_along_axis(
                probabilities, targets[..., None], axis=-1
            )[..., 0]
            totals[name][0] += float(
                (-np.log(np.maximum(picked, 1e-9)) * weights).sum()
            )
            totals[name][1] += float(weights.sum())
    return {
        name: total / max(count, 1) for name, (total, count) in totals.items()
    }


def attention_spread(model, batches, limit=5):
    """Mean entropy (nats) of the attention rows of real target steps
    in the first `limit` `batches`, the entropy of a uniform row over
    the same sources, and the mean largest weight; None without
    attention. A collapsed attention has entropy near 0 and a largest
    weight near 1."""
    if model.attention is None:
        return None
    found = {"entropy": [], "uniform": [], "largest": []}
    for i in range(min(limit, len(batches))):
        (source, inputs), _, _ = batches[i]
        weights = keras.ops.convert_to_numpy(
            model.attention_weights(source, inputs)
        )
        real = inputs > 0
        entropy = -(weights * np.log(np.maximum(weights, 1e-12))).sum(-1)
        lengths = np.broadcast_to(
            np.log((source > 0).sum(1))[:, None], real.shape
        )
        found["entropy"].extend(entropy[real].tolist())
        found["uniform"].extend(lengths[real].tolist())
        found["largest"].extend(weights.max(-1)[real].tolist())
    return {name: float(np.mean(values)) for name, values in found.items()}


def source_line(model, dev, limit):
    """One line: own vs shuffled dev loss and the attention's spread."""
    use = source_use(model, dev, limit=limit)
    line = (
        f"dev loss with each verse's own source {use['own']:.3f}, with "
        f"the sources shuffled {use['shuffled']:.3f}"
    )
    spread = attention_spread(model, dev, limit=min(limit, 5))
    if spread is not None:
        line += (
            f"; attention entropy {spread['entropy']:.3f} (uniform "
            f"{spread['uniform']:.3f}), largest weight "
            f"{spread['largest']:.3f}"
        )
    return use, line


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    config = recipe_config(args.recipe)
    keras.utils.set_random_seed(config.seed)
    state = translation.TASK.prepare(config)
    train, dev, _ = translation.TASK.datasets(config, state, config.batch_size)
    model = translation.TASK.model_for(
        config, **translation.TASK.model_args(config, state)
    )
    clip = {"global_clipnorm": args.clipnorm} if args.clipnorm else {}
    model.compile(
        keras.optimizers.Adam(config.learning_rate, **clip),
        translation.TASK.loss(),
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
            if args.source_every and len(losses) % args.source_every == 0:
                print(
                    f"step {len(losses)}: "
                    + source_line(model, dev, limit=5)[1],
                    flush=True,
                )
            if len(losses) == args.steps:
                break
    use, line = source_line(model, dev, limit=20)
    print(
        f"{line}; the source is worth {use['shuffled'] - use['own']:.3f} "
        "nats a piece (0: it is ignored)",
        flush=True,
    )
    return losses, entropy, use


if __name__ == "__main__":
    harness.run_cli(main, sys.argv[1:])
