"""Readers' errors (issue 24, items 3, 9, 11): one NUL rule for every scanner, bad values of arrays
read from files named by file and line, one rule for SVMlight side files (.query / .group), and
swapped qrels and run files."""
from __future__ import annotations

import re

import numpy as np
import pytest

import fastndcg
import fastndcg.io as readers
from fastndcg.io._row_lines import at_file_lines
from fastndcg.io import iter_svmlight, read_svmlight
from fastndcg.io._svmlight import group_file_for


def write(tmp_path, name, data):
    p = tmp_path / name
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data)
    return str(p)


def raises_at(path, line, match):
    """pytest.raises(ValueError) whose message starts with 'path:line:' and matches."""
    return pytest.raises(ValueError, match=re.escape(f"{path}:{line}: ") + match)


# ----------------------------------------------------------------------------- item 3: NUL bytes


def test_svmlight_utf16_file_is_a_nul_byte_as_in_the_trec_readers(tmp_path):
    # before: "the label (first field) is not a finite number"
    data = write(tmp_path, "d.svm", "1 qid:1 1:0.5\n0 qid:1 1:0.3\n".encode("utf-16"))
    with raises_at(data, 1, "a NUL byte in a field"):
        read_svmlight(data)
    with raises_at(data, 1, "a NUL byte in a field"):
        list(iter_svmlight(data))
    run = write(tmp_path, "r.txt", "1 Q0 a 1 0.5 t\n".encode("utf-16"))
    with raises_at(run, 1, "a NUL byte in a field"):
        readers.read_run(run)


def test_svmlight_nul_after_the_label_is_refused(tmp_path):
    # before: accepted (features are skipped unparsed), "1" and "1\0" alike
    data = write(tmp_path, "d.svm", b"1 qid:1 1:0.5\n0 qid:1 1:0.3\x00\n")
    with raises_at(data, 2, "a NUL byte"):
        read_svmlight(data)


@pytest.mark.parametrize("content, line", [
    ("0.5\n0.25\n".encode("utf-16"), 1),       # before: "not a finite number"
    (b"0.5\n0.25\x00\n", 2),                   # before: "not a finite number"
])
def test_prediction_files_nul_byte(tmp_path, content, line):
    pred = write(tmp_path, "p.txt", content)
    with raises_at(pred, line, "a NUL byte"):
        readers.read_predictions(pred)


def test_group_files_nul_byte(tmp_path):
    group = write(tmp_path, "g.txt", b"2\n1\x00\n")     # before: "not an integer"
    with raises_at(group, 2, "a NUL byte"):
        readers.read_group_file(group)


# ----------------------------------------------------------------------------- item 3: rows to lines


def test_bad_label_of_an_svmlight_file_names_its_line(tmp_path):
    # rows regrouped by qid (qid_order='any'): the CSR row 1 is the file's line 4
    data = write(tmp_path, "d.svm", "# a comment\n1 qid:1\n0 qid:2\n2.5 qid:1\n0 qid:2\n")
    pred = write(tmp_path, "p.txt", "0.1\n0.2\n0.3\n0.4\n")
    d = read_svmlight(data, qid_order="any")
    scores = d.grouped(readers.read_predictions(pred, n=d.n_rows))
    with pytest.raises(ValueError, match=r"labels\[1\]=2\.5 \(query 0") as bare:
        fastndcg.ndcg(scores, d.grouped(d.labels), d.offsets, 10, convention="lightgbm")
    assert (bare.value.argument, bare.value.index) == ("labels", 1)
    with raises_at(data, 4, r"labels must be non-negative integers \(the gain is exponential or a table\); "
                            r"got 2\.5$"):
        with at_file_lines(d.row_lines(pred)):
            fastndcg.ndcg(scores, d.grouped(d.labels), d.offsets, 10, convention="lightgbm")
    # a linear gain takes 2.5: nothing to translate
    with at_file_lines(d.row_lines(pred)):
        fastndcg.ndcg(scores, d.grouped(d.labels), d.offsets, 10, convention="ranx")


