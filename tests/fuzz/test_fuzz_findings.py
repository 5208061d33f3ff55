"""Regression tests for the bugs the differential fuzz tier found
(tests/fuzz/test_fuzz_differential.py); each failed before its fix."""
import math
import warnings

import numpy as np
import pytest

import fastndcg
from fastndcg import Convention, reference
from fastndcg.measures._softrank import SoftNDCGObjective
from conftest import require
import fastndcg.reference

pytestmark = [pytest.mark.fuzz]


def test_gain_mapping_without_the_lower_labels():
    # {1: 5.0} leaves label 0 out of the table; no label 0 is present, so
    # nothing is outside the table. Before: IndexError from the label check.
    conv = Convention(gain={1: 5.0})
    np.testing.assert_array_equal(fastndcg.ndcg([1.0, 0.0], [1, 1], [0, 2], convention=conv), [1.0])
    assert reference.ndcg([1.0, 0.0], [1, 1], [0, 2], None, conv).tolist() == [1.0]
    assert fastndcg.ndcg([], np.zeros(0, dtype=np.int64), [0], convention=Convention(gain={1: 0.0})).shape == (0,)
    # a label that does fall into the hole is still the usual error
    with pytest.raises(ValueError, match=r"labels\[1\]=0 is outside the gain table"):
        fastndcg.ndcg([1.0, 0.0], [1, 0], [0, 2], convention=conv)


def test_ideal_dcg_of_an_empty_query_under_empty_error():
    # ideal_dcg() returns the ideal DCG; empty="error" is a rule of NDCG.
    # Before: "query 1 ... has ideal DCG 0 and the convention says empty='error'".
    conv = Convention(empty="error")
    got = fastndcg.ideal_dcg([1, 0, 0], [0, 2, 3], convention=conv)
    np.testing.assert_array_equal(got, reference.ideal_dcg([1, 0, 0], [0, 2, 3], None, conv))
    np.testing.assert_array_equal(got, [1.0, 0.0])
    with pytest.raises(ValueError, match="query 1 .*empty='error'"):
        fastndcg.ndcg([1.0, 0.0, 0.0], [1, 0, 0], [0, 2, 3], convention=conv)


@pytest.mark.parametrize("k", [2**62, 2**63 - 1, 2**70])
def test_huge_k_is_still_a_cutoff_for_short_zero(k):
    # n = 2 < k: short="zero" scores the query 0, as for any k > n.
    # Before: k >= 2**62 became the internal "whole list" marker, i.e. k=None,
    # and the query scored 1.
    conv = Convention(short="zero")
    assert reference.ndcg([1.0, 0.0], [1, 0], [0, 2], k, conv).tolist() == [0.0]
    assert fastndcg.ndcg([1.0, 0.0], [1, 0], [0, 2], k, convention=conv).tolist() == [0.0]
    assert fastndcg.ndcg([1.0, 0.0], [1, 0], [0, 2], [k, None], convention=conv).tolist() == [[0.0, 1.0]]
    # without the short rule it is the whole list
    assert fastndcg.ndcg([1.0, 0.0], [1, 0], [0, 2], k).tolist() == [1.0]


def test_delta_ndcg_pairs_of_an_empty_query_list():
    # [] is a float64 array to numpy; it selects no query.
    # Before: TypeError "queries must be integer query ids; got dtype float64".
    from fastndcg import delta_ndcg_pairs

    got = delta_ndcg_pairs([1.0, 0.0], [1, 0], [0, 2], queries=[])
    assert all(len(a) == 0 for a in got)
    with pytest.raises(TypeError, match="integer query ids"):
        delta_ndcg_pairs([1.0, 0.0], [1, 0], [0, 2], queries=[0.5])


