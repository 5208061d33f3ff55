"""Out-of-core evaluation (fastndcg.stream): same numbers as in memory, bounded memory."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from fractions import Fraction

import numpy as np

from fastndcg.measures._aligned import aligned_mean_ndcg, aligned_ndcg
import pytest

import fastndcg
from fastndcg.stream import Chunk, frame_mean_ndcg, frame_ndcg
from fastndcg.stream._chunks import NDCGAccumulator, evaluate_chunks
from fastndcg.stream._frame_chunks import evaluate_parquet
from fastndcg.stream._sources import evaluate_npy, evaluate_svmlight, iter_npy
from fastndcg.stream._trec_stream import aligned_chunk, evaluate_run
from fastndcg._core._exact import ExactSum
from fastndcg.io._alignment import topic_first_line
from fastndcg.stream._chunks import exact_partials
from conftest import require, make_batch

pytestmark = [pytest.mark.peers]

pd = require("pandas")
pa = require("pyarrow")
pq = require("pyarrow.parquet")

PRESETS = fastndcg.list_presets()
KS = [5, [1, 3, None, 3]]


def _inputs(rng, n_queries=300):
    scores, labels, offsets = make_batch(rng, n_queries=n_queries, max_docs=25, n_labels=3)
    tie_key = rng.permutation(scores.shape[0]).astype(np.int64)
    weights = rng.random(n_queries) + 0.25
    return scores, labels, offsets, tie_key, weights


def _kw(conv, tie_key):
    return {"tie_key": tie_key} if fastndcg.get_preset(conv).uses_tie_key else {}


@pytest.mark.parametrize("conv", PRESETS)
@pytest.mark.parametrize("k", KS)
def test_npy_stream_is_bit_identical_to_memory(rng, conv, k):
    scores, labels, offsets, tie_key, weights = _inputs(rng)
    kw = _kw(conv, tie_key)
    per = fastndcg.ndcg(scores, labels, offsets, k, convention=conv, **kw)
    mean = fastndcg.mean_ndcg(scores, labels, offsets, k, convention=conv, weights=weights, **kw)
    res = evaluate_npy(scores, labels, offsets, k, convention=conv, weights=weights,
                       chunk_rows=200, **kw)
    assert res.n_chunks > 10
    np.testing.assert_array_equal(res.ndcg, per)          # bit for bit (NaN == NaN)
    np.testing.assert_array_equal(res.mean, mean)
    sums = [evaluate_npy(scores, labels, offsets, k, convention=conv, weights=weights,
                         chunk_rows=c, keep="sums", per_query=False, **kw).mean for c in (1, 77, 10**6)]
    np.testing.assert_array_equal(sums[0], sums[1])       # the exact sum ignores the chunking
    np.testing.assert_array_equal(sums[0], sums[2])
    np.testing.assert_array_equal(sums[0], mean)


def test_ratio_skip_short_conventions(rng):
    scores, labels, offsets, tie_key, weights = _inputs(rng)
    for conv in (fastndcg.Convention(aggregation="ratio", short="zero", empty="skip"),
                 fastndcg.Convention(ties="key", empty="skip", gain="linear"),
                 fastndcg.Convention(ties="average", aggregation="ratio", ideal="full")):
        kw = {"tie_key": tie_key} if conv.uses_tie_key else {}
        mean = fastndcg.mean_ndcg(scores, labels, offsets, [1, 4, None], convention=conv,
                                  weights=weights, **kw)
        res = evaluate_npy(scores, labels, offsets, [1, 4, None], convention=conv,
                           weights=weights, chunk_rows=50, **kw)
        np.testing.assert_array_equal(res.mean, mean)
        assert not np.isnan(res.mean).any()


def test_npy_files_memory_mapped(tmp_path, rng):
    scores, labels, offsets, _, weights = _inputs(rng)
    ids = np.arange(offsets.shape[0] - 1) * 10
    for name, arr in (("s", scores), ("l", labels), ("o", offsets), ("w", weights), ("q", ids)):
        np.save(tmp_path / f"{name}.npy", arr)
    chunks = list(iter_npy(tmp_path / "s.npy", tmp_path / "l.npy", tmp_path / "o.npy",
                           weights=tmp_path / "w.npy", query_ids=tmp_path / "q.npy", chunk_rows=100))
    assert all(c.offsets[0] == 0 for c in chunks)
    assert all(c.offsets[-1] <= 100 or c.n_queries == 1 for c in chunks)   # never splits a query
    res = evaluate_chunks(chunks, 10)
    np.testing.assert_array_equal(res.ndcg, fastndcg.ndcg(scores, labels, offsets, 10))
    np.testing.assert_array_equal(res.query_ids, ids)
    assert res.n_rows == scores.shape[0] and res.n_queries == ids.shape[0]


def test_accumulator_and_tuple_chunks(rng):
    scores, labels, offsets, _, _ = _inputs(rng, 40)
    cut = int(offsets[20])
    parts = [(scores[:cut], labels[:cut], offsets[:21]), (scores[cut:], labels[cut:], offsets[20:] - cut)]
    res = evaluate_chunks(parts, [2, 8])
    np.testing.assert_array_equal(res.mean, fastndcg.mean_ndcg(scores, labels, offsets, [2, 8]))
    acc = NDCGAccumulator(3)
    first = acc.add(*parts[0])
    np.testing.assert_array_equal(first, fastndcg.ndcg(*parts[0], k=3))
    acc.add(Chunk(*parts[1]))
    assert acc.result().mean == fastndcg.mean_ndcg(scores, labels, offsets, 3)


def test_bad_input_is_named(rng):
    scores, labels, offsets, _, _ = _inputs(rng, 10)
    with pytest.raises(ValueError, match="chunk_rows"):
        list(iter_npy(scores, labels, offsets, chunk_rows=0))
    with pytest.raises(ValueError, match="offsets must start at 0"):
        list(iter_npy(scores, labels, offsets[:-1]))
    with pytest.raises(ValueError, match="labels has"):
        list(iter_npy(scores, labels[:-1], offsets))
    with pytest.raises(ValueError, match="keep"):
        NDCGAccumulator(keep="all")
    with pytest.raises(TypeError, match="chunk 0"):
        evaluate_chunks([object()])
    bad = scores.copy()
    bad[int(offsets[5])] = np.nan
    with pytest.raises(ValueError, match=r"chunk 1 .*first query id 4"):
        evaluate_chunks(iter_npy(bad, labels, offsets, query_ids=np.arange(10),
                          chunk_rows=int(offsets[4])), 5)


def test_exact_sum_is_exact_and_split_free(rng):
    vals = np.concatenate((rng.random(1000), rng.random(1000) * 1e-20, [1e16, -1e16, 3.0]))
    exact = float(sum(Fraction(v) for v in vals.tolist()))
    parts = exact_partials(vals)
    assert math.fsum(parts) == exact
    a, b = ExactSum(1), ExactSum(1)
    a.add(vals[:700, None])
    b.add(vals[700:, None])
    b.merge(a)
    assert b.total()[0] == exact == math.fsum(vals.tolist())


# ----------------------------------------------------------------------------- file sources


def test_svmlight_stream(tmp_path, rng):
    scores, labels, offsets, _, _ = _inputs(rng, 60)
    offsets = offsets[np.r_[True, np.diff(offsets) > 0]]       # SVMlight has no empty queries
    qid = np.repeat(np.arange(offsets.shape[0] - 1) + 100, np.diff(offsets))
    data, pred = tmp_path / "d.txt", tmp_path / "p.txt"
    data.write_text("".join(f"{int(l)} qid:{q} 1:0.5\n" for l, q in zip(labels, qid)))
    pred.write_text("".join(f"{s!r}\n" for s in scores.tolist()))
    for conv in ("letor4", "lightgbm", None):
        res = evaluate_svmlight(data, pred, [1, 5], convention=conv, chunk_rows=50, block_size=64)
        assert res.n_chunks > 3
        np.testing.assert_array_equal(res.ndcg, fastndcg.ndcg(scores, labels, offsets, [1, 5], convention=conv))
        np.testing.assert_array_equal(res.mean, fastndcg.mean_ndcg(scores, labels, offsets, [1, 5], convention=conv))
        np.testing.assert_array_equal(res.query_ids, np.unique(qid))


def _frame(rng, n_queries=120, str_ids=True):
    scores, labels, offsets, _, weights = _inputs(rng, n_queries)
    sizes = np.diff(offsets)
    q = np.repeat(np.arange(n_queries), sizes)
    df = pd.DataFrame({"qid": [f"q{v:04d}" for v in q] if str_ids else q, "label": labels,
                       "score": scores, "doc": [f"d{v}" for v in rng.permutation(q.size)],
                       "w": np.repeat(weights, sizes)})
    return df


@pytest.mark.parametrize("conv", ["standard", "trec_eval", "gdeval", "lightgbm", "xgboost", "letor4"])
def test_parquet_row_groups_split_queries(tmp_path, rng, conv):
    df = _frame(rng)
    path = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=37)
    doc = "doc" if fastndcg.get_preset(conv).uses_tie_key else None
    ks = [3, 10]
    want = frame_ndcg(df, ks, doc_id=doc, weight="w", convention=conv)
    want_mean = frame_mean_ndcg(df, ks, doc_id=doc, weight="w", convention=conv)
    res = evaluate_parquet(path, ks, doc_id=doc, weight="w", convention=conv, chunk_rows=90)
    assert res.n_chunks > 5
    np.testing.assert_array_equal(res.ndcg, want[["ndcg@3", "ndcg@10"]].to_numpy())
    assert res.query_ids.tolist() == want["qid"].tolist()
    assert dict(zip(["ndcg@3", "ndcg@10"], res.mean.tolist())) == want_mean


def test_parquet_errors(tmp_path, rng):
    df = _frame(rng, 20, str_ids=False)
    path = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=10)
    with pytest.raises(ValueError, match="score column 'pred' is not in"):
        evaluate_parquet(path, score="pred")
    shuffled = df.iloc[np.r_[0:30, 60:80, 30:60, 80:len(df)]]
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pandas(shuffled, preserve_index=False), bad, row_group_size=10)
    with pytest.raises(ValueError, match="appears again"):
        evaluate_parquet(bad, chunk_rows=5)
    df2 = df.copy()
    df2.loc[df2.index[3], "w"] = 99.0
    wpath = tmp_path / "w.parquet"
    pq.write_table(pa.Table.from_pandas(df2, preserve_index=False), wpath)
    with pytest.raises(ValueError, match="weight column 'w' must be constant.*query 0"):
        evaluate_parquet(wpath, weight="w")
    df3 = df.copy()
    df3["score"] = df3["score"].astype(float)
    df3.loc[df3.index[-1], "score"] = np.nan
    npath = tmp_path / "n.parquet"
    pq.write_table(pa.Table.from_pandas(df3, preserve_index=False), npath)
    with pytest.raises(ValueError, match="score column 'score' has a missing value"):
        evaluate_parquet(npath)


# ----------------------------------------------------------------------------- memory bound

_MEMORY_SCRIPT = textwrap.dedent("""
    import json, sys, tracemalloc
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet, pandas  # imports are not data: load them before measuring
    pyarrow.array([1]).to_numpy(zero_copy_only=False)
    from fastndcg.stream._frame_chunks import evaluate_parquet
    from fastndcg.stream._sources import evaluate_npy
    d, source = sys.argv[1], sys.argv[2]
    chunk_rows = 50_000
    tracemalloc.start()
    if source == "npy":
        res = evaluate_npy(d + "/s.npy", d + "/l.npy", d + "/o.npy", [5, 10],
                           chunk_rows=chunk_rows, n_threads=1)
    else:
        res = evaluate_parquet(d + "/d.parquet", [5, 10], chunk_rows=chunk_rows, n_threads=1)
    peak = tracemalloc.get_traced_memory()[1]
    arrow = pa.default_memory_pool().max_memory() or 0
    print(json.dumps({"peak": peak + arrow, "mean": res.mean.tolist(), "rows": res.n_rows,
                      "largest": res.max_chunk_rows}))
