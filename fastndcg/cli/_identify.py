"""``fastndcg identify``: which NDCG (preset, variant) reproduces a reported number.

Exit status: 0 when the search ran, whether or not a candidate reproduces the
number (the answer says which; JSON has ``"matched"``); 2, 3, 4 for bad options,
unreadable files and bad data as every sub-command (1 stays an internal error).
"""
from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any, Dict, List

from fastndcg.cli._options import EXIT_OK, cutoff_list_arg, nonnegative_int_arg, _note, add_threads_option
from fastndcg.cli._systems import UsageError
from fastndcg.report._format import json_text, table, write_output

if TYPE_CHECKING:   # imported where used: `fastndcg eval` builds this parser without them (9 ms)
    from fastndcg.io._results import ReportedValue
    from fastndcg.report._identify import Candidate, Identification


def _reported_value(text: str) -> ReportedValue:
    from fastndcg.io._results import parse_reported_value
    try:
        return parse_reported_value(text, "--value")
    except ValueError as exc:     # argparse names the option itself: "argument --value: ..."
        raise argparse.ArgumentTypeError(str(exc).replace("--value: ", "", 1)) from None


def _one_cutoff(text: str):
    ks = cutoff_list_arg(text)
    if len(ks) != 1:
        raise argparse.ArgumentTypeError(f"-k takes one cutoff (an integer >= 1 or 'all'); got {text!r}")
    return ks[0]


def add_identify_parser(sub) -> None:
    p = sub.add_parser("identify", help="which NDCG (preset or variant) reproduces a reported value",
                       description="Evaluate every preset and every variant of the fields that make tools "
                                   "disagree (gain, discount, ties, ideal, empty/short queries, score precision, "
                                   "missing topics, cutoff) and list those that reproduce a reported mean "
                                   "(--value, matched at its printed decimals) or another tool's per-query "
                                   "output (--per-query), each with its signature. TREC: fastndcg identify QRELS "
                                   "RUN --value 0.3914 -k 10; data: fastndcg identify --data DATA PRED --value ...",
                       epilog="exit status 0 whether or not a candidate matches (the output says which); "
                              "2 bad options, 3 unreadable file, 4 invalid data")
    p.add_argument("inputs", nargs="+", metavar="FILE", help="QRELS RUN (TREC files), or with --data: PRED")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--value", type=_reported_value, metavar="V",
                      help="the reported mean as printed, e.g. 0.3914 (its decimals set the match)")
    what.add_argument("--per-query", metavar="FILE",
                      help="another tool's per-query output: trec_eval -q lines, pytrec_eval JSON "
                           "{qid: {measure: value}}, or CSV/TSV qid,value")
    p.add_argument("--measure", metavar="NAME", default=None,
                   help="the measure of --per-query FILE to read when it has several (e.g. ndcg_cut_10)")
    p.add_argument("-k", type=_one_cutoff, default=None, metavar="K",
                   help="the reported cutoff (NDCG@K; the whole list is tried too); default: the whole list")
    p.add_argument("--data", metavar="DATA", help="SVMlight/LETOR data file; FILE is then a prediction file")
    p.add_argument("--group", metavar="FILE", help="query sizes for --data without qid: (default DATA.query/.group)")
    p.add_argument("--pred-column", type=nonnegative_int_arg, default=None, metavar="N",
                   help="take field N (0-based) of each prediction line")
    p.add_argument("--nearest", type=nonnegative_int_arg, default=5, metavar="N",
                   help="when nothing matches, list the N nearest candidates (default 5)")
    p.add_argument("--all-signatures", action="store_true",
                   help="table: list every equivalent signature of a candidate (JSON always does)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE (atomically: no file is left on error) instead of stdout")
    add_threads_option(p)
    p.set_defaults(func=cmd_identify)


