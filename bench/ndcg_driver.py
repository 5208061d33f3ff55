"""A small driver for counters and profiles of the NDCG kernel (docs/performance.md).

Builds the MSLR-like set of ``bench_numba.py`` (``--queries`` queries, 15% of the
scores rounded to 0.1), then calls ``fastndcg.ndcg`` (or ``mean_ndcg``, or the
floor of ``roofline.py``) ``--calls`` times at cutoff ``--k`` on ``--threads``
threads, and prints the fastest call. Meant to run under a tool:

    perf record -e cpu-clock -F 10000 -D 3000 python bench/ndcg_driver.py --calls 60
    perf stat -e task-clock,context-switches,page-faults python bench/ndcg_driver.py --calls 20
    valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \\
        --toggle-collect='__pyx_pw_8fastndcg_5_core_5_ndcg_10NDCGKernel_*' \\
        python bench/ndcg_driver.py --queries 10000 --calls 1 --k 10

(``--toggle-collect`` counts only inside the kernel's ``score`` call.)
"""
import argparse
import time

import numpy as np

import fastndcg
from fastndcg.io import mslr_like


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=100_000)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--what", choices=("ndcg", "mean_ndcg", "floor"), default="ndcg")
    a = p.parse_args()
    d = mslr_like(a.queries, seed=0, tie_fraction=0.15)
    if a.what == "floor":
        from roofline import compile_floor, floor_pass

        compile_floor(d.scores, d.labels)

        def call():
            floor_pass(d.scores, d.labels, d.offsets, a.threads)
    else:
        fn = getattr(fastndcg, a.what)

        def call():
            fn(d.scores, d.labels, d.offsets, a.k, n_threads=a.threads)
    times = []
    for _ in range(a.calls):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    print(f"{a.what} k={a.k} threads={a.threads}: {d.n_docs} documents, {d.n_queries} queries; "
          f"fastest of {a.calls} calls {min(times) * 1e3:.2f} ms, median {np.median(times) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
