"""``fastndcg eval``: NDCG per query and mean for every run, or trec_eval's measures (``-m``,
``-J``, ``-l``, ``-q``), rendered as a table, JSON, CSV or trec_eval's own layout."""
from __future__ import annotations
import io
import math
import os
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from fastndcg.report._format import csv_field as _csv
from fastndcg.report._format import csv_num as _csv_num
from fastndcg.report._format import qid_json as _qid_json
from fastndcg.report._format import table as _table
from fastndcg.report._format import json_text, write_output
from fastndcg.cli._messages import error_message
from fastndcg.cli._options import EXIT_OK, Progress, _note, progress_for, print_warning
from fastndcg.conventions._presets import follows_trec_eval, get_preset, presets_where, report_cutoffs
from fastndcg.cli._systems import UsageError, format_value, json_number, qid_text, run_notes, run_names, add_input_arguments, add_output_arguments, evaluate_systems, load_systems, column_names, missing_rule, overflow_warnings_at_lines, convention_for, InputSet
from fastndcg.measures._measurement import cutoff_measurements


# ============================================================================ eval


def add_eval_parser(sub) -> None:
    p = sub.add_parser("eval", help="NDCG of TREC runs against qrels, or of prediction files against LETOR/SVMlight data",
                       description="Evaluate TREC runs against qrels (fastndcg eval QRELS RUN ...) or prediction "
                                   "files against SVMlight/LETOR data (fastndcg eval --data DATA PRED ...). "
                                   "-m takes the measures as trec_eval (-m ndcg_cut.5,10 -m ndcg.1=3,2=9) or "
                                   "ir_measures (-m 'nDCG@10' -m \"nDCG(dcg='exp-log2')@20\") name them.")
    add_input_arguments(p)
    add_measure_arguments(p)
    add_output_arguments(p, formats=("table", "json", "csv", "trec"))
    p.add_argument("-q", "--per-query", action="store_true", help="also print every query's values (trec_eval -q)")
    p.add_argument("--layout", choices=("wide", "long"), default="wide",
                   help="csv: one column per measure (wide) or one row per run, query and measure (long: "
                        "run,query,measure,value)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="table: end with every field of the convention")
    p.add_argument("--signature", action="store_true",
                   help="--format trec: also print each measure's signature (a 'signature' line per measure after "
                        "the runs); the other formats always carry them (table footer, json field, csv column)")
    p.set_defaults(func=cmd_eval)


def add_measure_arguments(p) -> None:
    """-m, -J, -l: the measures of ``eval`` and ``test`` on TREC files."""
    meas = p.add_argument_group("measures (TREC files)")
    meas.add_argument("-m", "--measure", dest="measures", action="append", default=None, metavar="MEASURE",
                      help="a measure in trec_eval syntax (ndcg, ndcg.L=G,..., ndcg_cut.5,10, ndcg_rel, Rndcg, dcg, "
                           "ideal_dcg, ndcg_p; runid and num_q for --format trec) or ir_measures syntax (nDCG@10, "
                           "nDCG(dcg='exp-log2')@20, nDCG(gains={0:0,1:1,2:3})@10, nDCG(judged_only=True)@10); "
                           "repeat for several, or paste a signature (nDCG@10|gain:lin|...). Replaces -k and --gain")
    meas.add_argument("-J", "--judged-only", action="store_true",
                      help="trec_eval -J: rank only the retrieved documents judged >= 0 (condensed lists)")
    meas.add_argument("-l", "--level-for-rel", dest="level", type=int, default=None, metavar="L",
                      help="trec_eval -l: the relevance level of Rndcg and ndcg_p (default 1)")


def cmd_eval(args) -> int:
    progress = progress_for(args)
    if args.layout == "long" and args.format != "csv":
        raise UsageError("--layout long applies to --format csv")
    if args.measures is None and (args.judged_only or args.level is not None):
        check_judged_options(args)
    if args.measures is not None:
        return _eval_measures(args, progress)
    inputs, results = systems_and_results(args, progress)
    for r in results:
        for n in r["notes"]:
            _note(n)
    names = column_names(inputs.measurements, args.format, inputs)
    signatures = inputs.signatures
    meta = dict(preset=inputs.preset, convention=inputs.convention.describe(), cutoffs=inputs.cutoffs,
                truth=inputs.truth_path)
    text = render_eval(meta, results, names, args.format, args.per_query, args.digits, args.layout,
                       _footer(inputs.preset, inputs.convention, args.verbose), bookkeeping=("runid", "num_q"),
                       signatures=signatures, trec_signatures=args.signature)
    write_output(text, args.output)
    return EXIT_OK


def trec_input_set(args, progress: Progress) -> Tuple[InputSet, Any, str]:
    """``QRELS RUN ...`` with ``-k`` / ``--preset`` / ``--gain``: the qrels (read once, for every
    run), the :class:`InputSet` without systems (the convention, cutoffs and each column's
    measurement) and how judged topics missing from a run are scored (for the notes)."""
    from fastndcg.conventions._trec_levels import LEVEL_UNJUDGED

    if len(args.inputs) < 2:
        raise UsageError("TREC mode needs QRELS and at least one RUN (or use --data DATA PRED ...)")
    for opt in ("group", "pred_column"):
        if getattr(args, opt) is not None:
            raise UsageError(f"--{opt.replace('_', '-')} only applies with --data")
    args.preset = args.preset or "trec_eval"
    qrels = read_qrels_of(args, progress)
    conv, spec, trec_spec = convention_for(args, float(qrels.relevance.max(initial=0)))
    ks: List[Optional[int]] = args.k or report_cutoffs(args.preset)
    cut = False
    if follows_trec_eval(conv) and any(k is not None for k in ks):
        # the preset's cutoff is trec_eval's ndcg_cut (its ideal is cut at k; the whole list stays ndcg)
        cut = spec is None
        if spec is not None:
            print_warning(f"--gain {spec} with cutoffs: trec_eval has no cutoff for ndcg with custom gains "
                          f"(ndcg_cut takes none); ndcg_{spec}@k is the DCG of the top k over the ideal DCG of "
                          "the whole list")
    missing = missing_rule(args)
    how_missing = "counted as 0"
    if trec_spec is not None and conv.missing_ranking == "unjudged" and LEVEL_UNJUDGED in trec_spec.levels:
        how_missing = "ranked as one unjudged document (as trec_eval 10 -c; it has the gain of level -1)"
    inputs = InputSet("trec", [], conv, ks, args.preset, args.inputs[0], spec, cut,
                      cutoff_measurements(ks, conv, ideal=args.ideal, gains=trec_spec, missing=missing,
                                          max_docs=args.max_docs, judged_only=getattr(args, "judged_only", False),
                                          relevance_level=getattr(args, "level", None) or 1))
    return inputs, qrels, how_missing


def read_qrels_of(args, progress: Progress):
    """The qrels of ``fastndcg eval|test|compare QRELS RUN ...``; when they fail
    to read and the first two files look swapped, an error that says so."""
    from fastndcg.io._trec import qrels_before_run, read_qrels

    qrels_path, run_path = args.inputs[0], args.inputs[1]
    with qrels_before_run(qrels_path, run_path, ("the first file", "the second"),
                          f"fastndcg {args.command} QRELS RUN [RUN ...]"):
        qrels = read_qrels(qrels_path, progress=progress.start(qrels_path), n_threads=args.threads)
    progress.done()
    return qrels


def systems_and_results(args, progress: Progress) -> Tuple[Any, List[Dict[str, Any]]]:
    """``-k`` / ``--preset`` (eval and test): the inputs and each system's per-query values and
    means. TREC files in memory take the straight path: the cutoffs' measurements
    (:func:`trec_input_set`), then :func:`evaluate_runs`; data + predictions
    and ``--stream`` are loaded as systems and evaluated by :func:`evaluate_systems`."""
    if args.data is None and not getattr(args, "stream", False):
        inputs, qrels, how_missing = trec_input_set(args, progress)
        return inputs, evaluate_runs(args, qrels, inputs.measurements, progress, how_missing=how_missing)
    inputs = load_systems(args, progress, trec_input_set(args, progress) if args.data is None else None)
    return inputs, evaluate_systems(inputs, args.threads, progress)


def check_judged_options(args) -> None:
    """-J / -l without -m apply to the -k measurements (:func:`trec_input_set` gives them
    ``judged_only`` and ``relevance_level``): TREC files in memory, trec_eval's measures."""
    if args.data is not None:
        raise UsageError("-J and -l apply to TREC qrels + runs")
    if getattr(args, "stream", False):
        raise UsageError("-J and -l evaluate each run in memory; they do not apply with --stream")
    preset = args.preset or "trec_eval"
    if not follows_trec_eval(get_preset(preset)):
        raise UsageError(f"-J and -l apply to trec_eval's measures (presets {', '.join(presets_where(follows_trec_eval))}); "
                     f"got --preset {preset}")
    if args.ideal != "auto":
        raise UsageError("--ideal does not apply with -J and -l: trec_eval's measures take the ideal of the qrels")
    ks: List[Optional[int]] = args.k or report_cutoffs(preset)
    if getattr(args, "gain", None) is not None and any(k is not None for k in ks):
        raise UsageError("-J with --gain and cutoffs: trec_eval has no cutoff for ndcg with custom gains; "
                     "use -m ndcg.L=G,... and -m ndcg_cut.K")


@dataclass
class MeasureRuns:
    """The runs of ``-m``: one dict per run (name, runid, path, qids, values, mean, notes), the
    measurements of the columns (in print order), their names, and trec_eval's bookkeeping lines."""

    results: List[Dict[str, Any]]
    measurements: List[Any]
    names: List[str]
    bookkeeping: List[str]
    convention: Any


def measure_runs(args, progress: Progress) -> MeasureRuns:
    """``QRELS RUN ... -m MEASURE ...`` (eval and test): the measurements resolved once
    (:func:`fastndcg.measures._measurement.resolve_measurements`), then every run joined with
    the qrels while it is read and evaluated."""
    from fastndcg.measures._measure_strings import BOOKKEEPING, MEASURE_SETS, MeasureWarning, expand_measure_sets
    from fastndcg.measures._measurement import resolve_measurements

    if args.data is not None:
        raise UsageError("-m applies to TREC qrels + runs; with --data use --preset and -k")
    if args.k is not None or getattr(args, "gain", None) is not None:
        raise UsageError("-m replaces -k and --gain: give cutoffs and gains in the measure (e.g. -m ndcg_cut.5,10 "
                     "-m ndcg.1=3,2=9 -m nDCG@10)")
    if getattr(args, "stream", False):
        raise UsageError("--stream does not apply with -m yet; -m evaluates each run in memory")
    if args.ideal != "auto":
        raise UsageError("--ideal does not apply with -m: each measure takes its ideal as its tool does (the qrels)")
    conv = get_preset(args.preset or "trec_eval")
    if not follows_trec_eval(conv):
        raise UsageError(f"--preset {args.preset} does not go with -m: the measures follow trec_eval 10 (--preset "
                     "trec_eval, the default) or trec_eval 9 as pytrec_eval bundles it (--preset pytrec_eval)")
    if len(args.inputs) < 2:
        raise UsageError("TREC mode needs QRELS and at least one RUN")
    try:
        asked = expand_measure_sets(args.measures)
    except ValueError as exc:
        raise UsageError(error_message(exc)) from None
    for name in dict.fromkeys(m.strip() for m in args.measures if m.strip() in MEASURE_SETS):
        _note(f"-m {name} is trec_eval's {name} for the NDCG family: {', '.join(MEASURE_SETS[name])} (its other "
              "measures, map, P, recall, ..., are not NDCG measures: trec_eval computes them)")
    book = [m.strip() for m in asked if m.strip() in BOOKKEEPING]
    strings = [m for m in asked if m.strip() not in BOOKKEEPING]
    missing = signature_missing_rule(args, strings)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MeasureWarning)
        try:
            measurements = resolve_measurements(strings, convention=conv, missing=missing, max_docs=args.max_docs,
                                                judged_only=args.judged_only,
                                                relevance_level=1 if args.level is None else args.level) \
                if strings else []
        except ValueError as exc:
            raise UsageError(error_message(exc)) from None
    for w in caught:
        print_warning(str(w.message))
    _note_trec_repeats(strings)
    qrels = read_qrels_of(args, progress)
    results = evaluate_runs(args, qrels, measurements, progress, max_docs=args.max_docs, missing=missing)
    order = list(range(len(measurements)))
    if args.format == "trec":       # trec_eval prints its measures in the order of its measure table
        order.sort(key=lambda j: _trec_rank(measurements[j]))
        for r in results:
            r["values"], r["mean"] = r["values"][:, order], r["mean"][order]
    ordered = [measurements[j] for j in order]
    return MeasureRuns(results, ordered, column_names(ordered, args.format), book, conv)


