"""File readers: SVMlight/LETOR, predictions, group files, TREC qrels/runs, alignment."""
from __future__ import annotations

import bz2
import gzip
import lzma
import re
import tracemalloc

import numpy as np

from fastndcg.measures._aligned import aligned_mean_ndcg, aligned_ndcg
import pytest

import fastndcg
import fastndcg.io as readers
from fastndcg.io import _files, _joined_runs, _joining, _trec
from conftest import require
import fastndcg.io
from fastndcg.conventions import _presets


def write(tmp_path, name, text, mode="w"):
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    return str(p)


def raises_at(path, line, match):
    """pytest.raises(ValueError) whose message starts with 'path:line:' and matches."""
    return pytest.raises(ValueError, match=re.escape(f"{path}:{line}: ") + ".*" + match)


# ----------------------------------------------------------------------------- SVMlight


@pytest.mark.peers
def test_svmlight_mq2008_matches_sklearn(shared_data):
    load_svmlight_file = require("sklearn.datasets").load_svmlight_file
    path = str(shared_data / "mq2008" / "test.txt")
    d = readers.read_svmlight(path, docids=True, features=True)
    X, y, qid = load_svmlight_file(path, query_id=True, zero_based=False)
    assert d.n_rows == 2874 and d.n_queries == 156           # SOURCE.md
    np.testing.assert_array_equal(d.labels, y)
    np.testing.assert_array_equal(d.qid, qid)
    assert d.order is None
    assert d.docids[0] == "GX004-93-7097963" and d.docids.shape == (2874,)
    M = d.feature_matrix()
    assert M.shape == (2874, 47)                               # indices 1..46 as written
    assert abs(M[:, 1:] - X).max() == 0
    np.testing.assert_array_equal(np.diff(d.offsets).sum(), 2874)
    assert d.lines[0] == 1 and d.lines[-1] == 2874


@pytest.mark.peers
def test_svmlight_group_file_lightgbm(shared_data):
    load_svmlight_file = require("sklearn.datasets").load_svmlight_file
    base = shared_data / "lightgbm-rank"
    d = readers.read_svmlight(base / "rank.train", group=base / "rank.train.query")
    X, y = load_svmlight_file(str(base / "rank.train"))
    np.testing.assert_array_equal(d.labels, y)
    assert d.qid is None and d.n_queries == 201 and d.n_rows == 3005
    np.testing.assert_array_equal(d.offsets, fastndcg.offsets_from_group_sizes(np.loadtxt(base / "rank.train.query", dtype=int)))
    np.testing.assert_array_equal(d.query_ids, np.arange(201))


LINES = ["2 qid:7 1:0.5 3:1.25 #docid = A1 inc = 1", "0 qid:7 2:1 #docid = A2", "1 qid:3 1:2.5e-1 # B1 extra",
         "", "# a comment line", "0 qid:3 4:-1 #docid:B2"]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("final_newline", [True, False])
@pytest.mark.parametrize("block_size", [7, 1 << 20])
def test_svmlight_crlf_blocks_and_final_newline(tmp_path, newline, final_newline, block_size):
    text = newline.join(LINES) + (newline if final_newline else "")
    path = write(tmp_path, "d.svm", text.encode())
    d = readers.read_svmlight(path, docids=True, features=True, block_size=block_size)
    np.testing.assert_array_equal(d.labels, [2, 0, 1, 0])
    np.testing.assert_array_equal(d.qid, [7, 7, 3, 3])
    np.testing.assert_array_equal(d.offsets, [0, 2, 4])
    np.testing.assert_array_equal(d.query_ids, [7, 3])
    assert d.docids.tolist() == ["A1", "A2", "B1", "B2"]
    np.testing.assert_array_equal(d.lines, [1, 2, 3, 6])
    data, indices, indptr, n_features = d.features
    np.testing.assert_array_equal(indptr, [0, 2, 3, 4, 5])
    np.testing.assert_array_equal(indices, [1, 3, 2, 1, 4])
    np.testing.assert_array_equal(data, [0.5, 1.25, 1.0, 0.25, -1.0])
    assert n_features == 5


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_svmlight_compressed(tmp_path, compress):
    raw = ("\n".join(LINES) + "\n").encode()
    plain = readers.read_svmlight(write(tmp_path, "p.svm", raw), docids=True)
    packed = readers.read_svmlight(write(tmp_path, "c.svm.x", compress(raw)), docids=True, block_size=5)
    np.testing.assert_array_equal(plain.labels, packed.labels)
    assert plain.docids.tolist() == packed.docids.tolist()


def test_svmlight_features_are_not_parsed_unless_asked(tmp_path):
    path = write(tmp_path, "d.svm", "1 qid:1 1:x 2:\n0 qid:1 junk\n")
    d = readers.read_svmlight(path)
    np.testing.assert_array_equal(d.labels, [1, 0])
    with raises_at(path, 1, "bad feature"):
        readers.read_svmlight(path, features=True)


@pytest.mark.parametrize("text, line, match", [
    ("1 qid:1\nx qid:1\n", 2, "label"),
    ("1 qid:1\n1.5e qid:1\n", 2, "label"),
    ("1 qid:1\nnan qid:1\n", 2, "label"),
    ("1 qid:a\n", 1, "bad qid"),
    ("1 qid:1\n1 qid:\n", 2, "bad qid"),
    ("1 qid:1.5 1:2\n", 1, "bad qid"),
    ("1 qid:99999999999999999999\n", 1, "bad qid"),
    ("1 qid:1\n0 1:1\n", 2, "some lines have qid"),
    ("1 1:1\n0 qid:4 1:1\n", 2, "some lines have qid"),
    ("1 qid:1 #docid = a\n0 qid:1\n", 2, "no doc id"),
    ("1 qid:1 #docid = a\n0 qid:1 #   \n", 2, "no doc id"),
])
def test_svmlight_malformed_lines(tmp_path, text, line, match):
    path = write(tmp_path, "bad.svm", text)
    with raises_at(path, line, match):
        readers.read_svmlight(path, docids="docid" in text)


