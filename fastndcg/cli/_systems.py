"""Inputs of ``eval``, ``test`` and ``compare``: the input options, loading TREC runs with qrels
or SVMlight/LETOR data with predictions into systems (streamed when asked), the convention
from the options, and evaluating every system in one pass."""
from __future__ import annotations
import argparse
import math
import os
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np

from fastndcg.conventions._topics import DEFAULT_MISSING, MISSING_TOPICS
from fastndcg.conventions._convention import ScoreOverflowWarning

from fastndcg.cli._messages import error_message
from fastndcg.measures._measurement import cutoff_measurements
from fastndcg.conventions._presets import follows_trec_eval, report_cutoffs
from fastndcg.cli._options import Progress, cutoff_list_arg, _gain_spec, nonnegative_int_arg, preset_list_arg, preset_name_arg, print_warning, add_threads_option
from fastndcg.cli._options import print_warning as _print_warning


# ---------------------------------------------------------------------------- systems


@dataclass
class System:
    """One system (a run or a prediction file) ready for the kernels.

    ``arrays`` holds the keyword arguments of :func:`fastndcg.ndcg` other
    than ``k`` (scores, labels, offsets, and where the convention needs them
    tie_key / ideal_labels / ideal_offsets). ``qids`` names the queries.
    Streamed systems have instead ``chunks`` (SVMlight: yields chunks) or
    ``stream`` (TREC runs: returns a :class:`fastndcg.stream.StreamResult`
    and the notes, since the run name, per-query values and notes are known
    only once the run has been read).
    """

    name: str
    path: str
    qids: Optional[np.ndarray]
    arrays: Dict[str, Any]
    notes: List[str] = field(default_factory=list)
    runid: str = ""                              # TREC runs: the run tag (trec_eval's runid)
    chunks: Optional[Callable[[], Any]] = None   # streaming: yields arrays dicts
    stream: Optional[Callable[[], Any]] = None   # streaming TREC run: () -> (RunStreamResult, notes)
    #: data + predictions: where each row of labels and scores is (fastndcg.io._row_lines.RowLines)
    row_lines: Optional[Dict[str, Any]] = None

    @property
    def n_queries(self) -> int:
        if self.qids is None:       # no query ids: count the offsets' queries
            return int(self.arrays["offsets"].shape[0]) - 1 if "offsets" in self.arrays else 0
        return int(self.qids.shape[0])


@dataclass
class InputSet:
    """What :func:`load_systems` returns: systems, convention, cutoffs."""

    mode: str                 # "trec" or "data"
    systems: List[System]
    convention: Any
    cutoffs: List[Optional[int]]
    preset: str
    truth_path: str
    gain_spec: Optional[str] = None
    #: trec_eval's ndcg_cut: numeric cutoffs of TREC files under the trec_eval / pytrec_eval presets
    cut: bool = False
    #: what each cutoff's column is (:class:`fastndcg.Measurement`)
    measurements: List[Any] = field(default_factory=list)

    @property
    def signatures(self) -> List[str]:
        return [m.signature for m in self.measurements]


