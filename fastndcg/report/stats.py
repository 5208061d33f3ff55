"""Statistics for comparing ranking systems on per-query NDCG.

Everything takes per-query values (for example ``fastndcg.ndcg(...)`` of two
runs on the same queries, in the same order) and needs numpy only: the
Student-t and normal distributions and the exact signed-rank distribution
are implemented here. Defaults follow ``scipy.stats`` (1.17), and the tests
check the p-values against it:

* :func:`paired_t_test` = ``scipy.stats.ttest_rel``;
* :func:`wilcoxon` = ``scipy.stats.wilcoxon`` with its defaults
  (``zero_method="wilcox"``, ``correction=False``, ``method="auto"``);
* :func:`randomization_test` = ``scipy.stats.permutation_test`` on the
  differences with ``permutation_type="samples"`` (sign flips);
* :func:`bootstrap_ci`: percentile (default) or BCa interval of the mean,
  resampling queries.

:func:`holm` adjusts p-values for several comparisons (Holm 1979), and
:func:`compare_systems` runs everything over pairs of systems.

Two modules: :mod:`.distributions` (the t, normal and beta functions, in pure Python) and
:mod:`.significance` (the tests, intervals and the comparison of many systems). This module
re-exports them.
"""
from fastndcg.report.distributions import (ALTERNATIVES, betainc, norm_cdf, norm_ppf, norm_sf, t_cdf, t_sf)  # noqa: F401
from fastndcg.report.significance import (BootstrapResult, PairComparison, TESTS, TestResult, bootstrap_ci,  # noqa: F401
                                          compare_systems, effect_size, holm, paired_t_test,
                                          randomization_test, wilcoxon)
