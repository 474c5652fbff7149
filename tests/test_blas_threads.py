"""The NumPy runner sets NumPy's BLAS threads per call
(`zoo.engine.threads`): one thread for a small call (one sentence a
call, a batch of up to `SMALL_ROWS`), BLAS's own count for a larger one,
and what `set_threads` fixes otherwise; the setting is checked."""

import contextlib

import numpy as np
import pytest
import threadpoolctl

import zoo
from zoo.engine import threads


def _blas_threads():
    return [
        x["num_threads"]
        for x in threadpoolctl.threadpool_info()
        if x["user_api"] == "blas"
    ]


@pytest.fixture
def setting():
    before = zoo.engine.set_threads("auto")
    yield
    zoo.engine.set_threads(before)


def test_small_calls_run_on_one_thread(setting):
    own = _blas_threads()
    with threads.limited(1):
        assert set(_blas_threads()) <= {threads.SMALL_THREADS}
    with threads.limited(threads.SMALL_ROWS + 1):
        assert _blas_threads() == own
    assert _blas_threads() == own
    zoo.engine.set_threads(None)
    with threads.limited(1):
        assert _blas_threads() == own
    zoo.engine.set_threads(2)
    with threads.limited(10_000):
        assert set(_blas_threads()) <= {2}


def test_the_runner_calls_under_the_setting(setting, monkeypatch):
    seen = []
    monkeypatch.setattr(
        threads, "limited", lambda rows: seen.append(rows) or _null()
    )
    model = zoo.stacked_lstm(1, 4, vocabulary_size=10)
    zoo.engine.function(model)(np.ones((3, 5), "int32"))
    assert seen == [3]


def _null():
    return contextlib.nullcontext()


@pytest.mark.parametrize("bad", [0, -1, 1.5, "many"])
def test_a_bad_setting_is_named(bad, setting):
    with pytest.raises((TypeError, ValueError), match="`threads`"):
        zoo.engine.set_threads(bad)
    assert zoo.engine.threads.get_threads() == "auto"
