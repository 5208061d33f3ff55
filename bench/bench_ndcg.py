"""NDCG throughput on the 10,000-query MSLR-like workload (~1.2M docs).

Baseline, measured in the same run: a vectorised numpy NDCG (stable lexsort by
(query, -score), gains x discounts, np.add.reduceat per query); and in every
group the memory-pass floor (bench/roofline.py), which summarize.py divides each
row by ("x floor"). Run:

    pytest bench/bench_ndcg.py --benchmark-only --benchmark-json=bench.json
    python bench/summarize.py bench.json
"""
import numpy as np
import pytest

import fastndcg
from roofline import compile_floor, floor_pass

CUTOFFS_1_10 = list(range(1, 11))


def numpy_ndcg(scores, labels, offsets, ks):
    """Vectorised numpy NDCG@k (exponential gain, log2 discount, stable ties)."""
    sizes = np.diff(offsets)
    nq = sizes.shape[0]
    qid = np.repeat(np.arange(nq), sizes)
    pos = np.arange(scores.shape[0]) - np.repeat(offsets[:-1], sizes)
    disc = 1.0 / np.log2(pos + 2.0)
    gain = np.exp2(labels.astype(np.float64)) - 1.0
    ranked = gain[np.lexsort((-scores, qid))]
    ideal = gain[np.lexsort((-gain, qid))]
    starts = offsets[:-1]
    out = np.empty((nq, len(ks)))
    for j, k in enumerate(ks):
        inside = pos < k
        dcg = np.add.reduceat(np.where(inside, ranked * disc, 0.0), starts)
        idcg = np.add.reduceat(np.where(inside, ideal * disc, 0.0), starts)
        out[:, j] = np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
    return out


def _info(benchmark, data, **extra):
    benchmark.extra_info.update(n_docs=data.n_docs, n_queries=data.n_queries,
                                openmp=fastndcg.openmp_enabled(), **extra)


@pytest.mark.benchmark(group="ndcg@10")
def test_numpy_baseline_ndcg10(benchmark, mslr10k):
    d = mslr10k
    _info(benchmark, d, impl="numpy", n_threads=1)
    out = benchmark.pedantic(numpy_ndcg, args=(d.scores, d.labels, d.offsets, [10]), rounds=5, iterations=1)
    np.testing.assert_allclose(out[:, 0], fastndcg.ndcg(d.scores, d.labels, d.offsets, 10), atol=1e-12)


@pytest.mark.benchmark(group="ndcg@10")
@pytest.mark.parametrize("n_threads", [1, 2])
def test_fastndcg_ndcg10(benchmark, mslr10k, n_threads):
    d = mslr10k
    _info(benchmark, d, impl="fastndcg.ndcg", n_threads=n_threads)
    benchmark.pedantic(fastndcg.ndcg, args=(d.scores, d.labels, d.offsets, 10),
                       kwargs={"n_threads": n_threads}, rounds=30, iterations=1, warmup_rounds=2)


@pytest.mark.benchmark(group="ndcg@10")
@pytest.mark.parametrize("n_threads", [1, 2])
def test_scorer_ndcg10(benchmark, mslr10k, n_threads):
    """Cached ideal (the boosting-loop case): ranking only."""
    d = mslr10k
    scorer = fastndcg.NDCGScorer(d.labels, d.offsets, 10)
    _info(benchmark, d, impl="NDCGScorer.ndcg", n_threads=n_threads)
    benchmark.pedantic(scorer.ndcg, args=(d.scores,), kwargs={"n_threads": n_threads},
                       rounds=30, iterations=1, warmup_rounds=2)


@pytest.mark.benchmark(group="ndcg@10")
@pytest.mark.parametrize("n_threads", [1, 2])
def test_scorer_kernel_only_ndcg10(benchmark, mslr10k, n_threads):
    """The parallel kernel alone (no input validation, which is one serial
    streaming pass over scores): how the kernel itself scales with threads."""
    d = mslr10k
    scorer = fastndcg.NDCGScorer(d.labels, d.offsets, 10)
    _info(benchmark, d, impl="kernel only (cached ideal)", n_threads=n_threads)
    benchmark.pedantic(scorer._run, args=(d.scores, None, n_threads), rounds=30, iterations=1, warmup_rounds=2)


@pytest.mark.benchmark(group="ndcg@1..10")
def test_numpy_baseline_ndcg1_10(benchmark, mslr10k):
    d = mslr10k
    _info(benchmark, d, impl="numpy", n_threads=1)
    benchmark.pedantic(numpy_ndcg, args=(d.scores, d.labels, d.offsets, CUTOFFS_1_10), rounds=3, iterations=1)


@pytest.mark.benchmark(group="ndcg@1..10")
@pytest.mark.parametrize("n_threads", [1, 2])
def test_fastndcg_ndcg1_10(benchmark, mslr10k, n_threads):
    d = mslr10k
    _info(benchmark, d, impl="fastndcg.ndcg", n_threads=n_threads)
    out = benchmark.pedantic(fastndcg.ndcg, args=(d.scores, d.labels, d.offsets, CUTOFFS_1_10),
                             kwargs={"n_threads": n_threads}, rounds=30, iterations=1, warmup_rounds=2)
    np.testing.assert_allclose(out, numpy_ndcg(d.scores, d.labels, d.offsets, CUTOFFS_1_10), atol=1e-12)


@pytest.mark.benchmark(group="ndcg full list")
@pytest.mark.parametrize("ties", ["stable", "average"])
def test_fastndcg_full_sort(benchmark, mslr10k, ties):
    """No cutoff: a full sort per query (and tie averaging)."""
    d = mslr10k
    _info(benchmark, d, impl=f"fastndcg.ndcg ties={ties}", n_threads=1)
    conv = fastndcg.Convention(ties=ties)
    benchmark.pedantic(fastndcg.ndcg, args=(d.scores, d.labels, d.offsets), kwargs={"convention": conv, "n_threads": 1},
                       rounds=10, iterations=1, warmup_rounds=1)


@pytest.mark.parametrize("group", ["ndcg@10", "ndcg@1..10", "ndcg full list"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_floor(benchmark, mslr10k, group, n_threads):
    # One read of the scores and labels, one value per query (bench/roofline.py).
    import numba

    d = mslr10k
    n_threads = min(n_threads, numba.config.NUMBA_NUM_THREADS)
    compile_floor(d.scores, d.labels)
    benchmark.group = group
    _info(benchmark, d, impl="floor", n_threads=n_threads)
    benchmark.pedantic(floor_pass, args=(d.scores, d.labels, d.offsets, n_threads), rounds=30, iterations=1,
                       warmup_rounds=2)
