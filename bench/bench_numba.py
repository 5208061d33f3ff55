"""NDCG@10 against a numba ``prange`` top-k baseline (issue 13 benchmark 3, issue 27 item 5).

Data: ``mslr100k`` (100,000 queries, ~12M documents) and ``mslr10k_ties``
(10,000 queries), ties between different labels in ~20% of queries
(bench/conftest.py); ``mslr100k_ties5`` (issue 27): 100,000 MSLR-like queries
(12.0M documents, median 110 per query, labels 0-4 with MSLR's frequencies)
with :data:`TIES5_FRACTION` of the scores rounded to 0.1, so that 5.0% of the
documents tie with another document of their query. Rows: the numba baseline
(bench/numba_baseline.py; with and without its label/score checks) and the
whole ``fastndcg.ndcg`` call (on ``mslr100k_ties5`` also ``fastndcg.mean_ndcg``),
each at 1 thread and at all cores, in the same run; the memory-pass floor
(bench/roofline.py: one read of each query's scores and labels, one value
written per query) at the same thread counts, each kernel's time divided by it
being its "ratio to the floor"; on ``mslr100k_ties5`` also ``fastndcg.ndcg`` at
k = 1, 3, 5, 20 and 100 (:data:`OTHER_KS`); and ``machine scaling``, a
compute-bound numba ``prange`` loop that touches no memory, at the same thread
counts: the 2-thread speed-up the machine itself gives at that moment (an
upper bound for any kernel). numba compiles (or loads its cache) before any
timed round. Run:

    pip install "fastndcg[bench]"
    pytest bench/bench_numba.py --benchmark-only --benchmark-json=bench.json
    python bench/summarize.py bench.json

pytest-benchmark times one row after the other, so on a shared machine a row
can land in a busy spell that its neighbour missed. ``python bench/bench_numba.py``
instead interleaves the calls (numba and fastndcg at 1 and at all threads, and the
machine loop, one call each per round) on ``mslr100k_ties5`` and prints the
min / median over the rounds of each time and of each round's ratios: each
row's time over the floor's at its thread count, numba's over fastndcg's, and
the 1 -> all-thread scaling of each row:

    python bench/bench_numba.py [rounds]
"""
import numba
import numpy as np
import pytest

import fastndcg
from fastndcg.io import mslr_like
from numba_baseline import numba_ndcg
from roofline import bytes_per_doc, compile_floor, floor_pass, time_interleaved

from conftest import tie_query_fraction

K = 10
#: The other cutoffs reported against the floor on ``mslr100k_ties5``.
OTHER_KS = (1, 3, 5, 20, 100)
ALL = numba.config.NUMBA_NUM_THREADS
THREADS = sorted({1, ALL})

#: Fraction of scores rounded to 0.1 in ``mslr100k_ties5``: with seed 0, 5.0% of
#: the documents (599,218 of 11,995,463) tie with another document of their query.
TIES5_FRACTION = 0.15


def mslr100k_ties5_data():
    """The MSLR-like set of issue 27 item 5 (see the module docstring)."""
    return mslr_like(100_000, seed=0, tie_fraction=TIES5_FRACTION)


