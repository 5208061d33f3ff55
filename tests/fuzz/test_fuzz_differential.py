"""Differential fuzz tier (issue 12): every kernel and public entry point against
the pure-Python reference, under generated conventions and inputs, plus checks
that do not go through the reference (properties, hand-computed values).

Generated inputs cross every ``Convention`` field (gain incl. tables with holes
and ``unknown_label``, discount incl. arrays, every tie rule incl. a ``tie_key``
with the int64 extremes, empty, short, ideal, aggregation, score_precision,
default_k, weight_precision, empty_weight, above_one, empty_mean), float32/float64 scores,
magnitudes up to the float limits (+-0, subnormals, 1e+-300, the float32
overflow threshold, scores equal only after float32 rounding), empty, single
and long queries, and ``k`` / ``truncation`` None, int and above n.

The expected outcome of a call is the reference's: equal values (to the
tolerances of the existing tests: 1e-12 relative, bit for bit for the exact
LambdaMART modes and RankDCG), or an error when the reference raises one (the
kernel then raises ValueError/TypeError naming an argument, a position or a
query). Two error rules are checked without the reference, since it does not
validate scores: a non-finite score, and a score that overflows float32 where
it is rounded, are ValueErrors naming the position and the query. NaN is
allowed only where documented (``empty="skip"``, a zero denominator).

Profiles (tests/conftest.py): quick by default, ``ci`` when CI is set,
``FASTNDCG_FUZZ=deep`` for a long run; ``pytest -m fuzz`` runs only this tier,
``-m "not fuzz"`` skips it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, List, Optional

import numpy as np
import pytest
from hypothesis import assume, event, example, given, note
from hypothesis import strategies as st

import fastndcg
from fastndcg import Convention, NDCGScorer, reference
from fastndcg.conventions import as_convention
from fastndcg._core.resolve import FLOAT32_OVERFLOW
from fastndcg.measures._softrank import SoftNDCGObjective
from fastndcg import (LambdaMART, delta_ndcg_matrix, delta_ndcg_pairs, lambda_gradients, soft_ndcg,
                      soft_ndcg_grad, soft_rank_distributions)
from fastndcg.measures import rankdcg
from conftest import require, fuzz_settings

pytestmark = [pytest.mark.fuzz]

F32_MAX = float(np.finfo(np.float32).max)
DBL_MAX = float(np.finfo(np.float64).max)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
BIG_K = 1 << 62

# ----------------------------------------------------------------------------- values

MODERATE_SCORES = [
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0,
    1e-45, 7e-46, 1.4e-45,                               # float32 subnormals / round to 0
    1.0 + 2.0**-30, 1.0 + 2.0**-52, 1.0 - 2.0**-40,      # equal to 1 in float32 only
    0.1, float(np.float32(0.1)),                         # equal in float32 only
    1e30, 1e30 * (1 + 2.0**-40),
]
SPECIAL_SCORES = MODERATE_SCORES + [
    5e-324, -5e-324, 1e-310, 2.2250738585072014e-308, 1e-300, -1e-300,     # subnormal, tiny
    1e300, -1e300, DBL_MAX, -DBL_MAX,                    # double limits
    F32_MAX, -F32_MAX, float(np.nextafter(FLOAT32_OVERFLOW, 0.0)),  # largest finite float32 values
]
OVERFLOW_F32 = [FLOAT32_OVERFLOW, -FLOAT32_OVERFLOW, 1e39, -1e39, 1e300]   # finite, infinite as float32
NON_FINITE = [math.nan, math.inf, -math.inf]

GAIN_VALUES = [0.0, 1.0, 3.0, 7.0, 2.5, 0.5, 15.0, 1e-300, 5e-324, 1e300, 1e308, 31.0]
LINEAR_LABELS = [0.0, 0.5, 1.0, 2.0, 3.0, 4.25, 5e-324, 1e-310, 1e-300, 1e300, 1e308, DBL_MAX]
BIG_EXP_LABELS = [10, 30, 31, 32, 62, 63, 64, 500, 1020, 1021, 1022, 1023]
WEIGHT_VALUES = [0.0, 1.0, 0.5, 2.0, 3.0, 1e-300, 5e-324, 1e-45, 1e300, 1e308, DBL_MAX, F32_MAX,
                 float(FLOAT32_OVERFLOW), 1e39, 0.1]
TIE_KEYS = [0, 1, 2, -1, 7, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1]


def score_values(allow_overflow32: bool = True, extreme: bool = True):
    """Scores: moderate ones (ties, ties only in float32), or with ``extreme``
    also the float limits, subnormals and (``allow_overflow32``) finite
    doubles that overflow float32."""
    if not extreme:
        return st.one_of(st.sampled_from(MODERATE_SCORES), st.floats(-4, 4, width=32).map(float),
                         st.floats(-1e6, 1e6))
    parts = [st.sampled_from(SPECIAL_SCORES),
             st.floats(-4, 4, allow_nan=False, width=32).map(float),
             st.floats(allow_nan=False, allow_infinity=False)]
    if allow_overflow32:
        parts.append(st.sampled_from(OVERFLOW_F32))
    else:
        parts[2] = parts[2].filter(lambda v: abs(v) < FLOAT32_OVERFLOW)
    return st.one_of(*parts)


# ----------------------------------------------------------------------------- conventions

MODERATE_GAINS = [0.0, 1.0, 3.0, 7.0, 2.5, 0.5, 15.0, 31.0]


@st.composite
def gain_tables(draw, moderate: bool = False):
    values = draw(st.lists(st.sampled_from(MODERATE_GAINS if moderate else GAIN_VALUES), min_size=1, max_size=6))
    if draw(st.booleans()):
        return tuple(values)
    # a mapping {label: gain}: labels left out are holes ("outside the table")
    labels = draw(st.lists(st.integers(0, 6), min_size=1, max_size=len(values), unique=True))
    return {lab: values[i] for i, lab in enumerate(labels)}


@st.composite
def discount_arrays(draw, moderate: bool = False):
    kind = draw(st.sampled_from(["decreasing", "any", "long"]))
    if kind == "long":       # covers every rank generated below
        n = 800
        start = draw(st.sampled_from([1.0, 2.0] if moderate else [1.0, 1e300, 1e-300, 5e-324, 2.0]))
        return tuple(start / (1.0 + np.arange(n)) ** draw(st.sampled_from([0.5, 1.0, 2.0])))
    extreme = [0.0, 1.0, 0.5] if moderate else [0.0, 1.0, 0.5, 1e-300, 5e-324, 1e300, DBL_MAX]
    values = draw(st.lists(st.one_of(st.floats(0.01, 2) if moderate else st.floats(0, 2), st.sampled_from(extreme)),
                           min_size=1, max_size=16))
    if kind == "decreasing":
        values = sorted(values, reverse=True)
    return tuple(values)


@st.composite
def conventions(draw, lambdamart: bool = False, moderate: bool = False, overflow_inf: bool = False):
    """Every field drawn; ``moderate``: gain tables and discount arrays without
    subnormal or huge entries (where finite differences are meaningful);
    ``overflow_inf``: float32_overflow may be "inf" (NDCG measures only)."""
    gain = draw(st.one_of(st.sampled_from(["exponential", "linear"]), gain_tables(moderate)))
    ties = ["stable", "key", "key_desc", "worst", "best"] + ([] if lambdamart else ["average"])
    aggregation = draw(st.sampled_from(["mean", "ratio"]))
    return Convention(
        gain=gain,
        unknown_label=draw(st.sampled_from(["error", "zero"])),
        discount=draw(st.one_of(st.sampled_from(["log2", "letor", "reciprocal"]), discount_arrays(moderate))),
        ties=draw(st.sampled_from(ties)),
        empty=draw(st.sampled_from(["zero", "zero", "one", "skip", "error"])),
        short=draw(st.sampled_from(["clamp", "zero"])),
        ideal=draw(st.sampled_from(["cut", "full"])),
        aggregation=aggregation,
        **draw(st.sampled_from([dict(score_precision="native"), dict(score_precision="float32")]
                               + ([dict(score_precision="float32", float32_overflow="inf")] if overflow_inf else []))),
        default_k=draw(st.sampled_from([None, None, 1, 2, 3, 32])),
        weight_precision=draw(st.sampled_from(["native", "float32"])),
        empty_weight=draw(st.sampled_from(["weighted", "unweighted"])) if aggregation == "mean" else "weighted",
        above_one=draw(st.sampled_from(["keep", "clamp", "check"])),
        empty_mean=draw(st.sampled_from(["nan", "zero"])),
    )


def discount_is_non_increasing(conv: Convention) -> bool:
    d = conv.discount
    return isinstance(d, str) or all(d[i] >= d[i + 1] for i in range(len(d) - 1))


# ----------------------------------------------------------------------------- batches


@dataclass
class Batch:
    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    tie_key: Optional[np.ndarray]
    bad_score: Optional[int] = None        # position of a non-finite score
    overflow32: Optional[int] = None       # first position whose float32 rounding overflows

    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    @property
    def max_n(self) -> int:
        return int(np.diff(self.offsets).max(initial=0))

    def query_of(self, i: int) -> int:
        return int(np.searchsorted(self.offsets, i, side="right")) - 1


def first_overflow32(scores: np.ndarray) -> Optional[int]:
    if scores.dtype != np.float64:
        return None
    hit = np.flatnonzero(np.abs(scores) >= FLOAT32_OVERFLOW)
    return int(hit[0]) if hit.size else None


@st.composite
def label_values(draw, conv: Convention, n: int, invalid_ok: bool = True):
    if conv.gain == "linear":
        base = st.one_of(st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5]), st.sampled_from(LINEAR_LABELS),
                         st.floats(0, 10))
        values = draw(st.lists(base, min_size=n, max_size=n))
    elif conv.gain == "exponential":
        base = st.one_of(st.integers(0, 4), st.integers(0, 2), st.sampled_from(BIG_EXP_LABELS))
        values = draw(st.lists(base, min_size=n, max_size=n))
    else:
        top = len(conv.gain) + 1
        values = draw(st.lists(st.integers(0, top), min_size=n, max_size=n))
    if invalid_ok and n and draw(st.integers(0, 30)) == 0:
        i = draw(st.integers(0, n - 1))
        values[i] = draw(st.sampled_from([-1, 1.5, math.nan, math.inf, 1024, 2**40]))
    if conv.gain == "linear" or any(isinstance(v, float) for v in values):
        dtype = draw(st.sampled_from([np.float64, np.float32])) if conv.gain == "linear" else np.float64
    else:
        dtype = draw(st.sampled_from([np.int64, np.int32, np.float64]))
        if dtype == np.int32 and max(values, default=0) > 2**31 - 1:
            dtype = np.int64
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(values, dtype=np.float64).astype(dtype) if dtype in (np.float32,) else \
            np.asarray(values, dtype=dtype)


@st.composite
def batches(draw, conv: Convention, max_queries: int = 5, max_docs: int = 9, long_docs: int = 0,
            non_finite_ok: bool = True, invalid_labels_ok: bool = True, n_queries: Optional[int] = None):
    lo, hi = (0, max_queries) if n_queries is None else (n_queries, n_queries)
    sizes = draw(st.lists(st.integers(0, max_docs), min_size=lo, max_size=hi))
    if long_docs and sizes and draw(st.integers(0, 5)) == 0:
        sizes[draw(st.integers(0, len(sizes) - 1))] = draw(st.integers(max_docs + 1, long_docs))
    offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
    n = int(offsets[-1])
    # scores from a small pool: ties, and ties that appear only in float32;
    # one batch in four draws the pool from the float limits as well
    extreme = draw(st.integers(0, 3)) == 0
    pool = draw(st.lists(score_values(extreme=extreme), min_size=1, max_size=8))
    if n > 40:
        seed = draw(st.integers(0, 2**32 - 1))
        scores = np.asarray(pool, dtype=np.float64)[np.random.default_rng(seed).integers(0, len(pool), n)]
    else:
        scores = np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=np.float64)
    if draw(st.booleans()):
        with np.errstate(over="ignore"):
            as32 = scores.astype(np.float32)
        if np.isfinite(as32).all():
            scores = as32
    bad = None
    if non_finite_ok and n and draw(st.integers(0, 25)) == 0:
        bad = draw(st.integers(0, n - 1))
        scores = scores.copy()
        scores[bad] = draw(st.sampled_from(NON_FINITE))
    if n > 40:
        labels = _long_labels(draw, conv, n)
    else:
        labels = draw(label_values(conv, n, invalid_ok=invalid_labels_ok))
    key = None
    if conv.uses_tie_key:
        if n > 40:
            key = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).integers(-3, 4, n).astype(np.int64)
        else:
            key = np.asarray(draw(st.lists(st.sampled_from(TIE_KEYS), min_size=n, max_size=n)), dtype=np.int64)
    return Batch(scores, labels, offsets, key, bad, first_overflow32(scores))


def _long_labels(draw, conv: Convention, n: int) -> np.ndarray:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if conv.gain == "linear":
        return rng.integers(0, 4, n).astype(np.float64) * draw(st.sampled_from([1.0, 0.5, 1e-300, 1e300]))
    if conv.gain == "exponential":
        return rng.integers(0, 5, n).astype(np.int64)
    return rng.integers(0, len(conv.gain) + 1, n).astype(np.int64)


def cutoffs(max_n: int):
    one = st.one_of(st.none(), st.integers(1, max_n + 2), st.sampled_from([1, 2, 3, 10, BIG_K, 2**63 - 1]))
    return st.one_of(one, st.lists(one, min_size=1, max_size=4))


def query_weights(n_queries: int):
    return st.one_of(st.none(), st.lists(st.one_of(st.sampled_from(WEIGHT_VALUES), st.floats(0, 5)),
                                         min_size=n_queries, max_size=n_queries).map(np.array))


def _rows(offsets: np.ndarray, perm: List[int]) -> np.ndarray:
    """Row indices of the queries ``perm``, in that order."""
    parts = [np.arange(offsets[q], offsets[q + 1]) for q in perm]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)


def permuted(b: Batch, perm: List[int], *per_query: Optional[np.ndarray]):
    """The batch with its queries in the order ``perm`` (and per-query arrays permuted alike)."""
    idx = _rows(b.offsets, perm)
    off = np.concatenate([[0], np.cumsum(np.diff(b.offsets)[perm], dtype=np.int64)]).astype(np.int64)
    nb = Batch(b.scores[idx], b.labels[idx], off, None if b.tie_key is None else b.tie_key[idx])
    return (nb, *[None if a is None else np.asarray(a)[perm] for a in per_query])


# ----------------------------------------------------------------------------- outcomes


@dataclass
class Outcome:
    ok: bool
    value: Any = None
    error: Optional[BaseException] = None


def run(fn: Callable[[], Any]) -> Outcome:
    try:
        return Outcome(True, fn())
    except (ValueError, TypeError, ArithmeticError) as exc:
        return Outcome(False, error=exc)


def run_ref(fn: Callable[[], Any]) -> Outcome:
    with np.errstate(all="ignore"):
        return run(fn)


# What a clear error names: an argument, a position (name[i]) or a query.
CLEAR = re.compile(r"\b(scores|labels|offsets|weights|query_weights|sample_weights|tie_key|discount|gain|"
                   r"ideal_dcg|ideal_labels|ideal_offsets|query|k|sigma|truncation|preds|reference|"
                   r"predictions|default_k|max_docs)\b|\w\[\d+\]")


def assert_clear_error(out: Outcome, what: str) -> None:
    assert not out.ok, f"{what}: expected an error, got {out.value!r}"
    assert isinstance(out.error, (ValueError, TypeError)), f"{what}: {type(out.error).__name__}: {out.error}"
    assert CLEAR.search(str(out.error)), f"{what}: the message names nothing: {out.error}"


def expect_score_error(fast: Outcome, b: Batch, rounds32: bool, what: str,
                       other_error: Callable[[], Outcome], nan_only: bool = False) -> bool:
    """The two score rules that the reference does not check. True if one applied.

    The error names the first offending score and its query, unless the call
    failed for another reason first (``other_error()``: the reference's outcome
    with the scores repaired, e.g. a label outside the gain table)."""
    # the first offending position of either rule (scores 1e300 then NaN under a
    # float32 convention: the 1e300 is named)
    found = []
    if nan_only:        # float32_overflow="inf": +-inf and overflowing doubles rank, NaN is the error
        nan = np.flatnonzero(np.isnan(b.scores))
        if nan.size:
            found.append((int(nan[0]), ("finite",)))
    elif b.bad_score is not None:
        found.append((_first_non_finite(b), ("finite",)))
    if rounds32 and b.overflow32 is not None:
        found.append((b.overflow32, ("finite", "float32")))
    if not found:
        return False
    i, words = min(found)
    event(f"{what}: score error expected")
    assert_clear_error(fast, what)
    msg = str(fast.error)
    if not (f"[{i}]=" in msg and f"query {b.query_of(i)}" in msg and all(w in msg for w in words)):
        assert not other_error().ok, f"{what}: the error does not name score {i} (query {b.query_of(i)}): {msg}"
    return True


def repaired(b: Batch) -> Batch:
    """The batch with every non-finite or float32-overflowing score set to 0."""
    with np.errstate(over="ignore"):
        bad = ~np.isfinite(b.scores) | ~np.isfinite(b.scores.astype(np.float32))
    return replace(b, scores=np.where(bad, 0.0, b.scores).astype(b.scores.dtype), bad_score=None, overflow32=None)


def _first_non_finite(b: Batch) -> int:
    return int(np.flatnonzero(~np.isfinite(b.scores))[0])


def agree(fast: Outcome, ref: Outcome, what: str, compare: Callable[[Any, Any], None]) -> bool:
    """Same outcome as the reference; compares values when both returned. True if they did."""
    if not ref.ok:
        note(f"{what}: reference raised {ref.error!r}")
        event(f"{what}: both raise")
        assert_clear_error(fast, what)
        return False
    event(f"{what}: values compared")
    if not fast.ok:
        raise AssertionError(f"{what}: the kernel raised {fast.error!r} where the reference gave "
                             f"{ref.value!r}") from fast.error
    compare(fast.value, ref.value)
    return True


def close(rtol=1e-12, atol=0.0):
    def compare(a, b):
        np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True)
    return compare


def close_per_query(got, want, offsets, rtol: float, atol: float, condition=None) -> None:
    """|got - want| <= rtol |want| + atol * max(1, largest |want| of the row's query,
    largest ``condition`` of the row's query).

    A gradient entry that is 0 by symmetry (a document whose gain is the mean of
    its partners') comes out as a sum of terms that cancel; its rounding is
    relative to the query's gradient scale (1/sigma: 1e148 at sigma = 1e-150),
    not to its own value. ``condition`` is a documented bound of that scale
    where it exceeds the gradients themselves (see _soft_condition)."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = np.ones_like(want)
    for a, e in zip(offsets[:-1], offsets[1:]):
        if e > a:
            scale[a:e] = max(1.0, float(np.max(np.abs(want[a:e]))))
            if condition is not None:
                scale[a:e] = max(scale[a], float(np.max(condition[a:e])))
    bad = ~(np.abs(got - want) <= rtol * np.abs(want) + atol * scale)
    assert not bad.any(), (f"not close (rtol={rtol}, atol={atol} x query scale) at rows "
                           f"{np.flatnonzero(bad)[:5]}: got {got[bad][:5]}, want {want[bad][:5]}")


def bitwise(a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    assert a.tobytes() == b.tobytes(), f"not bit-identical:\n{a!r}\n{b!r}"


# ----------------------------------------------------------------------------- NDCG


@st.composite
def external_ideal(draw, conv: Convention, b: Batch, k):
    kind = draw(st.sampled_from(["none", "none", "labels", "dcg"]))
    if kind == "labels":
        ib = draw(batches(conv, n_queries=b.n_queries, max_docs=10, non_finite_ok=False,
                          invalid_labels_ok=False))
        return dict(ideal_labels=ib.labels, ideal_offsets=ib.offsets)
    if kind == "dcg":
        n_cols = 1 if k is None or isinstance(k, int) else len(k)
        shape = draw(st.sampled_from([(b.n_queries,), (b.n_queries, n_cols)]))
        values = draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, 1e-300, 1e300, 0.25]),
                               min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
        return dict(ideal_dcg=np.asarray(values, dtype=np.float64).reshape(shape))
    return {}


def _ref_ideal(ext):
    if "ideal_dcg" in ext:
        return dict(ideal_dcg_values=ext["ideal_dcg"])
    return dict(ext)


def _ndcg_bounds_hold(conv: Convention, ext, labels=None) -> bool:
    """NDCG <= 1 is promised for the query's own ideal, a non-increasing discount
    and gains that are 0 or normal numbers (a subnormal gain keeps few significant
    bits: ties="average" over gains (0, 5e-324) on three tied documents gives 1.5)."""
    from fastndcg.reference import gain_of
    if ext or not discount_is_non_increasing(conv):
        return False
    if labels is not None:
        for x in np.unique(np.asarray(labels, dtype=np.float64)):
            try:
                g = abs(gain_of(float(x), conv))
            except (ValueError, OverflowError):
                continue
            if 0.0 < g < np.finfo(np.float64).tiny:
                return False
    return True


def _check_ndcg_values(values: np.ndarray, conv: Convention, ext, what: str, labels=None) -> None:
    v = np.asarray(values, dtype=np.float64)
    if conv.empty != "skip":
        assert not np.isnan(v).any(), f"{what}: NaN without empty='skip': {v}"
    ok = v[~np.isnan(v)]
    assert (ok >= 0).all(), f"{what}: negative NDCG {v}"
    if _ndcg_bounds_hold(conv, ext, labels):
        assert (ok <= 1.0).all(), f"{what}: NDCG above 1: {v!r}"


def _check_mean(value, conv: Convention, ext, weights, b: Batch, k, what: str) -> None:
    v = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if np.isnan(v).any():
        # documented: no query counts (none, all skipped) or a zero denominator
        w = np.ones(b.n_queries) if weights is None else np.asarray(weights, dtype=np.float64)
        if conv.weight_precision == "float32" and weights is not None:
            w = w.astype(np.float32).astype(np.float64)
        documented = b.n_queries == 0 or conv.empty == "skip" or not (w > 0).any()
        if conv.aggregation == "ratio" and not documented:
            if "ideal_dcg" in ext:
                idcg = np.asarray(ext["ideal_dcg"], dtype=np.float64).reshape(b.n_queries, -1)
            else:
                idcg = np.asarray(reference.ideal_dcg(b.labels, b.offsets, k, conv, ext.get("ideal_labels"),
                                                      ext.get("ideal_offsets"))).reshape(b.n_queries, -1)
            documented = bool(((w[:, None] * idcg) == 0).all(axis=0).any())
        assert documented, f"{what}: NaN aggregate {v} (weights {weights})"
    ok = v[~np.isnan(v)]
    assert (ok >= 0).all(), f"{what}: negative aggregate {v}"
    if conv.above_one in ("clamp", "check"):
        assert (ok <= 1.0).all(), f"{what}: above_one={conv.above_one!r} but {v!r}"
    elif _ndcg_bounds_hold(conv, ext, b.labels) and (conv.empty_weight == "weighted" or weights is None):
        assert (ok <= 1.0 + 1e-15).all(), f"{what}: aggregate above 1: {v!r}"


@pytest.mark.filterwarnings("ignore::fastndcg.conventions.ScoreOverflowWarning")   # float32_overflow="inf"
@fuzz_settings(1.0)
@given(st.data())
def test_ndcg_entry_points_equal_the_reference(data):
    conv = data.draw(conventions(overflow_inf=True), label="convention")
    b = data.draw(batches(conv, long_docs=300), label="batch")
    k = data.draw(cutoffs(b.max_n), label="k")
    weights = data.draw(query_weights(b.n_queries), label="weights")
    ext = data.draw(external_ideal(conv, b, k), label="external ideal")
    nan_only = conv.float32_overflow == "inf"
    rounds32 = conv.score_precision == "float32" and not nan_only
    s, y, off, key = b.scores, b.labels, b.offsets, b.tie_key
    rext = _ref_ideal(ext)
    r = repaired(b)

    # ndcg
    fast = run(lambda: fastndcg.ndcg(s, y, off, k, convention=conv, tie_key=key, **ext))
    if not expect_score_error(fast, b, rounds32, "ndcg",
                              nan_only=nan_only, other_error=lambda: run_ref(lambda: reference.ndcg(
            r.scores, y, off, k, conv, key, **rext))):
        ref = run_ref(lambda: reference.ndcg(s, y, off, k, conv, key, **rext))
        if agree(fast, ref, "ndcg", close()):
            _check_ndcg_values(fast.value, conv, ext, "ndcg", y)
            for t in (1, 2, 3):
                bitwise(fastndcg.ndcg(s, y, off, k, convention=conv, tie_key=key, n_threads=t, **ext), fast.value)

    # dcg and ideal_dcg
    fast = run(lambda: fastndcg.dcg(s, y, off, k, convention=conv, tie_key=key))
    if not expect_score_error(fast, b, rounds32, "dcg",
                              nan_only=nan_only,
                              other_error=lambda: run_ref(lambda: reference.dcg(r.scores, y, off, k, conv, key))):
        if agree(fast, run_ref(lambda: reference.dcg(s, y, off, k, conv, key)), "dcg", close(atol=1e-300)):
            d = np.asarray(fast.value)
            assert np.isfinite(d).all() and (d >= 0).all(), d
    fast = run(lambda: fastndcg.ideal_dcg(y, off, k, convention=conv))
    if agree(fast, run_ref(lambda: reference.ideal_dcg(y, off, k, conv)), "ideal_dcg", close(atol=1e-300)):
        i = np.asarray(fast.value)
        assert np.isfinite(i).all() and (i >= 0).all(), i
        for t in (1, 3):
            bitwise(fastndcg.ideal_dcg(y, off, k, convention=conv, n_threads=t), fast.value)

    # mean_ndcg (aggregation, weights, weight_precision, empty_weight, above_one)
    fast = run(lambda: fastndcg.mean_ndcg(s, y, off, k, convention=conv, weights=weights, tie_key=key, **ext))
    if not expect_score_error(fast, b, rounds32, "mean_ndcg",
                              nan_only=nan_only, other_error=lambda: run_ref(lambda: reference.mean_ndcg(
            r.scores, y, off, k, conv, weights, key, **rext))):
        ref = run_ref(lambda: reference.mean_ndcg(s, y, off, k, conv, weights, key, **rext))
        if agree(fast, ref, "mean_ndcg", close()):
            _check_mean(fast.value, conv, ext, weights, b, k, "mean_ndcg")
            bitwise(np.asarray(fastndcg.mean_ndcg(s, y, off, k, convention=conv, weights=weights, tie_key=key,
                                                  n_threads=3, **ext)), np.asarray(fast.value))

    # NDCGScorer: cached ideal, mean, summands + finish
    scorer = run(lambda: NDCGScorer(y, off, k, convention=conv, weights=weights, **ext))
    if scorer.ok:
        sc = scorer.value
        fast = run(lambda: sc.ndcg(s, tie_key=key))
        if not expect_score_error(fast, b, rounds32, "NDCGScorer.ndcg",
                                  nan_only=nan_only, other_error=lambda: run_ref(lambda: reference.ndcg(
                r.scores, y, off, k, conv, key, **rext))):
            agree(fast, run_ref(lambda: reference.ndcg(s, y, off, k, conv, key, **rext)), "NDCGScorer.ndcg", close())
        fast = run(lambda: sc.dcg(s, tie_key=key))
        if not expect_score_error(fast, b, rounds32, "NDCGScorer.dcg",
                                  nan_only=nan_only, other_error=lambda: run_ref(lambda: reference.dcg(
                r.scores, y, off, k, conv, key))):
            agree(fast, run_ref(lambda: reference.dcg(s, y, off, k, conv, key)), "NDCGScorer.dcg", close(atol=1e-300))
        fast = run(lambda: sc.mean(s, tie_key=key))
        if not expect_score_error(fast, b, rounds32, "NDCGScorer.mean",
                                  nan_only=nan_only, other_error=lambda: run_ref(lambda: reference.mean_ndcg(
                r.scores, y, off, k, conv, weights, key, **rext))):
            ref = run_ref(lambda: reference.mean_ndcg(s, y, off, k, conv, weights, key, **rext))
            if agree(fast, ref, "NDCGScorer.mean", close()):
                parts = sc.summands(s, tie_key=key)
                nd, num, den = parts
                assert num.shape == den.shape == nd.shape
                assert np.isfinite(num).all() and np.isfinite(den).all(), (num, den)
                fin = run(lambda: sc.finish(num.sum(axis=0), den.sum(axis=0)))
                agree(fin, Outcome(True, fast.value), "summands + finish", close(rtol=1e-13))
    else:
        # the scorer validates labels, weights and the ideal: the one-shot call must fail too
        assert not run(lambda: fastndcg.mean_ndcg(s, y, off, k, convention=conv, weights=weights,
                                                  tie_key=key, **ext)).ok, scorer.error
        assert_clear_error(scorer, "NDCGScorer")


@fuzz_settings(0.5)
@given(st.data())
def test_ndcg_is_invariant_to_query_order(data):
    conv = data.draw(conventions(), label="convention")
    b = data.draw(batches(conv, max_queries=6, non_finite_ok=False, invalid_labels_ok=False), label="batch")
    k = data.draw(cutoffs(b.max_n), label="k")
    weights = data.draw(query_weights(b.n_queries), label="weights")
    perm = data.draw(st.permutations(list(range(b.n_queries))), label="perm")
    a = run(lambda: fastndcg.ndcg(b.scores, b.labels, b.offsets, k, convention=conv, tie_key=b.tie_key))
    m = run(lambda: fastndcg.mean_ndcg(b.scores, b.labels, b.offsets, k, convention=conv, tie_key=b.tie_key,
                                       weights=weights))
    pb, pw = permuted(b, perm, weights)
    pa = run(lambda: fastndcg.ndcg(pb.scores, pb.labels, pb.offsets, k, convention=conv, tie_key=pb.tie_key))
    pm = run(lambda: fastndcg.mean_ndcg(pb.scores, pb.labels, pb.offsets, k, convention=conv,
                                        tie_key=pb.tie_key, weights=pw))
    assert a.ok == pa.ok and m.ok == pm.ok, (a.error, pa.error, m.error, pm.error)
    if a.ok:
        bitwise(pa.value, np.asarray(a.value)[perm] if b.n_queries else a.value)
    if m.ok:
        # the sum runs in another order: equal to rounding
        np.testing.assert_allclose(pm.value, m.value, rtol=1e-13, atol=1e-300, equal_nan=True)


# ----------------------------------------------------------------------------- LambdaMART


@st.composite
def lambdamart_setups(draw):
    mode = draw(st.sampled_from(["default", "default", "lightgbm", "xgboost"]))
    if mode == "default":
        conv = draw(conventions(lambdamart=True))
    else:
        gains = ["exponential", "linear"] if mode == "xgboost" else \
            ["exponential", "linear", (0.0, 1.0, 3.0, 7.0, 15.0), (0.0, 2.5, 2.5, 7.0, 1.0, 31.0)]
        conv = Convention(gain=draw(st.sampled_from(gains)), default_k=draw(st.sampled_from([None, 1, 32])),
                          score_precision="float32" if mode == "xgboost" and draw(st.booleans()) else "native")
    max_docs = 8
    b = draw(batches(conv, max_docs=max_docs, long_docs=60))
    if mode != "default":
        # the exact modes: labels the libraries accept
        top = 31 if mode == "xgboost" else (30 if conv.gain == "exponential" else
                                              (len(conv.gain) - 1 if conv.gain_is_table else 30))
        labs = np.asarray(b.labels, dtype=np.float64)
        labs = np.where(np.isfinite(labs) & (labs >= 0), np.minimum(labs, top), 0)
        # integers, except linear gain keeps what it drew (fractions, subnormals)
        b = replace(b, labels=labs if conv.gain == "linear" else np.floor(labs).astype(np.int64))
    truncation = draw(st.one_of(st.just("auto"), st.none(), st.integers(1, b.max_n + 2), st.just(BIG_K)))
    kw = dict(mode=mode, convention=conv, truncation=truncation,
              normalize=draw(st.booleans()), score_normalization=draw(st.booleans()))
    if mode != "xgboost":
        kw["sigma"] = draw(st.sampled_from([1.0, 0.5, 2.0, 1e-3, 1e3, 1e-300, 1e100, 1e300]))
    if draw(st.booleans()):
        kw["query_weights"] = draw(st.lists(st.sampled_from([1.0, 0.5, 2.0, 0.0, 1e-300, 1e300, 1e39, 1e-45]),
                                            min_size=b.n_queries, max_size=b.n_queries).map(np.array))
    if mode != "xgboost" and draw(st.booleans()):
        kw["sample_weights"] = draw(st.lists(st.sampled_from([1.0, 0.5, 2.0, 0.0, 1e-300, 1e300]),
                                             min_size=len(b.scores), max_size=len(b.scores)).map(np.array))
    return b, kw


def _rounds32(kw) -> bool:
    return kw["mode"] == "xgboost" or kw["convention"].score_precision == "float32"


def _grad_compare(kw, dtype):
    if kw["mode"] != "default":
        return lambda a, b: (bitwise(a[0], b[0]), bitwise(a[1], b[1]))
    tol = dict(rtol=1e-12, atol=1e-15) if dtype == np.float64 else dict(rtol=2e-6, atol=1e-7)

    def compare(a, b):
        np.testing.assert_allclose(a[0], b[0], **tol)
        np.testing.assert_allclose(a[1], b[1], **tol)
    return compare


@fuzz_settings(1.0)
@given(lambdamart_setups())
def test_lambda_gradients_equal_the_reference(setup):
    b, kw = setup
    s, y, off = b.scores, b.labels, b.offsets
    key = b.tie_key
    fast = run(lambda: lambda_gradients(s, y, off, tie_key=key, **kw))
    if expect_score_error(fast, b, _rounds32(kw), "lambda_gradients", lambda: run_ref(
            lambda: reference.lambda_gradients(repaired(b).scores, y, off, tie_key=key, **kw))):
        return
    ref = run_ref(lambda: reference.lambda_gradients(s, y, off, tie_key=key, **kw))
    if not agree(fast, ref, "lambda_gradients", _grad_compare(kw, s.dtype)):
        return
    g, h = fast.value
    assert np.isfinite(g).all() and np.isfinite(h).all(), f"non-finite gradients {g} {h}"
    conv = as_convention(kw.get("convention"))
    if not (kw.get("mode") == "lightgbm" and conv.gain_is_table and np.any(np.diff(
            np.nan_to_num(np.asarray(conv.gain, dtype=np.float64))) < 0)):
        # LightGBM orients a pair by label, not gain: with a gain table that
        # decreases somewhere, its (and so the reference's) hessian can be < 0
        assert (h >= 0).all(), h
    # per query, the pair terms cancel: the gradient sums to 0 (to rounding) before sample weights
    if "sample_weights" not in kw:
        g64 = g.astype(np.float64)
        wide = kw["mode"] == "default" and g.dtype == np.float64
        eps, tiny = (1e-12, 5e-324) if wide else (1e-5, 1.5e-45)     # relative, and one subnormal per term
        qw = kw.get("query_weights")
        if kw["mode"] == "xgboost" and qw is not None and len(qw):
            # XGBoost scales g * w (which may underflow) by n / sum(w) afterwards:
            # weights 1e-45 and 0.5 over 4 queries turn half a subnormal into 4
            total = float(np.sum(np.asarray(qw, dtype=np.float32), dtype=np.float64))
            if total > 0:
                tiny *= max(1.0, len(qw) / total)
        for q in range(b.n_queries):
            part = g64[off[q]:off[q + 1]]
            assert abs(part.sum()) <= eps * np.abs(part).sum() + 2 * tiny * len(part), (q, part)
    # bit-identical for any thread count, and the cached object gives the same
    for t in (1, 2, 3):
        bitwise(lambda_gradients(s, y, off, tie_key=key, n_threads=t, **kw)[0], g)
    model = LambdaMART(y, off, tie_key=key, **kw)
    gm, hm = model.gradients(s, n_threads=2)
    bitwise(gm, g)
    bitwise(hm, h)


@fuzz_settings(0.5)
@given(lambdamart_setups(), st.data())
def test_lambda_gradients_are_invariant_to_query_order(setup, data):
    b, kw = setup
    assume(b.bad_score is None)
    perm = data.draw(st.permutations(list(range(b.n_queries))), label="perm")
    kw = dict(kw)
    kw.pop("sample_weights", None)
    qw = kw.pop("query_weights", None)
    if kw["mode"] == "xgboost":
        qw = None            # XGBoost normalises by the sum of the weights, in query order
    a = run(lambda: lambda_gradients(b.scores, b.labels, b.offsets, tie_key=b.tie_key, query_weights=qw, **kw))
    pb, pw = permuted(b, perm, qw)
    p = run(lambda: lambda_gradients(pb.scores, pb.labels, pb.offsets, tie_key=pb.tie_key, query_weights=pw, **kw))
    assert a.ok == p.ok, (a.error, p.error)
    if a.ok:
        rows = _rows(b.offsets, perm)
        bitwise(p.value[0], a.value[0][rows])
        bitwise(p.value[1], a.value[1][rows])


@fuzz_settings(0.6)
@given(st.data())
def test_delta_ndcg_pairs_equal_the_reference(data):
    conv = data.draw(conventions(lambdamart=True), label="convention")
    b = data.draw(batches(conv, max_docs=8, long_docs=40), label="batch")
    truncation = data.draw(st.one_of(st.none(), st.integers(1, b.max_n + 2), st.just(BIG_K)), label="T")
    cut = data.draw(st.booleans(), label="cut_discount")
    queries = data.draw(st.one_of(st.none(), st.lists(st.integers(0, max(b.n_queries - 1, 0)), max_size=4)
                                  .filter(lambda q: b.n_queries > 0 or not q)), label="queries")
    s, y, off, key = b.scores, b.labels, b.offsets, b.tie_key
    fast = run(lambda: delta_ndcg_pairs(s, y, off, queries=queries, convention=conv, truncation=truncation,
                                        cut_discount=cut, tie_key=key))
    if expect_score_error(fast, b, conv.score_precision == "float32", "delta_ndcg_pairs", lambda: run_ref(
            lambda: reference.delta_ndcg_pairs(repaired(b).scores, y, off, queries=queries, convention=conv,
                                            truncation=truncation, cut_discount=cut, tie_key=key))):
        return
    ref = run_ref(lambda: reference.delta_ndcg_pairs(s, y, off, queries=queries, convention=conv,
                                                  truncation=truncation, cut_discount=cut, tie_key=key))

    def compare(got, want):
        for a, w in zip(got[:5], want[:5]):
            np.testing.assert_array_equal(a, w)
        np.testing.assert_allclose(got.delta, want[5], rtol=1e-12, atol=1e-300)
    if agree(fast, ref, "delta_ndcg_pairs", compare):
        d = fast.value.delta
        assert np.isfinite(d).all() and (d >= 0).all(), d
        for t in (1, 3):
            again = delta_ndcg_pairs(s, y, off, queries=queries, convention=conv, truncation=truncation,
                                     cut_discount=cut, tie_key=key, n_threads=t)
            bitwise(again.delta, d)
    # the |ΔNDCG| matrix of the first query, against the reference's pairs of that query alone
    if b.n_queries:
        a, e = int(off[0]), int(off[1])
        qs, qy, qkey = s[a:e], y[a:e], None if key is None else key[a:e]
        with np.errstate(over="ignore"):
            bad = np.flatnonzero(~np.isfinite(qs))
        qb = Batch(qs, qy, np.array([0, e - a]), qkey, int(bad[0]) if bad.size else None, first_overflow32(qs))

        def ref_matrix(scores):
            return run_ref(lambda: reference.delta_ndcg_pairs(scores, qy, [0, e - a], convention=conv,
                                                           truncation=truncation, cut_discount=cut, tie_key=qkey))
        fast = run(lambda: delta_ndcg_matrix(qs, qy, convention=conv, truncation=truncation,
                                             cut_discount=cut, tie_key=qkey))
        if expect_score_error(fast, qb, conv.score_precision == "float32", "delta_ndcg_matrix",
                              lambda: ref_matrix(repaired(qb).scores)):
            return
        ref = ref_matrix(qs)

        def compare_matrix(got, want):
            m = np.zeros((e - a, e - a))
            m[want[1], want[2]] = want[5]
            m[want[2], want[1]] = want[5]
            np.testing.assert_allclose(got, m, rtol=1e-12, atol=1e-300)
        agree(fast, ref, "delta_ndcg_matrix", compare_matrix)


# ----------------------------------------------------------------------------- SoftNDCG


SIGMAS = [1.0, 0.3, 2.0, 1e-3, 1e3, 1e-150, 1e-300, 1e150, 1e300, DBL_MAX]


@st.composite
def soft_setups(draw, max_docs: int = 6):
    conv = draw(conventions())
    b = draw(batches(conv, max_docs=max_docs))
    kw = dict(sigma=draw(st.sampled_from(SIGMAS)), convention=conv,
              k=draw(st.one_of(st.none(), st.integers(1, b.max_n + 2), st.just(BIG_K))),
              max_docs=draw(st.one_of(st.none(), st.integers(1, max_docs + 1))))
    return b, kw


def _soft_condition(b: Batch, kw) -> np.ndarray:
    """Per row, the scale of the SoftNDCG gradient's rounding that docs/softrank.md
    documents: G_max D_max / (sigma IDCG) of the row's query (D the unit-scaled
    discount array). It is <= 1/sigma when the discount does not increase with
    the rank; a discount such as (1e-250, 0, 1, ...) makes it 1e249 and the
    gradient of that query meaningless in double precision."""
    from fastndcg.reference import discount_of, gain_of, query_ideal_dcg
    conv = kw["convention"].unit_discount()
    k = conv.default_k if kw["k"] is None else kw["k"]
    out = np.ones(len(b.scores))
    for a, e in zip(b.offsets[:-1], b.offsets[1:]):
        labels = [float(x) for x in b.labels[a:e]]
        if e - a < 2:
            continue
        idcg = query_ideal_dcg(labels, [k], conv)[0]
        if not idcg > 0.0:
            continue
        g_max = max(abs(gain_of(x, conv)) for x in labels)
        d_max = max(abs(discount_of(r + 1, conv)) for r in range(min(e - a, k or e - a)))
        with np.errstate(over="ignore"):
            out[a:e] = float(np.float64(g_max) / idcg * d_max / kw["sigma"])   # may be inf
    return out


def _soft_bounded(conv: Convention, k, n_max: int) -> bool:
    """SoftNDCG <= 1 is documented for the full list with a convex non-increasing discount."""
    k = conv.default_k if k is None else k
    return (conv.discount in ("log2", "reciprocal")) and (k is None or k >= n_max or conv.ideal == "full")


def _soft_example(scores, labels, offsets, sigma, **conv):
    """A deep-profile finding, replayed by every profile."""
    b = Batch(np.asarray(scores), np.asarray(labels), np.asarray(offsets, dtype=np.int64), None)
    return (b, dict(sigma=sigma, convention=Convention(empty="zero", **conv), k=None, max_docs=None))


@fuzz_settings(0.8)
@given(soft_setups())
# a rising discount: the gradient's documented bound is 1e249 (spec 0.141, kernel 0)
@example(_soft_example(np.zeros(5), [1.5, 0, 0, 0, 0], [0, 5], 1.0, gain="linear",
                       discount=(2.6545073877442338e-250, 0.0, 1.0, 0.0, 0.0)))
# the same at sigma 1e-150 in float32: the spec's gradient overflows, the bound is inf
@example(_soft_example(np.zeros(3, dtype=np.float32), [0, 0, 1], [0, 3], 1e-150, gain="exponential",
                       discount=(2.244751517719754e-183, 1.0, 0.0)))
# a gain near the largest double (the kernel's adjoint overflowed)
@example(_soft_example(np.zeros(16), [0.0] * 13 + [1.0, 1.0, 1e308], [0, 4, 10, 16], 1.0, gain="linear",
                       discount=(0.0, 0.0, 1.875, 0.0, 0.0, 0.0)))
def test_soft_ndcg_and_gradient_equal_the_reference(setup):
    b, kw = setup
    s, y, off = b.scores, b.labels, b.offsets
    fast = run(lambda: soft_ndcg_grad(s, y, off, **kw))
    if expect_score_error(fast, b, False, "soft_ndcg_grad", lambda: run_ref(
            lambda: reference.soft_ndcg_grad(repaired(b).scores, y, off, **kw))):
        return
    ref = run_ref(lambda: reference.soft_ndcg_grad(s, y, off, **kw))
    gtol = dict(rtol=1e-5, atol=1e-7) if s.dtype == np.float32 else dict(rtol=1e-10, atol=1e-13)
    if fast.ok and not ref.ok and "overflows" in str(ref.error):
        # the spec's gradient overflows the output dtype; where the documented
        # error bound of the kernel's gradient (few m eps G_max D_max / (sigma IDCG))
        # is itself beyond that range, either outcome is within the documentation
        with np.errstate(over="ignore"):
            bound = 8 * b.max_n * np.finfo(np.float64).eps * float(np.max(_soft_condition(b, kw)))
        if bound >= np.finfo(s.dtype).max:
            event("soft_ndcg_grad: spec overflows, kernel within its documented bound")
            return

    def compare(got, want):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-13, equal_nan=True)
        close_per_query(got[1], want[1], off, condition=_soft_condition(b, kw), **gtol)
    if not agree(fast, ref, "soft_ndcg_grad", compare):
        return
    values, grad = fast.value
    conv = kw["convention"]
    assert grad.dtype == s.dtype
    if conv.empty != "skip":
        assert not np.isnan(values).any(), values
    assert np.isfinite(grad).all(), grad
    ok = values[~np.isnan(values)]
    assert (ok >= 0).all(), values
    if _soft_bounded(conv, kw["k"], b.max_n) and kw["max_docs"] is None:
        assert (ok <= 1.0 + 1e-12).all(), values
    bitwise(soft_ndcg(s, y, off, **kw), values)
    # the rank distributions themselves (any depth)
    depth = None if kw["max_docs"] is None else kw["max_docs"]
    dist = soft_rank_distributions(s, off, sigma=kw["sigma"], depth=depth)
    np.testing.assert_allclose(dist, reference.soft_rank_distributions(s, off, sigma=kw["sigma"], depth=depth),
                               rtol=1e-12, atol=1e-15)
    assert np.isfinite(dist).all() and (dist >= 0).all()
    for q in range(b.n_queries):       # each document's ranks: a distribution (truncated at depth)
        block = dist[off[q]:off[q + 1]]
        if len(block) and (depth is None or depth >= len(block)):
            np.testing.assert_allclose(block.sum(axis=1), 1.0, rtol=1e-12)
    for t in (1, 3):
        v2, g2 = soft_ndcg_grad(s, y, off, n_threads=t, **kw)
        bitwise(v2, values)
        bitwise(g2, grad)
    # queries in reverse order: the same values and gradients, permuted
    perm = list(range(b.n_queries))[::-1]
    pb, = permuted(b, perm)
    pv, pg = soft_ndcg_grad(pb.scores, pb.labels, pb.offsets, **kw)
    bitwise(pv, values[perm])
    bitwise(pg, grad[_rows(off, perm)])
    # the objective: -w grad, w max(h, min_hessian)
    w = np.asarray([1.0, 0.5, 2.0, 0.0] * b.n_queries)[:b.n_queries]
    rw = np.repeat(w, np.diff(off))          # per row: unambiguous when n_docs == n_queries
    obj = SoftNDCGObjective(sigma=kw["sigma"], k=kw["k"], convention=conv, max_docs=kw["max_docs"],
                            min_hessian=1e-6)

    def compare_objective(got, want):
        # a bound beyond the float range is inf: any outcome there is within the documentation
        with np.errstate(over="ignore"):
            cond = _soft_condition(b, kw) * max(1.0, float(np.max(rw, initial=0.0)))
            # the hessian's terms carry one more psi / (pi_ij pi_ji) ~ 1/sigma
            hess_cond = cond / kw["sigma"]
        close_per_query(got[0], -rw * want[1], off, condition=cond, **gtol)
        close_per_query(got[1], rw * np.maximum(want[2], 1e-6), off, condition=hess_cond, **gtol)
    fast = run(lambda: obj.grad_hess(s, y, off, weights=rw))
    ref = run_ref(lambda: reference.soft_ndcg_grad_hess(s, y, off, **dict(kw, convention=obj.convention)))
    if agree(fast, ref, "SoftNDCGObjective.grad_hess", compare_objective):
        og, oh = fast.value
        assert np.isfinite(og).all() and np.isfinite(oh).all() and (oh >= 0).all()