def test_svmlight_repeated_and_unsorted_qids(tmp_path):
    path = write(tmp_path, "r.svm", "1 qid:5\n0 qid:5\n1 qid:2\n0 qid:5\n1 qid:2\n")
    with raises_at(path, 4, r"qid 5 appears again; its rows started at line 1"):
        readers.read_svmlight(path)
    d = readers.read_svmlight(path, qid_order="any")
    np.testing.assert_array_equal(d.offsets, [0, 3, 5])
    np.testing.assert_array_equal(d.order, [0, 1, 3, 2, 4])
    np.testing.assert_array_equal(d.grouped(d.labels), [1, 0, 0, 1, 1])
    np.testing.assert_array_equal(d.query_ids, [5, 2])
    unsorted = write(tmp_path, "u.svm", "1 qid:5\n0 qid:2\n")
    assert readers.read_svmlight(unsorted).n_queries == 2
    with raises_at(unsorted, 2, "qids must be sorted"):
        readers.read_svmlight(unsorted, qid_order="sorted")


def test_group_file_errors(tmp_path):
    data = write(tmp_path, "d.svm", "1 1:1\n0 1:1\n1 1:1\n")
    with raises_at(data, 3, r"this row \(row 3\) is beyond the 2 rows that the group sizes of .*g1 add up to"):
        readers.read_svmlight(data, group=write(tmp_path, "g1", "1\n1\n"))
    with raises_at(str(tmp_path / "g2"), 2, "not an integer"):
        readers.read_svmlight(data, group=write(tmp_path, "g2", "1\n1.5\n"))
    with raises_at(str(tmp_path / "g3"), 2, "must be >= 0"):
        readers.read_group_file(write(tmp_path, "g3", "4\n-1\n"))
    with raises_at(str(tmp_path / "g4"), 2, "empty line"):
        readers.read_group_file(write(tmp_path, "g4", "1\n\n2\n"))
    qdata = write(tmp_path, "q.svm", "1 qid:1\n0 qid:1\n1 qid:2\n")
    assert readers.read_svmlight(qdata, group=[2, 1]).n_queries == 2
    with raises_at(qdata, 2, "disagree"):
        readers.read_svmlight(qdata, group=[1, 2])


# ----------------------------------------------------------------------------- predictions


def test_predictions(tmp_path):
    path = write(tmp_path, "p.txt", "0.5\n-1e-3\r\n  7\n")
    np.testing.assert_array_equal(readers.read_predictions(path), [0.5, -1e-3, 7.0])
    np.testing.assert_array_equal(readers.read_predictions(path, n=3), [0.5, -1e-3, 7.0])
    with pytest.raises(ValueError, match=re.escape(f"{path}:4: the prediction file ends after 3 scores but the data file d.svm has 4 rows")):
        readers.read_predictions(path, n=4, data_path="d.svm")
    with raises_at(path, 3, "has 3 scores but the data has only 2 rows"):
        readers.read_predictions(path, n=2)
    ranklib = write(tmp_path, "rl.txt", "1\t0\t-0.25\n1\t1\t0.75\n")
    np.testing.assert_array_equal(readers.read_predictions(ranklib, column=2), [-0.25, 0.75])
    with raises_at(ranklib, 1, "several fields"):
        readers.read_predictions(ranklib)
    with raises_at(ranklib, 1, "no field number 5"):
        readers.read_predictions(ranklib, column=5)


@pytest.mark.parametrize("text, line, match", [
    ("1\nabc\n", 2, "not a finite number"),
    ("1\n\n2\n", 2, "empty line"),
    ("1\nnan\n", 2, "not a finite number"),
    ("1\ninf\n", 2, "not a finite number"),
    ("1\n2,5\n", 2, "not a finite number"),
])
def test_predictions_malformed(tmp_path, text, line, match):
    path = write(tmp_path, "p.txt", text)
    with raises_at(path, line, match):
        readers.read_predictions(path)


# ----------------------------------------------------------------------------- streaming


def test_iter_svmlight_equals_read(shared_data, tmp_path):
    path = shared_data / "mq2008" / "test.txt"
    whole = readers.read_svmlight(path, docids=True)
    scores = np.random.default_rng(0).random(whole.n_rows)
    pred = tmp_path / "p.txt"
    np.savetxt(pred, scores, fmt="%.17g")
    for chunk_rows, block in ((1, 1 << 20), (300, 4096), (10 ** 9, 1 << 20)):
        chunks = list(readers.iter_svmlight(path, pred, docids=True, chunk_rows=chunk_rows, block_size=block))
        assert all(np.diff(c.offsets).min() > 0 for c in chunks)
        np.testing.assert_array_equal(np.concatenate([c.labels for c in chunks]), whole.labels)
        np.testing.assert_array_equal(np.concatenate([c.scores for c in chunks]), scores)
        np.testing.assert_array_equal(np.concatenate([c.query_ids for c in chunks]), whole.query_ids)
        assert np.concatenate([c.docids for c in chunks]).tolist() == whole.docids.tolist()
        assert [c.first_row for c in chunks] == list(np.cumsum([0] + [c.n_rows for c in chunks[:-1]]))
        if chunk_rows == 1:
            assert len(chunks) == 156
        per_query = np.concatenate([fastndcg.ndcg(c.scores, c.labels.astype(int), c.offsets, 10) for c in chunks])
        np.testing.assert_array_equal(per_query, fastndcg.ndcg(scores, whole.labels.astype(int), whole.offsets, 10))


def test_iter_svmlight_group_file(shared_data):
    base = shared_data / "lightgbm-rank"
    whole = readers.read_svmlight(base / "rank.test", group=base / "rank.test.query")
    chunks = list(readers.iter_svmlight(base / "rank.test", group=base / "rank.test.query", chunk_rows=100,
                                        block_size=3000))
    offs = np.concatenate([[0]] + [c.offsets[1:] + c.first_row for c in chunks])
    np.testing.assert_array_equal(offs, whole.offsets)
    np.testing.assert_array_equal(np.concatenate([c.labels for c in chunks]), whole.labels)


