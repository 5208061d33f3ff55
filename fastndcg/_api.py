"""Public NDCG API: validate, resolve the convention, allocate, call the kernels.

The per-query definitions (the spec) are in :mod:`fastndcg.reference`.
"""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from fastndcg import _ndcg
from fastndcg._convention import ABOVE_ONE_TOLERANCE, Convention, as_convention
from fastndcg._threads import effective_n_threads
from fastndcg._validation import (FULL_LIST, OVERFLOW_HINT, check_csr, check_cutoffs, check_ideal_dcg,
                                  check_labels, check_no_overflow, check_offsets, check_query_weights,
                                  check_same_length, check_scores, check_tie_key, float32_reason,
                                  gain_tables, max_query_size)

TIE_CODES = {"stable": 0, "key": 0, "key_desc": 0, "average": 1, "worst": 2, "best": 3}
EMPTY_CODES = {"zero": 0, "one": 1, "skip": 2, "error": 2}
DISCOUNT_CODES = {"log2": 0, "letor": 1, "reciprocal": 2}

ArrayLike = Any
Cutoffs = Union[None, int, "list[Optional[int]]"]


def discount_table(convention: Convention, n: int) -> np.ndarray:
    """D(r) for ranks 1..n (at least n entries), computed with libc log2."""
    if isinstance(convention.discount, str):
        return _ndcg.discount_table(DISCOUNT_CODES[convention.discount], max(n, 1))
    table = np.asarray(convention.discount, dtype=np.float64)
    if table.size < n:
        raise ValueError(
            f"discount: the array has {table.size} entries but ranks up to {n} are summed "
            f"(longest query / largest k); give at least {n} entries")
    return np.ascontiguousarray(table)


def _needed_depth(cutoffs: np.ndarray, max_n: int) -> int:
    return int(min(int(cutoffs[-1]), max_n))


