"""What runs in front of the NDCG kernels (issue 13): whole calls against the
kernel alone, small calls, streaming and ``fastndcg eval`` against one call.

Every ratio compares rows of the same run (``python bench/summarize.py``
prints them; docs/performance.md has a table). Run:

    pytest bench/bench_prepared.py --benchmark-only --benchmark-json=prepared.json
    python bench/summarize.py prepared.json

Rows (NDCG@10; "all" = every CPU the process may use):

* ``call vs kernel <data>``: ``fastndcg.ndcg`` and, with a kernel built once
  for the same inputs, the kernel's own pass (labels and scores checked, ideal
  computed, ranking) -- their ratio is the cost of everything else, the
  serial share of the call; ``NDCGScorer.mean`` and its kernel (ideal cached,
  scores checked).
* ``small call``: one query of 20 documents.
* ``stream vs one call``: 10,000 queries evaluated one query per chunk
  (``fastndcg.stream.evaluate_stream`` on chunks, and on a TREC run, one topic per
  piece) against one call on the same data.
* ``eval vs read+ndcg``: ``fastndcg eval`` on a 10,000-topic TREC run against
  reading the files, joining them and one ``ndcg_and_mean`` call.
"""
import io
from contextlib import redirect_stdout

import numpy as np
import pytest

import fastndcg
import fastndcg.io as readers
from fastndcg.stream import evaluate_stream
from fastndcg.measures._ndcg import ndcg_and_mean
from fastndcg._core.prepared import one_shot
from fastndcg._core.threads import threads_for
from fastndcg import effective_n_threads

K = 10
ALL = effective_n_threads(-1)          # every CPU, whatever the load right now
THREADS = sorted({1, ALL})


def _info(benchmark, group, impl, n_threads, data=None, vs=None, **extra):
    benchmark.group = group
    info = dict(impl=impl, n_threads=n_threads, openmp=fastndcg.openmp_enabled(), **extra)
    if data is not None:
        info.update(n_docs=data.n_docs, n_queries=data.n_queries)
    if vs is not None:
        info["vs"] = vs          # summarize.py prints time / time of that row (same n_threads)
    benchmark.extra_info.update(info)


# ----------------------------------------------------------------------------- call vs kernel


@pytest.fixture(scope="module", params=["mslr100k", "mslr10k_ties"])
def data(request):
    return request.param, request.getfixturevalue(request.param)


class _OneShotKernel:
    """The kernel pass of a one-shot ``ndcg`` call on inputs prepared once:
    labels and scores checked, each query's ideal computed (fused), ranked."""

    def __init__(self, d):
        self.scorer, self.sc, _ = one_shot(d.scores, d.labels, d.offsets, K, None, None)
        nq = self.scorer.n_queries
        self.dcg = np.empty((nq, 1))
        self.nd = np.empty((nq, 1))
        self.flags = np.zeros(nq, dtype=np.int8)

    def __call__(self, n_threads):
        s = self.scorer
        assert not s._kernel.score(self.sc, None, self.dcg, self.nd, self.flags, True, True, True,
                                   threads_for(s.n_docs, n_threads))


class _PreparedKernel(_OneShotKernel):
    """The kernel pass of ``NDCGScorer.mean``: ideal cached, scores checked, ranked."""

    def __init__(self, d):
        super().__init__(d)
        self.scorer = fastndcg.NDCGScorer(d.labels, d.offsets, K)

    def __call__(self, n_threads):
        s = self.scorer
        assert not s._kernel.score(self.sc, None, self.dcg, self.nd, self.flags, False, False, True,
                                   threads_for(s.n_docs, n_threads))


