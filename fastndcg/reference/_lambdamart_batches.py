"""LambdaMART spec over CSR batches: argument rules, weights in each library's float order, and the
pair API (|ΔNDCG| of every pair)."""
from __future__ import annotations
import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from fastndcg.conventions._convention import Convention
from fastndcg.conventions._presets import as_convention
from fastndcg.reference._lambdamart_debias import MinstdRand, lightgbm_position_bias_update, mean_pairs, position_ids, query_lambdas_xgboost_mean, uniform_int, xgboost_position_bias_update
from fastndcg.reference._lambdamart_query import DEFAULT_TRUNCATION, MODES, Unbiased, FLOAT32_OVERFLOW, inverse_or_zero, pair_rows, ndcg_spec, discount, f32, gain, ideal_dcg, lightgbm_sigmoid, query_lambdas_default, query_lambdas_lightgbm, query_lambdas_xgboost, ranking, xgboost_pair, xgboost_sigmoid


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
        if mode == "xgboost" and abs(float(x)) >= FLOAT32_OVERFLOW:
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
        if conv.empty != "error" or ndcg_spec().short_query(b - a, truncation, conv):
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
            ndcg_spec().float32_score(x)
    labels = np.asarray(labels)
    _check_labels(labels, conv, mode)
    offsets = [int(x) for x in offsets]
    if mode == "default":
        ndcg_spec().check_discount_covers(conv, offsets, [None], whole=True)    # pairs reach every rank
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
                    (out32 and max(abs(float(gi)), abs(float(hi))) >= FLOAT32_OVERFLOW):
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
            ndcg_spec().float32_score(x)
    offsets = [int(x) for x in offsets]
    ndcg_spec().check_discount_covers(conv, offsets, [None], whole=True)
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
        inv = inverse_or_zero(ideal_dcg(yq, truncation, conv))

        def disc(r):
            if cut_discount and truncation is not None and r >= truncation:
                return 0.0
            return discount(r, conv)

        for i in range(pair_rows(n, truncation)):
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
