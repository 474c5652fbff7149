"""What is installed, asked without importing it: the optional packages
behind the project's extras (`pyproject.toml`), so that a missing one is
one line naming the extra to install, not a traceback from deep inside
another library.

    harness.extras.require("recipes", "matplotlib", "seqeval")
"""

import importlib.util

from harness.errors import UsageError

DISTRIBUTION = "stacked-rnn-zoo"


def installed(module):
    """Whether `module` can be imported here, without importing it (a
    module set to None in `sys.modules`, as a test hides one, is not)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ValueError, ImportError):
        return False


def install_hint(extra):
    """`pip install 'stacked-rnn-zoo[EXTRA]'`."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def require(extra, *modules, what=""):
    """Raises `UsageError` naming `extra` unless every one of `modules`
    is installed; `what` says what needs them (default: the extra)."""
    missing = [m for m in modules if not installed(m)]
    if missing:
        raise UsageError(
            f"{what or 'this'} needs the `{extra}` extra, which is not "
            f"installed (missing: {', '.join(missing)}): "
            f"{install_hint(extra)}"
        )
