"""The shipped presets in one line, as the tools users know them
(NLTK's `pos_tag`, g2p_en's `G2p`):

    import zoo
    zoo.pos_tag("The cat sat on the mat.")   # [('The', 'DET'), ...]
    zoo.G2p()("keras zoo")                   # ['K', 'EH1', ..., ' ', ...]

The model behind each is loaded once per process and preset (a shipped
name or a preset folder; or pass a loaded task model) and runs on the
task model's compiled inference call. Nothing here needs the recipes.
"""

import os
import threading

from zoo import text as text_lib
from zoo.tasks.tagger import Tagger
from zoo.tasks.transcriber import Transcriber
from zoo.tasks.transcriber import check_method

TAGGER = "pos_en_universal"
TRANSCRIBER = "g2p_en_cmudict"
_LOADED = {}
_LOCK = threading.Lock()


def loaded(cls, preset):
    """`cls.from_preset(preset)`, once per process, class and preset; a
    model of `cls` passed as `preset` is used as it is."""
    if isinstance(preset, cls):
        return preset
    key = (
        cls,
        os.fspath(preset) if isinstance(preset, os.PathLike) else preset,
    )
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = cls.from_preset(preset)
        return _LOADED[key]


def pos_tag_sents(sentences, preset=TAGGER):
    """`[[(word, tag), ...], ...]`: each sentence (a list of words, or a
    raw string split into words and punctuation) tagged by the tagger
    preset `preset` (a shipped name, a preset folder or a `Tagger`),
    batched by length. Universal tags (`NOUN`, `VERB`, ...) with the
    shipped `pos_en_universal`."""
    return loaded(Tagger, preset).tag(sentences)


def pos_tag(tokens, preset=TAGGER):
    """`[(word, tag), ...]` for one sentence, as NLTK's `pos_tag`:
    `tokens` a list of words (kept as they are) or a raw string."""
    if not isinstance(tokens, (str, list, tuple)):
        raise TypeError(
            "`tokens` must be a list of words or a string; received "
            f"{type(tokens).__name__}"
        )
    return pos_tag_sents([tokens], preset)[0]


class G2p:
    """English words to ARPAbet phonemes (with stress digits, `AH0`, with
    the shipped `g2p_en_cmudict`), as g2p_en's `G2p`:

        g2p = G2p()
        g2p("I refuse")          # ['AY1', ' ', 'R', 'IH0', 'F', ...]
        g2p(["keras", "zoo"])    # [['K', 'EH1', ...], ['Z', 'UW1']]

    A string is split into words and punctuation (`zoo.text.tokenize`),
    each word lower-cased and transcribed, a token without a letter
    passed through as it is, and the words joined by `" "` in one flat
    list (g2p_en's output); a list gives one list of phonemes per word.
    Every word is transcribed by the model (no dictionary lookup), in
    batches, with beam search (`method="greedy"` is faster).
    """

    def __init__(self, preset=TRANSCRIBER, method="beam"):
        check_method(method)
        self.transcriber = loaded(Transcriber, preset)
        self.method = method

    def __call__(self, text):
        if not isinstance(text, str):
            return self.transcriber.transcribe(list(text), self.method)
        tokens = text_lib.tokenize(text, lowercase=True, split_punctuation=True)
        words = [t for t in tokens if any(c.isalpha() for c in t)]
        phones = dict(
            zip(words, self.transcriber.transcribe(words, self.method))
        )
        result = []
        for token in tokens:
            if result:
                result.append(" ")
            result.extend(phones.get(token, [token]))
        return result
