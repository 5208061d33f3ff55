"""SoftNDCG (SoftRank): kernel vs reference, gradient, limits, exact cases, objectives (issue 6)."""
import math

import numpy as np
import pytest

import fastndcg
from fastndcg import Convention
import fastndcg.reference as ref
from fastndcg.measures import soft_rank_distributions
from fastndcg.reference import _softrank as ref_softrank
from fastndcg.measures import _softrank as sr
from conftest import require, make_batch

CONVENTIONS = [
    Convention(),
    Convention(gain="linear", discount="reciprocal"),
    Convention(gain=(0.0, 1.0, 3.0), unknown_label="zero", discount="letor", short="zero"),
    Convention(discount="jk", discount_base=3.0),          # Jarvelin-Kekalainen, log base 3
    Convention(gain="linear", discount="jk", discount_base=10.0, short="zero"),   # Sakai: b = 10
    Convention(empty="one", ideal="full"),
    Convention(empty="skip", discount=tuple(1.0 / (1.0 + np.arange(64)) ** 0.7)),
]
CUTS = [None, 1, 3, 50]


def close(a, b, rtol=1e-12, atol=1e-13):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def grad_tol(dtype):
    return dict(rtol=1e-5, atol=1e-7) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-13)


def tie_free_batch(rng, n_queries=6, max_docs=8, gap=0.1, dtype=np.float64):
    sizes = rng.integers(2, max_docs + 1, size=n_queries)
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    scores = np.concatenate([rng.permutation(n) * gap + rng.random() for n in sizes]).astype(dtype)
    labels = rng.integers(0, 4, size=int(offsets[-1]))
    return scores, labels, offsets


# ----------------------------------------------------------------------------- kernel == reference


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.describe()[:50])
@pytest.mark.parametrize("k", CUTS, ids=str)
def test_kernel_equals_reference_tie_heavy(rng, dtype, conv, k):
    # Few distinct scores (ties: pi = 1/2), empty, single-document and all-zero queries.
    s, y, off = make_batch(rng, n_queries=10, max_docs=8, n_score_values=3, n_labels=3, dtype=dtype,
                           p_empty_query=0.15, p_single=0.15)
    sigma = 0.3
    values, grad = fastndcg.soft_ndcg_grad(s, y, off, sigma=sigma, k=k, convention=conv)
    r_values, r_grad = ref.soft_ndcg_grad(s.astype(np.float64), y, off, sigma=sigma, k=k, convention=conv)
    assert values.dtype == np.float64 and grad.dtype == dtype and grad.shape == s.shape
    close(values, r_values)
    np.testing.assert_allclose(grad, r_grad, **grad_tol(dtype))
    close(fastndcg.soft_ndcg(s, y, off, sigma=sigma, k=k, convention=conv), values, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_equals_reference_continuous_scores_and_hessian(rng, dtype):
    for k in (None, 2, 4):
        s, y, off = make_batch(rng, n_queries=8, max_docs=9, n_score_values=10**6, dtype=dtype)
        s = (s / 1e5).astype(dtype)
        values, grad, hess = ref_softrank.soft_ndcg_grad_hess(s.astype(np.float64), y, off, sigma=0.7, k=k)
        plan = sr.SoftNDCGObjective(sigma=0.7, k=k, min_hessian=0.0).plan(y, off)
        g, h = sr.SoftNDCGObjective(sigma=0.7, k=k, min_hessian=0.0).grad_hess_with(plan, s)
        np.testing.assert_allclose(-g, grad, **grad_tol(dtype))
        np.testing.assert_allclose(h, hess, **grad_tol(dtype))
        assert np.all(h >= 0)


@pytest.mark.parametrize("k", [None, 2])
def test_max_docs_cap_equals_reference(rng, k):
    s, y, off = make_batch(rng, n_queries=10, max_docs=9, n_score_values=5)
    for cap in (1, 3, 5):
        v, g = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.4, k=k, max_docs=cap)
        rv, rg = ref.soft_ndcg_grad(s, y, off, sigma=0.4, k=k, max_docs=cap)
        close(v, rv)
        close(g, rg, rtol=1e-10)
        # Documents left out get gradient 0: at most `cap` non-zero entries per query.
        for q in range(len(off) - 1):
            assert np.count_nonzero(g[off[q]:off[q + 1]]) <= cap
    # A cap no query reaches changes nothing, bit for bit.
    v0, g0 = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.4, k=k)
    v9, g9 = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.4, k=k, max_docs=9)
    np.testing.assert_array_equal(v0, v9)
    np.testing.assert_array_equal(g0, g9)