""")


@pytest.fixture(scope="module")
def big_data(tmp_path_factory):
    """3M rows (about 60 MB of qids + scores + labels), queries of 1..200 documents."""
    rng = np.random.default_rng(7)
    d = tmp_path_factory.mktemp("big")
    sizes = rng.integers(1, 201, size=30_000)
    offsets = np.zeros(sizes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    n = int(offsets[-1])
    scores = rng.random(n)
    labels = rng.integers(0, 5, n).astype(np.int32)
    np.save(d / "s.npy", scores)
    np.save(d / "l.npy", labels)
    np.save(d / "o.npy", offsets)
    qid = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    pq.write_table(pa.table({"qid": qid, "label": labels, "score": scores}), d / "d.parquet",
                   row_group_size=65_536)
    mean = fastndcg.mean_ndcg(scores, labels, offsets, [5, 10])
    return d, n, scores.nbytes + labels.nbytes + qid.nbytes, mean


@pytest.mark.parametrize("source", ["npy", "parquet"])
def test_memory_bound(big_data, source):
    """Peak traced memory (numpy/Python + Arrow pool) stays under the limit
    while the data is several times larger: O(chunk_rows + largest query)
    (+ one row group's pages for Parquet: 64k rows here)."""
    d, n, data_bytes, mean = big_data
    limit = {"npy": 8 << 20, "parquet": 16 << 20}[source]   # measured: 2.9 MB, 12.2 MB
    # cwd outside the checkout: "python -c" puts it first on sys.path, and the
    # source tree there has no compiled kernels.
    out = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, str(d), source],
                         capture_output=True, text=True, check=True, cwd=d)
    got = json.loads(out.stdout)
    assert got["rows"] == n
    assert data_bytes > 3 * limit
    assert got["peak"] < limit, f"peak {got['peak'] / 2**20:.1f} MiB >= {limit / 2**20:.0f} MiB"
    assert got["mean"] == mean.tolist()


