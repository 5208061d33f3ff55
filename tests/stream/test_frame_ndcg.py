"""pandas / polars entry points."""
from __future__ import annotations

import time

import numpy as np

from fastndcg.measures._aligned import aligned_ndcg
import pytest

import fastndcg
from fastndcg.stream import frame_mean_ndcg, frame_ndcg
import fastndcg.io as readers
from conftest import require, make_batch

pytestmark = [pytest.mark.peers]

pd = require("pandas")
pl = require("polars")


def _long_frame(rng, n_queries=40, shuffle=True, string_ids=False):
    scores, labels, offsets = make_batch(rng, n_queries=n_queries, max_docs=25)
    sizes = np.diff(offsets)
    keep = sizes > 0                                   # a DataFrame cannot hold an empty query
    qid = np.repeat(np.arange(n_queries) * 7 + 100, sizes)
    order = rng.permutation(qid.size) if shuffle else np.arange(qid.size)
    ids = np.array([f"q{v}" for v in qid]) if string_ids else qid
    data = {"qid": ids[order], "label": labels[order], "score": scores[order], "doc": np.arange(qid.size)[order]}
    # the expected values: queries in order of first appearance in the frame
    first = {}
    for i, q in enumerate(ids[order].tolist()):
        first.setdefault(q, i)
    return data, sizes[keep], first


def _expected(data, k, convention=None, tie_key=None):
    g = fastndcg.offsets_from_qid(data["qid"])
    take = (lambda a: a) if g.order is None else (lambda a: a[g.order])
    key = None if tie_key is None else take(tie_key)
    vals = fastndcg.ndcg(take(data["score"]), take(data["label"]), g.offsets, k, convention=convention, tie_key=key)
    return g.qids, vals.reshape(vals.shape[0], -1)


@pytest.mark.parametrize("lib", ["pandas", "polars"])
@pytest.mark.parametrize("string_ids", [False, True])
def test_per_query_matches_csr(rng, lib, string_ids):
    data, _, _ = _long_frame(rng, string_ids=string_ids)
    df = pd.DataFrame(data) if lib == "pandas" else pl.DataFrame(data)
    out = frame_ndcg(df, k=[1, 5, None])
    assert type(out).__module__.split(".")[0] == lib
    assert list(out.columns) == ["qid", "ndcg@1", "ndcg@5", "ndcg"]
    qids, expected = _expected(data, [1, 5, None])
    assert list(out["qid"].to_list() if lib == "polars" else out["qid"].tolist()) == qids.tolist()
    got = np.column_stack([out[c].to_numpy() for c in ("ndcg@1", "ndcg@5", "ndcg")])
    np.testing.assert_array_equal(got, expected)
    mean = frame_mean_ndcg(df, k=[1, None])
    assert mean == pytest.approx({"ndcg@1": expected[:, 0].mean(), "ndcg": expected[:, 2].mean()}, rel=1e-12)
    assert frame_mean_ndcg(df, k=5) == pytest.approx(expected[:, 1].mean(), rel=1e-12)


@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_presets_and_custom_columns(rng, lib):
    data, _, _ = _long_frame(rng)
    renamed = {"query": data["qid"], "y": data["label"], "s": data["score"]}
    df = pd.DataFrame(renamed) if lib == "pandas" else pl.DataFrame(renamed)
    for preset in ("letor4", "lightgbm", "standard"):
        out = frame_ndcg(df, k=3, query="query", label="y", score="s", convention=preset)
        _, expected = _expected(data, 3, convention=preset)
        np.testing.assert_array_equal(out["ndcg@3"].to_numpy(), expected[:, 0])


@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_doc_id_ties_reproduce_trec_eval(tmp_path, lib):
    # a run with ties, judged by qrels: the frame with doc ids gives align_run's numbers
    qrels = "1 0 d10 0\n1 0 d9 1\n1 0 a 2\n2 0 x 1\n2 0 y 0\n"
    run = "1 Q0 d10 1 1.0 t\n1 Q0 d9 2 1.0 t\n1 Q0 a 3 0.5 t\n2 Q0 y 1 3 t\n2 Q0 x 2 3 t\n"
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    aligned = readers.align_run(str(tmp_path / "r"), str(tmp_path / "q"))
    data = {"qid": ["1", "1", "1", "2", "2"], "doc": ["d10", "d9", "a", "y", "x"],
            "label": [0, 1, 2, 0, 1], "score": [1.0, 1.0, 0.5, 3.0, 3.0]}
    df = pd.DataFrame(data) if lib == "pandas" else pl.DataFrame(data)
    out = frame_ndcg(df, k=[1, 2], doc_id="doc", convention="trec_eval_cut")
    np.testing.assert_array_equal(np.column_stack([out["ndcg@1"].to_numpy(), out["ndcg@2"].to_numpy()]),
                                  aligned_ndcg(aligned, [1, 2], convention="trec_eval_cut"))
    assert out["ndcg@1"].to_numpy().tolist() == [0.5, 0.0]     # d9 before d10 (ideal: a); y before x
    with pytest.raises(ValueError, match="pass doc_id"):
        frame_ndcg(df, k=1, convention="trec_eval")


