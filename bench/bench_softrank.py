"""Benchmarks of SoftNDCG (value, gradient, boosting objective) and RankDCG.

Run: ``pytest bench/bench_softrank.py --benchmark-only``
(``--benchmark-group-by=group,param:n_threads`` to see scaling). Benchmarks
only: nothing here asserts a time. Sizes are small because SoftNDCG costs
O(n^2 min(k, n)) per query.
"""
import numpy as np
import pytest

import fastndcg
from fastndcg.io import mslr_like
import fastndcg.reference as _ref
from fastndcg import rankdcg
from fastndcg.measures._softrank import SoftNDCGObjective   # the loss on arrays (no longer public)

THREADS = [1, 2]


def _letor_like(n_queries, lo, hi, seed=0):
    """Query sizes uniform in [lo, hi], labels 0..4, scores loosely tied to labels."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(lo, hi + 1, size=n_queries)
    offsets = fastndcg.offsets_from_group_sizes(sizes)
    n = int(offsets[-1])
    labels = rng.choice(5, size=n, p=[0.5, 0.3, 0.12, 0.05, 0.03]).astype(np.int32)
    scores = labels * 0.5 + rng.normal(size=n)
    return scores, labels, offsets


@pytest.fixture(scope="module")
def letor():
    return _letor_like(500, 10, 60)


@pytest.fixture(scope="module")
def tiny():
    return _letor_like(20, 4, 10, seed=1)


def _info(benchmark, n_threads, data):
    benchmark.extra_info.update(openmp=fastndcg.openmp_enabled(), n_threads=n_threads,
                                n_docs=int(data[2][-1]), n_queries=len(data[2]) - 1)


@pytest.mark.benchmark(group="softndcg-value")
@pytest.mark.parametrize("k", [None, 10])
@pytest.mark.parametrize("n_threads", THREADS)
def test_soft_ndcg_value(benchmark, letor, k, n_threads):
    s, y, off = letor
    _info(benchmark, n_threads, letor)
    benchmark(fastndcg.soft_ndcg, s, y, off, sigma=1.0, k=k, n_threads=n_threads)


@pytest.mark.benchmark(group="softndcg-grad")
@pytest.mark.parametrize("k", [None, 10])
@pytest.mark.parametrize("n_threads", THREADS)
def test_soft_ndcg_grad(benchmark, letor, k, n_threads):
    s, y, off = letor
    _info(benchmark, n_threads, letor)
    benchmark(fastndcg.soft_ndcg_grad, s, y, off, sigma=1.0, k=k, n_threads=n_threads)


@pytest.mark.benchmark(group="softndcg-objective")
@pytest.mark.parametrize("n_threads", THREADS)
def test_objective_grad_hess_cached_plan(benchmark, letor, n_threads):
    # The boosting inner loop: labels/offsets resolved once, kernel per round.
    s, y, off = letor
    obj = SoftNDCGObjective(sigma=1.0, k=10, n_threads=n_threads)
    plan = obj.plan(y, off)
    _info(benchmark, n_threads, letor)
    benchmark(obj.grad_hess_with, plan, s)


@pytest.mark.benchmark(group="softndcg-objective")
@pytest.mark.parametrize("n_threads", THREADS)
def test_objective_mslr_like_capped(benchmark, n_threads):
    # Long MSLR-like queries (median ~110 docs) with the max_docs cap.
    data = mslr_like(100, seed=0)
    obj = SoftNDCGObjective(sigma=1.0, k=10, max_docs=64, n_threads=n_threads)
    plan = obj.plan(data.labels, data.offsets)
    _info(benchmark, n_threads, data)
    benchmark(obj.grad_hess_with, plan, data.scores)


@pytest.mark.benchmark(group="softndcg-small")
def test_soft_ndcg_grad_kernel_small(benchmark, tiny):
    s, y, off = tiny
    _info(benchmark, 1, tiny)
    benchmark(fastndcg.soft_ndcg_grad, s, y, off, sigma=1.0, n_threads=1)


@pytest.mark.benchmark(group="softndcg-small")
def test_soft_ndcg_grad_reference_small(benchmark, tiny):
    s, y, off = tiny
    _info(benchmark, 1, tiny)
    benchmark.pedantic(_ref.soft_ndcg_grad, args=(s, y, off), kwargs=dict(sigma=1.0),
                       rounds=3, iterations=1)


@pytest.mark.benchmark(group="rankdcg")
@pytest.mark.parametrize("n_threads", THREADS)
def test_rankdcg_mslr10k(benchmark, mslr10k, n_threads):
    # Reference = labels (many ties), predictions = the workload's scores.
    _info(benchmark, n_threads, mslr10k)
    benchmark(rankdcg, mslr10k.labels, mslr10k.scores, mslr10k.offsets, n_threads=n_threads)


@pytest.mark.benchmark(group="rankdcg-small")
def test_rankdcg_kernel_small(benchmark, letor):
    s, y, off = letor
    _info(benchmark, 1, letor)
    benchmark(rankdcg, y, s, off, n_threads=1)


@pytest.mark.benchmark(group="rankdcg-small")
def test_rankdcg_reference_small(benchmark, letor):
    s, y, off = letor
    _info(benchmark, 1, letor)
    benchmark.pedantic(_ref.rankdcg, args=(y, s, off), rounds=3, iterations=1)
