"""Position-debiased LambdaMART and XGBoost's mean pairs: kernels equal to the
pure-Python reference, state carried across rounds, large queries, validation."""
import numpy as np
import pytest

from fastndcg.reference import _lambdamart_batches as ref_batches, _lambdamart_debias as ref_debias
from fastndcg.io import cascade_clicks
from fastndcg.measures import PositionBiasedLambdaMART, position_ids
from fastndcg.integrations._xgboost_ranking import XGBoostRankNDCG
from fastndcg import LambdaMART, lambda_gradients
from conftest import make_batch, bits, assert_bitwise, assert_gradients_match, click_batch
import fastndcg.reference

MODES = ["default", "lightgbm", "xgboost"]


# ----------------------------------------------------------------------------- LightGBM position bias


def test_position_ids_number_positions_by_first_appearance():
    ids, values = position_ids(np.array([7, 3, 7, 1, 9, 3, 1, 1, 3, 7, 9, 20]))
    assert ids.tolist() == [0, 1, 0, 2, 3, 1, 2, 2, 1, 0, 3, 4]
    assert values.tolist() == [7, 3, 1, 9, 20]
    rids, rvalues = ref_debias.position_ids([7, 3, 7, 1, 9, 3, 1, 1, 3, 7, 9, 20])
    assert rids.tolist() == ids.tolist() and rvalues.tolist() == values.tolist()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("weighted", [False, True])
def test_position_bias_rounds_equal_reference(rng, mode, weighted):
    s, y, off, pos = click_batch(rng)
    sw = rng.uniform(0.3, 2.0, len(s)) if weighted and mode != "xgboost" else None
    kw = {} if sw is None else dict(sample_weights=sw)
    model = PositionBiasedLambdaMART(y, off, pos * 3 + 2, regularization=0.4, learning_rate=0.3,
                                     mode=mode, **kw)
    ids, _ = ref_debias.position_ids(pos * 3 + 2)
    factors = np.zeros(int(ids.max()) + 1, dtype=np.float32)
    for r in range(4):
        scores = s + 0.3 * r * rng.normal(size=len(s))
        g, h = model.gradients(scores)
        rg, rh = fastndcg.reference.lambda_gradients(scores, y, off, mode=mode, position_ids=ids, position_factors=factors,
                                      sample_weights=sw)
        assert_gradients_match(mode, (g, h), (rg, rh))
        factors = ref_debias.lightgbm_position_bias_update(g, h, ids, factors, 0.4, 0.3)
        assert_bitwise(model.position_factors, factors)
    assert model.rounds == 4 and np.count_nonzero(factors) > 0


def test_position_factors_shift_the_scores(rng):
    # The gradients of round 2 are those of the plain objective at s + b[position].
    s, y, off, pos = click_batch(rng)
    model = PositionBiasedLambdaMART(y, off, pos, regularization=0.1)
    model.gradients(s)
    b = model.position_factors
    assert np.any(b != 0)
    g, h = model.gradients(s, update=False)
    pg, ph = lambda_gradients(s + b[model.position_ids].astype(np.float64), y, off, mode="lightgbm")
    assert_bitwise(g, pg)
    assert_bitwise(h, ph)
    plain, _ = lambda_gradients(s, y, off, mode="lightgbm")
    assert not np.array_equal(g, plain)                 # the factors do change the gradients
    assert model.rounds == 1 and np.array_equal(model.position_factors, b)   # update=False keeps them
    assert model.factor_of(int(pos[0])) == float(b[model.position_ids[0]])
    model.reset()
    assert model.rounds == 0 and not np.any(model.position_factors)


def test_position_bias_update_equals_reference(rng):
    # The update alone, on many positions: its float order (lr * G1, then / (|G2| + 0.001),
    # then the float32 factor) is LightGBM's.
    from fastndcg._core import _lambdamart
    n, n_pos = 60_000, 3000
    for dtype in (np.float32, np.float64):
        g = rng.normal(0, 0.3, n).astype(dtype)
        h = rng.uniform(0, 0.5, n).astype(dtype)
        ids = rng.integers(0, n_pos, n).astype(np.int32)
        factors = rng.normal(0, 0.2, n_pos).astype(np.float32)
        for reg, lr in ((0.0, 0.1), (0.7, 0.05), (3.0, 1.0)):
            got = factors.copy()
            _lambdamart.lightgbm_position_bias_update(g, h, ids, got, reg, lr)
            assert_bitwise(got, ref_debias.lightgbm_position_bias_update(g, h, ids, factors, reg, lr))


