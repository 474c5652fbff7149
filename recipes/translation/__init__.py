"""Train a stacked encoder-decoder for translation (Spanish to English
Bible verses by default).

    python -m recipes.translation                   # the default run
    python -m recipes.translation --quick --output runs/translation-quick
    python -m recipes.translation --direction en-es
    python -m recipes.translation --dataset files \\
        --train-files train.es,train.en --dev-files dev.es,dev.en \\
        --test-files test.es,test.en
    python -m recipes.translation --backend torch     # any Keras backend
    python -m recipes.translation predict --model runs/translation < es.txt

Data (`recipes.data.parallel`): the verses of the Reina-Valera 1909
(Debian `sword-text-sparv`) paired with the same verses of the World
English Bible (`sword-text-web`), both public domain, read offline from
the installed SWORD modules: 31,077 pairs. Development and test are
whole books, so no verse's neighbours, and no retelling of it, are
trained on: dev Joshua, Lamentations, Amos, Nahum, Habakkuk, Colossians,
Titus, 1 Peter (1,307 verses); test Ruth, Esther, Jonah, Acts,
Philippians, James (1,514); train the other 52 books (28,256).
`--dataset files` reads a user's line-aligned UTF-8 files instead.

Subwords: a SentencePiece model per language (`--vocabulary-size`
pieces, `--subword-model unigram` or `bpe`), learned on the training
side only, cached in the data folder (`zoo.subwords.Subwords`); the verse
pairs are cached there too, keyed by both modules' files.
Training pairs longer than `--max-source-length` or
`--max-target-length` pieces are left out (OpenNMT's `filtertoolong`).

Model: `zoo.build_seq2seq` as in `recipes.g2p` (both build it with
`recipes.encoder_decoder`): a piece embedding, a stacked (by default
bidirectional) LSTM encoder, a `dense` state bridge,
a stacked LSTM decoder with `cosine` attention over the top encoder
layer (`general`'s score between unit vectors times a learned sharpness:
`general` itself collapsed onto one source piece here), residual
connections and layer normalisation between layers (`--no-residual`,
`--no-layer-norm`), every weight drawn uniform in +-0.1
(`--param-init`, OpenNMT's: with Keras's smaller initial weights the
model ignored its source for hundreds of steps), teacher forcing; every
stack option is a flag, `--decoder-layers` and `--decoder-units` set the
decoder apart. Decoding: greedy and beam search (`--beam-width`,
`--length-penalty`).

Metrics: `test_bleu` and `test_chrf`, sacrebleu's corpus BLEU (`13a`
tokeniser) and chrF of the detokenised beam-search output against the
reference verses, with `greedy_test_*` beside them, decoding speed in
sentences per second and five sample translations.

Writes to `--output`: `config.json`, `metrics.json`, `model.keras` (a
`zoo.tasks.Translator`: the `zoo.Seq2Seq` with both subword models and
its decoding settings; it reloads with `safe_mode=True`),
`learning_curves.png`, `attention.png` (the attention of a sample test
verse), `log.csv` and TensorBoard logs.
`recipes.translation.load(OUTPUT)(["La casa es grande."])` translates
new sentences. An interrupted run resumes from its last finished epoch
when the same command is run again; a finished one is not retrained.
"""

# The modules: `config` (settings and help), `task` (the `Recipe`, `run`,
# `load`, the data and the model), `cli` (`main`, `predict`). Loaded on
# first use (`recipes.lazy`).
from recipes import lazy

__getattr__ = lazy.exports(__name__, ("config", "task", "cli"))