# ----------------------------------------------------------------------------- TREC runs

import fastndcg.io as readers  # noqa: E402
from fastndcg.io import _trec


def _write_trec(tmp_path, rng, n_topics=240, gz=False):
    """Qrels and a run whose topics come in shuffled (non-bytewise) file order,
    with unjudged, negative-judged and tied documents, judged topics missing
    from the run and run topics without judgments."""
    topics = [f"{t}" for t in rng.permutation(np.arange(1, 10 * n_topics))[:n_topics]]
    qlines, rlines = [], []
    for t in topics:
        n_judged = int(rng.integers(1, 25))
        for d in range(n_judged):
            qlines.append(f"{t} 0 D{d:03d} {int(rng.integers(-1, 4))}\n")
    in_run = [t for t in topics if rng.random() > 0.1] + ["999991", "999992"]   # two unjudged topics
    for t in rng.permutation(in_run).tolist():
        for d in rng.permutation(40)[: int(rng.integers(1, 30))].tolist():
            rlines.append(f"{t} Q0 D{d:03d} 0 {int(rng.integers(0, 6)) / 4!r} tag{t[-1]}\n")
    qpath = tmp_path / "qrels.txt"
    qpath.write_text("".join(qlines))
    rpath = tmp_path / ("run.txt.gz" if gz else "run.txt")
    data = "".join(rlines).encode()
    if gz:
        import gzip

        rpath.write_bytes(gzip.compress(data))
    else:
        rpath.write_bytes(data)
    return qpath, rpath


