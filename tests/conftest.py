import os
import tempfile

# Tests are tiny; one thread per op keeps pytest-xdist workers (and the
# CLI processes that tests start, which inherit these) from fighting over
# the cores. PyTorch's OpenMP threads suffer most: a second busy process
# on a 2-core machine made a training step 3x slower with 2 threads, not
# with 1 (see docs/limits.md). Set before any backend is imported.
os.environ.setdefault("TF_NUM_INTEROP_THREADS", "1")
os.environ.setdefault("TF_NUM_INTRAOP_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
# JAX spends most of a small test compiling, and many tests (and the CLI
# runs they start) compile the same programs: JAX's persistent cache
# shares them across the session's workers and processes (a tiny tagger's
# fit + predict: 5.1 s cold, 1.3 s from the cache).
os.environ.setdefault(
    "JAX_COMPILATION_CACHE_DIR",
    os.path.join(
        tempfile.gettempdir(), f"stacked-rnn-zoo-tests-jax-{os.getuid()}"
    ),
)
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")

import keras  # noqa: E402
import pytest  # noqa: E402

from harness import plots  # noqa: E402

if keras.backend.backend() == "torch":
    import torch

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


def pytest_addoption(parser):
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run tests marked slow",
    )


def pytest_configure(config):
    if config.getoption("--run-slow"):
        # For settings read when a test module is imported (hypothesis's
        # number of examples in tests/test_params.py).
        os.environ["ZOO_RUN_SLOW"] = "1"
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
        "torch_tier: an every_backend test whose run on TensorFlow and JAX "
        "is slow (graph tracing, compiling): `make test` runs it on "
        "PyTorch only, `make test-all` (--run-slow) on every backend",
    )
    config.addinivalue_line(
        "markers",
        "backend_free: reads files only (sources, docs); runs on the "
        "TensorFlow tier only, unless --run-slow",
    )
    config.addinivalue_line(
        "markers",
        "tf_tier: a long library test that `make test` runs on TensorFlow; "
        "`make test-all` (--run-slow) runs it on every backend",
    )
    config.addinivalue_line(
        "markers",
        "grid(stride=5): a large parameter grid, sampled (every stride-th "
        "case, a different sample on each backend) unless --run-slow; "
        "core_only=True: sampled on JAX and PyTorch only",
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
    skip_torch_tier = pytest.mark.skip(
        reason="run on PyTorch in make test (make test-all: here too)"
    )
    skip_backend_free = pytest.mark.skip(
        reason="the TensorFlow tier runs it (make test-all: every backend)"
    )
    skip_grid = pytest.mark.skip(
        reason="a sample of this grid runs (make test-all runs it all)"
    )
    # Each backend's tier runs another sample of a grid, so that `make
    # test` as a whole covers more of it.
    offset = {"tensorflow": 0, "jax": 1, "torch": 2}.get(
        keras.backend.backend(), 0
    )
    grids = {}
    for item in items:
        folder = item.path.parent.name
        grid = item.get_closest_marker("grid")
        if (
            grid is None
            and core
            and hasattr(item, "callspec")
            and "every_backend" not in item.keywords
        ):
            # Any other parametrized library test: JAX and PyTorch each run
            # every fourth case (another quarter each), TensorFlow all.
            grid = pytest.mark.grid(stride=4, core_only=True).mark
        if grid is not None and grid.kwargs.get("core_only") and not core:
            grid = None  # sampled on JAX and PyTorch only
        if grid is not None and not run_slow:
            # A big parameter grid: `make test` runs every `stride`-th
            # case on each backend (each value still occurs); `make
            # test-all` (--run-slow) runs them all.
            index = grids.setdefault(item.originalname, 0)
            grids[item.originalname] = index + 1
            stride = grid.kwargs.get("stride", 5)
            if core and not grid.kwargs.get("core_only"):
                stride *= 3  # JAX and PyTorch compile each model: fewer
            if (index - offset) % stride:
                item.add_marker(skip_grid)
        if (
            core
            and folder in TOOL_DIRS
            and "every_backend" not in item.keywords
        ):
            item.add_marker(skip_tier)
        tiered = "backend_free" in item.keywords or "tf_tier" in item.keywords
        if tiered and core and not run_slow:
            item.add_marker(skip_backend_free)
        on_torch = keras.backend.backend() == "torch"
        if "torch_tier" in item.keywords and not on_torch and not run_slow:
            item.add_marker(skip_torch_tier)
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


@pytest.fixture
def kept_figures(monkeypatch):
    """The figures `harness.plots` closes, kept open (to draw and look
    at), closed after the test."""
    plt = plots.pyplot()
    kept = []
    monkeypatch.setattr(plt, "close", kept.append)
    yield kept
    monkeypatch.undo()
    for fig in kept:
        plt.close(fig)
