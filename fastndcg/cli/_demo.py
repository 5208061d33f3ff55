"""``fastndcg demo``: NDCG of generated (seeded) MSLR-like data under contrasting conventions (the
main job of the README's set-up), and ``--write-examples``."""
from __future__ import annotations
import argparse
import time

import numpy as np




def demo_conventions():
    from fastndcg.conventions._convention import Convention

    return [
        ("standard", "2^l-1, 1/log2(r+1), stable ties", Convention(name="standard")),
        ("linear-avg", "l, tie-averaged (sklearn)", Convention(gain="linear", ties="average", name="linear-avg")),
        ("1/r", "2^l-1, discount 1/r (CatBoost Position)", Convention(discount="reciprocal", name="1/r")),
        ("worst-ties", "2^l-1, worst case inside ties", Convention(ties="worst", name="worst-ties")),
        ("letor4", "{0,1,3}, LETOR discount, short=0", Convention(gain=(0.0, 1.0, 3.0), unknown_label="zero",
                                                                 discount="letor", short="zero", name="letor4")),
    ]


def cmd_demo(args: argparse.Namespace) -> int:
    from fastndcg._core._openmp import openmp_enabled
    from fastndcg._version import __version__
    from fastndcg._core.threads import effective_n_threads
    from fastndcg.io._datasets import mslr_like
    from fastndcg.measures._ndcg import mean_ndcg

    if args.write_examples is not None:
        from fastndcg.io._example_files import write_examples

        paths = write_examples(args.write_examples)
        d = args.write_examples
        print(f"wrote {', '.join(str(p) for p in paths.values())}")
        print("try:")
        print(f"  fastndcg eval {d}/qrels.txt {d}/run_a.txt -k 5,10")
        print(f"  fastndcg compare {d}/qrels.txt {d}/run_a.txt {d}/run_b.txt -c -k 5,10")
        print(f"  fastndcg eval --data {d}/data.svm {d}/pred.txt -k 1,3,10")
        return 0

    t0 = time.perf_counter()
    data = mslr_like(args.queries, seed=args.seed)
    t_gen = time.perf_counter() - t0
    print(f"fastndcg {__version__} demo: generated MSLR-like data, seed {args.seed}")
    print(f"  {data.n_queries} queries, {data.n_docs} documents (generated in {t_gen:.2f} s); "
          f"OpenMP {'on' if openmp_enabled() else 'off'}, "
          f"{effective_n_threads(args.threads)} thread(s)")
    ks = args.k
    header = f"{'convention':<12} " + " ".join(f"{'NDCG@' + str(k):>9}" for k in ks) + "  rule"
    print()
    print(header)
    print("-" * len(header))
    total_time = 0.0
    for name, rule, conv in demo_conventions():
        t0 = time.perf_counter()
        values = mean_ndcg(data.scores, data.labels, data.offsets, ks, convention=conv,
                                    n_threads=args.threads)
        total_time += time.perf_counter() - t0
        print(f"{name:<12} " + " ".join(f"{v:9.6f}" for v in np.atleast_1d(values)) + f"  {rule}")
    n_calls = len(demo_conventions())
    rate = data.n_docs * n_calls / total_time / 1e6 if total_time > 0 else float("inf")
    print()
    print(f"{n_calls} conventions x {len(ks)} cutoffs in {total_time * 1e3:.1f} ms "
          f"({rate:.1f} M docs/s, validation included)")
    return 0