TREC_PRESETS = ["trec_eval", "trec_eval_cut", "pytrec_eval", "pytrec_eval_cut", "gdeval", "ranx",
                "standard", "lightgbm", "letor4", "xgboost", "sklearn"]


@pytest.mark.parametrize("conv", TREC_PRESETS)
def test_run_stream_equals_align_run(tmp_path, rng, conv):
    qpath, rpath = _write_trec(tmp_path, rng)
    qrels = readers.read_qrels(qpath)
    ks = [3, 10, None]
    for missing in ("zero", "skip"):
        for max_docs in (None, 7):
            a = readers.align_run(rpath, qrels, missing=missing, max_docs=max_docs,
                                  float32_scores=fastndcg.get_preset(conv).score_precision == "float32")
            per, mean = aligned_ndcg(a, ks, convention=conv), aligned_mean_ndcg(a, ks, convention=conv)
            assert a.missing_qids and a.ignored_qids
            # (iter_run cuts pieces at block ends: 64-byte blocks and chunk_rows=1 make
            # nearly every topic its own piece) ... one piece
            for chunk_rows, block in ((1, 64), (100, 64), (1 << 20, None)):
                res = evaluate_run(qrels, rpath, ks, convention=conv, missing=missing,
                                   max_docs=max_docs, chunk_rows=chunk_rows, block_size=block)
                if chunk_rows == 1:
                    assert res.n_chunks > 0.75 * (len(a.qids) + len(a.ignored_qids))
                np.testing.assert_array_equal(res.ndcg, per)       # bit for bit
                np.testing.assert_array_equal(res.mean, mean)      # summed in topic order
                assert res.query_ids.tolist() == a.qids.tolist()
                assert res.missing_qids == a.missing_qids and res.ignored_qids == a.ignored_qids
                assert res.run_name == "tag" + a.run_name[-1:] and res.run_name == a.run_name
            assert res.n_chunks == 1 + (missing == "zero")
            sums = evaluate_run(qrels, rpath, ks, convention=conv, missing=missing, max_docs=max_docs,
                                chunk_rows=1, block_size=64, keep="sums", per_query=False)
            assert sums.ndcg is None
            np.testing.assert_array_equal(sums.mean, mean)


