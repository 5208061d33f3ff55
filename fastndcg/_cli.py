"""Command line: ``fastndcg demo`` (more subcommands come with the file readers)."""
from __future__ import annotations

import argparse
import sys
import time
from typing import List, Optional

import numpy as np


def _cutoffs(text: str) -> List[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"cutoffs must be comma-separated integers; got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"cutoffs must be integers >= 1; got {text!r}")
    return values


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer; got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0; got {text!r}")
    return v


def demo_conventions():
    from fastndcg import Convention

    return [
        ("standard", "2^l-1, 1/log2(r+1), stable ties", Convention(name="standard")),
        ("linear-avg", "l, tie-averaged (sklearn)", Convention(gain="linear", ties="average", name="linear-avg")),
        ("1/r", "2^l-1, discount 1/r (CatBoost Position)", Convention(discount="reciprocal", name="1/r")),
        ("worst-ties", "2^l-1, worst case inside ties", Convention(ties="worst", name="worst-ties")),
        ("letor4", "{0,1,3}, LETOR discount, short=0", Convention(gain=(0.0, 1.0, 3.0), unknown_label="zero",
                                                                 discount="letor", short="zero", name="letor4")),
    ]


def cmd_demo(args: argparse.Namespace) -> int:
    import fastndcg
    from fastndcg.datasets import mslr_like

    t0 = time.perf_counter()
    data = mslr_like(args.queries, seed=args.seed)
    t_gen = time.perf_counter() - t0
    print(f"fastndcg {fastndcg.__version__} demo: MSLR-like synthetic data, seed {args.seed}")
    print(f"  {data.n_queries} queries, {data.n_docs} documents (generated in {t_gen:.2f} s); "
          f"OpenMP {'on' if fastndcg.openmp_enabled() else 'off'}, "
          f"{fastndcg.effective_n_threads(args.threads)} thread(s)")
    ks = args.k
    header = f"{'convention':<12} " + " ".join(f"{'NDCG@' + str(k):>9}" for k in ks) + "  rule"
    print()
    print(header)
    print("-" * len(header))
    total_time = 0.0
    for name, rule, conv in demo_conventions():
        t0 = time.perf_counter()
        values = fastndcg.mean_ndcg(data.scores, data.labels, data.offsets, ks, convention=conv,
                                    n_threads=args.threads)
        total_time += time.perf_counter() - t0
        print(f"{name:<12} " + " ".join(f"{v:9.6f}" for v in np.atleast_1d(values)) + f"  {rule}")
    n_calls = len(demo_conventions())
    rate = data.n_docs * n_calls / total_time / 1e6 if total_time > 0 else float("inf")
    print()
    print(f"{n_calls} conventions x {len(ks)} cutoffs in {total_time * 1e3:.1f} ms "
          f"({rate:.1f} M docs/s, validation included)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fastndcg", description="Exact NDCG under every convention.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="NDCG of the embedded synthetic data under contrasting conventions")
    demo.add_argument("--queries", type=_positive, default=10_000, help="number of queries (default 10000)")
    demo.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    demo.add_argument("-k", type=_cutoffs, default=[1, 3, 5, 10], help="cutoffs, e.g. 1,3,5,10")
    demo.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all)")
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError) as exc:
        print(f"fastndcg: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