def test_lightgbm_mode_linear_gain_needs_integer_labels():
    # LightGBM looks gains up by integer label. Before: label 1.5 silently had
    # gain 1 (the kernel's table index) while the reference used 1.5; label
    # 1e12 tried to allocate a 7 TiB table (MemoryError).
    import fastndcg.reference as ref_lm
    from fastndcg import lambda_gradients

    conv = Convention(gain="linear")
    for bad, shown in ((1.5, r"1\.5"), (1e12, r"1000000000000\.0")):
        with pytest.raises(ValueError, match=rf"integers <= 2\*\*24 in mode='lightgbm'.*labels\[1\]={shown} \(query 0"):
            lambda_gradients(np.zeros(2), np.array([0.0, bad]), [0, 2], mode="lightgbm", convention=conv)
        with pytest.raises(ValueError, match="LightGBM"):
            ref_lm.lambda_gradients(np.zeros(2), np.array([0.0, bad]), [0, 2], mode="lightgbm", convention=conv)
    g, _ = lambda_gradients(np.zeros(2), np.array([0.0, 2.0]), [0, 2], mode="lightgbm", convention=conv)
    rg, _ = ref_lm.lambda_gradients(np.zeros(2), np.array([0.0, 2.0]), [0, 2], mode="lightgbm", convention=conv)
    np.testing.assert_array_equal(g, rg)


# ----------------------------------------------------------------------------- float32 weights

def test_weights_that_overflow_float32_are_an_error():
    # weight_precision="float32" (and the exact LambdaMART modes) round the
    # weights to float32: 1e39 became inf. Before: a NaN mean, NaN or zero
    # gradients, no error.
    import fastndcg.reference as ref_lm
    from fastndcg import lambda_gradients

    s, y, off, w = [1.0, 0.0, 1.0, 0.0], [1, 0, 0, 1], [0, 2, 4], [1e39, 1.0]
    conv = Convention(weight_precision="float32")
    with pytest.raises(ValueError, match=r"weights must stay finite when rounded to float32.*weights\[0\]=1e\+39"):
        fastndcg.mean_ndcg(s, y, off, convention=conv, weights=w)
    with pytest.raises(ValueError, match="float32"):
        reference.mean_ndcg(s, y, off, None, conv, w)
    assert fastndcg.mean_ndcg(s, y, off, weights=w) == pytest.approx((1e39 * 1.0 + 1.0 / math.log2(3)) / (1e39 + 1))
    for mode, kw in (("lightgbm", dict(query_weights=w)), ("lightgbm", dict(sample_weights=[1.0, 1.0, 1e39, 1.0])),
                     ("xgboost", dict(query_weights=w))):
        with pytest.raises(ValueError, match=r"weights must stay finite when rounded to float32 \(mode="):
            lambda_gradients(np.array(s), y, off, mode=mode, **kw)
        with pytest.raises(ValueError, match="float32"):
            ref_lm.lambda_gradients(np.array(s), y, off, mode=mode, **kw)
    # XGBoost's n / sum(w) factor is applied as a float32 too
    with pytest.raises(ValueError, match="overflows float32 in mode='xgboost'"):
        lambda_gradients(np.array(s), y, off, mode="xgboost", query_weights=[1e-45, 0.0])


# ----------------------------------------------------------------------------- sums beyond DBL_MAX

def test_dcg_sums_that_overflow_are_an_error():
    # Finite gains times discounts whose sum exceeds DBL_MAX: labels 1023
    # (the largest exponential label), a gain table entry 1e308, linear labels
    # 1e308, a discount array of 1e308. Before: NDCG NaN (inf / inf), ideal_dcg
    # and dcg inf, no error.
    cases = [
        (dict(), [1023, 1023, 1023]),
        (dict(gain=(0.0, 1e308)), [1, 1, 1]),
        (dict(gain="linear"), [1e308, 1e308, 1e308]),
        (dict(discount=(1e308, 1e308, 1e308)), [1, 1, 1]),
    ]
    s, off = [3.0, 2.0, 1.0], [0, 3]
    for fields, y in cases:
        conv = Convention(**fields)
        for call in (lambda: fastndcg.ndcg(s, y, off, convention=conv),
                     lambda: fastndcg.mean_ndcg(s, y, off, convention=conv),
                     lambda: fastndcg.ideal_dcg(y, off, convention=conv),
                     lambda: fastndcg.NDCGScorer(y, off, convention=conv),
                     lambda: fastndcg.dcg(s, y, off, convention=conv)):
            with pytest.raises(ValueError, match=r"DCG of query 0 \(rows 0:3\) overflows float64 .*scale them down"):
                call()
        with pytest.raises(ValueError, match="overflows"):
            reference.ndcg(s, y, off, None, conv)
    # two such documents still fit: 1.46e308
    assert fastndcg.ndcg([2.0, 1.0], [1023, 1023], [0, 2])[0] == 1.0
    # an external ideal DCG far below the DCG: NDCG itself beyond DBL_MAX
    with pytest.raises(ValueError, match=r"NDCG of query 0 .*overflows"):
        fastndcg.ndcg([1.0], [1], [0, 1], ideal_dcg=[1e-310])


