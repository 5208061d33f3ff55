"""The memory-pass floor for per-query measures (issue 36): :func:`floor_pass`.

Any per-query measure over ``scores`` and ``labels`` (NDCG, the LambdaMART
gradients' per-query setup, ...) has to read every document's score and label
at least once and write something per query. :func:`floor_pass` does only that,
as a numba ``prange`` loop over the queries: per query it sums the bit patterns
of the scores (viewed as unsigned integers of the same width) and the labels
into one 64-bit word and writes it. Integer sums vectorise without fast-math,
so the loop runs at the speed the memory system delivers the two arrays (it does
no floating-point work whose latency could hide behind). A kernel's time over
this floor's, at the same thread count and in the same run, is its "ratio to
the floor".

Import it from any bench module (bench/ is on ``sys.path`` under pytest and
when a bench script runs)::

    from roofline import floor_pass, compile_floor, bytes_per_doc

Needs the ``bench`` extra (numba).
"""
from __future__ import annotations

import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numba
import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def _floor(score_bits, labels, offsets, out):
    nq = offsets.shape[0] - 1
    for q in prange(nq):                     # numba's default: static, equal blocks of queries
        acc = np.uint64(0)
        for i in range(offsets[q], offsets[q + 1]):
            acc += np.uint64(score_bits[i]) + np.uint64(labels[i])
        out[q] = acc


def _bits(scores: np.ndarray) -> np.ndarray:
    if scores.dtype == np.float64:
        return scores.view(np.uint64)
    if scores.dtype == np.float32:
        return scores.view(np.uint32)
    raise ValueError(f"scores must be float32 or float64; got dtype {scores.dtype}")


def floor_pass(scores: np.ndarray, labels: np.ndarray, offsets: np.ndarray,
               n_threads: Optional[int] = None) -> np.ndarray:
    """One read of each query's scores and labels, one value written per query.

    Parameters
    ----------
    scores : float32 or float64 array of shape (n_docs,), C-contiguous
    labels : integer array of shape (n_docs,), C-contiguous
    offsets : int64 array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``.
    n_threads : int, optional
        Threads for numba (``numba.set_num_threads``); None is every thread numba has.

    Returns
    -------
    ndarray of uint64, shape (n_queries,)
        Per query, the wrapping sum of the scores' bit patterns and the labels
        (a checksum; its only purpose is that nothing can be skipped).
    """
    if not (scores.flags.c_contiguous and labels.flags.c_contiguous):
        raise ValueError("scores and labels must be C-contiguous (the floor does not copy)")
    if labels.shape != scores.shape:
        raise ValueError(f"labels must have the shape of scores {scores.shape}; got {labels.shape}")
    set_numba_threads(n_threads)
    out = np.empty(offsets.shape[0] - 1, dtype=np.uint64)
    _floor(_bits(scores), labels, offsets, out)
    return out


def compile_floor(scores: np.ndarray, labels: np.ndarray) -> None:
    """Compile (or load from numba's cache) :func:`floor_pass` for these dtypes, untimed."""
    off = np.array([0, min(scores.shape[0], 16)], dtype=np.int64)
    for n in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        floor_pass(scores[:16], labels[:16], off, n)


def bytes_per_doc(scores: np.ndarray, labels: np.ndarray) -> int:
    """Bytes of per-document input the floor reads: one score and one label."""
    return scores.dtype.itemsize + labels.dtype.itemsize


def set_numba_threads(n_threads: Optional[int]) -> int:
    """Set numba's threads for the next ``prange`` call (None: all it has); the count set."""
    max_threads = numba.config.NUMBA_NUM_THREADS
    n = max_threads if n_threads is None else int(n_threads)
    if not 1 <= n <= max_threads:
        raise ValueError(f"n_threads must be in 1..{max_threads}; got {n_threads}")
    numba.set_num_threads(n)
    return n


@njit(cache=True)
def _sigmoid_bins(scores, labels, offsets, truncation, lo, factor, last, out):
    # the pairs' bins into out (None: count them only); returns how many
    k = 0
    for q in range(offsets.shape[0] - 1):
        a = offsets[q]
        n = offsets[q + 1] - a
        s = scores[a:a + n]
        y = labels[a:a + n]
        order = np.argsort(-s, kind="mergesort")   # stable: ties in input order, as LightGBM
        for i in range(min(n - 1, truncation)):
            si = s[order[i]]
            yi = y[order[i]]
            for j in range(i + 1, n):
                yj = y[order[j]]
                if yi == yj:
                    continue
                if out is not None:
                    ds = si - s[order[j]] if yi > yj else s[order[j]] - si
                    x = (ds - lo) * factor
                    x = min(max(x, 0.0), last)
                    out[k] = np.int32(x)
                k += 1
    return k


def lightgbm_table_bins(scores: np.ndarray, labels: np.ndarray, offsets: np.ndarray,
                        truncation: int, sigma: float = 1.0) -> np.ndarray:
    """The bin of LightGBM's 2**20-bin sigmoid table that each pair of its lambdarank loop
    reads, in the loop's order (rank i < truncation, every j > i with another label);
    computed once, untimed (serial numba)."""
    bins = 1 << 20
    lo = -50.0 / sigma / 2.0
    factor = bins / (2.0 * -lo)
    # counted first: an array sized by the candidates would be n^2 / 2 per query
    n_pairs = _sigmoid_bins(scores, labels, offsets, truncation, lo, factor, float(bins - 1), None)
    out = np.empty(n_pairs, dtype=np.int32)
    _sigmoid_bins(scores, labels, offsets, truncation, lo, factor, float(bins - 1), out)
    return out


@njit(cache=True)
def _table_reads(table, bins):
    acc = np.zeros(8)
    for k in range(bins.shape[0]):
        acc[k & 7] += table[bins[k]]
    return acc.sum()


def table_reads(table: np.ndarray, bins: np.ndarray) -> float:
    """Every table entry of :func:`lightgbm_table_bins` read once, in order, summed in eight
    lanes (no dependent chain): what the reads alone cost, the floor of a gradient step
    that must take its logistic from LightGBM's 8 MiB table to reproduce it bit for bit."""
    return _table_reads(table, bins)


def time_interleaved(calls: Dict[str, Callable[[], Any]], rounds: int) -> Tuple[Dict[str, List[float]], Dict[str, Any]]:
    """Wall times of every call, one call of each per round in turn (so that a busy spell of a
    shared machine falls on every row alike), and what each call returned in the first round."""
    times: Dict[str, List[float]] = {name: [] for name in calls}
    first: Dict[str, Any] = {}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            out = call()
            times[name].append(time.perf_counter() - start)
            first.setdefault(name, out)
    return times, first
