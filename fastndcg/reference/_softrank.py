"""Pure-Python reference for SoftNDCG (SoftRank) and its gradient: the spec.

Taylor, Guiver, Robertson, Minka, "SoftRank: optimizing non-smooth rank
metrics", WSDM 2008. For one query with documents j = 1..n, scores s_j,
labels l_j and a smoothing width sigma > 0:

* each score becomes a random variable S_j ~ N(s_j, sigma^2), independently;
* pi_ij = P(S_i > S_j) = Phi((s_i - s_j) / (sigma sqrt 2))
  = erfc((s_j - s_i) / (2 sigma)) / 2 is the probability that i beats j
  (1 - pi_ij is computed as pi_ji, so tails keep their precision);
* the rank of j (0-based: how many documents beat it) has the
  rank-binomial distribution p_j, built one document at a time:
  p_j^(0)(r) = [r == 0], p_j^(i)(r) = p_j^(i-1)(r-1) pi_ij + p_j^(i-1)(r) (1 - pi_ij)
  over every i != j (the order of the i does not matter);
* SoftDCG@k = sum_j G(l_j) sum_{r < min(k, n)} D(r + 1) p_j(r), with the
  engine's gain G and discount D of a 1-based rank; ranks at or beyond k
  weigh nothing, so the distributions are only needed for r < min(k, n);
* SoftNDCG@k = SoftDCG@k / IDCG@k, the ideal DCG of the query's labels under
  the convention (cut at k unless ``ideal="full"``). A query with n < k scores
  0 when ``short="zero"``; a query with IDCG = 0 gets the ``empty`` value.
  Both DCGs use a discount array scaled by a power of two to a largest entry
  in [1, 2) (``Convention.unit_discount``): the ratio is the same, and tiny
  discounts do not underflow when multiplied by rank probabilities.

Gradient. With psi_ij = d pi_ij / d s_i = exp(-(s_i - s_j)^2 / (4 sigma^2)) / (2 sigma sqrt pi)
(so d pi_ij / d s_j = -psi_ij) and p_j^{-i} the rank distribution of j built
without document i,

    d p_j(r) / d pi_ij = p_j^{-i}(r - 1) - p_j^{-i}(r)

so with A_ij = G(l_j) sum_r D(r + 1) (p_j^{-i}(r - 1) - p_j^{-i}(r)):

    d SoftDCG / d s_m = sum_{j != m} A_mj psi_mj - sum_{i != m} A_im psi_im.

Two documents with equal score and equal gain are interchangeable, so their
B_mi = A_mi - A_im is exactly 0: both kernel and spec leave the pair out
(psi ~ 1 / sigma would blow up the rounding of the difference for a tiny sigma).

This reference recomputes every p_j^{-i} from scratch (O(n^3 k) per query):
slow and obviously right. The compiled kernel differentiates the recursion in
reverse mode instead (O(n^2 k)), so the two are independent derivations.

Hessian approximation (for boosting). The objective is 1 - SoftNDCG. Its exact
second derivative is not positive, so the objectives use, per document m,

    h_m = (1 / IDCG) sum_{i != m} |B_mi| psi_mi^2 / (pi_mi pi_im),   B_mi = A_mi - A_im,

the Fisher information of a probit pair model P(m beats i) = pi_mi, weighted
by |B_mi| = |d SoftDCG / d pi_mi| (the pair's total weight in the gradient,
d SoftDCG / d s_m = sum_i B_mi psi_mi). It is >= 0, at most |B_mi| / (pi sigma^2)
per pair, and vanishes for pairs far apart, like LambdaMART's
|dNDCG| rho (1 - rho).

Cap on query length (``max_docs``): a query with more documents takes only
its ``max_docs`` highest-scored documents (ties: input order) into the
computation, as if the others did not exist; the others get gradient 0. The
ideal DCG is still the whole query's. Exact when n <= max_docs.

Nothing here imports a compiled module.
"""
from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

__all__ = [
    "pair_probability",
    "pair_density",
    "rank_distribution",
    "query_soft_dcg",
    "soft_rank_distributions",
    "soft_ndcg",
    "soft_ndcg_grad",
    "soft_ndcg_grad_hess",
]

_SQRT_PI = math.sqrt(math.pi)
# Doubles at or beyond this round to an infinite float32 (FLT_MAX + half an ulp).
_FLOAT32_OVERFLOW = 2.0 ** 128 - 2.0 ** 103


def _conv(convention: Any):
    from fastndcg.conventions._presets import as_convention

    return as_convention(convention)


def _check_sigma(sigma: float) -> float:
    s = float(sigma)
    if not (math.isfinite(s) and s > 0):
        raise ValueError(f"sigma must be a finite number > 0; got sigma={sigma!r}")
    return s