@pytest.mark.parametrize("n_threads", THREADS)
def test_floor(benchmark, data, n_threads):
    # The memory-pass floor (bench/roofline.py) in each "call vs kernel" group:
    # summarize.py prints every row's time over it ("x floor").
    import numba

    from roofline import compile_floor, floor_pass

    name, d = data
    n_threads = min(n_threads, numba.config.NUMBA_NUM_THREADS)
    compile_floor(d.scores, d.labels)
    _info(benchmark, f"call vs kernel {name}", "floor", n_threads, d)
    benchmark.pedantic(floor_pass, args=(d.scores, d.labels, d.offsets, n_threads), rounds=15, iterations=1,
                       warmup_rounds=2)


@pytest.mark.parametrize("n_threads", THREADS)
def test_ndcg_call(benchmark, data, n_threads):
    name, d = data
    _info(benchmark, f"call vs kernel {name}", "ndcg", n_threads, d, vs="kernel (one-shot)")
    benchmark.pedantic(fastndcg.ndcg, args=(d.scores, d.labels, d.offsets, K), kwargs={"n_threads": n_threads},
                       rounds=15, iterations=1, warmup_rounds=2)


@pytest.mark.parametrize("n_threads", THREADS)
def test_ndcg_kernel(benchmark, data, n_threads):
    name, d = data
    kernel = _OneShotKernel(d)
    kernel(n_threads)
    np.testing.assert_array_equal(kernel.nd[:, 0], fastndcg.ndcg(d.scores, d.labels, d.offsets, K))
    _info(benchmark, f"call vs kernel {name}", "kernel (one-shot)", n_threads, d)
    benchmark.pedantic(kernel, args=(n_threads,), rounds=15, iterations=1, warmup_rounds=2)


@pytest.mark.parametrize("n_threads", THREADS)
def test_scorer_mean(benchmark, data, n_threads):
    name, d = data
    scorer = fastndcg.NDCGScorer(d.labels, d.offsets, K)
    _info(benchmark, f"call vs kernel {name}", "NDCGScorer.mean", n_threads, d, vs="kernel (prepared)")
    benchmark.pedantic(scorer.mean, args=(d.scores,), kwargs={"n_threads": n_threads},
                       rounds=15, iterations=1, warmup_rounds=2)


@pytest.mark.parametrize("n_threads", THREADS)
def test_scorer_kernel(benchmark, data, n_threads):
    name, d = data
    kernel = _PreparedKernel(d)
    _info(benchmark, f"call vs kernel {name}", "kernel (prepared)", n_threads, d)
    benchmark.pedantic(kernel, args=(n_threads,), rounds=15, iterations=1, warmup_rounds=2)


# ----------------------------------------------------------------------------- small calls


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(0)
    return rng.random(20), rng.integers(0, 5, 20), np.array([0, 20])


@pytest.mark.parametrize("n_threads", [None, 1], ids=["default", "1"])
def test_small_ndcg(benchmark, small, n_threads):
    s, y, off = small
    _info(benchmark, "small call (1 query, 20 docs)", "ndcg", n_threads or "default")
    benchmark.pedantic(fastndcg.ndcg, args=(s, y, off, K), kwargs={"n_threads": n_threads},
                       rounds=200, iterations=200, warmup_rounds=5)


@pytest.mark.parametrize("n_threads", [None, 1], ids=["default", "1"])
def test_small_scorer_mean(benchmark, small, n_threads):
    s, y, off = small
    scorer = fastndcg.NDCGScorer(y, off, K)
    _info(benchmark, "small call (1 query, 20 docs)", "NDCGScorer.mean", n_threads or "default")
    benchmark.pedantic(scorer.mean, args=(s,), kwargs={"n_threads": n_threads},
                       rounds=200, iterations=200, warmup_rounds=5)


# ----------------------------------------------------------------------------- streaming


@pytest.fixture(scope="module")
def chunks(mslr10k_ties):
    d = mslr10k_ties
    off = d.offsets
    return d, [(d.scores[off[q]:off[q + 1]], d.labels[off[q]:off[q + 1]], np.array([0, off[q + 1] - off[q]]))
               for q in range(d.n_queries)]