def _fd(fn, s, i, h):
    """Fourth-order central difference of fn at s along coordinate i, and the
    bound of its rounding error: (1 + 8 + 8 + 1) / 12 times the evaluations'
    own error (taken as 4 ulps of the largest value) over h. Values far above 1
    (a discount array that is not decreasing gives SoftNDCG ~1e9) make the
    difference quotient noisy, not the gradient wrong."""
    vals = []
    for step in (2, 1, -1, -2):
        x = s.copy()
        x[i] += step * h
        vals.append(fn(x))
    largest = max(abs(v) for v in vals)
    rounding = 1.5 * 4 * np.finfo(np.float64).eps * largest / h
    # values near the largest double (exponential gain of a label ~1000): the
    # combination is formed on values scaled by a power of two (exactly), or
    # 8 * 1e306 would overflow and give inf - inf
    e = math.frexp(largest)[1] if largest > 0 else 0
    u = [math.ldexp(v, -e) for v in vals]
    return math.ldexp((-u[0] + 8 * u[1] - 8 * u[2] + u[3]) / 12, e) / h, rounding


@fuzz_settings(0.5)
@given(st.data())
def test_soft_ndcg_gradient_matches_finite_differences(data):
    conv = data.draw(conventions(moderate=True), label="convention").replace(empty="zero", ties="stable")
    n = data.draw(st.integers(2, 7), label="n")
    s = np.asarray(data.draw(st.lists(st.floats(-3, 3), min_size=n, max_size=n), label="scores"))
    y = data.draw(label_values(conv, n, invalid_ok=False), label="labels")
    yf = np.asarray(y, dtype=np.float64)
    assume(np.isfinite(yf).all() and float(np.max(yf)) < 1e6 and not ((yf > 0) & (yf < 1e-200)).any())
    sigma = data.draw(st.sampled_from([0.3, 0.7, 1.5]), label="sigma")
    k = data.draw(st.one_of(st.none(), st.integers(1, n + 1)), label="k")
    kw = dict(sigma=sigma, k=k, convention=conv)
    run_ok = run(lambda: soft_ndcg_grad(s, y, [0, n], **kw))
    assume(run_ok.ok)
    values, grad = run_ok.value
    h = 1e-3 * sigma
    for i in range(n):
        fd, rounding = _fd(lambda x: soft_ndcg(x, y, [0, n], **kw)[0], s, i, h)
        scale = max(1.0, abs(fd), abs(grad[i]))
        assert abs(grad[i] - fd) <= 1e-6 * scale / sigma + rounding, (i, grad[i], fd, rounding)
    # shifting every score changes nothing in exact arithmetic: the gradient sums to 0
    assert abs(grad.sum()) <= 1e-12 * max(1.0, np.abs(grad).sum())