def pair_probability(s_i: float, s_j: float, sigma: float) -> float:
    """pi_ij = P(S_i > S_j) = Phi((s_i - s_j) / (sigma sqrt 2)) = erfc((s_j - s_i) / (2 sigma)) / 2.

    Divided by sigma, then by 2: 2 sigma overflows for sigma > DBL_MAX / 2."""
    return 0.5 * math.erfc((s_j - s_i) / sigma / 2.0)


def pair_density(s_i: float, s_j: float, sigma: float) -> float:
    """psi_ij = d pi_ij / d s_i = exp(-(s_i - s_j)^2 / (4 sigma^2)) / (2 sigma sqrt pi)."""
    z = (s_i - s_j) / (2.0 * sigma)
    return math.exp(-z * z) / (2.0 * sigma * _SQRT_PI)


def rank_distribution(scores: Sequence[float], j: int, sigma: float, depth: Optional[int] = None,
                      without: Optional[int] = None) -> List[float]:
    """p_j(r) for r = 0..depth-1 by the rank-binomial recursion over i != j (and i != without)."""
    n = len(scores)
    depth = n if depth is None else depth
    p = [0.0] * depth
    if depth > 0:
        p[0] = 1.0
    for i in range(n):
        if i == j or i == without:
            continue
        beat = pair_probability(scores[i], scores[j], sigma)     # pi_ij
        lose = pair_probability(scores[j], scores[i], sigma)     # 1 - pi_ij
        new = [0.0] * depth
        for r in range(depth):
            below = p[r - 1] if r > 0 else 0.0
            new[r] = below * beat + p[r] * lose
        p = new
    return p


def _kept(scores: Sequence[float], max_docs: Optional[int]) -> List[int]:
    """Positions taking part: all, or the max_docs best by score (ties: input order)."""
    n = len(scores)
    if max_docs is None or n <= max_docs:
        return list(range(n))
    best = sorted(range(n), key=lambda i: (-scores[i], i))[:max_docs]
    return sorted(best)


def _depth(k: Optional[int], n: int) -> int:
    return n if k is None else min(k, n)


def query_soft_dcg(scores: Sequence[float], labels: Sequence[float], sigma: float, k: Optional[int] = None,
                   convention: Any = None, max_docs: Optional[int] = None) -> float:
    """SoftDCG@k of one query."""
    from fastndcg.reference._ndcg import discount_of, gain_of

    conv = _conv(convention)
    sigma = _check_sigma(sigma)
    keep = _kept(scores, max_docs)
    s = [float(scores[i]) for i in keep]
    g = [gain_of(float(labels[i]), conv) for i in keep]
    m = len(s)
    depth = _depth(k, m)
    disc = [discount_of(r + 1, conv) for r in range(depth)]
    total = 0.0
    for j in range(m):
        p = rank_distribution(s, j, sigma, depth)
        total += g[j] * sum(disc[r] * p[r] for r in range(depth))
    return total


def _query_parts(scores, labels, sigma, k, conv, max_docs, want_grad, want_hess):
    """(SoftDCG, dSoftDCG/ds (len n), hessian approximation numerator (len n))."""
    from fastndcg.reference._ndcg import discount_of, gain_of

    n = len(scores)
    keep = _kept(scores, max_docs)
    s = [float(scores[i]) for i in keep]
    g = [gain_of(float(labels[i]), conv) for i in keep]
    m = len(s)
    depth = _depth(k, m)
    disc = [discount_of(r + 1, conv) for r in range(depth)]
    total = 0.0
    for j in range(m):
        p = rank_distribution(s, j, sigma, depth)
        total += g[j] * sum(disc[r] * p[r] for r in range(depth))
    grad = [0.0] * n
    hess = [0.0] * n
    if not (want_grad or want_hess):
        return total, grad, hess
    # A[i][j] = d (G(l_j) sum_r D(r+1) p_j(r)) / d pi_ij, from leave-one-out distributions.
    A = [[0.0] * m for _ in range(m)]
    for j in range(m):
        if g[j] == 0.0:
            continue
        for i in range(m):
            if i == j:
                continue
            q = rank_distribution(s, j, sigma, depth, without=i)
            d = 0.0
            for r in range(depth):
                below = q[r - 1] if r > 0 else 0.0
                d += disc[r] * (below - q[r])
            A[i][j] = g[j] * d
    for a in range(m):
        ga = ha = 0.0
        for b in range(m):
            if a == b:
                continue
            B = A[a][b] - A[b][a]          # d SoftDCG / d pi_ab
            if s[a] == s[b] and g[a] == g[b]:
                B = 0.0                    # interchangeable documents: exactly 0, whatever the rounding
            psi = pair_density(s[a], s[b], sigma)
            ga += B * psi
            both = pair_probability(s[a], s[b], sigma) * pair_probability(s[b], s[a], sigma)
            if both > 0.0:
                ha += abs(B) * psi * psi / both
        grad[keep[a]] = ga
        hess[keep[a]] = ha
    return total, grad, hess


