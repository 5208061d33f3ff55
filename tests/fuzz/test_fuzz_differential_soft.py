"""Differential fuzz tier, SoftNDCG and RankDCG: values, gradients (against the reference and
finite differences) under generated conventions; the generators are in fuzz_cases.py, the
tier's description in test_fuzz_differential.py."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, event, example, given
from hypothesis import strategies as st

from fastndcg import Convention, reference
from fastndcg.reference import _softrank as ref_softrank
from fastndcg.measures._softrank import SoftNDCGObjective
from fastndcg import soft_ndcg, soft_ndcg_grad
from fastndcg.measures import soft_rank_distributions
from fastndcg import rankdcg

from conftest import fuzz_settings
from fuzz_cases import (BIG_K, Batch, DBL_MAX, INT64_MAX, _rows, agree, batches, bitwise, close_per_query,
                        conventions, expect_score_error, label_values, permuted, repaired, run, run_ref,
                        score_values)

pytestmark = [pytest.mark.fuzz]


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
    from fastndcg.reference._ndcg import discount_of, gain_of, query_ideal_dcg
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
    np.testing.assert_allclose(dist, ref_softrank.soft_rank_distributions(s, off, sigma=kw["sigma"], depth=depth),
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
    ref = run_ref(lambda: ref_softrank.soft_ndcg_grad_hess(s, y, off, **dict(kw, convention=obj.convention)))
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
