"""`TextClassifier`: a text classifier that reads raw text."""

import keras
import numpy as np

from zoo import text as text_lib
from zoo._package import PACKAGE
from zoo.tasks.task import LabelledText
from zoo.tasks.task import Task
from zoo.tasks.task import check_list
from zoo.tasks.task import length_batches


def words_of(vocabulary, text):
    """`text`'s words as `vocabulary` (a `zoo.layers.TokenVocabulary`)
    splits it, one per id, in their own case: what a classifier on a
    pretrained biLM spells."""
    return text_lib.tokenize(
        text, lowercase=False, strip_punctuation=vocabulary.strip_punctuation
    )


@keras.saving.register_keras_serializable(package=PACKAGE)
class TextClassifier(LabelledText, Task, keras.Model):
    """Classifies whole texts: a functional model from token ids (and, on
    a pretrained biLM, each word's character ids) to one class
    distribution per text.

    Built by `zoo.heads.sequence_classifier` with `vocabulary` and
    `labels`: its layers `vocabulary` (a `zoo.layers.TokenVocabulary`),
    `labels` (`zoo.layers.LabelNames`) and, where it reads characters,
    `characters`.

    Example:
    ```python
    classifier = zoo.tasks.TextClassifier.from_preset("my_topics")
    classifier.classify(["The striker scored twice ."])
    # [('sport', 0.97)]
    ```
    """

    preset_kind = "classifier"
    built_by = "zoo.heads.sequence_classifier(..., vocabulary=..., labels=...)"

    def encode(self, texts, max_length=None):
        """The model's inputs for raw strings: ids (and, for a classifier
        on a pretrained biLM, each word's characters, case kept), each
        text cut to `max_length` words if given."""
        vocabulary = self.vocabulary
        ids = vocabulary.encode(texts, max_length)
        characters = self.characters
        if characters is None:
            return ids
        words = [words_of(vocabulary, text)[: ids.shape[1]] for text in texts]
        return ids, characters.encode(words, width=ids.shape[1])

    def probabilities(self, texts, batch_size=64, max_length=None):
        """`(len(texts), classes)` probabilities, the texts batched by
        length (`length_batches`, on their whitespace-separated words), so
        one very long text does not pad every other to its length."""
        result = np.zeros((len(texts), len(self.labels)), "float32")
        lengths = [
            len(t.split()) if isinstance(t, str) else len(t) for t in texts
        ]
        for batch in length_batches(lengths, batch_size):
            inputs = self.encode([texts[i] for i in batch], max_length)
            result[batch] = self.infer(inputs)
        return result

    def classify(self, texts, batch_size=64, max_length=None):
        """`[(label, probability), ...]`, one pair per raw string (each
        cut to `max_length` words if given)."""
        check_list("texts", texts, "a list of texts")
        bad = [t for t in texts if not isinstance(t, str)]
        if bad:
            raise TypeError(
                "`texts` must hold strings; received "
                f"{type(bad[0]).__name__} {bad[0]!r} among them."
            )
        probabilities = self.probabilities(list(texts), batch_size, max_length)
        names = self.get_layer("labels").decode(probabilities)
        return [(str(n), float(p.max())) for n, p in zip(names, probabilities)]

    def run_text(self, inputs, batch_size=64):
        if isinstance(inputs, str):
            return self.classify([inputs], batch_size)[0]
        return self.classify(inputs, batch_size)