def test_position_bias_update_order_matters(rng):
    # LightGBM sums the derivatives in row order in double: a float32 or
    # reordered sum is a near miss the bitwise tests would catch.
    s, y, off, pos = click_batch(rng, n_queries=60)
    g, h = lambda_gradients(s, y, off, mode="lightgbm")
    ids, _ = ref_debias.position_ids(pos)
    exact = ref_debias.lightgbm_position_bias_update(g, h, ids, np.full(ids.max() + 1, 0.01, np.float32), 0.5, 0.1)
    perm = rng.permutation(len(g))
    moved = ref_debias.lightgbm_position_bias_update(g[perm], h[perm], ids[perm],
                                              np.full(ids.max() + 1, 0.01, np.float32), 0.5, 0.1)
    np.testing.assert_allclose(exact, moved, rtol=1e-5)


# ----------------------------------------------------------------------------- XGBoost's mean pairs (the reference;
# XGBoostRankNDCG itself: tests/integrations/test_xgboost_ranking.py)


def test_minstd_rand_reference():
    # The C++ standard fixes it: the 10000th draw of a default-constructed
    # (seed 1) minstd_rand is 399268537.
    rng = ref_debias.MinstdRand(1)
    for _ in range(9999):
        rng()
    assert rng() == 399268537
    assert ref_debias.MinstdRand(0).x == 1 and ref_debias.MinstdRand(2147483647 + 5).x == 5
    engine = ref_debias.MinstdRand(12345)
    draws = [ref_debias.uniform_int(engine, 6) for _ in range(5000)]
    assert set(draws) == set(range(7))
    assert abs(np.mean(draws) - 3) < 0.1
    # small seeds give small first draws (x1 = 48271 seed): XGBoost's seeds are small
    assert ref_debias.uniform_int(ref_debias.MinstdRand(7), 6) == (48271 * 7 - 1) // (2147483645 // 7)


def test_mean_pairs_reference_structure():
    # Every pair crosses a label bucket; each document draws num_pair partners.
    labels = [2.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0]
    pairs = ref_debias.mean_pairs(labels, 3, seed=12345)
    assert len(pairs) == 3 * len(labels)
    assert all(labels[a] != labels[b] for a, b in pairs)
    assert sorted({a for a, _ in pairs}) == list(range(len(labels)))
    assert ref_debias.mean_pairs([1.0, 1.0], 2, seed=1) == []        # one bucket: no partner


# ----------------------------------------------------------------------------- threads, big queries


@pytest.mark.usefixtures("force_threads")
@pytest.mark.parametrize("kind", ["lightgbm-bias", "unbiased", "mean-unbiased"])
def test_stateful_gradients_identical_for_any_thread_count(rng, kind):
    s, y, off, pos = click_batch(rng, n_queries=200, max_docs=60)

    def build():
        if kind == "lightgbm-bias":
            return PositionBiasedLambdaMART(y, off, pos, regularization=0.2)
        return XGBoostRankNDCG(y, off, unbiased=True, pair_method="mean" if kind.startswith("mean") else "topk")

    runs = []
    for n_threads in (1, 2, 3):
        model = build()
        out = [model.gradients(s.astype(np.float32), n_threads=n_threads)[0].copy() for _ in range(3)]
        runs.append(out)
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert_bitwise(a, b)


@pytest.mark.parametrize("mode", MODES)
def test_large_query_equals_reference(rng, mode):
    # Beyond LightGBM's 10,000-document limit; truncation keeps the reference fast.
    n = 12_000
    s = np.where(rng.random(n) < 0.5, rng.normal(size=n), rng.integers(0, 5, n) / 4.0)
    y = rng.integers(0, 4, size=n)
    g, h = lambda_gradients(s, y, [0, n], mode=mode, truncation=3)
    rg, rh = fastndcg.reference.lambda_gradients(s, y, [0, n], mode=mode, truncation=3)
    assert_gradients_match(mode, (g, h), (rg, rh))


