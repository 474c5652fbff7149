"""Runnable training recipes on real data, on every Keras backend.

    python -m recipes.tagging          # POS tagging / NER
    python -m recipes.classification   # text classification
    python -m recipes.seq2seq          # grapheme-to-phoneme (encoder-decoder)
    python -m recipes.tagging --backend torch   # or KERAS_BACKEND=torch
    python -m recipes.launch --workers 2 -- python -m recipes.tagging \
        --distribute multi-worker      # N local workers (recipes.distributed)

Importing `recipes` imports `zoo`, which registers every layer the recipes
save in their models, so `keras.saving.load_model` reads them; it also
registers the first release's `recipes>LabelNames` (`recipes.models`).

Layout: one module per task (`tagging`, `classification`, `seq2seq`),
each a `recipes.task.Task` with its `Config` and `main`; what they share:
`settings` (the config fields and flags), `models` (backbones, saved
models, labels), `training` (the loop), `checkpoints` (the backup),
`distributed` (`--distribute`), `pipeline` (batches), `cli`, and `data`
(the corpora). What is not about recipes (run directories, processes,
flags and files, plots) is the `harness` package.
"""

import importlib.util
import os
import sys

# Quiet TensorFlow's C++ start-up logs unless the user asked for them; set
# here because importing `recipes` imports Keras (and TensorFlow).
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _backend_from_argv(argv):
    """`--backend NAME` of a `python -m recipes.X` command line, applied
    before Keras is imported (Keras reads KERAS_BACKEND once, at import)."""
    for i, arg in enumerate(argv):
        if arg == "--backend" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--backend="):
            return arg.split("=", 1)[1]
    return None


# While `python -m recipes.X` locates its module, sys.argv[0] is "-m".
if sys.argv[:1] == ["-m"] and "keras" not in sys.modules:
    _backend = _backend_from_argv(sys.argv[1:])
    if _backend in ("tensorflow", "jax", "torch"):
        os.environ["KERAS_BACKEND"] = _backend
    elif (
        _backend is None
        and not os.environ.get("KERAS_BACKEND")
        and "recipes.language_model" in sys.orig_argv
    ):
        # Pretraining runs where the user chose no backend: on the fastest
        # installed one for the biLM on a CPU (benchmarks/bilm_speed.py:
        # JAX, then PyTorch); `recipes.language_model` says which.
        for _fastest in ("jax", "torch"):
            if importlib.util.find_spec(_fastest) is not None:
                os.environ["KERAS_BACKEND"] = _fastest
                os.environ["STACKED_RNN_ZOO_FASTEST_BACKEND"] = _fastest
                break

try:
    import zoo  # noqa: E402, F401 - registers the zoo's layers
except ImportError as error:
    # A command line (`python -m recipes.X`, `tuning.search`, ...) whose
    # Keras backend is not installed: one line, exit code 2.
    if sys.argv[:1] != ["-m"] or error.name not in (
        "tensorflow",
        "jax",
        "torch",
    ):
        raise
    print(f"error: {error}", file=sys.stderr)
    raise SystemExit(2) from None
from recipes import models  # noqa: E402, F401 - the first release's names
