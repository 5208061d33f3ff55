"""The io face (fastndcg/io/__init__.py, __init__.pyi): what a user calls, at most 14 names; the
join's machinery left it, its documented names deprecated with their replacement (issue 35)."""
from __future__ import annotations

import doctest
import warnings

import pytest

import fastndcg.io
from fastndcg.io import _files, _joining, _svmlight, _trec

MACHINERY = ("JoinedRun", "join_runs", "join_run_file", "iter_joined", "iter_run", "TrecTable",
             "DEFAULT_BLOCK_SIZE", "open_binary", "iter_line_blocks", "group_file_for", "frame_arrays")


def test_the_io_face_fits_on_one_page():
    assert len(fastndcg.io.__all__) <= 14, fastndcg.io.__all__
    assert {"Qrels", "Run", "read_qrels", "read_run", "AlignedRun", "align_run", "SvmlightData",
            "SvmlightChunk", "read_svmlight", "iter_svmlight", "read_predictions",
            "read_group_file"} <= set(fastndcg.io.__all__)
    assert not set(MACHINERY) & set(fastndcg.io.__all__)
    assert not set(MACHINERY) & set(dir(fastndcg.io))


@pytest.mark.parametrize("name, module, replacement", [
    ("JoinedRun", _joining, "fastndcg.io.align_run"),
    ("join_run_file", _joining, r"fastndcg.io.align_run\(path, qrels\)"),
    ("join_runs", _joining, "fastndcg.io.align_run"),
    ("iter_joined", _joining, "fastndcg.stream.evaluate_stream"),
    ("iter_run", _trec, "fastndcg.stream.evaluate_stream"),
    ("group_file_for", _svmlight, "fastndcg.io.read_svmlight"),
    ("iter_line_blocks", _files, r"the readers \(fastndcg.io.read_run"),
])
def test_a_documented_name_that_left_the_face_warns_with_its_replacement(name, module, replacement):
    with pytest.warns(DeprecationWarning, match=rf"fastndcg\.io\.{name} is deprecated .*use {replacement}"):
        assert getattr(fastndcg.io, name) is getattr(module, name)


@pytest.mark.parametrize("name", ["TrecTable", "DEFAULT_BLOCK_SIZE", "open_binary", "frame_arrays", "ClickLog",
                                  "RankingData", "write_examples"])
def test_undocumented_machinery_is_just_gone(name):
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
        getattr(fastndcg.io, name)


def test_the_face_docstring_says_its_purpose_and_its_example_runs():
    doc = fastndcg.io.__doc__
    assert doc.startswith("File formats and data, as CSR arrays")
    test = doctest.DocTestParser().get_doctest(doc, {}, "fastndcg.io", None, 0)
    assert len(test.examples) >= 5
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
