"""The one door of streaming (fastndcg.stream.evaluate_stream): each kind of source gives exactly
what the function of before gave (still reachable from fastndcg.report, with a warning naming the
door), and a source or option it cannot use is an error naming the argument."""
from __future__ import annotations

import numpy as np
import pytest

import fastndcg
import fastndcg.io
import fastndcg.report
import fastndcg.stream
from fastndcg.stream import Chunk, StreamResult, evaluate_stream
from conftest import make_batch

KS = [1, 5, None]
FIELDS = ("n_queries", "n_rows", "n_chunks", "max_chunk_rows", "signatures")


def _old(name):
    """A function of before through its old public path, which warns and names the door."""
    with pytest.warns(DeprecationWarning, match=rf"fastndcg\.report\.{name} is deprecated .* use fastndcg\.stream\."):
        return getattr(fastndcg.report, name)


def assert_same(got, want):
    assert type(got) is type(want)
    np.testing.assert_array_equal(got.mean, want.mean)          # bit for bit (NaN == NaN)
    np.testing.assert_array_equal(got.ndcg, want.ndcg)
    if want.query_ids is None:
        assert got.query_ids is None
    else:
        np.testing.assert_array_equal(got.query_ids, want.query_ids)
    for f in FIELDS + tuple(f for f in ("run_name", "missing_qids", "ignored_qids") if hasattr(want, f)):
        assert getattr(got, f) == getattr(want, f), f


def _batch(rng, n_queries=40):
    scores, labels, offsets = make_batch(rng, n_queries=n_queries, max_docs=12, n_labels=3)
    return scores, labels, offsets


def test_chunks_as_evaluate_chunks(rng):
    scores, labels, offsets = _batch(rng)
    cut = int(offsets[17])
    parts = [(scores[:cut], labels[:cut], offsets[:18]), (scores[cut:], labels[cut:], offsets[17:] - cut)]
    got = evaluate_stream(iter(parts), KS, convention="lightgbm", keep="sums")
    assert_same(got, _old("evaluate_chunks")(parts, KS, convention="lightgbm", keep="sums"))
    assert isinstance(got, StreamResult)
    # Chunk objects too, and the per-query values are the in-memory ones
    chunks = [Chunk(*p, query_ids=np.arange(i * 100, i * 100 + len(p[2]) - 1)) for i, p in enumerate(parts)]
    res = evaluate_stream(chunks, 5)
    np.testing.assert_array_equal(res.ndcg, fastndcg.ndcg(scores, labels, offsets, 5))
    assert res.mean == fastndcg.mean_ndcg(scores, labels, offsets, 5)


@pytest.mark.parametrize("on_disk", [True, False])
def test_npy_as_evaluate_npy(tmp_path, rng, on_disk):
    scores, labels, offsets = _batch(rng)
    tie_key = rng.permutation(scores.shape[0]).astype(np.int64)
    weights = rng.random(offsets.shape[0] - 1) + 0.5
    arrays = {"s": scores, "l": labels, "o": offsets, "t": tie_key, "w": weights}
    if on_disk:
        for name, a in arrays.items():
            np.save(tmp_path / f"{name}.npy", a)
        arrays = {name: str(tmp_path / f"{name}.npy") for name in arrays}
    kw = dict(convention="trec_eval", tie_key=arrays["t"], weights=arrays["w"], chunk_rows=50)
    got = evaluate_stream((arrays["s"], arrays["l"], arrays["o"]), KS, **kw)
    assert_same(got, _old("evaluate_npy")(arrays["s"], arrays["l"], arrays["o"], KS, **kw))
    assert got.n_chunks > 3
    # the default convention and chunk size are those of before
    assert_same(evaluate_stream([arrays["s"], arrays["l"], arrays["o"]]),
                _old("evaluate_npy")(arrays["s"], arrays["l"], arrays["o"]))


def test_svmlight_as_evaluate_svmlight(tmp_path, rng):
    scores, labels, offsets = _batch(rng)
    offsets = offsets[np.r_[True, np.diff(offsets) > 0]]       # SVMlight has no empty queries
    qid = np.repeat(np.arange(offsets.shape[0] - 1) + 7, np.diff(offsets))
    data, pred = tmp_path / "d.txt", tmp_path / "p.txt"
    data.write_text("".join(f"{int(l)} qid:{q} 1:0.5\n" for l, q in zip(labels, qid)))
    pred.write_text("".join(f"{s!r}\n" for s in scores.tolist()))
    kw = dict(convention="letor4", chunk_rows=30, block_size=64)
    got = evaluate_stream(data, KS, predictions=pred, **kw)
    assert_same(got, _old("evaluate_svmlight")(data, pred, KS, **kw))
    np.testing.assert_array_equal(got.ndcg, fastndcg.ndcg(scores, labels, offsets, KS, convention="letor4"))