def test_run_stream_mean_does_not_depend_on_the_order(tmp_path):
    """Topics arrive in file order, not in the topic order of the in-memory
    evaluation; the aggregate's sums are exact, so the mean is the same bits
    in either order (with pairwise sums, this data differed in the last bit)."""
    qpath, rpath = _write_trec(tmp_path, np.random.default_rng(0), n_topics=300)
    qrels = readers.read_qrels(qpath)
    a = readers.align_run(rpath, qrels, missing="skip")
    want = aligned_mean_ndcg(a, 10)
    res = evaluate_run(qrels, rpath, 10, missing="skip", chunk_rows=1, block_size=64)
    assert res.mean == want and res.n_chunks > 200
    pieces = _trec.iter_run(rpath, chunk_rows=1, block_size=64)
    file_order = evaluate_chunks((aligned_chunk(readers.align_run(p, qrels, missing="skip"), "trec_eval")
                           for p in pieces), 10, convention="trec_eval")
    np.testing.assert_array_equal(np.sort(file_order.ndcg), np.sort(res.ndcg))
    assert file_order.mean == want


def test_run_stream_missing_topics(tmp_path, rng):
    qpath, rpath = _write_trec(tmp_path, rng, n_topics=30)
    qrels = readers.read_qrels(qpath)
    a = readers.align_run(rpath, qrels, missing="skip")
    first = a.missing_qids[0]
    line = topic_first_line(qrels, qrels.topics.tolist().index(first))
    with pytest.raises(ValueError, match=rf"qrels.txt:{line}: {len(a.missing_qids)} judged topic\(s\) have no "
                                         rf"results in .*run.txt: '{first}'"):
        evaluate_run(qrels, rpath, 10, chunk_rows=5)
    zero = evaluate_run(qpath, rpath, 10, missing="zero", chunk_rows=5)     # qrels from a path
    skip = evaluate_run(qrels, rpath, 10, missing="skip", chunk_rows=5)
    ids = zero.query_ids.tolist()
    assert ids == qrels.topics.tolist() and zero.n_queries == skip.n_queries + len(a.missing_qids)
    assert all(zero.ndcg[ids.index(t)] == 0.0 for t in a.missing_qids)
    assert skip.query_ids.tolist() == a.qids.tolist() and not set(a.missing_qids) & set(skip.query_ids)
    # lightgbm takes the ideal from the run: a missing topic is an empty list (empty="one")
    lgb = evaluate_run(qrels, rpath, 10, convention="lightgbm", missing="zero", chunk_rows=5)
    assert all(lgb.ndcg[ids.index(t)] == 1.0 for t in a.missing_qids)
    np.testing.assert_array_equal(lgb.ndcg, aligned_ndcg(readers.align_run(rpath, qrels, missing="zero"), 
        10, convention="lightgbm"))