def tie_document_fraction(data) -> float:
    """Fraction of documents whose score equals that of another document of their query."""
    sizes = np.diff(data.offsets)
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    order = np.lexsort((data.scores, qid))
    q, s = qid[order], data.scores[order]
    same = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    tied = np.zeros(q.shape[0], dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    return float(tied.mean()) if tied.shape[0] else 0.0


@pytest.fixture(scope="session")
def mslr100k_ties5():
    return mslr100k_ties5_data()


def _compile_numba(d):
    # Compile outside the timed rounds, for these dtypes, at every thread count used.
    for n in THREADS:
        for check in (True, False):
            numba_ndcg(d.scores[:1000], d.labels[:1000], np.array([0, 1000]), K, n, check=check)
    compile_floor(d.scores, d.labels)
    machine_loop(1000, 1)


@numba.njit(parallel=True, cache=True)
def _xorshift_chains(n_chunks, steps):
    # Independent integer chains, one per chunk: no memory traffic, no shared data.
    out = np.empty(n_chunks, np.uint64)
    for c in numba.prange(n_chunks):
        x = np.uint64(c + 1)
        for _ in range(steps):          # xorshift64: a dependent chain the compiler cannot fold
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
        out[c] = x
    return out


def machine_loop(steps, n_threads):
    """A compute-bound loop of 256 chunks over ``n_threads`` numba threads."""
    numba.set_num_threads(n_threads)
    return _xorshift_chains(256, steps)


#: Steps per chunk of :func:`machine_loop`: about 70 ms on one thread, as the NDCG rows.
MACHINE_STEPS = 150_000


@pytest.fixture(scope="module", params=["mslr100k", "mslr10k_ties", "mslr100k_ties5"])
def data(request):
    d = request.getfixturevalue(request.param)
    _compile_numba(d)
    return request.param, d


def _info(benchmark, name, d, impl, n_threads):
    benchmark.group = f"ndcg@{K} {name}"
    benchmark.extra_info.update(impl=impl, n_threads=n_threads, n_docs=d.n_docs,
                                n_queries=d.n_queries, dataset=name,
                                tie_query_fraction=tie_query_fraction(d),
                                tie_document_fraction=tie_document_fraction(d),
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


@pytest.mark.parametrize("n_threads", THREADS)
def test_fastndcg_mean_ndcg10(benchmark, data, n_threads):
    name, d = data
    if name != "mslr100k_ties5":
        pytest.skip("mean_ndcg rows: mslr100k_ties5 only")
    _info(benchmark, name, d, "fastndcg.mean_ndcg", n_threads)
    benchmark.pedantic(fastndcg.mean_ndcg, args=(d.scores, d.labels, d.offsets, K),
                       kwargs={"n_threads": n_threads}, rounds=10, iterations=1, warmup_rounds=1)


@pytest.mark.parametrize("n_threads", THREADS)
def test_floor(benchmark, data, n_threads):
    # The memory-pass floor (bench/roofline.py) in each dataset's group: summarize.py
    # prints every row's time over it ("x floor").
    name, d = data
    _info(benchmark, name, d, "floor", n_threads)
    benchmark.extra_info["bytes_per_doc"] = bytes_per_doc(d.scores, d.labels)
    benchmark.pedantic(floor_pass, args=(d.scores, d.labels, d.offsets, n_threads), rounds=10,
                       iterations=1, warmup_rounds=1)


@pytest.mark.parametrize("n_threads", THREADS)
@pytest.mark.parametrize("k", OTHER_KS)
def test_fastndcg_ndcg_other_k(benchmark, mslr100k_ties5, k, n_threads):
    # k = 1, 3, 5, 20, 100 against the same floor (their own group, with floor rows).
    d = mslr100k_ties5
    _compile_numba(d)
    _info(benchmark, "mslr100k_ties5", d, f"fastndcg.ndcg@{k}", n_threads)
    benchmark.group = "ndcg@k mslr100k_ties5"
    benchmark.pedantic(fastndcg.ndcg, args=(d.scores, d.labels, d.offsets, k),
                       kwargs={"n_threads": n_threads}, rounds=10, iterations=1, warmup_rounds=1)


@pytest.mark.parametrize("n_threads", THREADS)
def test_floor_other_k(benchmark, mslr100k_ties5, n_threads):
    d = mslr100k_ties5
    compile_floor(d.scores, d.labels)
    _info(benchmark, "mslr100k_ties5", d, "floor", n_threads)
    benchmark.group = "ndcg@k mslr100k_ties5"
    benchmark.pedantic(floor_pass, args=(d.scores, d.labels, d.offsets, n_threads), rounds=10,
                       iterations=1, warmup_rounds=1)


@pytest.mark.parametrize("n_threads", THREADS)
def test_machine_scaling(benchmark, n_threads):
    machine_loop(1000, n_threads)
    benchmark.group = "machine scaling"
    benchmark.extra_info.update(impl="xorshift chains", n_threads=n_threads, steps=MACHINE_STEPS)
    benchmark.pedantic(machine_loop, args=(MACHINE_STEPS, n_threads), rounds=10, iterations=1,
                       warmup_rounds=1)


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


def interleaved(rounds: int = 15) -> None:
    """Time the rows of ``mslr100k_ties5`` interleaved (see the module docstring) and print them."""

    d = mslr100k_ties5_data()
    _compile_numba(d)
    print(f"mslr100k_ties5: {d.n_queries} queries, {d.n_docs} documents, "
          f"{tie_document_fraction(d):.3f} of documents tied; {rounds} rounds; fastndcg from "
          f"{fastndcg.__file__}")
    calls = {}
    for n in THREADS:
        calls[f"floor {n}T"] = lambda n=n: floor_pass(d.scores, d.labels, d.offsets, n)
        calls[f"numba {n}T"] = lambda n=n: numba_ndcg(d.scores, d.labels, d.offsets, K, n)
        calls[f"ndcg {n}T"] = lambda n=n: fastndcg.ndcg(d.scores, d.labels, d.offsets, K, n_threads=n)
        calls[f"mean_ndcg {n}T"] = lambda n=n: fastndcg.mean_ndcg(d.scores, d.labels, d.offsets, K,
                                                                  n_threads=n)
        for k in OTHER_KS:
            calls[f"ndcg@{k} {n}T"] = lambda n=n, k=k: fastndcg.ndcg(d.scores, d.labels, d.offsets, k,
                                                                     n_threads=n)
        calls[f"machine {n}T"] = lambda n=n: machine_loop(MACHINE_STEPS, n)
    times, _ = time_interleaved(calls, rounds)
    t = {name: np.array(v) for name, v in times.items()}
    nbytes = d.n_docs * bytes_per_doc(d.scores, d.labels)
    for name, v in t.items():
        line = f"  {name:<16} min {v.min() * 1e3:7.1f} ms  median {np.median(v) * 1e3:7.1f} ms"
        if not name.startswith("machine"):
            line += f"  {nbytes / v.min() / 1e9:5.1f} GB/s of scores+labels"
        print(line)

    def show(label, ratios):
        print(f"  {label:<36} min {ratios.min():5.2f}  median {np.median(ratios):5.2f}  "
              f"(of the mins {ratios_of_mins[label]:5.2f})")

    ratios_of_mins = {}
    rows = []

    def ratio(label, num, den):
        ratios_of_mins[label] = t[num].min() / t[den].min()
        rows.append((label, t[num] / t[den]))

    for n in THREADS:
        for impl in ["ndcg", "mean_ndcg"] + [f"ndcg@{k}" for k in OTHER_KS] + ["numba"]:
            ratio(f"{impl} / floor, {n}T", f"{impl} {n}T", f"floor {n}T")
    for n in THREADS:
        for impl in ("ndcg", "mean_ndcg"):
            ratio(f"numba / {impl}, {n}T", f"numba {n}T", f"{impl} {n}T")
    if ALL > 1:
        for impl in ["ndcg", "mean_ndcg"] + [f"ndcg@{k}" for k in OTHER_KS] + ["numba", "floor", "machine"]:
            ratio(f"{impl} 1T / {ALL}T (scaling)", f"{impl} 1T", f"{impl} {ALL}T")
    print("ratios per round (time over the floor's; numba's time over fastndcg's; scaling):")
    for label, ratios in rows:
        show(label, ratios)


if __name__ == "__main__":
    import sys

    interleaved(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
