"""LambdaMART spec, the round-to-round state: XGBoost's mean pair sampling (minstd_rand and
libstdc++'s uniform_int_distribution) and the position-debiasing updates of LightGBM and XGBoost."""
from __future__ import annotations
import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from fastndcg.conventions._convention import Convention
from fastndcg.reference._lambdamart_query import Unbiased, inverse_or_zero, ndcg_spec, f32, ideal_dcg, xgboost_pair


# ----------------------------------------------------------------------------- XGBoost mean pairs


class MinstdRand:
    """std::minstd_rand: x <- 48271 x mod (2^31 - 1); a seed s starts at s mod (2^31 - 1), 0 -> 1."""

    M = 2147483647

    def __init__(self, seed: int):
        self.x = int(seed) % self.M or 1

    def __call__(self) -> int:
        self.x = (self.x * 48271) % self.M
        return self.x


def uniform_int(rng: MinstdRand, top: int) -> int:
    """libstdc++'s uniform_int_distribution<size_t>(0, top)(rng) for minstd_rand.

    The engine's range max - min = 2^31 - 3 is neither 2^32 - 1 nor 2^64 - 1, so
    libstdc++ takes its two-division path: scaling = range // (top + 1);
    draw v = rng() - 1 until v < (top + 1) * scaling; return v // scaling.
    """
    urngrange = MinstdRand.M - 2
    if top == urngrange:
        return rng() - 1
    if top > urngrange:
        raise ValueError("groups of 2^31 - 2 or more documents are not supported")
    scaling = urngrange // (top + 1)
    past = (top + 1) * scaling
    v = rng() - 1
    while v >= past:
        v = rng() - 1
    return v // scaling


def mean_pairs(labels_by_rank: Sequence[float], num_pair: int, seed: int) -> List[Tuple[int, int]]:
    """XGBoost 3.1-3.3 MakePairs, `mean` branch: the (rank, rank) pairs in drawing order.

    Labels in model-rank order are stably sorted descending; for each bucket
    [i, j) of equal labels with nl = i ranks before and nr = n - j after it,
    num_pair times, each bucket member draws r = uniform_int(0, nl + nr - 1),
    shifted past the bucket when r >= nl, and pairs with that rank.
    """
    n = len(labels_by_rank)
    ys = sorted(range(n), key=lambda r: (-labels_by_rank[r], r))
    rng = MinstdRand(seed)
    out = []
    i = 0
    while i < n:
        j = i + 1
        while j < n and labels_by_rank[ys[i]] == labels_by_rank[ys[j]]:
            j += 1
        nl, nr = i, n - j
        if nl + nr > 0:
            for _ in range(num_pair):
                for k in range(i, j):
                    r = uniform_int(rng, nl + nr - 1)
                    if r >= nl:
                        r = r - i + j
                    out.append((ys[k], ys[r]))
        i = j
    return out


def query_lambdas_xgboost_mean(scores, labels, convention: Convention, num_pair: int, seed: int,
                               normalize: bool = True, score_normalization: bool = True,
                               unbiased: Optional[Unbiased] = None
                               ) -> Tuple[List[np.float32], List[np.float32]]:
    """XGBoost 3.1-3.3 rank:ndcg with lambdarank_pair_method="mean" for one query.

    seed = (iteration + 1) * n_groups + g (mod 2^32). Ideal DCG over the whole
    list; pairs of :func:`mean_pairs` accumulated in drawing order; with
    normalisation every value is multiplied by f32(1 / num_pair) (unless 1).
    """
    n = len(scores)
    grad = [f32(0.0)] * n
    hess = [f32(0.0)] * n
    if unbiased is not None:
        unbiased.li = [0.0] * n
        unbiased.lj = [0.0] * n
    if n < 2:
        return grad, hess
    y = [float(f32(x)) for x in labels]           # XGBoost's labels are float32
    inv = inverse_or_zero(ideal_dcg(y, None, convention, mode="xgboost"))
    if inv == 0.0:
        return grad, hess
    s = [f32(ndcg_spec().float32_score(x)) for x in scores]
    order = sorted(range(n), key=lambda i: (-float(s[i]), i))
    by_distance = score_normalization and s[order[0]] != s[order[-1]]
    for a, b in mean_pairs([y[i] for i in order], num_pair, seed):
        if y[order[a]] == y[order[b]]:
            continue
        hr, lr = (b, a) if y[order[a]] < y[order[b]] else (a, b)
        lam32, w32 = xgboost_pair(s, y, order, hr, lr, inv, convention, by_distance, unbiased)
        h, l = order[hr], order[lr]
        grad[h] = f32(grad[h] + lam32)
        hess[h] = f32(hess[h] + w32)
        grad[l] = f32(grad[l] + (-lam32))
        hess[l] = f32(hess[l] + w32)
    if normalize:
        nf = 1.0 / num_pair
        if nf != 1.0:
            grad = [f32(x * f32(nf)) for x in grad]
            hess = [f32(x * f32(nf)) for x in hess]
    return grad, hess