# ----------------------------------------------------------------------------- RankDCG


@st.composite
def rankdcg_inputs(draw):
    sizes = draw(st.lists(st.integers(0, 9), max_size=5))
    off = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
    n = int(off[-1])
    kind = draw(st.sampled_from(["small", "float", "bigint"]))
    if kind == "bigint":
        pool = draw(st.lists(st.sampled_from([2**53, 2**53 + 1, 2**60, 2**60 + 1, -(2**62), 5, INT64_MAX]),
                             min_size=1, max_size=5))
        refv = np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=np.int64)
    elif kind == "float":
        pool = draw(st.lists(score_values(allow_overflow32=False), min_size=1, max_size=5))
        refv = np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=np.float64)
    else:
        refv = np.asarray(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.int64)
    ppool = draw(st.lists(score_values(), min_size=1, max_size=6))
    pred = np.asarray(draw(st.lists(st.sampled_from(ppool), min_size=n, max_size=n)), dtype=np.float64)
    if draw(st.booleans()):
        with np.errstate(over="ignore"):
            p32 = pred.astype(np.float32)
        if np.isfinite(p32).all():
            pred = p32
    empty = draw(st.sampled_from(["zero", "one", "skip", "error"]))
    return refv, pred, off, Convention(empty=empty)


@fuzz_settings(1.0)
@given(rankdcg_inputs())
def test_rankdcg_equals_the_reference(inputs):
    refv, pred, off, conv = inputs
    fast = run(lambda: rankdcg(refv, pred, off, convention=conv))
    ref = run_ref(lambda: reference.rankdcg(refv, pred, off, conv))
    if agree(fast, ref, "rankdcg", lambda a, b: np.testing.assert_array_equal(a, b)):
        v = fast.value
        ok = v[~np.isnan(v)]
        assert ((ok >= 0) & (ok <= 1)).all(), v
        if conv.empty != "skip":
            assert not np.isnan(v).any(), v
        for t in (1, 3):
            bitwise(rankdcg(refv, pred, off, convention=conv, n_threads=t), v)
        perm = list(range(len(off) - 1))[::-1]
        rows = _rows(off, perm)
        poff = np.concatenate([[0], np.cumsum(np.diff(off)[perm], dtype=np.int64)]).astype(np.int64)
        bitwise(rankdcg(refv[rows], pred[rows], poff, convention=conv), v[perm])