def test_pair_cache_and_per_row_paths_are_bit_identical(rng):
    # Queries whose m*m does not fit the per-thread pair cache compute pi per row.
    from fastndcg._core import _softrank

    s, y, off = make_batch(rng, n_queries=12, max_docs=20, n_score_values=6)
    cached = sr.SoftNDCGObjective(sigma=0.5, k=4, min_hessian=0.0).grad_hess(s, y, off)
    values = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5)
    dist = soft_rank_distributions(s, off, sigma=0.5)
    old = _softrank._set_pair_cache_limit(0)
    try:
        per_row = sr.SoftNDCGObjective(sigma=0.5, k=4, min_hessian=0.0).grad_hess(s, y, off)
        values_row = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5)
        dist_row = soft_rank_distributions(s, off, sigma=0.5)
    finally:
        _softrank._set_pair_cache_limit(old)
    for a, b in zip(cached + values + (dist,), per_row + values_row + (dist_row,)):
        np.testing.assert_array_equal(a, b)


def test_k_larger_than_queries_is_the_whole_list(rng):
    s, y, off = make_batch(rng, n_queries=12, max_docs=10)
    whole = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5)
    for k in (10, 11, 1000):
        got = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5, k=k)
        np.testing.assert_array_equal(got[0], whole[0])
        np.testing.assert_array_equal(got[1], whole[1])


def test_empty_and_single_document_queries():
    s = np.array([0.3, 1.0, 2.0, 0.5])
    y = np.array([2, 0, 0, 1])
    off = np.array([0, 0, 1, 3, 4])    # empty, single (label 2), all-zero pair, single (label 1)
    for empty, expect in (("zero", 0.0), ("one", 1.0), ("skip", math.nan)):
        v, g = fastndcg.soft_ndcg_grad(s, y, off, sigma=1.0, convention=Convention(empty=empty))
        close(v, [expect, 1.0, expect, 1.0])
        np.testing.assert_array_equal(g, 0.0)
    with pytest.raises(ValueError, match=r"query 0 .*ideal DCG 0.*empty='error'"):
        fastndcg.soft_ndcg(s, y, off, sigma=1.0, convention=Convention(empty="error"))
    with pytest.raises(ValueError, match="empty='error'"):
        ref.soft_ndcg(s, y, off, sigma=1.0, convention=Convention(empty="error"))
    # No queries at all / no documents.
    assert fastndcg.soft_ndcg([], [], [0], sigma=1.0).shape == (0,)
    v, g = fastndcg.soft_ndcg_grad(np.empty(0), np.empty(0, dtype=np.int64), [0, 0], sigma=1.0)
    close(v, [0.0])
    assert g.shape == (0,)


def test_short_queries_score_zero_under_short_zero():
    conv = Convention(short="zero")
    s, y, off = np.array([1.0, 0.0, 2.0, 1.0, 0.0]), np.array([1, 0, 2, 1, 0]), np.array([0, 2, 5])
    v, g = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5, k=3, convention=conv)
    assert v[0] == 0.0 and np.all(g[:2] == 0.0)
    assert 0.0 < v[1] < 1.0 and np.any(g[2:] != 0.0)


# ----------------------------------------------------------------------------- inputs, threads


@pytest.mark.parametrize("how", ["flag", "memmap"])
def test_read_only_inputs(rng, tmp_path, how):
    s, y, off = make_batch(rng, n_queries=8, max_docs=9)
    expected = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5, k=3)
    arrays = []
    for name, a in (("s", s), ("y", y), ("off", off)):
        if how == "flag":
            a = a.copy()
            a.setflags(write=False)
        else:
            path = tmp_path / f"{name}.npy"
            np.save(path, a)
            a = np.load(path, mmap_mode="r")
        arrays.append(a)
    got = fastndcg.soft_ndcg_grad(*arrays, sigma=0.5, k=3)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(soft_rank_distributions(arrays[0], arrays[2], sigma=0.5),
                                  soft_rank_distributions(s, off, sigma=0.5))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.usefixtures("force_threads")
