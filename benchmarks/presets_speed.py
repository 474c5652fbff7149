"""How fast the shipped presets answer, beside what users would pick
instead, on the same inputs in the same run.

    python benchmarks/presets_speed.py --task g2p   # g2p_en_cmudict
    python benchmarks/presets_speed.py --task pos   # both POS presets
    python benchmarks/presets_speed.py --task cold  # import to 1st result
    KERAS_BACKEND=jax python benchmarks/presets_speed.py --task g2p
    python benchmarks/presets_speed.py --task g2p --quick   # smoke test

`--task g2p`: the 6,302 test words of the recipe's CMUdict split (with
stress), none of them in the preset's training words, so the network
answers each (what `zoo.G2p` does for a word its dictionary lacks):
`zoo.Transcriber.transcribe`, batched by length (`--batch-size` words a
batch), beam search and greedy; Phonetisaurus (trained here on the same
training words, with stress: `phonetisaurus.predict` on the whole list)
and g2p_en 2.1.0's NumPy GRU (`G2p.predict`, one word at a time: it has
no batched call; `benchmarks.baselines.load_g2p_en`). Throughput is
words per second over the whole list (median of `--repeats` passes);
batch-1 latency is the median over `--latency-inputs` words sent one at
a time.

`--task pos`: the Brown test sentences (universal tags) tagged by both
POS presets (`Tagger.tag` on word lists, batched by length:
`pos_en_universal_fast`, `zoo.pos_tag`'s default, and
`pos_en_universal`, which also reads the biLM) and by NLTK's averaged
perceptron trained here on the recipe's training split
(`PerceptronTagger(load=False)`, 5 iterations, as
`benchmarks.baselines`), which tags one sentence a call. Batch-1
latency is over test sentences of `--latency-length` words (20).

`--task cold`: seconds from a new process's first import of the zoo
(after Keras and its backend are imported: their own start-up is not
the zoo's) to the first result of `zoo.pos_tag` and of `zoo.G2p` on a
sentence, medians of `--repeats` processes; g2p_en's import and first
call beside them.

Each preset is timed on each runner of `--runners` (named
`PRESET:RUNNER`): `numpy` (`zoo.engine`, the default for every shipped
preset), `keras` (the backend's compiled call) and `onnx` (ONNX Runtime
on the model exported with `model.export(format="onnx")`; a transcriber
as its encoder and decoder step under the engine's own loops:
`benchmarks/_onnx.py`).

The Keras model runs on the backend of this process (`KERAS_BACKEND`);
the peers run in the same process. Contenders are timed in turns
(`diagnostics.timing.round_robin`, order reversed every other round).
Writes `benchmarks/results/presets_speed_<task>_<cpu|gpu>_<backend>.json`
and prints what it measured and the command.
"""

import argparse
import os
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from benchmarks import _onnx  # noqa: E402
from benchmarks import baselines  # noqa: E402
from diagnostics import timing  # noqa: E402
from recipes import g2p  # noqa: E402
from recipes import tagging  # noqa: E402


def g2p_contenders(args):
    """`{name: (whole-list function, one-input function)}` and the
    inputs, for the G2P task."""
    import phonetisaurus

    config = g2p.Config(stress=True, quick=args.quick)
    _, (train, _, test) = g2p.load_data(config)
    words = sorted(test)
    transcriber = zoo.Transcriber.from_preset(args.model)
    size = args.batch_size
    fst = pathlib.Path(args.phonetisaurus_model or tempfile.mkdtemp())
    fst = fst / "model.fst" if fst.is_dir() else fst
    if fst.is_file():
        print(f"Phonetisaurus: {fst} (trained before)")
    else:
        start = time.perf_counter()
        phonetisaurus.train(train, fst)
        print(f"Phonetisaurus trained in {time.perf_counter() - start:.1f} s")
    g2p_en = baselines.load_g2p_en()

    def ours(method, model=transcriber):
        return (
            lambda ws: model.transcribe(ws, method, batch_size=size),
            lambda w: model.transcribe([w], method),
        )

    runners = {}
    for runner in args.runners:
        model = _with_runner(zoo.Transcriber, args.model, runner, args)
        for method in ("beam", "greedy"):
            runners[f"preset_{method}:{runner}"] = ours(method, model)

    def fst_predict(ws):
        return list(phonetisaurus.predict(ws, fst))

    return {
        **runners,
        "phonetisaurus": (fst_predict, lambda w: fst_predict([w])),
        "g2p_en": (
            lambda ws: [g2p_en.predict(w) for w in ws],
            g2p_en.predict,
        ),
    }, words


