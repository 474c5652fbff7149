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

# The fast tagger (no biLM): as accurate on Brown's test split (0.9818)
# as `pos_en_universal`, which reads the biLM too, at a fraction of the
# cost (docs/presets.md); `preset="pos_en_universal"` takes that one.
TAGGER = "pos_en_universal_fast"

__all__ = ["TAGGER", "pos_tag", "pos_tag_sents"]


def pos_tag_sents(sentences, preset=TAGGER):
    """`[[(word, tag), ...], ...]`: each sentence (a list of words, or a
    raw string split into words and punctuation) tagged by the tagger
    preset `preset` (a shipped name, a preset folder or a `Tagger`),
    batched by length. Universal tags (`NOUN`, `VERB`, ...) with the
    shipped `pos_en_universal_fast` (the default) and
    `pos_en_universal`."""
    return shared(Tagger, preset).tag(sentences)


def pos_tag(tokens, preset=TAGGER):
    """`[(word, tag), ...]` for one sentence, as NLTK's `pos_tag`:
    `tokens` a list of words (kept as they are) or a raw string."""
    if not isinstance(tokens, str):
        tokens = checked_words(tokens, "tokens")
    return pos_tag_sents([tokens], preset)[0]
