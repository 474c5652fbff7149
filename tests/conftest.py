import os

import keras
import pytest

# Tests are tiny; one thread per op keeps pytest-xdist workers from
# fighting over the two cores.
os.environ.setdefault("TF_NUM_INTEROP_THREADS", "1")
os.environ.setdefault("TF_NUM_INTRAOP_THREADS", "1")


def pytest_addoption(parser):
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run tests marked slow",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "tf_only: needs the TensorFlow backend (skipped on others)"
    )


def pytest_collection_modifyitems(config, items):
    run_slow = config.getoption("--run-slow")
    on_tf = keras.backend.backend() == "tensorflow"
    skip_slow = pytest.mark.skip(reason="slow: pass --run-slow")
    skip_tf = pytest.mark.skip(reason="needs the TensorFlow backend")
    for item in items:
        if "slow" in item.keywords and not run_slow:
            item.add_marker(skip_slow)
        if "tf_only" in item.keywords and not on_tf:
            item.add_marker(skip_tf)


@pytest.fixture(autouse=True)
def _seed():
    keras.utils.set_random_seed(1234)
    yield
    keras.backend.clear_session()
