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
    config.addinivalue_line(
        "markers",
        "every_backend: a recipe, search or tool test that the core tier "
        "(ZOO_TEST_TIER=core, `make test` on JAX and PyTorch) also runs",
    )
    config.addinivalue_line(
        "markers",
        "grid(stride=5): a large parameter grid, sampled (every stride-th "
        "case) in the core tier on JAX and PyTorch",
    )


# The tests of the tools around the library: under ZOO_TEST_TIER=core only
# those marked `every_backend` run (the library's own tests all run).
TOOL_DIRS = ("recipes", "tuning", "diagnostics")


def pytest_collection_modifyitems(config, items):
    run_slow = config.getoption("--run-slow")
    on_tf = keras.backend.backend() == "tensorflow"
    skip_slow = pytest.mark.skip(reason="slow: pass --run-slow")
    skip_tf = pytest.mark.skip(reason="needs the TensorFlow backend")
    core = os.environ.get("ZOO_TEST_TIER") == "core"
    skip_tier = pytest.mark.skip(
        reason="core tier: only every_backend tool tests (make test-all)"
    )
    skip_grid = pytest.mark.skip(
        reason="core tier: a sample of this grid (make test-all runs it all)"
    )
    grids = {}
    for item in items:
        folder = item.path.parent.name
        grid = item.get_closest_marker("grid")
        if core and grid is not None and not on_tf:
            # A big parameter grid: the core tier on JAX and PyTorch runs
            # every `stride`-th case (each value still occurs); the
            # TensorFlow tier and `make test-all` run them all.
            index = grids.setdefault(item.originalname, 0)
            grids[item.originalname] = index + 1
            if index % grid.kwargs.get("stride", 5):
                item.add_marker(skip_grid)
        if (
            core
            and folder in TOOL_DIRS
            and "every_backend" not in item.keywords
        ):
            item.add_marker(skip_tier)
        if "slow" in item.keywords and not run_slow:
            item.add_marker(skip_slow)
        if "tf_only" in item.keywords and not on_tf:
            item.add_marker(skip_tf)


@pytest.fixture(autouse=True)
def _seed():
    keras.utils.set_random_seed(1234)
    yield
    # Without the garbage collection Keras runs by default: with TensorFlow,
    # JAX and PyTorch loaded it takes 1-3 s a test (a fifth to a third of
    # the suite's time); Python's own collector still runs.
    keras.backend.clear_session(free_memory=False)
