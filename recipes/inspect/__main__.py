"""`python -m recipes.inspect TOOL`: moved to `python -m diagnostics TOOL`,
which this runs (same tools, flags and outputs)."""

import runpy

if __name__ == "__main__":
    runpy.run_module("diagnostics", run_name="__main__", alter_sys=True)
