"""Scaling of distributed NDCG (fastndcg.integrations._dask) against the single-process kernel.

Synthetic, query-complete data (queries of 1..199 documents, labels 0..4,
scores with ties), generated on the workers partition by partition
(250,000 rows each; query ids unique per partition), persisted before timing.
Timed, for 10**6 and 10**7 rows:

* ``kernel``: ``fastndcg.mean_ndcg`` on numpy arrays in one process
  (n_threads = 1 and 2): the baseline;
* ``frames``: ``fastndcg.stream.frame_mean_ndcg`` on one pandas DataFrame
  (the in-memory DataFrame path: grouping + kernel);
* ``dask``: ``fastndcg.integrations.dask_evaluate(..., persist=False).mean`` on a ``distributed.LocalCluster``
  with 1 and 2 single-threaded worker processes, ``shuffle=False`` (the data
  is already partitioned by query: kernel + per-partition work) and
  ``shuffle=True`` (a full shuffle by query first, as for raw logs).

Run the table (also written as JSON with ``--json``):

    python bench/bench_scale.py [--rows 1000000 10000000] [--json scale.json]

or the pytest-benchmark version (rows/s in ``extra_info``):

    pytest bench/bench_scale.py --benchmark-only --benchmark-columns=min,mean
"""
from __future__ import annotations

import argparse
import itertools
import json
import time
from typing import Dict, List, Tuple

import numpy as np
import pytest

import fastndcg
from fastndcg.stream import frame_mean_ndcg
import fastndcg.integrations

PARTITION_ROWS = 250_000
K = 10


def make_partition(i: int, rows: int, seed: int = 0):
    """Partition i: whole queries, about ``rows`` rows (pandas DataFrame)."""
    import pandas as pd

    rng = np.random.default_rng([seed, i])
    sizes = rng.integers(1, 200, size=rows // 100 + 100)
    ends = np.cumsum(sizes)
    sizes = sizes[: int(np.searchsorted(ends, rows)) + 1]
    sizes[-1] -= int(sizes.sum()) - rows
    sizes = sizes[sizes > 0]
    n = int(sizes.sum())
    qid = np.repeat(np.int64(i) * 10**7 + np.arange(sizes.size, dtype=np.int64), sizes)
    return pd.DataFrame({"qid": qid, "label": rng.integers(0, 5, n).astype(np.int8),
                         "score": np.round(rng.random(n), 3)})


def n_partitions(rows: int) -> int:
    return max(1, rows // PARTITION_ROWS)


def local_arrays(rows: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same data as the Dask frame, as CSR arrays in one process."""
    import pandas as pd

    df = pd.concat([make_partition(i, rows // n_partitions(rows)) for i in range(n_partitions(rows))],
                   ignore_index=True)
    q = df["qid"].to_numpy()
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    return df["score"].to_numpy(), df["label"].to_numpy(), np.append(starts, q.size).astype(np.int64)


def dask_frame(rows: int):
    import dask.dataframe as dd

    parts = n_partitions(rows)
    return dd.from_map(make_partition, range(parts), rows=rows // parts)


def _best(fn, repeats: int) -> Tuple[float, object]:
    best, out = float("inf"), None
    for r in range(repeats):
        t = time.perf_counter()
        out = fn(r)
        best = min(best, time.perf_counter() - t)
    return best, out


_round = itertools.count()


def fresh_convention() -> fastndcg.Convention:
    """The default convention under a new name: the same numbers, but new Dask
    keys, so a round cannot reuse results the cluster still holds from the
    previous round."""
    return fastndcg.Convention(name=f"bench-{next(_round)}")


def scaling_table(rows_list: List[int], workers_list: List[int], repeats: int = 3) -> List[Dict]:
    import pandas as pd
    from distributed import Client, LocalCluster, wait

    import fastndcg.integrations._dask as fdask

    results: List[Dict] = []
    for rows in rows_list:
        s, l, o = local_arrays(rows)
        n = s.size
        for threads in (1, 2):
            t, m = _best(lambda r: fastndcg.mean_ndcg(s, l, o, K, n_threads=threads), repeats)
            results.append(dict(rows=n, impl="kernel", workers=1, threads=threads, seconds=t,
                                rows_per_s=n / t, mean=m))
        df = pd.DataFrame({"qid": np.repeat(np.arange(o.size - 1), np.diff(o)), "label": l, "score": s})
        t, m = _best(lambda r: frame_mean_ndcg(df, K, n_threads=1), repeats)
        results.append(dict(rows=n, impl="frames", workers=1, threads=1, seconds=t, rows_per_s=n / t, mean=m))
        for workers in workers_list:
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              dashboard_address=":0", memory_limit=0) as cluster, Client(cluster):
                ddf = dask_frame(rows).persist()
                wait(ddf)
                for shuffle in (False, True):
                    t, m = _best(lambda r: fastndcg.integrations.dask_evaluate(ddf, K, shuffle=shuffle, persist=False,
                                                           convention=fresh_convention()).mean, repeats)
                    results.append(dict(rows=n, impl="dask" + (" + shuffle" if shuffle else ""),
                                        workers=workers, threads=1, seconds=t, rows_per_s=n / t, mean=m))
    return results


def print_table(results: List[Dict]) -> None:
    print("| rows | implementation | workers x threads | seconds (best) | Mrows/s | NDCG@10 |")
    print("|---:|---|---|---:|---:|---|")
    for r in results:
        print(f"| {r['rows']:,} | {r['impl']} | {r['workers']} x {r['threads']} | {r['seconds']:.3f} "
              f"| {r['rows_per_s'] / 1e6:.2f} | {r['mean']:.15f} |")


# ----------------------------------------------------------------------------- pytest-benchmark

BENCH_ROWS = [10**6, 10**7]


@pytest.fixture(scope="module", params=BENCH_ROWS, ids=lambda r: f"{r:.0e}")
def rows(request):
    return request.param


@pytest.mark.parametrize("threads", [1, 2])
def test_kernel(benchmark, rows, threads):
    s, l, o = local_arrays(rows)
    benchmark.extra_info.update(impl="kernel", n_docs=s.size, threads=threads)
    benchmark.pedantic(fastndcg.mean_ndcg, (s, l, o, K), {"n_threads": threads}, rounds=3)
    if benchmark.stats is not None:
        benchmark.extra_info["rows_per_s"] = s.size / benchmark.stats.stats.min


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("shuffle", [False, True], ids=["no-shuffle", "shuffle"])
def test_dask(benchmark, rows, workers, shuffle):
    from distributed import Client, LocalCluster, wait

    import fastndcg.integrations._dask as fdask

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      memory_limit=0) as cluster, Client(cluster):
        ddf = dask_frame(rows).persist()
        wait(ddf)
        benchmark.extra_info.update(impl="dask", n_docs=rows, workers=workers, shuffle=shuffle)
        benchmark.pedantic(fdask.mean_ndcg, setup=lambda: ((ddf, K), {"shuffle": shuffle,
                                                                      "convention": fresh_convention()}),
                           rounds=2)
        if benchmark.stats is not None:
            benchmark.extra_info["rows_per_s"] = rows / benchmark.stats.stats.min


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10**6, 10**7])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    res = scaling_table(args.rows, args.workers, args.repeats)
    print_table(res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
