"""Exactness at the edges: float32 overflow after rounding, and what k=None /
truncation=None mean under a convention with ``default_k`` (issue 12, items 2-4).

Each expected value is computed by hand in the test, so a bug shared by the
kernel and the reference cannot hide.
"""
import math

import numpy as np
import pytest

import fastndcg
from fastndcg import Convention, reference
from fastndcg._core.resolve import FLOAT32_OVERFLOW
from fastndcg import LambdaMART, delta_ndcg_pairs, lambda_gradients
from fastndcg import soft_ndcg, soft_ndcg_grad
from fastndcg.measures._softrank import SoftNDCGObjective
from conftest import require

# ----------------------------------------------------------------------------- float32 overflow

OVERFLOW = np.array([1e39, 1e39])          # finite doubles, infinite as float32


def test_float32_overflow_threshold_is_exact():
    below = np.nextafter(FLOAT32_OVERFLOW, 0.0)
    with np.errstate(over="ignore"):
        assert np.isfinite(np.float32(below))
        assert np.isinf(np.float32(FLOAT32_OVERFLOW))
    scores = np.array([below, -below, 1.0])
    # the largest magnitudes that stay finite are accepted and tie as FLT_MAX
    g, h = lambda_gradients(scores, [1, 0, 2], [0, 3], mode="xgboost")
    assert np.isfinite(g).all() and np.isfinite(h).all()
    with pytest.raises(ValueError, match=r"scores\[1\]=-3\.40282356779733\d*e\+38"):
        lambda_gradients(np.array([1.0, -FLOAT32_OVERFLOW]), [1, 0], [0, 2], mode="xgboost")


@pytest.mark.parametrize("kw", [
    dict(mode="xgboost"),
    dict(mode="default", convention=Convention(score_precision="float32")),
    dict(mode="default", convention="pytrec_eval", tie_key=[0, 1]),
], ids=["xgboost", "default-float32", "default-pytrec_eval"])
def test_lambda_gradients_reject_scores_that_overflow_float32(kw):
    # before: NaN gradients and hessians, no error (inf - inf)
    with pytest.raises(ValueError, match=r"rounded to float32.*scores\[0\]=1e\+39 \(query 0, row 0"):
        lambda_gradients(OVERFLOW, [1, 0], [0, 2], **kw)


def test_overflow_in_one_query_names_that_query():
    scores = np.array([0.5, 0.25, 1.0, -3e38, -4e38, 2.0])
    with pytest.raises(ValueError, match=r"scores\[4\]=-4e\+38 \(query 1, row 2 of rows 2:5\)"):
        lambda_gradients(scores, [1, 0, 2, 1, 0, 1], [0, 2, 5, 6], mode="xgboost")
    with pytest.raises(ValueError, match=r"scores\[4\]=-4e\+38 \(query 1, row 2 of rows 2:5\)"):
        fastndcg.ndcg(scores, [1, 0, 2, 1, 0, 1], [0, 2, 5, 6], convention="xgboost")
    # in double precision the same scores are fine
    assert np.isfinite(lambda_gradients(scores, [1, 0, 2, 1, 0, 1], [0, 2, 5, 6])[0]).all()


def test_every_float32_front_end_rejects_overflow():
    conv = Convention(score_precision="float32")
    labels, offsets = [1, 0], [0, 2]
    calls = [
        lambda: fastndcg.ndcg(OVERFLOW, labels, offsets, convention=conv),
        lambda: fastndcg.mean_ndcg(OVERFLOW, labels, offsets, convention=conv),
        lambda: fastndcg.dcg(OVERFLOW, labels, offsets, convention=conv),
        lambda: fastndcg.NDCGScorer(labels, offsets, convention=conv).mean(OVERFLOW),
        lambda: fastndcg.NDCGScorer(labels, offsets, convention=conv).summands(OVERFLOW),
        lambda: LambdaMART(labels, offsets, mode="xgboost").gradients(OVERFLOW),
        lambda: LambdaMART(labels, offsets, convention=conv).delta_ndcg_pairs(OVERFLOW),
        lambda: delta_ndcg_pairs(OVERFLOW, labels, offsets, convention=conv),
    ]
    for i, call in enumerate(calls):
        with pytest.raises(ValueError, match="rounded to float32"):
            call()
            pytest.fail(f"call {i} did not raise")


