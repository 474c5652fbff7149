"""A hostile run: hundreds of attempts to make the library and the command
lines give a wrong result without a word, a traceback, or lose work.

    python -m benchmarks.hostile [--backends tensorflow jax torch]
        [--groups library cli kills] [--output benchmarks/results/hostile]

Issue 30 asked for it after a hostile tester found 18 problems in 347
attempts; this is that tester's run, kept, so that anyone can repeat it.
Each attempt states a promise ("an id out of range is an error naming
`inputs`", "a rerun after a kill ends with the uninterrupted run's test
loss") and checks it. The verdicts:

- `held`: the promise held;
- `silently wrong`: a wrong result, or a bad input accepted, with exit 0
  and no warning (the worst kind);
- `traceback`: an error, but a traceback or many lines where one line
  naming the argument is promised;
- `unclear error`: an error that does not name what was wrong;
- `lost work`: a kill or a failure after which a rerun redid or lost
  finished work.

The groups: `library` (builders, layers, heads, decoding, saving, called
with bad arguments and bad data, in one process per backend), `cli` (the
recipes', the search's and the tools' command lines with bad flags,
configs, data files and run folders: in-process through
`harness.run_cli`, the code path of `python -m`, with a few real
subprocesses), `kills` (SIGKILL, SIGTERM and SIGINT at every phase of a
run, damaged backups, changed data, a full disk; real subprocesses).

Each attempt's verdict is appended to `OUTPUT/GROUP_BACKEND.jsonl` as it
is known (flushed to disk): a killed hostile run, rerun, skips what it
has. At the end it prints a table of verdicts per group and backend,
writes `OUTPUT/summary.json`, and lists every attempt that did not hold.
Hand-written: no testing library generates attacks against a CLI's
promises, and pytest's own output is per test, not a count of verdicts.
"""