class NDCGScorer:
    """NDCG for fixed labels and queries, with the ideal DCG computed once.

    The object holds the labels, offsets, cutoffs and convention, and caches
    the ideal DCG per query and cutoff, so repeated scoring of new scores on
    the same queries (a boosting loop, a hyper-parameter sweep) pays only for
    the ranking.

    Parameters
    ----------
    labels : array of shape (n_docs,)
        Relevance labels; non-negative integers for exponential or table gains,
        any non-negative real for linear gain.
    offsets : int array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``.
    k : None, int or sequence of int
        Cutoff(s). None is the whole list (or ``convention.default_k`` when set,
        e.g. 32 for the "xgboost" preset). A sequence gives one column per entry.
    convention : Convention, preset name or None
        See :class:`fastndcg.Convention`; None is the default convention.
    weights : array of shape (n_queries,), optional
        Query weights for :meth:`mean`.
    ideal_dcg : array of shape (n_queries,) or (n_queries, n_cutoffs), optional
        External ideal DCG (e.g. from judgments the run did not retrieve).
    ideal_labels, ideal_offsets : arrays, optional
        External ideal labels in CSR form; the ideal DCG is computed from them
        under the convention (cut at k unless ``convention.ideal == "full"``).
    n_threads : int, optional
        Threads for the ideal computation (see :func:`effective_n_threads`).

    Notes
    -----
    With cutoffs k_1..k_m, for query q with n documents:
    DCG@k = sum_{r <= min(k, n)} G(l_(r)) D(r); IDCG@k is the same over the
    ideal order; NDCG@k = DCG@k / IDCG@k. A query with n < k scores 0 when
    ``convention.short == "zero"``; a query with IDCG@k = 0 gets the
    ``convention.empty`` value. Equal scores are ordered by ``convention.ties``
    (input order by default).
    """

    def __init__(self, labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
                 convention: Any = None, weights: Optional[ArrayLike] = None,
                 ideal_dcg: Optional[ArrayLike] = None, ideal_labels: Optional[ArrayLike] = None,
                 ideal_offsets: Optional[ArrayLike] = None, n_threads: Optional[int] = None) -> None:
        conv = as_convention(convention)
        labels_arr = np.asarray(labels)
        if labels_arr.ndim != 1:
            raise ValueError(f"labels must be 1-D; got an array of shape {labels_arr.shape}")
        off = check_offsets(offsets, labels_arr.shape[0])
        lab, top = check_labels(labels_arr, labels_arr.shape[0], conv, off, other="labels")
        self._setup(lab, top, off, k, conv, weights, ideal_dcg, ideal_labels, ideal_offsets, n_threads)

    def _setup(self, lab, top, off, k, conv, weights, ideal_dcg, ideal_labels, ideal_offsets,
               n_threads, with_ideal=True):
        self.convention: Convention = conv
        self.labels = lab
        self.offsets = off
        self.n_queries = off.shape[0] - 1
        self._cutoffs, self._column, self._single = check_cutoffs(conv.resolve_k(k))
        self.k = k
        self.weights = None if weights is None else check_query_weights(
            weights, self.n_queries,
            float32="the convention's weight_precision='float32'" if conv.weight_precision == "float32" else None)
        if self.weights is not None and conv.weight_precision == "float32":
            self.weights = self.weights.astype(np.float32).astype(np.float64)
        self._max_n = max_query_size(off)
        self._table, self._linear, self._levels = gain_tables(conv, lab, top, off)
        self._disc = discount_table(conv, _needed_depth(self._cutoffs, self._max_n))
        self._short_limit = np.zeros_like(self._cutoffs)
        if conv.short == "zero":
            self._short_limit = np.where(self._cutoffs == FULL_LIST, 0, self._cutoffs)
        self._short_limit = np.ascontiguousarray(self._short_limit, dtype=np.int64)
        self._idcg = None
        if not with_ideal:
            return
        if with_ideal == "fused" and ideal_dcg is None and ideal_labels is None and ideal_offsets is None:
            # One-shot call: the scoring kernel computes the ideal of each
            # query right before ranking it (same function, same numbers).
            return
        self._idcg = self._compute_ideal(ideal_dcg, ideal_labels, ideal_offsets, n_threads)
        if conv.empty == "error":
            self._raise_on_empty()

    # -- ideal -------------------------------------------------------------------------
    def _compute_ideal(self, ideal_dcg, ideal_labels, ideal_offsets, n_threads) -> np.ndarray:
        conv = self.convention
        n_unique = self._cutoffs.shape[0]
        if ideal_dcg is not None:
            if ideal_labels is not None or ideal_offsets is not None:
                raise ValueError("give either ideal_dcg or ideal_labels/ideal_offsets, not both")
            requested = check_ideal_dcg(ideal_dcg, self.n_queries, self._column.shape[0])
            first = np.zeros(n_unique, dtype=np.intp)
            first[self._column[::-1]] = np.arange(self._column.shape[0])[::-1]
            return np.ascontiguousarray(requested[:, first])
        if (ideal_labels is None) != (ideal_offsets is None):
            raise ValueError("ideal_labels and ideal_offsets go together; got only one of them")
        if ideal_labels is None:
            lab, off, table, linear, levels, max_n = (self.labels, self.offsets, self._table,
                                                      self._linear, self._levels, self._max_n)
        else:
            il = np.asarray(ideal_labels)
            if il.ndim != 1:
                raise ValueError(f"ideal_labels must be 1-D; got an array of shape {il.shape}")
            off = check_offsets(ideal_offsets, il.shape[0], name="ideal_offsets")
            if off.shape[0] - 1 != self.n_queries:
                raise ValueError(f"ideal_offsets must describe {self.n_queries} queries; got {off.shape[0] - 1}")
            lab, top = check_labels(il, il.shape[0], conv, off, name="ideal_labels", other="ideal_labels")
            table, linear, levels = gain_tables(conv, lab, top, off, name="ideal_labels")
            max_n = max_query_size(off)
        whole = conv.ideal == "full"
        depth = max_n if whole else _needed_depth(self._cutoffs, max_n)
        disc = discount_table(conv, depth)
        out = np.zeros((self.n_queries, n_unique), dtype=np.float64)
        _ndcg.ideal_dcg_batch(lab, off, table, linear, levels, disc, self._cutoffs, whole, out,
                              max_n, effective_n_threads(n_threads))
        check_no_overflow(out, "ideal DCG", off, OVERFLOW_HINT, per_query=True)
        return out

    def _raise_on_empty(self) -> None:
        sizes = np.diff(self.offsets)
        not_short = sizes[:, None] >= self._short_limit[None, :]
        hit = np.argwhere((self._idcg <= 0) & not_short)
        if hit.size:
            q = int(hit[0, 0])
            raise ValueError(
                f"query {q} (rows {int(self.offsets[q])}:{int(self.offsets[q + 1])}) has ideal DCG 0 "
                f"and the convention says empty='error'")

    @property
    def ideal_dcg(self) -> np.ndarray:
        """The cached ideal DCG, shape (n_queries,) or (n_queries, n_cutoffs)."""
        return self._shape(self._idcg)

    # -- scoring -----------------------------------------------------------------------
    def _shape(self, unique_cols: np.ndarray) -> np.ndarray:
        out = unique_cols[:, self._column]
        return out[:, 0].copy() if self._single else out

    def _check_scores(self, scores, tie_key):
        sc = check_scores(scores, self.offsets, float32=float32_reason(self.convention))
        check_same_length(sc, self.labels.shape[0], "scores", "labels")
        return sc, _tie_key_for(self.convention, tie_key, sc.shape[0])

    def _run(self, sc, key, n_threads, with_ndcg=True):
        conv = self.convention
        nq, nc = self.n_queries, self._cutoffs.shape[0]
        dcg_out = np.empty((nq, nc), dtype=np.float64)
        ndcg_out = np.empty((nq, nc), dtype=np.float64) if with_ndcg else np.empty((0, nc))
        fuse = with_ndcg and self._idcg is None
        fused = {}
        if fuse:
            idcg = np.zeros((nq, nc), dtype=np.float64)
            whole = conv.ideal == "full"
            # a cut ideal sums the same ranks as the DCG: the same discount table
            ideal_disc = discount_table(conv, self._max_n) if whole else self._disc
            fused = dict(fuse_ideal=True, levels_desc=self._levels, ideal_whole=whole, ideal_disc=ideal_disc)
        else:
            idcg = self._idcg if with_ndcg else np.empty((0, nc))
        round_f32 = conv.score_precision == "float32" and sc.dtype == np.float64
        _ndcg.ndcg_batch(sc, self.labels, self.offsets,
                         key if key is not None else np.empty(0, dtype=np.int64),
                         conv.ties == "key_desc", round_f32, self._table, self._linear,
                         TIE_CODES[conv.ties], self._disc, self._cutoffs, self._short_limit, idcg,
                         EMPTY_CODES[conv.empty], dcg_out, ndcg_out, self._max_n,
                         effective_n_threads(n_threads), **fused)
        if fuse:
            check_no_overflow(idcg, "ideal DCG", self.offsets, OVERFLOW_HINT, per_query=True)
        check_no_overflow(dcg_out, "DCG", self.offsets, OVERFLOW_HINT, per_query=True)
        if with_ndcg:   # DCG / IDCG beyond DBL_MAX (an ideal far smaller than the DCG); NaN is empty="skip"
            check_no_overflow(ndcg_out, "NDCG", self.offsets, "its ideal DCG is too small for its DCG",
                              per_query=True, nan_ok=True)
        if fuse:
            self._idcg = idcg
            if conv.empty == "error":
                self._raise_on_empty()
        return dcg_out, ndcg_out

    def ndcg(self, scores: ArrayLike, *, tie_key: Optional[ArrayLike] = None,
             n_threads: Optional[int] = None) -> np.ndarray:
        """Per-query NDCG, shape (n_queries,) or (n_queries, n_cutoffs), float64."""
        sc, key = self._check_scores(scores, tie_key)
        return self._shape(self._run(sc, key, n_threads)[1])

    def dcg(self, scores: ArrayLike, *, tie_key: Optional[ArrayLike] = None,
            n_threads: Optional[int] = None) -> np.ndarray:
        """Per-query DCG, same shape as :meth:`ndcg`."""
        sc, key = self._check_scores(scores, tie_key)
        return self._shape(self._run(sc, key, n_threads, with_ndcg=False)[0])

    def mean(self, scores: ArrayLike, *, tie_key: Optional[ArrayLike] = None,
             n_threads: Optional[int] = None) -> Union[float, np.ndarray]:
        """Aggregate NDCG: a float for a single k, else one value per cutoff.

        ``aggregation="mean"``: sum_q w_q NDCG_q / sum_q w_q over queries whose
        NDCG is not NaN (``empty="skip"`` leaves them out; w_q = 1 without
        weights). ``aggregation="ratio"``: sum_q w_q DCG_q / sum_q w_q IDCG_q
        over the same queries, DCG_q counting 0 where the short rule zeroes
        the query. NaN when no query counts. The convention's
        ``weight_precision``, ``empty_weight`` and ``above_one`` fields adjust
        this (see :class:`fastndcg.Convention`). Sums run over queries in order,
        outside the parallel kernels, so the result does not depend on threads.
        """
        sc, key = self._check_scores(scores, tie_key)
        dcg_u, ndcg_u = self._run(sc, key, n_threads)
        return self._aggregate(dcg_u, ndcg_u)

    __call__ = mean

    def summands(self, scores: ArrayLike, *, tie_key: Optional[ArrayLike] = None,
                 n_threads: Optional[int] = None) -> "tuple[np.ndarray, np.ndarray, np.ndarray]":
        """Per-query NDCG and the per-query terms that :meth:`mean` adds up.

        Returns ``(ndcg, num, den)``, each of shape (n_queries, n_cutoffs)
        (one column per requested cutoff), such that ``mean`` is
        ``finish(num.sum(axis=0), den.sum(axis=0))`` with the sums taken in
        query order (:meth:`finish`). For ``aggregation="mean"``:
        num_q = w_q NDCG_q (or the bare NDCG_q of an empty query under
        ``empty_weight="unweighted"``) and den_q = w_q; for ``"ratio"``:
        num_q = w_q DCG_q (0 where the short rule zeroes the query) and
        den_q = w_q IDCG_q; both 0 for a query whose NDCG is NaN
        (``empty="skip"``). Partial sums over disjoint sets of queries
        combine exactly this way (out-of-core and distributed evaluation).
        """
        sc, key = self._check_scores(scores, tie_key)
        dcg_u, ndcg_u = self._run(sc, key, n_threads)
        num, den = self._terms(dcg_u, ndcg_u)
        col = self._column
        return ndcg_u[:, col], num[:, col], den[:, col]

    def finish(self, num: ArrayLike, den: ArrayLike) -> Union[float, np.ndarray]:
        """The aggregate from summed terms (see :meth:`summands`): num / den per
        requested cutoff, NaN where den = 0, then ``convention.above_one``.
        A float for a single k, else an array."""
        return finish_aggregate(num, den, self.convention, self._single)

    def _terms(self, dcg_u: np.ndarray, ndcg_u: np.ndarray) -> "tuple[np.ndarray, np.ndarray]":
        # Per-query summands of the aggregate, one column per unique cutoff.
        conv = self.convention
        w = np.ones(self.n_queries) if self.weights is None else self.weights
        counted = ~np.isnan(ndcg_u)
        wc = np.where(counted, w[:, None], 0.0)
        short = np.diff(self.offsets)[:, None] < self._short_limit[None, :]
        if conv.aggregation == "mean":
            # empty_weight="unweighted": an empty query's value enters the sum bare
            bare = (self._idcg <= 0) & ~short if conv.empty_weight == "unweighted" else False
            return np.where(bare, 1.0, wc) * np.where(counted, ndcg_u, 0.0), wc
        return wc * np.where(short, 0.0, dcg_u), wc * self._idcg

    def _aggregate(self, dcg_u: np.ndarray, ndcg_u: np.ndarray) -> Union[float, np.ndarray]:
        num, den = self._terms(dcg_u, ndcg_u)
        col = self._column
        return self.finish(_column_sums(num)[col], _column_sums(den)[col])


