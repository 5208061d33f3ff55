"""Measure the work size below which a second thread does not pay
(fastndcg._core.threads.MIN_WORK_PER_THREAD).

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
import fastndcg._core.threads as threads
from fastndcg.io import mslr_like


def times(f, repeats):
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return np.array(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    big = mslr_like(20_000, seed=1)
    threads.MIN_WORK_PER_THREAD = 1           # time the team itself, whatever the size
    print(f"{'docs':>9} {'queries':>8}   1 thread us (min / median)   {args.threads} threads us (min / median)"
          f"   speed-up (min / median)")
    found = found_median = None
    for n_q in (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096):
        off = big.offsets[: n_q + 1]
        n = int(off[-1])
        s, y = big.scores[:n], big.labels[:n]
        runs = max(5, args.repeats * 64 // n_q)
        a, b = [], []
        for _ in range(3):                       # interleaved: both see the same machine
            a.append(times(lambda: fastndcg.ndcg(s, y, off, 10, n_threads=1), runs))
            b.append(times(lambda: fastndcg.ndcg(s, y, off, 10, n_threads=args.threads), runs))
        a, b = np.concatenate(a), np.concatenate(b)
        t1, tn, m1, mn = a.min(), b.min(), np.median(a), np.median(b)
        print(f"{n:9d} {n_q:8d}   {t1 * 1e6:9.1f} / {m1 * 1e6:9.1f}        {tn * 1e6:9.1f} / {mn * 1e6:9.1f}"
              f"        {t1 / tn:5.2f} / {m1 / mn:5.2f}")
        if found is None and t1 / tn >= 1.1:
            found = n
        if found_median is None and m1 / mn >= 1.1:
            found_median = n
    print(f"2 threads pay 10% from about {found} documents (best case) and {found_median} "
          "(median, which includes the waits a busy machine adds)")


if __name__ == "__main__":
    main()