def test_run_stream_topic_not_in_qrels_and_gzip(tmp_path, rng):
    qpath, rpath = _write_trec(tmp_path, rng, n_topics=50, gz=True)
    assert rpath.read_bytes()[:2] == b"\x1f\x8b"
    qrels = readers.read_qrels(qpath)
    res = evaluate_run(qrels, rpath, [5, None], missing="skip", chunk_rows=1, block_size=64)
    assert res.n_chunks > 30
    assert res.ignored_qids == ["999991", "999992"]
    assert not {"999991", "999992"} & set(res.query_ids.tolist())
    a = readers.align_run(rpath, qrels, missing="skip")
    np.testing.assert_array_equal(res.ndcg, aligned_ndcg(a, [5, None]))
    # a run with only unjudged topics evaluates nothing (each judged topic is missing)
    only = tmp_path / "only.txt"
    only.write_text("999991 Q0 D001 0 1.0 x\n")
    with pytest.raises(ValueError, match="judged topic"):
        evaluate_run(qrels, only, 10)
    empty = evaluate_run(qrels, only, 10, missing="skip")
    assert empty.n_queries == 0 and np.isnan(empty.mean) and empty.ignored_qids == ["999991"]


@pytest.mark.parametrize("chunk_rows", [1, 3, 1000])
def test_run_stream_topic_split_across_file(tmp_path, chunk_rows):
    """A topic that comes back after another is an error naming the file, the
    line where it comes back and the topic, whether or not the two stretches
    fall in the same piece."""
    qpath = tmp_path / "q.txt"
    qpath.write_text("A 0 d1 1\nB 0 d1 1\nC 0 d1 1\n")
    rpath = tmp_path / "r.txt"
    rpath.write_text("C Q0 d1 1 3 t\nA Q0 d1 1 3 t\nA Q0 d2 2 2 t\n# comment\nB Q0 d1 1 3 t\n"
                     "A Q0 d3 3 1 t\nB Q0 d2 3 1 t\n")
    with pytest.raises(ValueError, match=r"r\.txt:6: topic 'A' appears again after other topics"):
        evaluate_run(qpath, rpath, 10, chunk_rows=chunk_rows)


def test_run_stream_bad_arguments(tmp_path, rng):
    qpath, rpath = _write_trec(tmp_path, rng, n_topics=5)
    with pytest.raises(ValueError, match="missing must be one of"):
        evaluate_run(qpath, rpath, 10, missing="ignore")
    with pytest.raises(ValueError, match="chunk_rows"):
        evaluate_run(qpath, rpath, 10, chunk_rows=0)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 0.5 t\n1 Q0 d2 2 high t\n")
    with pytest.raises(ValueError, match=r"bad\.txt:2: the score"):
        evaluate_run(qpath, bad, 10, missing="zero")


def test_accumulator_external_ideal(rng):
    """Chunks may carry an external ideal: the NDCGScorer values, bit for bit."""
    scores, labels, offsets, tie_key, weights = _inputs(rng, 60)
    sizes = rng.integers(0, 12, size=60)
    ioff = np.zeros(61, dtype=np.int64)
    np.cumsum(sizes, out=ioff[1:])
    ilab = rng.integers(0, 4, size=int(ioff[-1]))
    want = fastndcg.ndcg(scores, labels, offsets, [2, 5], ideal_labels=ilab, ideal_offsets=ioff)
    want_mean = fastndcg.mean_ndcg(scores, labels, offsets, [2, 5], ideal_labels=ilab, ideal_offsets=ioff)
    assert not np.array_equal(want, fastndcg.ndcg(scores, labels, offsets, [2, 5]))
    acc = NDCGAccumulator([2, 5])
    for q0, q1 in ((0, 25), (25, 60)):
        a, b, ia, ib = offsets[q0], offsets[q1], ioff[q0], ioff[q1]
        acc.add(scores[a:b], labels[a:b], offsets[q0:q1 + 1] - a, ideal_labels=ilab[ia:ib],
                ideal_offsets=ioff[q0:q1 + 1] - ia)
    res = acc.result()
    np.testing.assert_array_equal(res.ndcg, want)
    np.testing.assert_array_equal(res.mean, want_mean)
    with pytest.raises(ValueError, match=r"chunk 0 .*ideal_offsets must describe 60 queries"):
        evaluate_chunks([Chunk(scores, labels, offsets, ideal_labels=ilab[:int(ioff[-2])],
                        ideal_offsets=ioff[:-1])])
    order = np.arange(60)[::-1]
    rev = acc.result(order)
    np.testing.assert_array_equal(rev.ndcg, want[::-1])
    with pytest.raises(ValueError, match="order must have one entry per query"):
        acc.result(order[1:])


