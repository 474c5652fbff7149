"""`TextClassifier`: a text classifier that reads raw text."""

import keras
import numpy as np

from zoo import heads
from zoo._package import PACKAGE
from zoo.tasks import preprocessors
from zoo.tasks.task import Task
from zoo.tasks.task import Words
from zoo.tasks.task import check_list
from zoo.tasks.task import length_batches


@keras.saving.register_keras_serializable(package=PACKAGE)
class TextClassifier(Words, Task, keras.Model):
    """Classifies whole texts: a pooling head over a backbone, and the
    preprocessor that turns texts into the backbone's inputs and output
    columns into class names.

    Args:
        backbone: a `zoo.Backbone` (or any functional Keras model) from
            token ids (and, on a pretrained biLM, each word's character
            ids) to one vector per word (or per text, with
            `pooling="last"`).
        preprocessor: a `zoo.tasks.TextClassifierPreprocessor`: the
            vocabulary, the class names, the characters where the
            backbone reads them.
        pooling, attention_units, dropout, seed, wide: as
            `zoo.heads.sequence_classifier` takes them (`wide`: a
            `zoo.layers.TfIdf` branch beside the stack).
        name: the model's name.

    Example:
    ```python
    classifier = zoo.tasks.TextClassifier.from_preset("my_topics")
    classifier.classify(["The striker scored twice ."])
    # [('sport', 0.97)]
    ```
    """

    preset_kind = "classifier"
    preprocessor_class = preprocessors.TextClassifierPreprocessor

    def __init__(
        self,
        backbone,
        preprocessor,
        *,
        pooling="mean",
        attention_units=64,
        dropout=0.0,
        seed=None,
        wide=None,
        name="classifier",
        **kwargs,
    ):
        kwargs.pop("dtype", None)
        preprocessor = self.checked_preprocessor(preprocessor)
        if isinstance(wide, dict):
            wide = keras.saving.deserialize_keras_object(wide)
        inputs, outputs = heads.classifier_graph(
            backbone,
            len(preprocessor.labels),
            pooling=pooling,
            attention_units=attention_units,
            dropout=dropout,
            seed=seed,
            wide=wide,
            characters=preprocessor.characters is not None,
        )
        super().__init__(inputs, outputs, name=name, **kwargs)
        self.set_parts(backbone, preprocessor)
        self.set_head_config(
            pooling=pooling,
            attention_units=attention_units,
            dropout=dropout,
            seed=seed,
        )
        object.__setattr__(self, "_wide", wide)

    def head_config(self):
        wide = self._wide
        if wide is not None:
            wide = keras.saving.serialize_keras_object(wide)
        return {**super().head_config(), "wide": wide}

    @property
    def labels(self):
        """The name of each class, by output column."""
        return self.preprocessor.labels

    def encode(self, texts, max_length=None):
        """The model's inputs for raw strings (`preprocessor.encode`)."""
        return self.preprocessor.encode(texts, max_length)

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
        names = self.preprocessor.label_names.decode(probabilities)
        return [(str(n), float(p.max())) for n, p in zip(names, probabilities)]

    def run_text(self, inputs, batch_size=64):
        if isinstance(inputs, str):
            return self.classify([inputs], batch_size)[0]
        return self.classify(inputs, batch_size)
