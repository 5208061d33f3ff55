"""The generators and checks of the differential fuzz tier (tests/fuzz/test_fuzz_differential*.py,
test_fuzz_integrations.py): values, conventions, CSR batches, and the outcome of a call (a value
or a clear error) compared with the reference's."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, List, Optional

import numpy as np
from hypothesis import event, note
from hypothesis import strategies as st

from fastndcg import Convention
from fastndcg._core.resolve import FLOAT32_OVERFLOW

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


def grad_compare(kw, dtype):
    """The comparison of LambdaMART gradients: bit for bit in the exact modes, to 1e-12 (float64) or
    2e-6 (float32) in the default mode."""
    if kw["mode"] != "default":
        return lambda a, b: (bitwise(a[0], b[0]), bitwise(a[1], b[1]))
    tol = dict(rtol=1e-12, atol=1e-15) if dtype == np.float64 else dict(rtol=2e-6, atol=1e-7)

    def compare(a, b):
        np.testing.assert_allclose(a[0], b[0], **tol)
        np.testing.assert_allclose(a[1], b[1], **tol)
    return compare
