"""Hand-checked values pin down the spec; the compiled path must give them too.

Golden values come from /work/shared/docs/conventions.md (observed outputs of
the real tools) and from hand computation.
"""
import math

import numpy as np
import pytest

import fastndcg
from fastndcg import Convention, reference

SKLEARN = Convention(gain="linear", ties="average", name="sklearn-like")

IMPLS = {
    "reference": lambda s, y, off, k, conv, **kw: reference.ndcg(s, y, off, k, conv, **kw),
    "kernel": lambda s, y, off, k, conv, **kw: fastndcg.ndcg(s, y, off, k, convention=conv, **kw),
}


@pytest.fixture(params=sorted(IMPLS))
def impl(request):
    return IMPLS[request.param]


# Query A: y = [2,1,0], s = [0.1,0.2,0.3]; query B: y = [0,2,1,0], s = [0.7,0.7,0.2,0.1].
S_AB = np.array([0.1, 0.2, 0.3, 0.7, 0.7, 0.2, 0.1])
Y_AB = np.array([2, 1, 0, 0, 2, 1, 0])
OFF_AB = np.array([0, 3, 7])
DOCNO_RANK_AB = np.array([0, 1, 2, 0, 1, 2, 3])  # d1 < d2 < ... bytewise


def test_seed_example_exponential(impl):
    grades = [3, 1, 2, 0, 2]
    off = [0, 5]
    assert impl(np.arange(5.0, 0, -1), grades, off, 5, None)[0] == pytest.approx(0.950849602851865, abs=1e-15)
    ascending = sorted(grades)
    assert impl(np.arange(5.0, 0, -1), ascending, off, 5, None)[0] == pytest.approx(0.5664478625498256, abs=1e-15)
    descending = sorted(grades, reverse=True)
    assert impl(np.arange(5.0, 0, -1), descending, off, 5, None)[0] == 1.0


@pytest.mark.parametrize("conv, expected", [
    (SKLEARN, [[0.239812466568131, 0.619906233284066], [0.619906233284066, 0.809953116642033]]),
    ("lightgbm", [[0.173765342871440, 0.586882671435720], [0.521296028614320, 0.659001804802413]]),
    ("trec_eval_cut", [[0.239812466568131, 0.619906233284066], [0.760187533431869, 0.950234416789836]]),
])
def test_golden_queries_a_b(impl, conv, expected):
    conv = fastndcg.get_preset(conv) if isinstance(conv, str) else conv
    kw = {"tie_key": DOCNO_RANK_AB} if conv.uses_tie_key else {}
    got = impl(S_AB, Y_AB, OFF_AB, [2, None], conv, **kw)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-14)


def test_golden_letor4(impl):
    conv = fastndcg.get_preset("letor4")
    got = impl(S_AB, Y_AB, OFF_AB, [2, 3, 4], conv)
    # A @2 0.25, A @3 (= n) 0.723197315179, A @4 > n -> 0; B @2 0.75, B @4 (= n) 0.907732438393.
    np.testing.assert_allclose(got[0], [0.25, 0.723197315179, 0.0], atol=1e-12)
    np.testing.assert_allclose(got[1][[0, 2]], [0.75, 0.907732438393], atol=1e-12)


def test_letor_discount_does_not_discount_rank_two(impl):
    conv = fastndcg.get_preset("letor4")
    assert impl([3.0, 2.0, 1.0], [0, 1, 0], [0, 3], 2, conv)[0] == 1.0
    # Labels >= 3 have gain 0 in LETOR 4.0: [3, 1] gives @1 = 0 and @2 = 1.
    got = impl([2.0, 1.0], [3, 1], [0, 2], [1, 2], conv)
    np.testing.assert_allclose(got[0], [0.0, 1.0])


def test_sklearn_tie_examples(impl):
    # ndcg_score([[3,2,0,1]], [[.9,.9,.1,.5]]) = 0.9612472558382994
    assert impl([.9, .9, .1, .5], [3, 2, 0, 1], [0, 4], None, SKLEARN)[0] == pytest.approx(0.9612472558382994, abs=1e-15)
    # A tie group straddling k: y=[3,0,1,2], s=[1,1,1,0], k=2 -> 0.5102404246590811
    assert impl([1., 1., 1., 0.], [3, 0, 1, 2], [0, 4], 2, SKLEARN)[0] == pytest.approx(0.5102404246590811, abs=1e-15)
    # Float labels: [[0.5,2.5,0]] with scores [1,2,3] gives 0.6490311418890103
    assert impl([1., 2., 3.], [0.5, 2.5, 0.0], [0, 3], None, SKLEARN)[0] == pytest.approx(0.6490311418890103, abs=1e-15)


def test_trec_eval_unretrieved_relevant(impl):
    # qrels {a:2, b:1, c:1}, run {a:3, x:2}: ndcg 0.6387878864795979,
    # ndcg_cut_2 0.7601875334318685, ndcg_cut_5 0.6387878864795979.
    s, y, off = [3.0, 2.0], [2, 0], [0, 2]
    ideal = dict(ideal_labels=[2, 1, 1], ideal_offsets=[0, 3])
    full = impl(s, y, off, None, fastndcg.get_preset("trec_eval"), tie_key=[0, 1], **ideal)
    cut = impl(s, y, off, [2, 5], fastndcg.get_preset("trec_eval_cut"), tie_key=[0, 1], **ideal)
    assert full[0] == pytest.approx(0.6387878864795979, abs=1e-15)
    np.testing.assert_allclose(cut[0], [0.7601875334318685, 0.6387878864795979], atol=1e-15)


