"""A recipe package's names, loaded on first use (PEP 562).

`python -m recipes.tagging` imports the package `recipes.tagging` before
it runs `recipes/tagging/__main__.py`, which chooses the Keras backend
from `--backend` (`harness.entry`): so the package itself must not
import Keras. Its names (`TASK`, `run`, `load`, `Config`, `main`, ...)
still read `recipes.tagging.run` as before: the package's
`__getattr__` imports the module that defines one on first use.
"""

import importlib


def exports(package, modules):
    """A module-level `__getattr__` for `package` that finds a name in
    its `modules` (submodule names, searched in order), or a submodule
    itself."""

    def __getattr__(name):
        if name in modules:
            return importlib.import_module(f"{package}.{name}")
        if name.startswith("__"):
            raise AttributeError(name)
        for module in modules:
            found = vars(importlib.import_module(f"{package}.{module}"))
            if name in found:
                return found[name]
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