def test_float32_input_and_native_precision_are_not_affected():
    # float32 arrays cannot overflow a rounding they do not need; native
    # precision ranks the doubles as they are
    s32 = np.array([3e38, -3e38, 1.0], dtype=np.float32)
    assert fastndcg.ndcg(s32, [0, 1, 2], [0, 3], convention="xgboost").shape == (1,)
    assert fastndcg.ndcg(OVERFLOW, [1, 0], [0, 2])[0] == 1.0


def test_reference_rejects_overflow_too():
    with pytest.raises(ValueError, match="rounded to float32"):
        reference.lambda_gradients(OVERFLOW, [1, 0], [0, 2], mode="xgboost")
    with pytest.raises(ValueError, match="rounded to float32"):
        reference.ndcg(OVERFLOW, [1, 0], [0, 2], convention=Convention(score_precision="float32"))
    # a single-document query is ranked in float32 as well
    with pytest.raises(ValueError, match="rounded to float32"):
        reference.lambda_gradients(np.array([1.0, 1e39]), [1, 0], [0, 1, 2], mode="xgboost")
    with pytest.raises(ValueError, match="rounded to float32"):
        lambda_gradients(np.array([1.0, 1e39]), [1, 0], [0, 1, 2], mode="xgboost")


@pytest.mark.peers
def test_xgboost_objective_and_metric_reject_overflow():
    xgb = require("xgboost")

    from fastndcg.integrations import XGBoostNDCGMetric as NDCGMetric, XGBoostObjective as RankNDCGObjective

    dm = xgb.DMatrix(np.zeros((2, 1)), label=[1, 0])
    dm.set_group([2])
    with pytest.raises(ValueError, match="rounded to float32"):
        RankNDCGObjective()(OVERFLOW, dm)
    with pytest.raises(ValueError, match="rounded to float32"):
        NDCGMetric(k=2)(OVERFLOW, dm)


# ----------------------------------------------------------------------------- k=None, truncation=None

# One query, scores [0, 0] (stable ties: input order), labels [2, 1],
# exponential gain G = (3, 1), D(r) = 1/log2(r + 1).
D2 = 1.0 / math.log2(3.0)
IDCG_WHOLE = 3.0 + 1.0 * D2                       # both documents
IDCG_AT_1 = 3.0
DELTA_WHOLE = (3.0 - 1.0) * (1.0 - D2) / IDCG_WHOLE   # |dNDCG| of the only pair
# rho = 1 / (1 + exp(0)) = 1/2; no score normalisation (all scores equal)
G_WHOLE = 0.5 * DELTA_WHOLE                       # 0.10164621...
H_WHOLE = 0.25 * DELTA_WHOLE


def test_hand_values():
    assert G_WHOLE == pytest.approx(0.1016462, abs=1e-7)
    # the wrong value (ideal at default_k=1) the issue reports
    assert 0.5 * (3.0 - 1.0) * (1.0 - D2) / IDCG_AT_1 == pytest.approx(0.1230234, abs=1e-7)


