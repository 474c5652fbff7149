"""The name under which models of the first release saved `LabelNames`.

Recipes now save `zoo.layers.LabelNames` (so `import zoo` alone loads
their models); this subclass, registered as `recipes>LabelNames`, keeps
the `.keras` files written before that loading.
"""

import keras

from zoo.layers import LabelNames as _ZooLabelNames


@keras.saving.register_keras_serializable(package="recipes")
class LabelNames(_ZooLabelNames):
    """`zoo.layers.LabelNames` under its first release's registered name."""
