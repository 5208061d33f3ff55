"""Tests between systems on per-query values: the paired t test, Wilcoxon's signed-rank test
(exact or normal), the randomization test, the effect size, Holm's correction, bootstrap
intervals, and :func:`compare_systems` over many systems."""
from __future__ import annotations
import math
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from fastndcg.report._distributions import ALTERNATIVES, p_value_for, norm_cdf, norm_ppf, norm_sf, t_cdf, t_sf


# ----------------------------------------------------------------------------- inputs


def _paired(a, b, name_a: str = "a", name_b: str = "b"):
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{name_a} and {name_b} must be 1-D per-query values; got shapes {x.shape} and {y.shape}")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"{name_a} and {name_b} must hold the same queries; got {x.shape[0]} and {y.shape[0]} values")
    for arr, name in ((x, name_a), (y, name_b)):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise ValueError(f"{name} must be finite; got {name}[{int(bad[0])}]={arr[bad[0]]!r} "
                             "(drop NaN queries from both systems first)")
    return x, y


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}; got {alternative!r}")


# ----------------------------------------------------------------------------- tests


class TestResult(NamedTuple):
    """statistic, pvalue, and the method actually used."""

    statistic: float
    pvalue: float
    method: str


def paired_t_test(a, b, *, alternative: str = "two-sided") -> TestResult:
    """Paired t-test of mean(a - b) = 0 (as ``scipy.stats.ttest_rel``).

    t = mean(d) / sqrt(var(d, ddof=1) / n) with n - 1 degrees of freedom;
    p from the Student-t distribution (regularized incomplete beta). NaN for
    n < 2 or when every difference is 0.
    """
    _check_alternative(alternative)
    x, y = _paired(a, b)
    d = x - y
    n = d.shape[0]
    if n < 2:
        return TestResult(math.nan, math.nan, "t")
    df = n - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        t = float(np.mean(d) / np.sqrt(np.var(d, ddof=1) / n))
    if math.isnan(t):
        return TestResult(math.nan, math.nan, "t")
    p = p_value_for(alternative, t_sf(t, df), t_cdf(t, df), t_sf(abs(t), df))
    return TestResult(t, p, "t")


def _rank_average(v: np.ndarray):
    """Average ranks (1-based) of v and the sizes of its tie groups."""
    order = np.argsort(v, kind="mergesort")
    sv = v[order]
    n = v.shape[0]
    new = np.concatenate(([True], sv[1:] != sv[:-1])) if n else np.zeros(0, dtype=bool)
    group = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, n))
    avg = starts + (sizes + 1) / 2.0
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = avg[group]
    return ranks, sizes


def _signed_rank_distribution(n: int) -> np.ndarray:
    """P(W+ = k), k = 0..n(n+1)/2, for n distinct ranks (exact)."""
    top = n * (n + 1) // 2
    counts = np.zeros(top + 1, dtype=np.float64)
    counts[0] = 1.0
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    return counts / counts.sum()