def signature_missing_rule(args, strings: List[str]) -> str:
    """The rule for judged topics missing from a run under ``-m``: a signature states its own
    (``missing:zero``) and is enough; the measures written without one follow it. An explicit
    ``--missing`` / ``-c`` / ``--skip-missing`` that contradicts a signature, or signatures that
    contradict each other, are usage errors naming both; without signatures, :func:`missing_rule`."""
    from fastndcg.measures._measurement import from_signature

    given = getattr(args, "missing", None)
    stated: Dict[str, str] = {}
    for text in strings:
        if "|" in text:
            try:
                stated.setdefault(from_signature(text).missing, text.strip())
            except ValueError as exc:
                raise UsageError(error_message(exc)) from None
    if given is not None:
        other = [(rule, sig) for rule, sig in stated.items() if rule != given]
        if other:
            rule, sig = other[0]
            raise UsageError(f"--missing {given} contradicts the signature given with -m, which states missing:{rule} "
                             f"({sig}); a signature states its own rule for missing topics: drop --missing "
                             f"(-c, --skip-missing), or change the signature's missing: field")
        return given
    if len(stated) > 1:
        (r1, s1), (r2, s2) = list(stated.items())[:2]
        raise UsageError(f"the signatures given with -m state different rules for missing topics (missing:{r1} in "
                         f"{s1}, missing:{r2} in {s2}); one evaluation has one set of topics: evaluate them "
                         "separately")
    return next(iter(stated)) if stated else missing_rule(args)


