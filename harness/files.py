"""JSON and CSV written atomically: complete on disk before they replace
the file they update, so that a job killed while writing loses nothing
(the previous file stays whole)."""

import csv
import json
import os
import pathlib


def write_json(path, values):
    """`values` as JSON, written atomically (complete on disk, fsync'd,
    before it replaces `path`): an interrupted write loses nothing."""
    path = pathlib.Path(path)
    partial = path.with_suffix(path.suffix + ".partial")
    with partial.open("w") as handle:
        handle.write(json.dumps(values, indent=2) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    partial.replace(path)


def write_csv(path, rows, columns=(), missing=""):
    """`rows` (dicts) as CSV, written atomically: `columns` first, then
    every other key in the order first seen; `missing` where a row has
    no value for a column."""
    path = pathlib.Path(path)
    keys = list(columns)
    for row in rows:
        keys += [k for k in row if k not in keys]
    partial = path.with_suffix(path.suffix + ".partial")
    with partial.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys, restval=missing)
        writer.writeheader()
        writer.writerows(rows)
    partial.replace(path)


def write_rows(rows, folder, name, columns=()):
    """`name.csv` and `name.json` in `folder`, written atomically; the CSV
    has `columns` first, then every other key in the order first seen."""
    folder = pathlib.Path(folder)
    write_csv(folder / f"{name}.csv", rows, columns)
    write_json(folder / f"{name}.json", rows)