def add_input_arguments(p: argparse.ArgumentParser, *, many: bool = True, presets: bool = False,
                        gain_and_stream: bool = True) -> None:
    """Options shared by the subcommands that read qrels/runs or data/predictions.

    ``presets=True``: ``--preset``/``--presets`` takes a comma-separated list
    (``args.presets``, None for all) instead of one preset (``args.preset``).
    ``gain_and_stream=False``: no ``--gain`` and ``--stream`` (compare, which
    evaluates every preset in memory with its own gain)."""
    p.add_argument("inputs", nargs="+", metavar="FILE",
                   help="QRELS RUN [RUN ...] (TREC files), or with --data: PRED [PRED ...]")
    p.add_argument("--data", metavar="DATA",
                   help="SVMlight/LETOR data file (label qid:Q ...); the FILEs are prediction files, one score per line")
    if presets:
        p.add_argument("--preset", "--presets", dest="presets", type=preset_list_arg, default=None, metavar="LIST",
                       help="comma-separated presets to compare (default: all registered presets)")
    else:
        p.add_argument("--preset", type=preset_name_arg, default=None,
                       help="convention preset (default: trec_eval for TREC files, standard for --data)")
    p.add_argument("-k", type=cutoff_list_arg, default=None, metavar="LIST",
                   help="cutoffs, e.g. 1,3,5,10 or all (default: the preset's tool's default: "
                        "all for trec_eval, 5,10,...,1000 for trec_eval_cut, else 1,3,5,10)")
    trec = p.add_argument_group("TREC files")
    miss = trec.add_mutually_exclusive_group()
    miss.add_argument("--missing", choices=MISSING_TOPICS, default=None,
                      help=f"judged topics without results in a run: error (trec_eval 10), zero (count as 0: "
                           f"trec_eval -c, ir_measures) or skip (leave out: trec_eval 9.x); default {DEFAULT_MISSING}")
    miss.add_argument("-c", "--complete", dest="missing", action="store_const", const="zero",
                      help="--missing zero (trec_eval -c)")
    miss.add_argument("--skip-missing", dest="missing", action="store_const", const="skip",
                      help="--missing skip")
    trec.add_argument("-M", "--max-docs", type=int, default=None, metavar="N",
                      help="evaluate only the top N results of each topic (trec_eval -M)")
    trec.add_argument("--ideal", choices=("auto", "qrels", "run"), default="auto",
                      help="ideal list from every judged document (qrels) or from the retrieved ones "
                           "(run); auto: as the preset's tool does")
    if gain_and_stream:
        trec.add_argument("--gain", type=_gain_spec, default=None, metavar="L=G,...",
                          help="custom gain per relevance level, as trec_eval -m ndcg.L=G,... (other levels: gain "
                               "= level; -1: unjudged, -2: judged below 0). trec_eval's rules under the trec_eval "
                               "and pytrec_eval presets, a gain table under the others")
    data = p.add_argument_group("data + predictions")
    data.add_argument("--group", metavar="FILE",
                      help="query sizes (.query/.group) for data without qid: (default: DATA.query or DATA.group if present)")
    data.add_argument("--qid-order", choices=("contiguous", "sorted", "any"), default="contiguous",
                      help="contiguous (default): a qid block that reappears is an error; any: regroup")
    data.add_argument("--pred-column", type=nonnegative_int_arg, default=None, metavar="N",
                      help="take field N (0-based) of each prediction line (default: one value per line)")
    if gain_and_stream:
        p.add_argument("--stream", action="store_true",
                       help="evaluate in query-complete chunks (bounded memory, for files larger than memory); "
                            "TREC: qrels in memory, each run read by whole topics (each topic's lines contiguous)")
    add_threads_option(p)
    prog = p.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_true", default=None,
                      help="always show a progress bar on stderr")
    prog.add_argument("--no-progress", dest="progress", action="store_false",
                      help="never show one (default: only when stdout and stderr are terminals)")


def add_output_arguments(p: argparse.ArgumentParser, formats=("table", "json", "csv")) -> None:
    p.add_argument("--format", choices=formats, default="table", help="output format (default: table)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE (atomically: no file is left on error) instead of stdout")
    p.add_argument("--digits", type=nonnegative_int_arg, default=4, help="decimals in the table format (default 4)")


def missing_rule(args) -> str:
    """The rule for judged topics missing from a run: --missing (or -c / --skip-missing), else the one default."""
    return args.missing if getattr(args, "missing", None) is not None else DEFAULT_MISSING


