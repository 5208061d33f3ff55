"""SoftNDCG (SoftRank) with its exact gradient, and the boosting loss built on it.

Taylor, Guiver, Robertson, Minka, "SoftRank: optimizing non-smooth rank
metrics", WSDM 2008. Each score s_j is smoothed into S_j ~ N(s_j, sigma^2);
the rank of every document then has a distribution, and SoftNDCG is the NDCG
those distributions give in expectation. It is differentiable in the scores,
so it can be optimised directly.

Public functions: :func:`soft_ndcg`, :func:`soft_ndcg_grad`,
:func:`soft_rank_distributions`; the loss :class:`SoftNDCGObjective` (gradient and hessian
on arrays), which the LightGBM and XGBoost objectives of ``fastndcg.integrations`` drive
with ``loss="softndcg"``. The pure-Python spec is :mod:`fastndcg.reference._softrank`;
the user guide is ``docs/softrank.md``.
"""
from __future__ import annotations

import threading
from typing import Any, Optional, Tuple

import numpy as np

from fastndcg._core import _softrank
from fastndcg.conventions._convention import Convention
from fastndcg.conventions._presets import as_convention
from fastndcg._core.arguments import check_count, check_real
from fastndcg._core.threads import effective_n_threads, threads_for
from fastndcg._core.prepared import NDCGScorer
from fastndcg._core.plan import kernel_plan
from fastndcg._core.query_checks import FULL_LIST, check_labels, check_offsets, max_query_size
from fastndcg._core.score_checks import OVERFLOW_HINT, check_csr, check_no_overflow, check_scores

__all__ = [
    "soft_ndcg",
    "soft_ndcg_grad",
    "soft_rank_distributions",
    "SoftNDCGObjective",
]

ArrayLike = Any

#: Per-thread scratch above this raises MemoryError up front (advice: max_docs or k).
MAX_SCRATCH_BYTES = 4 << 30


# ----------------------------------------------------------------------------- scalar checks


# ----------------------------------------------------------------------------- the plan


class _SoftPlan:
    """Labels, offsets and convention resolved once: gain table, discount
    table, ideal DCG per query, thread scratch sizes. Reused across calls
    (a boosting loop pays only for the kernel)."""

    def __init__(self, labels: np.ndarray, offsets: np.ndarray, k: Optional[int],
                 conv: Convention, max_docs: Optional[int], n_threads: Optional[int]) -> None:
        self.convention = conv
        self.labels = labels
        self.offsets = offsets
        # k=None means the convention's default cutoff, as for every measure
        # (default_k; None: the whole list), for the soft DCG and the ideal alike.
        k = conv.resolve_k(k)
        self.k = k
        self.max_docs = max_docs
        self.n_queries = offsets.shape[0] - 1
        self.max_n = max_query_size(offsets)
        self.kcut = FULL_LIST if k is None else k
        self.doc_cap = FULL_LIST if max_docs is None else max_docs
        big_m = min(self.max_n, self.doc_cap)
        self.depth = max(1, min(self.kcut, big_m))
        # The soft DCG multiplies D by probabilities: a discount array scaled
        # to a largest entry in [1, 2) keeps G D p out of underflow (the ratio
        # to the ideal, computed with the same table, is unchanged).
        plan = kernel_plan(conv, self.max_n, [k], depth=self.depth, unit_discount=True)
        unit = conv.unit_discount()
        # Raises for empty="error" when a query has ideal DCG 0 (same message as NDCG);
        # the labels and offsets were checked by the caller: not again.
        self.idcg = np.ascontiguousarray(
            NDCGScorer._checked(unit, labels, offsets, self.max_n, k, n_threads).ideal_dcg, dtype=np.float64)
        self.kernel_tables = _softrank.SoftNDCGTables(plan.compiled(), self.doc_cap, self.idcg, self.max_n)

    def check_scratch(self, want_grad: bool, want_hess: bool) -> None:
        big_m = min(self.max_n, self.doc_cap)
        doubles = 8 * big_m + (big_m * self.depth if want_grad else 2 * self.depth)
        if want_hess:
            doubles += big_m * big_m
        if 8 * doubles > MAX_SCRATCH_BYTES:
            raise MemoryError(
                f"SoftNDCG needs {8 * doubles / 2**20:.1f} MiB of scratch per thread for the longest "
                f"query ({self.max_n} documents); pass max_docs= (documents taking part) or k= "
                f"(ranks computed) to bound it")

    def run(self, sc: np.ndarray, sigma: float, want_grad: bool, want_hess: bool,
            n_threads: Optional[int]) -> Tuple[np.ndarray, Optional[np.ndarray], Optional[np.ndarray]]:
        self.check_scratch(want_grad or want_hess, want_hess)
        n = sc.shape[0]
        values = np.empty(self.n_queries, dtype=np.float64)
        grad = np.empty(n if want_grad or want_hess else 0, dtype=sc.dtype)
        hess = np.empty(n if want_hess else 0, dtype=sc.dtype)
        _softrank.soft_ndcg_batch(self.kernel_tables, sc, self.labels, self.offsets, sigma, values, grad, hess,
                                  threads_for(n * min(self.max_n, self.doc_cap), n_threads))
        check_no_overflow(values, "SoftNDCG", self.offsets, OVERFLOW_HINT, per_query=True, nan_ok=True)
        for name, out in (("grad", grad), ("hess", hess)):
            if out.shape[0]:
                check_no_overflow(out, name, self.offsets, f"sigma={sigma!r} or the gains and discounts are "
                                  "too extreme for the output dtype", per_query=False)
        return values, (grad if want_grad or want_hess else None), (hess if want_hess else None)