def test_weighted_sums_that_overflow_are_an_error():
    # Two queries of weight 1e308: sum w = inf. Before: NaN (inf / inf), no error.
    s, y, off = [1.0, 0.0, 1.0, 0.0], [1, 0, 0, 1], [0, 2, 4]
    for conv in (Convention(), Convention(aggregation="ratio")):
        with pytest.raises(ValueError, match="sums over queries overflow float64"):
            fastndcg.mean_ndcg(s, y, off, convention=conv, weights=[1e308, 1e308])
        with pytest.raises(ValueError, match="overflow"):
            reference.mean_ndcg(s, y, off, None, conv, [1e308, 1e308])
        scorer = fastndcg.NDCGScorer(y, off, convention=conv, weights=[1e308, 1e308])
        _, num, den = scorer.summands(s)
        with pytest.raises(ValueError, match="sums over queries overflow float64"):
            scorer.finish(num.sum(axis=0), den.sum(axis=0))
    # scaled down, the same weights give the plain mean
    assert fastndcg.mean_ndcg(s, y, off, weights=[1e307, 1e307]) == pytest.approx((1 + 1 / math.log2(3)) / 2)


def test_lambdamart_overflow_is_an_error():
    # sigma**2 overflows in the hessian (inf * 0 = NaN), LightGBM's table with
    # a huge sigma, and an ideal DCG beyond DBL_MAX (its inverse became 0:
    # silently zero gradients). Before: NaN/inf gradients or zeros, no error.
    import fastndcg.reference as ref_lm
    from fastndcg import LambdaMART, delta_ndcg_pairs, lambda_gradients

    s, y, off = np.array([1.0, -1.0, 0.0]), [1, 0, 2], [0, 3]
    with pytest.raises(ValueError, match=r"hess\[0\] overflows .*query 0.*sigma=1e\+308"):
        lambda_gradients(s, y, off, sigma=1e308)
    with pytest.raises(ValueError, match="overflows"):
        ref_lm.lambda_gradients(s, y, off, sigma=1e308)
    with pytest.raises(ValueError, match=r"grad\[0\] overflows .*sigma=1e\+300"):
        lambda_gradients(s, y, off, sigma=1e300, mode="lightgbm")
    huge = Convention(gain=(0.0, 1e308, 1e308))
    for call in (lambda: lambda_gradients(s, [1, 1, 2], off, convention=huge),
                 lambda: LambdaMART([1, 1, 2], off, convention=huge),
                 lambda: lambda_gradients(s, [1, 1, 2], off, convention=huge, mode="lightgbm"),
                 lambda: delta_ndcg_pairs(s, [1, 1, 2], off, convention=huge)):
        with pytest.raises(ValueError, match=r"ideal DCG of query 0 \(rows 0:3\) overflows"):
            call()
    with pytest.raises(ValueError, match="overflows"):
        ref_lm.lambda_gradients(s, [1, 1, 2], off, convention=huge)
    # a large but representable sigma is fine
    g, h = lambda_gradients(s, y, off, sigma=1e100)
    assert np.isfinite(g).all() and np.isfinite(h).all()


