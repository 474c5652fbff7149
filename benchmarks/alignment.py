"""`recipes.data.cmudict.align` against Phonetisaurus's aligner.

    python benchmarks/alignment.py --words 5000

The G2P probe (`diagnostics.probing`) labels each letter with the phonemes
`cmudict.align` reads it as. This checks those alignments against the
aligner a G2P user would pick, `phonetisaurus-align` (the `phonetisaurus`
PyPI wrapper's binary, in the `baselines` extra; its defaults: chunks of up
to 2 letters and 2 phonemes, deletions on both sides, 11 EM rounds), on
the same seeded sample of CMUdict's alphabetic words (first pronunciation,
no stress marks).

The two cut words differently by design: Phonetisaurus reads `th` as one
chunk (`t|h}TH`), `cmudict.align` gives TH to `t` and leaves `h` silent.
So the measure is whether each phoneme's letter, as `cmudict.align` puts
it, lies inside the letter chunk that Phonetisaurus aligns that phoneme to:
the share of phonemes for which it does, and of words for which all do.
Prints both, with a few words where they differ, and writes them to
`benchmarks/results/alignment.json`.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from benchmarks import _common  # noqa: E402
from recipes.data import cmudict  # noqa: E402
from recipes.data import splits


def spans(chunks):
    """Per phoneme, the `(start, stop)` letters of its Phonetisaurus chunk;
    `chunks` are a line of `phonetisaurus-align`'s output, split."""
    out, start = [], 0
    for letters, phones in (chunk.split("}") for chunk in chunks):
        width = 0 if letters == "_" else len(letters.split("|"))
        count = 0 if phones == "_" else len(phones.split("|"))
        out += [(start, start + width)] * count
        start += width
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--words", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)  # of the sample
    parser.add_argument("--iterations", type=int, default=10)
    args = parser.parse_args(argv)
    import phonetisaurus  # the benchmark extra's

    entries = cmudict.load()
    words = [(w, v[0]) for w, v in sorted(entries.items()) if w.isalpha()]
    words = splits.quick_subset(words, args.words, args.seed)
    start = time.perf_counter()
    mine = cmudict.align(words, iterations=args.iterations)
    seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        source = pathlib.Path(folder) / "words.tsv"
        target = pathlib.Path(folder) / "aligned.txt"
        source.write_text("".join(f"{w}\t{' '.join(p)}\n" for w, p in words))
        start = time.perf_counter()
        subprocess.run(
            ["phonetisaurus-align", f"--input={source}", f"--ofile={target}"],
            env=phonetisaurus.guess_environment(),
            check=True,
            capture_output=True,
        )
        theirs_seconds = time.perf_counter() - start
        theirs = {}
        for line in target.read_text().splitlines():
            chunks = line.split()
            word = "".join(
                c.split("}")[0].replace("|", "").replace("_", "")
                for c in chunks
            )
            theirs[word] = chunks
    inside = phonemes = agreeing = compared = 0
    differing = []
    for (word, _), readings in zip(words, mine):
        if readings is None or word not in theirs:
            continue
        owner = [i for i, r in enumerate(readings) for _ in r]
        ok = [
            a <= i < b
            for i, (a, b) in zip(owner, spans(theirs[word]), strict=True)
        ]
        inside += sum(ok)
        phonemes += len(ok)
        compared += 1
        agreeing += all(ok)
        if not all(ok) and len(differing) < 8:
            differing.append(
                f"  {word}: "
                + " ".join(
                    f"{c}:{'+'.join(r) or '-'}" for c, r in zip(word, readings)
                )
                + "  |  phonetisaurus: "
                + " ".join(theirs[word])
            )
    command = _common.command_line(argv)
    print(command)
    print(
        f"{len(words)} words; cmudict.align {seconds:.1f} s "
        f"({sum(r is None for r in mine)} not aligned), "
        f"phonetisaurus-align {theirs_seconds:.1f} s ({len(theirs)} aligned)"
    )
    print(
        f"phonemes inside Phonetisaurus's chunk: {inside}/{phonemes} = "
        f"{inside / phonemes:.4f}; words where all are: "
        f"{agreeing}/{compared} = {agreeing / compared:.4f}"
    )
    print("some words where they differ:", *differing, sep="\n")
    result = {
        "command": command,
        "words": len(words),
        "align_seconds": round(seconds, 1),
        "not_aligned": sum(r is None for r in mine),
        "phonetisaurus_seconds": round(theirs_seconds, 1),
        "phonemes_inside": inside,
        "phonemes": phonemes,
        "words_all_inside": agreeing,
        "words_compared": compared,
        "differing": differing,
    }
    out = _common.RESULTS / "alignment.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
