"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.report._comparison import ComparedSystem, Comparison, RunData
from fastndcg.report._identify import (Candidate, Identification, PerQueryValues, ReportedValue, identify,
                                       identify_data, parse_reported_value, read_per_query)
from fastndcg.report._significance import (TESTS, BootstrapResult, PairComparison, TestResult, bootstrap_ci,
                                           compare_systems, effect_size, holm, paired_t_test, randomization_test,
                                           wilcoxon)

__all__ = [
    # comparisons (compare: top level)
    "ComparedSystem", "Comparison", "RunData",
    # statistics
    "TESTS", "BootstrapResult", "PairComparison", "TestResult", "bootstrap_ci", "compare_systems", "effect_size",
    "holm", "paired_t_test", "randomization_test", "wilcoxon",
    # which NDCG reproduces a value
    "Candidate", "Identification", "PerQueryValues", "ReportedValue", "identify", "identify_data",
    "parse_reported_value", "read_per_query",
]