def test_lambdamart_default_mode_with_a_subnormal_constant_equals_reference():
    # A gain of 1e308 makes 1 / IDCG about 1e-308, and sigma^2 / IDCG (sigma = 0.001) a
    # subnormal of about 31 bits: the pairs' terms were 4e-11 off the reference until
    # 1 / IDCG went with |dG| first for such queries (found by the differential tier).
    import fastndcg.reference as ref_lm
    from fastndcg import Convention, lambda_gradients

    s, y, off = np.zeros(14), np.zeros(14), np.array([0, 0, 14])
    y[13] = 1e308
    options = dict(convention=Convention(gain="linear"), normalize=False, score_normalization=False,
                   sigma=0.001)
    for weights in (None, np.array([1.0, 1e300])):
        got = lambda_gradients(s, y, off, query_weights=weights, **options)
        want = ref_lm.lambda_gradients(s, y, off, query_weights=weights, **options)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_soft_ndcg_overflow_is_an_error():
    # An ideal DCG beyond DBL_MAX (before: NaN value, zero gradient) and a
    # gradient beyond float32 for float32 scores (tiny sigma: psi ~ 1/sigma;
    # before: inf in the float32 gradient).
    from fastndcg.reference import _softrank as ref_soft
    from fastndcg import soft_ndcg_grad

    with pytest.raises(ValueError, match=r"ideal DCG of query 0 .*overflows"):
        soft_ndcg_grad([3.0, 2.0, 1.0], [1e308] * 3, [0, 3], sigma=1.0, convention=Convention(gain="linear"))
    s32 = np.zeros(3, dtype=np.float32)
    with pytest.raises(ValueError, match=r"grad\[\d\] overflows .*sigma=1e-300"):
        soft_ndcg_grad(s32, [1, 0, 0], [0, 3], sigma=1e-300)
    with pytest.raises(ValueError, match="overflows"):
        fastndcg.reference.soft_ndcg_grad(s32, [1, 0, 0], [0, 3], sigma=1e-300)
    v, g = soft_ndcg_grad(s32.astype(np.float64), [1, 0, 0], [0, 3], sigma=1e-300)   # fits a double
    assert np.isfinite(g).all() and g[0] > 1e299


# ----------------------------------------------------------------------------- the reference

def test_reference_lambdamart_applies_empty_error_and_validates_every_label():
    # The spec now says what the kernels do: empty="error" raises for a query
    # with ideal DCG 0 (default mode), and every label is checked, also in
    # queries too short to have pairs. Before: zero gradients, no error.
    import fastndcg.reference as ref_lm
    from fastndcg import lambda_gradients

    conv = Convention(empty="error")
    for fn in (ref_lm.lambda_gradients, lambda_gradients):
        with pytest.raises(ValueError, match="query 0 .*ideal DCG 0"):
            fn(np.zeros(3), [0, 0, 1], [0, 2, 3], convention=conv)
        with pytest.raises(ValueError, match="label"):
            fn(np.zeros(2), [1, 1.5], [0, 1, 2])
    with pytest.raises(ValueError, match="query 0 .*ideal DCG 0"):
        ref_lm.delta_ndcg_pairs(np.zeros(3), [0, 0, 1], [0, 2, 3], convention=conv, queries=[1])
    # short="zero" exempts queries shorter than the truncation, as in the kernel
    ref_lm.lambda_gradients(np.zeros(3), [0, 0, 1], [0, 2, 3], convention=conv.replace(short="zero"),
                            truncation=3)


def test_reference_rankdcg_keeps_large_integers_exact():
    # 2**53 and 2**53 + 1 are distinct references (the kernel dense-codes them);
    # the reference converted them to float64, where they are equal, and so
    # called the query degenerate. Before: reference 1.0 (empty="one"), kernel 0.0.
    from fastndcg.reference import _rankdcg as ref_rank
    from fastndcg import rankdcg

    refv = np.array([2**53, 2**53 + 1], dtype=np.int64)
    conv = Convention(empty="one")
    # tied predictions take the worst case: the lower reference first -> 0
    assert ref_rank.rankdcg(refv, [0.0, 0.0], [0, 2], conv).tolist() == [0.0]
    assert rankdcg(refv, [0.0, 0.0], [0, 2], convention=conv).tolist() == [0.0]
    assert ref_rank.rankdcg(refv, [0.0, 1.0], [0, 2], conv).tolist() == [1.0]


