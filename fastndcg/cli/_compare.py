"""``fastndcg compare``: the same runs under several presets, side by side, with the reasons
they differ (:func:`fastndcg.compare`)."""
from __future__ import annotations
import argparse
import os
from typing import Optional

from fastndcg.report._format import write_output
from fastndcg.cli._options import EXIT_OK, _note, progress_for
from fastndcg.conventions._presets import report_cutoffs
from fastndcg.cli._systems import UsageError, add_input_arguments, add_output_arguments, load_systems, missing_rule, overflow_warnings_at_lines
from fastndcg.cli._eval import trec_input_set


# ============================================================================ compare


def add_compare_parser(sub) -> None:
    p = sub.add_parser("compare", help="NDCG under every preset side by side, with the reasons they differ",
                       description="Evaluate TREC runs (fastndcg compare QRELS RUN ...) or prediction files "
                                   "(fastndcg compare --data DATA PRED ...) under every preset (or --presets) "
                                   "at the cutoffs -k, with the diagnostics that explain the differences: "
                                   "empty and short queries, ties across gain levels and the [worst, best] "
                                   "range they allow, the spread between presets, and with several systems "
                                   "their order under each preset and the pairs whose order flips.")
    add_input_arguments(p, presets=True, gain_and_stream=False)
    add_output_arguments(p)
    p.add_argument("--per-query", action="store_true", help="json/csv: also every query's NDCG under every preset")
    p.add_argument("--plot", metavar="FILE.png", default=None,
                   help="also write a PNG of NDCG@1..K, one line per preset (needs matplotlib: fastndcg[plot])")
    p.add_argument("--plot-max-k", type=_at_least_one, default=None, metavar="K",
                   help="largest k of the plot (default: the largest cutoff)")
    p.set_defaults(func=cmd_compare)


def _at_least_one(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1; got {text!r}")
    return v


def _check_writable(path: Optional[str], option: str) -> None:
    """Fail before any work when an output cannot be created (exit code 3)."""
    if path is None or path == "-":
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(2, f"{option}: the folder {folder!r} does not exist", path)
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise PermissionError(13, f"{option}: cannot write there", path)


def cmd_compare(args) -> int:
    from fastndcg.io._row_lines import at_file_lines, file_line_error
    from fastndcg.report._compare_compute import RunData
    from fastndcg.report._compare_render import compare

    if args.per_query and args.format == "table":
        _note("--per-query applies to --format json and csv; the table shows the aggregates")
    if args.plot_max_k is not None and args.plot is None:
        raise UsageError("--plot-max-k needs --plot FILE.png")
    if args.plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError('--plot needs matplotlib: pip install "fastndcg[plot]"') from None
    _check_writable(args.output, "-o/--output")
    _check_writable(args.plot, "--plot")
    progress = progress_for(args)
    # Load once with everything a preset may need: the docno tie key and the
    # judgments (TREC), so that each preset can take what its tool uses.
    load = argparse.Namespace(**vars(args))
    load.preset = "trec_eval" if args.data is None else "standard"
    load.ideal = "qrels"
    inputs = load_systems(load, progress, trec_input_set(load, progress) if load.data is None else None)
    runs = {}
    for sys_ in inputs.systems:
        for n in sys_.notes:
            _note(n)
        path, line_of = (sys_.row_lines or {}).get("scores", (sys_.path, None))
        runs[sys_.name] = RunData(qids=sys_.qids, **sys_.arrays, run_path=path, score_line=line_of)
    ks = args.k or report_cutoffs(None)
    # the labels of every system are the data file's (which system a bad score is in, only the message says)
    labels_lines = {a: w for s in inputs.systems[:1] for a, w in (s.row_lines or {}).items() if a == "labels"}
    with at_file_lines(labels_lines), overflow_warnings_at_lines({}):   # an error of every preset; one preset's is its reason
        result = compare(runs, k=ks, presets=args.presets, ideal=args.ideal if args.data is None else "auto",
                         per_query=args.per_query, n_threads=args.threads,
                         explain_error=lambda exc: str(file_line_error(exc, labels_lines) or exc))
    result.missing = missing_rule(load)
    if args.data is not None and any(result.conventions[p].uses_tie_key for p in result.presets):
        result.notes.append("SVMlight/LETOR data gives no doc ids, so presets that break ties by doc id "
                            "are not computed (their tie range is)")
    for n in result.notes:
        _note(n)
    if args.format == "json":
        text = result.to_json()
    elif args.format == "csv":
        text = result.to_csv()
    else:
        text = result.to_text(args.digits)
    if args.plot is not None:
        result.plot(args.plot, args.plot_max_k)
    write_output(text, args.output)
    return EXIT_OK
