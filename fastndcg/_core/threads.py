"""Thread counts: what a caller asks for (scikit-learn semantics, no joblib),
and what the work is worth (:func:`threads_for`)."""
from __future__ import annotations

import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, FrozenSet, Optional, Tuple

from fastndcg._core._openmp import omp_max_threads, openmp_enabled, team_thread_ids
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
    and threadpoolctl limits are honoured), less the CPUs that other work
    holds right now (:func:`_busy_elsewhere`: a busy machine, the OpenMP
    threads of a library that calls us, the caller's other threads), never
    below 1; a positive int: that many; a
    negative int: counts back from the CPU count (-1 = all, -2 = all but one).
    0 is an error. Always 1 in a build without OpenMP.
    """
    n_threads = _check_n_threads(n_threads)
    if not _OPENMP:
        return 1
    cpus = _cpu_count()
    if n_threads is None:
        n = max(1, min(omp_max_threads(), cpus))
        return n if n == 1 else max(1, min(n, cpus - _busy_elsewhere(n)))
    if n_threads < 0:
        return max(1, cpus + 1 + n_threads)
    return n_threads


def threads_within(limit: Optional[int], n_threads: Optional[int] = None) -> Optional[int]:
    """``n_threads`` for a call made from inside a library that runs its own
    threads: the caller's count as given; by default (None) the default count
    capped at the library's own thread count ``limit`` (None or <= 0: no cap,
    the default as it is), so that an objective inside a training told to use
    one thread uses one."""
    if n_threads is not None or limit is None or limit <= 0:
        return n_threads
    return min(effective_n_threads(None), int(limit))


# ---------------------------------------------------------------- the machine's load
#
# A team on a core that other work holds waits for its slowest thread at every
# barrier, and the OpenMP runtime's idle threads spin: on a busy 2-core machine a
# second thread made whole commands 1.7-4x slower and trainings inside XGBoost
# (whose own runtime's threads spin between its parallel regions) 3x. So the
# default thread count leaves out the CPUs that other runnable threads hold at
# the moment of the call (docs/performance.md, "A good guest").

#: How long one reading of the load serves the calls after it (seconds): back to
#: back calls (compare's hundreds) read the load once per this span, not per call.
LOAD_TTL = 0.005

_LOADAVG = "/proc/loadavg"
_load_read: Tuple[float, int] = (-math.inf, 0)     # (monotonic time, busy threads); replaced whole
_workers: FrozenSet[int] = frozenset()              # our OpenMP workers' thread ids, from team_thread_ids
_workers_lock = threading.Lock()
_probed = threading.local()                         # .size: the team this thread has probed
_fds: Dict[str, int] = {}                           # /proc files kept open, read with pread
_fds_lock = threading.Lock()


def _proc_read(path: str) -> bytes:
    """The current text of a /proc file (b"" if it cannot be read); the file is
    opened once and read from offset 0 each time, which /proc regenerates."""
    fd = _fds.get(path)
    if fd is None:
        with _fds_lock:
            fd = _fds.get(path)
            if fd is None:
                try:
                    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
                except OSError:
                    return b""
                _fds[path] = fd
    try:
        return os.pread(fd, 256, 0)
    except OSError:
        return b""


def _learn_workers(n: int) -> None:
    """Record the workers of the team of ``n`` that the calling thread starts
    (once per thread and size): the runtime keeps them between regions, and an
    idle one still spinning is ours to reuse, not other work."""
    if getattr(_probed, "size", 0) >= n:
        return
    global _workers
    ids = team_thread_ids(n)[1:]            # slot 0 is the calling thread itself
    with _workers_lock:
        _workers = _workers | frozenset(ids)
    _probed.size = n


def _running_workers() -> int:
    running = 0
    for tid in _workers:
        stat = _proc_read(f"/proc/self/task/{tid}/stat")
        # the state letter follows the ")" that closes the thread's name
        if stat and stat.rpartition(b")")[2][1:2] == b"R":
            running += 1
    return running


def _busy_elsewhere(n: int) -> int:
    """Runnable threads other than the calling one and its own OpenMP workers,
    machine-wide, now (the running count of /proc/loadavg): the CPUs a team of
    ``n`` would share. 0 where /proc is not there."""
    global _load_read
    now = time.monotonic()
    read_at, busy = _load_read
    if now - read_at < LOAD_TTL:
        return busy
    _learn_workers(n)
    text = _proc_read(_LOADAVG).split()
    try:
        running = int(text[3].split(b"/")[0])
    except (IndexError, ValueError):
        return 0
    busy = max(0, running - 1 - _running_workers())
    _load_read = (now, busy)
    return busy


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
    """In a forked child: the parent's pool threads, OpenMP workers and open
    /proc files (which name the parent's threads) are not the child's."""
    global _helpers, _helpers_lock, _workers, _workers_lock, _probed, _fds, _fds_lock, _load_read
    _helpers = None
    _helpers_lock = threading.Lock()
    _workers, _workers_lock, _probed = frozenset(), threading.Lock(), threading.local()
    for fd in _fds.values():
        try:
            os.close(fd)
        except OSError:
            pass
    _fds, _fds_lock, _load_read = {}, threading.Lock(), (-math.inf, 0)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)
