"""LambdaMART kernels: equal to the pure-Python reference, invariants, derivatives, validation."""
import math

import numpy as np
import pytest

import fastndcg
from fastndcg import Convention
from fastndcg.reference import _lambdamart_query as ref_query
from fastndcg import LambdaMART, delta_ndcg_matrix, delta_ndcg_pairs, lambda_gradients
from conftest import make_batch, bits, assert_bitwise, assert_gradients_match
import fastndcg.reference

MODES = ["default", "lightgbm", "xgboost"]

DEFAULT_CONVENTIONS = [
    Convention(),
    Convention(gain="linear", discount="reciprocal"),
    Convention(ties="worst", ideal="full"),
    Convention(ties="best", score_precision="float32", empty="one"),
    Convention(ties="key", short="zero"),
    Convention(ties="key_desc", gain=(0.0, 1.0, 3.0), unknown_label="zero", discount="letor"),
    Convention(discount="jk", discount_base=3.0),          # Jarvelin-Kekalainen, log base 3
    Convention(gain="linear", discount="jk", discount_base=10.0, short="zero"),   # Sakai: b = 10
    Convention(gain=(0.0, 2.5, 2.5, 7.0, 1.0)),       # not monotone, with equal gains
]

OPTIONS = [
    dict(),
    dict(truncation=3, sigma=0.7),
    dict(truncation=None, normalize=False),
    dict(truncation=5, score_normalization=False, sigma=2.0),
    dict(normalize=False, score_normalization=False),
]


def batch(rng, dtype=np.float64, continuous=True, **kw):
    """make_batch (ties, empty, single-document and all-zero queries), with half
    of the scores made continuous so that score distances vary."""
    s, y, off = make_batch(rng, n_queries=kw.pop("n_queries", 12), max_docs=kw.pop("max_docs", 30),
                           n_score_values=kw.pop("n_score_values", 5), **kw)
    if continuous:
        noisy = rng.random(len(s)) < 0.5
        s = np.where(noisy, s + rng.normal(0, 0.7, size=len(s)), s)
    return s.astype(dtype), y, off


def for_mode(mode, options):
    kw = dict(options)
    if mode == "xgboost":
        kw.pop("sigma", None)
    return kw


# ----------------------------------------------------------------------------- kernel == reference


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("mode", MODES)
def test_exact_modes_and_default_equal_reference(rng, mode, options, dtype):
    kw = for_mode(mode, options)
    for trial in range(3):
        s, y, off = batch(rng, dtype, continuous=trial > 0)
        g, h = lambda_gradients(s, y, off, mode=mode, **kw)
        rg, rh = fastndcg.reference.lambda_gradients(s, y, off, mode=mode, **kw)
        if mode == "default":
            assert g.dtype == dtype and h.dtype == dtype
            tol = dict(rtol=1e-12, atol=1e-15) if dtype == np.float64 else dict(rtol=2e-6, atol=1e-7)
            np.testing.assert_allclose(g, rg, **tol)
            np.testing.assert_allclose(h, rh, **tol)
        else:
            assert g.dtype == np.float32
            assert_bitwise(g, rg)
            assert_bitwise(h, rh)


