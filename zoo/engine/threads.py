"""How many BLAS threads the NumPy runner's matmuls use.

NumPy's BLAS (OpenBLAS) starts one thread per core and splits every
matmul over them. The NumPy runner's matmuls are small (a recurrent
step of one sentence is a `(1, units) @ (units, 4 * units)` product), so
the threads cost more in waking and waiting than they save, and far more
on a busy machine, where a thread waits for a core: measured here
(docs/presets.md) one thread was faster for one sentence a call idle and
loaded, and for a batch under load. So the runner limits BLAS to
`SMALL_THREADS` around each call of at most `SMALL_ROWS` sentences (or
sequences), and leaves a large batch to BLAS's own threads.
`set_threads(n)` fixes the count for every call instead, and
`set_threads(None)` leaves BLAS alone.

Through `threadpoolctl` (a well-kept library, which scikit-learn uses for
the same): its controller is built once, and its `limit` costs about
10 microseconds a call (building one every call costs about 180).
"""

import contextlib
import threading

import threadpoolctl

from zoo import validation as v

# A call of at most this many rows (sentences, sequences) runs on
# `SMALL_THREADS` BLAS threads under the "auto" setting.
SMALL_ROWS = 64
SMALL_THREADS = 1

_LOCK = threading.Lock()
_STATE = {"threads": "auto", "controller": None}


def set_threads(threads):
    """Sets the BLAS threads of the NumPy runner's calls: `"auto"` (the
    default: `SMALL_THREADS` for a call of at most `SMALL_ROWS` rows,
    BLAS's own count otherwise), a positive count for every call, or
    None (BLAS's own count always). Returns the previous setting."""
    if threads not in ("auto", None):
        v.check_positive_int("threads", threads)
    previous = _STATE["threads"]
    _STATE["threads"] = threads
    return previous


def get_threads():
    """The setting (`set_threads`)."""
    return _STATE["threads"]


def _controller():
    with _LOCK:
        if _STATE["controller"] is None:
            _STATE["controller"] = threadpoolctl.ThreadpoolController()
        return _STATE["controller"]


def limited(rows):
    """A context in which BLAS runs with the threads the setting gives a
    call of `rows` rows (nothing changes where it gives none)."""
    threads = _STATE["threads"]
    if threads == "auto":
        threads = SMALL_THREADS if rows <= SMALL_ROWS else None
    if threads is None:
        return contextlib.nullcontext()
    return _controller().limit(limits=threads, user_api="blas")
