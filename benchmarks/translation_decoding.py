"""Beam-search decoding speed side by side: the translation recipe's
model and OpenNMT-py's, on the same test sources, taking turns.

    python -m benchmarks.translation_decoding runs/translation \\
        --onmt .venv-opennmt --work runs/onmt_peer --repeats 3

`benchmarks.translation_peer` times each decoder once, when its run
ends, and the two runs may have shared the machine with other work.
This times both again now, in turns (recipe, peer, recipe, ...), each
`--repeats` times on the whole book-held-out test set, and reports the
medians: the recipe's `Translator.translate(sources, method="beam")` in
this process (the NumPy engine, the run's beam width and length
penalty) and `onmt_translate` on the same source pieces with the peer's
last checkpoint in `--work` (`translation_peer`'s, already trained),
beam width and length limit as `translation_peer` runs it. Both are
timed from sources in to pieces out, without loading the model: the
peer's figure is its own `-report_time` total (the whole command's wall
time, start-up included, is reported beside it). Each side gets
`--threads` threads (the peer through `OMP_NUM_THREADS`, the recipe's
NumPy through `threadpoolctl`). Both outputs are scored with sacrebleu
as the runs score them, so a faster decoder cannot hide a worse
translation. Writes `--output` (default
`benchmarks/results/translation_decoding.json`).
"""

import argparse
import pathlib
import re
import statistics
import sys
import tempfile
import time

import harness
from benchmarks import translation_peer as peer
from harness import files
from recipes import scoring
from recipes import translation
from recipes.translation import task as translation_task

REPORTED = re.compile(r"Total translation time \(s\): ([0-9.]+)")


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.translation_decoding",
        description=__doc__.split("\n\n")[0],
    )
    peer.add_run_arguments(
        parser, "translation_peer's folder, with the trained peer"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--output", default="benchmarks/results/translation_decoding.json"
    )
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.threads < 1:
        raise harness.UsageError(
            "--repeats and --threads must be >= 1; received "
            f"{args.repeats} and {args.threads}"
        )
    return args


def _config(run):
    if (
        not (run / "model.keras").is_file()
        or not (run / "config.json").is_file()
    ):
        raise harness.UsageError(
            f"{run}: not a finished translation run (no model.keras or "
            "config.json)"
        )
    return peer.run_config(run)


def time_recipe(translator, sources, threads):
    """`(seconds, translations)` of one beam-search pass."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=threads):
        started = time.perf_counter()
        texts = translator.translate(sources, method="beam")
        return time.perf_counter() - started, texts


def time_peer(args, config, checkpoint, source_file, state):
    """`(reported seconds, wall seconds, translations)` of one
    `onmt_translate` pass."""
    with tempfile.TemporaryDirectory() as folder:
        output = pathlib.Path(folder) / "test.pred"
        log = pathlib.Path(folder) / "translate.log"
        command = peer.translate_command(
            config, checkpoint, source_file, output
        )
        started = time.perf_counter()
        peer._run(args, [*command, "-report_time"], log)
        wall = time.perf_counter() - started
        found = REPORTED.findall(log.read_text(encoding="utf-8"))
        if not found:
            raise harness.UsageError(
                f"onmt_translate printed no 'Total translation time'; see "
                f"its log format in {log}"
            )
        texts = peer.read_translations(state, output)
    return float(found[-1]), wall, texts


def main(argv=None):
    args = parse_args(argv)
    run = pathlib.Path(args.run)
    config = _config(run)
    work = pathlib.Path(args.work).resolve()
    _, checkpoint = peer._last_checkpoint(work)
    source_file = work / "data" / "test.src"
    if checkpoint is None or not source_file.is_file():
        raise harness.UsageError(
            f"--work {args.work}: no trained peer there (run "
            "python -m benchmarks.translation_peer first)"
        )
    state = translation_task.TASK.prepare(config)
    sources = [p.source for p in state.test]
    references = [p.target for p in state.test]
    translator = translation.load(str(run)).configure(
        **translation_task.decoding(config)
    )
    rows = {"recipe": [], "peer": [], "peer_wall": []}
    texts = {}
    for repeat in range(args.repeats):
        seconds, texts["recipe"] = time_recipe(
            translator, sources, args.threads
        )
        rows["recipe"].append(round(seconds, 2))
        reported, wall, texts["peer"] = time_peer(
            args, config, checkpoint, source_file, state
        )
        rows["peer"].append(round(reported, 2))
        rows["peer_wall"].append(round(wall, 2))
        print(
            f"repeat {repeat + 1}/{args.repeats}: recipe {seconds:.1f} s, "
            f"peer {reported:.1f} s ({wall:.1f} s with start-up)",
            flush=True,
        )
    words = sys.argv[1:] if argv is None else argv
    result = {
        "command": " ".join(
            ["python -m benchmarks.translation_decoding", *words]
        ),
        "run": str(run),
        "peer_checkpoint": checkpoint.name,
        "sentences": len(sources),
        "beam_width": config.beam_width,
        "threads": args.threads,
        "seconds": rows,
    }
    for name in ("recipe", "peer"):
        median = statistics.median(rows[name])
        found = scoring.translation_scores(texts[name], references)
        result[name] = {
            "median_seconds": median,
            "sentences_per_second": round(len(sources) / median, 2),
            "test_bleu": round(found["bleu"], 2),
            "test_chrf": round(found["chrf"], 2),
        }
    wall = statistics.median(rows["peer_wall"])
    result["peer"]["sentences_per_second_with_start_up"] = round(
        len(sources) / wall, 2
    )
    ratio = result["recipe"]["sentences_per_second"] / max(
        result["peer"]["sentences_per_second"], 1e-9
    )
    result["speed_ratio"] = round(ratio, 3)
    for name in ("recipe", "peer"):
        row = result[name]
        extra = ""
        if name == "peer":
            extra = (
                f" ({row['sentences_per_second_with_start_up']} with start-up)"
            )
        print(
            f"{name:>7}: {row['sentences_per_second']} sentences/s beam "
            f"decoding{extra}, BLEU {row['test_bleu']:.2f}, chrF "
            f"{row['test_chrf']:.2f} (median of {args.repeats}, "
            f"{len(sources)} sentences, {args.threads} thread"
            f"{'s' if args.threads > 1 else ''})"
        )
    print(f"  ratio: {ratio:.2f}x the peer's sentences/s")
    files.write_json(args.output, result)
    print(f"wrote {args.output}")
    return result


if __name__ == "__main__":
    harness.run_cli(main)
