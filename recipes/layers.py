"""Layers the recipes put into the models they save."""

import keras
import numpy as np


@keras.saving.register_keras_serializable(package="recipes")
class LabelNames(keras.layers.Layer):
    """Passes class probabilities through and keeps the class names.

    The last layer of a recipe model, so that a saved `.keras` file says
    what its outputs mean: `model.get_layer("labels").labels[i]` names
    output column `i`. Column 0 of a tagger is padding (`""`).

    Args:
        labels: list of strings, one per output column.
    """

    def __init__(self, labels, **kwargs):
        super().__init__(**kwargs)
        labels = list(labels)
        if not labels or not all(isinstance(x, str) for x in labels):
            raise ValueError(
                "`labels` must be a non-empty list of strings; received "
                f"{labels!r}."
            )
        self.labels = labels
        self.supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def decode(self, probabilities):
        """Names of the most likely classes, same leading shape."""
        ids = np.asarray(probabilities).argmax(axis=-1)
        return np.asarray(self.labels, dtype=object)[ids]

    def get_config(self):
        return {**super().get_config(), "labels": list(self.labels)}