@pytest.mark.parametrize("conv", DEFAULT_CONVENTIONS, ids=lambda c: c.describe()[:50])
def test_default_mode_under_conventions_equals_reference(rng, conv):
    for options in OPTIONS[:4]:
        s, y, off = batch(rng, n_labels=6 if conv.gain_is_table and len(conv.gain) > 3 else 5)
        if conv.gain_is_table and conv.unknown_label == "error":
            y = np.minimum(y, len(conv.gain) - 1)
        key = rng.integers(0, 3, size=len(s)) if conv.uses_tie_key else None
        g, h = lambda_gradients(s, y, off, convention=conv, tie_key=key, **options)
        rg, rh = fastndcg.reference.lambda_gradients(s, y, off, convention=conv, tie_key=key, **options)
        np.testing.assert_allclose(g, rg, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(h, rh, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("mode", MODES)
def test_weights_equal_reference(rng, mode):
    s, y, off = batch(rng)
    nq = len(off) - 1
    qw = rng.uniform(0.2, 3.0, size=nq)
    sw = None if mode == "xgboost" else rng.uniform(0.2, 3.0, size=len(s))
    g, h = lambda_gradients(s, y, off, mode=mode, query_weights=qw, sample_weights=sw)
    rg, rh = fastndcg.reference.lambda_gradients(s, y, off, mode=mode, query_weights=qw, sample_weights=sw)
    assert_gradients_match(mode, (g, h), (rg, rh))


def test_lightgbm_mode_custom_label_gain_and_linear_gain(rng):
    for gain in [(0.0, 1.0, 2.5, 6.0, 20.0), (0.0, 5.0, 1.0, 3.0, 0.5), "linear"]:
        conv = Convention(gain=gain)
        s, y, off = batch(rng)
        g, h = lambda_gradients(s, y, off, mode="lightgbm", convention=conv, sigma=1.3)
        rg, rh = fastndcg.reference.lambda_gradients(s, y, off, mode="lightgbm", convention=conv, sigma=1.3)
        assert_bitwise(g, rg)
        assert_bitwise(h, rh)


@pytest.mark.parametrize("mode", MODES)
def test_every_pair_row_count_and_truncation_equals_reference(rng, mode):
    # The kernels visit every rank after a pair row and keep rows in flight (LightGBM
    # mode: three): queries of 1 to 9 documents at truncations 1 to 4 and the whole
    # list cover a pipeline of 0, 1, 2, 3 and more rows, tied and distinct scores.
    sizes = np.tile(np.arange(1, 10), 4)
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    y = rng.integers(0, 4, size=int(off[-1]))
    for s in (rng.normal(size=int(off[-1])), np.round(rng.normal(size=int(off[-1])))):
        s = s.astype(np.float32) if mode == "xgboost" else s
        for truncation in (1, 2, 3, 4, None):
            g, h = lambda_gradients(s, y, off, mode=mode, truncation=truncation)
            rg, rh = fastndcg.reference.lambda_gradients(s, y, off, mode=mode, truncation=truncation)
            assert_gradients_match(mode, (g, h), (rg, rh))


@pytest.fixture
def split_every_query():
    """The default mode's rows split every query by gain (rows of the lowest gain visit
    the other gains' ranks only), whatever it saves; the default threshold afterwards."""
    import fastndcg.measures._lambdamart_checks as lm
    lm._lambdamart.split_threshold(0)
    yield lm._lambdamart
    lm._lambdamart.split_threshold(-2)


def test_default_mode_split_by_gain_equals_reference(rng, split_every_query):
    # Ties, one-document queries, custom and linear gains (the lowest gain need not be 0),
    # scores spread far enough that rows move the exponentials' pivot (their copies in
    # the split arrays follow), truncations 1-4 and the whole list.
    sizes = np.concatenate([np.tile(np.arange(1, 12), 3), [40, 75, 130]])
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(off[-1])
    for conv in (Convention(), Convention(gain="linear"), Convention(gain=(2.0, 3.0, 7.0, 2.0))):
        y = rng.integers(0, 4, size=n)
        for s in (rng.normal(size=n), np.round(rng.normal(size=n)), rng.normal(size=n) * 30.0):
            for truncation in (1, 2, 4, None):
                for sigma in (1.0, 2.5):
                    g, h = lambda_gradients(s, y, off, truncation=truncation, sigma=sigma, convention=conv)
                    rg, rh = fastndcg.reference.lambda_gradients(s, y, off, truncation=truncation, sigma=sigma,
                                                                 convention=conv)
                    assert_gradients_match("default", (g, h), (rg, rh))


def test_default_mode_split_is_taken_and_changes_only_rounding(rng, split_every_query):
    # The forced split takes every query (another association of the sums: not the
    # same bits as without it, the same values to rounding), so the test above runs it.
    s, y, off = make_batch(rng, n_queries=30, max_docs=60)
    forced = lambda_gradients(s, y, off, truncation=None)
    split_every_query.split_threshold(-2)
    split_every_query.split_threshold(10**9)     # never split
    plain = lambda_gradients(s, y, off, truncation=None)
    split_every_query.split_threshold(0)
    assert any(not np.array_equal(a, b) for a, b in zip(forced, plain))
    for a, b in zip(forced, plain):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_lightgbm_mode_equal_gains_of_different_labels(rng):
    # Different labels with the same gain are a pair with dZ = 0 (LightGBM pairs by label):
    # its terms are +-0, like the terms of a same-label rank the kernel visits and skips
    # by value; the sums come out as LightGBM's, and no output is -0.
    conv = Convention(gain=(0.0, 1.0, 1.0, 3.0, 3.0))
    for normalize in (True, False):
        s, y, off = batch(rng, n_queries=40)
        g, h = lambda_gradients(s, y, off, mode="lightgbm", convention=conv, normalize=normalize)
        rg, rh = fastndcg.reference.lambda_gradients(s, y, off, mode="lightgbm", convention=conv,
                                                     normalize=normalize)
        assert_bitwise(g, rg)
        assert_bitwise(h, rh)
        assert not np.any(np.signbit(h)) and not np.any((g == 0) & np.signbit(g))


@pytest.mark.parametrize("mode", ["default", "lightgbm"])
def test_a_subnormal_ideal_over_equal_labels_gives_zero(mode):
    # 1 / IDCG overflows to inf: a rank with the row's own label has dZ = 0 * inf = NaN
    # before the kernel drops it, so it must be dropped by selection, not by a product.
    gain = (0.0, 1e-310, 3e-310)
    off = np.array([0, 4, 8], dtype=np.int64)
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    s = np.array([0.3, -1.0, 2.0, 0.5, 1.0, 2.0, 3.0, 4.0])
    g, h = lambda_gradients(s, y, off, mode=mode, convention=Convention(gain=gain))
    assert_bitwise(g, np.zeros(8, dtype=g.dtype))
    assert_bitwise(h, np.zeros(8, dtype=h.dtype))


@pytest.mark.parametrize("mode", ["default", "lightgbm"])
def test_an_overflowing_sigma_squared_over_equal_labels_gives_zero(mode):
    # sigma^2 = inf: a rank with the row's own label has a hessian term inf * 0 = NaN
    # unless the kernel drops it by selection (the reference, like the libraries,
    # never forms a pair of equal labels). Found by the fuzz tier.
    off = np.array([0, 2, 5], dtype=np.int64)
    y = np.array([1, 1, 2, 2, 2])
    s = np.array([0.0, 0.0, 0.5, -1.0, 3.0])
    g, h = lambda_gradients(s, y, off, mode=mode, sigma=1e300, normalize=False, score_normalization=False)
    assert_bitwise(g, np.zeros(5, dtype=g.dtype))
    assert_bitwise(h, np.zeros(5, dtype=h.dtype))


def test_lightgbm_ideal_is_by_label_order(rng):
    s, y, off = batch(rng, n_queries=30)
    # Monotone table: the engine's cached ideal (NDCGScorer) is LightGBM's to the bit.
    lgb = LambdaMART(y, off, mode="lightgbm")
    eng = fastndcg.NDCGScorer(y, off, k=30, convention="lightgbm").ideal_dcg
    assert_bitwise(lgb.ideal_dcg, eng)
    # Non-monotone table: LightGBM walks labels from the top label down, not gains.
    conv = Convention(gain=(0.0, 5.0, 1.0, 3.0, 0.5))
    lgb = LambdaMART(y, off, mode="lightgbm", convention=conv, truncation=4)
    expect = [ref_query.ideal_dcg(y[a:b], 4, conv, mode="lightgbm") for a, b in zip(off[:-1], off[1:])]
    assert_bitwise(lgb.ideal_dcg, np.array(expect))
    by_gain = fastndcg.NDCGScorer(y, off, k=4, convention=conv).ideal_dcg
    assert not np.array_equal(lgb.ideal_dcg, by_gain)


# ----------------------------------------------------------------------------- negative controls


def _lightgbm_double_accumulation(scores, labels, offsets, sigma=1.0):
    """LightGBM mode with per-document sums in double, cast at the end (a near miss)."""
    conv = fastndcg.get_preset("lightgbm")
    out_g = np.zeros(len(scores), dtype=np.float32)
    out_h = np.zeros_like(out_g)
    for a, b in zip(offsets[:-1], offsets[1:]):
        n = b - a
        if n < 2:
            continue
        s, y = [float(x) for x in scores[a:b]], [float(x) for x in labels[a:b]]
        inv = ref_query.inverse_or_zero(ref_query.ideal_dcg(y, 30, conv, mode="lightgbm"))
        order = sorted(range(n), key=lambda i: (-s[i], i))
        g, h = [0.0] * n, [0.0] * n
        total, all_eq = 0.0, s[order[0]] == s[order[-1]]
        for i in range(min(n - 1, 30)):
            for j in range(i + 1, n):
                if y[order[i]] == y[order[j]]:
                    continue
                hr, lr = (i, j) if y[order[i]] > y[order[j]] else (j, i)
                hi, lo = order[hr], order[lr]
                ds = s[hi] - s[lo]
                dz = (ref_query.gain(y[hi], conv) - ref_query.gain(y[lo], conv)) * abs(ref_query.discount(hr, conv) - ref_query.discount(lr, conv)) * inv
                if not all_eq:
                    dz /= float(np.float32(0.01)) + abs(ds)
                p = ref_query.lightgbm_sigmoid(ds, sigma)
                ph = p * (1 - p) * sigma * sigma * dz
                p = p * -sigma * dz
                g[lo] -= p; h[lo] += ph; g[hi] += p; h[hi] += ph
                total -= 2 * p
        nf = math.log2(1 + total) / total if total > 0 else 1.0
        out_g[a:b] = np.float32(np.array(g) * nf)
        out_h[a:b] = np.float32(np.array(h) * nf)
    return out_g, out_h


def test_negative_control_double_accumulation_is_detected(rng):
    # The bitwise comparison must be able to fail: the same math with double
    # accumulation differs from LightGBM's float32 order in the last bits.
    s, y, off = batch(rng, n_queries=40, max_docs=40)
    g, h = lambda_gradients(s, y, off, mode="lightgbm")
    dg, dh = _lightgbm_double_accumulation(s, y, off)
    np.testing.assert_allclose(g, dg, rtol=1e-5, atol=1e-7)        # same math ...
    assert np.count_nonzero(bits(g) != bits(dg)) + np.count_nonzero(bits(h) != bits(dh)) > 0  # ... not the same bits


def test_negative_control_exact_logistic_differs_from_table(rng):
    s, y, off = batch(rng, n_queries=40, max_docs=40)
    g, _ = lambda_gradients(s, y, off, mode="lightgbm")
    d, _ = lambda_gradients(s, y, off, mode="default")
    np.testing.assert_allclose(g, d, rtol=1e-3, atol=1e-5)
    assert np.count_nonzero(bits(g) != bits(d.astype(np.float32))) > 0


def _default_mode_in_decimal(s, y, sigma, truncation):
    """Default-mode hessian of one query (log2 discount, exponential gain, no score or
    list normalisation) in 40-digit decimal arithmetic, the logistic from the exact
    score difference: the oracle for the per-document exponentials of the kernel."""
    import decimal
    ctx = decimal.Context(prec=40)
    D = decimal.Decimal
    n = len(s)
    order = sorted(range(n), key=lambda i: (-s[i], i))
    gains = [D(2) ** int(y[i]) - 1 for i in order]
    disc = [1 / (ctx.ln(D(r + 2)) / ctx.ln(D(2))) for r in range(n)]
    k = n if truncation is None else min(truncation, n)
    ideal = sum(g * d for g, d in zip(sorted(gains, reverse=True)[:k], disc))
    sc = [D(float(s[i])) for i in order]
    h = [D(0)] * n
    for i in range(min(n - 1, n if truncation is None else truncation)):
        for j in range(i + 1, n):
            if gains[i] == gains[j]:
                continue
            hi, lo = (i, j) if gains[i] > gains[j] else (j, i)
            dz = abs(gains[i] - gains[j]) * abs(disc[i] - disc[j]) / ideal
            e = ctx.exp(D(sigma) * (sc[hi] - sc[lo]))
            w = D(sigma) ** 2 * dz * e / (1 + e) ** 2
            h[i] += w
            h[j] += w
    out = np.zeros(n)
    for r, i in enumerate(order):
        out[i] = float(h[r])
    return out


@pytest.mark.parametrize("sigma", [0.05, 1.0, 7.0])
def test_default_mode_logistic_is_exact_far_from_the_top(sigma):
    # Scores spread over sigma * range ~ 1,000: the rows move the pivot of the
    # per-document exponentials several times (every 44.4 / sigma), the lower
    # documents' exponentials are tiny. The hessian sums positive terms only,
    # so it shows the logistic's own error.
    rng = np.random.default_rng(7)
    n = 60
    s = np.sort(rng.uniform(0.0, 1000.0 / sigma, n))[::-1].copy()
    s[5] = s[6]                                     # a tie
    y = rng.integers(0, 5, n).astype(np.float64)
    off = np.array([0, n])
    for truncation in (None, 30):
        _, h = lambda_gradients(s, y, off, mode="default", sigma=sigma, truncation=truncation,
                                normalize=False, score_normalization=False)
        want = _default_mode_in_decimal(s, y, sigma, truncation)
        ok = want > 1e-300
        np.testing.assert_allclose(h[ok], want[ok], rtol=1e-12)
        assert np.all(h[~ok] <= 1e-300)
        rg, rh = fastndcg.reference.lambda_gradients(s, y, off, mode="default", sigma=sigma, truncation=truncation,
                                      normalize=False, score_normalization=False)
        np.testing.assert_allclose(h, rh, rtol=1e-13, atol=0)


# ----------------------------------------------------------------------------- threads, dtypes, memory


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.usefixtures("force_threads")
def test_bit_identical_for_any_thread_count(rng, mode, dtype):
    s, y, off = batch(rng, dtype, n_queries=300, max_docs=80)
    one = lambda_gradients(s, y, off, mode=mode, n_threads=1)
    for n_threads in (2, 3, None):
        many = lambda_gradients(s, y, off, mode=mode, n_threads=n_threads)
        assert_bitwise(one[0], many[0])
        assert_bitwise(one[1], many[1])


@pytest.mark.parametrize("mode", MODES)
def test_read_only_inputs(rng, mode):
    s, y, off = batch(rng)
    expect = lambda_gradients(s, y, off, mode=mode)
    for arr in (s, y, off):
        arr.setflags(write=False)
    qw = np.ones(len(off) - 1)
    qw.setflags(write=False)
    got = lambda_gradients(s, y, off, mode=mode)
    assert_bitwise(expect[0], got[0])
    model = LambdaMART(y, off, mode=mode, query_weights=qw)
    assert_bitwise(model.gradients(s)[1], expect[1])


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64, np.float32, np.float64])
def test_label_dtypes_agree(rng, label_dtype):
    s, y, off = batch(rng)
    base = lambda_gradients(s, y, off, mode="lightgbm")
    got = lambda_gradients(s, y.astype(label_dtype), off, mode="lightgbm")
    assert_bitwise(base[0], got[0])