@pytest.mark.parametrize("conv", [Convention(default_k=1), "xgboost"], ids=["default_k=1", "xgboost"])
def test_lambdamart_truncation_none_is_the_whole_list_whatever_default_k(conv):
    conv = fastndcg.get_preset(conv) if isinstance(conv, str) else conv
    # xgboost preset: default_k 32 > n, so use a longer query to see it
    if conv.default_k == 1:
        g, h = lambda_gradients(np.zeros(2), [2, 1], [0, 2], convention=conv, truncation=None,
                                normalize=False)
        assert g[0] == pytest.approx(-G_WHOLE, rel=1e-14) and g[1] == pytest.approx(G_WHOLE, rel=1e-14)
        assert h[0] == pytest.approx(H_WHOLE, rel=1e-14)
        model = LambdaMART([2, 1], [0, 2], convention=conv, truncation=None)
        assert model.ideal_dcg[0] == pytest.approx(IDCG_WHOLE, rel=1e-15)
    rng = np.random.default_rng(7)
    n = 40
    labels = rng.integers(0, 4, n)
    scores = rng.normal(size=n)
    whole = conv.replace(default_k=None)
    for fn in (lambda c: lambda_gradients(scores, labels, [0, n], convention=c, truncation=None),
               lambda c: delta_ndcg_pairs(scores, labels, [0, n], convention=c, truncation=None).delta,
               lambda c: LambdaMART(labels, [0, n], convention=c, truncation=None).ideal_dcg):
        got, want = fn(conv), fn(whole)
        for a, b in zip(np.atleast_1d(got) if not isinstance(got, tuple) else got,
                        np.atleast_1d(want) if not isinstance(want, tuple) else want):
            np.testing.assert_array_equal(a, b)
    ref_g, _ = reference.lambda_gradients(scores, labels, [0, n], convention=conv, truncation=None)
    np.testing.assert_allclose(lambda_gradients(scores, labels, [0, n], convention=conv, truncation=None)[0],
                               ref_g, rtol=1e-12, atol=1e-15)


@pytest.mark.peers
def test_lambdarank_objective_default_mode_truncation_none_under_xgboost_preset():
    lgb = require("lightgbm")

    from fastndcg.integrations import LightGBMObjective as LambdarankObjective

    rng = np.random.default_rng(3)
    n = 50
    labels = rng.integers(0, 4, n)
    scores = rng.normal(size=n)
    ds = lgb.Dataset(np.zeros((n, 1)), label=labels, group=[n], free_raw_data=False).construct()
    obj = LambdarankObjective(mode="default", convention="xgboost", truncation=None)
    g, _ = obj(scores, ds)
    want, _ = lambda_gradients(scores, labels, [0, n],
                               convention=fastndcg.get_preset("xgboost").replace(default_k=None),
                               truncation=None)
    np.testing.assert_array_equal(g, want)


def test_soft_ndcg_k_none_is_the_conventions_default_cutoff():
    conv = Convention(default_k=1)
    # sigma 1, equal scores: each document is first with probability 1/2.
    # SoftDCG@1 = (3 + 1) / 2 = 2, IDCG@1 = 3 -> 2/3 (before: 1.0873, above 1)
    got = soft_ndcg(np.zeros(2), [2, 1], [0, 2], sigma=1.0, convention=conv)
    assert got[0] == pytest.approx(2.0 / 3.0, rel=1e-14)
    np.testing.assert_allclose(reference.soft_ndcg(np.zeros(2), [2, 1], [0, 2], sigma=1.0, convention=conv),
                               got, rtol=1e-13)
    # without default_k, k=None is the whole list: SoftDCG = 2 + 2 D(2)
    whole = soft_ndcg(np.zeros(2), [2, 1], [0, 2], sigma=1.0)
    assert whole[0] == pytest.approx((2.0 + 2.0 * D2) / IDCG_WHOLE, rel=1e-14)


@pytest.mark.parametrize("preset", ["xgboost", "xgboost_minus"])
def test_k_none_equals_k_default_for_every_measure(preset):
    conv = fastndcg.get_preset(preset)
    assert conv.default_k == 32
    rng = np.random.default_rng(11)
    sizes = [0, 1, 5, 31, 32, 33, 60]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n = int(offsets[-1])
    labels = rng.integers(0, 4, n)
    scores = rng.integers(0, 6, n) / 2.0
    dk = conv.default_k
    pairs = [
        (lambda k: fastndcg.ndcg(scores, labels, offsets, k, convention=conv)),
        (lambda k: fastndcg.mean_ndcg(scores, labels, offsets, k, convention=conv)),
        (lambda k: fastndcg.ideal_dcg(labels, offsets, k, convention=conv)),
        (lambda k: fastndcg.NDCGScorer(labels, offsets, k, convention=conv).mean(scores)),
        (lambda k: soft_ndcg(scores, labels, offsets, sigma=0.5, k=k, convention=conv)),
        (lambda k: soft_ndcg_grad(scores, labels, offsets, sigma=0.5, k=k, convention=conv)[1]),
        (lambda k: SoftNDCGObjective(k=k, convention=conv).grad_hess(scores, labels, offsets)[0]),
    ]
    for i, fn in enumerate(pairs):
        np.testing.assert_array_equal(fn(None), fn(dk), err_msg=f"measure {i}")
    # and it is really a cut: the whole list differs on the 60-document query
    assert not np.array_equal(soft_ndcg(scores, labels, offsets, sigma=0.5, convention=conv),
                              soft_ndcg(scores, labels, offsets, sigma=0.5, k=60, convention=conv))