def _validated(scores, labels, offsets, sigma, k, convention, max_docs, n_threads):
    sigma = check_real(sigma, "sigma", invertible=True)
    k = check_count(k, "k", optional=True)
    max_docs = check_count(max_docs, "max_docs", optional=True)
    conv = as_convention(convention)
    effective_n_threads(n_threads)
    sc, lab, _, off = check_csr(scores, labels, offsets, conv,
                                n_threads=threads_for(np.asarray(scores).shape[0], n_threads))
    return sc, _SoftPlan(lab, off, k, conv, max_docs, n_threads), sigma


_COMMON_NOTES = """
    For query q with n documents, scores s and labels l, every score becomes
    S_j ~ N(s_j, sigma^2) and

    * pi_ij = P(S_i > S_j) = Phi((s_i - s_j) / (sigma sqrt 2)) = erfc((s_j - s_i) / (2 sigma)) / 2
      (libc ``erfc``: the smaller of pi_ij and pi_ji = 1 - pi_ij is computed from
      erfc of a non-negative argument, so the tail keeps full relative precision);
    * p_j(r), the distribution of j's 0-based rank, follows the rank-binomial
      recursion p_j(r) <- p_j(r-1) pi_ij + p_j(r) (1 - pi_ij) over i != j, from p_j = [r == 0];
    * SoftDCG@k = sum_j G(l_j) sum_{r < min(k, n)} D(r + 1) p_j(r);
    * SoftNDCG@k = SoftDCG@k / IDCG@k.

    G, D, the ideal (cut at k, or ``ideal="full"``), ``short`` (n < k -> 0)
    and ``empty`` (IDCG = 0 -> 0, 1, NaN or ValueError) come from the
    convention, exactly as for :func:`fastndcg.ndcg`; ``ties``,
    ``score_precision`` and ``aggregation`` do not apply (equal scores simply
    get pi = 1/2). As sigma -> 0, SoftNDCG -> NDCG for tie-free scores.

    Range: >= 0 always, and <= 1 for the full list with a convex
    non-increasing discount (log2, reciprocal). SoftRank treats the pairwise
    events as independent, so with a cut at k or LETOR's flat-topped discount
    a query of near-tied relevant documents can exceed 1 (three equal labels,
    near-equal scores, k = 2: 1.125 under LETOR's discount).

    Complexity: O(n^2 min(k, n)) time per query (O(n^3) for the full list)
    and O(n min(k, n)) scratch per thread; the cut k is exact, not an
    approximation, because ranks r < k never depend on ranks >= k.
    ``max_docs`` caps the documents taking part: a longer query uses only its
    ``max_docs`` highest-scored documents (ties: input order), the others get
    gradient 0 and the ideal DCG stays the whole query's (an approximation,
    exact for n <= max_docs). Queries run in parallel (OpenMP), one thread
    per query: results are bit-identical for any ``n_threads``.
"""