def test_bad_score_of_a_prediction_file_names_its_line(tmp_path):
    data = write(tmp_path, "d.svm", "1 qid:1\n0 qid:2\n2 qid:1\n0 qid:2\n")
    pred = write(tmp_path, "p.txt", "0.1\n0.2\n1e39\n0.4\n")     # beyond float32 (xgboost's scores)
    d = read_svmlight(data, qid_order="any")
    scores = d.grouped(readers.read_predictions(pred, n=d.n_rows))
    with raises_at(pred, 3, r"scores must stay finite when rounded to float32 .*; got 1e\+39$"):
        with at_file_lines(d.row_lines(pred)):
            fastndcg.ndcg(scores, d.grouped(d.labels), d.offsets, 10, convention="xgboost")


def test_streamed_chunks_name_the_lines(tmp_path):
    data = write(tmp_path, "d.svm", "1 qid:1\n0 qid:1\n\n1 qid:2\n-1 qid:2\n")
    pred = write(tmp_path, "p.txt", "0.1\n0.2\n0.3\n0.4\n")
    chunks = list(iter_svmlight(data, pred, chunk_rows=1))
    assert [c.first_row for c in chunks] == [0, 2]
    np.testing.assert_array_equal(chunks[1].lines, [4, 5])
    from fastndcg.stream._chunks import NDCGAccumulator

    acc = NDCGAccumulator(10, convention="standard")
    acc.add(chunks[0].scores, chunks[0].labels, chunks[0].offsets)
    # the accumulator's wrapper ("chunk 1 (queries from ...): ...") keeps the row of the chunk
    with raises_at(data, 5, r"labels must be non-negative integers .*; got -1\.0$"):
        with at_file_lines(chunks[1].row_lines()):
            acc.add(chunks[1].scores, chunks[1].labels, chunks[1].offsets)


def test_errors_of_other_arguments_pass_unchanged(tmp_path):
    data = write(tmp_path, "d.svm", "1 qid:1\n0 qid:1\n")
    d = read_svmlight(data)
    with pytest.raises(ValueError, match=r"^offsets must end at the number of documents"):
        with at_file_lines(d.row_lines()):
            fastndcg.ndcg([0.1, 0.2], d.labels, [0, 3], 10)


# ----------------------------------------------------------------------------- item 9: side files


def test_read_svmlight_finds_the_query_side_file(tmp_path):
    data = write(tmp_path, "d.svm", "1 1:0.5\n0 1:0.1\n2 1:0.3\n")
    assert read_svmlight(data).offsets is None
    write(tmp_path, "d.svm.query", "2\n1\n")
    # before: offsets None (only the CLI looked for d.svm.query)
    np.testing.assert_array_equal(read_svmlight(data).offsets, [0, 2, 3])
    np.testing.assert_array_equal(read_svmlight(data).query_ids, [0, 1])
    assert read_svmlight(data, group=False).offsets is None                # turned off
    np.testing.assert_array_equal(read_svmlight(data, group=[1, 2]).offsets, [0, 1, 3])   # explicit wins
    chunks = list(iter_svmlight(data))
    np.testing.assert_array_equal(np.concatenate([c.query_ids for c in chunks]), [0, 1])


def test_read_svmlight_finds_the_group_side_file(tmp_path):
    data = write(tmp_path, "d.svm", "1 1:0.5\n0 1:0.1\n2 1:0.3\n")
    write(tmp_path, "d.svm.group", "1\n2\n")
    np.testing.assert_array_equal(read_svmlight(data).offsets, [0, 1, 3])
    assert group_file_for(data) == data + ".group"


def test_qids_in_the_file_win_over_a_side_file(tmp_path):
    data = write(tmp_path, "d.svm", "1 qid:4 1:0.5\n0 qid:4 1:0.1\n2 qid:5 1:0.3\n")
    write(tmp_path, "d.svm.query", "1\n1\n1\n")          # stale: not read
    assert group_file_for(data) is None
    d = read_svmlight(data)
    np.testing.assert_array_equal(d.offsets, [0, 2, 3])
    np.testing.assert_array_equal(d.query_ids, [4, 5])


