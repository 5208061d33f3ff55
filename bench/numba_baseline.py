"""A numba ``prange`` top-k NDCG@k baseline for the benchmarks (issue 13).

Written as a competent numba user would: one parallel pass over blocks of
queries; per query one pass over its documents that counts labels per level,
checks labels and scores, and keeps the top k by insertion into a sorted buffer
of k (positions and scores); the ideal from the label counts. No full sort;
insertion makes it O(n k) per query, meant for small k. Needs the ``bench`` extra (``pip install
"fastndcg[bench]"``).

Convention (``fastndcg.ndcg``'s default): gain 2**l - 1 for integer labels
0..31, discount 1/log2(r+1) at 1-based rank r, k clamped to n, IDCG cut at k,
NDCG 0 when IDCG is 0 (empty query, or no relevant document). Ties: score
descending, then input position ascending (stable).
"""
from __future__ import annotations

from typing import Optional

import numba
import numpy as np
from numba import njit, prange

from roofline import set_numba_threads

N_LEVELS = 32        # labels 0..31: 2**31 - 1 is exact in float64
BLOCK = 64           # queries per prange iteration (buffers allocated once per block)


@njit(parallel=True, fastmath=False, cache=True)
def _ndcg_topk(scores, labels, offsets, k, gain, disc, check, out, bad):
    nq = offsets.shape[0] - 1
    n_blocks = (nq + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        top = np.empty(k, np.int64)            # positions of the current top k, best first
        topv = np.empty(k, scores.dtype)       # and their scores
        counts = np.empty(N_LEVELS, np.int64)
        for q in range(b * BLOCK, min(nq, (b + 1) * BLOCK)):
            lo, hi = offsets[q], offsets[q + 1]
            out[q] = 0.0
            if lo > hi or lo < 0 or hi > scores.shape[0]:
                bad[q] = 1
                continue
            kk = min(k, hi - lo)
            counts[:] = 0
            m = 0
            for i in range(lo, hi):
                lab, s = labels[i], scores[i]
                if check and (lab < 0 or lab >= N_LEVELS or not np.isfinite(s)):
                    bad[q] = 1
                    break
                counts[lab] += 1
                if m < kk:                     # buffer not full: insert
                    j = m
                    m += 1
                elif s > topv[kk - 1]:         # beats the last one (equal: earlier stays ahead)
                    j = kk - 1
                else:
                    continue
                while j > 0 and s > topv[j - 1]:
                    top[j] = top[j - 1]
                    topv[j] = topv[j - 1]
                    j -= 1
                top[j] = i
                topv[j] = s
            if bad[q]:
                continue
            idcg = 0.0
            r = 0
            for lab in range(N_LEVELS - 1, 0, -1):   # label 0 has gain 0
                c = counts[lab]
                while c > 0 and r < kk:
                    idcg += gain[lab] * disc[r]
                    r += 1
                    c -= 1
            if idcg > 0.0:
                dcg = 0.0
                for r in range(kk):
                    dcg += gain[labels[top[r]]] * disc[r]
                out[q] = dcg / idcg


def numba_ndcg(scores: np.ndarray, labels: np.ndarray, offsets: np.ndarray, k: int,
               n_threads: Optional[int] = None, check: bool = True) -> np.ndarray:
    """Per-query NDCG@k with numba (the benchmark baseline of issue 13).

    Parameters
    ----------
    scores : float64 or float32 array of shape (n_docs,)
        Model scores, finite; compared in their own dtype.
    labels : integer array of shape (n_docs,)
        Relevance labels in 0..31.
    offsets : int64 array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``; starts at 0, ends at n_docs.
    k : int
        Cutoff, >= 1; clamped to each query's size n.
    n_threads : int, optional
        Threads for numba (``numba.set_num_threads``); None is every thread numba has.
    check : bool, default True
        Check labels (0..31) and scores (finite) inside the parallel pass. False
        skips these checks: a label outside 0..31 then reads and writes out of
        bounds, a NaN score gives a wrong value. For measuring the checks' cost.

    Returns
    -------
    ndarray of float64, shape (n_queries,)
        NDCG@k = DCG@k / IDCG@k with DCG@k = sum_{r=1}^{min(k,n)} (2**l_(r) - 1) / log2(r+1),
        l_(r) the label at rank r when ranked by score descending, ties broken by input
        position ascending (stable); IDCG@k the same sum over the labels sorted
        descending (from the count of each label). 0 when IDCG@k = 0.

    Raises
    ------
    ValueError
        For a bad k, n_threads, offsets end points, or a query with a label outside
        0..31, a non-finite score (with ``check``) or decreasing offsets (naming the
        first such query).
    """
    scores = np.ascontiguousarray(scores)
    if scores.dtype not in (np.float32, np.float64):
        scores = scores.astype(np.float64)
    labels = np.ascontiguousarray(labels)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if labels.dtype.kind not in "iu":
        raise ValueError(f"labels must be integers; got dtype {labels.dtype}")
    if labels.shape != scores.shape:
        raise ValueError(f"labels must have the shape of scores {scores.shape}; got {labels.shape}")
    if offsets.ndim != 1 or offsets.shape[0] < 1 or offsets[0] != 0 or offsets[-1] != scores.shape[0]:
        raise ValueError(f"offsets must run from 0 to n_docs ({scores.shape[0]}); got {offsets[:1]}..{offsets[-1:]}")
    if int(k) != k or k < 1:
        raise ValueError(f"k must be an integer >= 1; got {k!r}")
    set_numba_threads(n_threads)
    k = int(min(k, max(scores.shape[0], 1)))
    gain = np.exp2(np.arange(N_LEVELS, dtype=np.float64)) - 1.0
    disc = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))
    nq = offsets.shape[0] - 1
    out = np.empty(nq, dtype=np.float64)
    bad = np.zeros(nq, dtype=np.uint8)
    _ndcg_topk(scores, labels, offsets, k, gain, disc, bool(check), out, bad)
    if nq and bad.any():
        q = int(np.argmax(bad))
        raise ValueError(f"query {q} (rows {offsets[q]}:{offsets[q + 1]}): offsets must not decrease, "
                         f"labels must be in 0..{N_LEVELS - 1} and scores finite")
    return out
