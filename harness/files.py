"""JSON and CSV written atomically: complete on disk before they replace
the file they update, so that a job killed while writing loses nothing
(the previous file stays whole); fingerprints of files and values, for a
run to tell whether what it trains on changed; plain text read from a
user's file, its binary or foreign encoding said in one line."""

import csv
import hashlib
import json
import os
import pathlib

from harness.errors import UsageError

BINARY_PROBE = 65536  # bytes searched for a NUL, the mark of a binary file


def decode_text(data, name, source=None, error=UsageError):
    """`data` (a file's bytes) as UTF-8 text without a leading byte-order
    mark. A binary file (a NUL byte in its first `BINARY_PROBE` bytes) or
    one in another encoding raises `error` (a `UsageError` class), its
    one line starting with `name` (the flag and the file) and, for the
    encoding, naming the first bad byte and its offset, and the `iconv`
    command that converts `source` (a path) when given."""
    if b"\x00" in data[:BINARY_PROBE]:
        raise error(
            f"{name}: a binary file (it holds NUL bytes); plain UTF-8 text "
            "needed"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as failure:
        convert = (
            f"; convert it, e.g. `iconv -f latin1 -t utf-8 {source}`"
            if source is not None
            else ""
        )
        raise error(
            f"{name}: not UTF-8 (byte 0x{data[failure.start]:02x} at offset "
            f"{failure.start}){convert}"
        ) from None
    return text.lstrip("\ufeff")


def write_text(path, text):
    """`text` (UTF-8) written atomically (complete on disk, fsync'd,
    before it replaces `path`): an interrupted write loses nothing."""
    path = pathlib.Path(path)
    partial = path.with_suffix(path.suffix + ".partial")
    with partial.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    partial.replace(path)


def write_json(path, values):
    """`values` as JSON, written atomically (`write_text`)."""
    write_text(path, json.dumps(values, indent=2) + "\n")


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


def split_paths(value):
    """The paths a file flag names: `value` itself when it is a file or
    holds no comma, else each of its comma-separated parts (stripped,
    empty ones dropped): `--train-file a.conllu,b.conllu`."""
    if os.path.isfile(value) or "," not in value:
        return [value]
    return [part.strip() for part in value.split(",") if part.strip()]


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