def test_bit_identical_for_any_thread_count(rng, dtype):
    s, y, off = make_batch(rng, n_queries=60, max_docs=25, dtype=dtype)
    conv = Convention(empty="skip")
    one = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5, k=5, convention=conv, n_threads=1)
    two = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5, k=5, convention=conv, n_threads=2)
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(one[1], two[1])
    obj1 = sr.SoftNDCGObjective(sigma=0.5, max_docs=10, n_threads=1).grad_hess(s, y, off)
    obj2 = sr.SoftNDCGObjective(sigma=0.5, max_docs=10, n_threads=2).grad_hess(s, y, off)
    np.testing.assert_array_equal(obj1[0], obj2[0])
    np.testing.assert_array_equal(obj1[1], obj2[1])
    np.testing.assert_array_equal(soft_rank_distributions(s, off, sigma=0.5, n_threads=1),
                                  soft_rank_distributions(s, off, sigma=0.5, n_threads=2))


def test_batch_equals_per_query(rng):
    s, y, off = make_batch(rng, n_queries=10, max_docs=12)
    v, g = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.8, k=4)
    for q in range(len(off) - 1):
        a, b = off[q], off[q + 1]
        vq, gq = fastndcg.soft_ndcg_grad(s[a:b], y[a:b], [0, b - a], sigma=0.8, k=4)
        assert vq[0] == v[q]
        np.testing.assert_array_equal(gq, g[a:b])


# ----------------------------------------------------------------------------- gradient


def _fd_gradient(s, y, off, h, **kw):
    """Fourth-order central differences; the t-th document of every query is
    perturbed at once (queries are independent)."""
    sizes = np.diff(off)
    local = np.arange(len(s)) - np.repeat(off[:-1], sizes)
    qof = np.repeat(np.arange(len(sizes)), sizes)
    fd = np.zeros_like(s)
    for t in range(int(sizes.max(initial=0))):
        mask = local == t
        vals = []
        for step in (2, 1, -1, -2):
            x = s.copy()
            x[mask] += step * h
            vals.append(fastndcg.soft_ndcg(x, y, off, **kw))
        d = (-vals[0] + 8 * vals[1] - 8 * vals[2] + vals[3]) / (12 * h)
        fd[mask] = d[qof[mask]]
    return fd


@pytest.mark.parametrize("conv", CONVENTIONS[:4], ids=lambda c: c.describe()[:50])
@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("sigma", [0.2, 1.5])
def test_gradient_matches_finite_differences(rng, conv, k, sigma):
    s, y, off = make_batch(rng, n_queries=8, max_docs=12, n_score_values=10**6)
    s = s / 1e5 + rng.normal(size=len(s)) * 0.01        # no exact ties needed, but near ones welcome
    kw = dict(sigma=sigma, k=k, convention=conv)
    _, grad = fastndcg.soft_ndcg_grad(s, y, off, **kw)
    fd = _fd_gradient(s, y, off, 1e-4, **kw)
    err = np.max(np.abs(grad - fd))
    assert err < 1e-9, err
    assert np.any(grad != 0)


def test_gradient_finite_differences_with_ties_and_max_docs(rng):
    # Exact ties (pi = 1/2) are smooth points of SoftNDCG; the cap is piecewise
    # constant in the scores, fine for distinct scores away from the boundary.
    s = np.array([1.0, 1.0, 1.0, 0.2, 0.2, -1.0, 3.0, 3.0])
    y = np.array([3, 0, 1, 2, 0, 1, 1, 2])
    off = np.array([0, 6, 8])
    for kw in (dict(sigma=0.6), dict(sigma=0.6, k=2), dict(sigma=0.6, max_docs=3)):
        _, grad = fastndcg.soft_ndcg_grad(s, y, off, **kw)
        assert np.max(np.abs(grad - _fd_gradient(s, y, off, 1e-4, **kw))) < 1e-9


def test_gradient_sums_to_zero_and_shift_invariance(rng):
    s, y, off = make_batch(rng, n_queries=10, max_docs=15, n_score_values=7)
    v, g = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5, k=5)
    sums = np.add.reduceat(g, off[:-1]) if len(g) else g
    nonempty = np.diff(off) > 0
    assert np.max(np.abs(sums[nonempty])) < 1e-14
    v2, g2 = fastndcg.soft_ndcg_grad(s + 0.25, y, off, sigma=0.5, k=5)   # 0.25: exact in binary
    np.testing.assert_array_equal(v2, v)
    np.testing.assert_array_equal(g2, g)


