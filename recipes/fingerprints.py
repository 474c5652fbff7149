"""How two fingerprints of a run differ, in a user's words.

A run's fingerprint (`recipes.training.fingerprint`: its data files'
sizes and hashes, a digest of the examples loaded, the backend and the
Keras version) is kept in its backup; `recipes.checkpoints.RunBackup`
refuses to resume from a backup whose fingerprint differs from the
run's, and `differences` says what changed: each entry named as a user
would call it (`data` for the files and examples), with its old and new
values on one short line (a file named, a digest shortened).
"""


def differences(saved, now):
    """`[(what, how)]` for each entry that differs between the fingerprint
    dicts `saved` and `now`: what a user would call it, and its old and
    new values. A change of the examples is left out when the files
    changed: the files name what changed; the examples' digest follows."""
    return [
        _changed(key, saved.get(key), now.get(key))
        for key in sorted(set(saved) | set(now))
        if saved.get(key) != now.get(key)
        and not (key == "examples" and saved.get("files") != now.get("files"))
    ]


def _changed(key, old, new):
    """`(what, how)` for a fingerprint entry that differs: what a user
    would call it and its old and new values (a file named)."""
    if key == "files" and isinstance(old, dict) and isinstance(new, dict):
        names = sorted(
            k for k in set(old) | set(new) if old.get(k) != new.get(k)
        )
        return "data", ", ".join(
            f"{name} {_short(old.get(name))} -> {_short(new.get(name))}"
            for name in names[:3]
        )
    if key == "examples":
        return "data", (
            f"the examples loaded differ: {_short(old)} -> {_short(new)}"
        )
    return key, f"{key} {_short(old)} -> {_short(new)}"


def _short(value):
    """A fingerprint value on one short line."""
    if isinstance(value, dict) and "sha256" in value:
        return f"{value.get('bytes')} bytes, sha256 {value['sha256'][:12]}"
    if isinstance(value, str) and len(value) == 64:
        return f"sha256 {value[:12]}"  # a digest
    return "none" if value is None else str(value)[:60]
