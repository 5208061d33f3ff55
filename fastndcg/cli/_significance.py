"""``fastndcg test``: statistical tests between systems (paired t, Wilcoxon, randomization;
Holm's correction), rendered as a table or JSON."""
from __future__ import annotations
import io
import math
from typing import Any, Dict, List

import numpy as np

from fastndcg.report._format import csv_field as _csv
from fastndcg.report._format import csv_num as _csv_num
from fastndcg.report._format import table as _table
from fastndcg.report._format import json_text, write_output
from fastndcg.cli._options import EXIT_OK, _note, nonnegative_int_arg, positive_int_arg, probability_arg, progress_for
from fastndcg.cli._eval import check_judged_options, add_measure_arguments, measure_runs, systems_and_results
from fastndcg.cli._systems import UsageError, format_value, qid_text, add_input_arguments, add_output_arguments, column_names


# ============================================================================ test


def add_test_parser(sub) -> None:
    p = sub.add_parser("test", help="significance tests between runs (paired t, Wilcoxon, randomization)",
                       description="Compare two or more systems on the same queries: mean NDCG@k with a "
                                   "bootstrap confidence interval, and per pair the paired t-test, Wilcoxon "
                                   "signed-rank and randomization p-values, the Holm-adjusted p-value, the "
                                   "effect size and the winner at --alpha.")
    add_input_arguments(p)
    add_measure_arguments(p)
    add_output_arguments(p)
    p.add_argument("--alpha", type=probability_arg, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--test", choices=("t", "wilcoxon", "randomization"), default="t",
                   help="the test that decides the winner (default: t); all three are reported")
    p.add_argument("--correction", choices=("holm", "none"), default="holm",
                   help="multiple-comparison adjustment over the pairs (default: holm)")
    p.add_argument("--baseline", default=None, metavar="NAME",
                   help="compare every system with this one only (default: all pairs)")
    p.add_argument("--resamples", type=positive_int_arg, default=10000,
                   help="bootstrap and randomization resamples (default 10000)")
    p.add_argument("--seed", type=nonnegative_int_arg, default=0, help="seed of the resampling (default 0)")
    p.add_argument("--confidence", type=probability_arg, default=0.95,
                   help="confidence of the bootstrap intervals (default 0.95)")
    p.set_defaults(func=cmd_test)


def cmd_test(args) -> int:
    from fastndcg.measures._measure_strings import BOOKKEEPING
    from fastndcg.report._significance import bootstrap_ci, compare_systems

    progress = progress_for(args)
    if args.measures is None and (args.judged_only or args.level is not None):
        check_judged_options(args)
    if args.measures is not None:      # the measures as eval -m takes them
        runs = measure_runs(args, progress)
        book = [m.strip() for m in args.measures if m.strip() in BOOKKEEPING]     # all_trec's are no measures
        if book:
            raise UsageError(f"-m {book[0]} is a line of --format trec; fastndcg test compares measures")
        results, names, signatures = runs.results, runs.names, [m.signature for m in runs.measurements]
        preset = args.preset or "trec_eval"
    else:
        inputs, results = systems_and_results(args, progress)
        names, signatures, preset = column_names(inputs.measurements, "table", inputs), inputs.signatures, inputs.preset
    if len(results) < 2:
        raise UsageError("fastndcg test needs at least two runs / prediction files")
    for r in results:
        for n in r["notes"]:
            _note(n)
    # the same queries, in the same order, for every system
    key_lists = [[qid_text(q) for q in r["qids"].tolist()] for r in results]
    common: List[str] = key_lists[0] if key_lists else []
    for keys in key_lists[1:]:
        present = set(keys)
        common = [q for q in common if q in present]
    blocks = []
    for r in results:
        keys = [qid_text(q) for q in r["qids"].tolist()]
        pos = {q: i for i, q in enumerate(keys)}
        if len(keys) != len(common):
            _note(f"{r['path']}: {len(keys) - len(common)} query(ies) not evaluated for every system were dropped")
        blocks.append(r["values"][[pos[q] for q in common]])
    sys_names = [r["name"] for r in results]
    if args.baseline is not None and args.baseline not in sys_names:
        raise UsageError(f"--baseline {args.baseline!r} is not one of the systems: {', '.join(sys_names)}")
    report = {"preset": preset, "alpha": args.alpha, "test": args.test, "correction": args.correction,
              "n_queries": len(common), "measures": []}
    for j, m in enumerate(names):
        per = {n: b[:, j] for n, b in zip(sys_names, blocks)}
        nan_rows = np.zeros(len(common), dtype=np.bool_)
        for v in per.values():
            nan_rows |= np.isnan(v)
        if nan_rows.any():
            _note(f"{m}: {int(nan_rows.sum())} query(ies) with undefined NDCG left out of the tests")
            per = {n: v[~nan_rows] for n, v in per.items()}
        systems = []
        for n, v in per.items():
            ci = bootstrap_ci(v, confidence=args.confidence, n_resamples=args.resamples, seed=args.seed)
            systems.append({"name": n, "mean": ci.mean, "ci_low": ci.low, "ci_high": ci.high})
        pairs = compare_systems(per, alpha=args.alpha, test=args.test, correction=args.correction,
                                      baseline=args.baseline, n_resamples=args.resamples, seed=args.seed)
        report["measures"].append({"measure": m, "signature": signatures[j], "systems": systems,
                                   "pairs": [p._asdict() for p in pairs]})
    write_output(render_test(report, args.format, args.digits, args.confidence), args.output)
    return EXIT_OK


