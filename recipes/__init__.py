"""Runnable training recipes on real data.

    python -m recipes.tagging          # POS tagging / NER
    python -m recipes.classification   # text classification
    python -m recipes.seq2seq          # grapheme-to-phoneme (encoder-decoder)
    python -m recipes.launch --workers 2 -- python -m recipes.tagging \
        --distribute multi-worker      # N local workers (recipes.distributed)

Importing `recipes` registers the layers the recipes save in their models
(`recipes.layers.LabelNames`), so `keras.saving.load_model` reads them.
"""

import os

# Quiet TensorFlow's C++ start-up logs unless the user asked for them; set
# here because importing `recipes.layers` imports Keras (and TensorFlow).
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from recipes import layers  # noqa: E402, F401 - registers LabelNames