def pos_contenders(args):
    """The same for the taggers: whole test split, then one sentence."""
    from nltk.tag.perceptron import PerceptronTagger

    data = tagging.TASK.load_data(tagging.Config(quick=args.quick))
    sentences = [list(words) for words, _ in data.test]
    nltk = PerceptronTagger(load=False)
    random.seed(0)
    start = time.perf_counter()
    nltk.train([list(zip(w, t)) for w, t in data.train], nr_iter=5)
    print(f"perceptron trained in {time.perf_counter() - start:.1f} s")
    names = [args.model] if args.model else list(POS_PRESETS)
    contenders = {}
    for name in names:
        for runner in args.runners:
            tagger = _with_runner(zoo.Tagger, name, runner, args)
            contenders[f"{name}:{runner}"] = (
                tagger.tag,
                lambda s, t=tagger: t.tag([s]),
            )
    contenders["nltk_perceptron"] = (
        lambda ss: [nltk.tag(s) for s in ss],
        nltk.tag,
    )
    return contenders, sentences


def _with_runner(cls, preset, runner, args):
    """The preset served by `runner`: `"numpy"` or `"keras"` (`from_preset
    (..., runner=...)`), or `"onnx"`, ONNX Runtime (`benchmarks._onnx`;
    the models exported once into `--onnx-folder`)."""
    if runner != "onnx":
        return cls.from_preset(preset, runner=runner)
    model = cls.from_preset(preset, runner="numpy")
    name = pathlib.Path(str(preset)).name
    folder = pathlib.Path(args.onnx_folder or tempfile.mkdtemp()) / name
    folder = folder / keras.backend.backend()
    if cls is zoo.Transcriber:
        return _onnx.onnx_transcriber(model, folder)
    return _onnx.onnx_tagger(model, folder)


RUNNERS = ("numpy", "keras", "onnx")
POS_PRESETS = ("pos_en_universal_fast", "pos_en_universal")
COLD = {
    "zoo.pos_tag": "zoo.pos_tag('The quick brown fox jumps over the dog.')",
    "zoo.G2p": "zoo.G2p()('The quick brown fox jumps over the dog.')",
}