def test_trec_eval_ties_docno_descending(impl):
    # qrels {d10: 0, d9: 1} with equal scores: d9 first (bytewise "d9" > "d10") -> ndcg_cut_1 = 1.
    docnos = ["d10", "d9"]
    rank = np.argsort(np.argsort(np.array(docnos, dtype=object), kind="stable"), kind="stable")
    got = impl([1.0, 1.0], [0, 1], [0, 2], 1, fastndcg.get_preset("trec_eval_cut"), tie_key=rank)
    assert got[0] == 1.0


def test_worst_and_best_bound_the_tie_average(impl):
    s = [1.0, 1.0, 1.0, 0.5]
    y = [0, 3, 1, 2]
    worst = impl(s, y, [0, 4], 3, Convention(ties="worst"))[0]
    best = impl(s, y, [0, 4], 3, Convention(ties="best"))[0]
    avg = impl(s, y, [0, 4], 3, Convention(ties="average"))[0]
    stable = impl(s, y, [0, 4], 3, Convention())[0]
    assert worst < avg < best
    assert worst <= stable <= best
    idcg = 7 + 3 / math.log2(3) + 1 / 2
    assert best == pytest.approx((7 + 1 / math.log2(3)) / idcg, abs=1e-15)      # tie as [3, 1, 0]
    assert worst == pytest.approx((1 / math.log2(3) + 7 / 2) / idcg, abs=1e-15)  # tie as [0, 1, 3]


def test_empty_rules(impl):
    s, y, off = [1.0, 2.0, 0.5, 0.1], [0, 0, 1, 0], [0, 2, 2, 4]
    assert impl(s, y, off, 2, Convention(empty="zero")).tolist() == [0.0, 0.0, 1.0]
    assert impl(s, y, off, 2, Convention(empty="one")).tolist() == [1.0, 1.0, 1.0]
    got = impl(s, y, off, 2, Convention(empty="skip"))
    assert math.isnan(got[0]) and math.isnan(got[1]) and got[2] == 1.0
    with pytest.raises(ValueError, match="query 0 .*ideal DCG 0"):
        impl(s, y, off, 2, Convention(empty="error"))


def test_short_rule_applies_before_empty(impl):
    # One query of 2 docs: @3 is short. With short="zero" it is 0 even if empty="one".
    conv = Convention(short="zero", empty="one")
    np.testing.assert_array_equal(impl([1.0, 0.0], [0, 0], [0, 2], [1, 3], conv)[0], [1.0, 0.0])
    # and a short, empty query does not raise under empty="error"
    np.testing.assert_array_equal(impl([1.0, 0.0], [0, 0], [0, 2], [3], Convention(short="zero", empty="error"))[0], [0.0])


def test_k_larger_than_n_is_clamped(impl):
    s, y = [0.1, 0.2, 0.3], [2, 1, 0]
    got = impl(s, y, [0, 3], [3, 10, None], fastndcg.get_preset("lightgbm"))[0]
    np.testing.assert_allclose(got, [0.58688267143572] * 3, atol=1e-14)


def test_reciprocal_and_user_discount(impl):
    # CatBoost Position: Base gain, 1/r discount -> 0.4666666666666666 on query A.
    got = impl([0.1, 0.2, 0.3], [2, 1, 0], [0, 3], None, Convention(gain="linear", discount="reciprocal"))[0]
    assert got == pytest.approx(0.4666666666666666, abs=1e-15)
    user = Convention(gain="linear", discount=[1.0, 0.5, 1.0 / 3.0])
    assert impl([0.1, 0.2, 0.3], [2, 1, 0], [0, 3], None, user)[0] == pytest.approx(0.4666666666666666, abs=1e-15)


def test_gain_table_unknown_label_rules():
    table = Convention(gain={0: 0.0, 1: 1.0, 2: 3.0})
    with pytest.raises(ValueError, match="outside the gain table"):
        fastndcg.ndcg([1.0, 0.0], [3, 1], [0, 2], convention=table)
    with pytest.raises(ValueError, match="outside the gain table"):
        reference.ndcg([1.0, 0.0], [3, 1], [0, 2], None, table)
    zero = table.replace(unknown_label="zero")
    assert fastndcg.ndcg([1.0, 0.0], [3, 1], [0, 2], 1, convention=zero)[0] == 0.0
    assert reference.ndcg([1.0, 0.0], [3, 1], [0, 2], 1, zero)[0] == 0.0


def test_aggregations_by_hand():
    s = np.array([0.1, 0.2, 0.3, 0.7, 0.7, 0.2, 0.1])
    per_q = fastndcg.ndcg(s, Y_AB, OFF_AB, 2)
    assert fastndcg.mean_ndcg(s, Y_AB, OFF_AB, 2) == pytest.approx(per_q.mean(), abs=1e-15)
    w = np.array([0.25, 0.75])
    assert fastndcg.mean_ndcg(s, Y_AB, OFF_AB, 2, weights=w) == pytest.approx(per_q @ w, abs=1e-15)
    d = fastndcg.dcg(s, Y_AB, OFF_AB, 2)
    i = fastndcg.ideal_dcg(Y_AB, OFF_AB, 2)
    ratio = fastndcg.mean_ndcg(s, Y_AB, OFF_AB, 2, convention=Convention(aggregation="ratio"))
    assert ratio == pytest.approx(d.sum() / i.sum(), abs=1e-15)
