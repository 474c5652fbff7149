"""The shipped English tagger presets in one line, as NLTK's `pos_tag`:

    import zoo
    zoo.pos_tag("The cat sat on the mat.")   # [('The', 'DET'), ...]

The model behind each is loaded once per process and preset (a shipped
name or a preset folder; or pass a loaded task model) and runs on the
task model's runner. Nothing here needs the recipes.
"""

from zoo.languages.en import brown
from zoo.tasks.tagger import Tagger
from zoo.tasks.tagger import checked_words
from zoo.tasks.task import shared

# The fast tagger (no biLM): as accurate on Brown's test split (0.9818)
# as `pos_en_universal`, which reads the biLM too, at a fraction of the
# cost (docs/presets.md); `preset="pos_en_universal"` takes that one.
TAGGER = "pos_en_universal_fast"

__all__ = ["LANGS", "TAGGER", "TAGSETS", "pos_tag", "pos_tag_sents"]


# NLTK's `tagset` values these presets answer in: None, the preset's own
# tags, and "universal", the 12 universal tags (Petrov et al. 2012).
TAGSETS = (None, "universal")
# NLTK's `lang` values (ISO 639-2) these presets tag.
LANGS = ("eng",)


def _tagger(tagset, lang, preset):
    """The tagger of `preset`, after `tagset` and `lang` are checked: one
    line naming the argument, what was received and what is allowed."""
    if lang not in LANGS:
        raise ValueError(
            f"`lang` must be one of {list(LANGS)} (the English presets); "
            f"received {lang!r}."
        )
    if tagset not in TAGSETS:
        raise ValueError(
            f"`tagset` must be one of {list(TAGSETS)} (None: the preset's "
            f"own tags; 'universal': the 12 universal tags); received "
            f"{tagset!r}."
        )
    tagger = shared(Tagger, preset)
    if tagset == "universal" and set(tagger.labels[1:]) != brown.UNIVERSAL:
        raise ValueError(
            f"`tagset`='universal': the tagger {tagger.name!r} tags with "
            f"{sorted(tagger.labels[1:])[:6]}..., not the 12 universal "
            "tags; pass tagset=None for its own."
        )
    return tagger


def pos_tag_sents(sentences, tagset=None, lang="eng", *, preset=TAGGER):
    """`[[(word, tag), ...], ...]`, as NLTK's `pos_tag_sents` (the same
    arguments, so a script swaps the import): each sentence (a list of
    words, or a raw string split into words and punctuation) tagged by
    the tagger preset `preset` (a shipped name, a preset folder or a
    `Tagger`), batched by length. `tagset`: None (the preset's own tags)
    or `"universal"` (`TAGSETS`); `lang`: `"eng"`. The shipped
    `pos_en_universal_fast` (the default) and `pos_en_universal` tag with
    the 12 universal tags (`NOUN`, `VERB`, ...) either way."""
    return _tagger(tagset, lang, preset).tag(sentences)


def pos_tag(tokens, tagset=None, lang="eng", *, preset=TAGGER):
    """`[(word, tag), ...]` for one sentence, as NLTK's `pos_tag` (the
    same arguments): `tokens` a list of words (kept as they are) or a
    raw string; `tagset`, `lang` and `preset` as `pos_tag_sents`."""
    if not isinstance(tokens, str):
        tokens = checked_words(tokens, "tokens")
    return pos_tag_sents([tokens], tagset, lang, preset=preset)[0]