@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_weights(lib):
    data = {"qid": [1, 1, 2, 2, 3], "label": [1, 0, 0, 1, 1], "score": [1.0, 0.0, 1.0, 0.0, 1.0],
            "w": [1.0, 1.0, 3.0, 3.0, 0.5]}
    df = pd.DataFrame(data) if lib == "pandas" else pl.DataFrame(data)
    out = frame_ndcg(df, k=1, weight="w")
    assert out["w"].to_list() == [1.0, 3.0, 0.5]
    per = np.array([1.0, 0.0, 1.0])
    assert frame_mean_ndcg(df, k=1, weight="w") == pytest.approx((per * [1, 3, 0.5]).sum() / 4.5)
    bad = dict(data, w=[1.0, 2.0, 3.0, 3.0, 0.5])
    df = pd.DataFrame(bad) if lib == "pandas" else pl.DataFrame(bad)
    with pytest.raises(ValueError, match="constant within a query; query 1"):
        frame_ndcg(df, k=1, weight="w")


@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_errors(lib):
    data = {"qid": [1, 1], "label": [1, 0], "score": [0.5, 0.2], "name": ["a", "b"]}
    df = pd.DataFrame(data) if lib == "pandas" else pl.DataFrame(data)
    with pytest.raises(ValueError, match="score column 'pred' is not in the DataFrame"):
        frame_ndcg(df, score="pred")
    with pytest.raises(TypeError, match="column 'name' must be numeric"):
        frame_ndcg(df, score="name")
    nulls = dict(data, score=[0.5, None])
    df = pd.DataFrame(nulls) if lib == "pandas" else pl.DataFrame(nulls)
    with pytest.raises(ValueError, match="column 'score' has a (missing value|null) at row 1"):
        frame_ndcg(df)
    with pytest.raises(TypeError, match="pandas or polars"):
        frame_ndcg(data)


def test_polars_lazyframe(rng):
    data, _, _ = _long_frame(rng)
    lazy = pl.DataFrame(data).lazy()
    out = frame_ndcg(lazy, k=10)
    assert isinstance(out, pl.DataFrame)
    np.testing.assert_array_equal(out["ndcg@10"].to_numpy(), _expected(data, 10)[1][:, 0])


@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_many_queries_no_python_loop_per_query(lib):
    # 200k queries of 5 docs, shuffled: grouping must stay vectorised
    rng = np.random.default_rng(0)
    nq, per = 200_000, 5
    qid = np.repeat(np.arange(nq), per)
    perm = rng.permutation(qid.size)
    data = {"qid": qid[perm], "label": rng.integers(0, 3, qid.size)[perm], "score": rng.random(qid.size)[perm]}
    df = pd.DataFrame(data) if lib == "pandas" else pl.DataFrame(data)
    t0 = time.perf_counter()
    out = frame_ndcg(df, k=3)
    elapsed = time.perf_counter() - t0
    assert len(out) == nq
    np.testing.assert_array_equal(out["ndcg@3"].to_numpy(), _expected(data, 3)[1][:, 0])
    assert elapsed < 10.0


@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_a_repeated_cutoff_is_one_column(lib):
    """Issue 33 item 1: polars refused the frame (duplicate column 'ndcg@10'); pandas kept one
    column silently. Now both: one column per distinct cutoff, first appearance first."""
    data = {"qid": [1, 1, 1, 2, 2], "label": [1, 0, 2, 1, 0], "score": [3.0, 2.0, 1.0, 1.0, 2.0]}
    df = pd.DataFrame(data) if lib == "pandas" else pl.DataFrame(data)
    got = frame_ndcg(df, k=[10, None, 5, 10])
    want = frame_ndcg(df, k=[10, None, 5])
    assert list(got.columns) == ["qid", "ndcg@10", "ndcg", "ndcg@5"] and got.equals(want)
    assert frame_mean_ndcg(df, k=[5, 10, 5]) == frame_mean_ndcg(df, k=[5, 10])


@pytest.mark.parametrize("k, names", [(10, ["ndcg@10"]), ([1, 2], ["ndcg@1", "ndcg@2"]), (None, ["ndcg"])])
def test_a_frame_without_rows(k, names):
    """frame_ndcg on an empty DataFrame leaked numpy's "cannot reshape array of size 0" (issue 33
    item 7): no rows give the columns and no rows, as fastndcg.ndcg gives an empty array for no
    queries, and frame_mean_ndcg NaN, as mean_ndcg."""
    df = pd.DataFrame({"qid": pd.Series([], dtype=object), "label": pd.Series([], dtype=np.int64),
                       "score": pd.Series([], dtype=np.float64), "w": pd.Series([], dtype=np.float64)})
    assert fastndcg.ndcg([], [], [0], k).size == 0
    out = frame_ndcg(df, k=k)
    assert out.columns.tolist() == ["qid"] + names and len(out) == 0
    assert frame_ndcg(df, k=k, weight="w").columns.tolist() == ["qid"] + names + ["w"]
    for frame in (pl.from_pandas(df), pl.from_pandas(df).lazy()):
        got = frame_ndcg(frame, k=k)
        assert got.columns == ["qid"] + names and got.height == 0
    mean = frame_mean_ndcg(df, k=k)
    assert all(np.isnan(v) for v in (mean.values() if isinstance(mean, dict) else [mean]))