def _measured(measurement: Any, sigma: Optional[float], k: Optional[int], convention: Any) -> Tuple[Any, Any, Any]:
    """(sigma, k, convention) of ``measurement=``, or as given (one rule for every family:
    :func:`fastndcg.measures._measurement.array_arguments`)."""
    if measurement is not None:
        from fastndcg.measures._measurement import array_arguments

        got = array_arguments(measurement, "soft_ndcg", sigma=sigma, k=k, convention=convention)
        return got["sigma"], got["k"], got["convention"]
    if sigma is None:
        raise TypeError("sigma is required (the standard deviation of the score noise), or measurement=")
    return sigma, k, convention


def soft_ndcg(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, *, sigma: Optional[float] = None,
              k: Optional[int] = None, convention: Any = None, max_docs: Optional[int] = None,
              n_threads: Optional[int] = None, measurement: Any = None) -> np.ndarray:
    """SoftNDCG@k per query (SoftRank, Taylor et al. 2008).

    Parameters
    ----------
    scores : array of shape (n_docs,)
        Model scores; float32/float64 kept, others become float64. Finite.
    labels : array of shape (n_docs,)
        Relevance labels, as for :func:`fastndcg.ndcg`.
    offsets : int array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``.
    sigma : float
        Standard deviation of the score noise, > 0, in score units. Small
        sigma is close to NDCG (and to its zero gradient almost everywhere);
        large sigma is smoother.
    k : int, optional
        Cut: ranks >= k weigh nothing (SoftNDCG@k). None is the convention's
        default cutoff, as for :func:`fastndcg.ndcg`: ``convention.default_k``
        when set (32 for the "xgboost" preset), else the whole list. The same
        cut applies to the soft DCG and to the ideal.
    convention : Convention, preset name or None
        Gain, discount, ideal, short- and empty-query rules.
    measurement : Measurement or str, optional
        A SoftNDCG :class:`~fastndcg.Measurement` (or its signature) in place of
        ``sigma``, ``k`` and ``convention``, which it states.
    max_docs : int, optional
        Cap on the documents taking part per query (see Notes).
    n_threads : int, optional
        OpenMP threads (None: the CPUs other work does not hold now, see
        :func:`fastndcg.effective_n_threads`).

    Returns
    -------
    ndarray of float64, shape (n_queries,)

    Notes
    -----
    {common_notes}
    See Also
    --------
    soft_ndcg_grad, fastndcg.reference.soft_ndcg : the pure-Python spec.

    Examples
    --------
    >>> import fastndcg.measures._softrank as sr
    >>> v = sr.soft_ndcg([2.0, 1.0, 0.0], [2, 1, 0], [0, 3], sigma=1e-3)
    >>> round(float(v[0]), 12)
    1.0
    """
    sigma, k, convention = _measured(measurement, sigma, k, convention)
    sc, plan, sigma = _validated(scores, labels, offsets, sigma, k, convention, max_docs, n_threads)
    return plan.run(sc, sigma, False, False, n_threads)[0]


def soft_ndcg_grad(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, *, sigma: Optional[float] = None,
                   k: Optional[int] = None, convention: Any = None, max_docs: Optional[int] = None,
                   n_threads: Optional[int] = None, measurement: Any = None) -> Tuple[np.ndarray, np.ndarray]:
    """SoftNDCG@k per query and its exact gradient with respect to every score.

    Parameters are those of :func:`soft_ndcg`.

    Returns
    -------
    values : ndarray of float64, shape (n_queries,)
    grad : ndarray of the score dtype, shape (n_docs,)
        grad[i] = d SoftNDCG_q / d s_i for the query q that owns row i (an
        ascent direction); 0 for queries whose value is fixed by the
        ``short``/``empty`` rules and for documents left out by ``max_docs``.

    Notes
    -----
    With psi_ij = d pi_ij / d s_i = exp(-(s_i - s_j)^2 / (4 sigma^2)) / (2 sigma sqrt pi)
    and A_ij = d(G(l_j) sum_r D(r+1) p_j(r)) / d pi_ij,

        d SoftNDCG / d s_m = (1 / IDCG) sum_{i != m} (A_mi - A_im) psi_mi.

    A_ij is obtained by differentiating the recursion in reverse mode: the
    forward pass keeps the prefix distributions p_j^(t), the backward pass
    carries the adjoint a_t(r) = d(G(l_j) sum D p_j) / d p_j^(t)(r) down,
    a_{t-1}(r) = a_t(r+1) pi + a_t(r) (1 - pi), and reads off
    A_ij = sum_r p_j^(t-1)(r) (a_t(r+1) - a_t(r)). Sums in double; the result
    is cast to the score dtype.
    {common_notes}
    """
    sigma, k, convention = _measured(measurement, sigma, k, convention)
    sc, plan, sigma = _validated(scores, labels, offsets, sigma, k, convention, max_docs, n_threads)
    values, grad, _ = plan.run(sc, sigma, True, False, n_threads)
    return values, grad