def test_reference_pair_probability_with_the_largest_sigma():
    # sigma = DBL_MAX: 2 sigma overflowed in the reference, so every pair had
    # pi = 1/2 exactly; the kernel (and the exact value) differ from 1/2 by
    # Phi'(0) * 1e300 / (sigma sqrt 2) = 1.57e-9 for scores 1e300 apart.
    from fastndcg.reference import _softrank as ref_soft
    from fastndcg.measures import soft_rank_distributions

    big = float(np.finfo(np.float64).max)
    pi = ref_soft.pair_probability(1e300, 0.0, big)
    assert pi - 0.5 == pytest.approx(1e300 / big / math.sqrt(2.0) / math.sqrt(2.0 * math.pi), rel=1e-6)
    s = [0.0, 1e300]
    np.testing.assert_allclose(soft_rank_distributions(s, [0, 2], sigma=big),
                               ref_soft.soft_rank_distributions(s, [0, 2], sigma=big), rtol=1e-12)


def test_rankdcg_stays_in_the_unit_interval():
    # The predicted order is equivalent to the worst one (positions 2..8 all
    # have dense rank 3, so their order does not matter), but s sums its terms
    # in another order than s_min: (s - s_min) was -5.9e-16 in the kernel and
    # the reference (and the original code). Documented range: [0, 1].
    import fastndcg.reference as ref_rank
    from fastndcg import rankdcg

    refv = [0, 0, 0, 0, 0, 0, 0, 1, 2]
    pred = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert rankdcg(refv, pred, [0, 9]).tolist() == [0.0]
    assert ref_rank.rankdcg(refv, pred, [0, 9]).tolist() == [0.0]


def test_xgboost_mode_uses_float32_labels():
    # XGBoost stores labels as float32, so a float64 label 1.9715031 has the
    # gain float32(1.9715031) there (the reference's model). Before: the kernel
    # used the double, and 4 of 10 gradients differed in the last float32 bit.
    import fastndcg.reference as ref_lm
    from fastndcg import lambda_gradients

    y = np.zeros(10)
    y[9] = 1.9715031
    kw = dict(mode="xgboost", convention=Convention(gain="linear"), normalize=False, score_normalization=False)
    g, h = lambda_gradients(np.zeros(10), y, [0, 10], **kw)
    rg, rh = ref_lm.lambda_gradients(np.zeros(10), y, [0, 10], **kw)
    assert g.tobytes() == rg.tobytes() and h.tobytes() == rh.tobytes()
    g32, _ = lambda_gradients(np.zeros(10), y.astype(np.float32), [0, 10], **kw)
    assert g32.tobytes() == g.tobytes()
    with pytest.raises(ValueError, match=r"labels must stay finite when rounded to float32.*labels\[1\]=1e\+39"):
        lambda_gradients(np.zeros(2), [0.0, 1e39], [0, 2], **kw)


def test_xgboost_softndcg_objective_weights_are_per_group_with_empty_groups():
    # Groups [1, 0, 2] and group weights [1, 5, 2]: 3 weights for 3 rows, which
    # the objective took as per-row (row 1 got the empty group's 5). Before:
    # gradient [-0, 0.5206, -0.2082]; XGBoost weighs both rows of group 2 by 2.
    xgb = require("xgboost")
    from fastndcg.integrations import XGBoostObjective

    dm = xgb.DMatrix(np.zeros((3, 1)), label=[1, 0, 2])
    dm.set_group([1, 0, 2])
    dm.set_weight(np.array([1.0, 5.0, 2.0], dtype=np.float32))
    g, h = XGBoostObjective("softndcg", sigma=1.0)(np.zeros(3, dtype=np.float32), dm)
    want_g, want_h = SoftNDCGObjective(sigma=1.0).grad_hess(np.zeros(3, dtype=np.float32), [1, 0, 2], [0, 1, 1, 3],
                                                            weights=[1.0, 2.0, 2.0])
    np.testing.assert_array_equal(g, want_g)
    np.testing.assert_array_equal(h, want_h)
    assert g[1] == -g[2] != 0