def render_test(report: Dict[str, Any], fmt: str, digits: int, confidence: float) -> str:
    if fmt == "json":
        def clean(o):
            if isinstance(o, float):
                return None if math.isnan(o) else (str(o) if math.isinf(o) else o)
            if isinstance(o, dict):
                return {k: clean(v) for k, v in o.items()}
            if isinstance(o, list):
                return [clean(v) for v in o]
            return o
        return json_text(clean(report)) + "\n"
    pair_cols = ["a", "b", "mean_a", "mean_b", "diff", "effect_size", "p_t", "p_wilcoxon",
                 "p_randomization", "p_adjusted", "winner"]
    if fmt == "csv":
        buf = io.StringIO()
        buf.write(",".join(["measure"] + pair_cols + ["signature"]) + "\n")
        for m in report["measures"]:
            for p in m["pairs"]:
                cells = [m["measure"]] + [_csv(str(p[c])) if isinstance(p[c], str) else _csv_num(p[c])
                                          for c in pair_cols] + [_csv(m["signature"])]
                buf.write(",".join(cells) + "\n")
        return buf.getvalue()
    out: List[str] = []
    for m in report["measures"]:
        out.append(f"\n{m['measure']}\n" if out else f"{m['measure']}\n")
        pct = f"{100 * confidence:g}% CI"
        rows = [[s["name"], format_value(s["mean"], digits),
                 f"[{format_value(s['ci_low'], digits)}, {format_value(s['ci_high'], digits)}]"] for s in m["systems"]]
        out.append(_table(["system", "mean", pct], rows))
        out.append("\n")
        rows = []
        for p in m["pairs"]:
            rows.append([p["a"], p["b"], format_value(p["diff"], digits), format_value(p["effect_size"], 3),
                         _fmt_p(p["p_t"]), _fmt_p(p["p_wilcoxon"]), _fmt_p(p["p_randomization"]),
                         _fmt_p(p["p_adjusted"]), p["winner"] or "-"])
        out.append(_table(["A", "B", "A-B", "d_z", "p(t)", "p(wilcoxon)", "p(rand)", "p(adj)", "winner"],
                          rows, right_from=2))
        out.append(f"signature: {m['signature']}\n")
    # how it was tested closes the output: the tables open it
    out.append(f"\npreset {report['preset']}; {report['n_queries']} queries; winner by the {report['test']} test "
               f"at alpha {report['alpha']} ({report['correction']} correction)\n")
    return "".join(out)


def _fmt_p(p: float) -> str:
    if math.isnan(p):
        return "nan"
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"