@pytest.mark.parametrize("scores", ["signed-zeros", "all-equal", "huge-range", "clustered"])
def test_ranking_of_large_queries_equals_reference(rng, scores):
    # Large queries are ranked by bucket sort: ties (and -0.0 == +0.0) keep the
    # input order, a range too wide to bucket falls back to the comparison sort.
    n = 300
    if scores == "signed-zeros":
        s = np.where(rng.random(n) < 0.5, -0.0, 0.0)
        s[rng.random(n) < 0.3] = 1.0
    elif scores == "all-equal":
        s = np.full(n, 2.5)
    elif scores == "huge-range":
        s = rng.normal(size=n)
        s[:3] = [1e300, -1e300, 5e307]
    else:
        s = np.concatenate([rng.normal(0, 1e-12, n - 2), [50.0, -50.0]])
    y = rng.integers(0, 3, size=n)
    for mode in ("lightgbm",) if scores == "huge-range" else ("lightgbm", "xgboost"):
        g, h = lambda_gradients(s, y, [0, n], mode=mode, truncation=4, score_normalization=False)
        rg, rh = fastndcg.reference.lambda_gradients(s, y, [0, n], mode=mode, truncation=4, score_normalization=False)
        assert_bitwise(g, rg)
        assert_bitwise(h, rh)
    key = rng.integers(0, 4, size=n)
    d, _ = lambda_gradients(s, y, [0, n], truncation=4, convention="standard", tie_key=None)
    rd, _ = fastndcg.reference.lambda_gradients(s, y, [0, n], truncation=4, convention="standard")
    np.testing.assert_allclose(d, rd, rtol=1e-12, atol=1e-15)
    from fastndcg import Convention
    conv = Convention(ties="key_desc")
    d, _ = lambda_gradients(s, y, [0, n], truncation=4, convention=conv, tie_key=key)
    rd, _ = fastndcg.reference.lambda_gradients(s, y, [0, n], truncation=4, convention=conv, tie_key=key)
    np.testing.assert_allclose(d, rd, rtol=1e-12, atol=1e-15)


@pytest.mark.usefixtures("force_threads")
@pytest.mark.parametrize("mode", MODES)
def test_one_query_of_200000_documents(mode):
    # Time and memory linear in documents x truncation: a plain run, then the
    # invariants (finite, zero-sum, thread-count independent).
    rng = np.random.default_rng(11)
    n = 200_000
    y = rng.choice(5, size=n, p=[0.6, 0.25, 0.1, 0.04, 0.01])
    s = 0.5 * y + rng.normal(size=n)
    model = LambdaMART(y, [0, n], mode=mode, truncation=30)
    g, h = model.gradients(s, n_threads=1)
    assert np.all(np.isfinite(g)) and np.all(h >= 0)
    assert np.count_nonzero(g) > 30 * 100
    assert abs(float(g.astype(np.float64).sum())) <= 1e-4 * float(np.abs(g).astype(np.float64).sum())
    g2, h2 = model.gradients(s, n_threads=2)
    assert_bitwise(g, g2)
    assert_bitwise(h, h2)


# ----------------------------------------------------------------------------- validation


def test_validation_names_argument_and_value():
    y, off = [1, 0, 0, 1], [0, 2, 4]
    with pytest.raises(ValueError, match=r"positions must have the same length as scores \(4\); got length 3"):
        PositionBiasedLambdaMART(y, off, [0, 1, 0])
    with pytest.raises(TypeError, match="positions must be an integer array"):
        PositionBiasedLambdaMART(y, off, [0.0, 1.5, 0.0, 1.0])
    with pytest.raises(ValueError, match="regularization must be finite and >= 0; got regularization=-0.5"):
        PositionBiasedLambdaMART(y, off, [0, 1, 0, 1], regularization=-0.5)
    with pytest.raises(ValueError, match="learning_rate must be finite and >= 0; got learning_rate=nan"):
        PositionBiasedLambdaMART(y, off, [0, 1, 0, 1], learning_rate=float("nan"))
    with pytest.raises(ValueError, match=r"pair_method must be one of \('topk', 'mean'\); got 'all'"):
        XGBoostRankNDCG(y, off, pair_method="all")
    with pytest.raises(ValueError, match="num_pair_per_sample must be an int >= 1; got num_pair_per_sample=0"):
        XGBoostRankNDCG(y, off, num_pair_per_sample=0)
    with pytest.raises(ValueError, match="seed_offset must be 1 .* got 2"):
        XGBoostRankNDCG(y, off, pair_method="mean", seed_offset=2)
    with pytest.raises(ValueError, match="iteration must be an int >= 0; got -1"):
        XGBoostRankNDCG(y, off, iteration=-1)
    with pytest.raises(ValueError, match="gain must be 'exponential' or 'linear'"):
        XGBoostRankNDCG(y, off, gain="table")
    with pytest.raises(ValueError, match="labels must be <= 31 in mode='xgboost'"):
        XGBoostRankNDCG([1, 0, 40, 1], off)
    model = PositionBiasedLambdaMART(y, off, [5, 6, 5, 6])
    with pytest.raises(KeyError, match="position 7 does not occur"):
        model.factor_of(7)
    with pytest.raises(ValueError, match=r"scores must be finite; got scores\[1\]=nan"):
        model.gradients([0.1, np.nan, 0.2, 0.3])
    assert model.rounds == 0                            # a refused call changes nothing