def cmd_identify(args) -> int:
    from fastndcg.io._results import read_per_query
    from fastndcg.report._identify import identify, identify_data
    if args.measure is not None and args.per_query is None:
        raise UsageError("--measure names a measure of --per-query FILE; give --per-query")
    per_query = None
    if args.per_query is not None:
        per_query = read_per_query(args.per_query, args.measure, measure_argument="--measure")
    common: Dict[str, Any] = dict(value=args.value, per_query=per_query, k=args.k, n_nearest=args.nearest,
                                  n_threads=args.threads)
    if args.data is None:
        if len(args.inputs) != 2:
            raise UsageError(f"identify takes QRELS RUN (or --data DATA PRED); got {len(args.inputs)} file(s)")
        for opt in ("group", "pred_column"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt.replace('_', '-')} only applies with --data")
        found = identify(args.inputs[0], args.inputs[1], **common)
    else:
        if len(args.inputs) != 1:
            raise UsageError(f"identify --data DATA takes one prediction file; got {len(args.inputs)}")
        found = identify_data(args.data, args.inputs[0], group=args.group, prediction_column=args.pred_column,
                              **common)
    text = render_json(found) if args.format == "json" else render_table(found, args.all_signatures)
    for note in found.notes:
        _note(note)
    if not found.matches:
        _note("no preset or variant reproduces the reported value" +
              (f"; the nearest {len(found.nearest)} are listed" if found.nearest else ""))
    write_output(text, args.output)
    return EXIT_OK


def _reported_text(found: Identification) -> str:
    from fastndcg.io._results import ReportedValue
    r = found.reported
    if isinstance(r, ReportedValue):
        return f"mean {r.text} ({r.decimals} decimals: |v - {r.text}| <= {r.half_unit:g} + 1e-12)"
    mean = f", mean {r.mean.text}" if r.mean is not None else ""
    measure = f" ({r.measure})" if r.measure else ""
    return f"{len(r.values)} queries of {r.path}{measure}{mean}, each at its printed decimals"


def _value(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.6f}"


def render_table(found: Identification, all_signatures: bool = False) -> str:
    from fastndcg.io._results import ReportedValue
    per_query = not isinstance(found.reported, ReportedValue)
    lines = [f"reported: {_reported_text(found)}",
             f"evaluated: {found.n_measurements} measurements, {len(found.candidates)} distinct results"]
    shown = found.matches or found.nearest
    if found.matches:
        lines.append(f"MATCH: {len(found.matches)} distinct result(s) reproduce it")
    else:
        lines.append("NO MATCH: no preset or variant reproduces it" +
                     (f"; the nearest {len(found.nearest)}:" if found.nearest else ""))
    lines.append("")
    header = ["#", "value", "difference"] + (["queries"] if per_query else []) + ["measurements"]
    rows = []
    for i, c in enumerate(shown, 1):
        row = [str(i), _value(c.mean), "" if math.isnan(c.difference) else f"{c.difference:+.6f}"]
        if per_query:
            row.append(f"{c.matching_queries}/{len(found.reported.values)}")
        rows.append(row + [str(c.n_measurements)])
    if rows:
        lines.append(table(header, rows, right_from=1).rstrip("\n"))
    for i, c in enumerate(shown, 1):
        sigs = c.signatures
        lines.append("")
        lines.append(f"#{i} presets: {', '.join(c.presets) or '(none)'}")
        lines.append("   " + sigs[0])
        if all_signatures:
            lines.extend("   " + s for s in sigs[1:])
        elif len(sigs) > 1:
            lines.append(f"   ... and {len(sigs) - 1} equivalent signature(s) (--all-signatures lists them)")
        if c.first_mismatch:
            lines.append(f"   first mismatch: {c.first_mismatch}")
    return "\n".join(lines).rstrip("\n") + "\n"


def _candidate_json(c: Candidate) -> Dict[str, Any]:
    return {"value": None if math.isnan(c.mean) else c.mean,
            "difference": None if math.isnan(c.difference) else c.difference,
            "matching_queries": c.matching_queries, "first_mismatch": c.first_mismatch or None,
            "presets": c.presets, "signatures": c.signatures}


def render_json(found: Identification) -> str:
    from fastndcg.io._results import ReportedValue
    r = found.reported
    if isinstance(r, ReportedValue):
        reported: Dict[str, Any] = {"value": r.text, "decimals": r.decimals}
    else:
        reported = {"per_query": r.path, "measure": r.measure, "n_queries": len(r.values),
                    "mean": r.mean.text if r.mean is not None else None}
    doc = {"reported": reported, "rule": found.rule, "matched": bool(found.matches),
           "n_measurements": found.n_measurements, "n_distinct": len(found.candidates),
           "matches": [_candidate_json(c) for c in found.matches],
           "nearest": [_candidate_json(c) for c in found.nearest], "notes": found.notes}
    return json_text(doc, allow_nan=True) + "\n"


__all__: List[str] = ["add_identify_parser", "cmd_identify", "render_table", "render_json"]
