"""`python -m recipes.classification`: the backend first, then the
command."""

from harness import entry

if __name__ == "__main__":
    entry.main_of("recipes.classification.cli", first=("zoo",))