def test_output_buffers_are_used_and_checked(rng):
    s, y, off = batch(rng)
    model = LambdaMART(y, off, mode="lightgbm")
    g_out = np.empty(len(s), dtype=np.float32)
    h_out = np.empty(len(s), dtype=np.float32)
    g, h = model.gradients(s, grad_out=g_out, hess_out=h_out)
    assert g is g_out and h is h_out
    assert_bitwise(g, lambda_gradients(s, y, off, mode="lightgbm")[0])
    with pytest.raises(ValueError, match="grad_out must have dtype float32"):
        model.gradients(s, grad_out=np.empty(len(s)))
    with pytest.raises(ValueError, match=r"hess_out must have shape \(%d,\)" % len(s)):
        model.gradients(s, hess_out=np.empty(3, dtype=np.float32))
    with pytest.raises(ValueError, match="hess_out must not share memory with grad_out"):
        model.gradients(s, grad_out=g_out, hess_out=g_out)
    s64 = s.astype(np.float64)
    with pytest.raises(ValueError, match="grad_out must not share memory with scores"):
        lambda_gradients(s64, y, off, grad_out=s64)


def test_empty_and_tiny_batches():
    for mode in MODES:
        g, h = lambda_gradients(np.empty(0), np.empty(0, dtype=np.int64), [0], mode=mode)
        assert g.shape == h.shape == (0,)
        g, h = lambda_gradients([1.0, 2.0], [1, 0], [0, 0, 1, 1, 2], mode=mode)
        assert np.all(g == 0) and np.all(h == 0)


