"""LambdaMART spec, one query: gains, discounts, the ranking, the sigmoids of each library, the
ideal DCG, and the lambdas and hessians of one query in each mode."""
from __future__ import annotations
import ctypes
import ctypes.util
import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

from fastndcg.reference import _ndcg as _ndcg_spec
from fastndcg.conventions._convention import Convention


MODES = ("default", "lightgbm", "xgboost")
DEFAULT_TRUNCATION = {"default": 30, "lightgbm": 30, "xgboost": 32}
SIGMOID_BINS = 1 << 20
# Doubles at or beyond this round to an infinite float32 (FLT_MAX + half an ulp).
FLOAT32_OVERFLOW = 2.0 ** 128 - 2.0 ** 103

f32 = np.float32

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_LIBM.expf.restype = ctypes.c_float
_LIBM.expf.argtypes = [ctypes.c_float]


def expf(x: np.float32) -> np.float32:
    """The C library's single-precision exp (what XGBoost calls)."""
    return f32(_LIBM.expf(float(x)))


# ----------------------------------------------------------------------------- pieces


def ndcg_spec():
    # The NDCG spec (gain, discount, ideal).
    return _ndcg_spec


def gain(label, convention: Convention) -> float:
    return ndcg_spec().gain_of(float(label), convention)


def discount(rank0: int, convention: Convention) -> float:
    """D at 0-based rank."""
    return ndcg_spec().discount_of(rank0 + 1, convention)


def ranking(scores: Sequence[float], gains: Sequence[float], convention: Convention,
            tie_key: Optional[Sequence[int]] = None, round_f32: bool = False) -> List[int]:
    """Positions of the query's documents, best first (score descending; ties by the convention)."""
    n = len(scores)
    s = [ndcg_spec().float32_score(x) if round_f32 else float(x) for x in scores]
    ties = convention.ties
    if ties == "stable":
        return sorted(range(n), key=lambda i: (-s[i], i))
    if ties in ("key", "key_desc"):
        assert tie_key is not None, "ties by key need a tie_key"
        keys = [int(x) for x in tie_key]
        sign = 1 if ties == "key" else -1
        return sorted(range(n), key=lambda i: (-s[i], sign * keys[i], i))
    if ties == "worst":
        return sorted(range(n), key=lambda i: (-s[i], gains[i], i))
    if ties == "best":
        return sorted(range(n), key=lambda i: (-s[i], -gains[i], i))
    raise ValueError(f"LambdaMART needs a strict order; ties={ties!r} has none")


def lightgbm_sigmoid(x: float, sigma: float) -> float:
    """LightGBM GetSigmoid: 1/(1+exp(σ·t)) at the left edge t of x's bin, 2**20 bins on ±25/σ."""
    lo = -50.0 / sigma / 2.0
    hi = -lo
    factor = SIGMOID_BINS / (hi - lo)
    if x <= lo:
        b = 0
    elif x >= hi:
        b = SIGMOID_BINS - 1
    else:
        b = min(int((x - lo) * factor), SIGMOID_BINS - 1)
    t = b / factor + lo
    return 1.0 / (1.0 + math.exp(t * sigma))


def xgboost_sigmoid(x: np.float32) -> np.float32:
    """XGBoost common::Sigmoid(float): 1 / (expf(min(-x, 88.7f)) + 1 + 1e-16f), in float."""
    t = -x
    if f32(88.7) < t:
        t = f32(88.7)
    denom = f32(f32(expf(t) + f32(1.0)) + f32(1e-16))
    return f32(f32(1.0) / denom)


#: Default mode: a row whose exponential relative to the pivot falls below this
#: (sigma (s_pivot - s_i) > 44.4) becomes the pivot.
PIVOT_MIN = 2.0 ** -64


def unit_exponentials(s_ranked: Sequence[float], pivot: int, sigma: float) -> List[float]:
    """u_r = e^{-sigma (s_pivot - s_r)} in (0, 1] for the ranks r >= pivot (0 before it)."""
    top = s_ranked[pivot]
    return [0.0] * pivot + [math.exp(-(sigma * (top - x))) for x in s_ranked[pivot:]]


def pair_logistic(u_high: float, u_low: float) -> Tuple[float, float]:
    """(rho, 1 - rho) of a pair from its exponentials: rho = 1 / (1 + e^{sigma (s_h - s_l)})
    = u_l / (u_h + u_l) and 1 - rho = u_h / (u_h + u_l) (one division, no exp per pair)."""
    q = 1.0 / (u_high + u_low)
    return u_low * q, u_high * q


def ideal_dcg(labels: Sequence[float], k: Optional[int], convention: Convention, mode: str = "default") -> float:
    """IDCG@k of one query (k None: the whole list)."""
    if mode == "lightgbm":
        # LightGBM CalMaxDCGAtK: labels by label descending, sum of D(j) * gain.
        ordered = sorted((int(x) for x in labels), reverse=True)
        depth = len(ordered) if k is None else min(k, len(ordered))
        total = 0.0
        for j in range(depth):
            total += discount(j, convention) * gain(ordered[j], convention)
        if not math.isfinite(total):
            raise ValueError(f"the ideal DCG overflows float64 ({total!r})")
        return total
    conv = Convention(gain=convention.gain) if mode == "xgboost" else convention
    return ndcg_spec().query_ideal_dcg(labels, [k], conv)[0]


