"""Preprocessors: what turns raw text into a task model's inputs and its
outputs back into names (keras-hub's `Preprocessor`, one per task kind).

A preprocessor is a Keras layer that is never called in the model's
graph: it is the task model's `preprocessor` attribute, so Keras saves it
with the model (its config names its vocabularies and labels), and
`from_preset` and `keras.saving.load_model(..., safe_mode=True)` give it
back. The vocabularies are `zoo.layers` (`TokenVocabulary`,
`CharacterVocabulary`, `TokenFeatures`, `LabelNames`); a transcriber's
symbols and a translator's SentencePiece models are plain config.

    preprocessor = zoo.tasks.TaggerPreprocessor(
        zoo.layers.TokenVocabulary(["the", "cat"]), ["", "DET", "NOUN"])
    preprocessor.encode([["the", "cat"]])   # [[2, 3]]
"""

import keras

from zoo import presets
from zoo import text as text_lib
from zoo._package import PACKAGE
from zoo.layers.token_features import TokenFeatures
from zoo.layers.vocabulary import CharacterVocabulary
from zoo.layers.vocabulary import LabelNames
from zoo.layers.vocabulary import TokenVocabulary
from zoo.subwords import SPECIALS
from zoo.subwords import Subwords
from zoo.subwords import content_ids
from zoo.tasks import conventions as conventions_lib

# The ids a transcriber reserves: 0 padding, 1 an unknown symbol, and on
# the target side 2 and 3 start and end.
PAD, UNKNOWN, START, END = 0, 1, 2, 3
SOURCE_SPECIALS = ("<pad>", "<unk>")
TARGET_SPECIALS = ("<pad>", "<unk>", "<s>", "</s>")


def _layer(name, value, cls, optional=False):
    """`value` as a `cls` layer: the layer itself or its serialized
    config (what `from_config` passes); else a `TypeError` naming it."""
    if value is None and optional:
        return None
    if isinstance(value, dict):
        value = keras.saving.deserialize_keras_object(value)
    if not isinstance(value, cls):
        allowed = f"a zoo.layers.{cls.__name__}" + (
            " or None" if optional else ""
        )
        raise TypeError(
            f"`{name}` must be {allowed}; received {type(value).__name__}."
        )
    return value


def _serialized(layer):
    return None if layer is None else keras.saving.serialize_keras_object(layer)


class Preprocessor(keras.layers.Layer):
    """The base of the task preprocessors: a layer that carries data (no
    weights) and is never called in a graph."""

    # How `zoo.engine` serves it: it is not in the graph; nothing to run.
    serving_form = "numpy"

    def call(self, inputs):
        raise TypeError(
            f"{type(self).__name__} is not called in a graph: use its "
            "`encode` on raw text, then the task model on the ids."
        )

    @classmethod
    def from_preset(cls, preset):
        """The preprocessor of a task preset (a shipped name or a preset
        folder, `zoo.presets`), as keras-hub's `Preprocessor.from_preset`:
        its vocabularies and labels, for text to ids elsewhere (the whole
        preset is read, checksums first). A preset whose preprocessor is
        of another class is refused in one line naming both."""
        found = presets.from_preset(preset).preprocessor
        if not isinstance(found, cls):
            raise presets.PresetError(
                f"preset {preset}: its preprocessor is a "
                f"{type(found).__name__}, not a {cls.__name__}"
            )
        return found


class LabelledWords(Preprocessor):
    """What a tagger's and a classifier's preprocessors share: the
    words' vocabulary, the label of each output column and, where the
    backbone reads them, the words' characters.

    Args:
        vocabulary: the `zoo.layers.TokenVocabulary` of the words.
        labels: the name of each output column: a list of distinct
            strings or a `zoo.layers.LabelNames`.
        characters: a `zoo.layers.CharacterVocabulary` where the backbone
            reads each word's characters, else None.
    """

    def __init__(self, vocabulary, labels, characters=None, **kwargs):
        super().__init__(**kwargs)
        self.vocabulary = _layer("vocabulary", vocabulary, TokenVocabulary)
        if not isinstance(labels, (LabelNames, dict)):
            labels = LabelNames(labels, name="labels")
        self.label_names = _layer("labels", labels, LabelNames)
        self.characters = _layer(
            "characters", characters, CharacterVocabulary, optional=True
        )

    @property
    def labels(self):
        """The name of each output column."""
        return list(self.label_names.labels)

    def get_config(self):
        return {
            **super().get_config(),
            "vocabulary": _serialized(self.vocabulary),
            "labels": _serialized(self.label_names),
            "characters": _serialized(self.characters),
        }


