"""Linear probes on each frozen layer of a trained tagger or classifier,
and on a `zoo.ScalarMix` of the stack's layers.

    python -m diagnostics probe --model runs/tagging/model.keras
    python -m diagnostics probe --model runs/genre/model.keras  # a classifier
    python -m diagnostics probe --model runs/seq2seq  # a G2P encoder
    python -m diagnostics probe --model en_bilm  # a pretrained biLM

The model saved by `recipes.tagging` or `recipes.classification` (e.g. a
`--dataset brown-genre` classifier, which never saw a tag) is frozen;
its states at every layer
(0: the word embedding, with the character vectors when the tagger has
them; 1..L: the stack) are computed for sentences of the
probing dataset (the tagging recipe's data flags: Brown by default, the
same split seed as the recipe). For each property, a linear softmax probe
(one `Dense` layer, Adam) is fitted per layer on `--train-sentences`
sentences of the train split and scored on `--test-sentences` sentences
of the test split; then one probe on `zoo.ScalarMix` of layers 1..L
learns its mixing weights with the probe (ELMo's recipe). Properties:

- `pos`: the token's own tag (universal POS for Brown);
- `prev-pos`, `next-pos`: the tag of the previous / next token (`<s>`,
  `</s>` at the edges): the word itself does not tell them, the context
  does;
- `deprel`: the word's universal dependency relation (`nsubj`, `obj`,
  `obl`, ...; the subtype dropped) and `head-direction`: whether its head
  is to the left, to the right, or it is the root. Syntax, read from a
  treebank: `--dataset turkish-ud` or `conllu` (your files).

A biLM (`--model` a preset's name or folder, or a run of
`recipes.language_model`) is probed the same way, layer 0 being its
character layer and 1..L its LSTM layers (forward and backward halves
side by side), and the mix is ELMo's: of layers 0..L. Run it on
`--dataset wnut16` and `pos` is the entity tag: a semantic property
beside the syntactic ones.

A G2P run of `recipes.g2p` (`--model` its folder) or a G2P preset
is probed letter by letter: layer 0 is the letter embedding, 1..L the
encoder's layers, over words of CMUdict's train and test splits (the
recipe's split). `--train-sentences` / `--test-sentences` then count
words. Properties, from the letter's phoneme:

- `phoneme-class`: vowel, stop, affricate, fricative, nasal, liquid,
  glide, or silent (the `e` of `cake`): mostly the letter itself, with
  context for the ambiguous ones (`c`, `g`, `y`, silent letters);
- `stress`: for letters read as vowels, whether the vowel carries primary,
  secondary or no stress: a property of the whole word.

CMUdict does not align letters to phonemes; `recipes.data.cmudict.align`
does, by expectation-maximisation over the probe's own words: each letter
is read as nothing, one phoneme or two (`x` in `axe`: K S, a stop); of
two letters read as one phoneme (`th`: TH) one takes it and the other is
silent. Its alignments put 98.8% of phonemes in the same letter chunk as
Phonetisaurus's aligner (`phonetisaurus-align`, on 5,000 words).

Writes to `--output`: `probe.csv` / `.json` (property, layer, accuracy,
and each property's majority-class baseline), `probe.png` (accuracy
against layer, the mix as a dashed line) and `summary.json` (with the
learned mixing weights, and per property the top layer, the best single
layer and the mix side by side). Probing a POS tagger for `pos` asks it
what it was trained for: probe a classifier (or a tagger of another tag
set) to see what a stack learns about words that its task never named.
"""

import argparse
import collections
import pathlib

import keras
import numpy as np

import harness
import zoo
from diagnostics import _shared
from harness import files
from harness import flags
from harness import plots
from recipes import tagging
from recipes.data import cmudict
from recipes.data import datasets
from recipes.data import splits