# ----------------------------------------------------------------------------- position debiasing


def position_ids(positions) -> Tuple[np.ndarray, np.ndarray]:
    """LightGBM's position ids: raw positions numbered in order of first appearance.

    Returns (ids per row, the raw position of each id)."""
    ids: List[int] = []
    values: List[int] = []
    seen: Dict[int, int] = {}
    for x in positions:
        x = int(x)
        if x not in seen:
            seen[x] = len(values)
            values.append(x)
        ids.append(seen[x])
    return np.asarray(ids, dtype=np.int32), np.asarray(values, dtype=np.int64)


def lightgbm_position_bias_update(grad, hess, ids, factors, regularization: float,
                                  learning_rate: float) -> np.ndarray:
    """LightGBM's UpdatePositionBiasFactors (one thread), from the round's
    float32 (weighted) gradients: per position p, in row order,
    G1 = -sum g_i, G2 = -sum h_i (double), n_p rows; G1 -= b_p reg n_p;
    G2 -= reg n_p; b_p = f32(b_p + lr G1 / (|G2| + 0.001)). Returns the new factors."""
    n_pos = len(factors)
    d1, d2, cnt = [0.0] * n_pos, [0.0] * n_pos, [0] * n_pos
    for g, h, p in zip(grad, hess, ids):
        d1[p] -= float(g)
        d2[p] -= float(h)
        cnt[p] += 1
    out = np.empty(n_pos, dtype=np.float32)
    for p in range(n_pos):
        b = float(f32(factors[p]))
        first = 0.0 + d1[p]
        second = 0.0 + d2[p]
        first -= b * regularization * cnt[p]
        second -= regularization * cnt[p]
        out[p] = f32(b + learning_rate * first / (abs(second) + 0.001))
    return out


def xgboost_position_bias_update(li_rows, lj_rows, offsets, t_plus, t_minus,
                                 bias_norm: float) -> Tuple[np.ndarray, np.ndarray]:
    """XGBoost's LambdaRankUpdatePositionBias: L_i = sum over groups (in order)
    of li[i] for i < min(n_g, K), likewise M_i from lj; then
    t+_i = (L_i / L_0)^(1 / (1 + bias_norm)) if L_0 >= 1e-16, t-_i likewise
    (left unchanged otherwise). Returns the new (t+, t-)."""
    k = len(t_plus)
    li, lj = [0.0] * k, [0.0] * k
    for a, b in zip(offsets[:-1], offsets[1:]):
        for i in range(min(int(b) - int(a), k)):
            li[i] += float(li_rows[int(a) + i])
            lj[i] += float(lj_rows[int(a) + i])
    reg = 1.0 / (1.0 + bias_norm)
    tp = [float(x) for x in t_plus]
    tm = [float(x) for x in t_minus]
    for i in range(k):
        if li[0] >= 1e-16:
            tp[i] = math.pow(li[i] / li[0], reg)
        if lj[0] >= 1e-16:
            tm[i] = math.pow(lj[i] / lj[0], reg)
    return np.asarray(tp), np.asarray(tm)
