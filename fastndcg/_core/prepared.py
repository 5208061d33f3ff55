"""Prepared queries: validate and resolve once, then every call runs at kernel speed.

:class:`NDCGScorer` holds labels, offsets, cutoffs, query weights, an optional
external ideal and a :class:`~fastndcg.Convention`, checked and resolved once
(:mod:`fastndcg._core.resolve`) into a compiled :class:`fastndcg._core._ndcg.NDCGKernel`.
A call hands over the scores only: the kernel checks them inside its parallel
pass, ranks, and writes per-query DCG and NDCG; :func:`aggregate_sums` adds the
aggregate's per-query terms exactly (:mod:`fastndcg._core._aggregate`). The one-shot
functions of :mod:`fastndcg.measures._ndcg` build a throw-away NDCGScorer whose kernel
also checks the labels and computes each query's ideal in the same pass.

Every front-end (the API, LambdaMART's ideal, SoftNDCG, compare, the CLI,
streaming, Dask, Spark) goes through this layer and :func:`finish_aggregate`,
so they agree to the last bit.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Tuple, Union

import numpy as np

from fastndcg._core import _aggregate
from fastndcg.conventions._convention import ABOVE_ONE_TOLERANCE, Convention, Cutoffs
from fastndcg.conventions._presets import as_convention
from fastndcg._core._exact import column_sums
from fastndcg._core._ndcg import NDCGKernel
from fastndcg._core.plan import kernel_plan, tie_key_for
from fastndcg._core.resolve import float32_reason
from fastndcg._core.threads import threads_for
from fastndcg._core.query_checks import (FLAG_LABELS, FULL_LIST, as_labels, check_csr_lengths, check_cutoffs,
                                         check_ideal_dcg, check_query_weights, check_same_length,
                                         label_error, prepare_offsets, warn_unknown_labels)
from fastndcg._core.score_checks import (FLAG_DCG_OVERFLOW, FLAG_IDEAL_OVERFLOW, FLAG_NDCG_OVERFLOW, FLAG_SCORES,
                                         OVERFLOW_HINT, as_scores, raise_score_problem, warn_scores_to_inf)

ArrayLike = Any


class NDCGScorer:
    """Prepared queries: NDCG for fixed labels and queries, set up once.

    Labels, offsets, cutoffs, weights and the convention are checked and
    resolved into kernel tables when the object is built, and the ideal DCG
    per query and cutoff is computed (and the labels checked) in one
    parallel pass; each call then pays only for ranking the scores (a
    boosting loop, a hyper-parameter sweep, repeated evaluation).

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
    tie_key : int array of shape (n_docs,), optional
        The tie key of ``ties="key"`` / ``"key_desc"``, fixed with the data
        (a call may still pass its own).
    ideal_dcg : array of shape (n_queries,) or (n_queries, n_cutoffs), optional
        External ideal DCG (e.g. from judgments the run did not retrieve).
    ideal_labels, ideal_offsets : arrays, optional
        External ideal labels in CSR form; the ideal DCG is computed from them
        under the convention (cut at k unless ``convention.ideal == "full"``).
    n_threads : int, optional
        Upper bound on the threads of the set-up and of each call (see
        :func:`fastndcg._core.threads.threads_for`: small work runs serially).

    Notes
    -----
    With cutoffs k_1..k_m, for query q with n documents:
    DCG@k = sum_{r <= min(k, n)} G(l_(r)) D(r); IDCG@k is the same over the
    ideal order; NDCG@k = DCG@k / IDCG@k. A query with n < k scores 0 when
    ``convention.short == "zero"``; a query with IDCG@k = 0 gets the
    ``convention.empty`` value. Equal scores are ordered by ``convention.ties``
    (input order by default). Scores must be finite (after rounding to
    float32 under ``score_precision="float32"``); a call that breaks this
    raises a ValueError naming the row and query.
    """

    def __init__(self, labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
                 convention: Any = None, weights: Optional[ArrayLike] = None,
                 tie_key: Optional[ArrayLike] = None, ideal_dcg: Optional[ArrayLike] = None,
                 ideal_labels: Optional[ArrayLike] = None, ideal_offsets: Optional[ArrayLike] = None,
                 n_threads: Optional[int] = None) -> None:
        conv = as_convention(convention)
        lab = as_labels(labels)
        off, max_n = prepare_offsets(offsets, lab.shape[0])
        self._setup(conv, lab, off, max_n, k, weights, ideal_dcg, ideal_labels, ideal_offsets, n_threads)
        # fixed with the data: a tie key given here, or the gain ranks of worst / best ties
        self._tie_key = tie_key_for(conv, tie_key, lab, key_later=True)
        if not self._ideal_ready:
            self._compute_ideal(n_threads)

    @classmethod
    def _prepare(cls, conv: Convention, lab: np.ndarray, off: np.ndarray, max_n: int, k: Cutoffs,
                 weights=None, ideal_dcg=None, ideal_labels=None, ideal_offsets=None,
                 n_threads=None) -> "NDCGScorer":
        """Queries whose arrays are already in kernel form (dtypes, offsets
        checked); labels are checked, and the ideal computed, by the first
        scoring call (fused) or by :meth:`_compute_ideal`."""
        self = cls.__new__(cls)
        self._setup(conv, lab, off, max_n, k, weights, ideal_dcg, ideal_labels, ideal_offsets, n_threads)
        self._tie_key = None
        return self

    @classmethod
    def _checked(cls, conv: Convention, lab: np.ndarray, off: np.ndarray, max_n: int, k: Cutoffs,
                 n_threads: Optional[int] = None) -> "NDCGScorer":
        """Queries whose labels (kernel dtype) and offsets the caller has checked
        under ``conv``'s label rules (LambdaMART, SoftNDCG): the ideal is
        computed at once, without checking them a second time."""
        self = cls._prepare(conv, lab, off, max_n, k, n_threads=n_threads)
        self._labels_checked = True
        self._compute_ideal(n_threads)
        return self

    def _setup(self, conv, lab, off, max_n, k, weights, ideal_dcg, ideal_labels, ideal_offsets,
               n_threads) -> None:
        self.convention: Convention = conv
        self.labels = lab
        self.offsets = off
        self.n_queries = off.shape[0] - 1
        self.n_docs = lab.shape[0]
        self._max_n = max_n
        self.k = k
        self._cutoffs, self._column, self._single = check_cutoffs(conv.resolve_k(k))
        self.weights = None
        if weights is not None:
            self.weights = check_query_weights(
                weights, self.n_queries,
                float32="the convention's weight_precision='float32'" if conv.weight_precision == "float32" else None)
            if conv.weight_precision == "float32":
                self.weights = self.weights.astype(np.float32).astype(np.float64)
        plan = kernel_plan(conv, max_n, [None if c == FULL_LIST else int(c) for c in self._cutoffs])
        self._plan = plan
        nc = self._cutoffs.shape[0]
        self._idcg = np.zeros((self.n_queries, nc), dtype=np.float64)
        self._labels_checked = False
        self._ideal_ready = False
        self._kernel = self._make_kernel(lab, off, max_n)
        if ideal_dcg is not None:
            if ideal_labels is not None or ideal_offsets is not None:
                raise ValueError("give either ideal_dcg or ideal_labels/ideal_offsets, not both")
            requested = check_ideal_dcg(ideal_dcg, self.n_queries, self._column.shape[0])
            first = np.zeros(nc, dtype=np.intp)
            first[self._column[::-1]] = np.arange(self._column.shape[0])[::-1]
            # a cutoff asked twice is one column of the kernels: its ideal must be one too
            for j, u in enumerate(self._column.tolist()):
                if j != first[u] and not np.array_equal(requested[:, j], requested[:, first[u]]):
                    q = int(np.flatnonzero(requested[:, j] != requested[:, first[u]])[0])
                    raise ValueError(f"ideal_dcg: columns {int(first[u])} and {j} are for the same cutoff but "
                                     f"differ (query {q}: {float(requested[q, first[u]])!r} and "
                                     f"{float(requested[q, j])!r}); give one ideal per cutoff")
            self._idcg[:] = requested[:, first]
            self._ideal_ready = True
            self._ideal_disc_error: Optional[ValueError] = None     # no ideal is computed
        elif ideal_labels is not None or ideal_offsets is not None:
            if ideal_labels is None or ideal_offsets is None:
                raise ValueError("ideal_labels and ideal_offsets go together; got only one of them")
            il = as_labels(ideal_labels, "ideal_labels")
            ioff, imax = prepare_offsets(ideal_offsets, il.shape[0], name="ideal_offsets")
            if ioff.shape[0] - 1 != self.n_queries:
                raise ValueError(f"ideal_offsets must describe {self.n_queries} queries; got {ioff.shape[0] - 1}")
            # the ideal comes from these lists: only their own depth must be covered
            self._ideal_disc_error = None
            kernel = self._make_kernel(il, ioff, imax)
            self._run_ideal(kernel, il, ioff, "ideal_labels", n_threads)
            self._ideal_ready = True
        if self._ideal_ready:
            self._check_empty()

    def _make_kernel(self, lab: np.ndarray, off: np.ndarray, max_n: int) -> NDCGKernel:
        # the ideal sums ranks up to its own longest list (cut at the largest k);
        # a discount array too short for it is an error only when an ideal is
        # computed (DCG alone, or an external ideal_dcg, does not need it)
        try:
            ideal_disc = self._plan.ideal_discount(max_n)
        except ValueError as exc:
            self._ideal_disc_error = exc
            ideal_disc = self._plan.disc
        return NDCGKernel(lab, off, self._idcg, self._plan.compiled(ideal_disc), max_n)

    # -- ideal -------------------------------------------------------------------------
    def _run_ideal(self, kernel: NDCGKernel, lab: np.ndarray, off: np.ndarray, name: str,
                   n_threads: Optional[int], check_labels: bool = True) -> None:
        self._needs_ideal()
        flags = np.zeros(off.shape[0] - 1, dtype=np.int8)
        if kernel.compute_ideal(flags, check_labels, threads_for(lab.shape[0], n_threads)):
            self._raise_labels(kernel, lab, off, flags, name, {FLAG_IDEAL_OVERFLOW: self._idcg})
        if check_labels:
            warn_unknown_labels(lab, self.convention, name)

    def _needs_ideal(self) -> None:
        error = self.__dict__.get("_ideal_disc_error")
        if error is not None:
            raise error

    def _compute_ideal(self, n_threads: Optional[int] = None) -> None:
        self._run_ideal(self._kernel, self.labels, self.offsets, "labels", n_threads,
                        check_labels=not self._labels_checked)
        self._labels_checked = True
        self._ideal_ready = True
        self._check_empty()

    def _raise_labels(self, kernel: NDCGKernel, lab, off, flags, name, rows) -> None:
        # the kernel's flags: a label problem, or the ideal DCG / DCG / NDCG overflowed
        hit = np.flatnonzero(flags & FLAG_LABELS)
        if hit.size:
            i, code = kernel.label_problem(int(hit[0]))
            raise label_error(name, lab, i, code, off, self.convention)
        for bit, what, hint in ((FLAG_IDEAL_OVERFLOW, "ideal DCG", OVERFLOW_HINT),
                                (FLAG_DCG_OVERFLOW, "DCG", OVERFLOW_HINT),
                                (FLAG_NDCG_OVERFLOW, "NDCG", "its ideal DCG is too small for its DCG")):
            hit = np.flatnonzero(flags & bit)
            if hit.size:
                q = int(hit[0])
                row = rows[bit][q]
                got = row[~np.isfinite(row) if bit != FLAG_NDCG_OVERFLOW else np.isinf(row)][0]
                raise ValueError(f"the {what} of query {q} (rows {int(off[q])}:{int(off[q + 1])}) overflows "
                                 f"float64 (got {float(got)!r}); {hint}")

    def _check_empty(self) -> None:
        if self.convention.empty != "error":
            return
        sizes = np.diff(self.offsets)
        not_short = sizes[:, None] >= self._plan.short_limit[None, :]
        hit = np.argwhere((self._idcg <= 0) & not_short)
        if hit.size:
            q = int(hit[0, 0])
            raise ValueError(
                f"query {q} (rows {int(self.offsets[q])}:{int(self.offsets[q + 1])}) has ideal DCG 0 "
                f"and the convention says empty='error'")

    @property
    def ideal_dcg(self) -> np.ndarray:
        """The ideal DCG, shape (n_queries,) or (n_queries, n_cutoffs)."""
        if not self._ideal_ready:
            self._compute_ideal()
        return self._shape(self._idcg)

    # -- scoring -----------------------------------------------------------------------
    def _shape(self, unique_cols: np.ndarray, fresh: bool = False) -> np.ndarray:
        # fresh: unique_cols was made for this call and nobody else holds it, so a
        # single column is returned as a view of it (no copy of n_queries floats)
        if self._single and unique_cols.shape[1] == 1:
            return unique_cols.reshape(-1) if fresh else unique_cols[:, 0].copy()
        out = unique_cols[:, self._column]
        return out[:, 0].copy() if self._single else out

    def _check_scores(self, scores, tie_key):
        sc = as_scores(scores)
        check_same_length(sc, self.n_docs, "scores", "labels")
        if tie_key is None and self._tie_key is not None:
            key = self._tie_key
        else:
            key = tie_key_for(self.convention, tie_key, self.labels)
        return sc, key

    def _run(self, sc: np.ndarray, key: Optional[np.ndarray], n_threads: Optional[int],
             with_ndcg: bool = True) -> Tuple[np.ndarray, np.ndarray]:
        """(DCG, NDCG) per query and unique cutoff; the kernel checks the scores
        (and, on a first fused call, the labels while it computes the ideal)."""
        nq, nc = self.n_queries, self._cutoffs.shape[0]
        dcg = np.empty((nq, nc), dtype=np.float64)
        nd = np.empty((nq, nc), dtype=np.float64) if with_ndcg else None
        flags = np.zeros(nq, dtype=np.int8)
        fuse = with_ndcg and not self._ideal_ready
        if fuse:
            self._needs_ideal()
        check_labels = not self._labels_checked
        if self._kernel.score(sc, key, dcg, nd, flags, fuse, check_labels, True,
                              threads_for(self.n_docs, n_threads)):
            if (flags & FLAG_SCORES).any():
                why = float32_reason(self.convention) if sc.dtype == np.float64 else None
                raise_score_problem(sc, self.offsets, flags, self._plan.res.score_limit, "scores", why,
                                    self._plan.res.overflow_inf)
            self._raise_labels(self._kernel, self.labels, self.offsets, flags, "labels",
                              {FLAG_IDEAL_OVERFLOW: self._idcg, FLAG_DCG_OVERFLOW: dcg, FLAG_NDCG_OVERFLOW: nd})
        if self._plan.res.overflow_inf:
            warn_scores_to_inf(sc, self.offsets, flags, "scores")
        if check_labels:
            warn_unknown_labels(self.labels, self.convention, "labels")
            self._labels_checked = True
        if fuse:
            self._ideal_ready = True
            self._check_empty()
        return dcg, (nd if nd is not None else np.empty((0, nc)))

    def ndcg(self, scores: ArrayLike, *, tie_key: Optional[ArrayLike] = None,
             n_threads: Optional[int] = None) -> np.ndarray:
        """Per-query NDCG, shape (n_queries,) or (n_queries, n_cutoffs), float64."""
        sc, key = self._check_scores(scores, tie_key)
        return self._shape(self._run(sc, key, n_threads)[1], fresh=True)

    def dcg(self, scores: ArrayLike, *, tie_key: Optional[ArrayLike] = None,
            n_threads: Optional[int] = None) -> np.ndarray:
        """Per-query DCG, same shape as :meth:`ndcg`."""
        sc, key = self._check_scores(scores, tie_key)
        return self._shape(self._run(sc, key, n_threads, with_ndcg=False)[0], fresh=True)

    def mean(self, scores: ArrayLike, *, tie_key: Optional[ArrayLike] = None,
             n_threads: Optional[int] = None) -> Union[float, np.ndarray]:
        """Aggregate NDCG: a float for a single k, else one value per cutoff.

        ``aggregation="mean"``: sum_q w_q NDCG_q / sum_q w_q over queries whose
        NDCG is not NaN (``empty="skip"`` leaves them out; w_q = 1 without
        weights). ``aggregation="ratio"``: sum_q w_q DCG_q / sum_q w_q IDCG_q
        over the same queries, DCG_q counting 0 where the short rule zeroes
        the query. NaN when no query counts. The convention's
        ``weight_precision``, ``empty_weight`` and ``above_one`` fields adjust
        this (see :class:`fastndcg.Convention`). Both sums are exact and
        correctly rounded, so the result depends neither on the thread count
        nor on how the queries are split (streaming, Dask, Spark agree).
        """
        sc, key = self._check_scores(scores, tie_key)
        dcg, nd = self._run(sc, key, n_threads)
        return self._aggregate(dcg, nd, n_threads)

    __call__ = mean

    def evaluate(self, scores: ArrayLike, *, tie_key: Optional[ArrayLike] = None,
                 n_threads: Optional[int] = None) -> Tuple[np.ndarray, Union[float, np.ndarray]]:
        """(per-query NDCG as :meth:`ndcg`, the aggregate as :meth:`mean`) from one kernel pass."""
        sc, key = self._check_scores(scores, tie_key)
        dcg, nd = self._run(sc, key, n_threads)
        return self._shape(nd, fresh=True), self._aggregate(dcg, nd, n_threads)

    def summands(self, scores: ArrayLike, *, tie_key: Optional[ArrayLike] = None,
                 n_threads: Optional[int] = None) -> "tuple[np.ndarray, np.ndarray, np.ndarray]":
        """Per-query NDCG and the per-query terms that :meth:`mean` adds up.

        Returns ``(ndcg, num, den)``, each of shape (n_queries, n_cutoffs)
        (one column per requested cutoff), such that ``mean`` is
        ``finish(num_sum, den_sum)`` with the exact sums of the columns
        (:func:`aggregate`). For ``aggregation="mean"``:
        num_q = w_q NDCG_q (or the bare NDCG_q of an empty query under
        ``empty_weight="unweighted"``) and den_q = w_q; for ``"ratio"``:
        num_q = w_q DCG_q (0 where the short rule zeroes the query) and
        den_q = w_q IDCG_q; both 0 for a query whose NDCG is NaN
        (``empty="skip"``). Partial sums over disjoint sets of queries
        combine exactly (out-of-core and distributed evaluation).
        """
        sc, key = self._check_scores(scores, tie_key)
        dcg, nd = self._run(sc, key, n_threads)
        num, den = self._terms(dcg, nd)
        col = self._column
        return nd[:, col], num[:, col], den[:, col]

    def finish(self, num: ArrayLike, den: ArrayLike) -> Union[float, np.ndarray]:
        """The aggregate from summed terms (see :meth:`summands`): num / den per
        requested cutoff, NaN where den = 0, then ``convention.above_one``.
        A float for a single k, else an array."""
        return finish_aggregate(num, den, self.convention, self._single)

    def _terms(self, dcg: np.ndarray, nd: np.ndarray) -> "tuple[np.ndarray, np.ndarray]":
        num = np.empty_like(dcg)
        den = np.empty_like(dcg)
        conv = self.convention
        _aggregate.terms(nd, dcg, self._idcg, self.offsets, self._plan.short_limit, self.weights,
                         conv.aggregation == "ratio", conv.empty_weight == "unweighted", num, den)
        return num, den

    def _aggregate(self, dcg: np.ndarray, nd: np.ndarray, n_threads: Optional[int] = None):
        conv = self.convention
        num, den = _aggregate.sums(nd, dcg, self._idcg, self.offsets, self._plan.short_limit, self.weights,
                                   conv.aggregation == "ratio", conv.empty_weight == "unweighted",
                                   threads_for(self.n_queries * 64, n_threads))
        if self._single:
            c = int(self._column[0])
            return _finish_one(float(num[c]), float(den[c]), conv.above_one, conv.empty_mean)
        return finish_aggregate(num[self._column], den[self._column], conv, False)


# ----------------------------------------------------------------------------- the aggregate


def finish_aggregate(num: ArrayLike, den: ArrayLike, convention: Convention,
                     single: bool) -> Union[float, np.ndarray]:
    """num / den per cutoff (where den = 0, no query counts: NaN, or 0 under
    ``convention.empty_mean="zero"``), then ``convention.above_one``; a float when
    ``single``. The last step of every aggregate: callers that summed
    :meth:`NDCGScorer.summands` themselves pass their exact sums."""
    num = np.asarray(num, dtype=np.float64).reshape(-1)
    den = np.asarray(den, dtype=np.float64).reshape(-1)
    if single:
        return _finish_one(float(num[0]), float(den[0]), convention.above_one, convention.empty_mean)
    if not (np.isfinite(num).all() and np.isfinite(den).all()):
        raise _sums_overflow(num, den)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(den > 0, num / np.where(den > 0, den, 1.0), empty_mean_value(convention.empty_mean))
    return apply_above_one(values, convention.above_one)


def empty_mean_value(empty_mean: str) -> float:
    """The aggregate when no query counts (``Convention.empty_mean``): NaN, or 0.0 (torchmetrics)."""
    return 0.0 if empty_mean == "zero" else math.nan


def _sums_overflow(num: np.ndarray, den: np.ndarray) -> ValueError:
    return ValueError(f"the sums over queries overflow float64 (numerator {num.tolist()}, denominator "
                      f"{den.tolist()}): the query weights (or, with aggregation='ratio', weights times "
                      f"DCGs) are too large; scaling every weight by one factor does not change the result")


def _finish_one(num: float, den: float, above_one: str, empty_mean: str = "nan") -> float:
    # finish_aggregate for one cutoff, in Python floats (no numpy call overhead)
    if not (math.isfinite(num) and math.isfinite(den)):
        raise _sums_overflow(np.array([num]), np.array([den]))
    value = num / den if den > 0 else empty_mean_value(empty_mean)
    if above_one != "keep" and value > 1.0:
        if above_one == "check" and value > 1.0 + ABOVE_ONE_TOLERANCE:
            apply_above_one(np.array([value]), above_one)          # raises with the message
        value = 1.0
    return value


def aggregate(num: ArrayLike, den: ArrayLike, convention: Convention,
              single: bool) -> Union[float, np.ndarray]:
    """The aggregate from per-query terms (n_queries, n_cutoffs) as returned by
    :meth:`NDCGScorer.summands`: exact column sums, then :func:`finish_aggregate`."""
    return finish_aggregate(exact_column_sums(num), exact_column_sums(den), convention, single)


def exact_column_sums(x: ArrayLike) -> np.ndarray:
    """Correctly rounded sum of each column (order-independent, as math.fsum)."""
    arr = np.ascontiguousarray(x, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    return column_sums(arr, threads_for(arr.size * 8))


def apply_above_one(values: np.ndarray, above_one: str) -> np.ndarray:
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


# ----------------------------------------------------------------------------- one-shot set-up


def inverse_ideal_dcg(idcg: np.ndarray) -> np.ndarray:
    """1 / IDCG elementwise, 0 where IDCG <= 0 (a query with no ideal).

    A subnormal IDCG gives inf without a RuntimeWarning: the callers' output
    checks name the query (LambdaMART), or report what the library reports
    (LightGBM's metric multiplies by the same inverse).
    """
    with np.errstate(divide="ignore", over="ignore"):
        return np.where(idcg > 0, 1.0 / idcg, 0.0)


def one_shot(scores, labels, offsets, k, convention, tie_key, weights=None, ideal_dcg=None,
             ideal_labels=None, ideal_offsets=None, n_threads=None
             ) -> Tuple[NDCGScorer, np.ndarray, Optional[np.ndarray]]:
    """Shapes and dtypes checked, arguments at fault named; the values of
    scores and labels are left to the scoring kernel (with the ideal, fused)."""
    conv = as_convention(convention)
    sc = as_scores(scores)
    lab = as_labels(labels)
    off, max_n = check_csr_lengths(sc, lab, offsets)
    key = tie_key_for(conv, tie_key, lab)
    scorer = NDCGScorer._prepare(conv, lab, off, max_n, k, weights, ideal_dcg, ideal_labels,
                                 ideal_offsets, n_threads)
    return scorer, sc, key


__all__ = ["NDCGScorer", "aggregate", "exact_column_sums", "finish_aggregate", "inverse_ideal_dcg", "one_shot"]