PROPERTIES = (
    "pos", "prev-pos", "next-pos", "deprel", "head-direction",
    "phoneme-class", "stress",
)  # fmt: skip
# The tagging recipe's data settings, a flag each here (`--corpus-dir`).
DATA = (
    "dataset", "tagset", "corpus_dir", "train_file", "dev_file", "test_file",
)  # fmt: skip
# Read from the treebank's own columns, not derived from the tags.
SYNTAX = ("deprel", "head-direction")
# A G2P encoder's, per letter.
LETTERS = ("phoneme-class", "stress")
PHONEME_CLASSES = {
    "vowel": "AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW",
    "stop": "B D G K P T",
    "affricate": "CH JH",
    "fricative": "DH F HH S SH TH V Z ZH",
    "nasal": "M N NG",
    "liquid": "L R",
    "glide": "W Y",
}
CLASS_OF = {p: c for c, ps in PHONEME_CLASSES.items() for p in ps.split()}
STRESS = {"0": "unstressed", "1": "primary", "2": "secondary"}
QUICK = {"train_sentences": 300, "test_sentences": 100, "epochs": 3}


def parse(argv):
    parser = _shared.tagger_parser("probe", __doc__, classifiers=True)
    parser.add_argument(
        "--output",
        default="runs/diagnostics/probe",
        help="folder for probe.csv/.json, probe.png and summary.json "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--properties",
        help="comma-separated, from: " + ", ".join(PROPERTIES) + " (default: "
        "pos,prev-pos,next-pos, and deprel,head-direction on a treebank; "
        "phoneme-class,stress for a G2P run)",
    )
    parser.add_argument(
        "--train-sentences",
        type=int,
        default=4000,
        help="sentences of the train split each probe is fitted on (words "
        "for a G2P run) (default: %(default)s)",
    )
    parser.add_argument(
        "--test-sentences",
        type=int,
        default=1000,
        help="sentences of the test split each probe is scored on (words "
        "for a G2P run) (default: %(default)s)",
    )
    parser.add_argument(
        "--epochs",
        type=int,
        default=6,
        help="training epochs of each probe (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        action=flags.Setting,
        parse=flags.parse_seed,
        default=0,
        help="seed of the sentence sample and of each probe's weights "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"at most {QUICK['train_sentences']} train and "
        f"{QUICK['test_sentences']} test sentences, {QUICK['epochs']} "
        "epochs per probe",
    )
    data = parser.add_argument_group("probing data (as recipes.tagging)")
    for name in DATA:
        default = getattr(tagging.Config, name)
        data.add_argument(
            flags.flag_of(name),
            default=default,
            choices=tagging.Config.CHOICES.get(name),
            help=flags.with_default(tagging.HELP.get(name, ""), default),
        )
    data.add_argument(
        "--mark-pieces",
        action=argparse.BooleanOptionalAction,
        default=tagging.Config.mark_pieces,
        help=tagging.HELP["mark_pieces"] + "; as the probed model was "
        "trained (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, min(getattr(args, name), value))
    return args


def check(args, g2p=False):
    """The properties to probe; `g2p`: `--model` is a G2P run."""
    treebank = args.dataset in datasets.TREEBANKS
    if args.properties is None:
        args.properties = ",".join(
            p
            for p in PROPERTIES
            if (p in LETTERS) == g2p and (treebank or p not in SYNTAX)
        )
    properties = [p for p in args.properties.split(",") if p]
    unknown = sorted(set(properties) - set(PROPERTIES))
    if unknown or not properties:
        raise harness.UsageError(
            f"--properties must be some of {', '.join(PROPERTIES)}; "
            f"received {args.properties!r}"
        )
    wrong = [p for p in properties if (p in LETTERS) != g2p]
    if wrong:
        raise harness.UsageError(
            f"--properties {wrong[0]} is for "
            + (
                "a tagger or classifier; a G2P run takes "
                if g2p
                else "a G2P run (--model a recipes.g2p folder); "
                "a tagger or classifier takes "
            )
            + ", ".join(p for p in PROPERTIES if (p in LETTERS) == g2p)
        )
    syntax = [p for p in properties if p in SYNTAX]
    if syntax and not treebank:
        raise harness.UsageError(
            f"--properties {syntax[0]} needs a treebank: --dataset "
            f"{' or '.join(datasets.TREEBANKS)}; received --dataset "
            f"{args.dataset}"
        )
    for name in ("train_sentences", "test_sentences", "epochs"):
        flags.check_range(name, getattr(args, name), low=1)
    return properties


def targets(sentences, prop, syntax=None):
    """One label per token of `sentences` for property `prop` (None: the
    token has none, e.g. a consonant's stress); `syntax`: `{property:
    per-sentence labels}` for those read from the data's own columns (a
    treebank's, or a G2P probe's letters)."""
    if prop in SYNTAX or prop in LETTERS:
        return [label for labels in syntax[prop] for label in labels]
    labels = []
    for _, tags in sentences:
        if prop == "pos":
            labels.extend(tags)
        elif prop == "prev-pos":
            labels.extend(["<s>", *tags[:-1]])
        else:
            labels.extend([*tags[1:], "</s>"])
    return labels


def fit_probe(train_x, train_y, test_x, test_y, classes, epochs, seed):
    """Accuracy of a linear softmax probe; `train_x` may be a list (then a
    `zoo.ScalarMix` of the arrays comes first); `(accuracy, mix weights)`.
    """
    keras.utils.set_random_seed(seed)
    mixed = isinstance(train_x, list)
    if mixed:
        inputs = [keras.Input((x.shape[1],)) for x in train_x]
        mix = zoo.ScalarMix(name="mix")
        features = mix(inputs)
    else:
        inputs = keras.Input((train_x.shape[1],))
        features = inputs
    outputs = keras.layers.Dense(classes, activation="softmax")(features)
    probe = keras.Model(inputs, outputs)
    probe.compile(
        optimizer=keras.optimizers.Adam(3e-3),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    probe.fit(
        train_x, train_y, epochs=epochs, batch_size=256, verbose=0, shuffle=True
    )
    _, accuracy = probe.evaluate(test_x, test_y, batch_size=1024, verbose=0)
    weights = None
    if mixed:
        scalars = keras.ops.convert_to_numpy(mix.scalar_parameters)
        weights = np.exp(scalars - scalars.max())
        weights = [round(float(w), 4) for w in weights / weights.sum()]
    return float(accuracy), weights


def load_sentences(args, properties=()):
    """`(train, test, description, syntax)`: the sampled sentences and,
    per syntactic property, `{"train": labels, "test": labels}` of those
    same sentences (the treebank read again with that column, same split
    and sample)."""
    config = tagging.Config(
        **{name: getattr(args, name) for name in DATA},
        mark_pieces=args.mark_pieces,
    )
    tagging.TASK.check(config)
    data = tagging.TASK.load_data(config)
    train = splits.quick_subset(data.train, args.train_sentences, args.seed)
    test = splits.quick_subset(data.test, args.test_sentences, args.seed)
    syntax = {"train": {}, "test": {}}
    for prop in properties:
        if prop not in SYNTAX:
            continue
        other = datasets.load_tagging(config, column=prop)
        for part, mine, theirs, size in (
            ("train", train, other.train, args.train_sentences),
            ("test", test, other.test, args.test_sentences),
        ):
            theirs = splits.quick_subset(theirs, size, args.seed)
            if [w for w, _ in theirs] != [w for w, _ in mine]:
                raise harness.UsageError(
                    f"--dataset {args.dataset}: the {prop} column gives "
                    "other sentences than the tags"
                )
            syntax[part][prop] = [labels for _, labels in theirs]
    return train, test, data.description, syntax


def load_letters(args):
    """`(train, test, description, columns)` as `load_sentences`, for a
    G2P encoder: words of CMUdict's train and test splits (as the recipe
    splits it) with their first pronunciation, as `(letters, phonemes)`,
    and per property `{"train": labels, "test": labels}` per word, one
    label per letter from `cmudict.align` (estimated on the probe's own
    train and test words; words it cannot align are left out)."""
    entries = cmudict.load(stress=True)
    parts = []
    for part in cmudict.split_words(entries)[::2]:  # train, test
        words = [
            (list(word), variants[0])
            for word, variants in sorted(part.items())
            if word.isalpha()
        ]
        parts.append(words)
    sampled = {
        "train": splits.quick_subset(parts[0], args.train_sentences, args.seed),
        "test": splits.quick_subset(parts[1], args.test_sentences, args.seed),
    }
    everything = sampled["train"] + sampled["test"]
    # Aligned without stress marks (AE1 and AE0 are one phoneme to the
    # aligner), then read back with them.
    plain = [(w, [p.rstrip("012") for p in ph]) for w, ph in everything]
    readings = iter(
        None if found is None else _cut(phones, [len(r) for r in found])
        for (_, phones), found in zip(everything, cmudict.align(plain))
    )
    aligned, columns = {}, {}
    for part, words in sampled.items():
        pairs = [(word, next(readings)) for word in words]
        aligned[part] = [(w, r) for w, r in pairs if r is not None]
        if not aligned[part]:
            raise harness.UsageError(
                f"none of the {len(words)} words of the dictionary's {part} "
                f"split (--{part}-sentences "
                f"{getattr(args, part + '_sentences')}) aligns with its "
                "phonemes (at most two phonemes a letter)"
            )
        columns[part] = {
            "phoneme-class": [
                [_reading_class(r) for r in rs] for _, rs in aligned[part]
            ],
            "stress": [
                [_reading_stress(r) for r in rs] for _, rs in aligned[part]
            ],
        }
    train, test = ([w for w, _ in aligned[p]] for p in ("train", "test"))
    description = (
        f"CMUdict letters ({len(train)} train, {len(test)} test words, "
        "aligned to their phonemes by cmudict.align)"
    )
    return train, test, description, columns


def _cut(phones, lengths):
    """`phones` cut into consecutive pieces of `lengths`."""
    ends = np.cumsum([0, *lengths])
    return tuple(tuple(phones[a:b]) for a, b in zip(ends[:-1], ends[1:]))


def _reading_class(reading):
    """A letter's phoneme class: `silent`, or its phoneme's class (of two,
    the vowel's, else the first's: `x` as K S is a stop)."""
    if not reading:
        return "silent"
    vowels = [p for p in reading if p[-1] in STRESS]
    return CLASS_OF.get((vowels or reading)[0].rstrip("012"), "other")


def _reading_stress(reading):
    """The stress of the vowel a letter is read as; None for the others."""
    return next((STRESS[p[-1]] for p in reading if p[-1] in STRESS), None)


def _known(labels):
    """Indices of the tokens that have a label, or None when all have."""
    keep = [i for i, label in enumerate(labels) if label is not None]
    return None if len(keep) == len(labels) else np.array(keep, "int64")


def main(argv=None):
    args = parse(argv)
    g2p = _shared.is_g2p_run(args.model)
    properties = check(args, g2p)
    if g2p:
        tagger = _shared.Speller(args.model)
        train, test, description, syntax = load_letters(args)
    else:
        if _shared.is_language_model(args.model):
            tagger = _shared.BiLM(args.model)
        else:
            tagger = _shared.Tagger(args.model, classifiers=True)
        train, test, description, syntax = load_sentences(args, properties)
    # The mix: layers 1..L of a stack, 0..L of a biLM (ELMo's).
    first = tagger.mix_from
    output = pathlib.Path(args.output)
    lock = _shared.lock_output(output)
    try:
        print(
            f"states of {len(train)} train and {len(test)} test "
            f"{'words' if g2p else 'sentences'}: layer 0 (the "
            f"embedding) and the stack's {tagger.num_layers} layers"
        )
        train_states = tagger.states([words for words, _ in train])
        test_states = tagger.states([words for words, _ in test])
        rows, mixes = [], {}
        for prop in properties:
            train_labels = targets(train, prop, syntax["train"])
            test_labels = targets(test, prop, syntax["test"])
            # Tokens without this property (a consonant's stress) sit out.
            keep_train, keep_test = _known(train_labels), _known(test_labels)
            train_labels = [t for t in train_labels if t is not None]
            test_labels = [t for t in test_labels if t is not None]
            train_layers = [
                x if keep_train is None else x[keep_train] for x in train_states
            ]
            test_layers = [
                x if keep_test is None else x[keep_test] for x in test_states
            ]
            names = sorted(set(train_labels) | set(test_labels))
            ids = {name: i for i, name in enumerate(names)}
            train_y = np.array([ids[t] for t in train_labels])
            test_y = np.array([ids[t] for t in test_labels])
            majority = collections.Counter(train_labels).most_common(1)[0][0]
            baseline = float(np.mean([t == majority for t in test_labels]))
            for layer, (train_x, test_x) in enumerate(
                zip(train_layers, test_layers)
            ):
                accuracy, _ = fit_probe(
                    train_x, train_y, test_x, test_y, len(names), args.epochs,
                    args.seed,
                )  # fmt: skip
                rows.append(
                    {
                        "property": prop,
                        "layer": layer,
                        "accuracy": round(accuracy, 4),
                        "majority_baseline": round(baseline, 4),
                    }
                )
                print(f"{prop:>13}  layer {layer}: {accuracy:.4f}")
            widths = {x.shape[1] for x in train_states[first:]}
            if len(train_states) - first > 1 and len(widths) == 1:
                accuracy, weights = fit_probe(
                    train_layers[first:], train_y, test_layers[first:], test_y,
                    len(names), args.epochs, args.seed,
                )  # fmt: skip
                rows.append(
                    {
                        "property": prop,
                        "layer": "mix",
                        "accuracy": round(accuracy, 4),
                        "majority_baseline": round(baseline, 4),
                    }
                )
                mixes[prop] = weights
                print(
                    f"{prop:>13}  ScalarMix of layers {first}-"
                    f"{first + len(weights) - 1}: "
                    f"{accuracy:.4f} (weights {weights})"
                )
        files.write_rows(rows, output, "probe")
        summary = {
            "model": args.model,
            "data": description,
            "train_tokens": int(len(train_states[0])),
            "test_tokens": int(len(test_states[0])),
            "settings": {
                k: v for k, v in vars(args).items() if k not in ("output",)
            },
            "accuracy": {
                prop: {
                    str(r["layer"]): r["accuracy"]
                    for r in rows
                    if r["property"] == prop
                }
                for prop in properties
            },
            "mix_weights": mixes,
            "mix_vs_top": {
                prop: _mix_vs_top(rows, prop, tagger.num_layers)
                for prop in properties
                if prop in mixes
            },
        }
        files.write_json(output / "summary.json", summary)
        plot(
            rows,
            properties,
            tagger.num_layers,
            output / "probe.png",
            description,
        )
        print(f"wrote {output}/probe.png, probe.csv, summary.json")
        return summary
    finally:
        lock.release()


def _mix_vs_top(rows, prop, num_layers):
    """The mix's accuracy beside the top layer's and the best layer's."""
    mine = {r["layer"]: r["accuracy"] for r in rows if r["property"] == prop}
    layers = {k: v for k, v in mine.items() if k not in ("mix", 0)}
    best = max(layers, key=layers.get)
    return {
        "mix": mine["mix"],
        "top_layer": mine[num_layers],
        "best_layer": best,
        "best_layer_accuracy": mine[best],
        "mix_minus_top": round(mine["mix"] - mine[num_layers], 4),
    }


def plot(rows, properties, num_layers, path, description):
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for index, prop in enumerate(properties):
        color = f"C{index}"
        mine = [r for r in rows if r["property"] == prop]
        layers = [r for r in mine if r["layer"] != "mix"]
        ax.plot(
            [r["layer"] for r in layers],
            [r["accuracy"] for r in layers],
            "o-",
            color=color,
            label=prop,
        )
        for r in mine:
            if r["layer"] == "mix":
                ax.axhline(
                    r["accuracy"], color=color, linestyle="--", linewidth=1
                )
        ax.axhline(
            mine[0]["majority_baseline"],
            color=color,
            linestyle=":",
            linewidth=1,
        )
    ax.set_xticks(
        range(num_layers + 1),
        ["embedding", *(f"layer {i}" for i in range(1, num_layers + 1))],
    )
    ax.set_ylabel("probe accuracy (test tokens)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(
        fontsize=8,
        title="dashed: ScalarMix; dotted: majority",
        title_fontsize=7,
    )
    ax.set_title(f"linear probes per layer\n{description}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