def evaluate_runs(args, qrels: Any, measurements: List[Any], progress: Progress, *, max_docs: Optional[int] = None,
                  how_missing: str = "counted as 0", missing: Optional[str] = None) -> List[Dict[str, Any]]:
    """Every run of ``QRELS RUN ...`` (in memory), against qrels read once: joined with them while it
    is read (:func:`fastndcg.io._joining.join_runs`: small runs side by side, one thread each; arrays out),
    then the measurements evaluated on it, in order
    (:func:`fastndcg.measures._trec_measures.evaluate_trec`, which calls the kernels). One dict per run: name, runid,
    path, qids, values (n_topics, n_measurements), mean, notes. ``max_docs``: -M, for the runid /
    num_q-only output of ``-m`` (no measurement carries it then); ``missing``: the rule for
    judged topics missing from a run (:func:`signature_missing_rule`; None: :func:`missing_rule`)."""
    from fastndcg.io._joining import join_runs, run_threads
    from fastndcg.measures._trec_measures import evaluate_trec, top_rows_read

    missing = missing_rule(args) if missing is None else missing
    run_paths = args.inputs[1:]
    names = run_names(run_paths, args.command)
    results = []
    # each run joined with the qrels while it is read (the qrels are read and indexed once for all
    # runs; small runs side by side, one thread each), then evaluated here, in order
    threads = run_threads(run_paths, args.threads)[1]
    # each topic's top rows only, when the measurements read no more
    top = top_rows_read(measurements) if measurements else None
    joined = join_runs(run_paths, qrels, n_threads=args.threads, progress=progress.start if progress.enabled else None,
                       top=top)
    for name, path, run in zip(names, run_paths, joined):
        progress.done()
        if measurements:
            with overflow_warnings_at_lines({}, path):
                res = evaluate_trec(run, qrels, measurements, n_threads=threads, consume_run=True)
            qids, values, means, runid = res.qids, res.values, res.means, res.run_name
            notes = run_notes(path, res.ignored_qids, res.missing_qids, missing, how_missing)
        else:       # only runid / num_q
            a = run.aligned(missing=missing, max_docs=max_docs, n_threads=threads, consume=True)
            qids, values, means, runid = a.qids, np.zeros((a.n_queries, 0)), np.zeros(0), a.run_name
            notes = run_notes(path, a.ignored_qids, a.missing_qids, missing, how_missing)
        results.append(dict(name=name, runid=runid, path=path, qids=qids, values=values, mean=means, notes=notes))
    return results