@keras.saving.register_keras_serializable(package=PACKAGE)
class TaggerPreprocessor(LabelledWords):
    """A tagger's words in, tags out.

    Args:
        vocabulary, characters: as `LabelledWords` takes them.
        labels: the tag of each output column, column 0 the padding
            (`""`).
        token_features: a `zoo.layers.TokenFeatures` where the backbone
            reads word shapes and gazetteer matches, else None.
        conventions: the name of the text conventions of the training
            corpus (`zoo.tasks.conventions`: e.g. `"en_brown"`, what
            Brown writes otherwise and the tags it never shows, registered
            by `zoo.languages.en`), or None for the words as they are.
    """

    def __init__(
        self,
        vocabulary,
        labels,
        characters=None,
        token_features=None,
        conventions=None,
        **kwargs,
    ):
        super().__init__(vocabulary, labels, characters, **kwargs)
        self.token_features = _layer(
            "token_features", token_features, TokenFeatures, optional=True
        )
        if conventions is not None:
            conventions_lib.get(conventions)  # a known name, or an error
        self.conventions = conventions

    def text_conventions(self):
        """The `zoo.tasks.conventions.Conventions` of the corpus, or None."""
        if self.conventions is None:
            return None
        return conventions_lib.get(self.conventions)

    def encode(self, sentences, ids=None):
        """The model's inputs for lists of words: ids (and characters, and
        token features, where the tagger reads them); `ids`, the words'
        ids already padded (a training pipeline's), if known."""
        if ids is None:
            ids = self.vocabulary.encode(sentences)
        inputs = [ids]
        if self.characters is not None:
            inputs.append(self.characters.encode(sentences, width=ids.shape[1]))
        if self.token_features is not None:
            inputs.append(
                self.token_features.encode(sentences, width=ids.shape[1])
            )
        return ids if len(inputs) == 1 else tuple(inputs)

    def get_config(self):
        return {
            **super().get_config(),
            "token_features": _serialized(self.token_features),
            "conventions": self.conventions,
        }


@keras.saving.register_keras_serializable(package=PACKAGE)
class TextClassifierPreprocessor(LabelledWords):
    """A classifier's texts in, class names out (`LabelledWords`'
    arguments: `characters` where the backbone reads a pretrained biLM)."""

    def words(self, text):
        """`text`'s words as the vocabulary splits it, one per id, in their
        own case: what a classifier on a pretrained biLM spells."""
        return text_lib.tokenize(
            text,
            lowercase=False,
            strip_punctuation=self.vocabulary.strip_punctuation,
        )

    def encode(self, texts, max_length=None):
        """The model's inputs for raw strings: ids (and, for a classifier
        on a pretrained biLM, each word's characters, case kept), each
        text cut to `max_length` words if given."""
        ids = self.vocabulary.encode(texts, max_length)
        if self.characters is None:
            return ids
        words = [self.words(text)[: ids.shape[1]] for text in texts]
        return ids, self.characters.encode(words, width=ids.shape[1])


def _symbols(name, values):
    values = list(values)
    bad = [s for s in values if not isinstance(s, str) or not s]
    if not values or bad or len(set(values)) != len(values):
        raise ValueError(
            f"`{name}` must be distinct non-empty strings, at least one; "
            f"received {(bad or values)[:3]!r} among {len(values)}."
        )
    return values