def test_permuting_a_query_permutes_the_gradient(rng):
    s = rng.normal(size=9)
    y = rng.integers(0, 4, size=9)
    p = rng.permutation(9)
    v, g = fastndcg.soft_ndcg_grad(s, y, [0, 9], sigma=0.5, k=4)
    vp, gp = fastndcg.soft_ndcg_grad(s[p], y[p], [0, 9], sigma=0.5, k=4)
    close(vp, v)
    close(gp, g[p], rtol=1e-11, atol=1e-15)


# ----------------------------------------------------------------------------- limits and exact cases


@pytest.mark.parametrize("conv", CONVENTIONS[:4], ids=lambda c: c.describe()[:50])
@pytest.mark.parametrize("k", [None, 1, 3, 5])
def test_sigma_to_zero_is_ndcg_for_tie_free_scores(rng, conv, k):
    s, y, off = tie_free_batch(rng, n_queries=12, max_docs=9, gap=0.01)
    expected = fastndcg.ndcg(s, y, off, k, convention=conv)
    # Gaps >= 0.01 and sigma = 1e-6: every pi is exactly 0 or 1.
    close(fastndcg.soft_ndcg(s, y, off, sigma=1e-6, k=k, convention=conv), expected)
    # And the approach is monotone-ish: the error shrinks with sigma.
    errs = [np.nanmax(np.abs(fastndcg.soft_ndcg(s, y, off, sigma=sig, k=k, convention=conv) - expected))
            for sig in (0.1, 0.01, 0.002)]
    assert errs[0] > errs[1] > errs[2] or errs[0] == 0.0


@pytest.mark.peers
def test_two_documents_rank_distribution_is_exact():
    # For n = 2, the rank of doc 1 is Bernoulli(P(S_2 > S_1)) exactly: no independence approximation.
    norm = require("scipy.stats").norm
    for s1, s2, sigma in ((0.3, -0.4, 0.5), (2.0, 2.0, 1.0), (0.0, 5.0, 0.7), (1.0, 0.9, 3.0)):
        p_win = norm.cdf((s1 - s2) / (sigma * math.sqrt(2)))
        dist = soft_rank_distributions([s1, s2], [0, 2], sigma=sigma)
        close(dist, [[p_win, 1 - p_win], [1 - p_win, p_win]], rtol=1e-14, atol=1e-16)
        # SoftNDCG is then the exact expectation of NDCG over the two possible orders.
        y = [2, 1]
        ndcg_1_first = fastndcg.ndcg([1.0, 0.0], y, [0, 2])[0]
        ndcg_2_first = fastndcg.ndcg([0.0, 1.0], y, [0, 2])[0]
        expected = p_win * ndcg_1_first + (1 - p_win) * ndcg_2_first
        close(fastndcg.soft_ndcg([s1, s2], y, [0, 2], sigma=sigma), [expected], rtol=1e-14)
    # ... and it agrees with a Monte-Carlo estimate of E[NDCG] under S ~ N(s, sigma^2).
    rng = np.random.default_rng(5)
    s1, s2, sigma = 0.3, -0.1, 0.6
    draws = rng.normal([s1, s2], sigma, size=(200_000, 2))
    mc = np.mean(np.where(draws[:, 0] > draws[:, 1], ndcg_1_first, ndcg_2_first))
    assert abs(fastndcg.soft_ndcg([s1, s2], y, [0, 2], sigma=sigma)[0] - mc) < 4 * 0.5 * (ndcg_1_first - ndcg_2_first) / math.sqrt(2e5)


def test_values_in_unit_interval_full_list_convex_discount(rng):
    for conv in (Convention(), Convention(gain="linear", discount="reciprocal"), Convention(ideal="full")):
        for sigma in (0.01, 0.3, 3.0, 100.0):
            s, y, off = make_batch(rng, n_queries=25, max_docs=15, n_score_values=4)
            v = fastndcg.soft_ndcg(s, y, off, sigma=sigma, convention=conv)
            assert np.all(v >= 0.0) and np.all(v <= 1.0 + 1e-12), (conv, sigma, v.max())


