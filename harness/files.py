"""JSON and CSV written atomically: complete on disk before they replace
the file they update, so that a job killed while writing loses nothing
(the previous file stays whole); fingerprints of files and values, for a
run to tell whether what it trains on changed."""

import csv
import hashlib
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


def fingerprint(path):
    """`{"bytes": size, "sha256": hex digest}` of the file at `path`."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"bytes": os.path.getsize(path), "sha256": digest.hexdigest()}


def digest(values):
    """The sha256 hex digest of `values` (lists, tuples, dicts, strings,
    numbers, NumPy arrays, sets) as canonical JSON: equal values, equal
    digests, whatever the order of a dict's or set's items."""
    text = json.dumps(values, sort_keys=True, default=_jsonable)
    return hashlib.sha256(text.encode()).hexdigest()


def _jsonable(value):
    if hasattr(value, "tolist"):  # NumPy arrays and scalars
        return value.tolist()
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if hasattr(value, "__dict__"):
        return vars(value)
    return repr(value)
