"""Pure-Python reference for LambdaMART gradients: the readable spec.

Plain Python, one query and one pair at a time, written for clarity (numpy
only for float32 scalars and array conversion; the C library only for
``expf``, which Python lacks). No compiled fastndcg module is used. The
compiled kernels of :mod:`fastndcg.measures.lambdamart` are tested against it.

For one query, documents are ranked by score, descending; equal scores keep
their input order (or follow the convention's tie rule in default mode).
r is the 0-based rank, G the gain, D(r) the discount at 0-based rank r
(``1/log2(r+2)`` by default), T the truncation and IDCG@T the ideal DCG.
Every pair (h, l) with a larger gain (label, in the exact modes) for h and
min(r_h, r_l) < T contributes

* |ΔNDCG_hl| = (G_h - G_l) · |D(r_h) - D(r_l)| / IDCG@T,
  divided by (0.01 + |s_h - s_l|) with score normalisation (unless all of the
  query's scores are equal);
* ρ = 1 / (1 + exp(σ (s_h - s_l)));
* λ_hl = -σ |ΔNDCG_hl| ρ: grad_h += λ_hl, grad_l -= λ_hl;
* σ² |ΔNDCG_hl| ρ (1 - ρ) to both hessians (twice that in XGBoost);

then, with list normalisation, every value is scaled by log2(1 + S) / S,
S = Σ 2|λ_hl|; then weights apply. The three modes differ in arithmetic:

* ``default``: double precision, exact logistic;
* ``lightgbm``: LightGBM 4.x lambdarank — ρ from a 2**20-bin table,
  float32 accumulation in pair-loop order, ``0.01f``, IDCG by label order;
* ``xgboost``: XGBoost 3.x rank:ndcg topk — float32 scores, ``expf``,
  hessian 2 ρ(1-ρ)|ΔNDCG|, float32 scaling, group weights × n/Σw.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from fastndcg.reference import _ndcg as _ndcg_spec
from fastndcg.conventions import Convention, as_convention

MODES = ("default", "lightgbm", "xgboost")
DEFAULT_TRUNCATION = {"default": 30, "lightgbm": 30, "xgboost": 32}
SIGMOID_BINS = 1 << 20
# Doubles at or beyond this round to an infinite float32 (FLT_MAX + half an ulp).
_FLOAT32_OVERFLOW = 2.0 ** 128 - 2.0 ** 103

f32 = np.float32

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_LIBM.expf.restype = ctypes.c_float
_LIBM.expf.argtypes = [ctypes.c_float]


def expf(x: np.float32) -> np.float32:
    """The C library's single-precision exp (what XGBoost calls)."""
    return f32(_LIBM.expf(float(x)))


# ----------------------------------------------------------------------------- pieces


def _spec():
    # The NDCG spec (gain, discount, ideal).
    return _ndcg_spec


def gain(label, convention: Convention) -> float:
    return _spec().gain_of(float(label), convention)


def discount(rank0: int, convention: Convention) -> float:
    """D at 0-based rank."""
    return _spec().discount_of(rank0 + 1, convention)


def ranking(scores: Sequence[float], gains: Sequence[float], convention: Convention,
            tie_key: Optional[Sequence[int]] = None, round_f32: bool = False) -> List[int]:
    """Positions of the query's documents, best first (score descending; ties by the convention)."""
    n = len(scores)
    s = [_spec().float32_score(x) if round_f32 else float(x) for x in scores]
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


def logistic(z: float) -> Tuple[float, float]:
    """(1/(1+e^z), e^z/(1+e^z)) without overflow."""
    if z > 0:
        e = math.exp(-z)
        return e / (1.0 + e), 1.0 / (1.0 + e)
    e = math.exp(z)
    return 1.0 / (1.0 + e), e / (1.0 + e)


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
    return _spec().query_ideal_dcg(labels, [k], conv)[0]


def _inverse(idcg: float) -> float:
    return 1.0 / idcg if idcg > 0 else 0.0


def _pair_rows(n: int, t: Optional[int]) -> int:
    return max(0, n - 1 if t is None else min(n - 1, t))


# ----------------------------------------------------------------------------- one query