def test_cascade_clicks_model():
    rng = np.random.default_rng(0)
    off = np.arange(0, 2001, 20)
    y = rng.integers(0, 5, size=2000)
    log = cascade_clicks(y, off, seed=4, continue_after_click=0.0)
    again = cascade_clicks(y, off, seed=4, continue_after_click=0.0)
    assert all(np.array_equal(a, b) for a, b in zip(log, again))
    for a, b in zip(off[:-1], off[1:]):
        assert sorted(log.order[a:b]) == list(range(a, b))
        assert log.position[a:b].tolist() == list(range(b - a))
        clicked = np.flatnonzero(log.click[a:b])
        assert clicked.size <= 1                        # the strict cascade stops at the first click
    shown = y[log.order]
    rate = [log.click[shown == v].mean() for v in range(5)]
    assert rate == sorted(rate)                         # more relevant, more clicked
    top = log.click[log.position == 0].mean()
    assert top > log.click[log.position == 10].mean()   # and the top gets the clicks
    with pytest.raises(ValueError, match="continue_after_click must be in"):
        cascade_clicks(y, off, continue_after_click=2.0)


# ----------------------------------------------------------------------------- the AVX2 build


def test_avx2_build_gives_the_same_bits(rng, monkeypatch):
    # The kernels compiled with AVX2 (chosen at run time) and the baseline build
    # must agree to the bit in every mode and state.
    import fastndcg.measures._lambdamart_checks as lm
    from fastndcg._core import _lambdamart as baseline
    from fastndcg._core import _ndcg
    # the one AVX2 rule (the CPU, FASTNDCG_NO_AVX2) is the NDCG kernel's simd_level()
    if _ndcg.simd_level() != 1:
        pytest.skip("the AVX2 path is off (no AVX2, or FASTNDCG_NO_AVX2): only the baseline build runs")
    from fastndcg._core import _lambdamart_avx2 as wide
    import platform
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert wide.built_for_avx2() and lm._lambdamart is wide and not baseline.built_for_avx2()
    s, y, off, pos = click_batch(rng, n_queries=120, max_docs=90)
    runs = {}
    import fastndcg.measures._lambdamart_model as lm_model      # where LambdaMART looks its kernels up
    builds = [("baseline", baseline, None), ("avx2", wide, 0)]
    # the default mode's AVX-512 rows: on wherever the CPU has AVX-512F and DQ
    if wide.wide_level(1) == 1:
        builds.append(("avx512", wide, 1))
    wide.wide_level(-1)
    for name, module, level in builds:
        monkeypatch.setattr(lm_model, "_lambdamart", module)
        if level is not None:
            assert wide.wide_level(level) == level
        out = []
        for mode in MODES:
            for options in (dict(), dict(truncation=None, sigma=1.7), dict(score_normalization=False)):
                if mode == "xgboost":
                    options.pop("sigma", None)
                out.extend(lambda_gradients(s, y, off, mode=mode, **options))
        # the default mode's rows split by gain (forced): the same bits on every path too
        module.split_threshold(0)
        try:
            out.extend(lambda_gradients(s, y, off, truncation=None))
            out.extend(lambda_gradients(s * 40.0, y, off, truncation=3))
        finally:
            module.split_threshold(-2)
        pb = PositionBiasedLambdaMART(y, off, pos, regularization=0.3)
        out.extend([pb.gradients(s)[0].copy(), pb.gradients(s)[0].copy(), pb.position_factors])
        for method in ("topk", "mean"):
            xb = XGBoostRankNDCG(y, off, pair_method=method, unbiased=True)
            out.extend([xb.gradients(s.astype(np.float32))[1].copy(), xb.t_plus, xb.t_minus])
        runs[name] = out
    wide.wide_level(-1)
    for name, _, _ in builds[1:]:
        for a, b in zip(runs["baseline"], runs[name]):
            assert_bitwise(a, b)


def test_default_mode_exp_is_accurate():
    # The default mode's vectorised exp against the C library's (math.exp).
    import math
    import fastndcg.measures._lambdamart_checks as lm
    rng = np.random.default_rng(2)
    a = np.concatenate([rng.uniform(0, 1, 20000), rng.uniform(0, 40, 20000), rng.uniform(700, 746, 2000),
                        [0.0, 1e-300, 5e-324, 0.5 * math.log(2), math.log(2), 708.39, 708.4, 744.4, 745.1,
                         745.13, 745.2, 746.0, 1e6, 1e308]])
    for module in {lm._lambdamart, lm._baseline}:
        out = np.empty_like(a)
        module.exp_neg(a, out)
        want = np.array([math.exp(-x) for x in a])
        normal = want >= 2.2250738585072014e-308
        rel = np.abs(out[normal] - want[normal]) / want[normal]
        assert rel.max() <= 3e-16, (module.__name__, a[normal][np.argmax(rel)], rel.max())
        # below 2^-1022 the result is rounded once into the subnormals
        assert np.all(np.abs(out[~normal] - want[~normal]) <= 5e-324)
        assert out[a == 0.0][0] == 1.0 and out[a >= 746.0].max() == 0.0