def finish_aggregate(num: ArrayLike, den: ArrayLike, convention: Convention,
                     single: bool) -> Union[float, np.ndarray]:
    """num / den per cutoff (NaN where den = 0), then ``convention.above_one``;
    a float when ``single``. The last step of :meth:`NDCGScorer.mean`, for
    callers that summed :meth:`NDCGScorer.summands` themselves."""
    num = np.asarray(num, dtype=np.float64).reshape(-1)
    den = np.asarray(den, dtype=np.float64).reshape(-1)
    if not (np.isfinite(num).all() and np.isfinite(den).all()):
        raise ValueError(f"the sums over queries overflow float64 (numerator {num.tolist()}, denominator "
                         f"{den.tolist()}): the query weights (or, with aggregation='ratio', weights times "
                         f"DCGs) are too large; scaling every weight by one factor does not change the result")
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    values = _cap(values, convention.above_one)
    return float(values[0]) if single else values


def _cap(values: np.ndarray, above_one: str) -> np.ndarray:
    """Apply ``Convention.above_one`` to aggregated values (NaN stays NaN)."""
    if above_one == "keep":
        return values
    if above_one == "check":
        over = np.flatnonzero(values > 1.0 + ABOVE_ONE_TOLERANCE)
        if over.size:
            raise ValueError(f"the aggregate NDCG is {float(values[over[0]])!r} > 1 + {ABOVE_ONE_TOLERANCE!r} "
                             "(above_one='check', as XGBoost): empty queries count unweighted, so the "
                             "query weights are too small for them")
    return np.where(values > 1.0, 1.0, values)


