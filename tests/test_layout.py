"""The imports run one way: zoo <- harness <- recipes <- tuning <-
diagnostics <- benchmarks; no private module is imported across
packages; an import inside a function is only ever of an optional
dependency (a backend, or a package of an extra), never one that breaks
a cycle; in the library each framework is imported once, at the top of
its own `zoo.kernels` module; no module of the recipes or the harness is
over `MAX_LINES` lines."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# What each package may import of the project's own.
ALLOWED = {
    "zoo": {"zoo"},
    "harness": {"harness"},
    "recipes": {"zoo", "harness", "recipes"},
    "tuning": {"zoo", "harness", "recipes", "tuning"},
    "diagnostics": {"zoo", "harness", "recipes", "tuning", "diagnostics"},
    "benchmarks": {
        "zoo",
        "harness",
        "recipes",
        "tuning",
        "diagnostics",
        "benchmarks",
    },
}
PROJECT = set(ALLOWED)
# Imported where they are used: a Keras backend's own API, or a package
# of an optional extra (matplotlib, PyYAML, seqeval, TensorFlow Datasets,
# the classical baselines and threadpoolctl, spaCy, pyarrow for --word-vectors,
# sentencepiece and sacrebleu for translation), and the standard
# library's `resource`.
OPTIONAL = {
    "tensorflow",
    "jax",
    "torch",
    "keras",
    "matplotlib",
    "yaml",
    "pysword",
    "seqeval",
    "tensorflow_datasets",
    "nltk",
    "sklearn",
    "sklearn_crfsuite",
    "phonetisaurus",
    "g2p_en",
    "onnxruntime",
    "jaxlib",
    "pyarrow",
    "sentencepiece",
    "sacrebleu",
    "threadpoolctl",
    "spacy",
}
# Scripts whose parent process never imports Keras: each child process
# chooses its backend (KERAS_BACKEND) first, then imports Keras and what
# imports it (Keras fixes its backend at import).
CHILDREN_CHOOSE_THE_BACKEND = {
    "benchmarks/gpu.py": PROJECT | {"numpy"},
    "benchmarks/recipe_speed.py": PROJECT,
}

pytestmark = pytest.mark.backend_free
# The most lines a module of `recipes/` or `harness/` may have.
MAX_LINES = 400
FRAMEWORKS = ("tensorflow", "jax", "torch")


def _sources(package):
    return sorted((ROOT / package).rglob("*.py"))


def _imports(path):
    """`(top-level module, full name, inside a function)` of every import
    in `path`."""
    tree = ast.parse(path.read_text(), filename=str(path))
    local = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    local.add(id(inner))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names] or [
                node.module
            ]
        else:
            continue
        for name in names:
            found.append((name.split(".")[0], name, id(node) in local))
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_run_one_way(package):
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _sources(package)
        for top, name, _ in _imports(path)
        if top in PROJECT and top not in ALLOWED[package]
    ]
    assert wrong == []


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_no_private_module_is_imported_across_packages(package):
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _sources(package)
        for top, name, _ in _imports(path)
        if top in PROJECT - {package}
        and any(part.startswith("_") for part in name.split(".")[1:])
    ]
    assert wrong == []


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_inside_functions_are_of_optional_dependencies(package):
    wrong = []
    for path in _sources(package):
        where = str(path.relative_to(ROOT))
        allowed = OPTIONAL | CHILDREN_CHOOSE_THE_BACKEND.get(where, set())
        wrong += [
            f"{where} imports {name} in a function"
            for top, name, local in _imports(path)
            if local and top not in allowed
        ]
    assert wrong == []


def test_the_checks_see_a_wrong_import(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(
        "import recipes\n\ndef f():\n    from tuning import search\n"
    )
    assert _imports(path) == [
        ("recipes", "recipes", False),
        ("tuning", "tuning.search", True),
    ]


@pytest.mark.parametrize("package", ["recipes", "harness"])
def test_no_module_of_the_recipes_or_the_harness_is_too_long(package):
    long = {
        str(path.relative_to(ROOT)): lines
        for path in _sources(package)
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}, f"split them: over {MAX_LINES} lines"


def _framework_imports(path):
    """`(framework, at module level)` of each import of TensorFlow, JAX
    or PyTorch in the file at `path`."""
    tree = ast.parse(path.read_text())
    top = set(map(id, tree.body))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        for name in names:
            root = name.split(".")[0]
            if root in FRAMEWORKS:
                found.append((root, id(node) in top))
    return found


def test_each_framework_is_imported_at_the_top_of_its_kernels_module():
    """`zoo.kernels.<backend>_backend` imports its framework once, at its
    top; no other module of the library imports one (nor a function)."""
    wrong = []
    for path in _sources("zoo"):
        relative = path.relative_to(ROOT / "zoo").as_posix()
        for framework, at_top in _framework_imports(path):
            owner = f"kernels/{framework}_backend.py"
            if (relative, at_top) != (owner, True):
                wrong.append(f"zoo/{relative} imports {framework}")
    assert wrong == []
    for framework in FRAMEWORKS:
        path = ROOT / "zoo" / "kernels" / f"{framework}_backend.py"
        assert (framework, True) in _framework_imports(path)


def test_the_framework_check_sees_an_import_in_a_function(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("import jax\n\ndef f():\n    import torch.nn\n")
    assert _framework_imports(path) == [("jax", True), ("torch", False)]


# The common modules directly under `recipes/` (`recipes.task`,
# `recipes.encoder_decoder`, ...) and the corpora (`recipes.data`) are
# shared; a recipe package (`recipes/<name>/`) uses them, never another
# recipe package. `recipes.seq2seq`, the G2P recipe's earlier name, only
# forwards to `recipes.g2p` by name (no import).
SHARED_RECIPE_PACKAGES = {"data"}
# None known: classification's ULMFiT stage runs the language-model
# recipe as its own command.
KNOWN_SIDEWAYS = set()


def _recipe_packages():
    return sorted(
        path.name
        for path in (ROOT / "recipes").iterdir()
        if (path / "__init__.py").is_file()
    )


def test_no_recipe_package_imports_another():
    packages = set(_recipe_packages())
    found = set()
    for name in packages - SHARED_RECIPE_PACKAGES:
        for path in _sources(f"recipes/{name}"):
            for top, full, _ in _imports(path):
                parts = full.split(".")
                if top != "recipes" or len(parts) < 2:
                    continue
                if parts[1] in packages - SHARED_RECIPE_PACKAGES - {name}:
                    found.add((name, parts[1], str(path.relative_to(ROOT))))
    wrong = sorted(f for f in found if f[:2] not in KNOWN_SIDEWAYS)
    assert wrong == []


def test_the_generic_tasks_import_nothing_language_specific():
    """`zoo.languages` may use `zoo.tasks`, never the other way round."""
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _sources("zoo/tasks")
        for _, name, _ in _imports(path)
        if name == "zoo.languages" or name.startswith("zoo.languages.")
    ]
    assert wrong == []
