"""The zoo's tokenisers on raw English text beside Universal Dependencies'
gold tokens: each sentence's `# text =` line tokenised, compared with its
word lines (ids without `-` or `.`: a multiword token's parts).

    python benchmarks/ud_tokens.py                  # EWT and GUM test
    python benchmarks/ud_tokens.py --top 40 FILE.conllu ...

Two tokenisers: `zoo.text.tokenize(split_punctuation=True)`, the
language-independent one (`generic`), and
`zoo.languages.en.split_words`, which also splits English clitics as UD
English does (`english`). Tokens are compared as character spans of the
text with its whitespace removed: precision, recall and F1 over tokens,
and the share of sentences tokenised exactly; then the F1 were the
treebank's hyphen splits ours too (`long - term` where we keep
`long-term`, as the project chooses): what keeping hyphenated compounds
whole costs. Then, for `english`, the `--top` commonest kinds of
mismatch (each token's letters written `a`, digits `9`: `a - a` the
treebank's, `a-a` ours), with an example of each.
"""

import argparse
import collections
import pathlib
import re
import sys
import unicodedata

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import zoo.text  # noqa: E402
from zoo.languages import en  # noqa: E402

UD = pathlib.Path("/root/ud")
DEFAULT_FILES = (
    UD / "EWT" / "en_ewt-ud-test.conllu",
    UD / "GUM" / "en_gum-ud-test.conllu",
)
TOKENIZERS = {
    "generic": lambda s: zoo.text.tokenize(
        s, lowercase=False, split_punctuation=True
    ),
    "english": en.split_words,
}


def sentences(path):
    """`(text, gold words)` of each sentence of a CoNLL-U file."""
    text, words = None, []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("# text = "):
            text = line[len("# text = ") :]
        elif not line.strip():
            if words:
                yield text, words
            text, words = None, []
        elif not line.startswith("#"):
            cells = line.split("\t")
            if cells[0].isdigit():
                words.append(cells[1])
    if words:
        yield text, words


def spans(tokens):
    """Each token's `(start, end)` in the text without its whitespace."""
    out, at = [], 0
    for token in tokens:
        n = len(re.sub(r"\s", "", unicodedata.normalize("NFC", token)))
        out.append((at, at + n))
        at += n
    return out


def shape(tokens):
    """`a - a` for `long - term`: letters `a`, digits `9`, each run once."""
    tokens = (re.sub(r"\d+", "9", re.sub(r"[^\W\d_]+", "a", t)) for t in tokens)
    return " ".join(tokens)


def regions(gold, ours):
    """`[(gold tokens, our tokens)]` where the two disagree: runs of
    tokens neither matched, overlapping ones merged."""
    gold_spans, our_spans = spans(gold), spans(ours)
    both = set(gold_spans) & set(our_spans)
    wrong = sorted(
        [(s, 0, t) for s, t in zip(gold_spans, gold) if s not in both]
        + [(s, 1, t) for s, t in zip(our_spans, ours) if s not in both]
    )
    out, end = [], -1
    for (start, stop), side, token in wrong:
        if start >= end:
            out.append(([], []))
        out[-1][side].append(token)
        end = max(end, stop)
    return out


def is_hyphen_split(gold, ours):
    """Whether the treebank split at hyphens what we keep whole."""
    return (
        "-" in gold
        and "".join(gold) == "".join(ours)
        and all("-" in t for t in ours)
    )


def measure(path, tokenize):
    """The counts and the mismatches of one tokeniser on one file."""
    n = exact = gold_total = our_total = right = 0
    hyphen_gold = hyphen_ours = hyphen_exact = 0
    kinds, examples = collections.Counter(), {}
    for text, gold in sentences(path):
        ours = tokenize(text)
        n += 1
        gold_spans, our_spans = set(spans(gold)), set(spans(ours))
        gold_total += len(gold)
        our_total += len(ours)
        right += len(gold_spans & our_spans)
        exact += gold_spans == our_spans
        wrong = regions(gold, ours)
        hyphen_exact += all(is_hyphen_split(g, o) for g, o in wrong)
        for g, o in wrong:
            if is_hyphen_split(g, o):
                hyphen_gold += len(g)
                hyphen_ours += len(o)
            kind = f"{shape(g)}  =>  {shape(o)}"
            kinds[kind] += 1
            examples.setdefault(kind, f"{' '.join(g)}  =>  {' '.join(o)}")
    return {
        "sentences": n,
        "exact": exact / n,
        "precision": right / our_total,
        "recall": right / gold_total,
        "f1": 2 * right / (gold_total + our_total),
        # The exact share and the F1 were the treebank's hyphen splits
        # ours too.
        "exact_hyphens_split": hyphen_exact / n,
        "f1_hyphens_split": 2
        * (right + hyphen_gold)
        / (gold_total + our_total - hyphen_ours + hyphen_gold),
        "kinds": kinds,
        "examples": examples,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", default=DEFAULT_FILES)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)
    for path in args.files:
        for name, tokenize in TOKENIZERS.items():
            r = measure(path, tokenize)
            print(
                f"{pathlib.Path(path).name} {name}: {r['sentences']} "
                f"sentences, exact {r['exact']:.2%}, P {r['precision']:.2%}"
                f" R {r['recall']:.2%} F1 {r['f1']:.2%}; with compounds' "
                f"hyphens split as it splits them: exact "
                f"{r['exact_hyphens_split']:.2%}, F1 "
                f"{r['f1_hyphens_split']:.2%}"
            )
        for kind, count in r["kinds"].most_common(args.top):
            print(f"  {count:5d}  {kind:30s}  e.g. {r['examples'][kind]}")


if __name__ == "__main__":
    main()
