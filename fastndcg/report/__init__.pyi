"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.report._compare_compute import RunData
from fastndcg.report._compare_render import Comparison
from fastndcg.report._identify import Identification, identify, identify_data
from fastndcg.report._significance import (bootstrap_ci, compare_systems, effect_size, holm, paired_t_test,
                                           randomization_test, wilcoxon)

__all__ = [
    # comparisons (compare: top level)
    "Comparison", "RunData",
    # statistics
    "bootstrap_ci", "compare_systems", "effect_size", "holm", "paired_t_test", "randomization_test", "wilcoxon",
    # which NDCG reproduces a value
    "Identification", "identify", "identify_data",
]
