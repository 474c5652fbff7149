"""Presets from recipe runs: `python -m recipes.presets {list,show,export}`
(`recipes.presets.cli`), and `export`, which makes a finished run a
preset (`recipes.presets.exporter`).

The one-line APIs live in the library (`zoo.pos_tag`, `zoo.pos_tag_sents`,
`zoo.G2p`); their earlier names here keep working, and take a recipe's
run folder too:

    from recipes.presets import G2p, pos_tag
"""

from recipes import lazy

__getattr__ = lazy.exports(__name__, ("exporter", "cli", "shortcuts"))
