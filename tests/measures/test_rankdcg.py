"""RankDCG: observed values of the original code, kernel vs reference, invariances (issue 6)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastndcg import Convention
import fastndcg.reference as ref
from fastndcg import rankdcg
from fastndcg.reference._rankdcg import query_rankdcg
from conftest import make_batch

# dkaterenchuk/ranking_measures examples.py
L1 = [9, 4, 4, 2, 2, 2, 1, 1, 1, 1]
L2 = [9, 4, 4, 2, 2, 1, 2, 1, 1, 1]
L3 = [4, 4, 2, 9, 2, 2, 1, 1, 1, 1]
L4 = [1, 4, 4, 2, 2, 2, 9, 1, 1, 1]
L5 = [1, 4, 4, 2, 2, 2, 1, 1, 1, 9]
L6 = [1, 1, 1, 1, 2, 2, 2, 4, 4, 9]
# find_rankdcg(L1, L) of the unchanged original (measures.py) under Python 3.11, printed with repr;
# conventions.md 2.13 quotes them rounded: 1.0, 0.975, 0.65, 0.325, 0.325, 0.0.
L_EXACT = [1.0, 0.9749999999999999, 0.6500000000000002, 0.3250000000000004, 0.3250000000000004, 0.0]
L_ROUNDED = [1.0, 0.975, 0.65, 0.325, 0.325, 0.0]


def one(reference, predictions, **kw):
    return float(rankdcg(reference, predictions, [0, len(reference)], **kw)[0])


def both(reference, predictions, **kw):
    """Kernel and reference on one query; they must agree bit for bit."""
    got = one(reference, predictions, **kw)
    spec = query_rankdcg(reference, predictions, kw.get("convention"))
    assert got == spec or (math.isnan(got) and math.isnan(spec)), (got, spec)
    return got


# ----------------------------------------------------------------------------- observed values


def test_readme_example():
    assert both([9, 3, 1], [5, 1, 7]) == 0.12499999999999992


def test_examples_L1_against_L1_to_L6():
    got = [both(L1, L) for L in (L1, L2, L3, L4, L5, L6)]
    assert got == L_EXACT
    np.testing.assert_allclose(got, L_ROUNDED, rtol=0, atol=1e-12)
    # As one CSR batch.
    ref_all = np.concatenate([L1] * 6)
    pred_all = np.concatenate([L1, L2, L3, L4, L5, L6])
    batch = rankdcg(ref_all, pred_all, np.arange(7) * 10)
    assert batch.tolist() == L_EXACT


def test_tied_predictions_take_the_worst_case():
    assert both([3, 2, 1, 0], [5, 5, 1, 0]) == 0.7931034482758621
    # All predictions tied: the reversed ideal order, the minimum.
    assert both([3, 2, 1, 0], [1, 1, 1, 1]) == 0.0
    assert both(L1, [7.0] * 10) == 0.0
    # Breaking the tie the good way scores higher, the bad way equals the tie.
    assert both([3, 2, 1, 0], [6, 5, 1, 0]) == 1.0
    assert both([3, 2, 1, 0], [5, 6, 1, 0]) == 0.7931034482758621


def test_perfect_and_reversed_orders():
    rng = np.random.default_rng(3)
    for _ in range(20):
        r = rng.integers(0, 5, size=12).astype(float)
        if len(set(r)) < 2:
            continue
        assert both(r, r) == 1.0
        assert both(r, -r) == 0.0


# ----------------------------------------------------------------------------- kernel == reference


@pytest.mark.parametrize("pred_dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("empty", ["zero", "one", "skip"])
def test_kernel_equals_reference_tie_heavy(rng, pred_dtype, empty):
    conv = Convention(empty=empty)
    for _ in range(5):
        pred, refv, off = make_batch(rng, n_queries=40, max_docs=25, n_score_values=4, n_labels=4,
                                     p_empty_query=0.1, p_single=0.1, p_all_zero=0.1)
        pred = (pred * 2).astype(pred_dtype)
        got = rankdcg(refv, pred, off, convention=conv)
        spec = ref.rankdcg(refv, pred, off, conv)
        np.testing.assert_array_equal(got, spec)          # bit for bit, NaN where skipped
        assert got.dtype == np.float64
        ok = ~np.isnan(got)
        assert np.all((got[ok] >= 0.0) & (got[ok] <= 1.0))


def test_float_and_negative_reference_values(rng):
    refv = rng.normal(size=200).round(1) - 3.0
    pred = rng.normal(size=200).astype(np.float32)
    off = np.array([0, 7, 7, 8, 50, 120, 200])
    np.testing.assert_array_equal(rankdcg(refv, pred, off), ref.rankdcg(refv, pred, off))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 3)), min_size=0, max_size=14),
       st.integers(0, 3))
def test_kernel_equals_reference_hypothesis(pairs, cut):
    refv = np.array([p[0] for p in pairs], dtype=np.float64)
    pred = np.array([p[1] for p in pairs], dtype=np.float64)
    cut = min(cut, len(pairs))
    off = np.array([0, cut, len(pairs)])
    np.testing.assert_array_equal(rankdcg(refv, pred, off), ref.rankdcg(refv, pred, off))


# ----------------------------------------------------------------------------- invariances


def test_permuting_within_equal_reference_groups_changes_nothing(rng):
    for _ in range(30):
        r = rng.integers(0, 4, size=15)
        h = rng.integers(0, 6, size=15).astype(float)
        if len(set(r)) < 2:
            continue
        base = both(r, h)
        h2 = h.copy()
        for v in np.unique(r):
            idx = np.flatnonzero(r == v)
            h2[idx] = h[rng.permutation(idx)]      # shuffle predictions among equal references
        assert both(r, h2) == base


def test_only_the_order_of_values_matters(rng):
    for _ in range(30):
        r = rng.integers(0, 5, size=12).astype(float)
        h = rng.integers(0, 5, size=12).astype(float)
        if len(set(r)) < 2:
            continue
        base = both(r, h)
        # Strictly increasing maps of the reference or of the predictions.
        assert both(np.exp(r) * 3.0 - 100.0, h) == base
        assert both(np.unique(r, return_inverse=True)[1] * 10, h) == base
        assert both(r, h ** 3 + 0.5) == base
        # Moving whole documents around.
        p = rng.permutation(12)
        assert both(r[p], h[p]) == base


def test_large_integer_references_keep_their_order():
    big = 2**60
    r = np.array([big, big + 1, big + 2, 5], dtype=np.int64)  # big, big+1 collapse in float64
    h = np.array([1.0, 2.0, 3.0, 0.0])
    assert one(r, h) == both([1, 2, 3, 0], h) == 1.0
    assert one(r, -h) == 0.0


# ----------------------------------------------------------------------------- degenerate queries


@pytest.mark.parametrize("empty, value", [("zero", 0.0), ("one", 1.0), ("skip", math.nan)])
def test_degenerate_queries_follow_the_empty_rule(empty, value):
    conv = Convention(empty=empty)
    refv = np.array([4.0, 4.0, 4.0, 7.0, 1.0, 2.0])
    pred = np.array([1.0, 2.0, 3.0, 0.0, 1.0, 2.0])
    off = np.array([0, 3, 3, 4, 6])        # all equal / empty / one document / a real query
    got = rankdcg(refv, pred, off, convention=conv)
    np.testing.assert_array_equal(got[:3], [value] * 3)
    assert got[3] == 1.0
    np.testing.assert_array_equal(ref.rankdcg(refv, pred, off, conv), got)


def test_degenerate_query_error_names_the_query():
    refv = np.array([1.0, 2.0, 5.0, 5.0])
    pred = np.zeros(4)
    conv = Convention(empty="error")
    with pytest.raises(ValueError, match=r"query 1 \(rows 2:4\) has fewer than two distinct reference values"):
        rankdcg(refv, pred, [0, 2, 4], convention=conv)
    with pytest.raises(ValueError, match=r"query 1 has fewer than two distinct reference values"):
        ref.rankdcg(refv, pred, [0, 2, 4], conv)
    # No degenerate query: no error.
    assert rankdcg(refv[:2], pred[:2], [0, 2], convention=conv).tolist() == [0.0]


# ----------------------------------------------------------------------------- inputs, threads


@pytest.mark.parametrize("how", ["flag", "memmap"])
def test_read_only_inputs(rng, tmp_path, how):
    pred, refv, off = make_batch(rng, n_queries=20, max_docs=30)
    expected = rankdcg(refv, pred, off)
    arrays = []
    for name, a in (("r", refv), ("p", pred), ("o", off)):
        if how == "flag":
            a = a.copy()
            a.setflags(write=False)
        else:
            np.save(tmp_path / f"{name}.npy", a)
            a = np.load(tmp_path / f"{name}.npy", mmap_mode="r")
        arrays.append(a)
    np.testing.assert_array_equal(rankdcg(*arrays), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.usefixtures("force_threads")
def test_bit_identical_for_any_thread_count(rng, dtype):
    pred, refv, off = make_batch(rng, n_queries=300, max_docs=60, dtype=dtype)
    conv = Convention(empty="skip")
    np.testing.assert_array_equal(rankdcg(refv, pred, off, convention=conv, n_threads=1),
                                  rankdcg(refv, pred, off, convention=conv, n_threads=2))


def test_no_queries():
    assert rankdcg([], [], [0]).shape == (0,)


def test_validation_errors_name_argument_and_value():
    off = [0, 3]
    with pytest.raises(ValueError, match=r"reference must be finite; got reference\[1\]=nan \(query 0, row 1"):
        rankdcg([1.0, np.nan, 2.0], [1, 2, 3], off)
    with pytest.raises(ValueError, match=r"predictions must be finite; got predictions\[2\]=inf"):
        rankdcg([1, 2, 3], [1.0, 2.0, np.inf], off)
    with pytest.raises(ValueError, match=r"predictions must have the same length as reference \(3\); got length 2"):
        rankdcg([1, 2, 3], [1.0, 2.0], off)
    with pytest.raises(ValueError, match=r"offsets must be non-decreasing; got offsets\[1\]=3 > offsets\[2\]=1"):
        rankdcg([1, 2, 3], [1, 2, 3], [0, 3, 1, 3])
    with pytest.raises(ValueError, match=r"reference must be 1-D"):
        rankdcg([[1, 2, 3]], [1, 2, 3], off)
    with pytest.raises(TypeError, match=r"predictions must be numeric"):
        rankdcg([1, 2, 3], ["a", "b", "c"], off)
    with pytest.raises(ValueError, match=r"n_threads must not be 0"):
        rankdcg([1, 2, 3], [1, 2, 3], off, n_threads=0)
