"""Task models: trained models that carry their preprocessing, in
keras-hub's Task shape.

- `Tagger`: sentences -> a tag per word (POS, entities);
  `TaggerEnsemble` tags with several, their outputs averaged;
- `TextClassifier`: texts -> a class each;
- `Transcriber`: words -> symbols (grapheme-to-phoneme), a `zoo.Seq2Seq`;
- `Translator`: sentences -> sentences over SentencePiece pieces, a
  `Transcriber`;
- `BiLM`: the ELMo-style bidirectional language model.

Each is a `keras.Model` (it trains, nests and saves like one) with
`from_preset(name or folder)`, `save_to_preset(folder)` and raw text in
`__call__` and `predict`; `pos_tag`, `pos_tag_sents` and `G2p` use the
shipped presets in one line. The recipes train and export these classes;
using them needs nothing from the recipes.
"""

from zoo.tasks.bilm import BiLM
from zoo.tasks.classifier import TextClassifier
from zoo.tasks.ensemble import TaggerEnsemble
from zoo.tasks.shortcuts import G2p
from zoo.tasks.shortcuts import pos_tag
from zoo.tasks.shortcuts import pos_tag_sents
from zoo.tasks.tagger import Tagger
from zoo.tasks.task import Task
from zoo.tasks.task import is_text
from zoo.tasks.transcriber import Transcriber
from zoo.tasks.translator import Translator

__all__ = [
    "BiLM",
    "G2p",
    "Tagger",
    "TaggerEnsemble",
    "Task",
    "TextClassifier",
    "Transcriber",
    "Translator",
    "is_text",
    "pos_tag",
    "pos_tag_sents",
]
