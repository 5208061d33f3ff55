"""Transitional: the input checks now live in two modules by job,
:mod:`fastndcg._core.query_checks` (offsets, labels, cutoffs, tie keys, weights, ideal DCG,
lengths) and :mod:`fastndcg._core.score_checks` (scores, the results' overflow, a CSR
batch). These names stay importable from here only for modules being edited on another
branch at the time of the split (measures/_lambdamart_checks.py, _softrank.py, _rankdcg.py,
report/_identify.py, _compare_compute.py); delete this module once they import from the two
modules. Nothing else may import it (tests/test_architecture.py checks that)."""
from fastndcg._core.query_checks import (FULL_LIST, check_lengths_agree, check_labels, check_offsets,
                                         check_same_length, distinct_cutoffs, finite_nonnegative,
                                         gathered_label_warnings, max_query_size, one_dimensional)
from fastndcg._core.score_checks import (OVERFLOW_HINT, check_csr, check_no_overflow, check_scores,
                                         overflow_at_file_lines)

__all__ = ["FULL_LIST", "OVERFLOW_HINT", "check_csr", "check_labels", "check_lengths_agree", "check_no_overflow",
           "check_offsets", "check_same_length", "check_scores", "distinct_cutoffs", "finite_nonnegative",
           "gathered_label_warnings", "max_query_size", "one_dimensional", "overflow_at_file_lines"]