def query_lambdas_default(scores, labels, convention: Convention, truncation: Optional[int],
                          sigma: float = 1.0, normalize: bool = True, score_normalization: bool = True,
                          tie_key=None) -> Tuple[List[float], List[float]]:
    """Default mode for one query: exact logistic, double precision."""
    n = len(scores)
    grad, hess = [0.0] * n, [0.0] * n
    inv = _inverse(ideal_dcg(labels, truncation, convention))     # every query's (it must not overflow)
    if n < 2:
        return grad, hess
    if convention.short == "zero" and truncation is not None and n < truncation:
        return grad, hess
    if inv == 0.0:
        return grad, hess
    gains = [gain(x, convention) for x in labels]
    round_f32 = convention.score_precision == "float32"
    order = ranking(scores, gains, convention, tie_key, round_f32)
    s = [_spec().float32_score(x) if round_f32 else float(x) for x in scores]
    all_equal = s[order[0]] == s[order[-1]]
    total = 0.0
    for i in range(_pair_rows(n, truncation)):
        for j in range(i + 1, n):
            a, b = order[i], order[j]
            if gains[a] == gains[b]:
                continue
            (h, rh), (l, rl) = ((a, i), (b, j)) if gains[a] > gains[b] else ((b, j), (a, i))
            ds = s[h] - s[l]
            dz = (gains[h] - gains[l]) * abs(discount(rh, convention) - discount(rl, convention)) * inv
            if score_normalization and not all_equal:
                dz = dz / (0.01 + abs(ds))
            rho, rho1m = logistic(sigma * ds)
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
    inv = _inverse(ideal_dcg(labels, truncation, convention, mode="lightgbm"))
    if n < 2:
        return lam, hes
    s = [float(x) for x in scores]
    y = [float(x) for x in labels]
    order = sorted(range(n), key=lambda i: (-s[i], i))          # std::stable_sort, score desc
    best, worst = s[order[0]], s[order[-1]]
    total = 0.0
    for i in range(_pair_rows(n, truncation)):
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
    inv = _inverse(ideal_dcg(y, truncation, convention, mode="xgboost"))
    if inv == 0.0:
        return grad, hess
    s = [f32(_spec().float32_score(x)) for x in scores]
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
    inv = _inverse(ideal_dcg(y, None, convention, mode="xgboost"))
    if inv == 0.0:
        return grad, hess
    s = [f32(_spec().float32_score(x)) for x in scores]
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


# ----------------------------------------------------------------------------- batches


def _resolve(mode, convention, truncation):
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}; got {mode!r}")
    if convention is None and mode == "lightgbm":
        convention = "lightgbm"
    conv = as_convention(convention)
    t = DEFAULT_TRUNCATION[mode] if truncation == "auto" else truncation
    return conv, t


def _check_labels(labels, conv: Convention, mode: str) -> None:
    """Every label has a gain under the convention (in every query, even one
    too short to have pairs); the exact modes take the labels their library
    takes: LightGBM integers (< 31 with its default gains, <= 2**24 with linear
    gain), XGBoost's exponential gain labels <= 31."""
    for x in labels:
        g = gain(x, conv)
        if mode == "lightgbm" and (float(x) != math.floor(float(x)) or
                                   (conv.gain == "exponential" and float(x) >= 31) or
                                   (conv.gain == "linear" and float(x) > 2**24)):
            raise ValueError(f"label {float(x)!r} is not one LightGBM takes")
        if mode == "xgboost" and conv.gain == "exponential" and float(x) > 31:
            raise ValueError(f"label {float(x)!r} is above 31 (XGBoost's exponential gain)")
        if mode == "xgboost" and abs(float(x)) >= _FLOAT32_OVERFLOW:
            raise ValueError(f"label {float(x)!r} overflows float32 (XGBoost's labels are float32)")
        del g


def _check_ideals(labels, offsets, conv: Convention, truncation: Optional[int]) -> None:
    """Every query's IDCG@T is computed (and must not overflow), whichever
    queries are asked for. empty="error" (default mode): a query with IDCG@T = 0
    is an error, unless the short rule zeroes it (short="zero", n < T); the
    other empty rules give such a query zero gradients (its NDCG is constant)."""
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        idcg = ideal_dcg(list(labels[a:b]), truncation, conv)
        if conv.empty != "error" or (conv.short == "zero" and truncation is not None and b - a < truncation):
            continue
        if idcg <= 0:
            raise ValueError(f"query {q} has ideal DCG 0 (empty='error')")