# ----------------------------------------------------------------------------- invariants


@pytest.mark.parametrize("mode", MODES)
def test_gradients_sum_to_zero_per_query(rng, mode):
    s, y, off = batch(rng, n_queries=40)
    for kw in (dict(normalize=False), dict()):
        g, h = lambda_gradients(s, y, off, mode=mode, **kw)
        assert np.all(h >= 0)
        for a, b in zip(off[:-1], off[1:]):
            part = g[a:b].astype(np.float64)
            scale = np.abs(part).sum()
            assert abs(part.sum()) <= 1e-6 * max(scale, 1e-30) + (0 if mode == "default" else 1e-7 * scale)


@pytest.mark.parametrize("mode", MODES)
def test_all_equal_labels_give_zero(rng, mode):
    s, _, off = batch(rng, n_queries=10)
    for value in (0, 2):
        y = np.full(len(s), value)
        g, h = lambda_gradients(s, y, off, mode=mode)
        assert np.all(g == 0) and np.all(h == 0)


@pytest.mark.parametrize("mode", MODES)
def test_constant_shift_changes_nothing(rng, mode):
    # Scores on a coarse binary grid: s + c is exact, so every difference is too.
    s, y, off = batch(rng, continuous=False, n_queries=30)
    base = lambda_gradients(s, y, off, mode=mode)
    shift = np.repeat(rng.integers(-8, 8, size=len(off) - 1) * 0.25, np.diff(off))
    moved = lambda_gradients(s + shift, y, off, mode=mode)
    assert_bitwise(base[0], moved[0])
    assert_bitwise(base[1], moved[1])


