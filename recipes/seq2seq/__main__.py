"""`python -m recipes.seq2seq`: the backend first, then the command."""

from harness import entry

if __name__ == "__main__":
    entry.main_of("recipes.seq2seq.cli", first=("zoo",))
