"""Pure-Python reference for RankDCG (the spec the compiled kernel is tested against).

RankDCG (Katerenchuk & Rosenberg, "RankDCG: Rank-Ordering Evaluation Measure",
2018; code: dkaterenchuk/ranking_measures ``measures.py``) scores how well the
predictions order the documents of a query relative to their reference values.
For one query with reference values y_1..y_n and predictions h_1..h_n:

* d(y) is the dense rank of a reference value (1 = the largest value),
  D = the number of distinct values;
* the *relative rank* (the gain) of document i is rr_i = D - d(y_i) + 1;
* the ideal order lists the documents by reference value descending; at
  position p (0-based) it holds a document of dense rank rev_p, and the
  discount of position p is 1 / rev_p;
* RankDCG(order) = sum_p rr_(order[p]) / rev_p; the maximum is reached by the
  ideal order, the minimum by the reversed ideal order;
* the predictions rank the documents by h descending; tied predictions take the
  worst case: the document with the lower reference value goes first;
* the score is min-max normalised: (s - s_min) / (s_max - s_min), in [0, 1]
  (clamped there: rounding can put it a few ulps outside).

A query whose reference values are all equal (including one document) or
that has no document has s_max = s_min: the original divides by zero. Here
its value is the convention's empty-query rule, as for NDCG: ``empty="zero"``
-> 0, ``"one"`` -> 1, ``"skip"`` -> NaN, ``"error"`` -> ValueError.

Nothing here imports a compiled module. Sums run in position order, in
double, exactly as the original, so the values match it bit for bit.
"""
from __future__ import annotations

import math
from typing import Any, List, Sequence

import numpy as np

__all__ = ["query_rankdcg", "rankdcg"]


def _degenerate_value(convention: Any, query: int) -> float:
    from fastndcg.conventions._presets import as_convention

    conv = as_convention(convention)
    if conv.empty == "zero":
        return 0.0
    if conv.empty == "one":
        return 1.0
    if conv.empty == "skip":
        return math.nan
    raise ValueError(f"query {query} has fewer than two distinct reference values, so RankDCG "
                     f"is undefined, and the convention says empty='error'")


def query_rankdcg(reference: Sequence[float], predictions: Sequence[float], convention: Any = None,
                  query: int = 0) -> float:
    """RankDCG of one query (see the module docstring)."""
    # Only the order of the reference values matters: Python ints (e.g. int64
    # values above 2**53) stay exact, as float() would merge neighbours.
    ref = [v if isinstance(v, int) else float(v) for v in reference]
    hyp = [float(v) for v in predictions]
    n = len(ref)
    if len(hyp) != n:
        raise ValueError(f"reference and predictions differ in length ({n} != {len(hyp)})")
    if n == 0 or len(set(ref)) < 2:
        return _degenerate_value(convention, query)

    # (1) Documents by reference value ascending (Python's sort is stable).
    asc = sorted(range(n), key=lambda i: ref[i])
    ref_asc = [ref[i] for i in asc]
    hyp_asc = [hyp[i] for i in asc]

    # (2) Positions of the ideal order (reference descending): the relative
    # rank rel[p] = D - d + 1 and the dense rank rev[p] = d of the value there.
    ideal = sorted(ref_asc, reverse=True)
    high = float(len(set(ref_asc)))
    rev_rank = 1.0
    rel: List[float] = [high]
    rev: List[float] = [rev_rank]
    for p in range(n - 1):
        if ideal[p + 1] != ideal[p]:
            high -= 1.0
            rev_rank += 1.0
        rel.append(high)
        rev.append(rev_rank)

    # (3) Relative rank of every document (equal values share one).
    by_ref_desc = sorted(range(n), key=lambda t: ref_asc[t], reverse=True)
    rr = [0.0] * n
    for p, t in enumerate(by_ref_desc):
        rr[t] = rel[p]

    # (4) Bounds: the ideal order and its reverse.
    s_max = 0.0
    for p in range(n):
        s_max += rel[p] / rev[p]
    s_min = 0.0
    for p in range(n):
        s_min += rel[n - 1 - p] / rev[p]

    # (5) The predicted order: predictions descending; ties keep the
    # reference-ascending order of step (1), i.e. the worst case.
    by_hyp_desc = sorted(range(n), key=lambda t: hyp_asc[t], reverse=True)
    s = 0.0
    for p, t in enumerate(by_hyp_desc):
        s += rr[t] / rev[p]
    # (6) Rounding can put s a few ulps outside [s_min, s_max] when its terms
    # come in another order (positions of equal rev[p] are interchangeable, so
    # the order may be the worst or best one): clamp to [0, 1]. The original
    # code returns e.g. -5.9e-16 there.
    return min(1.0, max(0.0, (s - s_min) / (s_max - s_min)))


def rankdcg(reference, predictions, offsets, convention: Any = None) -> np.ndarray:
    """RankDCG per query over CSR inputs: float64 array of shape (n_queries,)."""
    ref = np.asarray(reference)
    hyp = np.asarray(predictions)
    offs = [int(x) for x in offsets]
    out = []
    for q in range(len(offs) - 1):
        a, b = offs[q], offs[q + 1]
        out.append(query_rankdcg(ref[a:b].tolist(), hyp[a:b].tolist(), convention, q))
    return np.array(out, dtype=np.float64)