@pytest.mark.parametrize("mode", MODES)
def test_batch_equals_per_query_concatenation(rng, mode):
    s, y, off = batch(rng, n_queries=25)
    sw = None if mode == "xgboost" else rng.uniform(0.5, 2, size=len(s))
    g, h = lambda_gradients(s, y, off, mode=mode, sample_weights=sw)
    parts_g, parts_h = [], []
    for a, b in zip(off[:-1], off[1:]):
        pg, ph = lambda_gradients(s[a:b], y[a:b], [0, b - a], mode=mode,
                                  sample_weights=None if sw is None else sw[a:b])
        parts_g.append(pg)
        parts_h.append(ph)
    assert_bitwise(g, np.concatenate(parts_g))
    assert_bitwise(h, np.concatenate(parts_h))


def test_permuting_a_tie_free_query_permutes_the_outputs(rng):
    s = rng.normal(size=25)
    y = rng.integers(0, 4, size=25)
    perm = rng.permutation(25)
    for mode in MODES:
        g, h = lambda_gradients(s, y, [0, 25], mode=mode)
        pg, ph = lambda_gradients(s[perm], y[perm], [0, 25], mode=mode)
        assert_bitwise(g[perm], pg)
        assert_bitwise(h[perm], ph)


def test_ties_follow_input_order():
    # Two tied documents: the first in input order takes the better rank.
    g, _ = lambda_gradients([1.0, 1.0, 1.0], [0, 1, 0], [0, 3], normalize=False,
                            score_normalization=False)
    r, _ = lambda_gradients([1.0, 1.0, 1.0], [1, 0, 0], [0, 3], normalize=False,
                            score_normalization=False)
    # label-1 document at rank 1 (pairs with ranks 0 and 2) vs at rank 0
    d = [1 / math.log2(r + 2) for r in range(3)]
    assert g[1] == pytest.approx(-0.5 * ((d[0] - d[1]) + (d[1] - d[2])) / 1.0)
    assert r[0] == pytest.approx(-0.5 * ((d[0] - d[1]) + (d[0] - d[2])) / 1.0)