def wilcoxon(a, b, *, alternative: str = "two-sided", method: str = "auto",
             correction: bool = False) -> TestResult:
    """Wilcoxon signed-rank test on d = a - b (as ``scipy.stats.wilcoxon``).

    Zero differences are dropped ("wilcox"), ties get average ranks.
    ``method="auto"`` picks, as scipy 1.17 does, by n = len(d) counting zeros:
    n > 50: normal approximation (tie-corrected variance, continuity
    correction only if ``correction``); otherwise exact null distribution
    when there are no ties and no zeros; otherwise, for n <= 13, the exact
    sign-flip distribution of the statistic (all 2**n flips); otherwise the
    normal approximation. ``method`` may also be "exact", "asymptotic" or
    "permutation". The statistic is min(W+, W-) for two-sided tests, W+
    otherwise.
    """
    _check_alternative(alternative)
    if method not in ("auto", "exact", "asymptotic", "permutation"):
        raise ValueError(f"method must be 'auto', 'exact', 'asymptotic' or 'permutation'; got {method!r}")
    x, y = _paired(a, b)
    d = x - y
    n = d.shape[0]
    if n == 0:
        return TestResult(math.nan, math.nan, method)
    nz = d[d != 0]
    count = nz.shape[0]
    ranks, ties = _rank_average(np.abs(nz))
    r_plus = float(np.sum(ranks[nz > 0]))
    r_minus = float(np.sum(ranks[nz < 0]))
    has_ties = bool(np.any(ties > 1))
    n_zero = n - count
    if method == "auto":
        if n > 50:
            method = "asymptotic"
        elif not (has_ties or n_zero > 0):
            method = "exact"
        elif n <= 13:
            method = "permutation"
        else:
            method = "asymptotic"
    statistic = min(r_plus, r_minus) if alternative == "two-sided" else r_plus
    if method == "asymptotic":
        mn = count * (count + 1.0) * 0.25
        var = count * (count + 1.0) * (2.0 * count + 1.0)
        var -= float(np.sum(ties.astype(np.float64) ** 3 - ties)) / 2.0
        se = math.sqrt(var / 24.0)
        z = (r_plus - mn) / se if se > 0 else math.nan
        if correction and not math.isnan(z):
            sign = 1.0 if alternative == "greater" else -1.0 if alternative == "less" else math.copysign(1.0, z) if z != 0 else 0.0
            z -= sign * 0.5 / se
        if math.isnan(z):
            return TestResult(statistic, math.nan, method)
        p = p_value_for(alternative, norm_sf(z), norm_cdf(z), norm_sf(abs(z)))
        return TestResult(statistic, p, method)
    if method == "exact":
        pmf = _signed_rank_distribution(count)
        cdf = lambda k: float(pmf[: int(k) + 1].sum()) if k >= 0 else 0.0  # noqa: E731
        sf = lambda k: float(pmf[max(int(k), 0):].sum())  # noqa: E731
        mean = count * (count + 1) / 4.0
        lo, hi = math.ceil(r_plus), math.floor(r_plus)

        def cdf_(k):  # as scipy: the smaller tail is summed directly
            return cdf(k) if k <= mean else 1.0 - sf(k + 1)

        def sf_(k):
            return sf(k) if k <= mean else 1.0 - cdf(k - 1)

        if alternative == "less":
            p = cdf_(lo)
        elif alternative == "greater":
            p = sf_(hi)
        else:
            p = min(1.0, max(0.0, 2.0 * min(sf_(hi), cdf_(lo))))
        return TestResult(statistic, p, method)
    # permutation: every sign flip of the non-zero differences
    if n > 20:
        raise ValueError(f"method='permutation' enumerates 2**n sign flips; n={n} is too large (use 'asymptotic')")
    signs = ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    full_ranks = np.zeros(n)
    full_ranks[d != 0] = ranks
    positive = np.where(signs, d > 0, d < 0) & (d != 0)
    null = positive.astype(np.float64) @ full_ranks
    p = _perm_pvalue(null, r_plus, alternative, exact=True)
    return TestResult(statistic, p, method)


def _perm_pvalue(null: np.ndarray, observed: float, alternative: str, exact: bool) -> float:
    """p-value of a (sign-flip) null distribution, as scipy.stats.permutation_test."""
    adjustment = 0 if exact else 1
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    m = null.shape[0]
    less = (np.count_nonzero(null <= observed + gamma) + adjustment) / (m + adjustment)
    greater = (np.count_nonzero(null >= observed - gamma) + adjustment) / (m + adjustment)
    if alternative == "less":
        p = less
    elif alternative == "greater":
        p = greater
    else:
        p = 2.0 * min(less, greater)
    return float(min(max(p, 0.0), 1.0))


