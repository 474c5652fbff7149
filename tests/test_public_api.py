"""The library uses public Keras 3 only and exports its contract names."""

import pathlib
import re

import pytest

import zoo

# Reads files only: the TensorFlow tier runs it.
pytestmark = pytest.mark.backend_free

ROOT = pathlib.Path(__file__).parent.parent
SOURCES = sorted(
    p
    for package in ("zoo", "recipes", "tuning")
    for p in (ROOT / package).rglob("*.py")
)
# The modules that import a framework (at their top), one per backend.
BACKEND_MODULES = {
    ROOT / "zoo" / "kernels" / f"{name}_backend.py"
    for name in ("tensorflow", "jax", "torch")
}


@pytest.mark.parametrize(
    "path", SOURCES, ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_private_or_legacy_keras(path):
    text = path.read_text()
    assert not re.search(r"\btf\.keras\b", text), path
    assert not re.search(r"\bkeras\.src\b", text), path
    assert "layers.Lambda(" not in text, path
    if path.is_relative_to(ROOT / "zoo") and path not in BACKEND_MODULES:
        # The library is backend-neutral: importing it imports no backend;
        # each framework is imported by its own `zoo.kernels` module, which
        # is imported only when its backend is Keras's (recipes may use
        # tf.data).
        pattern = r"^(from|import) (tensorflow|jax|torch)\b"
        assert not re.search(pattern, text, re.MULTILINE), path


@pytest.mark.parametrize(
    "path",
    [p for p in SOURCES if p.is_relative_to(ROOT / "zoo")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_library_holds_only_the_library(path):
    # No plotting and no command line: those live in recipes/ and tuning/.
    text = path.read_text()
    assert not re.search(r"^\s*(from|import) matplotlib\b", text, re.M), path
    assert not re.search(r"^\s*(from|import) argparse\b", text, re.M), path
    assert "__main__" not in text, path


def test_contract_names_are_exported():
    names = [
        "StackedRNN",
        "stacked_rnn",
        "stacked_simple_rnn",
        "stacked_gru",
        "stacked_lstm",
        "list_models",
        "create_model",
        "ResidualWrapper",
        "HighwayWrapper",
        "VariationalDropout",
        "EmbeddingDropout",
        "ScalarMix",
        "WeightDropLSTM",
        "WeightDropGRU",
        "count_params",
        "width_for_budget",
        "reference",
        "fast_path_report",
        "reset_states",
    ]
    missing = [n for n in names if not hasattr(zoo, n)]
    assert missing == []


def test_every_custom_layer_is_registered():
    import keras

    for name in zoo.layers.__all__:
        cls = getattr(zoo.layers, name)
        if cls is zoo.layers.StackLayer:
            continue  # the record of a stack's layer, no Keras object
        registered = keras.saving.get_registered_name(cls)
        assert registered == f"{zoo.PACKAGE}>{name}"