def inverse_or_zero(idcg: float) -> float:
    return 1.0 / idcg if idcg > 0 else 0.0


def pair_rows(n: int, t: Optional[int]) -> int:
    return max(0, n - 1 if t is None else min(n - 1, t))


# ----------------------------------------------------------------------------- one query


def query_lambdas_default(scores, labels, convention: Convention, truncation: Optional[int],
                          sigma: float = 1.0, normalize: bool = True, score_normalization: bool = True,
                          tie_key=None) -> Tuple[List[float], List[float]]:
    """Default mode for one query: the logistic from per-document exponentials, double precision."""
    n = len(scores)
    grad, hess = [0.0] * n, [0.0] * n
    inv = inverse_or_zero(ideal_dcg(labels, truncation, convention))     # every query's (it must not overflow)
    if n < 2:
        return grad, hess
    if _ndcg_spec.short_query(n, truncation, convention):
        return grad, hess
    if inv == 0.0:
        return grad, hess
    gains = [gain(x, convention) for x in labels]
    round_f32 = convention.score_precision == "float32"
    order = ranking(scores, gains, convention, tie_key, round_f32)
    s = [ndcg_spec().float32_score(x) if round_f32 else float(x) for x in scores]
    all_equal = s[order[0]] == s[order[-1]]
    # The logistic of a pair from e^{sigma s} of each document, relative to a pivot
    # rank (rank 0, moved down to the current row when that row's u drops below
    # PIVOT_MIN, so that every u_h + u_l is a normal number): rounding only.
    s_ranked = [s[x] for x in order]
    u = unit_exponentials(s_ranked, 0, sigma)
    total = 0.0
    for i in range(pair_rows(n, truncation)):
        if u[i] < PIVOT_MIN:
            u = unit_exponentials(s_ranked, i, sigma)
        for j in range(i + 1, n):
            a, b = order[i], order[j]
            if gains[a] == gains[b]:
                continue
            (h, rh), (l, rl) = ((a, i), (b, j)) if gains[a] > gains[b] else ((b, j), (a, i))
            ds = s[h] - s[l]
            dz = (gains[h] - gains[l]) * abs(discount(rh, convention) - discount(rl, convention)) * inv
            if score_normalization and not all_equal:
                dz = dz / (0.01 + abs(ds))
            rho, rho1m = pair_logistic(u[rh], u[rl])
            lam = -sigma * dz * rho
            w = sigma * sigma * dz * (rho * rho1m)
            grad[h] += lam
            grad[l] -= lam
            hess[h] += w
            hess[l] += w
            total = total - 2.0 * lam
    if normalize and total > 0:
        nf = math.log2(1.0 + total) / total
        grad = [x * nf for x in grad]
        hess = [x * nf for x in hess]
    return grad, hess


def query_lambdas_lightgbm(scores, labels, convention: Convention, truncation: Optional[int],
                           sigma: float = 1.0, normalize: bool = True,
                           score_normalization: bool = True) -> Tuple[List[np.float32], List[np.float32]]:
    """LightGBM 4.x LambdarankNDCG::GetGradientsForOneQuery for one query (float32 results)."""
    n = len(scores)
    lam = [f32(0.0)] * n
    hes = [f32(0.0)] * n
    inv = inverse_or_zero(ideal_dcg(labels, truncation, convention, mode="lightgbm"))
    if n < 2:
        return lam, hes
    s = [float(x) for x in scores]
    y = [float(x) for x in labels]
    order = sorted(range(n), key=lambda i: (-s[i], i))          # std::stable_sort, score desc
    best, worst = s[order[0]], s[order[-1]]
    total = 0.0
    for i in range(pair_rows(n, truncation)):
        for j in range(i + 1, n):
            if y[order[i]] == y[order[j]]:
                continue
            hr, lr = (i, j) if y[order[i]] > y[order[j]] else (j, i)
            h, l = order[hr], order[lr]
            ds = s[h] - s[l]
            dz = (gain(y[h], convention) - gain(y[l], convention)) \
                * abs(discount(hr, convention) - discount(lr, convention)) * inv
            if score_normalization and best != worst:
                dz = dz / (float(f32(0.01)) + abs(ds))
            p = lightgbm_sigmoid(ds, sigma)
            ph = p * (1.0 - p)
            p = p * (-sigma * dz)
            ph = ph * (sigma * sigma * dz)
            lam[l] = f32(lam[l] - f32(p))
            hes[l] = f32(hes[l] + f32(ph))
            lam[h] = f32(lam[h] + f32(p))
            hes[h] = f32(hes[h] + f32(ph))
            total = total - 2.0 * p
    if normalize and total > 0:
        nf = math.log2(1.0 + total) / total
        lam = [f32(float(x) * nf) for x in lam]
        hes = [f32(float(x) * nf) for x in hes]
    return lam, hes