for _f in (soft_ndcg, soft_ndcg_grad):
    _f.__doc__ = (_f.__doc__ or "").replace("    {common_notes}\n", _COMMON_NOTES.lstrip("\n") + "\n")
del _f


def soft_rank_distributions(scores: ArrayLike, offsets: ArrayLike, *, sigma: float,
                            depth: Optional[int] = None, n_threads: Optional[int] = None) -> np.ndarray:
    """SoftRank distribution of every document's rank: P(rank_j = r), r = 0..depth-1.

    Row i holds p_i(r) for the document in row i (0-based rank: the number of
    documents of its query that beat it), zero-padded past its query's size.
    ``depth`` defaults to the longest query; a smaller depth truncates exactly.
    The expected rank is sum_r r p_j(r) = sum_{i != j} pi_ij. Time
    O(n^2 min(depth, n)) per query.

    Returns
    -------
    ndarray of float64, shape (n_docs, depth)
    """
    sigma = check_real(sigma, "sigma", invertible=True)
    depth = check_count(depth, "depth", optional=True)
    sc_raw = np.asarray(scores)
    if sc_raw.ndim != 1:
        raise ValueError(f"scores must be 1-D; got an array of shape {sc_raw.shape}")
    off = check_offsets(offsets, sc_raw.shape[0])
    sc = check_scores(sc_raw, off, n_threads=threads_for(sc_raw.shape[0], n_threads))
    max_n = max_query_size(off)
    if depth is None:
        depth = max_n
    out = np.zeros((sc.shape[0], depth), dtype=np.float64)
    if sc.shape[0] and depth:
        _softrank.rank_distribution_batch(sc, off, sigma, out, max_n,
                                          threads_for(sc.shape[0] * min(max_n, depth), n_threads))
    return out


# ----------------------------------------------------------------------------- objectives