def _eval_measures(args, progress: Progress) -> int:
    """fastndcg eval QRELS RUN ... -m MEASURE ...: trec_eval's and ir_measures' measures."""
    runs = measure_runs(args, progress)
    for r in runs.results:
        for n in r["notes"]:
            _note(n)
    how = "trec_eval 10" if runs.convention.score_precision == "native" else \
        "trec_eval 9 (pytrec_eval: float32 scores)"
    meta = dict(preset=args.preset or "trec_eval", convention=f"trec_eval-syntax measures by {how}'s rules; "
                "ir_measures-syntax measures as ir_measures' providers compute them",
                cutoffs=None, truth=args.inputs[0], measure_strings=list(args.measures),
                judged_only=bool(args.judged_only))
    footer = f"measures: trec_eval syntax by {how}'s rules, ir_measures syntax as ir_measures computes them"
    if args.judged_only:
        footer += "; -J: judged documents only"
    text = render_eval(meta, runs.results, runs.names, args.format, args.per_query, args.digits, args.layout,
                       footer + "\n", bookkeeping=runs.bookkeeping,
                       signatures=[m.signature for m in runs.measurements], trec_signatures=args.signature)
    write_output(text, args.output)
    return EXIT_OK


def _trec_rank(m) -> Tuple[int, int]:
    """trec_eval's print order: its measure table for the names trec_eval prints
    (``ndcg_cut_10``, ``ndcg_1=3``), then everything else (ir_measures names,
    signatures) in the order given."""
    from fastndcg.measures._measure_strings import TREC_MEASURES

    name = m.label
    for family in sorted(TREC_MEASURES, key=len, reverse=True):
        if name == family or name.startswith(family + "_"):
            return (TREC_MEASURES.index(family), 0)
    return (len(TREC_MEASURES), 0)