def randomization_test(a, b, *, n_resamples: int = 10000, seed: Optional[int] = 0,
                       alternative: str = "two-sided") -> TestResult:
    """Paired randomization (permutation) test of mean(a - b) = 0.

    Under the null each query's difference is as likely positive as
    negative, so the null distribution of mean(d) comes from flipping signs.
    With 2**n <= ``n_resamples`` every flip is enumerated (exact p-value);
    otherwise ``n_resamples`` random flips (seeded) and p = (hits + 1) /
    (n_resamples + 1). Same as ``scipy.stats.permutation_test((d,),
    np.mean, permutation_type="samples")``.
    """
    _check_alternative(alternative)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1; got {n_resamples}")
    x, y = _paired(a, b)
    d = x - y
    n = d.shape[0]
    if n == 0:
        return TestResult(math.nan, math.nan, "randomization")
    observed = float(np.mean(d))
    if n < 63 and 2 ** n <= n_resamples:
        signs = 1.0 - 2.0 * ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1)
        null = (signs @ d) / n
        return TestResult(observed, _perm_pvalue(null, observed, alternative, exact=True), "exact")
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    batch = max(1, (1 << 22) // max(n, 1))
    for s in range(0, n_resamples, batch):
        e = min(n_resamples, s + batch)
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(e - s, n))
        null[s:e] = (signs @ d) / n
    return TestResult(observed, _perm_pvalue(null, observed, alternative, exact=False), "randomization")


def effect_size(a, b) -> float:
    """Cohen's d for paired samples (d_z): mean(a - b) / std(a - b, ddof=1).

    0 when every difference is 0; +-inf when the differences are all equal
    and non-zero; NaN for fewer than 2 queries.
    """
    x, y = _paired(a, b)
    d = x - y
    if d.shape[0] < 2:
        return math.nan
    mean = float(np.mean(d))
    sd = float(np.std(d, ddof=1))
    if sd == 0:
        return 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return mean / sd