def test_dcg_does_not_need_the_discount_of_a_full_ideal():
    # Found by the fuzz tier: with ideal="full", a discount array long enough for
    # the DCG's cutoff but not for the whole list made dcg() raise, although DCG
    # never computes the ideal (the reference gave the value). ndcg() still
    # raises, naming the discount.
    conv = Convention(discount=(1.0,), ideal="full", default_k=1)
    s, y, off = np.zeros(6), np.array([4, 3, 2, 1, 1, 0]), np.array([0, 6])
    assert fastndcg.dcg(s, y, off, convention=conv).tolist() == reference.dcg(s, y, off, None, conv).tolist() == [15.0]
    with pytest.raises(ValueError, match="discount: the array has 1 entries but ranks up to 6"):
        fastndcg.ndcg(s, y, off, convention=conv)
    assert fastndcg.ndcg(s, y, off, convention=conv, ideal_dcg=[30.0]).tolist() == [0.5]


def test_soft_ndcg_hessian_of_tied_zero_gain_documents_at_tiny_sigma():
    # Found by the fuzz tier (deep profile): sigma=1e-300 and tied scores make the
    # pair density's square overflow; for documents whose |B| is 0 the kernel
    # computed |B| * (psi * psi / both) = 0 * inf = NaN (an overflow error) where
    # the reference, left to right, gives 0. The kernel now sums in the
    # reference's order.
    s = np.array([0., 0., 0., 0., 0., 0., 0., 0., 1., 0.])
    y = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 0])
    off = np.array([0, 4, 10])
    from fastndcg.reference import _softrank as ref_soft
    _, g_ref, h_ref = ref_soft.soft_ndcg_grad_hess(s, y, off, sigma=1e-300)
    g, h = SoftNDCGObjective(sigma=1e-300, min_hessian=0.0).grad_hess(s, y, off)
    np.testing.assert_array_equal(-g, g_ref)
    np.testing.assert_array_equal(h, h_ref)


def test_labels_past_a_gain_table_do_not_size_the_table():
    # Found by the fuzz tier (deep profile): under unknown_label="zero" a label of
    # 2**40 past a gain table made LambdaMART and SoftNDCG allocate a table of
    # 2**40 + 1 gains (8 TiB: MemoryError). One slot of gain 0 now stands for all
    # such labels.
    import fastndcg.reference as ref_lm
    from fastndcg import lambda_gradients
    conv = Convention(gain=(0.0, 1.0), unknown_label="zero")
    s = np.array([0.3, 0.1, 0.2, 0.0])
    y = np.array([1 << 40, 1, 0, 7])
    off = np.array([0, 4])
    g, h = lambda_gradients(s, y, off, convention=conv)
    g_ref, h_ref = ref_lm.lambda_gradients(s, y, off, convention=conv)
    np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(h, h_ref, rtol=1e-12, atol=1e-15)
    from fastndcg import soft_ndcg
    from fastndcg.reference import _softrank as ref_soft
    np.testing.assert_allclose(soft_ndcg(s, y, off, sigma=0.5, convention=conv),
                               fastndcg.reference.soft_ndcg(s, y, off, sigma=0.5, convention=conv), rtol=1e-12)


def test_a_short_discount_array_is_an_error_for_the_reference_too():
    # Found by the fuzz tier (deep profile): a discount array shorter than the
    # ranks a call sums was an error in the kernels but not in the reference when
    # the gains made the missing ranks irrelevant (all-zero labels: the reference
    # returned 0). One rule now, in both: the array covers every rank summed.
    conv = Convention(discount=(1.0,))
    s, y, off = np.zeros(3), np.zeros(3, dtype=np.int64), np.array([0, 3])
    for call in (lambda m: m.ndcg(s, y, off, None, conv), lambda m: m.dcg(s, y, off, None, conv)):
        with pytest.raises(ValueError, match="discount: the array has 1 entries but ranks up to 3"):
            call(reference)
    with pytest.raises(ValueError, match="discount: the array has 1 entries but ranks up to 3"):
        fastndcg.ndcg(s, y, off, convention=conv)
    import fastndcg.reference as ref_lm
    from fastndcg import delta_ndcg_pairs
    for call in (lambda: ref_lm.delta_ndcg_pairs(s, y, off, convention=conv),
                 lambda: delta_ndcg_pairs(s, y, off, convention=conv)):
        with pytest.raises(ValueError, match="discount: the array has 1 entries but ranks up to 3"):
            call()
    assert reference.dcg(s, y, off, 1, conv).tolist() == fastndcg.dcg(s, y, off, 1, convention=conv).tolist() == [0.0]