def test_both_side_files(tmp_path):
    data = write(tmp_path, "d.svm", "1\n0\n2\n")
    write(tmp_path, "d.svm.query", "2\n1\n")
    write(tmp_path, "d.svm.group", "2\n1\n")
    np.testing.assert_array_equal(read_svmlight(data).offsets, [0, 2, 3])      # the same sizes
    write(tmp_path, "d.svm.group", "1\n2\n")
    msg = re.escape(f"{data}.query and {data}.group both give the query sizes of {data} and disagree "
                    "(line 1: 2 vs 1); name the one to use with group=")
    with pytest.raises(ValueError, match=msg):
        read_svmlight(data)
    with pytest.raises(ValueError, match=msg):
        list(iter_svmlight(data))
    np.testing.assert_array_equal(read_svmlight(data, group=data + ".group").offsets, [0, 1, 3])


def test_side_file_of_the_wrong_size_names_both_files(tmp_path):
    data = write(tmp_path, "d.svm", "1\n0\n2\n")
    write(tmp_path, "d.svm.query", "2\n2\n")
    with pytest.raises(ValueError, match=re.escape(f"{data}.query:2: the group sizes reach 4 rows here but "
                                                   f"{data} has only 3 rows")):
        read_svmlight(data)
    write(tmp_path, "d.svm.query", "1\n1\n")
    with raises_at(data, 3, re.escape(f"this row (row 3) is beyond the 2 rows that the group sizes of "
                                      f"{data}.query add up to")):
        read_svmlight(data)


# ----------------------------------------------------------------------------- item 11: swapped files


def test_read_qrels_of_a_run_says_so(tmp_path):
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 0.5 tag\n")
    qrels = write(tmp_path, "q.txt", "# judged\n1 0 d1 1\n")
    with raises_at(run, 1, re.escape("expected 4 fields (topic iteration docno relevance); got more; the line "
                                     "looks like a run line (topic Q0 docno rank score tag): is the file a run?")):
        readers.read_qrels(run)
    with raises_at(qrels, 2, ".*" + re.escape("; the line looks like a qrels line (topic iteration docno relevance): "
                                       "is the file qrels?")):
        readers.read_run(qrels)
    # a line of neither kind gets no hint
    bad = write(tmp_path, "b.txt", "1 0 d1 1 x\n")
    with pytest.raises(ValueError, match=r"got more$"):
        readers.read_qrels(bad)


def test_evaluate_with_swapped_files_names_the_arguments(tmp_path):
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 0.5 tag\n1 Q0 d2 2 0.4 tag\n")
    qrels = write(tmp_path, "q.txt", "1 0 d1 1\n")
    with pytest.raises(ValueError, match=re.escape(f"qrels ({run}) looks like a run and run ({qrels}) like "
                                                   "qrels: pass the qrels as qrels= and the run as run=")):
        fastndcg.evaluate(["ndcg"], run, qrels)
    assert fastndcg.evaluate(["ndcg"], qrels, run).aggregated


@pytest.mark.parametrize("chunk_rows", [1, 2, 1 << 20])
def test_evaluate_svmlight_names_the_lines(tmp_path, chunk_rows):
    # the stream evaluator gathers small chunks into one kernel call; a problem is still at its line
    # (before: "chunk 1 (queries from number 1, rows from 2, first query id 2): labels must be ...")
    from fastndcg.stream._sources import evaluate_svmlight

    data = write(tmp_path, "d.svm", "1 qid:1\n0 qid:1\n# c\n1 qid:2\n2.5 qid:2\n0 qid:3\n")
    pred = write(tmp_path, "p.txt", "0.1\n0.2\n0.3\n0.4\n1e39\n")
    with raises_at(data, 5, r"labels must be non-negative integers .*; got 2\.5$"):
        evaluate_svmlight(data, pred, 10, convention="lightgbm", chunk_rows=chunk_rows)
    # (torchmetrics itself ranks 1e39 as inf: float32_overflow="inf"; the error is the other choice)
    f32_error = fastndcg.get_preset("torchmetrics").replace(float32_overflow="error")
    with raises_at(pred, 5, r"scores must stay finite when rounded to float32 .*; got 1e\+39$"):
        evaluate_svmlight(data, pred, 10, convention=f32_error, chunk_rows=chunk_rows)
