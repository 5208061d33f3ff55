"""The report face (fastndcg/report/__init__.py and its stub): compare's result, the statistics
and identify, at most 12 names; its docstring's example runs."""
from __future__ import annotations

import doctest

import fastndcg.report as report
from fastndcg._core.faces import stub_names

#: the streaming modules leave report for a room of their own; their names are not counted here
STREAMING = {"_chunks", "_sources", "_frame_chunks", "_frame_ndcg", "_trec_stream", "_partitions"}


def test_the_report_face_is_compare_statistics_and_identify():
    table = stub_names(report.__name__, report.__file__)
    names = {n for n, (module, _) in table.items() if module.rpartition(".")[2] not in STREAMING}
    assert names == {"Comparison", "RunData",
                     "bootstrap_ci", "compare_systems", "effect_size", "holm", "paired_t_test",
                     "randomization_test", "wilcoxon",
                     "Identification", "identify", "identify_data"}
    assert len(names) <= 12


def test_names_that_left_the_face_are_gone_from_it():
    # machinery and result types a user receives but never names; still importable privately
    for gone in ("ComparedSystem", "TESTS", "TestResult", "BootstrapResult", "PairComparison", "Candidate",
                 "PerQueryValues", "ReportedValue", "parse_reported_value", "read_per_query"):
        assert gone not in report.__all__ and not hasattr(report, gone), gone


def test_the_face_docstring_example_runs():
    result = doctest.testmod(report, verbose=False, report=False)
    assert result.attempted >= 5 and result.failed == 0