def run_names(paths: List[str], command: str, what: str = "RUN") -> List[str]:
    """The names of the runs (or prediction files, ``what="PRED"``) as the output shows them: the
    base names when they are unique, else the paths as given. In the commands that compare
    systems (``test``, ``compare``) a file given twice is a usage error that names it: two
    systems need two files (it was "need at least two systems; got 1" from ``test``, one system
    from ``compare``). ``eval`` evaluates each file it is given, one row each."""
    seen: Dict[Any, int] = {}
    for i, path in enumerate(paths if command in ("test", "compare") else ()):
        key = _file_key(path)
        if key in seen:
            j = seen[key]
            same = path if paths[j] == path else f"{paths[j]} (as {path})"
            raise UsageError(f"{same} is given twice ({what} {j + 1} and {what} {i + 1}): give each "
                             f"{'run' if what == 'RUN' else 'prediction file'} once")
        seen[key] = i
    base = [os.path.basename(p) for p in paths]
    return base if len(set(base)) == len(base) and all(base) else list(paths)


def _file_key(path: str) -> Any:
    """What tells two paths of one file apart from two files: the device and inode (a link or
    another spelling of the path is the same file; two pipes are two), else the normalised path."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return os.path.normpath(path)
    return (st.st_dev, st.st_ino)


def convention_for(args, max_label: Optional[float]):
    """(convention, gain text for the measure names, gains evaluated by trec_eval's rules or None)."""
    from fastndcg.conventions._presets import get_preset
    from fastndcg.measures._trec_gain_specs import gain_rules, textbook_convention

    conv = get_preset(args.preset)
    gain = getattr(args, "gain", None)
    if gain is None:
        return conv, None, None
    try:
        rules = gain_rules(conv)
    except ValueError as exc:
        raise UsageError(f"--gain: {exc}") from None
    if rules == "trec_eval":
        return conv, gain.text, gain
    try:
        return textbook_convention(gain, conv, max_label or 0), gain.text, None
    except ValueError as exc:       # it names the gains (--gain)
        raise UsageError(error_message(exc)) from None


def load_systems(args, progress: Optional[Progress] = None, trec: Optional[Tuple[InputSet, Any, str]] = None) -> InputSet:
    """Read the inputs named on the command line into :class:`System` objects. TREC files:
    ``trec`` is their set-up, :func:`fastndcg.cli._eval.trec_input_set` (the qrels read once);
    SVMlight data and predictions: :func:`_data_systems`."""
    progress = progress or Progress(False)
    threads = args.threads
    if args.data is None:
        from fastndcg.io._joining import join_runs, run_threads
        from fastndcg.stream._trec_stream import align_chunk, evaluate_run

        if trec is None:
            raise ValueError("load_systems: TREC files need their set-up (trec_input_set)")
        inputs, qrels, how_missing = trec
        conv, ks, missing, run_paths = inputs.convention, inputs.cutoffs, missing_rule(args), args.inputs[1:]
        trec_spec = inputs.measurements[0].gains if inputs.measurements else None
        systems = []
        names = run_names(run_paths, args.command)
        if getattr(args, "stream", False):
            # each run is read by whole topics when evaluated; its tag (the
            # tag of its last line, trec_eval's runid) and its notes are known only then
            for name, path in zip(names, run_paths):
                def run_stream(path=path):
                    res = evaluate_run(qrels, path, ks, convention=conv, ideal=args.ideal,
                                       missing=missing, max_docs=args.max_docs, gains=trec_spec,
                                       n_threads=threads, progress=progress.start(path))
                    return res, run_notes(path, res.ignored_qids, res.missing_qids, missing, how_missing)
                systems.append(System(name, path, np.empty(0), {}, [], stream=run_stream))
            inputs.systems = systems
            return inputs
        aligned = []
        # each run joined with the qrels while it is read (small runs side by side, one thread each)
        per_run = run_threads(run_paths, threads)[1]
        for path, joined in zip(run_paths, join_runs(run_paths, qrels, n_threads=threads,
                                                     progress=progress.start if progress.enabled else None)):
            progress.done()
            aligned.append(align_chunk(joined, qrels, conv, ideal=args.ideal, missing=missing,
                                       max_docs=args.max_docs, gains=trec_spec, n_threads=per_run))
        for name, path, (a, chunk) in zip(names, run_paths, aligned):
            keys: Tuple[str, ...] = ("scores", "labels", "offsets", "tie_key", "ideal_labels", "ideal_offsets")
            if chunk.gains is not None:     # trec_eval's custom gains: each document's gain, each topic's IDCG
                keys = ("scores", "gains", "offsets", "tie_key", "ideal_dcg")
            arrays = {key: getattr(chunk, key) for key in keys if getattr(chunk, key) is not None}
            notes = run_notes(path, a.ignored_qids, a.missing_qids, missing, how_missing)
            # a run joined while read keeps the file line of the scores beyond float32 only: what
            # the float32 presets warn about (or refuse) is named by file and line, as for --data
            row_lines = {"scores": (path, a.score_line)} if arrays.get("scores") is a.scores else None
            systems.append(System(name, path, a.qids, arrays, notes, runid=a.run_name, row_lines=row_lines))
        inputs.systems = systems
        return inputs
    return _data_systems(args, progress)


def _data_systems(args, progress: Progress) -> InputSet:
    """SVMlight data and prediction files (``--data``), in memory or streamed (``--stream``)."""
    from fastndcg.conventions._presets import get_preset
    from fastndcg.io._svmlight import iter_svmlight, read_svmlight
    from fastndcg.io._numbers import read_predictions
    from fastndcg.io._svmlight import group_file_for

    for opt, flag in (("missing", "--missing/-c/--skip-missing"), ("max_docs", "-M")):
        if getattr(args, opt) is not None:
            raise UsageError(f"{flag} only applies to TREC qrels + runs")
    if getattr(args, "gain", None) is not None:
        raise UsageError("--gain only applies to TREC qrels + runs (use a preset or a Convention)")
    args.preset = args.preset or "standard"
    data_path, pred_paths = args.data, args.inputs
    # --group: always used (and checked against qids if any); else DATA.query / DATA.group (one rule)
    group = group_file_for(data_path, args.group, choose="--group FILE")
    group = False if group is None else group     # resolved: the readers look no further
    names = run_names(pred_paths, args.command, "PRED")
    ks = args.k or report_cutoffs(args.preset)
    if getattr(args, "stream", False):

        if args.qid_order != "contiguous":
            raise UsageError("--stream needs each query's rows to be contiguous; --qid-order does not apply")

        conv = get_preset(args.preset)
        if conv.uses_tie_key:
            raise UsageError(f"preset {args.preset!r} breaks ties by doc id; SVMlight data has none to use")
        if conv.aggregation != "mean":
            raise UsageError("--stream supports conventions with aggregation='mean'")
        systems = []
        for name, path in zip(names, pred_paths):
            def chunks(path=path):
                return iter_svmlight(data_path, path, group=group,
                                             prediction_column=args.pred_column,
                                             progress=progress.start(path))
            systems.append(System(name, path, np.empty(0), {}, [], chunks=chunks))
        return InputSet("data", systems, conv, ks, args.preset, data_path,
                        measurements=cutoff_measurements(ks, conv, ideal="run"))
    data = read_svmlight(data_path, group=group,
                                 qid_order=args.qid_order, progress=progress.start(data_path))
    progress.done()
    if data.offsets is None:
        raise ValueError(f"{data_path}: the file has no qid: fields and no group file was found "
                         f"({data_path}.query / {data_path}.group); give one with --group")
    conv, _, _ = convention_for(args, None)
    if conv.uses_tie_key:
        raise UsageError(f"preset {args.preset!r} breaks ties by doc id, which SVMlight data does not give")
    labels = data.grouped(data.labels)
    if np.all(labels == np.floor(labels)):
        labels = labels.astype(np.int64)
    systems = []
    for name, path in zip(names, pred_paths):
        scores = read_predictions(path, n=data.n_rows, column=args.pred_column, data_path=data_path,
                                          progress=progress.start(path))
        progress.done()
        arrays = dict(scores=data.grouped(scores), labels=labels, offsets=data.offsets)
        systems.append(System(name, path, data.query_ids, arrays, row_lines=data.row_lines(path)))
    return InputSet("data", systems, conv, ks, args.preset, data_path,
                    measurements=cutoff_measurements(ks, conv, ideal="run"))


def run_notes(path: str, ignored_qids: List[str], missing_qids: List[str], missing: str,
               how_missing: str = "counted as 0") -> List[str]:
    """Notes about a run's topics: without judgments, judged without results."""
    notes = []
    if ignored_qids:
        notes.append(f"{path}: {len(ignored_qids)} topic(s) without judgments ignored (as trec_eval)")
    if missing_qids:
        how = how_missing if missing == "zero" else "left out"
        notes.append(f"{path}: {len(missing_qids)} judged topic(s) without results {how}")
    return notes


class UsageError(Exception):
    """A usage error found after parsing (exit code 2)."""


#: The options of any sub-command that name an input file (besides the positional FILEs).
_INPUT_OPTIONS = (("data", "--data"), ("group", "--group"), ("per_query", "--per-query"))


def check_stdin_once(args) -> None:
    """``-`` (standard input, :data:`fastndcg.io._files.STDIN`) names at most one input of a
    command: standard input can be read only once."""
    from fastndcg.io._files import STDIN

    where = [f"FILE {i}" for i, f in enumerate(getattr(args, "inputs", None) or [], 1) if f == STDIN]
    where += [flag for opt, flag in _INPUT_OPTIONS if getattr(args, opt, None) == STDIN]
    if len(where) > 1:
        raise UsageError(f"'-' (standard input) is given {len(where)} times ({', '.join(where)}); it can be read "
                         "only once: give the other inputs as files (or as <(command))")


@contextmanager
def overflow_warnings_at_lines(rows: Dict[str, Any], path: Optional[str] = None) -> Iterator[None]:
    """Print the block's :class:`~fastndcg.conventions.ScoreOverflowWarning` as
    ``fastndcg: warning: run.txt:12, run.txt:13: ...``: the file and line of the
    rows it names (``rows`` as :func:`fastndcg.io._row_lines.at_file_lines`, or the
    warning's own ``at``), or, for rows without a line, ``path: message``. Other
    warnings are passed on."""
    from fastndcg._core.score_checks import overflow_lines_message

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    shown: set = set()

    def print_warning(text: str) -> None:       # once each (compare evaluates a run many times)
        if text not in shown:
            shown.add(text)
            _print_warning(text)

    for w in caught:
        message = w.message
        if not isinstance(message, ScoreOverflowWarning):
            warnings.warn_explicit(message, w.category, w.filename, w.lineno)
            continue
        if message.at:              # it names the file's lines already
            print_warning(str(message))
            continue
        where = rows.get(message.argument)
        lines = [where[1](int(i)) for i in message.rows] if where is not None else [None]
        if None in lines:           # rows without a line (a run joined while read keeps few)
            print_warning(f"{path}: {message}" if path else str(message))
            continue
        assert where is not None
        at = ", ".join(f"{where[0]}:{line}" for line in lines)
        print_warning(overflow_lines_message(at, message.count, len(lines)))


def evaluate_systems(inputs: InputSet, n_threads: Optional[int] = None,
             progress: Optional[Progress] = None) -> List[Dict[str, Any]]:
    """Per-query NDCG and means of every system: list of dicts with keys
    name, path, qids, values (n_queries, n_cutoffs), mean (n_cutoffs,), notes."""
    from fastndcg.io._row_lines import at_file_lines
    from fastndcg.measures._ndcg import ndcg_and_mean
    from fastndcg.stream._chunks import evaluate_chunks

    ks = inputs.cutoffs
    out = []
    for sys_ in inputs.systems:
        if sys_.stream is not None:
            with overflow_warnings_at_lines({}, sys_.path):
                res, notes = sys_.stream()
            if progress is not None:
                progress.done()
            out.append(dict(name=sys_.name, runid=res.run_name, path=sys_.path, qids=res.query_ids,
                            values=np.asarray(res.ndcg).reshape(res.n_queries, len(ks)),
                            mean=np.atleast_1d(res.mean), notes=notes))
            continue
        if sys_.chunks is not None:
            # query-complete chunks of an SVMlight file: the stream evaluator,
            # whose aggregate is the in-memory one (exact sums); an error names the file and line
            with overflow_warnings_at_lines({}, sys_.path):
                res = evaluate_chunks(sys_.chunks(), ks, convention=inputs.convention, n_threads=n_threads)
            if progress is not None:
                progress.done()
            qid_arr = res.query_ids if res.query_ids is not None else np.empty(0, dtype=np.int64)
            out.append(dict(name=sys_.name, runid=sys_.runid, path=sys_.path, qids=qid_arr,
                            values=np.asarray(res.ndcg).reshape(res.n_queries, len(ks)),
                            mean=np.atleast_1d(res.mean), notes=sys_.notes))
            continue
        if "gains" in sys_.arrays:      # trec_eval's custom gains (measures/_trec_gain_scoring.py GainScorer)
            from fastndcg.measures._trec_gain_scoring import GainScorer

            a = sys_.arrays
            scorer = GainScorer(a["gains"], a["offsets"], ks, convention=inputs.convention,
                                ideal_dcg=a["ideal_dcg"], n_threads=n_threads)
            with overflow_warnings_at_lines(sys_.row_lines or {}, sys_.path):
                vals, mean = scorer.evaluate(a["scores"], tie_key=a.get("tie_key"), n_threads=n_threads)
        else:
            # per-query values and the aggregate from one kernel pass
            with at_file_lines(sys_.row_lines or {}), overflow_warnings_at_lines(sys_.row_lines or {}, sys_.path):
                vals, mean = ndcg_and_mean(k=ks, convention=inputs.convention, n_threads=n_threads,
                                           **sys_.arrays)
        out.append(dict(name=sys_.name, runid=sys_.runid, path=sys_.path, qids=sys_.qids, values=np.asarray(vals),
                        mean=np.atleast_1d(mean), notes=sys_.notes))
    return out


def column_names(measurements: List[Any], fmt: str, cutoffs: Optional[InputSet] = None) -> List[str]:
    """The one naming rule of the columns of ``eval`` and ``test`` (docs/files-and-cli.md, "Column
    names"): a measurement is named as it was asked, and its signature says what it is.

    Asked by ``-k`` (``cutoffs``: the :class:`InputSet` of the cutoffs): ``ndcg@K``, ``ndcg`` for
    the whole list, ``ndcg_G@K`` / ``ndcg_G`` with ``--gain G``; in ``--format trec`` under the
    trec_eval / pytrec_eval presets the names trec_eval prints for the same measurement,
    ``ndcg_cut_K`` and ``ndcg`` (without ``--gain``). Asked by ``-m``: the name it was given in,
    in every format (trec_eval's printed name, ``ndcg_cut_10`` for ``ndcg_cut.10``; ir_measures',
    ``nDCG@10``). So ``-k 10`` and ``-m ndcg_cut.10`` are ``ndcg@10`` and ``ndcg_cut_10`` in a table,
    JSON or CSV (names documented and relied on for both spellings) and ``ndcg_cut_10`` both in
    ``--format trec``; their signatures are the same."""
    if cutoffs is None:
        return [m.label for m in measurements]
    names = []
    trec = fmt == "trec" and follows_trec_eval(cutoffs.convention)
    for k in cutoffs.cutoffs:
        if trec and cutoffs.gain_spec is None:
            # numeric cutoffs of the trec_eval presets are trec_eval's ndcg_cut (trec_input_set)
            names.append("ndcg" if k is None else f"ndcg_cut_{k}")
        elif cutoffs.gain_spec is not None:
            base = f"ndcg_{cutoffs.gain_spec}"
            names.append(base if k is None else f"{base}@{k}")
        else:
            names.append("ndcg" if k is None else f"ndcg@{k}")
    return names


def qid_text(q: Any) -> str:
    return str(q.item() if isinstance(q, np.generic) else q)


def json_number(v: float, digits: Optional[int] = None) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return round(float(v), digits) if digits is not None else float(v)


def format_value(v: float, digits: int) -> str:
    return "nan" if math.isnan(v) else f"{v:.{digits}f}"