def test_an_external_ideal_needs_only_its_own_discount_depth():
    # Found by the fuzz tier (deep profile): with ideal="full" and the ideal from
    # ideal_labels (here: no judged documents), the kernels demanded the discount
    # of the run's whole list (9 ranks) for an ideal they never computed.
    conv = Convention(gain=(0.0,), discount=(0.0,), ideal="full")
    s, y, off = np.zeros(9), np.zeros(9, dtype=np.int64), np.array([0, 9])
    ideal = dict(ideal_labels=np.array([], dtype=np.int64), ideal_offsets=np.array([0, 0]))
    assert fastndcg.ndcg(s, y, off, 1, convention=conv, **ideal).tolist() == \
        reference.ndcg(s, y, off, 1, conv, **ideal).tolist() == [0.0]
    assert fastndcg.ndcg(s, y, off, 1, convention=conv, ideal_dcg=[2.0]).tolist() == [0.0]


def test_a_cutoff_asked_twice_takes_one_external_ideal():
    # Found by the fuzz tier (deep profile): k=[4, 4] with an external ideal_dcg
    # whose two columns differ: the kernels (one column per distinct cutoff) used
    # the first, the reference each its own (NDCG 0 against 0.43). Now an error in
    # both, naming the columns.
    s, y, off = np.zeros(5), np.array([0, 0, 0, 1, 0]), np.array([0, 5])
    ideal = np.array([[1.0, 2.0]])
    with pytest.raises(ValueError, match=r"ideal_dcg: columns 0 and 1 are for the same cutoff"):
        fastndcg.ndcg(s, y, off, [4, 4], ideal_dcg=ideal)
    with pytest.raises(ValueError, match=r"ideal_dcg: columns 0 and 1 are for the same cutoff"):
        reference.ndcg(s, y, off, [4, 4], None, ideal_dcg_values=ideal)
    same = np.array([[2.0, 2.0]])
    np.testing.assert_array_equal(fastndcg.ndcg(s, y, off, [4, 4], ideal_dcg=same),
                                  reference.ndcg(s, y, off, [4, 4], None, ideal_dcg_values=same))


def test_distinct_huge_cutoffs_keep_their_own_external_ideals():
    # Deep-profile finding: k=[2**62, 2**63 - 1] both became the kernels' largest
    # cutoff, so their two ideal_dcg columns were "for the same cutoff" and an
    # error, where the reference gives each its own (NDCG 0 and 66.88). Distinct
    # cutoffs now stay distinct however large; equal ones still share one ideal.
    labels = np.array([4, 3, 2, 1, 1, 0, 0, 0, 0, 4, 3, 4, 2, 3, 4, 3, 3, 2, 2, 4, 1, 4,
                       3, 0, 1, 4, 2, 0, 3, 3, 4, 0, 0, 4, 0, 2, 0, 1, 2, 2, 2])
    scores, offsets = np.zeros(labels.size), np.array([0, labels.size])
    conv = Convention(gain="exponential", empty="zero")
    ideal = np.array([[0.0, 1.0]])
    for k in ([2**62, 2**63 - 1], [2**63 - 1, 2**62], [2**61, 2**62, 2**64]):
        cols = np.array([[float(c + 1) for c in range(len(k))]]) if len(k) == 3 else ideal
        got = fastndcg.ndcg(scores, labels, offsets, k, convention=conv, ideal_dcg=cols)
        want = reference.ndcg(scores, labels, offsets, k, conv, ideal_dcg_values=cols)
        np.testing.assert_allclose(got, want, rtol=1e-13)
        assert len(set(np.ravel(got).tolist())) == len(k)
    with pytest.raises(ValueError, match=r"ideal_dcg: columns 0 and 1 are for the same cutoff"):
        fastndcg.ndcg(scores, labels, offsets, [2**63, 2**63], convention=conv, ideal_dcg=ideal)