# ----------------------------------------------------------------------------- objectives and metrics


@st.composite
def library_batches(draw, max_label: int = 4, overflow32_ok: bool = False):
    # empty groups too (both libraries accept them), but at least one row
    sizes = draw(st.lists(st.integers(0, 8), min_size=1, max_size=4).filter(lambda v: sum(v) > 0))
    off = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
    n = int(off[-1])
    labels = np.asarray(draw(st.lists(st.integers(0, max_label), min_size=n, max_size=n)), dtype=np.float32)
    pool = draw(st.lists(score_values(allow_overflow32=overflow32_ok), min_size=1, max_size=6))
    preds = np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=np.float64)
    if not overflow32_ok:
        preds = np.where(np.abs(preds) < FLOAT32_OVERFLOW, preds, 0.0)
    return preds, labels, off


@fuzz_settings(0.4)
@given(library_batches(overflow32_ok=True), st.data())
def test_lightgbm_objective_and_metric_equal_the_reference(batch, data):
    lgb = require("lightgbm")
    from fastndcg.integrations import LightGBMObjective as LambdarankObjective, LightGBMNDCGMetric as NDCGMetric

    preds, labels, off = batch
    n = len(preds)
    sizes = np.diff(off)
    row_w = data.draw(st.one_of(st.none(), st.lists(st.sampled_from([1.0, 0.5, 2.0, 3.0, 1e-30]),
                                                    min_size=n, max_size=n).map(lambda v: np.asarray(v, np.float32))),
                      label="row weights")
    ds = lgb.Dataset(np.zeros((n, 1)), label=labels, group=sizes, weight=row_w,
                     free_raw_data=False, params={"verbose": -1}).construct()
    mode = data.draw(st.sampled_from(["lightgbm", "default"]), label="mode")
    conv = None if mode == "lightgbm" else data.draw(st.sampled_from(["lightgbm", "xgboost", "letor4", None]))
    truncation = data.draw(st.one_of(st.just("auto"), st.none(), st.integers(1, 10)), label="truncation")
    sigma = data.draw(st.sampled_from([1.0, 0.5, 2.0]), label="sigma")
    normalize = data.draw(st.booleans(), label="normalize")
    obj = LambdarankObjective(mode=mode, convention=conv, truncation=truncation, sigma=sigma, normalize=normalize)
    b = Batch(preds, labels, off, None, None, first_overflow32(preds))
    fast = run(lambda: obj(preds, ds))
    if not expect_score_error(fast, b, obj.convention.score_precision == "float32", "LambdarankObjective",
                              lambda: Outcome(True)):
        ref = run_ref(lambda: reference.lambda_gradients(preds, labels, off, mode=mode, convention=obj.convention,
                                                      truncation=truncation, sigma=sigma, normalize=normalize,
                                                      score_normalization=normalize, sample_weights=row_w))
        if agree(fast, ref, "LambdarankObjective", _grad_compare(dict(mode=mode), np.float64)):
            assert np.isfinite(fast.value[0]).all() and np.isfinite(fast.value[1]).all()

    k = data.draw(st.lists(st.integers(1, 10), min_size=1, max_size=3), label="k")
    mconv = data.draw(st.sampled_from(["lightgbm", "standard", "letor4", "xgboost", "sklearn"]), label="metric conv")
    metric = NDCGMetric(k, convention=mconv)
    conv_obj = fastndcg.get_preset(mconv)
    fast = run(lambda: [v for _, v, _ in metric(preds, ds)])
    if expect_score_error(fast, b, conv_obj.score_precision == "float32", "NDCGMetric", lambda: Outcome(True)):
        return
    qw = None
    stored = ds.get_field("weight")     # what LightGBM keeps: none when every row weight is 1
    if stored is not None:   # LightGBM's query weight: the float32 mean of the query's row weights (0 if empty)
        qw = np.array([np.float32(np.cumsum(stored[a:b], dtype=np.float32)[-1] / np.float32(b - a)) if b > a
                       else 0.0 for a, b in zip(off[:-1], off[1:])], dtype=np.float64)
    distinct = list(dict.fromkeys(k))       # a repeated cutoff is one metric (one name in the log)
    agree(fast, run_ref(lambda: reference.mean_ndcg(preds, labels, off, distinct, conv_obj, qw)), "NDCGMetric",
          close())