def test_values_nonnegative_and_documented_excess_over_one(rng):
    # Any convention and cut: >= 0.
    for conv in CONVENTIONS:
        s, y, off = make_batch(rng, n_queries=25, max_docs=12)
        for k in (1, 3, None):
            assert np.nanmin(fastndcg.soft_ndcg(s, y, off, sigma=0.5, k=k, convention=conv), initial=0.0) >= 0.0
    # SoftRank's independent pairwise events can overshoot 1 with a flat-topped
    # discount (documented): three equal labels, equal scores, k = 2, LETOR.
    v = fastndcg.soft_ndcg([0.0, 0.0, 0.0], [2, 2, 2], [0, 3], sigma=1.0, k=2, convention=Convention(discount="letor"))
    close(v, [1.125])


@pytest.mark.peers
def test_monte_carlo_expected_rank_equals_sum_of_pi():
    norm = require("scipy.stats").norm
    rng = np.random.default_rng(7)
    s = np.array([0.4, 0.0, -0.3, 0.0, 1.2, 0.5])
    sigma = 0.5
    n = len(s)
    dist = soft_rank_distributions(s, [0, n], sigma=sigma)
    close(dist.sum(axis=1), np.ones(n), rtol=1e-13)
    expected_rank = dist @ np.arange(n)
    pi = norm.cdf((s[:, None] - s[None, :]) / (sigma * math.sqrt(2)))   # pi[i, j] = P(S_i > S_j)
    np.fill_diagonal(pi, 0.0)
    close(expected_rank, pi.sum(axis=0), rtol=1e-12)
    draws = rng.normal(s, sigma, size=(100_000, n))
    ranks = (draws[:, :, None] < draws[:, None, :]).sum(axis=2)          # how many beat j
    mc = ranks.mean(axis=0)
    se = ranks.std(axis=0) / math.sqrt(draws.shape[0])
    assert np.all(np.abs(mc - pi.sum(axis=0)) < 5 * se + 1e-12), (mc, pi.sum(axis=0), se)
    # Reference and kernel agree on the distributions, also truncated.
    close(dist, ref_softrank.soft_rank_distributions(s, [0, n], sigma=sigma), rtol=1e-13, atol=1e-16)
    close(soft_rank_distributions(s, [0, n], sigma=sigma, depth=3), dist[:, :3], rtol=0, atol=0)


def test_rank_distributions_of_a_batch_are_padded(rng):
    s, _, off = make_batch(rng, n_queries=6, max_docs=7)
    d = soft_rank_distributions(s, off, sigma=0.4)
    assert d.shape == (len(s), int(np.diff(off).max()))
    sizes = np.diff(off)
    for q in range(len(sizes)):
        block = d[off[q]:off[q + 1]]
        assert np.all(block[:, sizes[q]:] == 0.0)
        close(block.sum(axis=1), np.ones(sizes[q]), rtol=1e-13)
    close(d, ref_softrank.soft_rank_distributions(s, off, sigma=0.4), rtol=1e-13, atol=1e-16)


# ----------------------------------------------------------------------------- validation


@pytest.mark.parametrize("kwargs, exc, pattern", [
    (dict(sigma=0.0), ValueError, r"sigma must be finite and > 0; got sigma=0\.0"),
    (dict(sigma=-1.0), ValueError, r"sigma=-1\.0"),
    (dict(sigma=float("nan")), ValueError, r"sigma=nan"),
    (dict(sigma=1e-320), ValueError, r"sigma=1e-320"),
    (dict(sigma="1"), TypeError, r"sigma must be a real number"),
    (dict(sigma=True), TypeError, r"sigma must be a real number"),
    (dict(sigma=1.0, k=0), ValueError, r"k must be None or an int >= 1; got k=0"),
    (dict(sigma=1.0, k=[1, 2]), TypeError, r"k must be None or an int >= 1; got list"),
    (dict(sigma=1.0, k=2.5), TypeError, r"k must be None or an int"),
    (dict(sigma=1.0, max_docs=0), ValueError, r"max_docs=0"),
    (dict(sigma=1.0, n_threads=0), ValueError, r"n_threads must not be 0"),
    (dict(sigma=1.0, convention="no-such-preset"), (KeyError, ValueError), r"no-such-preset"),
])
def test_validation_errors_name_argument_and_value(kwargs, exc, pattern):
    s, y, off = np.array([0.5, 0.1, 0.3]), np.array([1, 0, 2]), np.array([0, 3])
    with pytest.raises(exc, match=pattern):
        fastndcg.soft_ndcg_grad(s, y, off, **kwargs)


