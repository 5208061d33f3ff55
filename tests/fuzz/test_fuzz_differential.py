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
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import fastndcg
from fastndcg import Convention, NDCGScorer, reference
from fastndcg.conventions._presets import as_convention
from fastndcg import LambdaMART, delta_ndcg_matrix, delta_ndcg_pairs, lambda_gradients, soft_ndcg_grad
from fastndcg import rankdcg

from conftest import fuzz_settings
from fuzz_cases import (BIG_K, Batch, Outcome, _rows, agree, assert_clear_error, batches, bitwise, close,
                        conventions, cutoffs, discount_is_non_increasing, expect_score_error,
                        first_overflow32, grad_compare, permuted, query_weights, repaired, run, run_ref)

pytestmark = [pytest.mark.fuzz]


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
    from fastndcg.reference._ndcg import gain_of
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
    if not agree(fast, ref, "lambda_gradients", grad_compare(kw, s.dtype)):
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