@fuzz_settings(0.4)
@given(library_batches(), st.data())
def test_xgboost_objective_and_metric_equal_the_reference(batch, data):
    xgb = require("xgboost")
    from fastndcg.integrations import XGBoostNDCGMetric as NDCGMetric, XGBoostObjective as RankNDCGObjective

    preds, labels, off = batch
    n = len(preds)
    preds = preds.astype(np.float32)        # XGBoost hands float32 margins to objectives
    dm = xgb.DMatrix(np.zeros((n, 1)), label=labels)
    dm.set_group(np.diff(off))
    gw = data.draw(st.one_of(st.none(), st.lists(st.sampled_from([1.0, 0.5, 2.0, 3.0]), min_size=len(off) - 1,
                                                 max_size=len(off) - 1).map(lambda v: np.asarray(v, np.float32))),
                   label="group weights")
    if gw is not None:
        dm.set_weight(gw)
    mode = data.draw(st.sampled_from(["xgboost", "default"]), label="mode")
    conv = data.draw(st.sampled_from([None, Convention(gain="linear")] + ([] if mode == "xgboost" else ["xgboost"])))
    truncation = data.draw(st.one_of(st.just("auto"), st.none(), st.integers(1, 10)), label="truncation")
    normalize = data.draw(st.booleans(), label="normalize")
    obj = RankNDCGObjective(mode=mode, convention=conv, truncation=truncation, normalize=normalize)
    fast = run(lambda: obj(preds, dm))
    ref = run_ref(lambda: reference.lambda_gradients(preds, labels, off, mode=mode, convention=obj.convention,
                                                  truncation=truncation, normalize=normalize, query_weights=gw))
    if agree(fast, ref, "RankNDCGObjective", _grad_compare(dict(mode=mode), np.float32)):
        assert np.isfinite(fast.value[0]).all() and np.isfinite(fast.value[1]).all()

    k = data.draw(st.lists(st.integers(1, 10), min_size=1, max_size=3), label="k")
    mconv = data.draw(st.sampled_from(["xgboost", "xgboost_minus", "standard"]), label="metric conv")
    metric = NDCGMetric(k, convention=mconv)
    fast = run(lambda: [v for _, v in metric(preds, dm)])
    distinct = list(dict.fromkeys(k))       # a repeated cutoff is one metric (one name in the log)
    ref = run_ref(lambda: reference.mean_ndcg(preds, labels, off, distinct, fastndcg.get_preset(mconv),
                                              None if gw is None else gw.astype(np.float64)))
    agree(fast, ref, "xgboost NDCGMetric", close())


