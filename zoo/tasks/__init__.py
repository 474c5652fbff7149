"""Task models: trained models that carry their preprocessing, in
keras-hub's three parts: a task (`Task(backbone, preprocessor)` and its
head) on a backbone (`zoo.Backbone`, or a `zoo.Seq2Seq` for the
sequence-to-sequence tasks) with a preprocessor per task kind
(`TaggerPreprocessor`, `TextClassifierPreprocessor`,
`TranscriberPreprocessor`, `TranslatorPreprocessor`, `BiLMPreprocessor`:
the vocabularies and label names, saved as their own config).

- `Tagger`: sentences -> a tag per word (POS, entities);
  `TaggerEnsemble` tags with several, their outputs averaged;
- `TextClassifier`: texts -> a class each;
- `Transcriber`: words -> symbols (grapheme-to-phoneme), a `zoo.Seq2Seq`;
- `Translator`: sentences -> sentences over SentencePiece pieces, a
  `Transcriber`;
- `BiLM`: the ELMo-style bidirectional language model.

Each is a `keras.Model` (it trains, nests and saves like one) with
`from_preset(name or folder)`, `save_to_preset(folder)` and raw text in
`__call__` and `predict`; `zoo.pos_tag` and `zoo.pos_tag_sents` use the
shipped presets in one line (`zoo.G2p`, English text to phonemes, is in
`zoo.languages.en`). The recipes train and export these classes; using
them needs nothing from the recipes.
"""

from zoo.tasks import conventions
from zoo.tasks import convert
from zoo.tasks import preprocessors
from zoo.tasks.bilm import BiLM
from zoo.tasks.classifier import TextClassifier
from zoo.tasks.ensemble import TaggerEnsemble
from zoo.tasks.preprocessors import BiLMPreprocessor
from zoo.tasks.preprocessors import Preprocessor
from zoo.tasks.preprocessors import TaggerPreprocessor
from zoo.tasks.preprocessors import TextClassifierPreprocessor
from zoo.tasks.preprocessors import TranscriberPreprocessor
from zoo.tasks.preprocessors import TranslatorPreprocessor
from zoo.tasks.tagger import Tagger
from zoo.tasks.task import Task
from zoo.tasks.task import is_text
from zoo.tasks.transcriber import Transcriber
from zoo.tasks.translator import Translator

__all__ = [
    "BiLM",
    "BiLMPreprocessor",
    "Preprocessor",
    "Tagger",
    "TaggerEnsemble",
    "TaggerPreprocessor",
    "Task",
    "TextClassifier",
    "TextClassifierPreprocessor",
    "Transcriber",
    "TranscriberPreprocessor",
    "Translator",
    "TranslatorPreprocessor",
    "conventions",
    "convert",
    "preprocessors",
    "is_text",
]
