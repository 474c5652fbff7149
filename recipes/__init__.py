"""Runnable training recipes on real data, on every Keras backend.

    python -m recipes.tagging          # POS tagging / NER
    python -m recipes.classification   # text classification
    python -m recipes.g2p              # grapheme-to-phoneme (encoder-decoder)
    python -m recipes.translation      # translation (Bible verses, es-en)
    python -m recipes.language_model   # the ELMo-style biLM
    python -m recipes.tagging --backend torch   # or KERAS_BACKEND=torch
    python -m recipes.launch --workers 2 -- python -m recipes.tagging \
        --distribute multi-worker      # N local workers (recipes.distributed)
    python -m recipes.presets export RUN NAME   # a run becomes a preset

Layout: one package per recipe (`tagging`, `classification`, `g2p`,
`translation`, `language_model`), each with `config` (its settings and
help), `task` (its `recipes.task.Recipe`, `run` and `load`), `cli`
(`main`) and `__main__`; each trains and exports a `zoo.tasks` model.
No recipe package imports another (`recipes.seq2seq`, the G2P recipe's
earlier name, only forwards to `recipes.g2p`). What they share is in
modules here: `task` (the base `Recipe`), `settings` (the config fields
and flags), `models` (backbones, saved models, labels), `training` (the
loop), `checkpoints` (the backup), `distributed` (`--distribute`),
`pipeline` (batches), `encoder_decoder` (the sequence-to-sequence
recipes' model, batches, loss and settings), `cli`, and `data` (the
corpora). What is not about
recipes (run directories, processes, flags and files, plots, choosing
the backend) is the `harness` package.

Importing `recipes` (or a recipe's package) imports nothing else and
sets nothing: a recipe's names load on first use (`recipes.lazy`), and a
command line chooses its Keras backend in its `__main__`, before Keras
is imported (`harness.entry`).
"""
