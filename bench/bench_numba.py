"""NDCG@10 against a numba ``prange`` top-k baseline (issue 13, benchmark 3).

Data: ``mslr100k`` (100,000 queries, ~12M documents) and ``mslr10k_ties``
(10,000 queries), ties between different labels in ~20% of queries
(bench/conftest.py). Rows: the numba baseline (bench/numba_baseline.py; with and
without its label/score checks) and the whole ``fastndcg.ndcg`` call, each at
1 thread and at all cores, in the same run. numba compiles (or loads its cache) before any timed round. Run:

    pip install "fastndcg[bench]"
    pytest bench/bench_numba.py --benchmark-only --benchmark-json=bench.json
    python bench/summarize.py bench.json
"""
import numba
import numpy as np
import pytest

import fastndcg
from fastndcg.io.datasets import mslr_like
from numba_baseline import numba_ndcg

from conftest import tie_query_fraction

K = 10
ALL = numba.config.NUMBA_NUM_THREADS
THREADS = sorted({1, ALL})


@pytest.fixture(scope="module", params=["mslr100k", "mslr10k_ties"])
def data(request):
    d = request.getfixturevalue(request.param)
    # Compile outside the timed rounds, for these dtypes, at every thread count used.
    for n in THREADS:
        for check in (True, False):
            numba_ndcg(d.scores[:1000], d.labels[:1000], np.array([0, 1000]), K, n, check=check)
    return request.param, d


def _info(benchmark, name, d, impl, n_threads):
    benchmark.group = f"ndcg@{K} {name}"
    benchmark.extra_info.update(impl=impl, n_threads=n_threads, n_docs=d.n_docs,
                                n_queries=d.n_queries, dataset=name,
                                tie_query_fraction=tie_query_fraction(d),
                                numba=numba.__version__, openmp=fastndcg.openmp_enabled())


@pytest.mark.parametrize("n_threads", THREADS)
@pytest.mark.parametrize("check", [True, False], ids=["checked", "unchecked"])
def test_numba_ndcg10(benchmark, data, n_threads, check):
    # "numba": labels and scores checked inside the parallel pass, as fastndcg does;
    # "numba-unchecked": the same kernel without those checks (their cost).
    name, d = data
    _info(benchmark, name, d, "numba" if check else "numba-unchecked", n_threads)
    out = benchmark.pedantic(numba_ndcg, args=(d.scores, d.labels, d.offsets, K, n_threads),
                             kwargs={"check": check}, rounds=10, iterations=1, warmup_rounds=1)
    ref = fastndcg.ndcg(d.scores, d.labels, d.offsets, K)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_threads", THREADS)
def test_fastndcg_ndcg10(benchmark, data, n_threads):
    name, d = data
    _info(benchmark, name, d, "fastndcg.ndcg", n_threads)
    benchmark.pedantic(fastndcg.ndcg, args=(d.scores, d.labels, d.offsets, K),
                       kwargs={"n_threads": n_threads}, rounds=10, iterations=1, warmup_rounds=1)


def test_numba_baseline_matches_fastndcg_on_ties():
    """Equal to fastndcg.ndcg (<= 1e-12) where ties decide the top k, float64 and float32."""
    d = mslr_like(3000, seed=5, tie_fraction=1.0)
    scores = np.round(d.scores)           # a handful of score levels per query
    labels = d.labels.copy()
    labels[::7] = 31                      # the top gain level
    for sc in (scores, scores.astype(np.float32)):
        for k in (1, 3, 10, 1000):
            ref = fastndcg.ndcg(sc, labels, d.offsets, k)
            for n in THREADS:
                for check in (True, False):
                    np.testing.assert_allclose(numba_ndcg(sc, labels, d.offsets, k, n, check=check), ref,
                                               rtol=0, atol=1e-12)
    # empty queries and queries without a relevant document give 0
    off = np.array([0, 0, 3, 3, 5])
    out = numba_ndcg(np.array([1.0, 1.0, 2.0, 0.5, 0.5]), np.array([0, 0, 0, 2, 1]), off, K, 1)
    np.testing.assert_array_equal(out, fastndcg.ndcg(np.array([1.0, 1.0, 2.0, 0.5, 0.5]),
                                                     np.array([0, 0, 0, 2, 1]), off, K))
    assert out[0] == out[1] == out[2] == 0.0 and out[3] == 1.0