def test_validation_of_arrays():
    y, off = np.array([1, 0, 2]), np.array([0, 3])
    with pytest.raises(ValueError, match=r"scores must be finite; got scores\[1\]=nan \(query 0, row 1"):
        fastndcg.soft_ndcg([0.5, np.nan, 0.3], y, off, sigma=1.0)
    with pytest.raises(ValueError, match=r"labels must be non-negative integers.*labels\[2\]=-1"):
        fastndcg.soft_ndcg([0.5, 0.1, 0.3], [1, 0, -1], off, sigma=1.0)
    with pytest.raises(ValueError, match=r"labels must be non-negative integers.*labels\[0\]=1\.5"):
        fastndcg.soft_ndcg([0.5, 0.1, 0.3], [1.5, 0, 1], off, sigma=1.0)
    with pytest.raises(ValueError, match=r"offsets must end at the number of documents \(3\); got offsets\[-1\]=4"):
        fastndcg.soft_ndcg([0.5, 0.1, 0.3], y, [0, 4], sigma=1.0)
    with pytest.raises(ValueError, match=r"labels must have the same length as scores \(3\); got length 2"):
        fastndcg.soft_ndcg([0.5, 0.1, 0.3], [1, 0], off, sigma=1.0)
    with pytest.raises(ValueError, match=r"scores must be 1-D"):
        fastndcg.soft_ndcg([[0.5, 0.1, 0.3]], y, off, sigma=1.0)
    with pytest.raises(ValueError, match=r"depth must be None or an int >= 1; got depth=0"):
        soft_rank_distributions([0.5], [0, 1], sigma=1.0, depth=0)
    with pytest.raises(ValueError, match=r"sigma=0\.0"):
        ref.soft_ndcg([0.5, 0.1, 0.3], y, off, sigma=0.0)
    with pytest.raises(ValueError, match=r"min_hessian must be finite and >= 0; got min_hessian=-1\.0"):
        sr.SoftNDCGObjective(min_hessian=-1.0)
    with pytest.raises(ValueError, match=r"weights must have one entry per row \(3\) or per query \(1\); got length 2"):
        sr.SoftNDCGObjective().grad_hess([0.5, 0.1, 0.3], y, off, weights=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"preds must be finite; got preds\[0\]=inf"):
        sr.SoftNDCGObjective().grad_hess([np.inf, 0.1, 0.3], y, off)


def test_scratch_guard_suggests_a_cap(monkeypatch):
    monkeypatch.setattr(sr, "MAX_SCRATCH_BYTES", 10_000)   # full: 23 kB, k=2: 4 kB
    s = np.linspace(0, 1, 50)
    y = np.ones(50, dtype=np.int64)
    with pytest.raises(MemoryError, match="max_docs="):
        fastndcg.soft_ndcg_grad(s, y, [0, 50], sigma=1.0)
    fastndcg.soft_ndcg_grad(s, y, [0, 50], sigma=1.0, k=2)     # the cut bounds the scratch


# ----------------------------------------------------------------------------- objectives


def test_objective_is_minus_gradient_with_floored_weighted_hessian(rng):
    s, y, off = make_batch(rng, n_queries=10, max_docs=10)
    obj = sr.SoftNDCGObjective(sigma=0.5, k=5, min_hessian=1e-3)
    g, h = obj.grad_hess(s, y, off)
    _, grad = fastndcg.soft_ndcg_grad(s, y, off, sigma=0.5, k=5)
    np.testing.assert_array_equal(g, -grad)
    _, _, hess = ref_softrank.soft_ndcg_grad_hess(s, y, off, sigma=0.5, k=5)
    close(h, np.maximum(hess, 1e-3), rtol=1e-10)
    assert np.all(h >= 1e-3)
    w_rows = rng.random(len(s))
    gw, hw = obj.grad_hess(s, y, off, weights=w_rows)
    np.testing.assert_array_equal(gw, g * w_rows)
    np.testing.assert_array_equal(hw, h * w_rows)
    w_q = rng.random(len(off) - 1)
    gq, _ = obj.grad_hess(s, y, off, weights=w_q)
    np.testing.assert_array_equal(gq, g * np.repeat(w_q, np.diff(off)))
    # empty="error" does not stop training: such queries just get gradient 0.
    obj_err = sr.SoftNDCGObjective(sigma=0.5, convention=Convention(empty="error"))
    y0 = y.copy()
    y0[off[0]:off[1]] = 0
    g0, _ = obj_err.grad_hess(s, y0, off)
    assert np.all(g0[off[0]:off[1]] == 0.0)