def test_iter_svmlight_errors(tmp_path):
    path = write(tmp_path, "d.svm", "1 qid:1\n0 qid:1\n1 qid:2\n0 qid:1\n")
    with raises_at(path, 4, "qid 1 appears again"):
        list(readers.iter_svmlight(path, chunk_rows=1))
    with raises_at(path, 4, "qid 1 appears again"):
        list(readers.iter_svmlight(path))
    ok = write(tmp_path, "ok.svm", "1 qid:1\n0 qid:1\n1 qid:2\n")
    short = write(tmp_path, "short.txt", "1\n2\n")
    with pytest.raises(ValueError, match=re.escape(short) + r":\d+: the prediction file ends after 2 scores"):
        list(readers.iter_svmlight(ok, short))
    long = write(tmp_path, "long.txt", "1\n2\n3\n4\n")
    with raises_at(long, 4, "more scores than"):
        list(readers.iter_svmlight(ok, long, chunk_rows=1))
    nogroup = write(tmp_path, "ng.svm", "1 1:1\n")
    with pytest.raises(ValueError, match="no qid"):
        list(readers.iter_svmlight(nogroup))


def test_read_svmlight_memory_is_bounded_by_the_arrays(tmp_path):
    # ~12 MB of text, 40k rows: the arrays are ~1 MB; reading must not hold the file.
    rng = np.random.default_rng(0)
    n = 40_000
    feats = " ".join(f"{j}:0.{j:06d}" for j in range(1, 26))
    body = "".join(f"{l} qid:{q} {feats} #docid = D{i}\n"
                   for i, (l, q) in enumerate(zip(rng.integers(0, 3, n), np.repeat(np.arange(n // 40), 40))))
    path = write(tmp_path, "big.svm", body)
    size = len(body)
    assert size > 10_000_000
    tracemalloc.start()
    try:
        d = readers.read_svmlight(path, block_size=1 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    arrays = d.labels.nbytes + d.qid.nbytes + d.lines.nbytes + d.offsets.nbytes
    assert d.n_rows == n
    # arrays (grown by 1.5x) + a few 1 MiB blocks; nowhere near the file size
    assert peak < 2 * arrays + 6 * (1 << 20), (peak, arrays, size)
    assert peak < size / 2


# ----------------------------------------------------------------------------- TREC files


def test_qrels_comments_and_hash_in_docno(shared_data):
    base = shared_data / "trec_eval-test"
    with_comments = readers.read_qrels(base / "qrels.test.with-comments")
    plain = readers.read_qrels(base / "qrels.test")
    assert with_comments.topics.tolist() == ["301", "302", "303"] == plain.topics.tolist()
    assert "CR#93E-1860" in with_comments.docnos().tolist()
    assert len(plain) == 3681                                   # SOURCE.md
    np.testing.assert_array_equal(np.diff(plain.offsets), [1708, 1061, 912])
    d = plain.to_dict()
    assert d["301"]["CR93E-1282"] == 1 and d["301"]["CR93E-10279"] == 0


def test_qrels_negative_levels(shared_data):
    q = readers.read_qrels(shared_data / "trec_eval-test" / "qrels.rel_level")
    levels, counts = np.unique(q.relevance, return_counts=True)
    assert dict(zip(levels.tolist(), counts.tolist())) == {-1: 304, 0: 2818, 1: 462, 2: 14, 3: 77, 4: 6}


@pytest.mark.parametrize("text, line, match", [
    ("1 0 a 1\n1 0 b\n", 2, "expected 4 fields"),
    ("1 0 a 1\n1 0 b 1 extra\n", 2, "got more"),
    ("1 0 a 1\n1 0 b x\n", 2, "not an integer"),
    ("1 0 a 1\n1 0 b 1.0\n", 2, "not an integer"),
    ("1 0 a 1\n2 0 a 1\n1 0 a 0\n", 3, "duplicate docno 'a' for topic '1' \\(also on line 1\\)"),
])
def test_qrels_malformed(tmp_path, text, line, match):
    path = write(tmp_path, "q.txt", text)
    with raises_at(path, line, match):
        readers.read_qrels(path)


@pytest.mark.parametrize("text, line, match", [
    ("1 Q0 a 1 0.5 t\n1 Q0 b 2 0.4\n", 2, "expected 6 fields"),
    ("1 Q0 a 1 0.5 t\n1 Q0 b 2 high t\n", 2, "score"),
    ("1 Q0 a 1 0.5 t\n1 Q0 b 2 nan t\n", 2, "score"),
    ("1 Q0 a 1 0.5 t\n2 Q0 a 1 0.5 t\n1 Q0 a 3 0.1 t\n", 3, "duplicate docno 'a' for topic '1'"),
])
def test_run_malformed(tmp_path, text, line, match):
    path = write(tmp_path, "r.txt", text)
    with raises_at(path, line, match):
        readers.read_run(path)


def test_run_fields_and_order(shared_data, tmp_path):
    trunc = readers.read_run(shared_data / "trec_eval-test" / "results.trunc")   # interleaved topics, junk fields
    assert trunc.topics.tolist() == ["301", "303"] and len(trunc) == 584 and trunc.name == "STANDARD"
    docs = trunc.docnos()
    for t in range(trunc.n_topics):                                              # docno order within a topic
        seg = docs[trunc.offsets[t]:trunc.offsets[t + 1]].tolist()
        assert seg == sorted(seg, key=lambda s: s.encode())
    path = write(tmp_path, "r.txt", "# comment\n\nq1 Q0 d2 9 1.5 tagA\n\tq1  Q0 d1 1  2 tagB more\n")
    run = readers.read_run(path)
    assert run.docnos().tolist() == ["d1", "d2"] and run.scores.tolist() == [2.0, 1.5] and run.name == "tagB"
    np.testing.assert_array_equal(run.file_row, [1, 0])
    np.testing.assert_array_equal(run.lines, [4, 3])


def test_empty_files(tmp_path):
    empty = write(tmp_path, "e.txt", "# nothing\n\n")
    with pytest.raises(ValueError, match="no judgments"):
        readers.read_qrels(empty)
    with pytest.raises(ValueError, match="no results"):
        readers.read_run(empty)


# ----------------------------------------------------------------------------- alignment


def _qrels_run(tmp_path, qrels, run):
    q = write(tmp_path, "q.txt", "".join(f"{t} 0 {d} {r}\n" for t, d, r in qrels))
    r = write(tmp_path, "r.txt", "".join(f"{t} Q0 {d} 0 {s} x\n" for t, d, s in run))
    return q, r


def test_align_conventions_golden_values(tmp_path):
    """conventions.md §2.2 observed values."""
    q, r = _qrels_run(tmp_path, [("1", "a", 2), ("1", "b", 1), ("1", "c", 1)], [("1", "a", 3), ("1", "x", 2)])
    a = readers.align_run(r, q)
    assert aligned_ndcg(a, None)[0] == pytest.approx(0.6387878864795979, abs=1e-15)
    np.testing.assert_allclose(aligned_ndcg(a, [2, 5], convention="trec_eval_cut")[0],
                               [0.7601875334318685, 0.6387878864795979], atol=1e-15)
    np.testing.assert_array_equal(a.labels, [2, 0])
    np.testing.assert_array_equal(a.ideal_labels, [2, 1, 1])
    q, r = _qrels_run(tmp_path, [("1", "a", -1), ("1", "b", 1)], [("1", "a", 2), ("1", "b", 1)])
    a = readers.align_run(r, q)
    assert aligned_ndcg(a, None)[0] == pytest.approx(0.6309297535714575, abs=1e-15)
    np.testing.assert_array_equal(a.labels, [0, 1])
    for judged, expected in (([("1", "a", 1), ("1", "b", 0)], 0.0), ([("1", "a", 0), ("1", "b", 1)], 1.0),
                             ([("1", "d10", 0), ("1", "d9", 1)], 1.0)):
        docs = [d for _, d, _ in judged]
        q, r = _qrels_run(tmp_path, judged, [("1", docs[0], 1.0), ("1", docs[1], 1.0)])
        assert aligned_ndcg(readers.align_run(r, q), 1, convention="trec_eval_cut")[0] == expected


def test_align_missing_and_ignored_topics(tmp_path):
    q, r = _qrels_run(tmp_path, [("1", "a", 1), ("2", "a", 0), ("3", "b", 2)],
                      [("1", "a", 1.0), ("2", "z", 1.0), ("9", "a", 1.0)])
    with raises_at(q, 3, r"1 judged topic\(s\) have no results in .*'3'.*-c"):
        readers.align_run(r, q)
    zero = readers.align_run(r, q, missing="zero")
    assert zero.qids.tolist() == ["1", "2", "3"] and zero.missing_qids == ["3"] and zero.ignored_qids == ["9"]
    np.testing.assert_array_equal(zero.offsets, [0, 1, 2, 2])
    np.testing.assert_array_equal(aligned_ndcg(zero, None), [1.0, 0.0, 0.0])
    assert aligned_mean_ndcg(zero, None) == pytest.approx(1 / 3)          # conventions.md: -c gives all 0.3333
    skip = readers.align_run(r, q, missing="skip")
    assert skip.qids.tolist() == ["1", "2"]
    np.testing.assert_array_equal(skip.ideal_offsets, [0, 1, 2])
    with pytest.raises(ValueError, match="missing must be"):
        readers.align_run(r, q, missing="ignore")


def test_align_max_docs_and_file_order(tmp_path):
    q, r = _qrels_run(tmp_path, [("1", "a", 1), ("1", "b", 1), ("1", "c", 1)],
                      [("1", "c", 1.0), ("1", "a", 3.0), ("1", "b", 1.0)])
    a = readers.align_run(r, q)
    np.testing.assert_array_equal(a.scores, [1.0, 3.0, 1.0])     # file order within the topic
    # rank by (score, docno) ascending: b (1.0) 0, c (1.0) 1, a (3.0) 2
    np.testing.assert_array_equal(a.tie_key, [1, 2, 0])
    top2 = readers.align_run(r, q, max_docs=2)                   # a (3.0), then c before b (docno desc)
    np.testing.assert_array_equal(top2.scores, [1.0, 3.0])
    np.testing.assert_array_equal(top2.tie_key, [1, 2])
    for run in (r, readers.read_run(r)):                         # both paths: one key
        np.testing.assert_array_equal(readers.align_run(run, q).tie_key, [1, 2, 0])
    assert top2.n_retrieved.tolist() == [2]
    with pytest.raises(ValueError, match="max_docs"):
        readers.align_run(r, q, max_docs=0)


def _trec_eval_reference(qrels: dict, run: dict, k=None, full_ideal=True, float32=False):
    """trec_eval's ndcg / ndcg_cut in plain Python (conventions.md §2.2)."""
    out = {}
    for topic, judged in qrels.items():
        if topic not in run:
            continue
        docs = list(run[topic].items())
        key = (lambda d: (-float(np.float32(d[1])), d[0].encode())) if float32 else (lambda d: (-d[1], d[0].encode()))
        # score descending, then docno descending: sort by docno descending first, then stable by score
        docs.sort(key=lambda d: d[0].encode(), reverse=True)
        docs.sort(key=lambda d: key(d)[0])
        gains = [max(judged.get(d, 0), 0) for d, _ in docs]
        ideal = sorted((max(v, 0) for v in judged.values()), reverse=True)
        depth = len(gains) if k is None else k
        # unjudged and non-relevant documents add 0.0, which leaves a sum's bits as they are: skipped
        dcg = sum(g / np.log2(r + 2) for r, g in enumerate(gains[:depth]) if g)
        idepth = len(ideal) if (full_ideal or k is None) else k
        idcg = sum(g / np.log2(r + 2) for r, g in enumerate(ideal[:idepth]) if g)
        out[topic] = dcg / idcg if idcg > 0 else 0.0
    return out


@pytest.fixture(scope="module")
def robust03_qrels(shared_data):
    """The Robust 2003 qrels and their dict, read once for the runs compared against them."""
    qrels = readers.read_qrels(shared_data / "trectools-robust03" / "robust03_qrels.txt")
    return qrels, qrels.to_dict()


@pytest.mark.parametrize("run_name", ["input.MU03rob01.gz", "input.rutcor03100.gz", "input.NLPR03vb10.gz"])
def test_robust03_tie_heavy_runs_get_trec_eval_order(shared_data, robust03_qrels, run_name):
    base = shared_data / "trectools-robust03"
    qrels, qd = robust03_qrels
    run = readers.read_run(base / "runs" / run_name)
    a = readers.align_run(run, qrels)
    rd = {}
    docs, scores = run.docnos().tolist(), run.scores.tolist()
    for t, s, e in zip(run.topics.tolist(), run.offsets[:-1].tolist(), run.offsets[1:].tolist()):
        rd[t] = dict(zip(docs[s:e], scores[s:e]))
    full = _trec_eval_reference(qd, rd)
    cut10 = _trec_eval_reference(qd, rd, k=10, full_ideal=False)
    np.testing.assert_allclose(aligned_ndcg(a, None), [full[t] for t in a.qids], rtol=0, atol=1e-12)
    np.testing.assert_allclose(aligned_ndcg(a, 10, convention="trec_eval_cut"), [cut10[t] for t in a.qids], rtol=0, atol=1e-12)
    # and the ties matter: input order instead of docno descending changes the result
    stable = fastndcg.get_preset("trec_eval_cut").replace(ties="stable")
    if run_name != "input.NLPR03vb10.gz":
        assert not np.array_equal(aligned_ndcg(a, 10, convention=stable, ideal="qrels"),
                                  aligned_ndcg(a, 10, convention="trec_eval_cut"))


@pytest.mark.peers
@pytest.mark.slow
def test_robust03_all_runs_match_pytrec_eval(shared_data):
    pytrec_eval = require("pytrec_eval")
    base = shared_data / "trectools-robust03"
    qrels = readers.read_qrels(base / "robust03_qrels.txt")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), {"ndcg", "ndcg_cut_10"})
    # pytrec_eval bundles trec_eval 9.x: scores in float32
    full = fastndcg.get_preset("trec_eval").replace(score_precision="float32")
    cut = fastndcg.get_preset("trec_eval_cut").replace(score_precision="float32")
    runs = sorted((base / "runs").glob("input.*.gz"))
    assert len(runs) == 17
    for path in runs:
        run = readers.read_run(path)
        a = readers.align_run(run, qrels)
        assert a.n_queries == 100
        docs, scores = run.docnos().tolist(), run.scores.tolist()
        rd = {t: dict(zip(docs[s:e], scores[s:e]))
              for t, s, e in zip(run.topics.tolist(), run.offsets[:-1].tolist(), run.offsets[1:].tolist())}
        ref = evaluator.evaluate(rd)
        np.testing.assert_allclose(aligned_ndcg(a, None, convention=full, ideal="qrels"),
                                   [ref[t]["ndcg"] for t in a.qids], rtol=0, atol=1e-12, err_msg=str(path))
        np.testing.assert_allclose(aligned_ndcg(a, 10, convention=cut, ideal="qrels"),
                                   [ref[t]["ndcg_cut_10"] for t in a.qids], rtol=0, atol=1e-12, err_msg=str(path))


def _assert_same_alignment(a, b, what):
    for f in ("scores", "labels", "offsets", "tie_key", "ideal_labels", "ideal_offsets", "status", "n_retrieved"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f"{what}: {f}")
    assert a.qids.tolist() == b.qids.tolist() and a.missing_qids == b.missing_qids, what
    assert a.ignored_qids == b.ignored_qids and a.run_name == b.run_name, what


@pytest.mark.parametrize("shuffle", [False, True])
def test_join_run_file_equals_the_run_table(shared_data, tmp_path, shuffle):
    # issue 27: a run path is joined with the qrels while it is read (pieces of whole
    # topics; a run whose topics come back is read again as one piece): the same arrays
    # as align_run on the Run table, for any piece size and thread count
    from fastndcg.io import _joining as align

    base = shared_data / "trectools-robust03"
    qrels = readers.read_qrels(base / "robust03_qrels.txt")
    src = base / "runs" / "input.humR03dc.gz"
    path = src
    if shuffle:       # lines in a random order: topics interrupted by others (legal for trec_eval)
        lines = gzip.decompress(src.read_bytes()).splitlines(keepends=True)
        rng = np.random.default_rng(3)
        path = write(tmp_path, "shuffled.run", b"".join(lines[i] for i in rng.permutation(len(lines))), mode="wb")
    table = readers.read_run(path)
    for kw in (dict(missing="zero"), dict(missing="skip", max_docs=20), dict(missing="zero", max_docs=5,
                                                                                float32_scores=True)):
        ref = readers.align_run(table, qrels, **kw)
        _assert_same_alignment(ref, readers.align_run(path, qrels, **kw), f"path {kw}")
        for chunk_rows, block_size, threads in ((1, 4096, 1), (3000, 65536, 2), (None, 1 << 20, 2)):
            try:
                pieces = list(_joining.iter_joined(path, qrels, chunk_rows=chunk_rows, block_size=block_size,
                                                n_threads=threads, stream=False))
            except align._TopicAgain:
                assert shuffle and chunk_rows is not None
                continue
            joined = _joined_runs.concat_pieces(qrels, pieces)
            got = joined.aligned(n_threads=threads, **kw)
            _assert_same_alignment(ref, got, f"{kw} chunk_rows={chunk_rows} block_size={block_size}")
        # small pieces: a shuffled run's topics come back, and the file is read again as one piece
        joined = _joining.join_run_file(path, qrels, chunk_rows=500, block_size=8192)
        _assert_same_alignment(ref, joined.aligned(**kw), f"join_run_file small pieces {kw}")


def test_join_run_file_errors_as_read_run(tmp_path):
    # the joined path keeps read_run's errors and their order: a malformed line further
    # on is reported before a duplicate docno found in an earlier piece, and an error in
    # the run before one in the qrels (the run used to be read first)
    from fastndcg.io import _joining as align

    qrels = write(tmp_path, "q.txt", "1 0 a 1\n2 0 b 1\n")
    lines = ["1 Q0 a 1 1 t", "1 Q0 a 2 1 t"] + [f"2 Q0 d{i} 1 1 t" for i in range(50)] + ["2 Q0 x 1 oops t"]
    run = write(tmp_path, "r.txt", "\n".join(lines) + "\n")
    q = readers.read_qrels(qrels)
    with raises_at(run, 53, "score"):
        list(_joining.iter_joined(run, q, chunk_rows=1, block_size=32, stream=False))
    with raises_at(run, 2, "duplicate docno 'a' for topic '1' .also on line 1."):
        list(_joining.iter_joined(run, q, chunk_rows=1, block_size=32, stream=True))
    dup_only = write(tmp_path, "d.txt", "1 Q0 a 1 1 t\n1 Q0 b 1 1 t\n1 Q0 a 1 1 t\n")
    with raises_at(dup_only, 3, "duplicate docno 'a' for topic '1' .also on line 1."):
        readers.align_run(dup_only, q)
    bad_qrels = write(tmp_path, "bq.txt", "1 0 a x\n")
    with raises_at(run, 53, "score"):
        readers.align_run(run, bad_qrels)
    with raises_at(bad_qrels, 1, "relevance"):
        readers.align_run(write(tmp_path, "ok.txt", "1 Q0 a 1 1 t\n"), bad_qrels)


def test_iter_run_pieces(shared_data, tmp_path):
    path = shared_data / "trectools-robust03" / "runs" / "input.humR03dc.gz"
    whole = readers.read_run(path)
    pieces = list(_trec.iter_run(path, chunk_rows=2500, block_size=20000))
    assert len(pieces) > 2 and sum(len(p) for p in pieces) == len(whole)
    assert sorted(t for p in pieces for t in p.topics.tolist()) == whole.topics.tolist()
    got = {}
    for p in pieces:
        for t, s, e in zip(p.topics.tolist(), p.offsets[:-1].tolist(), p.offsets[1:].tolist()):
            got[t] = (p.docnos()[s:e].tolist(), p.scores[s:e].tolist())
    wd = whole.docnos()
    for i, t in enumerate(whole.topics.tolist()):
        s, e = whole.offsets[i], whole.offsets[i + 1]
        assert got[t] == (wd[s:e].tolist(), whole.scores[s:e].tolist())
    bad = write(tmp_path, "r.txt", "1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n1 Q0 b 1 1 t\n")
    with raises_at(bad, 3, "topic '1' appears again"):
        list(_trec.iter_run(bad, chunk_rows=1))
    # the interruption inside one piece (the whole file is one piece) is caught too
    with raises_at(bad, 3, "topic '1' appears again"):
        list(_trec.iter_run(bad, chunk_rows=10**6))
    bad2 = write(tmp_path, "r2.txt", "2 Q0 a 1 1 t\n1 Q0 a 1 1 t\n1 Q0 c 1 1 t\n2 Q0 b 1 1 t\n1 Q0 b 1 1 t\n")
    with raises_at(bad2, 4, "topic '2' appears again"):
        list(_trec.iter_run(bad2, chunk_rows=10**6))


def test_ideal_source():
    assert _presets.ideal_source("trec_eval") == "qrels"
    assert _presets.ideal_source("standard") == "qrels"
    assert _presets.ideal_source("lightgbm") == "run"
    assert _presets.ideal_source(fastndcg.Convention(gain="linear")) == "qrels"


# ----------------------------------------------------------------------------- found by fuzzing (docs/fuzzing.md)


def test_trec_nul_byte_is_refused(tmp_path):
    # numpy's fixed-width bytes drop trailing NULs: "1\0" became topic "1" (a
    # false duplicate) and docno "a\0" was shown as "a"
    q = write(tmp_path, "q.txt", b"1 0 a 1\n1\x00 0 a 2\n")
    with raises_at(q, 2, "NUL byte"):
        readers.read_qrels(q)
    r = write(tmp_path, "r.txt", b"1 Q0 a 1 0.5 t\n# \x00 comments are not read\n1 Q0 a\x00 2 0.4 t\n")
    with raises_at(r, 3, "NUL byte"):
        readers.read_run(r)
    with raises_at(r, 3, "NUL byte"):
        list(_trec.iter_run(r))


def test_svmlight_nul_byte_in_docid_is_refused(tmp_path):
    # one NUL rule for every scanner (the TREC one): a NUL anywhere in a data
    # line, its comment included, whether or not doc ids are read
    path = write(tmp_path, "d.svm", b"1 qid:1 # docid = a\n0 qid:1 # docid = a\x00\n")
    with raises_at(path, 2, "NUL byte"):
        readers.read_svmlight(path)
    with raises_at(path, 2, "NUL byte"):
        readers.read_svmlight(path, docids=True)


def test_group_sizes_that_overflow_int64(tmp_path):
    # the running total wrapped around: sizes adding up to 2**64 + 3 gave
    # "offsets" [0, 2**63 - 1, -2, 3] for a 3-row file, accepted
    g = write(tmp_path, "g", "9223372036854775807\n9223372036854775807\n5\n")
    with raises_at(g, 2, r"more than 2\*\*63 - 1"):
        readers.read_group_file(g)
    data = write(tmp_path, "d.svm", "1 1:1\n0 1:1\n1 1:1\n")
    with raises_at(g, 2, r"more than 2\*\*63 - 1"):
        readers.read_svmlight(data, group=g)


def test_iter_svmlight_rows_beyond_the_group_sizes(tmp_path):
    # the fourth row was dropped silently (chunks of 3 rows, no error)
    data = write(tmp_path, "d.svm", "1 1:1\n0 1:1\n1 1:1\n0 1:1\n")
    g = write(tmp_path, "g", "2\n1\n")
    for chunk_rows in (1, 2, 100):
        with raises_at(data, 4, r"this row \(row 4\) is beyond the 3 rows"):
            list(readers.iter_svmlight(data, group=g, chunk_rows=chunk_rows))
    with raises_at(data, 4, r"this row \(row 4\) is beyond the 3 rows"):
        readers.read_svmlight(data, group=g)


def test_iter_svmlight_trailing_empty_queries(tmp_path):
    # a group file ending in empty queries was an error ("sizes sum to 3
    # rows but the file has 3 rows") where read_svmlight accepts it
    data = write(tmp_path, "d.svm", "1 1:1\n0 1:2\n1 1:1\n")
    g = write(tmp_path, "g", "2\n0\n1\n0\n")
    whole = readers.read_svmlight(data, group=g)
    np.testing.assert_array_equal(whole.offsets, [0, 2, 2, 3, 3])
    for chunk_rows in (1, 2, 100):
        chunks = list(readers.iter_svmlight(data, group=g, chunk_rows=chunk_rows))
        offs = np.concatenate([[0]] + [c.offsets[1:] + c.first_row for c in chunks])
        np.testing.assert_array_equal(offs, whole.offsets)
        np.testing.assert_array_equal(np.concatenate([c.query_ids for c in chunks]), whole.query_ids)
    empty = write(tmp_path, "e.svm", "")
    chunks = list(readers.iter_svmlight(empty, group=write(tmp_path, "g0", "0\n0\n")))
    assert [c.offsets.tolist() for c in chunks] == [[0, 0, 0]]


@pytest.mark.parametrize("kind, pos", [("gz", 30), ("gz", -6), ("bz2", 20), ("xz", 670)])
def test_corrupt_compressed_file_is_a_value_error_at_a_line(tmp_path, kind, pos):
    # a corrupt deflate stream raised zlib.error (not a ValueError); the
    # other errors named no line
    body = b"".join(b"1 0 d%d 1\n" % i for i in range(3000))
    z = bytearray({"gz": lambda b: gzip.compress(b, mtime=0), "bz2": bz2.compress, "xz": lzma.compress}[kind](body))
    z[pos] ^= 0xFF                       # gz -6: the CRC, checked after the last line
    path = write(tmp_path, "q.txt", bytes(z))
    with pytest.raises(ValueError, match=re.escape(path) + r":(\d+): cannot decompress") as err:
        readers.read_qrels(path, block_size=256)
    # the first line not handed out when the stream broke (decompressors
    # detect corruption a little after it, or only at the end for a CRC)
    assert 1 <= int(re.search(r":(\d+): ", str(err.value)).group(1)) <= 3001


@pytest.fixture(scope="module")
def truncated_gzip():
    """A 100,000-line qrels file gzipped and cut at 45%, and the number of lines before the cut
    (compressed once for both inflate implementations)."""
    import zlib

    body = b"".join(b"%d 0 clueweb09-en0000-00-%05d 1\n" % (i // 100, i) for i in range(100_000))
    z = gzip.compress(body, compresslevel=6, mtime=0)      # the gzip tool's level: 9 took 0.5 s on these lines
    cut = z[: len(z) * 45 // 100]
    return cut, zlib.decompressobj(31).decompress(cut).count(b"\n")


@pytest.mark.parametrize("inflate", ["default", "zlib"])
def test_truncated_gzip_names_the_line_where_the_stream_breaks(tmp_path, monkeypatch, truncated_gzip, inflate):
    # issue 24: a gzip file cut in the middle was reported at line 1 ("trunc.run.gz:1:
    # cannot decompress ...") though tens of thousands of lines had been decoded: the
    # standard library drops what it decoded in the read that fails
    import zlib

    from fastndcg.io import _files as files

    if inflate == "zlib":                        # the standard library's inflate (no isal)
        monkeypatch.setattr(files, "_gzip_impl", zlib)
    cut, decodable = truncated_gzip
    assert decodable > 40_000
    path = write(tmp_path, "trunc.run.gz", cut, mode="wb")
    with raises_at(path, decodable + 1, "cannot decompress: Compressed file ended"):
        readers.read_qrels(path)


@pytest.mark.parametrize("kind", ["gz", "bz2", "xz"])
def test_compressed_files_with_several_members(tmp_path, kind):
    # gzip members (zero padding between them), bz2 and xz streams one after another
    # read as one file, as the standard library's readers do
    body = b"".join(b"%d 0 d%d %d\n" % (i % 7, i, i % 3) for i in range(5000))
    comp = {"gz": lambda b: gzip.compress(b, mtime=0) + b"\0" * 5, "bz2": bz2.compress, "xz": lzma.compress}[kind]
    path = write(tmp_path, "q." + kind, comp(body[:777]) + comp(body[777:]), mode="wb")
    plain = write(tmp_path, "q.txt", body, mode="wb")
    for block_size in (100, 1 << 20):
        assert b"".join(bytes(b) for b in _files.iter_line_blocks(path, block_size)) == body
    np.testing.assert_array_equal(readers.read_qrels(path).relevance, readers.read_qrels(plain).relevance)


def test_group_file_with_an_empty_query_and_qids(tmp_path):
    # qids 1,1,2 against sizes 2,0,1: the same boundaries, one more query;
    # this raised numpy's "zero-size array to reduction operation minimum"
    data = write(tmp_path, "d.svm", "1 qid:1\n0 qid:1\n1 qid:2\n")
    g = write(tmp_path, "g", "2\n0\n1\n")
    with raises_at(g, 2, "disagree: an empty query here"):
        readers.read_svmlight(data, group=g)
    with pytest.raises(ValueError, match=r"group\[1\]: the qids .* disagree"):
        readers.read_svmlight(data, group=[2, 0, 1])


def test_whole_file_errors_name_a_line(tmp_path):
    # these named no line ("path: no judgments in the file", "g: the group
    # sizes sum to ...", "iter_svmlight: give either ...")
    empty = write(tmp_path, "e.txt", "# nothing\n\n")
    with raises_at(empty, 3, "no judgments in the file: its 2 line"):
        readers.read_qrels(empty)
    with raises_at(empty, 3, "no results in the file"):
        readers.read_run(empty)
    with raises_at(empty, 3, "no results in the file"):
        list(_trec.iter_run(empty))
    nothing = write(tmp_path, "n.txt", "")
    with raises_at(nothing, 1, "the file is empty"):
        readers.read_run(nothing)
    data = write(tmp_path, "d.svm", "1 1:1\n\n0 1:1\n")
    g = write(tmp_path, "g", "1\n0\n3\n")
    with raises_at(g, 3, "the group sizes reach 4 rows here but .*d.svm has only 2 rows"):
        readers.read_svmlight(data, group=g)
    with raises_at(g, 3, "the group sizes reach 4 rows here"):
        list(readers.iter_svmlight(data, group=g))
    with raises_at(data, 1, "no qid: fields"):
        list(readers.iter_svmlight(data))
    qdata = write(tmp_path, "q.svm", "\n1 qid:1\n0 qid:2\n1 qid:1\n")
    with raises_at(qdata, 2, "not both"):
        list(readers.iter_svmlight(qdata, group=[1, 1, 1]))
    with raises_at(qdata, 4, "qid 1 appears again; its rows started at line 2.*cannot be combined with "
                             "qid_order='any'"):
        readers.read_svmlight(qdata, group=[2, 1], qid_order="any")


def test_svmlight_qids_is_the_deprecated_name_of_qid(tmp_path):
    # one meaning per name: qids are per query everywhere else in the API
    path = tmp_path / "a.txt"
    path.write_text("1 qid:7 1:0.5\n0 qid:7 1:0.1\n2 qid:3 1:0.2\n")
    d = readers.read_svmlight(path)
    assert d.qid.tolist() == [7, 7, 3] and d.query_ids.tolist() == [7, 3]
    with pytest.warns(DeprecationWarning, match="now called qid"):
        assert d.qids.tolist() == [7, 7, 3]


def _scan(buf: bytes, is_run: bool):
    """parse_trec's status (without the line count, which the caller's extra line moves),
    rows and docno bytes of a buffer of whole lines."""
    from fastndcg.io import _parse

    n = buf.count(b"\n") + 1
    arrays = [np.zeros(n) if is_run else np.zeros(0), np.zeros(0, np.int64) if is_run else np.zeros(n, np.int64),
              np.zeros(n, np.int64), np.zeros(len(buf) + 8, np.uint8), np.zeros(n, np.int64), np.zeros(n, np.int64),
              np.zeros(len(buf) + 8, np.uint8), np.zeros(n + 1, np.int64)]
    st = _parse.parse_trec(buf, 0, is_run, _parse.TrecOutputs(*arrays), 0)
    rows, segs = st[1], st[4]
    score, rel, lines, pool, dstart, seg_row, tpool, tstart = arrays
    return (st[:2] + st[3:], [a[:rows] for a in (score if is_run else rel, lines, dstart)],
            [a[:segs] for a in (seg_row, tstart)], bytes(pool[:st[3]]), bytes(tpool[:st[5]]))


def _assert_same_scan(a, b):
    assert a[0] == b[0]
    for x, y in zip(a[1] + a[2], b[1] + b[2]):
        np.testing.assert_array_equal(x, y)
    assert a[3:] == b[3:]


_SCAN_RUN_LINES = [
    b"1 Q0 d1 1 2.5 tag\n", b"1\tQ0\td2\t2\t2.25\ttag\r\n", b"  1 Q0 clueweb09-en0000-00-00001 3 1e-3 a b c\n",
    b"\n", b"   \t\n", b"# a comment\n", b"1 Q0 d\x01x 4 1.0 t\n", b"10 Q0 0123456789abcdef01 5 -0.5 run\x0b\n",
    b"10\x0cQ0\x0cd 6 7 t \n", b"2 Q0 d9 1 3.141592653589793 longer-tag-of-a-run-with-many-bytes\n",
    b"2 Q0 \x1fcontrol\x1fcharacters\x7f 1 2 t\n",
]


@pytest.mark.parametrize("extra", [b"", b"2 Q0 d 1\n", b"2 Q0 d 1 x t\n", b"2 Q0 d 1 5\n", b"2 Q0 d 1 5 \n"])
def test_trec_run_scanners_agree(extra):
    # a block without a NUL byte takes the fast scanner (fields found up to "\n"), one with a
    # NUL (here in a trailing comment, which is allowed) the line-by-line one: the same rows,
    # tag and first error
    buf = b"".join(_SCAN_RUN_LINES * 3 + [extra] + _SCAN_RUN_LINES)
    fast, lines = _scan(buf, True), _scan(buf + b"#\x00\n", True)
    _assert_same_scan(fast, lines)
    if not extra:
        assert fast[0][:2] == (0, 4 * 8)


@pytest.mark.parametrize("extra", [b"", b"1 0 d\n", b"1 0 d 1 x\n", b"1 0 d 1x\n", b"1\t0\tdocument-number-1\t-1\r\n"])
def test_trec_qrels_scanners_agree(extra):
    lines = [b"1 0 d1 1\n", b"\n", b"# c\n", b"1 0 d\x02 2\n", b" 2\t0 clueweb09-en0000-00-00001  0 \n"] * 2
    buf = b"".join(lines + [extra] + lines)
    _assert_same_scan(_scan(buf, False), _scan(buf + b"#\x00\n", False))
