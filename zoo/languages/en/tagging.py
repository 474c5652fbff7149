"""The shipped English tagger presets in one line, as NLTK's `pos_tag`:

    import zoo
    zoo.pos_tag("The cat sat on the mat.")   # [('The', 'DET'), ...]

The model behind each is loaded once per process and preset (a shipped
name or a preset folder; or pass a loaded task model) and runs on the
task model's runner. Nothing here needs the recipes.
"""

from zoo.tasks.tagger import Tagger
from zoo.tasks.tagger import checked_words
from zoo.tasks.task import shared

# The fast tagger (no biLM) in UD's tags: trained on UD English EWT and
# Brown in UD's conventions, it answers UD's 17 tags, the 12 universal
# ones and Penn Treebank's (docs/presets.md has its scores beside
# spaCy's); `preset="pos_en_universal_fast"` takes Brown's.
TAGGER = "pos_en_ud_fast"

__all__ = ["LANGS", "TAGGER", "load", "pos_tag", "pos_tag_sents"]


# NLTK's `lang` values (ISO 639-2) these presets tag.
LANGS = ("eng",)


def load(preset=TAGGER, lang="eng"):
    """The tagger of `preset` (loaded once per process: a shipped name, a
    preset folder or a `Tagger`), after `lang` is checked (one line
    naming the argument, what was received and what is allowed)."""
    if lang not in LANGS:
        raise ValueError(
            f"`lang` must be one of {list(LANGS)} (the English presets); "
            f"received {lang!r}."
        )
    return shared(Tagger, preset)


def pos_tag_sents(sentences, tagset=None, lang="eng", *, preset=TAGGER):
    """`[[(word, tag), ...], ...]`, as NLTK's `pos_tag_sents` (the same
    arguments, so a script swaps the import): each sentence (a list of
    words, or a raw string split into words as the preset's training
    corpus splits them) tagged by the tagger preset `preset` (a shipped
    name, a preset folder or a `Tagger`), batched by length.

    `tagset`: None, the preset's own tags (UD's 17 for a preset trained
    on UD English); `"universal"`, the 12 universal tags (NLTK's
    `tagset="universal"`); `"ptb"`, Penn Treebank tags (what NLTK answers
    by default), where the preset has them. `Tagger.tagsets()` lists a
    preset's; any other is refused in one line naming them. `lang`:
    `"eng"`."""
    return load(preset, lang).tag(sentences, tagset=tagset)


def pos_tag(tokens, tagset=None, lang="eng", *, preset=TAGGER):
    """`[(word, tag), ...]` for one sentence, as NLTK's `pos_tag` (the
    same arguments): `tokens` a list of words (kept as they are) or a
    raw string; `tagset`, `lang` and `preset` as `pos_tag_sents`."""
    if not isinstance(tokens, str):
        tokens = checked_words(tokens, "tokens")
    return pos_tag_sents([tokens], tagset, lang, preset=preset)[0]