def holm(pvalues: Union[Sequence[float], np.ndarray]) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, at most 1).

    With m tests sorted ascending, p_(i) becomes max_{j <= i} (m - j + 1) p_(j).
    Reject hypothesis i at level alpha when its adjusted p-value is <= alpha.
    NaN p-values stay NaN and do not count in m.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-D; got shape {p.shape}")
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    bad = ok[(p[ok] < 0) | (p[ok] > 1)]
    if bad.size:
        raise ValueError(f"p-values must be in [0, 1]; got pvalues[{int(bad[0])}]={p[bad[0]]!r}")
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = (m - np.arange(m)) * p[order]
    out[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return out


# ----------------------------------------------------------------------------- bootstrap


class BootstrapResult(NamedTuple):
    mean: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    method: str


def bootstrap_ci(a, b=None, *, confidence: float = 0.95, n_resamples: int = 10000,
                 seed: Optional[int] = 0, method: str = "percentile") -> BootstrapResult:
    """Bootstrap confidence interval of the mean per-query value.

    Queries are resampled with replacement (``n_resamples`` times, seeded:
    the same seed gives the same interval). With ``b``, the interval is for
    the mean paired difference a - b.

    Parameters
    ----------
    a, b : per-query values (b optional, same queries in the same order)
    confidence : float in (0, 1)
    method : {"percentile", "bca"}
        "percentile": the alpha/2 and 1 - alpha/2 quantiles of the resampled
        means (numpy's linear interpolation). "bca": bias-corrected and
        accelerated (Efron 1987), with the jackknife acceleration.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")
    if method not in ("percentile", "bca"):
        raise ValueError(f"method must be 'percentile' or 'bca'; got {method!r}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1; got {n_resamples}")
    if b is None:
        x, _ = _paired(a, a)
        v = x
    else:
        x, y = _paired(a, b)
        v = x - y
    n = v.shape[0]
    if n == 0:
        return BootstrapResult(math.nan, math.nan, math.nan, confidence, n_resamples, method)
    observed = float(np.mean(v))
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    batch = max(1, (1 << 22) // n)
    for s in range(0, n_resamples, batch):
        e = min(n_resamples, s + batch)
        idx = rng.integers(0, n, size=(e - s, n))
        means[s:e] = v[idx].mean(axis=1)
    alpha = 1.0 - confidence
    lo_q, hi_q = alpha / 2, 1 - alpha / 2
    if method == "bca":
        frac = float(np.mean(means < observed))
        z0 = norm_ppf(frac)
        jack = (v.sum() - v) / (n - 1) if n > 1 else v.copy()
        dj = jack.mean() - jack
        den = 6.0 * float(np.sum(dj ** 2)) ** 1.5
        acc = float(np.sum(dj ** 3)) / den if den > 0 else 0.0
        qs = []
        for q in (lo_q, hi_q):
            zq = norm_ppf(q)
            qs.append(norm_cdf(z0 + (z0 + zq) / (1 - acc * (z0 + zq))) if math.isfinite(z0) else q)
        lo_q, hi_q = qs
    low, high = np.quantile(means, [lo_q, hi_q])
    return BootstrapResult(observed, float(low), float(high), confidence, n_resamples, method)


# ----------------------------------------------------------------------------- many systems


class PairComparison(NamedTuple):
    """One pair of systems: means, difference a - b, effect size d_z, the
    three p-values, the adjusted p-value of the deciding test, and the winner
    at ``alpha`` ("" when the difference is not significant)."""

    a: str
    b: str
    mean_a: float
    mean_b: float
    diff: float
    effect_size: float
    p_t: float
    p_wilcoxon: float
    p_randomization: float
    p_adjusted: float
    winner: str


TESTS = ("t", "wilcoxon", "randomization")


def compare_systems(per_query: Mapping[str, object], *, alpha: float = 0.05, test: str = "t",
                    correction: str = "holm", baseline: Optional[str] = None,
                    n_resamples: int = 10000, seed: Optional[int] = 0) -> List[PairComparison]:
    """Paired comparisons between systems evaluated on the same queries.

    Parameters
    ----------
    per_query : mapping name -> per-query values (same queries, same order)
    alpha : float
        Significance level for the winner.
    test : {"t", "wilcoxon", "randomization"}
        The test whose (adjusted) p-value decides the winner; all three are
        reported.
    correction : {"holm", "none"}
        Holm adjustment over all pairs compared.
    baseline : str, optional
        Compare every system with this one only; default: all pairs, in input
        order.
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}; got {test!r}")
    if correction not in ("holm", "none"):
        raise ValueError(f"correction must be 'holm' or 'none'; got {correction!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    names = list(per_query)
    if len(names) < 2:
        raise ValueError(f"need at least two systems to compare; got {len(names)}")
    values: Dict[str, np.ndarray] = {}
    for name in names:
        values[name], _ = _paired(per_query[name], per_query[name], name, name)
    n0 = values[names[0]].shape[0]
    for name in names[1:]:
        if values[name].shape[0] != n0:
            raise ValueError(f"every system needs the same queries: {names[0]!r} has {n0} values, "
                             f"{name!r} has {values[name].shape[0]}")
    if baseline is not None:
        if baseline not in values:
            raise ValueError(f"baseline {baseline!r} is not one of the systems {names}")
        pairs = [(baseline, o) for o in names if o != baseline]
    else:
        pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    rows: List[Tuple[str, str, List[float]]] = []
    for x, y in pairs:
        a, b = values[x], values[y]
        rows.append((x, y, [float(np.mean(a)), float(np.mean(b)), float(np.mean(a - b)), effect_size(a, b),
                            paired_t_test(a, b).pvalue, wilcoxon(a, b).pvalue,
                            randomization_test(a, b, n_resamples=n_resamples, seed=seed).pvalue]))
    deciding = np.array([r[2][4 + TESTS.index(test)] for r in rows])
    adjusted = holm(deciding) if correction == "holm" else deciding
    out = []
    for (x, y, v), p_adj in zip(rows, adjusted.tolist()):
        winner = ""
        if not math.isnan(p_adj) and p_adj <= alpha and v[2] != 0:
            winner = x if v[2] > 0 else y
        out.append(PairComparison(x, y, v[0], v[1], v[2], v[3], v[4], v[5], v[6], p_adj, winner))
    return out
