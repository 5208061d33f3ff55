"""Thread counts: what a caller asks for (scikit-learn semantics, no joblib),
and what the work is worth (:func:`threads_for`)."""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

from fastndcg._core._openmp import omp_max_threads, openmp_enabled
from fastndcg._core.arguments import NamedArgumentError

#: Work units (documents for NDCG, pairs for LambdaMART) each thread of a
#: call gets at least: below 2x this a call runs serially, without an OpenMP
#: team. Measured with ``python bench/threshold.py`` (docs/performance.md):
#: on one-shot NDCG@10 a second thread pays 10% from about 7,000 documents
#: (1.5x there, 1.6x from 15,000); 8,192 keeps a margin for the waits that a
#: busy machine adds to every parallel region.
MIN_WORK_PER_THREAD = 8192

_OPENMP = openmp_enabled()


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def threads_for(work: int, n_threads: Optional[int] = None) -> int:
    """Threads a kernel call uses for ``work`` units: ``n_threads`` (as
    :func:`effective_n_threads` reads it) capped at one per
    :data:`MIN_WORK_PER_THREAD` units. 1 means the call runs on the calling
    thread without starting an OpenMP team. Kernels give bit-identical results
    for any thread count, so this changes only the speed.
    """
    if work < 2 * MIN_WORK_PER_THREAD or not _OPENMP:
        if n_threads is not None and not (type(n_threads) is int and n_threads > 0):
            _check_n_threads(n_threads)     # still reject bad arguments
        return 1
    return max(1, min(effective_n_threads(n_threads), int(work) // MIN_WORK_PER_THREAD))


def _check_n_threads(n_threads) -> Optional[int]:
    """``n_threads`` as an int (None stays None); TypeError / ValueError if it is not one."""
    if n_threads is None:
        return None
    if isinstance(n_threads, bool) or not isinstance(n_threads, int) and not hasattr(n_threads, "__index__"):
        raise TypeError(f"n_threads must be an int or None; got {type(n_threads).__name__}")
    n_threads = int(n_threads)
    if n_threads == 0:
        raise NamedArgumentError("{0} must not be 0; give a positive count, -1 for all CPUs, or {1} for the default",
                                 [("n_threads", None), ("n_threads", "None")])
    return n_threads


def effective_n_threads(n_threads: Optional[int] = None) -> int:
    """Number of OpenMP threads a kernel call will use.

    ``None``: ``min(omp_get_max_threads(), usable CPUs)`` (so OMP_NUM_THREADS
    and threadpoolctl limits are honoured); a positive int: that many; a
    negative int: counts back from the CPU count (-1 = all, -2 = all but one).
    0 is an error. Always 1 in a build without OpenMP.
    """
    n_threads = _check_n_threads(n_threads)
    if not _OPENMP:
        return 1
    cpus = _cpu_count()
    if n_threads is None:
        return max(1, min(omp_max_threads(), cpus))
    if n_threads < 0:
        return max(1, cpus + 1 + n_threads)
    return n_threads


_helpers: Optional[ThreadPoolExecutor] = None
_helpers_lock = threading.Lock()


def helper_pool() -> ThreadPoolExecutor:
    """Threads for work a call splits across Python threads (compiled code
    that releases the GIL: the byte ranges of a block of a file), one per
    usable CPU, started once per process: starting a thread per block costs
    about a millisecond, which a 5M-line run read in 4 MiB blocks paid 37
    times. Any thread may submit; a job never waits for another job, so
    callers sharing the pool only queue. A forked child starts its own."""
    global _helpers
    pool = _helpers
    if pool is None:
        with _helpers_lock:
            if _helpers is None:
                _helpers = ThreadPoolExecutor(_cpu_count(), thread_name_prefix="fastndcg-helper")
            pool = _helpers
    return pool


def _forget_helpers() -> None:
    """In a forked child: the parent's pool threads do not exist there."""
    global _helpers, _helpers_lock
    _helpers = None
    _helpers_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)