def _queries(offsets) -> List[Tuple[int, int]]:
    offs = [int(x) for x in offsets]
    return [(offs[q], offs[q + 1]) for q in range(len(offs) - 1)]


def _batch(scores, labels, offsets, sigma, k, convention, max_docs, want_grad, want_hess):
    from fastndcg.reference._ndcg import query_ideal_dcg, query_ndcg_from, short_query

    # a discount array scaled to a largest entry in [1, 2): SoftNDCG is
    # unchanged, but G D p no longer underflows for tiny discounts
    conv = _conv(convention).unit_discount()
    sigma = _check_sigma(sigma)
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise ValueError(f"k must be None or an int >= 1; got k={k!r}")
    if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, (int, np.integer))
                                 or max_docs < 1):
        raise ValueError(f"max_docs must be None or an int >= 1; got max_docs={max_docs!r}")
    k = conv.default_k if k is None else k      # None: the convention's default cutoff
    out_dtype = np.asarray(scores).dtype
    sc = np.asarray(scores, dtype=np.float64)
    lab = np.asarray(labels)
    values = []
    grad = np.zeros(sc.shape[0], dtype=np.float64)
    hess = np.zeros(sc.shape[0], dtype=np.float64)
    for q, (a, b) in enumerate(_queries(offsets)):
        s_q = sc[a:b].tolist()
        l_q = lab[a:b].tolist()
        idcg = query_ideal_dcg(l_q, [k], conv)[0]
        soft, gq, hq = _query_parts(s_q, l_q, sigma, k, conv, max_docs,
                                    want_grad and idcg > 0, want_hess and idcg > 0)
        value = query_ndcg_from(soft, idcg, b - a, k, conv, q)
        values.append(value)
        short = short_query(b - a, k, conv)
        if idcg > 0 and not short:
            grad[a:b] = [x / idcg for x in gq]
            hess[a:b] = [x / idcg for x in hq]
            # sums that overflow (huge gains or discounts, or a tiny sigma in the
            # hessian) are an error, in the output dtype of the compiled version;
            # a query scored by the empty or short rule uses none of them
            limit = _FLOAT32_OVERFLOW if out_dtype == np.float32 else math.inf
            if not (math.isfinite(soft) and all(abs(x) < limit for x in grad[a:b]) and
                    (not want_hess or all(abs(x) < limit for x in hess[a:b]))):
                raise ValueError(f"query {q}: SoftDCG, its gradient or hessian overflows")
    return np.array(values, dtype=np.float64), grad, hess


def soft_ndcg(scores, labels, offsets, *, sigma: float, k: Optional[int] = None, convention: Any = None,
              max_docs: Optional[int] = None) -> np.ndarray:
    """SoftNDCG@k per query, float64 of shape (n_queries,)."""
    return _batch(scores, labels, offsets, sigma, k, convention, max_docs, False, False)[0]


def soft_ndcg_grad(scores, labels, offsets, *, sigma: float, k: Optional[int] = None, convention: Any = None,
                   max_docs: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """(SoftNDCG per query, d SoftNDCG_q / d s_i per document)."""
    values, grad, _ = _batch(scores, labels, offsets, sigma, k, convention, max_docs, True, False)
    return values, grad


def soft_ndcg_grad_hess(scores, labels, offsets, *, sigma: float, k: Optional[int] = None,
                        convention: Any = None, max_docs: Optional[int] = None):
    """(values, gradient of SoftNDCG, the positive curvature approximation h) per document.

    h is the module docstring's Fisher-information approximation, before any
    floor or weight (the boosting objectives use grad_loss = -grad, hess_loss = h).
    """
    return _batch(scores, labels, offsets, sigma, k, convention, max_docs, True, True)


def soft_rank_distributions(scores, offsets, *, sigma: float, depth: Optional[int] = None) -> np.ndarray:
    """p_j(r) for every document j, r = 0..depth-1 (default: the longest query), zero-padded."""
    sigma = _check_sigma(sigma)
    sc = np.asarray(scores, dtype=np.float64)
    queries = _queries(offsets)
    if depth is None:
        depth = max([b - a for a, b in queries], default=0)
    out = np.zeros((sc.shape[0], depth), dtype=np.float64)
    for a, b in queries:
        s_q = sc[a:b].tolist()
        for j in range(b - a):
            p = rank_distribution(s_q, j, sigma, min(depth, b - a))
            out[a + j, :len(p)] = p
    return out