def _column_sums(x: np.ndarray) -> np.ndarray:
    """Per-column sums in the same (pairwise) order as a 1-D ``np.sum`` of that
    column, so a cutoff's mean does not depend on which other cutoffs were asked."""
    return np.sum(np.ascontiguousarray(x.T), axis=1)


# ---------------------------------------------------------------------------- one-shot functions


def _tie_key_for(conv: Convention, tie_key, n: int):
    if conv.uses_tie_key:
        if tie_key is None:
            raise ValueError(f"ties={conv.ties!r} needs a tie_key array")
        return check_tie_key(tie_key, n)
    if tie_key is not None:
        raise ValueError(f"tie_key was given but the convention breaks ties by {conv.ties!r}; "
                         "use ties='key' or 'key_desc'")
    return None


def _checked(scores, labels, offsets, k, convention, tie_key, weights=None, ideal_dcg=None,
             ideal_labels=None, ideal_offsets=None, n_threads=None, with_ideal="fused"):
    """Validate every input first, then build the scorer. An external ideal is
    computed now; the labels' own ideal is left to the scoring kernel, which
    computes it query by query (``with_ideal="fused"``)."""
    conv = as_convention(convention)
    sc, lab, top, off = check_csr(scores, labels, offsets, conv, float32_reason(conv))
    key = _tie_key_for(conv, tie_key, sc.shape[0])
    scorer = NDCGScorer.__new__(NDCGScorer)
    scorer._setup(lab, top, off, k, conv, weights, ideal_dcg, ideal_labels, ideal_offsets,
                  n_threads, with_ideal)
    return scorer, sc, key


