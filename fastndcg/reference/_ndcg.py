"""Pure-Python reference implementation of fastndcg: the readable spec.

Everything here is plain Python (numpy only for array conversion), written for
clarity, one query at a time. Every compiled kernel is tested against it.
No compiled fastndcg module is imported here.

Definitions, for one query with documents i = 1..n, label l_i and score s_i:

* G(l) is the gain, D(r) the discount of 1-based rank r.
* The ranking sorts documents by score descending; equal scores are ordered
  by the convention's tie rule (see :func:`ranked_gains`).
* DCG@k = sum_{r <= min(k, n)} G(l_pi(r)) D(r).
* IDCG@k = the same sum over the ideal order (gains sorted descending), over
  min(k, n_ideal) ranks when the ideal is cut, or over all n_ideal ranks when not.
* NDCG@k = DCG@k / IDCG@k, with the convention's rules for n < k (short) and
  IDCG = 0 (empty).
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence

import numpy as np

from fastndcg.conventions._convention import ABOVE_ONE_TOLERANCE, MAX_EXPONENTIAL_LABEL, Convention
from fastndcg.conventions._presets import as_convention

FULL_LIST = None  # k=None: the whole list


# ----------------------------------------------------------------------------- gain, discount


def gain_of(label: float, convention: Convention) -> float:
    """G(label) under the convention."""
    if convention.gain == "linear":
        if not (label >= 0 and math.isfinite(label)):
            raise ValueError(f"labels must be finite and >= 0; got {label!r}")
        return float(label)
    if label != int(label) or label < 0:
        raise ValueError(f"labels must be non-negative integers for this gain; got {label!r}")
    level = int(label)
    if convention.gain == "exponential":
        if level > MAX_EXPONENTIAL_LABEL:
            raise ValueError(f"labels must be <= {MAX_EXPONENTIAL_LABEL} for exponential gain; got {level}")
        return 2.0**level - 1.0
    table = convention.gain
    assert not isinstance(table, str)       # a table: "linear" and "exponential" were handled above
    if level < len(table) and not math.isnan(table[level]):
        return float(table[level])
    if convention.unknown_label == "zero":
        return 0.0
    raise ValueError(f"label {level} is outside the gain table")


def discount_of(rank: int, convention: Convention) -> float:
    """D(rank) for a 1-based rank."""
    d = convention.discount
    if d == "log2":
        return 1.0 / math.log2(rank + 1)
    if d == "letor":
        return 1.0 if rank <= 2 else 1.0 / math.log2(rank)
    if d == "reciprocal":
        return 1.0 / rank
    if d == "jk":        # Jarvelin & Kekalainen with log base b
        b = convention.discount_base
        return 1.0 if rank < b else 1.0 / (math.log2(rank) / math.log2(b))
    if rank > len(d):
        raise ValueError(f"the discount array has {len(d)} entries but rank {rank} is summed")
    return float(d[rank - 1])


# ----------------------------------------------------------------------------- ranking


def float32_score(s: float, overflow: str = "error") -> float:
    """``s`` rounded to float32. NaN is a ValueError. With ``overflow="error"``
    so is a rounding that overflows (an infinite score has no rank: two of
    them tie as inf, and inf - inf is NaN); with ``overflow="inf"`` (the C cast
    of pytrec_eval / torchmetrics) the result is +-inf."""
    if math.isnan(s):
        raise ValueError(f"scores must not be NaN; got {float(s)!r}")
    with np.errstate(over="ignore"):
        value = float(np.float32(s))
    if not math.isfinite(value) and overflow != "inf":
        raise ValueError(f"scores must stay finite when rounded to float32; got {float(s)!r}")
    return value


def _score_value(s: float, convention: Convention) -> float:
    if convention.score_precision == "float32":
        return float32_score(s, convention.float32_overflow)
    return float(s)


def ranked_gains(scores: Sequence[float], labels: Sequence[float], convention: Convention,
                 tie_key: Optional[Sequence[int]] = None) -> List[float]:
    """Gains of one query's documents in ranked order (best first).

    Tie rules for equal scores:

    * ``stable``: input order;
    * ``key`` / ``key_desc``: tie_key ascending / descending, then input order;
    * ``worst`` / ``best``: gain ascending / descending;
    * ``average``: every document of a tied group gets the group's mean gain
      (so sum_r gain_r D(r) over the group is the expected DCG over all orders).
    """
    n = len(scores)
    s = [_score_value(x, convention) for x in scores]
    g = [gain_of(float(x), convention) for x in labels]
    ties = convention.ties
    if ties == "stable" or ties == "average":
        order = sorted(range(n), key=lambda i: (-s[i], i))
    elif ties in ("key", "key_desc"):
        assert tie_key is not None, "ties by key need a tie_key"
        keys = [int(x) for x in tie_key]
        sign = 1 if ties == "key" else -1
        order = sorted(range(n), key=lambda i: (-s[i], sign * keys[i], i))
    elif ties == "worst":
        order = sorted(range(n), key=lambda i: (-s[i], g[i], i))
    elif ties == "best":
        order = sorted(range(n), key=lambda i: (-s[i], -g[i], i))
    else:  # pragma: no cover - Convention validates
        raise ValueError(ties)
    out = [g[i] for i in order]
    if ties == "average":
        r = 0
        while r < n:
            e = r
            while e + 1 < n and s[order[e + 1]] == s[order[r]]:
                e += 1
            mean = sum(out[r:e + 1]) / (e + 1 - r)
            for t in range(r, e + 1):
                out[t] = mean
            r = e + 1
    return out


def _dcg_of_ranked(gains: Sequence[float], depth: int, convention: Convention) -> float:
    total = 0.0
    for r in range(depth):
        total += gains[r] * discount_of(r + 1, convention)
    if not math.isfinite(total):
        raise ValueError(f"a DCG overflows float64 ({total!r}): gains times discounts are too large")
    return total


def _cutoff_list(k, convention: Optional[Convention] = None) -> List[Optional[int]]:
    """The cutoffs as a list; None stands for ``convention.default_k`` (None: whole list)."""
    if convention is not None and convention.default_k is not None:
        default = convention.default_k
        if k is None:
            return [default]
        if not isinstance(k, (int, np.integer)):
            return [default if x is None else int(x) for x in k]
    if k is None:
        return [None]
    if isinstance(k, (int, np.integer)):
        return [int(k)]
    return [None if x is None else int(x) for x in k]


def _depth(k: Optional[int], n: int) -> int:
    return n if k is None else min(k, n)


# ----------------------------------------------------------------------------- per query


def query_ideal_dcg(labels: Sequence[float], cutoffs: Sequence[Optional[int]], convention: Convention) -> List[float]:
    """IDCG of one query at each cutoff (the ideal list is this query's labels)."""
    ideal = sorted((gain_of(float(x), convention) for x in labels), reverse=True)
    out = []
    for k in cutoffs:
        depth = len(ideal) if convention.ideal == "full" else _depth(k, len(ideal))
        out.append(_dcg_of_ranked(ideal, depth, convention))
    return out


def query_dcg(scores, labels, cutoffs, convention: Convention, tie_key=None) -> List[float]:
    """DCG of one query at each cutoff."""
    gains = ranked_gains(scores, labels, convention, tie_key)
    return [_dcg_of_ranked(gains, _depth(k, len(gains)), convention) for k in cutoffs]


def short_query(n: int, k: Optional[int], convention: Convention) -> bool:
    """The short-query rule, the one place of it (NDCG, the aggregates, LambdaMART's truncation and
    SoftNDCG's k read it): under ``short="zero"`` a query of n documents shorter than its cutoff k
    scores 0; the whole list (k None) has no query shorter than it."""
    return convention.short == "zero" and k is not None and n < k


def query_ndcg_from(dcg: float, idcg: float, n: int, k: Optional[int], convention: Convention,
                    query: int = 0) -> float:
    """Apply the short-query and empty-query rules."""
    if short_query(n, k, convention):
        return 0.0
    if idcg > 0:
        value = dcg / idcg
        if math.isinf(value):
            raise ValueError(f"query {query}: NDCG = {dcg!r} / {idcg!r} overflows float64")
        return value
    if convention.empty == "zero":
        return 0.0
    if convention.empty == "one":
        return 1.0
    if convention.empty == "skip":
        return math.nan
    raise ValueError(f"query {query} has ideal DCG 0 (empty='error')")


# ----------------------------------------------------------------------------- batches


def _queries(offsets):
    offsets = [int(x) for x in offsets]
    return [(offsets[q], offsets[q + 1]) for q in range(len(offsets) - 1)]


def _shape(rows: List[List[float]], k) -> np.ndarray:
    arr = np.array(rows, dtype=np.float64).reshape(len(rows), len(_cutoff_list(k)))
    if k is None or isinstance(k, (int, np.integer)):
        return arr[:, 0]
    return arr


def check_discount_covers(convention: Convention, offsets, cutoffs: Sequence[Optional[int]],
                          whole: bool = False) -> None:
    """A discount array must cover every rank a call sums, whatever the gains:
    up to min(largest cutoff, longest list), or the longest list when the sum
    is over the whole list (``whole``: ideal="full", LambdaMART's pairs)."""
    d = convention.discount
    if isinstance(d, str):
        return
    longest = max((b - a for a, b in _queries(offsets)), default=0)
    cut = [c for c in cutoffs if c is not None]
    need = longest if whole or len(cut) < len(cutoffs) else min(max(cut), longest)
    if len(d) < need:
        raise ValueError(f"discount: the array has {len(d)} entries but ranks up to {need} are summed "
                         f"(longest query / largest k); give at least {need} entries")


def ideal_dcg(labels, offsets, k=None, convention=None, ideal_labels=None, ideal_offsets=None) -> np.ndarray:
    """IDCG per query: shape (n_queries,) for a single k, (n_queries, n_cutoffs) for a list."""
    conv = as_convention(convention)
    cutoffs = _cutoff_list(k, conv)
    if ideal_labels is not None:
        labels, offsets = ideal_labels, ideal_offsets
    check_discount_covers(conv, offsets, cutoffs, whole=conv.ideal == "full")
    labels = np.asarray(labels)
    rows = [query_ideal_dcg(labels[a:b], cutoffs, conv) for a, b in _queries(offsets)]
    return _shape(rows, k)


def dcg(scores, labels, offsets, k=None, convention=None, tie_key=None) -> np.ndarray:
    """DCG per query, same shapes as :func:`ideal_dcg`."""
    conv = as_convention(convention)
    cutoffs = _cutoff_list(k, conv)
    check_discount_covers(conv, offsets, cutoffs)
    scores, labels = np.asarray(scores), np.asarray(labels)
    rows = []
    for a, b in _queries(offsets):
        key = None if tie_key is None else np.asarray(tie_key)[a:b]
        rows.append(query_dcg(scores[a:b], labels[a:b], cutoffs, conv, key))
    return _shape(rows, k)


def ndcg(scores, labels, offsets, k=None, convention=None, tie_key=None, ideal_dcg_values=None,
         ideal_labels=None, ideal_offsets=None) -> np.ndarray:
    """NDCG per query.

    The ideal DCG comes from the query's own labels, or from ``ideal_labels`` /
    ``ideal_offsets`` (external judgments), or is given as ``ideal_dcg_values``
    (shape (n_queries,) used for every cutoff, or (n_queries, n_cutoffs)).
    """
    conv = as_convention(convention)
    cutoffs = _cutoff_list(k, conv)
    queries = _queries(offsets)
    d = np.asarray(dcg(scores, labels, offsets, cutoffs, conv, tie_key), dtype=np.float64).reshape(len(queries), len(cutoffs))
    if ideal_dcg_values is not None:
        i = np.asarray(ideal_dcg_values, dtype=np.float64)
        i = np.repeat(i[:, None], len(cutoffs), axis=1) if i.ndim == 1 else i
        for j, c in enumerate(cutoffs):      # one ideal per cutoff, even when a cutoff is asked twice
            j0 = cutoffs.index(c)
            if j != j0 and not np.array_equal(i[:, j], i[:, j0]):
                raise ValueError(f"ideal_dcg: columns {j0} and {j} are for the same cutoff but differ")
    else:
        i = np.asarray(ideal_dcg(labels, offsets, cutoffs, conv, ideal_labels, ideal_offsets)).reshape(len(queries), len(cutoffs))
    rows = []
    for q, (a, b) in enumerate(queries):
        rows.append([query_ndcg_from(d[q, j], i[q, j], b - a, c, conv, q) for j, c in enumerate(cutoffs)])
    return _shape(rows, k)


def mean_ndcg(scores, labels, offsets, k=None, convention=None, weights=None, tie_key=None, **ideal):
    """Aggregate over queries, as the convention says.

    * ``mean``: sum_q w_q NDCG_q / sum_q w_q over queries whose NDCG is not NaN
      (w_q = 1 without weights); if no query counts, NaN, or 0 under
      ``empty_mean="zero"`` (torchmetrics).
    * ``ratio``: sum_q w_q DCG_q / sum_q w_q IDCG_q over the same queries, with
      DCG_q taken as 0 where the short rule zeroes the query.

    ``weight_precision="float32"`` rounds w_q to float32 first.
    ``empty_weight="unweighted"``: an empty query (IDCG = 0, not zeroed by the
    short rule) adds its bare value instead of w_q times it (w_q stays in the
    denominator). ``above_one``: "keep", "clamp" (min(1, value)) or "check"
    (ValueError above 1 + 1e-6, else clamp). ``k=None`` means
    ``convention.default_k`` when that is set.
    """
    conv = as_convention(convention)
    cutoffs = _cutoff_list(k, conv)
    queries = _queries(offsets)
    nq = len(queries)
    per_query = np.asarray(ndcg(scores, labels, offsets, cutoffs, conv, tie_key, **ideal)).reshape(nq, len(cutoffs))
    w = np.ones(nq) if weights is None else np.asarray(weights, dtype=np.float64)
    if weights is not None and conv.weight_precision == "float32":
        with np.errstate(over="ignore"):
            w = w.astype(np.float32).astype(np.float64)
        if not np.isfinite(w).all():
            raise ValueError("weights must stay finite when rounded to float32 (weight_precision='float32')")
    out = []
    for j, c in enumerate(cutoffs):
        if conv.aggregation == "mean":
            if conv.empty_weight == "unweighted":
                i = np.asarray(ideal_dcg(labels, offsets, [c], conv, ideal.get("ideal_labels"), ideal.get("ideal_offsets"))).reshape(nq) \
                    if ideal.get("ideal_dcg_values") is None else _ideal_column(ideal["ideal_dcg_values"], j)
            num = den = 0.0
            for q, (a, b) in enumerate(queries):
                if not math.isnan(per_query[q, j]):
                    short = short_query(b - a, c, conv)
                    # empty_weight="unweighted": an empty query's value enters bare
                    bare = conv.empty_weight == "unweighted" and not short and i[q] <= 0
                    num += (1.0 if bare else w[q]) * per_query[q, j]
                    den += w[q]
            out.append(_ratio(num, den, conv.empty_mean))
        else:
            d = np.asarray(dcg(scores, labels, offsets, [c], conv, tie_key)).reshape(nq)
            if ideal.get("ideal_dcg_values") is not None:
                i = _ideal_column(ideal["ideal_dcg_values"], j)
            else:
                i = np.asarray(ideal_dcg(labels, offsets, [c], conv, ideal.get("ideal_labels"), ideal.get("ideal_offsets"))).reshape(nq)
            num = den = 0.0
            for q, (a, b) in enumerate(queries):
                if math.isnan(per_query[q, j]):
                    continue
                short = short_query(b - a, c, conv)
                num += w[q] * (0.0 if short else d[q])
                den += w[q] * i[q]
            out.append(_ratio(num, den, conv.empty_mean))
    out = [_cap(v, conv.above_one) for v in out]
    if k is None or isinstance(k, (int, np.integer)):
        return out[0]
    return np.array(out)


def _ratio(num: float, den: float, empty_mean: str = "nan") -> float:
    """num / den; when den = 0 (no query counts) NaN, or 0.0 under ``empty_mean="zero"``;
    sums that overflow float64 are an error."""
    if not (math.isfinite(num) and math.isfinite(den)):
        raise ValueError(f"the sums over queries overflow float64 ({num!r} / {den!r})")
    if den > 0:
        return num / den
    return 0.0 if empty_mean == "zero" else math.nan


def _ideal_column(values, j: int) -> np.ndarray:
    iv = np.asarray(values, dtype=np.float64)
    return iv if iv.ndim == 1 else iv[:, j]


def _cap(value: float, above_one: str) -> float:
    """``above_one``: keep; clamp to 1; or check (error above 1 + 1e-6, XGBoost) then clamp."""
    if above_one == "keep" or math.isnan(value) or value <= 1.0:
        return value
    if above_one == "check" and value > 1.0 + ABOVE_ONE_TOLERANCE:
        raise ValueError(f"the aggregate NDCG is {value!r} > 1 + {ABOVE_ONE_TOLERANCE!r} (above_one='check')")
    return 1.0
