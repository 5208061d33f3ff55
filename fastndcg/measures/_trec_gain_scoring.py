"""Scoring with resolved custom gains: :class:`GainScorer` (per-document gains, per-topic ideal
DCG) and the helpers that build it from an aligned TREC run under a preset."""
from __future__ import annotations
from typing import Any, Optional

import numpy as np

from fastndcg._core.prepared import NDCGScorer, aggregate, finish_aggregate
from fastndcg.conventions._presets import as_convention
from fastndcg.conventions._trec_levels import LEVEL_UNJUDGED


# ----------------------------------------------------------------------------- evaluation


class GainScorer:
    """NDCG of per-document gains against an external ideal DCG, with the
    interface of :class:`fastndcg.NDCGScorer` (``ndcg``, ``dcg``, ``mean``,
    ``summands``, ``finish``).

    DCG@k = sum_{r <= min(k, n)} g_(r) D(r) with the documents' own gains
    ``gains`` (any finite real, negative allowed), ranked by the convention's
    ties; NDCG@k = DCG@k / ``ideal_dcg`` (the convention's empty rule when the
    ideal DCG is 0). The kernels take gains >= 0, so a negative gain is
    scored as DCG(g+) - DCG(g-) with g+ = max(g, 0) and g- = max(-g, 0), both
    ranked identically: per query NDCG = DCG(g+) / IDCG - DCG(g-) / IDCG, which
    can differ from one sum in rank order by rounding only.

    Parameters
    ----------
    gains : float array (n_docs,)
    offsets : int array (n_queries + 1,)
    k : None, int or sequence
    convention : Convention or preset name
        Its gain is replaced by the documents' gains (``gain="linear"`` on
        them); everything else applies.
    ideal_dcg : float array (n_queries,) or (n_queries, n_cutoffs)
    weights : optional query weights
    n_threads : int, optional
    """

    def __init__(self, gains: Any, offsets: Any, k: Any = None, *, convention: Any = None,
                 ideal_dcg: Any = None, weights: Any = None, n_threads: Optional[int] = None) -> None:
        conv = as_convention(convention)
        g = np.asarray(gains, dtype=np.float64)
        if g.ndim != 1:
            raise ValueError(f"gains must be 1-D; got an array of shape {g.shape}")
        bad = np.flatnonzero(~np.isfinite(g))
        if bad.size:
            raise ValueError(f"gains must be finite; got gains[{int(bad[0])}]={float(g[bad[0]])!r}")
        if ideal_dcg is None:
            raise ValueError("GainScorer needs ideal_dcg (the gains of the ideal list are not the documents')")
        self.convention = conv
        linear = conv.replace(gain="linear", unknown_label="error", name=conv.name)
        self._pos = NDCGScorer(np.maximum(g, 0.0), offsets, k, convention=linear, ideal_dcg=ideal_dcg,
                               weights=weights, n_threads=n_threads)
        self._neg = None
        if bool(np.any(g < 0)):
            # the subtracted part never takes the empty-query value
            self._neg = NDCGScorer(np.maximum(-g, 0.0), offsets, k, convention=linear.replace(
                empty="zero", name=conv.name), ideal_dcg=ideal_dcg, weights=weights, n_threads=n_threads)

    @property
    def ideal_dcg(self) -> np.ndarray:
        return self._pos.ideal_dcg

    def ndcg(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None) -> np.ndarray:
        """Per-query NDCG, shape (n_queries,) or (n_queries, n_cutoffs)."""
        return self.summands(scores, tie_key=tie_key, n_threads=n_threads, _shape=True)[0]

    def dcg(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None) -> np.ndarray:
        """Per-query DCG of the gains, same shape as :meth:`ndcg`."""
        d = self._pos.dcg(scores, tie_key=tie_key, n_threads=n_threads)
        if self._neg is not None:
            d = d - self._neg.dcg(scores, tie_key=tie_key, n_threads=n_threads)
        return d

    def summands(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None,
                 _shape: bool = False):
        """(ndcg, num, den) as :meth:`fastndcg.NDCGScorer.summands`."""
        nd, num, den = self._pos.summands(scores, tie_key=tie_key, n_threads=n_threads)
        if self._neg is not None:
            nd2, num2, _ = self._neg.summands(scores, tie_key=tie_key, n_threads=n_threads)
            counted = ~np.isnan(nd)
            nd = nd - np.where(counted, nd2, 0.0)
            num = num - np.where(counted, num2, 0.0)
        if _shape:
            nd = nd[:, 0].copy() if self._pos._single else nd
        return nd, num, den

    def finish(self, num: Any, den: Any):
        """The aggregate from summed terms (see :meth:`fastndcg.NDCGScorer.finish`)."""
        return finish_aggregate(num, den, self.convention, self._pos._single)

    def mean(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None):
        """The aggregate (:meth:`fastndcg.NDCGScorer.mean`): a float for a single k."""
        return self.evaluate(scores, tie_key=tie_key, n_threads=n_threads)[1]

    def evaluate(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None):
        """(per-query NDCG as :meth:`ndcg`, the aggregate as :meth:`mean`) from one pass."""
        nd, num, den = self.summands(scores, tie_key=tie_key, n_threads=n_threads)
        mean = aggregate(num, den, self.convention, self._pos._single)
        return (nd[:, 0].copy() if self._pos._single else nd), mean

    __call__ = mean


# ----------------------------------------------------------------------------- aligned TREC runs


def bogus_ranking(scores: Any, levels: Any, tie_key: Any, offsets: Any):
    """trec_eval 10's ``-c`` (``missing_ranking="unjudged"``): every topic without a retrieved document is ranked
    as one document that is not in the qrels (score 1, level -1, tie key 0),
    as ``trec_eval.c``'s ``bogus_ranking``. Returns ``(scores, levels,
    tie_key, offsets)``, unchanged when no topic is empty."""
    offsets = np.asarray(offsets, dtype=np.int64)
    empty = np.flatnonzero(np.diff(offsets) == 0)
    if not empty.size:
        return scores, levels, tie_key, offsets
    at = offsets[empty]
    scores = np.insert(np.asarray(scores, dtype=np.float64), at, 1.0)
    levels = np.insert(np.asarray(levels, dtype=np.int64), at, LEVEL_UNJUDGED)
    tie_key = np.insert(np.asarray(tie_key, dtype=np.int64), at, 0)
    add = np.zeros(offsets.shape[0], dtype=np.int64)
    add[empty + 1] = 1
    return scores, levels, tie_key, offsets + np.cumsum(add)
