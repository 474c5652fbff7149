"""`python -m recipes.presets`: the backend first, then the command."""

from harness import entry

if __name__ == "__main__":
    entry.main_of("recipes.presets.cli", first=("zoo",))