def test_soft_ndcg_of_a_query_without_ideal_does_not_need_its_soft_dcg():
    # Deep-profile finding in the spec: a query whose ideal DCG is 0 (its one
    # relevant document, label DBL_MAX, sits at the ideal's discount 0) is
    # scored by the empty rule with zero gradients; the spec still checked its
    # unused SoftDCG (DBL_MAX * 1.0000000000000002 = inf) and raised, where the
    # kernel, which never computes it, gives 0.
    conv = Convention(gain="linear", discount=(0.0, 1.5, 1.5), empty="zero")
    scores = np.zeros(9)
    labels = np.array([0.0] * 8 + [np.finfo(np.float64).max])
    offsets = [0, 3, 6, 9]
    for fn in (fastndcg.soft_ndcg_grad, reference.soft_ndcg_grad):
        values, grad = fn(scores, labels, offsets, sigma=1.0, convention=conv)
        np.testing.assert_array_equal(values, 0.0)
        np.testing.assert_array_equal(grad, 0.0)


def test_xgboost_mode_underflow_is_scaled_by_the_weight_norm():
    # Deep-profile finding in the oracle: with group weights (0, 1e-45, 0.5, 0)
    # XGBoost's g * w underflows to float32 subnormals (half a subnormal rounds
    # to 0 for one document, to 1 for the sum of two) and is then scaled by
    # n / sum(w) = 8, so a query's gradients sum to -8 subnormals, not to within
    # 2 per document as the property assumed; the kernel equals the spec bit for bit.
    scores = np.array([1e30, 0.0, 1e30, 1e30, 1e30] + [1e30] * 8)
    labels = np.array([0, 1, 0, 0, 0] + [0] * 8)
    offsets = np.array([0, 0, 3, 5, 13])
    kw = dict(mode="xgboost", convention=Convention(gain="exponential", empty="zero"), normalize=False,
              score_normalization=False, query_weights=np.array([0.0, 1e-45, 0.5, 0.0]))
    g, h = fastndcg.lambda_gradients(scores, labels, offsets, **kw)
    rg, rh = reference.lambda_gradients(scores, labels, offsets, **kw)
    assert g.tobytes() == rg.tobytes() and h.tobytes() == rh.tobytes()
    sub = float(np.finfo(np.float32).smallest_subnormal)
    assert g[:3].tolist() == [0.0, -8 * sub, 0.0]


def test_subnormal_gains_are_outside_the_unit_interval_promise():
    # Deep-profile finding: gains (0, 5e-324) with ties="average" on three tied
    # documents: the mean gain 2/3 of a subnormal rounds to 1 subnormal, so the
    # DCG is 3 subnormals against an ideal of 2: NDCG 1.5 in kernel and spec
    # alike. The promise NDCG <= 1 (Convention.above_one, docs/testing.md) is
    # for gains that are 0 or normal numbers; the same query with the gains
    # scaled to normal numbers is below 1.
    conv = Convention(gain=(0.0, 5e-324), discount="letor", ties="average", empty="zero")
    scores, labels, offsets = np.zeros(3), np.array([0, 1, 1]), np.array([0, 3])
    assert fastndcg.ndcg(scores, labels, offsets, convention=conv).tolist() == [1.5]
    assert reference.ndcg(scores, labels, offsets, None, conv).tolist() == [1.5]
    normal = conv.replace(gain=(0.0, 1.0))
    assert fastndcg.ndcg(scores, labels, offsets, convention=normal)[0] <= 1.0


def test_subnormal_ideal_dcg_is_a_clear_error_without_a_warning():
    # Seen in the deep profile's log: an ideal DCG of 1e-320 (a subnormal linear
    # gain) has no finite inverse; the output check names the query and gives the
    # hint, but 1/IDCG also emitted "RuntimeWarning: overflow encountered in divide".
    scores, labels, offsets = np.array([0.0, 1.0, 2.0]), np.array([1e-320, 0.0, 0.0]), np.array([0, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"grad\[0\] overflows .*query 0.*inverse overflows"):
            fastndcg.lambda_gradients(scores, labels, offsets, mode="default",
                                      convention=Convention(gain="linear"))
