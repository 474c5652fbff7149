"""The one-line APIs under their earlier names: `zoo.pos_tag`,
`zoo.pos_tag_sents` and `zoo.G2p`, which also take a recipe's run folder
(loaded by the recipe) where the library takes a preset."""

import functools
import pathlib

import zoo
from recipes import models
from zoo.languages.en import TRANSCRIBER
from zoo.languages.en import TAGGER


@functools.lru_cache(maxsize=8)
def _load_run(path, task_class):
    return models.load_task_model(path, "preset", task_class)


def _run_or_preset(preset, task_class):
    """A run folder's task model of `task_class` (loaded once per
    process), else `preset` as it is."""
    if isinstance(preset, (str, pathlib.Path)):
        path = pathlib.Path(preset)
        if (path / "model.keras").is_file() or path.suffix == ".keras":
            return _load_run(path.resolve(), task_class)
    return preset


def pos_tag_sents(sentences, preset=TAGGER):
    """`zoo.pos_tag_sents`; `preset` may also be a tagging run's folder."""
    return zoo.pos_tag_sents(
        sentences, _run_or_preset(preset, zoo.tasks.Tagger)
    )


def pos_tag(tokens, preset=TAGGER):
    """`zoo.pos_tag`; `preset` may also be a tagging run's folder."""
    return zoo.pos_tag(tokens, _run_or_preset(preset, zoo.tasks.Tagger))


class G2p(zoo.G2p):
    """`zoo.G2p`; `preset` may also be a G2P run's folder (its network
    alone: a run has no dictionary)."""

    def __init__(self, preset=TRANSCRIBER, method="beam", **options):
        preset = _run_or_preset(preset, zoo.tasks.Transcriber)
        super().__init__(preset, method, **options)


__all__ = ["TAGGER", "TRANSCRIBER", "G2p", "pos_tag", "pos_tag_sents"]
