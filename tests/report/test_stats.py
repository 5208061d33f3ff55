"""Statistics: agreement with scipy.stats, Holm, bootstrap, comparisons."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import fastndcg.report as stats
from fastndcg.report import _distributions as dist
from conftest import require

pytestmark = [pytest.mark.peers]

scipy = require("scipy"); require("scipy.special")
scipy = require("scipy"); require("scipy.stats")

ALTS = ("two-sided", "greater", "less")


def _pairs(seed: int, n: int, kind: str):
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        a = rng.random(n)
        return a, a + rng.normal(0.03, 0.2, n)
    if kind == "ties":  # NDCG-like values from few levels: ties and zero differences
        return rng.integers(0, 4, n) / 3.0, rng.integers(0, 4, n) / 3.0
    return np.round(rng.random(n), 1), np.round(rng.random(n), 1)


CASES = [(s, n, kind) for s, (n, kind) in enumerate(
    [(n, kind) for n in (2, 3, 5, 9, 13, 14, 25, 50, 51, 120, 400) for kind in ("continuous", "ties", "rounded")])]


@pytest.mark.parametrize("seed, n, kind", CASES)
def test_t_test_matches_scipy(seed, n, kind):
    a, b = _pairs(seed, n, kind)
    for alt in ALTS:
        mine = stats.paired_t_test(a, b, alternative=alt)
        ref = scipy.stats.ttest_rel(a, b, alternative=alt)
        if np.isnan(ref.pvalue):
            assert np.isnan(mine.pvalue)
            continue
        assert mine.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
        assert mine.pvalue == pytest.approx(float(ref.pvalue), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("seed, n, kind", CASES)
def test_wilcoxon_matches_scipy(seed, n, kind):
    a, b = _pairs(seed, n, kind)
    for alt in ALTS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ref = scipy.stats.wilcoxon(a, b, alternative=alt)
            except ValueError:       # scipy refuses some all-zero inputs
                continue
        mine = stats.wilcoxon(a, b, alternative=alt)
        assert mine.statistic == float(ref.statistic)
        if np.isnan(ref.pvalue):
            assert np.isnan(mine.pvalue)
        else:
            assert mine.pvalue == pytest.approx(float(ref.pvalue), rel=1e-10, abs=1e-300), mine.method


def test_wilcoxon_method_choice_follows_scipy_auto():
    a, b = _pairs(0, 20, "continuous")
    assert stats.wilcoxon(a, b).method == "exact"
    a, b = _pairs(0, 12, "ties")
    assert stats.wilcoxon(a, b).method == "permutation"
    a, b = _pairs(0, 30, "ties")
    assert stats.wilcoxon(a, b).method == "asymptotic"
    a, b = _pairs(0, 60, "continuous")
    assert stats.wilcoxon(a, b).method == "asymptotic"
    for method in ("exact", "asymptotic"):
        a, b = _pairs(3, 20, "continuous")
        ref = scipy.stats.wilcoxon(a, b, method=method)
        assert stats.wilcoxon(a, b, method=method).pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    ref = scipy.stats.wilcoxon(a, b, method="asymptotic", correction=True)
    assert stats.wilcoxon(a, b, method="asymptotic", correction=True).pvalue == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.parametrize("n", [2, 4, 8, 13])
def test_randomization_exact_matches_scipy_permutation_test(n):
    a, b = _pairs(n, n, "rounded")
    for alt in ALTS:
        mine = stats.randomization_test(a, b, alternative=alt)
        ref = scipy.stats.permutation_test((a - b,), np.mean, permutation_type="samples", alternative=alt)
        assert mine.method == "exact"
        assert mine.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_randomization_sampled_is_seeded_and_close_to_t():
    a, b = _pairs(7, 300, "continuous")
    r1 = stats.randomization_test(a, b, n_resamples=4000, seed=1)
    r2 = stats.randomization_test(a, b, n_resamples=4000, seed=1)
    r3 = stats.randomization_test(a, b, n_resamples=4000, seed=2)
    assert r1 == r2 and r1.method == "randomization"
    assert r1.pvalue != r3.pvalue
    assert r1.pvalue == pytest.approx(stats.paired_t_test(a, b).pvalue, abs=0.02)
    assert (r1.pvalue * 4001) == pytest.approx(round(r1.pvalue * 4001))      # (hits + 1) / (B + 1)


def test_distributions_match_scipy():
    for df in (1, 2, 5, 30, 1000):
        for t in (-40.0, -3.0, -0.5, 0.0, 0.1, 2.0, 8.0, 60.0):
            assert dist.t_sf(t, df) == pytest.approx(scipy.stats.t.sf(t, df), rel=1e-11, abs=1e-300)
            assert dist.t_cdf(t, df) == pytest.approx(scipy.stats.t.cdf(t, df), rel=1e-11, abs=1e-300)
    for a, b, x in ((0.5, 0.5, 0.3), (10, 0.5, 0.99), (200, 3, 0.5), (2.5, 7, 1e-3)):
        assert dist.betainc(a, b, x) == pytest.approx(scipy.special.betainc(a, b, x), rel=1e-12)
    for p in (1e-300, 1e-12, 0.01, 0.3, 0.5, 0.9, 0.975, 1 - 1e-9):
        assert dist.norm_ppf(p) == pytest.approx(scipy.stats.norm.ppf(p), rel=1e-13, abs=1e-15)
    for z in (-10, -1.5, 0, 2.5, 9):
        assert dist.norm_sf(z) == pytest.approx(scipy.stats.norm.sf(z), rel=1e-13)


def test_degenerate_inputs_like_scipy():
    same = np.array([0.5, 0.2, 0.9])
    assert math.isnan(stats.paired_t_test(same, same).pvalue)
    assert math.isnan(stats.paired_t_test([1.0], [0.0]).pvalue)
    assert stats.paired_t_test([1.0, 1.0, 1.0], [0.0, 0.0, 0.0]).pvalue == 0.0
    assert stats.effect_size(same, same) == 0.0
    assert stats.effect_size([1, 1], [0, 0]) == math.inf
    assert stats.effect_size([1, 2, 4], [0, 0, 1]) == pytest.approx(2.0 / 1.0)


def test_input_validation():
    with pytest.raises(ValueError, match="same queries"):
        stats.paired_t_test([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match=r"b must be finite; got b\[1\]"):
        stats.wilcoxon([1, 2], [1, np.nan])
    with pytest.raises(ValueError, match="alternative"):
        stats.paired_t_test([1, 2], [2, 1], alternative="bigger")
    with pytest.raises(ValueError, match="confidence"):
        stats.bootstrap_ci([1, 2], confidence=1.5)
    with pytest.raises(ValueError, match="p-values must be in"):
        stats.holm([0.5, 1.2])


def test_holm():
    np.testing.assert_allclose(stats.holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(stats.holm([0.5, 0.9]), [1.0, 1.0])
    out = stats.holm([0.01, np.nan, 0.02])
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.02)
    rng = np.random.default_rng(0)
    p = rng.random(20) ** 3
    adj = stats.holm(p)
    order = np.argsort(p)
    assert np.all(np.diff(adj[order]) >= 0) and np.all(adj >= p) and np.all(adj <= 1)


def test_bootstrap_ci():
    a, b = _pairs(11, 200, "continuous")
    r1 = stats.bootstrap_ci(a, n_resamples=2000, seed=5)
    assert r1 == stats.bootstrap_ci(a, n_resamples=2000, seed=5)
    assert r1 != stats.bootstrap_ci(a, n_resamples=2000, seed=6)
    assert r1.low < r1.mean < r1.high and r1.mean == pytest.approx(a.mean())
    # the percentile interval is the quantiles of the resampled means drawn from default_rng(seed)
    rng = np.random.default_rng(5)
    means = a[rng.integers(0, a.size, size=(2000, a.size))].mean(axis=1)
    np.testing.assert_allclose([r1.low, r1.high], np.quantile(means, [0.025, 0.975]), rtol=1e-12)
    # close to scipy's own bootstrap (different random draws)
    for method, ref_method in (("percentile", "percentile"), ("bca", "BCa")):
        mine = stats.bootstrap_ci(a, b, n_resamples=20000, seed=0, method=method)
        ref = scipy.stats.bootstrap((a - b,), np.mean, n_resamples=20000, method=ref_method, rng=0).confidence_interval
        width = ref.high - ref.low
        assert mine.low == pytest.approx(ref.low, abs=0.05 * width)
        assert mine.high == pytest.approx(ref.high, abs=0.05 * width)


def test_bootstrap_coverage():
    rng = np.random.default_rng(1)
    hits = 0
    for i in range(200):
        x = rng.normal(0.3, 1.0, 60)
        ci = stats.bootstrap_ci(x, n_resamples=500, seed=i)
        hits += ci.low <= 0.3 <= ci.high
    assert 175 <= hits <= 199


def test_compare_systems():
    rng = np.random.default_rng(3)
    base = rng.random(80)
    systems = {"good": np.clip(base + 0.2, 0, 1), "base": base, "noise": np.clip(base + rng.normal(0, 0.01, 80), 0, 1)}
    res = stats.compare_systems(systems, alpha=0.05)
    assert [(r.a, r.b) for r in res] == [("good", "base"), ("good", "noise"), ("base", "noise")]
    assert res[0].winner == "good" and res[1].winner == "good" and res[2].winner == ""
    raw = [r.p_t for r in res]
    np.testing.assert_allclose([r.p_adjusted for r in res], stats.holm(raw))
    assert res[0].p_t == pytest.approx(scipy.stats.ttest_rel(systems["good"], base).pvalue, rel=1e-10)
    vs = stats.compare_systems(systems, baseline="base", test="wilcoxon", correction="none")
    assert [(r.a, r.b) for r in vs] == [("base", "good"), ("base", "noise")]
    assert vs[0].winner == "good" and vs[0].p_adjusted == vs[0].p_wilcoxon
    with pytest.raises(ValueError, match="at least two"):
        stats.compare_systems({"a": base})
    with pytest.raises(ValueError, match="same queries"):
        stats.compare_systems({"a": base, "b": base[:-1]})