def lambda_gradients(scores, labels, offsets, *, mode: str = "default", convention=None,
                     truncation="auto", sigma: float = 1.0, normalize: bool = True,
                     score_normalization: bool = True, query_weights=None, sample_weights=None,
                     tie_key=None, position_ids=None, position_factors=None
                     ) -> Tuple[np.ndarray, np.ndarray]:
    """Gradient and hessian per document (see the module docstring).

    Returns float64 arrays in default mode (computed in double) and float32
    arrays in the exact modes. With ``position_ids`` and ``position_factors``
    (LightGBM's position bias), every score is first shifted by its
    position's float32 factor: s + f32(b[id]) in double (then rounded to
    float32 where the mode or convention ranks float32 scores).
    """
    conv, t = _resolve(mode, convention, truncation)
    if not (sigma > 0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be finite and > 0; got {sigma!r}")
    scores = np.asarray(scores)
    if position_ids is not None:
        shifted = [float(x) + float(f32(position_factors[int(p)])) for x, p in zip(scores, position_ids)]
        scores = np.asarray(shifted, dtype=np.float64)
    if mode == "xgboost" or conv.score_precision == "float32":
        for x in scores:            # every score is ranked in float32, in every query
            _spec().float32_score(x)
    labels = np.asarray(labels)
    _check_labels(labels, conv, mode)
    offsets = [int(x) for x in offsets]
    if mode == "default":
        _check_ideals(labels, offsets, conv, t)
    n_queries = len(offsets) - 1
    exact = mode != "default"
    grad = np.zeros(len(scores), dtype=np.float32 if exact else np.float64)
    hess = np.zeros_like(grad)
    w_norm = 1.0
    if exact:
        # the exact modes multiply by the weights in float32: they must stay finite there
        for w in list(query_weights if query_weights is not None else []) + \
                list(sample_weights if sample_weights is not None else []):
            with np.errstate(over="ignore"):
                if not math.isfinite(float(f32(w))):
                    raise ValueError(f"weights must stay finite when rounded to float32; got {float(w)!r}")
    if mode == "xgboost" and query_weights is not None:
        total = 0.0
        for w in query_weights:
            total += float(f32(w))
        w_norm = n_queries / total
        with np.errstate(over="ignore"):
            if not math.isfinite(float(f32(w_norm))):
                raise ValueError(f"n_queries / sum(query_weights) = {w_norm!r} overflows float32")
    for q in range(n_queries):
        a, b = offsets[q], offsets[q + 1]
        sq, yq = list(scores[a:b]), list(labels[a:b])
        g: Sequence[Any]
        h: Sequence[Any]    # float, or numpy.float32 in the exact modes
        if mode == "default":
            key = None if tie_key is None else list(np.asarray(tie_key)[a:b])
            g, h = query_lambdas_default(sq, yq, conv, t, sigma, normalize, score_normalization, key)
        elif mode == "lightgbm":
            g, h = query_lambdas_lightgbm(sq, yq, conv, t, sigma, normalize, score_normalization)
        else:
            g, h = query_lambdas_xgboost(sq, yq, conv, t, normalize, score_normalization)
        for i in range(b - a):
            gi, hi = g[i], h[i]
            if query_weights is not None:
                wq = query_weights[q]
                if exact:
                    gi, hi = f32(gi * f32(wq)), f32(hi * f32(wq))
                    if mode == "xgboost":
                        gi, hi = f32(gi * f32(w_norm)), f32(hi * f32(w_norm))
                else:
                    gi, hi = gi * float(wq), hi * float(wq)
            if sample_weights is not None:
                wi = sample_weights[a + i]
                if exact:
                    gi, hi = f32(gi * f32(wi)), f32(hi * f32(wi))
                else:
                    gi, hi = gi * float(wi), hi * float(wi)
            out32 = exact or scores.dtype == np.float32     # the compiled output dtype
            if not (math.isfinite(gi) and math.isfinite(hi)) or \
                    (out32 and max(abs(float(gi)), abs(float(hi))) >= _FLOAT32_OVERFLOW):
                # sigma, weights, gains or discounts too extreme for the output precision
                raise ValueError(f"query {q}: the gradient or hessian of row {a + i} overflows ({gi!r}, {hi!r})")
            grad[a + i] = gi
            hess[a + i] = hi
    return grad, hess


def xgboost_lambda_gradients(scores, labels, offsets, *, pair_method: str = "topk", num_pair=None,
                             iteration: int = 0, gain: str = "exponential", normalize: bool = True,
                             score_normalization: bool = True, query_weights=None,
                             t_plus=None, t_minus=None):
    """XGBoost 3.x rank:ndcg with its state: ``pair_method`` "topk" (k =
    ``num_pair``, default 32) or "mean" (``num_pair`` pairs per document,
    default 1, drawn with seed (iteration + 1) * n_groups + g), and, with
    ``t_plus`` / ``t_minus``, Unbiased LambdaMART.

    Returns (grad, hess, li_rows, lj_rows): float32 gradients (group weights
    applied) and the per-row unbiased cost sums (zeros when not unbiased).
    """
    conv = Convention(gain=gain)
    topk = pair_method == "topk"
    k = (32 if topk else 1) if num_pair is None else int(num_pair)
    scores = np.asarray(scores)
    labels = np.asarray(labels)
    offsets = [int(x) for x in offsets]
    n_queries = len(offsets) - 1
    grad = np.zeros(len(scores), dtype=np.float32)
    hess = np.zeros_like(grad)
    li_rows = np.zeros(len(scores))
    lj_rows = np.zeros(len(scores))
    w_norm = 1.0
    if query_weights is not None:
        total = 0.0
        for w in query_weights:
            total += float(f32(w))
        w_norm = n_queries / total
    for q in range(n_queries):
        a, b = offsets[q], offsets[q + 1]
        sq, yq = list(scores[a:b]), list(labels[a:b])
        ub = None if t_plus is None else Unbiased(t_plus, t_minus)
        if topk:
            g, h = query_lambdas_xgboost(sq, yq, conv, k, normalize, score_normalization, ub)
        else:
            seed = ((iteration + 1) * n_queries + q) % (1 << 32)
            g, h = query_lambdas_xgboost_mean(sq, yq, conv, k, seed, normalize, score_normalization, ub)
        wq = f32(1.0 if query_weights is None else query_weights[q])
        for i in range(b - a):
            grad[a + i] = f32(f32(g[i] * wq) * f32(w_norm))
            hess[a + i] = f32(f32(h[i] * wq) * f32(w_norm))
            if ub is not None:
                li_rows[a + i] = ub.li[i]
                lj_rows[a + i] = ub.lj[i]
    return grad, hess, li_rows, lj_rows


def delta_ndcg_pairs(scores, labels, offsets, *, queries=None, convention=None, truncation=None,
                     cut_discount: bool = False, tie_key=None):
    """(query, high, low, rank_high, rank_low, delta) arrays of the LambdaMART pairs.

    high / low are rows of the batch; pairs are listed query by query in
    pair-loop order. delta = (G_h - G_l) · |D(r_h) - D(r_l)| / IDCG@T, with
    D(r) = 0 for r >= T when ``cut_discount``.
    """
    conv = as_convention(convention)
    scores, labels = np.asarray(scores), np.asarray(labels)
    _check_labels(labels, conv, "default")
    if conv.score_precision == "float32":
        for x in scores:
            _spec().float32_score(x)
    offsets = [int(x) for x in offsets]
    _check_ideals(labels, offsets, conv, truncation)
    selected = range(len(offsets) - 1) if queries is None else [int(q) for q in queries]
    rows = []
    for q in selected:
        a, b = offsets[q], offsets[q + 1]
        n = b - a
        sq, yq = list(scores[a:b]), list(labels[a:b])
        gains = [gain(x, conv) for x in yq]
        key = None if tie_key is None else list(np.asarray(tie_key)[a:b])
        order = ranking(sq, gains, conv, key, conv.score_precision == "float32")
        inv = _inverse(ideal_dcg(yq, truncation, conv))

        def disc(r):
            if cut_discount and truncation is not None and r >= truncation:
                return 0.0
            return discount(r, conv)

        for i in range(_pair_rows(n, truncation)):
            for j in range(i + 1, n):
                u, v = order[i], order[j]
                if gains[u] == gains[v]:
                    continue
                (h, rh), (l, rl) = ((u, i), (v, j)) if gains[u] > gains[v] else ((v, j), (u, i))
                delta = (gains[h] - gains[l]) * abs(disc(rh) - disc(rl)) * inv
                if not math.isfinite(delta):
                    raise ValueError(f"query {q}: a pair's |ΔNDCG| overflows ({delta!r})")
                rows.append((q, a + h, a + l, rh, rl, delta))
    cols: List[Sequence[Any]] = list(zip(*rows)) if rows else [[] for _ in range(6)]
    ints = [np.asarray(c, dtype=np.int64) for c in cols[:5]]
    return (*ints, np.asarray(cols[5], dtype=np.float64))


__all__ = ["MinstdRand", "Unbiased", "delta_ndcg_pairs", "lambda_gradients", "lightgbm_position_bias_update",
           "lightgbm_sigmoid", "mean_pairs", "position_ids", "query_lambdas_default", "query_lambdas_lightgbm",
           "query_lambdas_xgboost", "query_lambdas_xgboost_mean", "uniform_int", "xgboost_lambda_gradients",
           "xgboost_pair", "xgboost_position_bias_update", "xgboost_sigmoid"]