@fuzz_settings(0.3)
@given(library_batches(max_label=3), st.data())
def test_softndcg_library_objectives_equal_the_reference(batch, data):
    lgb = require("lightgbm")
    xgb = require("xgboost")
    from fastndcg.integrations import LightGBMObjective, XGBoostObjective

    preds, labels, off = batch
    n = len(preds)
    sizes = np.diff(off)
    kw = dict(sigma=data.draw(st.sampled_from([1.0, 0.3, 3.0])), k=data.draw(st.one_of(st.none(), st.integers(1, 9))),
              convention=data.draw(st.sampled_from([None, "xgboost", "letor4", "lightgbm"])),
              max_docs=data.draw(st.one_of(st.none(), st.integers(1, 9))))
    min_h = data.draw(st.sampled_from([1e-6, 0.0, 0.1]))
    w = data.draw(st.one_of(st.none(), st.lists(st.sampled_from([1.0, 0.5, 2.0]), min_size=len(sizes),
                                                max_size=len(sizes)).map(lambda v: np.asarray(v, np.float32))))
    row_w = None if w is None else np.repeat(w, sizes)
    ds = lgb.Dataset(np.zeros((n, 1)), label=labels, group=sizes, weight=row_w, free_raw_data=False,
                     params={"verbose": -1}).construct()
    lobj = LightGBMObjective("softndcg", min_hessian=min_h, **kw)
    g, h = lobj(preds, ds)
    _, rg, rh = reference.soft_ndcg_grad_hess(preds, labels, off, **dict(kw, convention=lobj.convention))
    rw = np.ones(n) if row_w is None else row_w.astype(np.float64)
    np.testing.assert_allclose(g, -rw * rg, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(h, rw * np.maximum(rh, min_h), rtol=1e-10, atol=1e-13)

    dm = xgb.DMatrix(np.zeros((n, 1)), label=labels)
    dm.set_group(sizes)
    if w is not None:
        dm.set_weight(w)
    xobj = XGBoostObjective("softndcg", min_hessian=min_h, **kw)
    p32 = preds.astype(np.float32)
    assume(np.isfinite(p32).all())
    g, h = xobj(p32, dm)
    assert g.dtype == np.float32
    _, rg, rh = reference.soft_ndcg_grad_hess(p32.astype(np.float64), labels, off, **dict(kw, convention=xobj.convention))
    np.testing.assert_allclose(g, -rw * rg, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(h, rw * np.maximum(rh, min_h), rtol=1e-5, atol=1e-7)


# ----------------------------------------------------------------------------- by hand

D2 = 1.0 / math.log2(3.0)      # discount of rank 2: 0.6309297535714575
D3 = 0.5                       # 1 / log2(4)


def test_hand_ndcg_at_3():
    # scores [3, 2, 1], labels [0, 1, 2], gains 2^l - 1 = [0, 1, 3]
    # DCG@3 = 0*1 + 1*D2 + 3*D3 = 0.63093 + 1.5 = 2.13093
    # IDCG@3 = 3*1 + 1*D2 + 0 = 3.63093  ->  NDCG = 2.13093 / 3.63093 = 0.586883
    want = (D2 + 1.5) / (3.0 + D2)
    assert want == pytest.approx(0.5868827, abs=1e-7)
    assert fastndcg.ndcg([3.0, 2.0, 1.0], [0, 1, 2], [0, 3], 3)[0] == pytest.approx(want, rel=1e-15)


def test_hand_average_ties_and_float32_ties():
    # average: scores tie, labels [1, 0], linear gain: each position holds the mean gain 1/2
    # DCG = 0.5*1 + 0.5*D2 = 0.815465; IDCG = 1  ->  0.815465
    conv = Convention(gain="linear", ties="average")
    assert fastndcg.ndcg([1.0, 1.0], [1, 0], [0, 2], convention=conv)[0] == pytest.approx(0.5 + 0.5 * D2, rel=1e-15)
    # 1 + 2^-30 > 1 in double but equal in float32: native ranks doc 1 first (DCG = D2, NDCG = D2),
    # float32 keeps the input order (doc 0 first: NDCG = 1)
    s = [1.0, 1.0 + 2.0**-30]
    assert fastndcg.ndcg(s, [1, 0], [0, 2])[0] == pytest.approx(D2, rel=1e-15)
    assert fastndcg.ndcg(s, [1, 0], [0, 2], convention=Convention(score_precision="float32"))[0] == 1.0
    # -0.0 and +0.0 tie: input order
    assert fastndcg.ndcg([-0.0, 0.0], [0, 1], [0, 2])[0] == pytest.approx(D2, rel=1e-15)


def test_hand_weighted_mean_empty_weight_and_ratio():
    # q0: scores [1, 0], labels [0, 1]: DCG = D2, IDCG = 1 -> NDCG = D2; weight 2
    # q1: labels [0, 0] (IDCG = 0), empty="one" -> 1; weight 3
    s, y, off, w = [1.0, 0.0, 1.0, 0.0], [0, 1, 0, 0], [0, 2, 4], [2.0, 3.0]
    weighted = Convention(empty="one")
    assert fastndcg.mean_ndcg(s, y, off, convention=weighted, weights=w) == pytest.approx((2 * D2 + 3 * 1) / 5, rel=1e-15)
    # unweighted: the empty query adds a bare 1, its weight stays in the denominator: (2 D2 + 1) / 5
    unweighted = weighted.replace(empty_weight="unweighted")
    assert fastndcg.mean_ndcg(s, y, off, convention=unweighted, weights=w) == pytest.approx((2 * D2 + 1) / 5, rel=1e-15)
    # ratio: (2 D2 + 3*0) / (2*1 + 3*0) = D2
    ratio = Convention(aggregation="ratio")
    assert fastndcg.mean_ndcg(s, y, off, convention=ratio, weights=w) == pytest.approx(D2, rel=1e-15)


def test_hand_xgboost_mode_two_documents():
    # scores [0, 0], labels [1, 0]; XGBoost: rho = 1 / (expf(0) + 1 + 1e-16f) = 0.5 (float32)
    # IDCG = 1; |dZ| = |(1*1 + 0*D2) - (0*1 + 1*D2)| = 1 - D2 = 0.369070 (no score normalisation:
    # all scores equal); lambda = (rho - 1) |dZ| = -0.184535; hess = 2 rho (1 - rho) |dZ| = 0.184535
    # normalisation: S = -2 lambda = 0.369070, factor log2(1 + S) / S = 0.453199 / 0.369070 = 1.227941
    lam = -0.5 * (1 - D2)
    factor = math.log2(1 - 2 * lam) / (-2 * lam)
    g, h = lambda_gradients(np.zeros(2), [1, 0], [0, 2], mode="xgboost")
    assert g[0] == pytest.approx(lam * factor, rel=1e-6) and g[1] == pytest.approx(-lam * factor, rel=1e-6)
    assert h[0] == pytest.approx(0.5 * (1 - D2) * factor, rel=1e-6)
    assert lam * factor == pytest.approx(-0.2265982, abs=1e-6)      # -0.184535 * 1.227941


def test_hand_soft_ndcg_three_equal_scores():
    # equal scores: pi = 1/2, so each rank distribution is Binomial(2, 1/2) = [1/4, 1/2, 1/4]
    # labels [1, 0, 0] (gains [1, 0, 0]): SoftDCG = 1/4 + D2/2 + D3/4 = 0.690465, IDCG = 1
    v, g = soft_ndcg_grad(np.zeros(3), [1, 0, 0], [0, 3], sigma=1.0)
    assert v[0] == pytest.approx(0.25 + 0.5 * D2 + 0.25 * D3, rel=1e-14)
    # gradient: without document i, doc 0's rank is [1/2, 1/2, 0]; d/dpi_i0 of its value is
    # D1 (0 - 1/2) + D2 (1/2 - 1/2) + D3 (1/2 - 0) = -1/4 = A_i0; A_0j = 0 (gain 0), so
    # grad_0 = 2 * (1/4) psi, grad_1 = grad_2 = -(1/4) psi with psi = 1 / (2 sigma sqrt(pi))
    psi = 1.0 / (2.0 * math.sqrt(math.pi))
    np.testing.assert_allclose(g, [0.5 * psi, -0.25 * psi, -0.25 * psi], rtol=1e-13)


def test_hand_rankdcg():
    # reference [9, 3, 1]: dense ranks 1, 2, 3; relative ranks rr = 3, 2, 1; rev = [1, 2, 3]
    # s_max = 3/1 + 2/2 + 1/3 = 4.3333, s_min = 1/1 + 2/2 + 3/3 = 3
    # predictions [5, 1, 7] rank docs 2, 0, 1: s = 1/1 + 3/2 + 2/3 = 3.16667
    # RankDCG = (3.16667 - 3) / (4.33333 - 3) = 0.125
    assert rankdcg([9, 3, 1], [5, 1, 7], [0, 3])[0] == pytest.approx(0.125, abs=1e-15)