# ----------------------------------------------------------------------------- present-but-empty run topics

EMPTY_QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}, "q3": {"d": 1}}
EMPTY_RUN = {"q1": {"a": 0.5, "b": 0.9}, "q2": {}}
Q1 = 1 / np.log2(3)     # a (the relevant one) at rank 2: pytrec_eval's 0.6309


@pytest.mark.parametrize("rules", ["trec_eval", "pytrec_eval"])
def test_a_run_topic_given_as_an_empty_dict_is_an_empty_ranking(rules):
    """pytrec_eval scores a run topic given as {} (an empty ranking: 0, reported) and skips an
    absent one; fastndcg took {} for absent, so no missing= reproduced it (issue 33 item 10)."""
    measures = ["ndcg", "ndcg_cut.10", "nDCG@10", "ndcg_rel", "Rndcg", "ndcg_p", "dcg", "ndcg.1=3,2=9"]
    skip = fastndcg.evaluate(measures, EMPTY_QRELS, EMPTY_RUN, convention=rules, missing="skip")
    assert skip.query_ids == ["q1", "q2"] and skip.missing_query_ids == ["q3"]
    assert skip.values[0, :2].tolist() == [pytest.approx(Q1)] * 2 and skip.by_query["q1"]["ndcg"] == pytest.approx(Q1)
    assert skip.values[1].tolist() == [0.0] * skip.values.shape[1]
    assert skip.aggregated["ndcg_cut_10"] == pytest.approx(Q1 / 2)
    zero = fastndcg.evaluate(measures, EMPTY_QRELS, EMPTY_RUN, convention=rules, missing="zero")
    assert zero.query_ids == ["q1", "q2", "q3"] and zero.values[:2].tolist() == skip.values.tolist()
    # present is not missing: only q3 stops missing="error"
    with pytest.raises(ValueError, match=r"1 judged topic\(s\) have no results in .*'q3'"):
        fastndcg.evaluate("ndcg", EMPTY_QRELS, EMPTY_RUN, convention=rules)
    full = fastndcg.evaluate("ndcg", EMPTY_QRELS, dict(EMPTY_RUN, q3={"d": 1.0}), convention=rules)
    assert full.values[:, 0].tolist() == [pytest.approx(Q1), 0.0, 1.0] and full.missing_query_ids == []


def test_a_run_of_empty_rankings_only():
    """Every topic of the run present but empty: each scores 0 (the ideal is the qrels'), as pytrec_eval."""
    ev = fastndcg.evaluate(["ndcg", "nDCG@5"], {"q1": {"a": 1}, "q2": {"b": 0}}, {"q1": {}, "q2": {}}, missing="skip")
    assert ev.query_ids == ["q1", "q2"] and ev.values.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert fastndcg.calc_aggregate(["ndcg"], {"q1": {"a": 1}}, {"q1": {}, "q9": {}}, missing="error")["ndcg"] == 0.0
    with pytest.raises(ValueError, match="run: no rows"):
        fastndcg.evaluate("ndcg", {"q1": {"a": 1}}, {})
    # a qrels topic given as {} has no judgments: not a judged topic (trec_eval has none either)
    assert fastndcg.evaluate("ndcg", {"q1": {"a": 1}, "q2": {}}, {"q1": {"a": 1.0}}).query_ids == ["q1"]
