"""The documentation site builds with `mkdocs build --strict`, as `make docs`.

mkdocs comes with the `docs` extra, which `make` and CI install: without
it these tests fail (they do not skip), so a missing extra is seen.
"""

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

# Reads files only: the TensorFlow tier runs it.
pytestmark = pytest.mark.backend_free

ROOT = pathlib.Path(__file__).parent.parent
README = ROOT / "README.md"
MKDOCS_YML = ROOT / "mkdocs.yml"


def nav_pages():
    """The `.md` files named in mkdocs.yml's nav (read without YAML tags)."""
    text = MKDOCS_YML.read_text()
    nav = text[text.index("\nnav:") :]
    return re.findall(r":\s*([\w./-]+\.md)\s*$", nav, re.M)


def test_mkdocs_builds_strict(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"]
        + ["--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    api = (tmp_path / "site" / "api.html").read_text()
    assert "zoo.StackedRNN" in api  # the reference came from the docstrings
    # Pages link to `page.html` (not `page/`): the site navigates from disk.
    index = (tmp_path / "site" / "index.html").read_text()
    assert 'href="api.html"' in index
    # The recipes' page shows their documented entry points, no aliases.
    recipes_page = (tmp_path / "site" / "api-recipes.html").read_text()
    assert "TASK.run" not in recipes_page
    assert "with the command-line arguments" in recipes_page


def test_every_nav_page_exists_and_every_page_is_in_nav():
    pages = nav_pages()
    assert "index.md" in pages
    for page in pages:
        assert (ROOT / "docs" / page).is_file(), page
    docs = ROOT / "docs"
    on_disk = {p.relative_to(docs).as_posix() for p in docs.glob("**/*.md")}
    assert on_disk == set(pages)


def test_api_reference_covers_zoo_all():
    """Each name in `zoo.__all__` has its `::: zoo.NAME` entry in api.md."""
    tree = ast.parse((ROOT / "zoo" / "__init__.py").read_text())
    names = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", None) == "__all__" for t in node.targets)
    )
    api = (ROOT / "docs" / "api.md").read_text()
    documented = set(re.findall(r"^::: zoo\.(\w+)\s*$", api, re.M))
    assert set(names) <= documented, sorted(set(names) - documented)


def test_readme_is_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, len(lines)
