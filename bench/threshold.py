"""Measure the work size below which a second thread does not pay
(fastndcg._threads.MIN_WORK_PER_THREAD).

For MSLR-like inputs of growing size, times a one-shot ``fastndcg.ndcg`` (k=10)
on 1 thread and on 2 threads with the thread policy switched off (every call
starts its OpenMP team), interleaved, and prints the speed-up per size. The
threshold is the smallest size where 2 threads are at least 10% faster,
halved (each thread then gets at least that much work). Run on a quiet machine:

    python bench/threshold.py [--repeats 200]
"""
import argparse
import time

import numpy as np

import fastndcg
import fastndcg._threads as threads
from fastndcg.datasets import mslr_like


def best_of(f, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    big = mslr_like(20_000, seed=1)
    threads.MIN_WORK_PER_THREAD = 1           # time the team itself, whatever the size
    print(f"{'docs':>9} {'queries':>8} {'1 thread us':>12} {args.threads:>2} threads us {'speed-up':>9}")
    found = None
    for n_q in (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096):
        off = big.offsets[: n_q + 1]
        n = int(off[-1])
        s, y = big.scores[:n], big.labels[:n]
        runs = max(5, args.repeats * 64 // n_q)
        t1 = tn = float("inf")
        for _ in range(3):                       # interleaved: both see the same machine
            t1 = min(t1, best_of(lambda: fastndcg.ndcg(s, y, off, 10, n_threads=1), runs))
            tn = min(tn, best_of(lambda: fastndcg.ndcg(s, y, off, 10, n_threads=args.threads), runs))
        print(f"{n:9d} {n_q:8d} {t1 * 1e6:12.1f} {tn * 1e6:13.1f} {t1 / tn:9.2f}")
        if found is None and t1 / tn >= 1.1:
            found = n
    if found is not None:
        print(f"2 threads pay from about {found} documents: MIN_WORK_PER_THREAD ~ {found // 2}")
    else:
        print("2 threads never paid 10% here")


if __name__ == "__main__":
    main()