class Unbiased:
    """XGBoost's Unbiased LambdaMART state for one round: the position ratios
    t+ and t- (K entries each, read) and the per-document cost sums li, lj of
    the query being computed (written; lists indexed by position in the query)."""

    def __init__(self, t_plus: Sequence[float], t_minus: Sequence[float]):
        self.t_plus = [float(x) for x in t_plus]
        self.t_minus = [float(x) for x in t_minus]
        self.li: List[float] = []
        self.lj: List[float] = []


def xgboost_pair(s, y, order, hr: int, lr: int, inv: float, convention: Convention,
                 normalize_by_distance: bool, unbiased: Optional[Unbiased]) -> Tuple[np.float32, np.float32]:
    """XGBoost's LambdaGrad for ranks (hr, lr), y[order[hr]] > y[order[lr]]:
    float32 (lambda, hessian) of the high document (the low one gets -lambda).

    d = f32(s_h - s_l); rho = Sigmoid(d); dZ = |((G_h D_h + G_l D_l) - (G_l D_h + G_h D_l)) inv|
    (/ (|d| + 0.01)); lambda = (rho - 1) dZ; H = max(rho (1 - rho), 1e-16) dZ 2. Unbiased, with
    i_h, i_l the documents' positions in the query and K = len(t+): cost = log(1 / (1 - rho)) dZ;
    if i_h, i_l < K: lambda and H are divided by t+[i_h] t-[i_l] (both >= 1e-16), and
    li[i_h] += cost / t-[i_l], lj[i_l] += cost / t+[i_h] (each when its divisor >= 1e-16).
    """
    h, l = order[hr], order[lr]
    d32 = f32(s[h] - s[l])
    rho = float(xgboost_sigmoid(d32))
    gh, gl = gain(y[h], convention), gain(y[l], convention)
    dh, dl = discount(hr, convention), discount(lr, convention)
    dz = abs(((gh * dh + gl * dl) - (gl * dh + gh * dl)) * inv)
    if normalize_by_distance:
        dz = dz / (float(abs(d32)) + 0.01)
    lam = (rho - 1.0) * dz
    w = max(rho * (1.0 - rho), 1e-16) * dz * 2.0
    if unbiased is not None:
        cost = math.log(1.0 / (1.0 - rho)) * dz
        k = len(unbiased.t_plus)
        if h < k and l < k:
            tp, tm = unbiased.t_plus[h], unbiased.t_minus[l]
            if tm >= 1e-16 and tp >= 1e-16:
                lam = lam / (tp * tm)
                w = w / (tp * tm)
            if tm >= 1e-16:
                unbiased.li[h] += cost / tm
            if tp >= 1e-16:
                unbiased.lj[l] += cost / tp
    return f32(lam), f32(w)


def query_lambdas_xgboost(scores, labels, convention: Convention, truncation: Optional[int],
                          normalize: bool = True, score_normalization: bool = True,
                          unbiased: Optional[Unbiased] = None) -> Tuple[List[np.float32], List[np.float32]]:
    """XGBoost 3.x rank:ndcg (topk) for one query (float32 results, before group weights)."""
    n = len(scores)
    grad = [f32(0.0)] * n
    hess = [f32(0.0)] * n
    y = [float(f32(x)) for x in labels]           # XGBoost's labels are float32
    if unbiased is not None:
        unbiased.li = [0.0] * n
        unbiased.lj = [0.0] * n
    if n < 2:
        return grad, hess
    inv = inverse_or_zero(ideal_dcg(y, truncation, convention, mode="xgboost"))
    if inv == 0.0:
        return grad, hess
    s = [f32(ndcg_spec().float32_score(x)) for x in scores]
    order = sorted(range(n), key=lambda i: (-float(s[i]), i))    # stable ArgSort, greater
    by_distance = score_normalization and s[order[0]] != s[order[-1]]
    total = 0.0
    top = n if truncation is None else min(n, truncation)
    for i in range(top):
        for j in range(i + 1, n):
            if y[order[i]] == y[order[j]]:
                continue
            hr, lr = (j, i) if y[order[i]] < y[order[j]] else (i, j)
            lam32, w32 = xgboost_pair(s, y, order, hr, lr, inv, convention, by_distance, unbiased)
            h, l = order[hr], order[lr]
            grad[h] = f32(grad[h] + lam32)
            hess[h] = f32(hess[h] + w32)
            grad[l] = f32(grad[l] + (-lam32))
            hess[l] = f32(hess[l] + w32)
            total += -2.0 * float(lam32)
    if normalize:
        nf = math.log2(1.0 + total) / total if total > 0 else 1.0
        if nf != 1.0:
            grad = [f32(x * f32(nf)) for x in grad]
            hess = [f32(x * f32(nf)) for x in hess]
    return grad, hess