def test_short_zero_convention_zeroes_short_queries(rng):
    s, y, off = batch(rng, n_queries=30)
    conv = Convention(short="zero")
    g, h = lambda_gradients(s, y, off, convention=conv, truncation=10)
    full, _ = lambda_gradients(s, y, off, truncation=10)
    sizes = np.diff(off)
    for q, (a, b) in enumerate(zip(off[:-1], off[1:])):
        if sizes[q] < 10:
            assert np.all(g[a:b] == 0) and np.all(h[a:b] == 0)
        else:
            np.testing.assert_array_equal(g[a:b], full[a:b])


# ----------------------------------------------------------------------------- derivatives


def _pair_loss(scores, pairs, weights, sigma):
    ds = scores[pairs.high] - scores[pairs.low]
    return float(np.sum(weights * np.logaddexp(0.0, -sigma * ds)))


@pytest.mark.parametrize("sigma", [1.0, 0.6])
@pytest.mark.parametrize("norms", [(False, False), (True, True), (False, True)])
def test_finite_differences_of_the_pairwise_logistic_loss(rng, sigma, norms):
    """grad and diagonal hess are the derivatives of
    sum_pairs w_hl log(1 + exp(-sigma (s_h - s_l))), with the weights
    w_hl = |dNDCG_hl| (/ (0.01 + |ds|)) (* list factor) held fixed."""
    normalize, score_norm = norms
    s = rng.normal(size=40)
    y = rng.integers(0, 4, size=40)
    off = np.array([0, 13, 13, 14, 40])
    model = LambdaMART(y, off, truncation=8, sigma=sigma, normalize=normalize,
                       score_normalization=score_norm)
    g, h = model.gradients(s)
    pairs = model.delta_ndcg_pairs(s)
    w = pairs.delta.copy()
    ds = s[pairs.high] - s[pairs.low]
    if score_norm:
        w = w / (0.01 + np.abs(ds))
    if normalize:
        rho = 1 / (1 + np.exp(sigma * ds))
        for q in np.unique(pairs.query):
            m = pairs.query == q
            total = np.sum(2 * sigma * w[m] * rho[m])
            w[m] *= math.log2(1 + total) / total
    eps = 1e-3
    for i in range(len(s)):
        touch = (pairs.high == i) | (pairs.low == i)        # the other pairs are constant in s_i
        sub = pairs._replace(high=pairs.high[touch], low=pairs.low[touch])

        def loss(x):
            t = s.copy()
            t[i] = x
            return _pair_loss(t, sub, w[touch], sigma)

        f = [loss(s[i] + j * eps) for j in (-2, -1, 0, 1, 2)]
        num_g = (f[0] - 8 * f[1] + 8 * f[3] - f[4]) / (12 * eps)
        num_h = (-f[0] + 16 * f[1] - 30 * f[2] + 16 * f[3] - f[4]) / (12 * eps**2)
        assert g[i] == pytest.approx(num_g, rel=1e-7, abs=1e-10)
        assert h[i] == pytest.approx(num_h, rel=1e-6, abs=1e-9)


# ----------------------------------------------------------------------------- research API


@pytest.mark.parametrize("conv", DEFAULT_CONVENTIONS[:6], ids=lambda c: c.describe()[:50])
@pytest.mark.parametrize("truncation", [None, 4])
def test_delta_pairs_equal_reference(rng, conv, truncation):
    s, y, off = batch(rng)
    key = rng.integers(0, 3, size=len(s)) if conv.uses_tie_key else None
    for cut in (False, True):
        got = delta_ndcg_pairs(s, y, off, convention=conv, truncation=truncation, cut_discount=cut,
                               tie_key=key)
        want = fastndcg.reference.delta_ndcg_pairs(s, y, off, convention=conv, truncation=truncation,
                                    cut_discount=cut, tie_key=key)
        for a, b in zip(got[:5], want[:5]):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(got.delta, want[5], rtol=1e-14, atol=0)
    sel = [3, 0, 3]
    some = delta_ndcg_pairs(s, y, off, queries=sel, convention=conv, truncation=truncation, tie_key=key)
    want = fastndcg.reference.delta_ndcg_pairs(s, y, off, queries=sel, convention=conv, truncation=truncation, tie_key=key)
    np.testing.assert_array_equal(some.query, want[0])
    np.testing.assert_array_equal(some.high, want[1])


def test_cut_discount_delta_is_the_exact_swap_change_of_ndcg_at_k(rng):
    s = rng.normal(size=30)
    y = rng.integers(0, 4, size=30)
    off = np.array([0, 12, 30])
    k = 5
    pairs = delta_ndcg_pairs(s, y, off, truncation=k, cut_discount=True)
    base = fastndcg.ndcg(s, y, off, k)
    for q, hi, lo, d in zip(pairs.query, pairs.high, pairs.low, pairs.delta):
        t = s.copy()
        t[hi], t[lo] = s[lo], s[hi]
        assert abs(fastndcg.ndcg(t, y, off, k)[q] - base[q]) == pytest.approx(d, rel=1e-12, abs=1e-15)