def cold_start(args):
    """Seconds from `import zoo` (Keras and the backend imported first) to
    the first result, in new processes; g2p_en's import and first call."""
    env = {
        **os.environ,
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2"),
    }
    timed = {}
    code = (
        "import time, keras, numpy\n"
        "start = time.perf_counter()\n"
        "import zoo\n"
        "{call}\n"
        "print(time.perf_counter() - start)\n"
    )
    g2p_en = (
        "import time, keras, numpy, sys\n"
        f"sys.path.insert(0, {str(pathlib.Path(__file__).parents[1])!r})\n"
        "import nltk\n"
        "start = time.perf_counter()\n"
        "from benchmarks import baselines\n"
        "g2p = baselines.load_g2p_en()\n"
        "g2p.predict('fox')\n"
        "print(time.perf_counter() - start)\n"
    )
    runs = {name: code.format(call=call) for name, call in COLD.items()}
    runs["g2p_en (import, G2p(), first word)"] = g2p_en
    for name, source in runs.items():
        times = []
        for _ in range(args.repeats):
            done = subprocess.run(
                [sys.executable, "-c", source],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            times.append(float(done.stdout.strip().splitlines()[-1]))
        timed[name] = {
            "median_seconds": statistics.median(times),
            "samples": times,
        }
        print(
            f"{name:>36}: {statistics.median(times):.2f} s to the first result"
        )
    return timed


TASKS = {
    "g2p": (g2p_contenders, "g2p_en_cmudict", "words"),
    "pos": (pos_contenders, "", "sentences"),
}


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--task", choices=sorted([*TASKS, "cold"]), required=True
    )
    parser.add_argument(
        "--model",
        default="",
        help="preset name, preset or run folder (default: the shipped one)",
    )
    parser.add_argument(
        "--phonetisaurus-model",
        default="",
        help="g2p: a Phonetisaurus model.fst to reuse, or where to keep the "
        "one trained here (default: trained in a temporary folder)",
    )
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--latency-inputs", type=int, default=200)
    parser.add_argument(
        "--latency-length",
        type=int,
        default=20,
        help="pos: batch 1 on test sentences of this many words (20)",
    )
    parser.add_argument(
        "--runners",
        default=",".join(RUNNERS),
        help="pos and g2p: the runners to time each preset on, of "
        f"{', '.join(RUNNERS)} (default: all)",
    )
    parser.add_argument(
        "--onnx-folder",
        default="",
        help="where the ONNX exports are kept (default: a temporary folder)",
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", default="")
    args = parser.parse_args(argv)
    args.runners = [r for r in args.runners.split(",") if r]
    unknown = sorted(set(args.runners) - set(RUNNERS))
    if unknown or not args.runners:
        parser.error(
            f"--runners: expected names among {', '.join(RUNNERS)}; "
            f"received {unknown[0] if unknown else 'none'!r}"
        )
    if args.quick:
        args.repeats, args.latency_inputs = 1, 5
    command, versions, output = _common.print_header(
        argv, f"presets_speed_{args.task}", args.quick
    )
    if args.task == "cold":
        found = cold_start(args)
        _common.write_result(
            args.output or output,
            {"command": command, "versions": versions, "results": found},
        )
        return 0
    build, default_model, unit = TASKS[args.task]
    args.model = args.model or default_model
    contenders, inputs = build(args)
    pool = inputs
    if args.task == "pos":
        pool = [s for s in inputs if len(s) == args.latency_length] or inputs
    few = pool[:: max(1, len(pool) // args.latency_inputs)]
    few = few[: args.latency_inputs]
    for whole, one in contenders.values():  # warm up: every shape traced
        whole(inputs)
        for x in few:
            one(x)

    def each_alone(one):
        return lambda: [one(x) for x in few]

    samples = timing.round_robin(
        {
            name: [(lambda w=whole: w(inputs), 1), (each_alone(one), 1)]
            for name, (whole, one) in contenders.items()
        },
        args.repeats,
    )
    results = {}
    for name, (whole_times, one_times) in samples.items():
        whole, alone = (
            statistics.median(whole_times),
            statistics.median(one_times),
        )
        results[name] = {
            f"{unit}_per_second": len(inputs) / whole,
            "seconds_whole_list": whole,
            "batch1_ms": 1000 * alone / len(few),
            "samples_whole": whole_times,
            "samples_batch1": one_times,
        }
        print(
            f"{name:>16}: {len(inputs) / whole:8.1f} {unit}/s over "
            f"{len(inputs)} {unit}; batch 1: "
            f"{1000 * alone / len(few):.2f} ms per input"
        )
    print("command:", command)
    _common.write_result(
        args.output or output,
        {
            "command": command,
            "task": args.task,
            "model": args.model,
            "inputs": len(inputs),
            "latency_inputs": len(few),
            "batch_size": args.batch_size,
            "repeats": args.repeats,
            "machine": timing.machine_info(),
            "versions": versions,
            "results": results,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