def _trec_files(tmp_path):
    (tmp_path / "qrels").write_text("".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(1, 9) for d in range(6)))
    # topics 1..6 in a shuffled order, 8 judged but absent, 99 not judged; ties within a topic
    lines = [f"{t} Q0 d{d} {d} {(d * 7 % 4) / 2} tag\n" for t in (3, 1, 6, 99, 2, 5, 4, 7) for d in range(5)]
    (tmp_path / "run").write_text("".join(lines))
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("convention", [None, "ranx"])
def test_trec_run_as_evaluate_run(tmp_path, convention):
    qpath, rpath = _trec_files(tmp_path)
    qrels = fastndcg.io.read_qrels(qpath)
    kw = dict(missing="zero", max_docs=4, chunk_rows=3, block_size=64)
    if convention is not None:
        kw["convention"] = convention
    got = evaluate_stream(rpath, KS, qrels=qrels, **kw)
    want = _old("evaluate_run")(qrels, rpath, KS, **kw)
    assert_same(got, want)
    assert got.missing_qids == ["8"] and got.ignored_qids == ["99"] and got.n_chunks > 2
    # qrels as a path; the default convention is trec_eval's, as before
    assert_same(evaluate_stream(str(rpath), 10, qrels=str(qpath), missing="skip"),
                _old("evaluate_run")(str(qpath), str(rpath), 10, missing="skip"))


@pytest.mark.peers
def test_parquet_as_evaluate_parquet(tmp_path, rng):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    scores, labels, offsets = _batch(rng)
    sizes = np.diff(offsets)
    q = np.repeat(np.arange(sizes.size), sizes)
    df = pd.DataFrame({"query": [f"q{v:03d}" for v in q], "y": labels, "s": scores,
                       "doc": [f"d{v}" for v in rng.permutation(q.size)]})
    path = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=23)
    kw = dict(query="query", label="y", score="s", doc_id="doc", convention="trec_eval", chunk_rows=40)
    got = evaluate_stream(path, KS, **kw)
    assert_same(got, _old("evaluate_parquet")(path, KS, **kw))
    assert got.n_chunks > 3


@pytest.mark.parametrize("source, options, error, match", [
    ("run.txt", {}, ValueError, r"source='run.txt': cannot tell what kind of file it is: pass qrels=.* predictions="),
    ("scores.npy", {}, ValueError, r"source='scores.npy': a \.npy source is three files or arrays"),
    (("s.npy", "l.txt", "o.npy"), {}, ValueError, r"source\[1\]='l.txt': \(scores, labels, offsets\) are \.npy"),
    (np.zeros(3), {}, TypeError, r"source= is an array: pass \(scores, labels, offsets\)"),
    (3, {}, TypeError, r"source= must be an iterable of chunks, .*; got int"),
    ("run.txt", {"qrels": "q", "predictions": "p"}, ValueError, r"pass qrels= .* or predictions= .*, not both"),
    ([], {"qrels": "q"}, TypeError, r"qrels= applies to a file named by source=; source is a list"),
    ([], {"chunk_rows": 5}, TypeError, r"chunk_rows= does not apply to an iterable of chunks"),
    ([], {"doc_id": "d"}, TypeError, r"doc_id= does not apply to an iterable of chunks: it is an option of a "
                                     r"Parquet file; an iterable of chunks takes only k, convention"),
    ("r.txt", {"qrels": "q", "weights": [1]}, TypeError,
     r"weights= does not apply to a TREC run with qrels=: it is an option of \(scores, labels, offsets\) .*; "
     r"a TREC run with qrels= takes ideal=, missing=, max_docs=, gains=, block_size=, progress=, chunk_rows="),
    ("d.parquet", {"missing": "zero"}, TypeError, r"missing= does not apply to a Parquet file: it is an option of "
                                                  r"a TREC run with qrels="),
    ([], {"bogus": 1}, TypeError, r"evaluate_stream\(\) got an unexpected keyword argument 'bogus'"),
])
def test_a_source_or_option_it_cannot_use_is_named(source, options, error, match):
    with pytest.raises(error, match=match):
        evaluate_stream(source, 10, **options)


def test_a_data_frame_is_pointed_to_frame_ndcg():
    class Frame:          # what tells a data frame: its columns (pandas and polars have them)
        columns = ["qid", "label", "score"]

        def __iter__(self):
            return iter(self.columns)

    with pytest.raises(TypeError, match=r"source= is a data frame \(Frame\): .* fastndcg\.stream\.frame_ndcg"):
        evaluate_stream(Frame())


def test_the_names_of_before_warn_and_the_machinery_left_the_faces():
    assert fastndcg.stream.__all__ == sorted(["evaluate_stream", "StreamResult", "Chunk", "frame_ndcg",
                                              "frame_mean_ndcg"])
    moved = {"evaluate_chunks": "evaluate_stream", "NDCGAccumulator": "evaluate_stream",
             "evaluate_npy": "evaluate_stream", "iter_npy": "evaluate_stream", "evaluate_parquet": "evaluate_stream",
             "iter_parquet": "evaluate_stream", "evaluate_svmlight": "evaluate_stream",
             "evaluate_run": "evaluate_stream", "align_chunk": "evaluate_stream", "RunStreamResult": "StreamResult",
             "StreamResult": "StreamResult", "Chunk": "Chunk", "frame_ndcg": "frame_ndcg",
             "frame_mean_ndcg": "frame_mean_ndcg"}
    for old, new in moved.items():
        with pytest.warns(DeprecationWarning, match=rf"fastndcg\.report\.{old} is deprecated .*fastndcg\.stream\.{new}"):
            getattr(fastndcg.report, old)
        assert old not in fastndcg.report.__all__ and old not in dir(fastndcg.report)
    for gone in ("ChunkEvaluator", "aligned_chunk"):
        with pytest.raises(AttributeError):
            getattr(fastndcg.report, gone)
        with pytest.raises(AttributeError):
            getattr(fastndcg.stream, gone)
