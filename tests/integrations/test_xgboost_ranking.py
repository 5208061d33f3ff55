"""XGBoost's rank:ndcg round state (fastndcg/integrations/_xgboost_ranking.py): Unbiased
LambdaMART's ratios and the mean pair method, round after round, equal to the pure-Python
reference bit for bit. XGBoost itself is not needed; the trainings against it are in
test_xgboost.py."""
import numpy as np
import pytest

from fastndcg.reference import _lambdamart_batches as ref_batches, _lambdamart_debias as ref_debias
from fastndcg.integrations._xgboost_ranking import XGBoostRankNDCG
from fastndcg import lambda_gradients
from conftest import make_batch, bits, assert_bitwise, click_batch


XGB_CASES = [
    dict(pair_method="topk", unbiased=True),
    dict(pair_method="topk", unbiased=True, num_pair_per_sample=5, bias_norm=0.5),
    dict(pair_method="mean"),
    dict(pair_method="mean", num_pair_per_sample=3, normalize=False),
    dict(pair_method="mean", unbiased=True, bias_norm=0.3, score_normalization=False),
    dict(pair_method="mean", seed_offset=0, gain="linear"),
]


@pytest.mark.parametrize("case", XGB_CASES, ids=str)
@pytest.mark.parametrize("weighted", [False, True])
def test_xgboost_state_rounds_equal_reference(rng, case, weighted):
    s, y, off, _ = click_batch(rng)
    y = y + (rng.random(len(y)) < 0.2)                   # a few graded labels too
    qw = rng.uniform(0.2, 3.0, len(off) - 1) if weighted else None
    model = XGBoostRankNDCG(y, off, query_weights=qw, iteration=2, **case)
    k = len(model.t_plus)
    tp, tm = np.ones(k), np.ones(k)
    unbiased = case.get("unbiased", False)
    for r in range(4):
        scores = (s + 0.4 * r * rng.normal(size=len(s))).astype(np.float32)
        g, h = model.gradients(scores)
        seed_round = 2 + r + case.get("seed_offset", 1)
        rg, rh, li, lj = ref_batches.xgboost_lambda_gradients(
            scores, y, off, pair_method=case["pair_method"], num_pair=case.get("num_pair_per_sample"),
            iteration=seed_round - 1, gain=case.get("gain", "exponential"),
            normalize=case.get("normalize", True), score_normalization=case.get("score_normalization", True),
            query_weights=qw, t_plus=tp if unbiased else None, t_minus=tm if unbiased else None)
        assert_bitwise(g, rg)
        assert_bitwise(h, rh)
        if unbiased:
            tp, tm = ref_debias.xgboost_position_bias_update(li, lj, off, tp, tm, case.get("bias_norm", 1.0))
            assert_bitwise(model.t_plus, tp)
            assert_bitwise(model.t_minus, tm)
    assert model.iteration == 6
    if unbiased:
        assert np.any(model.t_plus != 1.0) and model.t_plus[0] == 1.0


def test_unbiased_ratio_that_reaches_zero(rng):
    # The document at position 1 always has the top label, so it is never the
    # low side of a pair: M_1 = 0 and t-[1] = 0 after round 1.
    n_q, size = 40, 6
    off = np.arange(0, n_q * size + 1, size)
    y = rng.integers(0, 2, n_q * size)
    y[1::size] = 2
    s = rng.normal(size=n_q * size).astype(np.float32)
    model = XGBoostRankNDCG(y, off, unbiased=True, num_pair_per_sample=4)
    model.gradients(s)
    assert model.t_minus[1] == 0.0 and model.t_minus[0] == 1.0


@pytest.mark.parametrize("method", ["topk", "mean"])
def test_unbiased_guards_on_tiny_ratios(rng, method):
    # Ratios below 1e-16 (as a position that never was the low or high side
    # leaves them) skip the lambda division and the cost sums that divide by
    # them: XGBoost's guards, checked from a state with such ratios.
    s, y, off, _ = click_batch(rng, n_queries=40)
    s = s.astype(np.float32)
    model = XGBoostRankNDCG(y, off, unbiased=True, pair_method=method, num_pair_per_sample=6)
    k = len(model.t_plus)
    tp = rng.uniform(0.3, 1.5, k)
    tm = rng.uniform(0.3, 1.5, k)
    tp[[2, 4]] = [0.0, 1e-17]
    tm[[1, 4]] = [0.0, 5e-17]
    model._t_plus[:] = tp
    model._t_minus[:] = tm
    g, h = model.gradients(s)
    rg, rh, li, lj = ref_batches.xgboost_lambda_gradients(s, y, off, pair_method=method, num_pair=6,
                                                  t_plus=tp, t_minus=tm)
    assert_bitwise(g, rg)
    assert_bitwise(h, rh)
    tp, tm = ref_debias.xgboost_position_bias_update(li, lj, off, tp, tm, 1.0)
    assert_bitwise(model.t_plus, tp)
    assert_bitwise(model.t_minus, tm)
    assert np.all(np.isfinite(model.t_plus)) and np.all(np.isfinite(model.t_minus))


def test_mean_pairs_change_with_the_round_and_topk_does_not(rng):
    s, y, off, _ = click_batch(rng)
    s = s.astype(np.float32)
    mean = XGBoostRankNDCG(y, off, pair_method="mean")
    first = mean.gradients(s)[0].copy()
    second = mean.gradients(s)[0]
    assert not np.array_equal(first, second)           # a new seed each round
    mean.reset()
    assert_bitwise(mean.gradients(s)[0], first)       # the same seed after a reset
    topk = XGBoostRankNDCG(y, off)
    assert_bitwise(topk.gradients(s)[0], topk.gradients(s)[0])
    assert_bitwise(topk.gradients(s)[0], lambda_gradients(s, y, off, mode="xgboost")[0])