def test_stream_one_query_per_chunk(benchmark, chunks):
    d, parts = chunks
    res = evaluate_stream(parts, K)
    assert res.mean == fastndcg.mean_ndcg(d.scores, d.labels, d.offsets, K)
    _info(benchmark, "stream vs one call", "stream.evaluate, 1 query/chunk", ALL, d, vs="mean_ndcg")
    benchmark.pedantic(lambda: evaluate_stream(parts, K, per_query=False, keep="sums"),
                       rounds=5, iterations=1, warmup_rounds=1)


def test_stream_one_call(benchmark, chunks):
    d, _ = chunks
    _info(benchmark, "stream vs one call", "mean_ndcg", ALL, d)
    benchmark.pedantic(fastndcg.mean_ndcg, args=(d.scores, d.labels, d.offsets, K),
                       rounds=15, iterations=1, warmup_rounds=2)


@pytest.fixture(scope="module")
def trec_files(tmp_path_factory, mslr10k_ties):
    """A 10,000-topic TREC run of the medium set (labels as qrels, every retrieved
    document judged) with its qrels."""
    d = mslr10k_ties
    root = tmp_path_factory.mktemp("trec")
    sizes = np.diff(d.offsets)
    topic = np.repeat(np.arange(d.n_queries), sizes)
    docno = np.arange(d.n_docs) - np.repeat(d.offsets[:-1], sizes)
    rank = np.zeros(d.n_docs, dtype=np.int64)
    with open(root / "qrels", "w") as fq, open(root / "run", "w") as fr:
        fq.writelines(f"{t} 0 d{n} {lab}\n" for t, n, lab in zip(topic.tolist(), docno.tolist(), d.labels.tolist()))
        fr.writelines(f"{t} Q0 d{n} {r} {s!r} tag\n"
                      for t, n, r, s in zip(topic.tolist(), docno.tolist(), rank.tolist(), d.scores.tolist()))
    return str(root / "qrels"), str(root / "run"), d


def _read_align_ndcg(qrels_path, run_path):
    qrels = readers.read_qrels(qrels_path)
    aligned = readers.align_run(run_path, qrels)
    return ndcg_and_mean(aligned.scores, aligned.labels, aligned.offsets, K, convention="trec_eval",
                         tie_key=aligned.tie_key, ideal_labels=aligned.ideal_labels,
                         ideal_offsets=aligned.ideal_offsets)


def test_trec_read_align_ndcg(benchmark, trec_files):
    qpath, rpath, d = trec_files
    _info(benchmark, "eval vs read+ndcg", "read + align + ndcg_and_mean", ALL, d)
    benchmark.pedantic(_read_align_ndcg, args=(qpath, rpath), rounds=5, iterations=1, warmup_rounds=1)


def test_trec_stream_one_topic_per_piece(benchmark, trec_files):
    qpath, rpath, d = trec_files
    qrels = readers.read_qrels(qpath)
    want = _read_align_ndcg(qpath, rpath)[1]
    assert evaluate_stream(rpath, K, qrels=qrels, chunk_rows=1).mean == want
    _info(benchmark, "eval vs read+ndcg", "stream.evaluate_run, 1 topic/piece", ALL, d,
          vs="read + align + ndcg_and_mean")
    benchmark.pedantic(lambda: evaluate_stream(rpath, K, qrels=readers.read_qrels(qpath), chunk_rows=1),
                       rounds=3, iterations=1, warmup_rounds=1)


def test_trec_eval_cli(benchmark, trec_files):
    from fastndcg.cli import main

    qpath, rpath, d = trec_files

    def run():
        with redirect_stdout(io.StringIO()) as out:
            assert main(["eval", qpath, rpath, "-k", str(K), "--per-query"]) == 0
        return out.getvalue()

    _info(benchmark, "eval vs read+ndcg", "fastndcg eval --per-query", ALL, d, vs="read + align + ndcg_and_mean")
    benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