class SoftNDCGObjective:
    """The boosting loss sum_q w (1 - SoftNDCG_q): gradient and a positive hessian.

    Parameters
    ----------
    sigma : float, default 1.0
        Score noise, as in :func:`soft_ndcg` (LightGBM's lambdarank also
        defaults its ``sigmoid`` to 1).
    k : int, optional
        Cut of SoftNDCG@k; also bounds the cost, O(n^2 min(k, n)) per query.
    convention : Convention, preset name or None
        Gain, discount, ideal and short rule. Queries with ideal DCG 0 get
        gradient 0 whatever ``empty`` says (there is nothing to learn).
    max_docs : int, optional
        Cap on the documents taking part per query (the highest-scored ones).
        The hessian needs O(min(n, max_docs)^2) scratch per thread.
    min_hessian : float, default 1e-6
        Floor of the hessian, so that every row has a positive one.
    n_threads : int, optional
        OpenMP threads for the kernel.

    Notes
    -----
    For a document m of query q with row weight w_m:

        grad_m = -w_m d SoftNDCG_q / d s_m
        hess_m = w_m max(h_m, min_hessian),
        h_m = (1 / IDCG_q) sum_{i != m} |B_mi| psi_mi^2 / (pi_mi pi_im),

    where B_mi = A_mi - A_im = d SoftDCG / d pi_mi is the pair's weight in the
    gradient (d SoftDCG / d s_m = sum_i B_mi psi_mi). psi^2 / (pi (1 - pi))
    is the Fisher information of a probit pair model P(m beats i) = pi_mi,
    so h is the Gauss-Newton curvature of pairs weighted by how much SoftNDCG
    cares about each: >= 0, at most |B| / (pi sigma^2) per pair (at s_m = s_i),
    and vanishing for pairs far apart, in the way LambdaMART's
    |dNDCG| rho (1 - rho) does. The exact second derivative of SoftNDCG is
    indefinite, so it is not used. Hessians are on the scale of LambdaMART's
    (roughly 0.01-1 per row): with XGBoost, lower ``min_child_weight`` (its
    default of 1 can stop all splits on small queries).
    """

    def __init__(self, *, sigma: float = 1.0, k: Optional[int] = None, convention: Any = None,
                 max_docs: Optional[int] = None, min_hessian: float = 1e-6,
                 n_threads: Optional[int] = None) -> None:
        self.sigma = check_real(sigma, "sigma", invertible=True)
        self.k = check_count(k, "k", optional=True)
        self.max_docs = check_count(max_docs, "max_docs", optional=True)
        self.min_hessian = check_real(min_hessian, "min_hessian")
        conv = as_convention(convention)
        if conv.empty == "error":
            conv = conv.replace(empty="zero", name=conv.name)
        self.convention = conv
        effective_n_threads(n_threads)
        self.n_threads = n_threads
        self._count_lock = threading.Lock()
        self.n_plans_built = 0

    # -- generic --------------------------------------------------------------------
    def plan(self, labels: ArrayLike, offsets: ArrayLike,
             weights: Optional[ArrayLike] = None) -> Tuple[_SoftPlan, Optional[np.ndarray]]:
        """Validate labels/offsets/weights once; the result feeds :meth:`grad_hess_with`."""
        lab_raw = np.asarray(labels)
        if lab_raw.ndim != 1:
            raise ValueError(f"labels must be 1-D; got an array of shape {lab_raw.shape}")
        off = check_offsets(offsets, lab_raw.shape[0])
        lab, _ = check_labels(lab_raw, lab_raw.shape[0], self.convention, off, other="labels",
                              n_threads=threads_for(lab_raw.shape[0], self.n_threads))
        w = None
        if weights is not None:
            w = _row_weights(weights, off)
        with self._count_lock:
            self.n_plans_built += 1
        return _SoftPlan(lab, off, self.k, self.convention, self.max_docs, self.n_threads), w

    def grad_hess_with(self, plan: Tuple[_SoftPlan, Optional[np.ndarray]],
                       preds: ArrayLike) -> Tuple[np.ndarray, np.ndarray]:
        soft, w = plan
        sc = check_scores(np.ravel(np.asarray(preds)), soft.offsets, name="preds",
                          n_threads=threads_for(soft.labels.shape[0], self.n_threads))
        if sc.shape[0] != soft.labels.shape[0]:
            raise ValueError(f"preds must have one entry per row ({soft.labels.shape[0]}); got {sc.shape[0]}")
        _, grad, hess = soft.run(sc, self.sigma, True, True, self.n_threads)
        assert grad is not None and hess is not None      # both were asked for
        np.negative(grad, out=grad)
        np.maximum(hess, self.min_hessian, out=hess)
        if w is not None:
            grad *= w.astype(grad.dtype, copy=False)
            hess *= w.astype(hess.dtype, copy=False)
        return grad, hess

    def grad_hess(self, preds: ArrayLike, labels: ArrayLike, offsets: ArrayLike,
                  weights: Optional[ArrayLike] = None) -> Tuple[np.ndarray, np.ndarray]:
        """(grad, hess) of sum_q (1 - SoftNDCG_q) for CSR inputs (no caching).

        ``weights``: per row (n_docs,) or per query (n_queries,); per row
        when the two counts are equal (expand per-query weights with
        ``np.repeat(w, np.diff(offsets))`` to be explicit).
        """
        return self.grad_hess_with(self.plan(labels, offsets, weights), preds)

    def __deepcopy__(self, memo: Any) -> "SoftNDCGObjective":
        # the object holds only immutable settings (and a counter): a copy would be the same
        return self

    def __getstate__(self) -> dict:
        # settings only: the lock is rebuilt on unpickling
        state = dict(self.__dict__)
        state.update(_count_lock=None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._count_lock = threading.Lock()


def _row_weights(weights: ArrayLike, offsets: np.ndarray) -> np.ndarray:
    """Per-row weights from per-row (n_docs,) or per-query (n_queries,) weights."""
    w = np.asarray(weights)
    if w.ndim != 1 or w.dtype.kind not in "biuf":
        raise ValueError(f"weights must be a 1-D numeric array; got shape {w.shape}, dtype {w.dtype}")
    w = w.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"weights must be finite and >= 0; got weights[{i}]={w[i].item()!r}")
    n_docs = int(offsets[-1])
    n_queries = offsets.shape[0] - 1
    if w.shape[0] == n_docs:
        return w
    if w.shape[0] == n_queries:
        return np.repeat(w, np.diff(offsets))
    raise ValueError(f"weights must have one entry per row ({n_docs}) or per query ({n_queries}); "
                     f"got length {w.shape[0]}")