def test_gradients_are_sums_over_the_pairs(rng):
    s, y, off = batch(rng, n_queries=20)
    g, h = lambda_gradients(s, y, off, truncation=6, normalize=False, score_normalization=False)
    p = delta_ndcg_pairs(s, y, off, truncation=6)
    rho = 1 / (1 + np.exp(s[p.high] - s[p.low]))
    lam = -p.delta * rho
    eg = np.zeros(len(s))
    np.add.at(eg, p.high, lam)
    np.add.at(eg, p.low, -lam)
    eh = np.zeros(len(s))
    np.add.at(eh, p.high, p.delta * rho * (1 - rho))
    np.add.at(eh, p.low, p.delta * rho * (1 - rho))
    np.testing.assert_allclose(g, eg, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(h, eh, rtol=1e-12, atol=1e-15)


def test_delta_matrix(rng):
    m = delta_ndcg_matrix([3.0, 2.0, 1.0], [0, 1, 0])
    d = [1 / math.log2(r + 2) for r in range(3)]
    np.testing.assert_allclose(m, [[0, 1 - d[1], 0], [1 - d[1], 0, d[1] - d[2]], [0, d[1] - d[2], 0]])
    s, y, off = batch(rng)
    q = int(np.argmax(np.diff(off)))
    full = delta_ndcg_matrix(s, y, off, query=q, convention="letor4")
    assert np.array_equal(full, full.T) and np.all(np.diag(full) == 0)
    a, b = off[q], off[q + 1]
    alone = delta_ndcg_matrix(s[a:b], y[a:b], convention="letor4")
    np.testing.assert_array_equal(full, alone)


# ----------------------------------------------------------------------------- caching


def test_ideal_dcg_is_cached_once(rng, monkeypatch):
    s, y, off = batch(rng)
    model = LambdaMART(y, off)
    calls = []
    import fastndcg.measures._lambdamart_model as lm_model      # where LambdaMART would call it
    monkeypatch.setattr(lm_model, "NDCGScorer", lambda *a, **k: calls.append(1))
    for _ in range(3):
        model.gradients(s)
    assert calls == []
    np.testing.assert_array_equal(model.ideal_dcg, fastndcg.ideal_dcg(y, off, 30))
    inv = model.inverse_ideal_dcg
    assert np.all((inv == 0) == (model.ideal_dcg == 0))


# ----------------------------------------------------------------------------- validation


@pytest.mark.parametrize("call, exc, match", [
    (dict(mode="catboost"), ValueError, r"mode must be one of .* got 'catboost'"),
    (dict(sigma=0.0), ValueError, "sigma must be finite and > 0; got sigma=0.0"),
    (dict(sigma=float("nan")), ValueError, "sigma must be finite and > 0; got sigma=nan"),
    (dict(mode="xgboost", sigma=2.0), ValueError, "sigma must be 1.0 in mode='xgboost'.*got 2.0"),
    (dict(truncation=0), ValueError, "truncation must be >= 1; got 0"),
    (dict(truncation="all"), ValueError, "truncation must be 'auto', None or an int >= 1; got 'all'"),
    (dict(truncation=2.5), TypeError, "truncation must be .* got 2.5"),
    (dict(normalize="yes"), TypeError, "normalize must be True or False; got 'yes'"),
    (dict(convention=Convention(ties="average")), ValueError, "ties='average' has no ranking"),
    (dict(convention=Convention(ties="key")), ValueError, "ties='key' needs a tie_key array"),
    (dict(mode="lightgbm", convention="letor4"), ValueError,
     "mode='lightgbm' reproduces the library, whose discount is 'log2'; the convention has discount='letor'"),
    (dict(mode="xgboost", convention=Convention(gain=(0.0, 1.0))), ValueError,
     "mode='xgboost' takes gain='exponential'"),
    (dict(mode="xgboost", sample_weights=np.ones(6)), ValueError, "mode='xgboost' takes per-query weights"),
    (dict(query_weights=[1.0]), ValueError, r"query_weights must have one entry per query \(2\); got length 1"),
    (dict(query_weights=[1.0, -2.0]), ValueError, r"query_weights must be finite and >= 0; got query_weights\[1\]=-2.0"),
    (dict(sample_weights=[1.0] * 5 + [np.inf]), ValueError, r"sample_weights must be finite and >= 0; got sample_weights\[5\]=inf"),
    (dict(mode="xgboost", query_weights=[0.0, 0.0]), ValueError, "query_weights must not all be 0"),
    (dict(mode="lightgbm", tie_key=np.arange(6)), ValueError, "tie_key is not used in mode='lightgbm'"),
])
def test_validation_names_argument_and_value(call, exc, match):
    s = np.array([0.5, 0.1, 0.2, 0.3, 0.9, 0.0])
    y = np.array([1, 0, 2, 0, 1, 3])
    with pytest.raises(exc, match=match):
        lambda_gradients(s, y, [0, 3, 6], **call)


def test_validation_of_arrays():
    s = np.array([0.5, 0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"scores must be finite; got scores\[1\]=nan \(query 0, row 1"):
        lambda_gradients([0.5, np.nan, 0.2, 0.3], [1, 0, 1, 0], [0, 4])
    with pytest.raises(ValueError, match=r"labels must be non-negative integers .* got labels\[2\]=1.5"):
        lambda_gradients(s, [1, 0, 1.5, 0], [0, 4])
    with pytest.raises(ValueError, match=r"offsets must end at the number of documents \(4\); got offsets\[-1\]=3"):
        lambda_gradients(s, [1, 0, 1, 0], [0, 3])
    with pytest.raises(ValueError, match=r"labels must have the same length as scores \(4\); got length 3"):
        lambda_gradients(s, [1, 0, 1], [0, 4])
    with pytest.raises(ValueError, match=r"labels\[1\]=31 is outside the gain table"):
        lambda_gradients(s, [1, 31, 1, 0], [0, 4], mode="lightgbm")
    with pytest.raises(ValueError, match=r"labels must be < 31 in mode='lightgbm'.*got labels\[1\]=31"):
        lambda_gradients(s, [1, 31, 1, 0], [0, 4], mode="lightgbm", convention=Convention())
    with pytest.raises(ValueError, match=r"labels must be <= 31 in mode='xgboost'.*got labels\[3\]=32"):
        lambda_gradients(s, [1, 3, 1, 32], [0, 4], mode="xgboost")
    with pytest.raises(ValueError, match=r"labels\[1\]=3 is outside the gain table"):
        lambda_gradients(s, [1, 3, 1, 0], [0, 4], convention=Convention(gain=(0.0, 1.0, 3.0)))
    with pytest.raises(ValueError, match="query 0 .* has ideal DCG 0 and the convention says empty='error'"):
        lambda_gradients(s, [0, 0, 0, 0], [0, 4], convention=Convention(empty="error"))
    model = LambdaMART([1, 0, 1, 0], [0, 4])
    with pytest.raises(ValueError, match=r"queries must be in \[0, 1\); got queries\[0\]=1"):
        model.delta_ndcg_pairs(s, [1])
    with pytest.raises(ValueError, match=r"scores must have the same length as labels \(4\); got length 3"):
        model.gradients(s[:3])


@pytest.mark.parametrize("mode", ["default", "lightgbm", "xgboost"])
def test_a_copied_or_unpickled_model_gives_the_same_bits(mode):
    # the kernels' set-up object (C pointers into the model's arrays) is rebuilt, not copied
    import copy
    import pickle
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 4, 60)
    offsets = np.array([0, 7, 20, 21, 45, 60])
    scores = rng.normal(size=60).astype(np.float32 if mode == "xgboost" else np.float64)
    model = LambdaMART(labels, offsets, mode=mode, query_weights=np.arange(1.0, 6.0))
    want = model.gradients(scores)
    for other in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        for a, b in zip(want, other.gradients(scores)):
            assert a.tobytes() == b.tobytes()
    if mode == "default":
        pairs = model.delta_ndcg_pairs(scores)
        assert all(np.array_equal(a, b) for a, b in zip(pairs, copy.deepcopy(model).delta_ndcg_pairs(scores)))


def test_the_gradient_kernel_checks_the_scores_in_its_own_parallel_pass(monkeypatch):
    """No pass over the scores in front of the gradient kernel: it checks them query by query
    and the caller names the first invalid one (position and query), as the NDCG path does."""
    from fastndcg.measures import _lambdamart_model

    def no_separate_pass(*args, **kwargs):
        raise AssertionError("a separate pass over the scores ran in front of the kernel")

    monkeypatch.setattr(_lambdamart_model, "check_scores", no_separate_pass)
    s, y, off = np.array([1.0, 0.5, 0.2, 0.9, np.nan, 0.1]), np.array([1, 0, 2, 1, 0, 1]), np.array([0, 3, 6])
    model = fastndcg.LambdaMART(y, off, n_threads=2)
    with pytest.raises(ValueError, match=r"scores\[4\].*nan.*query 1"):
        model.gradients(s)
    with pytest.raises(ValueError, match=r"scores\[4\].*query 1"):
        fastndcg.lambda_gradients(s, y, off, n_threads=2)
    big = np.array([1.0, 0.5, 0.2, 0.9, 1e39, 0.1])
    with pytest.raises(ValueError, match=r"float32 \(mode=.xgboost.*scores\[4\]=1e\+39 \(query 1"):
        fastndcg.lambda_gradients(big, y, off, mode="xgboost")
    g, h = model.gradients(np.nan_to_num(s))
    assert np.isfinite(g).all() and np.isfinite(h).all()