@keras.saving.register_keras_serializable(package=PACKAGE)
class TranscriberPreprocessor(Preprocessor):
    """A transcriber's symbols: source symbols (letters) to ids, target
    ids to symbols (phonemes).

    Ids: source `0` padding, `1` an unknown symbol, `i + 2` is
    `source_symbols[i]`; target `0` padding, `1` unknown, `2` start, `3`
    end, `i + 4` is `target_symbols[i]`.

    Args:
        source_symbols: the symbols read (one-character strings: letters).
        target_symbols: the symbols written (phonemes).
    """

    def __init__(self, source_symbols, target_symbols, **kwargs):
        super().__init__(**kwargs)
        # Plain, untracked lists: config, not state.
        object.__setattr__(
            self, "source_symbols", _symbols("source_symbols", source_symbols)
        )
        object.__setattr__(
            self, "target_symbols", _symbols("target_symbols", target_symbols)
        )
        object.__setattr__(
            self,
            "_source_ids",
            {s: i + 2 for i, s in enumerate(self.source_symbols)},
        )

    @property
    def source_vocabulary_size(self):
        """Source ids, the special ones included."""
        return len(self.source_symbols) + len(SOURCE_SPECIALS)

    @property
    def target_vocabulary_size(self):
        """Target ids, the special ones included."""
        return len(self.target_symbols) + len(TARGET_SPECIALS)

    def source_ids(self, item):
        """A word's source ids (an unseen symbol: 1)."""
        return [self._source_ids.get(c, UNKNOWN) for c in item]

    def source_length(self, item):
        """An input's length in the units `max_source_length` counts."""
        return len(item)

    def decode_ids(self, ids):
        """The target symbols of ids, up to the end id (or padding)."""
        return [
            self.target_symbols[i - len(TARGET_SPECIALS)]
            for i in content_ids(ids)
        ]

    def get_config(self):
        return {
            **super().get_config(),
            "source_symbols": list(self.source_symbols),
            "target_symbols": list(self.target_symbols),
        }


def _subwords(name, value):
    if isinstance(value, Subwords):
        return value
    return Subwords(value, name)


@keras.saving.register_keras_serializable(package=PACKAGE)
class TranslatorPreprocessor(TranscriberPreprocessor):
    """A translator's two SentencePiece models (`zoo.subwords.Subwords`):
    sentences to source pieces, target pieces to text. Ids are
    SentencePiece's own on both sides: `0` padding, `1` unknown, `2`
    start, `3` end, then the pieces.

    Args:
        source_subwords, target_subwords: the SentencePiece models of the
            two languages (`Subwords`, its serialized bytes, or the base64
            text a config keeps).
    """

    def __init__(self, source_subwords, target_subwords, **kwargs):
        source = _subwords("source_subwords", source_subwords)
        target = _subwords("target_subwords", target_subwords)
        # The transcriber's id layout: source symbols from id 2, target
        # symbols from id 4, which is SentencePiece's.
        super().__init__(
            source.pieces()[2:], target.pieces()[len(SPECIALS) :], **kwargs
        )
        object.__setattr__(self, "source_subwords", source)
        object.__setattr__(self, "target_subwords", target)

    def source_ids(self, item):
        return self.source_subwords.encode([item])[0]

    def source_length(self, item):
        return len(self.source_subwords.encode([item])[0])

    def decode_ids(self, ids):
        """The target text of ids, up to the end id (or padding)."""
        return self.target_subwords.decode([ids])[0]

    def get_config(self):
        config = super().get_config()
        for key in ("source_symbols", "target_symbols"):
            config.pop(key)
        return {
            **config,
            "source_subwords": self.source_subwords.to_text(),
            "target_subwords": self.target_subwords.to_text(),
        }


@keras.saving.register_keras_serializable(package=PACKAGE)
class BiLMPreprocessor(Preprocessor):
    """A biLM's sentences in: the predicted words' ids (`vocabulary`, a
    `zoo.layers.TokenVocabulary` holding the sentence boundaries) and
    the characters it reads (`characters`, a
    `zoo.layers.CharacterVocabulary`)."""

    def __init__(self, vocabulary, characters, **kwargs):
        super().__init__(**kwargs)
        self.vocabulary = _layer("vocabulary", vocabulary, TokenVocabulary)
        self.characters = _layer("characters", characters, CharacterVocabulary)

    def encode(self, sentences):
        """`(word ids, character ids)` for lists of words."""
        ids = self.vocabulary.encode(sentences)
        return ids, self.characters.encode(sentences, width=ids.shape[1])

    def get_config(self):
        return {
            **super().get_config(),
            "vocabulary": _serialized(self.vocabulary),
            "characters": _serialized(self.characters),
        }


def check(name, value, cls):
    """`value` if it is a `cls` preprocessor, else a `TypeError` naming
    `name` and what is allowed."""
    if isinstance(value, dict):
        value = keras.saving.deserialize_keras_object(value)
    if not isinstance(value, cls):
        raise TypeError(
            f"`{name}` must be a zoo.tasks.{cls.__name__}; received "
            f"{type(value).__name__}."
        )
    return value


__all__ = [
    "BiLMPreprocessor",
    "LabelledWords",
    "Preprocessor",
    "TaggerPreprocessor",
    "TextClassifierPreprocessor",
    "TranscriberPreprocessor",
    "TranslatorPreprocessor",
    "check",
]
