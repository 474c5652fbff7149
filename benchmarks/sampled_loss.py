"""What the sampled softmax hides: a biLM's sampled training loss beside
its exact negative log-likelihood, on the same words and hidden states.

    python benchmarks/sampled_loss.py --run runs/language_model
    python benchmarks/sampled_loss.py --run runs/bilm --model en_bilm

The language model trains on `zoo.layers.SampledSoftmax`'s loss (the
target's logit against `--num-sampled` log-uniform negatives, each
logit corrected by its expected count) and is evaluated with the exact
softmax over every word. Here both are computed on the same dev
sentences of the run (its `config.json`: the recipe's own data loading)
and the same hidden states (the encoder in inference mode, no dropout):
the exact NLL once, the sampled one for each `--negatives` count,
averaged over `--draws` draws of the negatives. The gap is the bias of
the loss the model is trained on; a sampled loss far below the exact one
means training sees an easier problem than evaluation scores.

`--model`: another model with the run's vocabulary (a preset name, a
preset folder or a `model.keras`); default: the run's own.

Prints a table and writes `benchmarks/results/sampled_loss.json`.
"""

import argparse
import json
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks import _common  # noqa: E402
from recipes import language_model  # noqa: E402
from recipes import models  # noqa: E402
from recipes import pipeline  # noqa: E402

RESULT = pathlib.Path("benchmarks/results/sampled_loss.json")


def hidden_states(model, sentences, batch_size=64):
    """`(forward hidden, backward hidden, forward targets, backward
    targets)` of the real words of `sentences`, flattened."""
    vocabulary = model.vocabulary
    characters = model.characters
    encoder = model.encoder
    inside = keras.Model(
        model.inputs,
        [
            model.get_layer("top_dropout").output,
            model.get_layer("targets").output,
        ],
    )
    parts = [[], [], [], []]
    for start in range(0, len(sentences), batch_size):
        batch = sentences[start : start + batch_size]
        words = pipeline.pad([vocabulary.ids(s) for s in batch])
        chars = characters.encode(batch, width=words.shape[1])
        top, (forward, backward) = inside((words, chars), training=False)
        halves = encoder.split_directions(keras.ops.convert_to_numpy(top))
        real = words > 0
        for part, value in zip(
            parts, (*halves, np.asarray(forward), np.asarray(backward))
        ):
            part.append(np.asarray(value)[real])
    return [np.concatenate(p) for p in parts]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True)
    parser.add_argument("--model", default="")
    parser.add_argument("--negatives", default="512,2048,8192")
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--sentences", type=int, default=500)
    parser.add_argument("--output", default=str(RESULT))
    args = parser.parse_args(argv)
    run = pathlib.Path(args.run)
    config = language_model.Config(
        **json.loads((run / "config.json").read_text())
    )
    source = args.model or str(run / "model.keras")
    model = models.load_saved_model(source, "--model")
    data, _ = language_model.TASK.load_data(config)
    sentences = data.dev[: args.sentences]
    started = time.perf_counter()
    hidden = hidden_states(model, sentences)
    softmax = model.get_layer("softmax")
    kept = softmax.num_sampled
    rows = {}
    for name, (states, targets) in {
        "forward": (hidden[0], hidden[2]),
        "backward": (hidden[1], hidden[3]),
    }.items():
        pair = [states[None], targets[None]]
        softmax.num_sampled = 0
        exact = float(np.mean(np.asarray(softmax(pair, training=False))))
        sampled = {}
        for count in (int(n) for n in args.negatives.split(",")):
            softmax.num_sampled = count
            draws = [
                float(np.mean(np.asarray(softmax(pair, training=True))))
                for _ in range(args.draws)
            ]
            sampled[count] = (float(np.mean(draws)), float(np.std(draws)))
        rows[name] = {"exact": exact, "sampled": sampled}
    softmax.num_sampled = kept
    words = len(hidden[2])
    result = {
        "command": "python " + " ".join([sys.argv[0], *(argv or sys.argv[1:])]),
        "run": str(run),
        "model": source,
        "dev_sentences": len(sentences),
        "words": words,
        "draws": args.draws,
        "seconds": round(time.perf_counter() - started, 1),
        "nll": rows,
    }
    print(result["command"])
    print(f"{len(sentences)} dev sentences, {words} words; model {source}")
    print(
        "| direction | exact NLL | "
        + " | ".join(
            f"sampled, {n} negatives" for n in rows["forward"]["sampled"]
        )
        + " |"
    )
    print("|---" * (2 + len(rows["forward"]["sampled"])) + "|")
    for name, row in rows.items():
        cells = " | ".join(
            f"{mean:.3f} ± {sd:.3f}" for mean, sd in row["sampled"].values()
        )
        print(f"| {name} | {row['exact']:.3f} | {cells} |")
    return _common.write_result(args.output, result)


if __name__ == "__main__":
    main()
