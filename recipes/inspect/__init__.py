"""Moved: the inspection tools are the top-level package `diagnostics`.

`python -m recipes.inspect TOOL ...` still works: it runs
`python -m diagnostics TOOL ...` (same tools, flags and outputs).
"""
