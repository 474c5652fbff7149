"""`python -m recipes.language_model`: the backend first (the fastest one
installed for this model on a CPU, JAX then PyTorch, where neither
`--backend` nor `KERAS_BACKEND` chooses: benchmarks/bilm_speed.py
measured it), then the command."""

from harness import entry

FASTEST = ("jax", "torch")

if __name__ == "__main__":
    entry.main_of("recipes.language_model.cli", fastest=FASTEST, first=("zoo",))
