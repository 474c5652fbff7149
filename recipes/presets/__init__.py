"""Presets from recipe runs: `python -m recipes.presets {list,show,export}`
(`recipes.presets.cli`), and `export`, which makes a finished run a
preset (`recipes.presets.exporter`).

The one-line APIs live in the library (`zoo.pos_tag`, `zoo.pos_tag_sents`,
`zoo.G2p`); on a recipe's run, give them its model:
`zoo.pos_tag(words, preset=recipes.tagging.load(RUN))`.
"""

from recipes import lazy

__getattr__ = lazy.exports(__name__, ("exporter", "cli"))
