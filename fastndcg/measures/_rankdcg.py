"""RankDCG (Katerenchuk & Rosenberg, "RankDCG: Rank-Ordering Evaluation Measure", 2018).

A rank-order measure for lists whose reference values are ranks or scores
with many ties and a skewed distribution (for example user rankings). It is
not an NDCG variant: the gain is the dense "relative rank" of the reference
value, the discount at a position is the dense rank of the ideal item there,
and the score is min-max normalised between the worst and the ideal order.
The pure-Python spec is :mod:`fastndcg.reference._rankdcg`; the user guide is
``docs/softrank.md`` (section RankDCG).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from fastndcg._core import _rankdcg
from fastndcg.conventions._presets import as_convention
from fastndcg._core.plan import kernel_plan
from fastndcg._core.threads import effective_n_threads, threads_for
from fastndcg._core.query_checks import check_lengths_agree, check_offsets, check_same_length, max_query_size
from fastndcg._core.score_checks import check_scores

__all__ = ["rankdcg"]

ArrayLike = Any


def _reference_values(reference: Any, offsets: np.ndarray) -> np.ndarray:
    """Reference values as exact float64 (only their order matters)."""
    arr = np.asarray(reference)
    if arr.ndim != 1:
        raise ValueError(f"reference must be 1-D; got an array of shape {arr.shape}")
    if arr.dtype.kind in "iu" and arr.size and (int(arr.max()) > 2**53 or int(arr.min()) < -2**53):
        # Integers float64 cannot hold exactly: replace them by their
        # order-preserving global dense codes (equal stays equal, order kept).
        arr = np.unique(arr, return_inverse=True)[1].reshape(-1)
    return np.ascontiguousarray(check_scores(arr, offsets, name="reference"), dtype=np.float64)


def _degenerate(ref: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Queries whose reference has fewer than two distinct values (incl. n <= 1)."""
    sizes = np.diff(offsets)
    out = sizes < 2
    big = np.flatnonzero(~out)
    if big.size:
        starts = offsets[:-1][big]
        lo = np.minimum.reduceat(ref, starts)
        hi = np.maximum.reduceat(ref, starts)
        out[big] = lo == hi
    return out


def rankdcg(reference: ArrayLike, predictions: ArrayLike, offsets: ArrayLike, *,
            convention: Any = None, n_threads: Optional[int] = None, measurement: Any = None) -> np.ndarray:
    """RankDCG per query over CSR inputs.

    Parameters
    ----------
    reference : array of shape (n_docs,)
        The true values (ranks, ratings, counts...). Any finite reals;
        only their order matters (negatives, floats, ties are fine).
    predictions : array of shape (n_docs,)
        Predicted values; larger means ranked higher. Finite; float32/float64
        are used as given, other numeric types become float64.
    offsets : int array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``.
    convention : Convention, preset name or None
        Only ``empty`` is used: the value of a degenerate query (see Notes).
    measurement : Measurement or str, optional
        A RankDCG :class:`~fastndcg.Measurement` (or its signature) in place of ``convention``.
    n_threads : int, optional
        OpenMP threads (None: the CPUs other work does not hold now, see
        :func:`fastndcg.effective_n_threads`); results are bit-identical for any value.

    Returns
    -------
    ndarray of float64, shape (n_queries,), values in [0, 1] (or NaN for
    degenerate queries under ``empty="skip"``).

    Notes
    -----
    For one query, let d(y) be the dense rank of a reference value (1 = the
    largest) and D the number of distinct values. The relative rank (gain)
    of document i is rr_i = D - d(y_i) + 1. The ideal order lists the
    documents by reference descending; rev_p = d of the value at position p
    (0-based), and position p is discounted by 1 / rev_p. Then

        s(order) = sum_p rr_{order[p]} / rev_p,
        RankDCG = (s(predicted) - s(reversed ideal)) / (s(ideal) - s(reversed ideal)).

    The predicted order is predictions descending; **tied predictions take
    the worst case**: the document with the lower reference value goes
    first (that is what the original code's stable sorts do). Permuting
    documents whose reference values are equal, or applying any strictly
    increasing map to the reference or to the predictions, does not change
    the score. Sums run in position order in double, as the original
    (dkaterenchuk/ranking_measures ``find_rankdcg``), so values are equal to
    its output bit for bit, except that a value a few ulps outside [0, 1]
    is clamped (when the predicted order is equivalent to the worst or the
    ideal one but sums its terms in another order, the original can return
    e.g. -5.9e-16).

    Degenerate queries: with fewer than two distinct reference values (all
    equal, one document, or none) s(ideal) = s(reversed ideal) and the
    original divides by zero. Here the convention's empty-query rule decides,
    as for NDCG: ``empty="zero"`` (default) -> 0, ``"one"`` -> 1,
    ``"skip"`` -> NaN, ``"error"`` -> ValueError naming the first such query,
    raised before any computation.

    Complexity: O(n log n) per query (two sorts with the engine comparator).

    See Also
    --------
    fastndcg.reference.rankdcg : the pure-Python spec.

    Examples
    --------
    >>> from fastndcg.measures._rankdcg import rankdcg
    >>> float(rankdcg([9, 3, 1], [5, 1, 7], [0, 3])[0])
    0.12499999999999992
    """
    if measurement is not None:
        from fastndcg.measures._measurement import array_arguments

        convention = array_arguments(measurement, "rankdcg", convention=convention)["convention"]
    conv = as_convention(convention)
    effective_n_threads(n_threads)      # checks n_threads now; the kernels take it per call
    ref_raw = np.asarray(reference)
    if ref_raw.ndim != 1:
        raise ValueError(f"reference must be 1-D; got an array of shape {ref_raw.shape}")
    pred_raw = np.asarray(predictions)
    if pred_raw.ndim == 1:
        check_lengths_agree(pred_raw, ref_raw, offsets, "predictions", "reference")
    off = check_offsets(offsets, ref_raw.shape[0])
    ref = _reference_values(ref_raw, off)
    pred = check_scores(predictions, off, name="predictions", n_threads=threads_for(ref.shape[0], n_threads))
    check_same_length(pred, ref.shape[0], "predictions", "reference")
    if conv.empty == "error":
        bad = np.flatnonzero(_degenerate(ref, off))
        if bad.size:
            q = int(bad[0])
            raise ValueError(
                f"query {q} (rows {int(off[q])}:{int(off[q + 1])}) has fewer than two distinct reference "
                f"values, so RankDCG is undefined, and the convention says empty='error'")
    out = np.empty(off.shape[0] - 1, dtype=np.float64)
    # a sort and a scan per query: about 8 work units a document
    # RankDCG discounts by its own ranks: of the plan it reads the value of a degenerate query only
    plan = kernel_plan(conv, max_query_size(off), depth=1)
    _rankdcg.rankdcg_batch(plan.compiled(), ref, pred, off, out, max_query_size(off),
                           threads_for(8 * ref.shape[0], n_threads))
    return out
