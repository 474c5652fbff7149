"""`python -m recipes.tagging`: the backend first, then the command."""

from harness import entry

if __name__ == "__main__":
    entry.main_of("recipes.tagging.cli", first=("zoo",))