def ndcg(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
         convention: Any = None, tie_key: Optional[ArrayLike] = None,
         ideal_dcg: Optional[ArrayLike] = None, ideal_labels: Optional[ArrayLike] = None,
         ideal_offsets: Optional[ArrayLike] = None, n_threads: Optional[int] = None) -> np.ndarray:
    """NDCG per query over CSR inputs.

    Parameters
    ----------
    scores : array of shape (n_docs,)
        Model scores; float32 and float64 are used as given, other numeric
        types become float64. Must be finite.
    labels : array of shape (n_docs,)
        Relevance labels (see :class:`NDCGScorer`).
    offsets : int array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``; starts at 0,
        non-decreasing, ends at n_docs. Empty queries are allowed.
    k : None, int or sequence of int, default None
        Cutoff(s); None is the whole list (or ``convention.default_k`` when
        set). Many cutoffs share one top-k selection per query.
    convention : Convention, preset name or None
        Gain, discount, tie rule, empty/short-query rules, ideal list,
        aggregation. None is ``Convention()``: exponential gain 2**l - 1,
        discount 1/log2(r+1), ties in input order, empty queries 0, k clamped
        to n, ideal cut at k.
    tie_key : int array of shape (n_docs,), optional
        Needed when ``convention.ties`` is "key" or "key_desc".
    ideal_dcg, ideal_labels, ideal_offsets : optional
        An external ideal (see :class:`NDCGScorer`).
    n_threads : int, optional
        OpenMP threads (None: all available). Results are bit-identical for
        any value.

    Returns
    -------
    ndarray of float64
        Shape (n_queries,) for a single k, (n_queries, len(k)) for a list.

    Notes
    -----
    For query q with n documents ranked by score descending:
    DCG@k = sum_{r=1}^{min(k,n)} G(l_(r)) D(r), with G(l) = 2**l - 1 (or l, or
    a table) and D(r) = 1/log2(r+1) (or LETOR's, or 1/r);
    NDCG@k = DCG@k / IDCG@k, IDCG@k being the DCG of the labels sorted by gain.
    Tie rule: documents with equal scores keep their input order unless the
    convention says otherwise ("key", "average", "worst", "best").

    Examples
    --------
    >>> import numpy as np, fastndcg
    >>> fastndcg.ndcg([5, 4, 3, 2, 1], [3, 1, 2, 0, 2], [0, 5], k=5)
    array([0.9508496])
    """
    scorer, sc, key = _checked(scores, labels, offsets, k, convention, tie_key, None,
                               ideal_dcg, ideal_labels, ideal_offsets, n_threads)
    return scorer._shape(scorer._run(sc, key, n_threads)[1])