def _note_trec_repeats(strings: List[str]) -> None:
    """trec_eval keeps the parameters of the first -m of a measure only."""
    seen: Dict[str, str] = {}
    for text in strings:
        t = text.strip()
        name, dot, _ = t.partition(".")
        if not dot or "@" in t or "(" in t:
            continue
        if name in seen and seen[name] != t:
            _note(f"-m {seen[name]} and -m {t}: trec_eval would compute only the first; fastndcg computes both")
        seen.setdefault(name, t)


def _footer(preset: str, convention: Any, verbose: bool) -> str:
    """What the table ends with (after the data): the preset, and with --verbose every field of
    its convention."""
    lines = [f"preset {preset}"]
    if verbose:
        for part in convention.describe().split(" "):
            key, _, value = part.partition("=")
            lines.append(f"  {key:<17} {value}")
    return "\n".join(lines) + "\n"


def _c_fixed(v: float, digits: int) -> str:
    """printf's %6.4f (trec_eval's format), NaN as glibc prints it (-nan when the sign bit is set)."""
    if math.isnan(v):
        return f"{'-nan' if math.copysign(1.0, v) < 0 else 'nan':>6}"
    return f"{v:6.{digits}f}"


def render_eval(meta: Dict[str, Any], results, names: List[str], fmt: str, per_query: bool, digits: int,
                layout: str = "wide", footer: str = "", bookkeeping=("runid", "num_q"),
                signatures: Optional[List[str]] = None, trec_signatures: bool = False) -> str:
    """The output of ``fastndcg eval``. Runs are named by their file (the
    base name when those are unique); ``runid`` is the run tag (trec_eval's).
    ``footer``: the table's closing lines (what was measured and how), after
    a blank line, so that the table opens with its data.
    ``signatures``: each measure's signature (json: a field; csv: a column, in
    the wide layout ``signatures``: all, in column order, joined by `` ; ``;
    table: in the footer; trec: lines only with ``trec_signatures``, so that
    the default stays trec_eval's bytes)."""
    sigs = list(signatures) if signatures is not None else [""] * len(names)
    if fmt == "json":
        doc = dict(meta)
        doc.update(measures=names, signatures=dict(zip(names, sigs)), runs=[])
        for r in results:
            run = {"name": r["name"], "runid": r.get("runid", ""), "path": r["path"],
                   "n_queries": int(r["values"].shape[0]),
                   "mean": {m: json_number(v) for m, v in zip(names, r["mean"].tolist())}}
            if per_query:
                run["per_query"] = [dict(query=_qid_json(q), **{m: json_number(v) for m, v in zip(names, row)})
                                    for q, row in zip(r["qids"].tolist(), r["values"].tolist())]
            doc["runs"].append(run)
        return json_text(doc) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        if layout == "long":
            buf.write("run,query,measure,value,signature\n")
            for r in results:
                per_row = list(zip(r["qids"].tolist(), r["values"].tolist())) if per_query else []
                for q, row in per_row + [("all", r["mean"].tolist())]:
                    for m, v, sig in zip(names, row, sigs):
                        buf.write(",".join([_csv(r["name"]), _csv(qid_text(q)), _csv(m), _csv_num(v), _csv(sig)])
                                  + "\n")
            return buf.getvalue()
        # wide: the measures' signatures, in column order and joined by " ; ", in a last column
        joined = _csv(" ; ".join(sigs))
        buf.write(",".join(["run", "query"] + [_csv(n) for n in names] + ["signatures"]) + "\n")
        for r in results:
            if per_query:
                for q, row in zip(r["qids"].tolist(), r["values"].tolist()):
                    buf.write(",".join([_csv(r["name"]), _csv(qid_text(q))] + [_csv_num(v) for v in row]
                                       + [joined]) + "\n")
            buf.write(",".join([_csv(r["name"]), "all"] + [_csv_num(v) for v in r["mean"].tolist()] + [joined])
                      + "\n")
        return buf.getvalue()
    if fmt == "trec":
        if len(results) > 1:
            # several runs are told apart as trec_eval -m runid tells them; one run stays
            # byte for byte trec_eval's output for the measures asked
            if "runid" not in bookkeeping:
                bookkeeping = ("runid", *bookkeeping)
            tags = [r.get("runid") or r["name"] for r in results]
            for tag in (t for t in dict.fromkeys(tags) if tags.count(t) > 1):
                _note(f"runs {', '.join(r['name'] for r, t in zip(results, tags) if t == tag)} share the run "
                      f"tag {tag!r}: their --format trec blocks follow the order of the files")
        lines = []
        for r in results:
            if per_query:
                for q, row in zip(r["qids"].tolist(), r["values"].tolist()):
                    for m, v in zip(names, row):
                        lines.append(f"{m:<22}\t{qid_text(q)}\t{_c_fixed(v, digits)}")
            if "runid" in bookkeeping:
                lines.append(f"{'runid':<22}\tall\t{r.get('runid') or r['name']}")
            if "num_q" in bookkeeping:
                lines.append(f"{'num_q':<22}\tall\t{r['values'].shape[0]}")
            for m, v in zip(names, r["mean"].tolist()):
                lines.append(f"{m:<22}\tall\t{_c_fixed(v, digits)}")
        if trec_signatures:
            lines.extend(f"{'signature':<22}\t{m}\t{sig}" for m, sig in zip(names, sigs))
        return "\n".join(lines) + "\n" if lines else ""
    head = ["run", "query"] + names
    rows: List[List[str]] = []
    for r in results:
        if per_query:
            for q, row in zip(r["qids"].tolist(), r["values"].tolist()):
                rows.append([r["name"], qid_text(q)] + [format_value(v, digits) for v in row])
        rows.append([r["name"], f"all ({r['values'].shape[0]})"] + [format_value(v, digits) for v in r["mean"].tolist()])
    return _table(head, rows, right_from=2) + ("\n" + footer if footer else "") + _signature_footer(names, sigs)


def _signature_footer(names: List[str], sigs: List[str]) -> str:
    """The table's footer: what each column computed, completely (paste it into a paper)."""
    shown = [(m, s) for m, s in zip(names, sigs) if s]
    if not shown:
        return ""
    width = max(len(m) for m, _ in shown)
    return "\nsignatures:\n" + "".join(f"  {m:<{width}}  {s}\n" for m, s in shown)
