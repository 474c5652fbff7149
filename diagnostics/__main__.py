"""`python -m diagnostics TOOL [options]`; `--help` after TOOL."""

import importlib
import sys
import textwrap

import diagnostics
import harness
from diagnostics import TOOLS
from harness import flags

USAGE = "usage: python -m diagnostics TOOL [options]"

MODULES = {
    "activations": "diagnostics.activations",
    "gradients": "diagnostics.gradients",
    "probe": "diagnostics.probing",
    "cost": "diagnostics.cost",
    "study": "diagnostics.study",
}


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(f"{USAGE}\n\n{flags.describe(diagnostics.__doc__)}\n")
        print("tools (python -m diagnostics TOOL --help for its options):")
        for name, text in TOOLS.items():
            print(
                textwrap.fill(
                    f"  {name:12} {text}", 79, subsequent_indent=" " * 15
                )
            )
        return None
    tool, rest = argv[0], argv[1:]
    if tool not in MODULES:
        raise harness.UsageError(
            f"unknown tool {tool!r}; known: {', '.join(MODULES)}"
        )
    return importlib.import_module(MODULES[tool]).main(rest)


if __name__ == "__main__":
    harness.run_cli(main)