def dcg(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
        convention: Any = None, tie_key: Optional[ArrayLike] = None,
        n_threads: Optional[int] = None) -> np.ndarray:
    """DCG per query: sum_{r=1}^{min(k,n)} G(l_(r)) D(r); shapes and tie rule as :func:`ndcg`."""
    scorer, sc, key = _checked(scores, labels, offsets, k, convention, tie_key, with_ideal=False)
    return scorer._shape(scorer._run(sc, key, n_threads, with_ndcg=False)[0])


def ideal_dcg(labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
              convention: Any = None, n_threads: Optional[int] = None) -> np.ndarray:
    """Ideal DCG per query: the DCG of the query's labels sorted by gain, descending.

    Cut at min(k, n) unless ``convention.ideal == "full"`` (then all n ranks).
    Integer labels with small gain tables are counted, not sorted.
    Shapes as :func:`ndcg`. An ideal DCG of 0 is returned as 0 whatever
    ``convention.empty`` says (that rule is about NDCG).
    """
    conv = as_convention(convention)
    if conv.empty == "error":
        conv = conv.replace(empty="zero", name=conv.name)
    return NDCGScorer(labels, offsets, k, convention=conv, n_threads=n_threads).ideal_dcg


def mean_ndcg(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
              convention: Any = None, weights: Optional[ArrayLike] = None,
              tie_key: Optional[ArrayLike] = None, ideal_dcg: Optional[ArrayLike] = None,
              ideal_labels: Optional[ArrayLike] = None, ideal_offsets: Optional[ArrayLike] = None,
              n_threads: Optional[int] = None) -> Union[float, np.ndarray]:
    """NDCG aggregated over queries (see :meth:`NDCGScorer.mean`): a float for
    a single k, else an array with one value per cutoff."""
    scorer, sc, key = _checked(scores, labels, offsets, k, convention, tie_key, weights,
                               ideal_dcg, ideal_labels, ideal_offsets, n_threads)
    dcg_u, ndcg_u = scorer._run(sc, key, n_threads)
    return scorer._aggregate(dcg_u, ndcg_u)