_RUN_MEMORY_SCRIPT = textwrap.dedent("""
    import json, sys, tracemalloc
    import fastndcg.io as readers
    from fastndcg.stream._trec_stream import evaluate_run
    d = sys.argv[1]
    qrels = readers.read_qrels(d + "/qrels.txt")      # held in memory: not part of the bound
    tracemalloc.start()
    res = evaluate_run(qrels, d + "/run.txt", [10, None], chunk_rows=20_000,
                       block_size=1 << 20, n_threads=1)
    print(json.dumps({"peak": tracemalloc.get_traced_memory()[1], "mean": res.mean.tolist(),
                      "rows": res.n_rows, "largest": res.max_chunk_rows, "chunks": res.n_chunks}))
""")


@pytest.mark.slow
def test_run_stream_memory_bound(tmp_path):
    """A 1.2M-line run (38 MB) streamed with 20,000-row pieces and 1 MiB blocks:
    the peak traced memory stays under 16 MiB (measured: 6.8 MiB; read whole
    with read_run + align_run: 103 MiB); the means are identical."""
    rng = np.random.default_rng(3)
    n_topics, per_topic = 800, 1500
    with open(tmp_path / "qrels.txt", "w") as fq, open(tmp_path / "run.txt", "w") as fr:
        for t in range(n_topics):
            docs = rng.permutation(4000)
            rel = rng.integers(0, 3, 40).tolist()
            fq.write("".join(f"{t} 0 DOC-{d:06d} {r}\n" for d, r in zip(docs[:40].tolist(), rel)))
            sc = np.round(rng.random(per_topic), 3).tolist()       # ties
            fr.write("".join(f"{t}\tQ0\tDOC-{d:06d}\t{i}\t{s!r}\trun\n"
                             for i, (d, s) in enumerate(zip(docs[:per_topic].tolist(), sc))))
    size = (tmp_path / "run.txt").stat().st_size
    limit = 16 << 20
    assert size > 2 * limit
    out = subprocess.run([sys.executable, "-c", _RUN_MEMORY_SCRIPT, str(tmp_path)],
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    got = json.loads(out.stdout)
    assert got["rows"] == n_topics * per_topic and got["largest"] < 40_000 and got["chunks"] > 30
    assert got["peak"] < limit, f"peak {got['peak'] / 2**20:.1f} MiB >= {limit / 2**20:.0f} MiB"
    print(f"streamed peak {got['peak'] / 2**20:.1f} MiB")
    a = readers.align_run(tmp_path / "run.txt", tmp_path / "qrels.txt")
    assert got["mean"] == aligned_mean_ndcg(a, [10, None]).tolist()


def test_a_stream_tells_labels_outside_the_table_once(tmp_path):
    """A TREC run streamed piece by piece under letor4 (qrels labels 0-4) said nothing about labels
    3 and 4 getting gain 0 (issue 33 item 6): one UnknownLabelWarning for the whole run, whatever
    the number of pieces, with the counts of all of them."""
    import warnings

    from fastndcg.conventions import UnknownLabelWarning

    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{t} 0 d{i} {i % 5}\n" for t in range(1, 5) for i in range(5)))
    run_path.write_text("".join(f"{t} Q0 d{i} {i} {1.0 / (i + 1)} r\n" for t in range(1, 5) for i in range(5)))
    qrels = fastndcg.io.read_qrels(qrels_path)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        evaluate_run(qrels, run_path, 3, convention="letor4", chunk_rows=5)
    got = [w for w in record if issubclass(w.category, UnknownLabelWarning)]
    assert len(got) == 1 and got[0].filename == __file__
    assert (got[0].message.labels, got[0].message.count, got[0].message.n_docs) == ((3, 4), 8, 20)


def test_stream_result_repr_is_a_summary():
    rng = np.random.default_rng(35)
    labels, offsets = rng.integers(0, 3, 10_000), np.arange(0, 10_001, 5)
    res = evaluate_npy(rng.random(10_000), labels, offsets, [5, 10])
    a, b = np.asarray(res.mean).tolist()
    assert repr(res) == (f"StreamResult(2 measures, 2,000 queries, mean nDCG@5={a:.4f}, nDCG@10={b:.4f}, "
                         "10,000 rows in 1 chunk)")
    assert res.ndcg.shape == (2000, 2)
