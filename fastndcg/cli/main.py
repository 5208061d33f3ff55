"""Command line: ``fastndcg demo``, ``eval``, ``test`` and ``compare``.

Each subcommand is a pair of functions, ``add_<name>_parser(subparsers)`` and
``cmd_<name>(args) -> exit code``, listed in :data:`SUBCOMMANDS`. Subcommands
that read files share :func:`add_input_arguments` / :func:`load_systems`
(qrels + runs, or data + prediction files, evaluated under one convention)
and :func:`write_output` (atomic, nothing written on error).

Exit codes (documented in docs/files-and-cli.md):

* 0 - success;
* 1 - unexpected internal error (a bug: the traceback is printed);
* 2 - usage error (unknown option, bad option value, unknown preset);
* 3 - a file cannot be read or the output cannot be written (missing file,
  permission);
* 4 - invalid input data (malformed line, prediction file of the wrong length,
  a judged topic missing from a run without ``-c``, labels the preset cannot
  use), with ``file:line:`` in the message where there is a line;
* 130 - interrupted (Ctrl-C).
"""
from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from fastndcg.report.format import csv_field as _csv
from fastndcg.report.format import csv_num as _csv_num
from fastndcg.report.format import qid_json as _qid_json
from fastndcg.report.format import table as _table
from fastndcg.report.format import write_output

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_IO = 3
EXIT_DATA = 4
EXIT_INTERRUPTED = 130


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
    from fastndcg.io.datasets import mslr_like

    if args.write_examples is not None:
        from fastndcg.io.example_files import write_examples

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


# ============================================================================ shared helpers


def _cutoff_list(text: str) -> List[Optional[int]]:
    """``1,3,5,10``; ``all`` (or ``full``) is the whole list."""
    out: List[Optional[int]] = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        if part in ("all", "full"):
            out.append(None)
            continue
        try:
            v = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"cutoffs must be comma-separated integers >= 1 or 'all'; got {text!r}") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"cutoffs must be integers >= 1 or 'all'; got {text!r}")
        out.append(v)
    if not out:
        raise argparse.ArgumentTypeError(f"no cutoffs in {text!r}")
    return out


def _preset_name(text: str) -> str:
    import difflib

    from fastndcg import list_presets

    if text not in list_presets():
        guess = difflib.get_close_matches(text, list_presets(), n=1, cutoff=0.5) or \
            difflib.get_close_matches(text.lower().replace("-", "_"), list_presets(), n=1, cutoff=0.5)
        hint = f"did you mean {guess[0]!r}? " if guess else ""
        raise argparse.ArgumentTypeError(f"unknown preset {text!r}; {hint}(known presets: {', '.join(list_presets())})")
    return text


def _preset_list(text: str) -> Optional[List[str]]:
    """``standard,letor4,...``; ``all`` is every registered preset (None)."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    if names == ["all"]:
        return None
    if not names:
        raise argparse.ArgumentTypeError(f"no preset names in {text!r}")
    for name in names:
        _preset_name(name)
    return list(dict.fromkeys(names))


def _gain_spec(text: str):
    """trec_eval's ``ndcg.L=G`` parameters: ``1=3,2=9,4=4.5`` (:func:`fastndcg.measures.trec_gains.parse_gains`)."""
    from fastndcg.measures.trec_gains import parse_gains

    try:
        return parse_gains(text, name="")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _probability(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1; got {text!r}")
    return v


#: Default cutoffs when -k is not given: each tool's own default measure.
DEFAULT_CUTOFFS: Dict[str, List[Optional[int]]] = {
    "trec_eval": [None],                                        # trec_eval's ``ndcg``
    "pytrec_eval": [None],
    "trec_eval_cut": [5, 10, 15, 20, 30, 100, 200, 500, 1000],  # trec_eval's ndcg_cut defaults
    "pytrec_eval_cut": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
}
FALLBACK_CUTOFFS: List[Optional[int]] = [1, 3, 5, 10]
#: Presets of trec_eval's ndcg whose numeric cutoffs are trec_eval's ndcg_cut.
CUT_PRESETS = {"trec_eval": "trec_eval_cut", "pytrec_eval": "pytrec_eval_cut"}
TREC_MEASURE_PRESETS = ("trec_eval", "trec_eval_cut", "pytrec_eval", "pytrec_eval_cut")


class Progress:
    """A one-line progress bar on stderr for long work.

    Drawn only when enabled, and only once the work has lasted ``delay``
    seconds; redrawn at most 10 times a second; erased when done.
    """

    def __init__(self, enabled: bool, delay: float = 0.5, stream=None):
        self.enabled = enabled
        self.delay = delay
        self.stream = stream if stream is not None else sys.stderr
        self.label = ""
        self.t0 = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def start(self, label: str) -> "Progress":
        self.label = label
        self.t0 = time.monotonic()
        return self

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.t0 < self.delay or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        frac = done / total if total else 1.0
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        self.stream.write(f"\r{self.label[-40:]:<40} [{bar}] {100 * frac:5.1f}% "
                          f"{done / 1e6:8.1f}/{total / 1e6:.1f} MB")
        self.stream.flush()
        self.drawn = True

    def done(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()
            self.drawn = False


def _progress_for(args) -> Progress:
    setting = getattr(args, "progress", None)
    if setting is None:
        enabled = sys.stderr.isatty() and sys.stdout.isatty()
        return Progress(enabled)
    return Progress(bool(setting), delay=0.0)


def _note(msg: str) -> None:
    print(f"fastndcg: note: {msg}", file=sys.stderr)


def _warn(msg: str) -> None:
    print(f"fastndcg: warning: {msg}", file=sys.stderr)


# ---------------------------------------------------------------------------- systems


@dataclass
class System:
    """One system (a run or a prediction file) ready for the kernels.

    ``arrays`` holds the keyword arguments of :func:`fastndcg.ndcg` other
    than ``k`` (scores, labels, offsets, and where the convention needs them
    tie_key / ideal_labels / ideal_offsets). ``qids`` names the queries.
    Streamed systems have instead ``chunks`` (SVMlight: yields chunks) or
    ``stream`` (TREC runs: returns a :class:`fastndcg.report.stream.RunStreamResult`
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
        p.add_argument("--preset", "--presets", dest="presets", type=_preset_list, default=None, metavar="LIST",
                       help="comma-separated presets to compare (default: all registered presets)")
    else:
        p.add_argument("--preset", type=_preset_name, default=None,
                       help="convention preset (default: trec_eval for TREC files, standard for --data)")
    p.add_argument("-k", type=_cutoff_list, default=None, metavar="LIST",
                   help="cutoffs, e.g. 1,3,5,10 or all (default: the preset's tool's default: "
                        "all for trec_eval, 5,10,...,1000 for trec_eval_cut, else 1,3,5,10)")
    trec = p.add_argument_group("TREC files")
    miss = trec.add_mutually_exclusive_group()
    miss.add_argument("-c", "--complete", action="store_true",
                      help="judged topics missing from a run count as 0 (trec_eval -c)")
    miss.add_argument("--skip-missing", action="store_true",
                      help="leave judged topics missing from a run out (trec_eval 9.x); "
                           "by default they are an error (trec_eval 10)")
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
    data.add_argument("--pred-column", type=int, default=None, metavar="N",
                      help="take field N (0-based) of each prediction line (default: one value per line)")
    if gain_and_stream:
        p.add_argument("--stream", action="store_true",
                       help="evaluate in query-complete chunks (bounded memory, for files larger than memory); "
                            "TREC: qrels in memory, each run read by whole topics (each topic's lines contiguous)")
    p.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all)")
    prog = p.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_true", default=None,
                      help="always show a progress bar on stderr")
    prog.add_argument("--no-progress", dest="progress", action="store_false",
                      help="never show one (default: only when stdout and stderr are terminals)")


def add_output_arguments(p: argparse.ArgumentParser, formats=("table", "json", "csv")) -> None:
    p.add_argument("--format", choices=formats, default="table", help="output format (default: table)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE (atomically: no file is left on error) instead of stdout")
    p.add_argument("--digits", type=int, default=4, help="decimals in the table format (default 4)")


def _unique_names(names: List[str], paths: List[str]) -> List[str]:
    if len(set(names)) == len(names) and all(names):
        return names
    base = [os.path.basename(p) for p in paths]
    return base if len(set(base)) == len(base) else list(paths)


def _convention_for(args, max_label: Optional[float]):
    """(convention, gain text for the measure names, gains evaluated by trec_eval's rules or None)."""
    from fastndcg import get_preset
    from fastndcg.measures import trec_gains

    conv = get_preset(args.preset)
    gain = getattr(args, "gain", None)
    if gain is None:
        return conv, None, None
    try:
        rules = trec_gains.gain_rules(conv)
        if rules == "trec_eval":
            return conv, gain.text, gain
        return trec_gains.textbook_convention(gain, conv, max_label or 0), gain.text, None
    except ValueError as exc:
        raise _Usage(f"--gain: {exc}") from None


def load_systems(args, progress: Optional[Progress] = None) -> InputSet:
    """Read the inputs named on the command line into :class:`System` objects."""
    from fastndcg import get_preset
    from fastndcg.io import readers

    progress = progress or Progress(False)
    threads = args.threads
    if args.data is None:
        if len(args.inputs) < 2:
            raise _Usage("TREC mode needs QRELS and at least one RUN (or use --data DATA PRED ...)")
        for opt in ("group", "pred_column"):
            if getattr(args, opt) is not None:
                raise _Usage(f"--{opt.replace('_', '-')} only applies with --data")
        from fastndcg.measures import trec_gains
        from fastndcg.report.stream import align_chunk, evaluate_run

        args.preset = args.preset or "trec_eval"
        qrels_path, run_paths = args.inputs[0], args.inputs[1:]
        qrels = readers.read_qrels(qrels_path, progress=progress.start(qrels_path), n_threads=threads)
        progress.done()
        conv, spec, trec_spec = _convention_for(args, float(qrels.relevance.max(initial=0)))
        ks: List[Optional[int]] = args.k or DEFAULT_CUTOFFS.get(args.preset, FALLBACK_CUTOFFS)
        cut = False
        if args.preset in CUT_PRESETS and any(k is not None for k in ks):
            if spec is None:
                # a cutoff of trec_eval's ndcg is its ndcg_cut (the ideal cut at k too); the whole
                # list stays ndcg (an ideal "cut" at the whole list is the full ideal)
                conv, cut = get_preset(CUT_PRESETS[args.preset]), True
            else:
                _warn(f"--gain {spec} with cutoffs: trec_eval has no cutoff for ndcg with custom gains "
                      f"(ndcg_cut takes none); ndcg_{spec}@k is the DCG of the top k over the ideal DCG of "
                      "the whole list")
        missing = "zero" if args.complete else "skip" if args.skip_missing else "error"
        how_missing = "counted as 0"
        if trec_spec is not None and args.preset in trec_gains.BOGUS_RANKING_PRESETS \
                and trec_gains.LEVEL_UNJUDGED in trec_spec.levels:
            how_missing = "ranked as one unjudged document (as trec_eval 10 -c; it has the gain of level -1)"
        systems = []
        names = _unique_names([os.path.basename(p) for p in run_paths], run_paths)
        if getattr(args, "stream", False):
            # each run is read by whole topics when evaluated; its tag (the
            # tag of its last line, trec_eval's runid) and its notes are known only then
            for name, path in zip(names, run_paths):
                def run_stream(path=path):
                    res = evaluate_run(qrels, path, ks, convention=conv, ideal=args.ideal,
                                       missing=missing, max_docs=args.max_docs, gains=trec_spec,
                                       n_threads=threads, progress=progress.start(path))
                    return res, _run_notes(path, res.ignored_qids, res.missing_qids, missing, how_missing)
                systems.append(System(name, path, np.empty(0), {}, [], stream=run_stream))
            return InputSet("trec", systems, conv, ks, args.preset, qrels_path, spec, cut)
        aligned = []
        for path in run_paths:
            run = readers.read_run(path, progress=progress.start(path), n_threads=threads)
            progress.done()
            aligned.append(align_chunk(run, qrels, conv, ideal=args.ideal, missing=missing,
                                       max_docs=args.max_docs, gains=trec_spec, n_threads=threads))
        for name, path, (a, chunk) in zip(names, run_paths, aligned):
            keys: Tuple[str, ...] = ("scores", "labels", "offsets", "tie_key", "ideal_labels", "ideal_offsets")
            if chunk.gains is not None:     # trec_eval's custom gains: each document's gain, each topic's IDCG
                keys = ("scores", "gains", "offsets", "tie_key", "ideal_dcg")
            arrays = {key: getattr(chunk, key) for key in keys if getattr(chunk, key) is not None}
            notes = _run_notes(path, a.ignored_qids, a.missing_qids, missing, how_missing)
            systems.append(System(name, path, a.qids, arrays, notes, runid=a.run_name))
        return InputSet("trec", systems, conv, ks, args.preset, qrels_path, spec, cut)

    # data + predictions
    for opt, flag in (("complete", "-c"), ("skip_missing", "--skip-missing"), ("max_docs", "-M")):
        if getattr(args, opt):
            raise _Usage(f"{flag} only applies to TREC qrels + runs")
    if getattr(args, "gain", None) is not None:
        raise _Usage("--gain only applies to TREC qrels + runs (use a preset or a Convention)")
    args.preset = args.preset or "standard"
    data_path, pred_paths = args.data, args.inputs
    group = args.group            # explicit: always used (and checked against qids if any)
    if group is None and _has_no_qid(data_path):
        for ext in (".query", ".group"):
            if os.path.exists(data_path + ext):
                group = data_path + ext
                break
    names = _unique_names([os.path.basename(p) for p in pred_paths], pred_paths)
    ks = args.k or DEFAULT_CUTOFFS.get(args.preset, FALLBACK_CUTOFFS)
    if getattr(args, "stream", False):

        if args.qid_order != "contiguous":
            raise _Usage("--stream needs each query's rows to be contiguous; --qid-order does not apply")

        conv = get_preset(args.preset)
        if conv.uses_tie_key:
            raise _Usage(f"preset {args.preset!r} breaks ties by doc id; SVMlight data has none to use")
        if conv.aggregation != "mean":
            raise _Usage("--stream supports conventions with aggregation='mean'")
        systems = []
        for name, path in zip(names, pred_paths):
            def chunks(path=path):
                return readers.iter_svmlight(data_path, path, group=group,
                                             prediction_column=args.pred_column,
                                             progress=progress.start(path))
            systems.append(System(name, path, np.empty(0), {}, [], chunks=chunks))
        return InputSet("data", systems, conv, ks, args.preset, data_path)
    data = readers.read_svmlight(data_path, group=group,
                                 qid_order=args.qid_order, progress=progress.start(data_path))
    progress.done()
    if data.offsets is None:
        raise ValueError(f"{data_path}: the file has no qid: fields and no group file was found "
                         f"({data_path}.query / {data_path}.group); give one with --group")
    conv, _, _ = _convention_for(args, None)
    if conv.uses_tie_key:
        raise _Usage(f"preset {args.preset!r} breaks ties by doc id, which SVMlight data does not give")
    labels = data.grouped(data.labels)
    if np.all(labels == np.floor(labels)):
        labels = labels.astype(np.int64)
    systems = []
    for name, path in zip(names, pred_paths):
        scores = readers.read_predictions(path, n=data.n_rows, column=args.pred_column, data_path=data_path,
                                          progress=progress.start(path))
        progress.done()
        arrays = dict(scores=data.grouped(scores), labels=labels, offsets=data.offsets)
        systems.append(System(name, path, data.query_ids, arrays))
    return InputSet("data", systems, conv, ks, args.preset, data_path)


def _run_notes(path: str, ignored_qids: List[str], missing_qids: List[str], missing: str,
               how_missing: str = "counted as 0") -> List[str]:
    """Notes about a run's topics: without judgments, judged without results."""
    notes = []
    if ignored_qids:
        notes.append(f"{path}: {len(ignored_qids)} topic(s) without judgments ignored (as trec_eval)")
    if missing_qids:
        how = how_missing if missing == "zero" else "left out"
        notes.append(f"{path}: {len(missing_qids)} judged topic(s) without results {how}")
    return notes


def _has_no_qid(path: str) -> bool:
    """Whether the first data line has no qid: (group files are for such data)."""
    from fastndcg.io.readers import iter_line_blocks

    for block in iter_line_blocks(path, 1 << 16):
        for line in bytes(block).splitlines():
            s = line.strip()
            if s and not s.startswith(b"#"):
                parts = s.split(None, 2)
                return len(parts) < 2 or not parts[1].startswith(b"qid:")
        break
    return True


class _Usage(Exception):
    """A usage error found after parsing (exit code 2)."""


def evaluate(inputs: InputSet, n_threads: Optional[int] = None,
             progress: Optional[Progress] = None) -> List[Dict[str, Any]]:
    """Per-query NDCG and means of every system: list of dicts with keys
    name, path, qids, values (n_queries, n_cutoffs), mean (n_cutoffs,), notes."""
    from fastndcg.measures.ndcg import ndcg_and_mean
    from fastndcg.report.stream import NDCGAccumulator

    ks = inputs.cutoffs
    out = []
    for sys_ in inputs.systems:
        if sys_.stream is not None:
            res, notes = sys_.stream()
            if progress is not None:
                progress.done()
            out.append(dict(name=sys_.name, runid=res.run_name, path=sys_.path, qids=res.query_ids,
                            values=np.asarray(res.ndcg).reshape(res.n_queries, len(ks)),
                            mean=np.atleast_1d(res.mean), notes=notes))
            continue
        if sys_.chunks is not None:
            # query-complete chunks of an SVMlight file: the stream evaluator,
            # whose aggregate is the in-memory one (exact sums)
            acc = NDCGAccumulator(ks, convention=inputs.convention, n_threads=n_threads)
            for ch in sys_.chunks():
                acc.add(ch.scores, ch.labels, ch.offsets, query_ids=ch.query_ids)
            if progress is not None:
                progress.done()
            res = acc.result()
            qid_arr = res.query_ids if res.query_ids is not None else np.empty(0, dtype=np.int64)
            out.append(dict(name=sys_.name, runid=sys_.runid, path=sys_.path, qids=qid_arr,
                            values=np.asarray(res.ndcg).reshape(res.n_queries, len(ks)),
                            mean=np.atleast_1d(res.mean), notes=sys_.notes))
            continue
        if "gains" in sys_.arrays:      # trec_eval's custom gains (fastndcg.measures.trec_gains)
            from fastndcg.measures.trec_gains import GainScorer

            a = sys_.arrays
            scorer = GainScorer(a["gains"], a["offsets"], ks, convention=inputs.convention,
                                ideal_dcg=a["ideal_dcg"], n_threads=n_threads)
            vals, mean = scorer.evaluate(a["scores"], tie_key=a.get("tie_key"), n_threads=n_threads)
        else:
            # per-query values and the aggregate from one kernel pass
            vals, mean = ndcg_and_mean(k=ks, convention=inputs.convention, n_threads=n_threads, **sys_.arrays)
        out.append(dict(name=sys_.name, runid=sys_.runid, path=sys_.path, qids=sys_.qids, values=np.asarray(vals),
                        mean=np.atleast_1d(mean), notes=sys_.notes))
    return out


def measure_names(inputs: InputSet, fmt: str) -> List[str]:
    """Column names: ``ndcg@k`` / ``ndcg``; trec_eval's names in the trec format."""
    names = []
    trec = fmt == "trec" and inputs.preset in TREC_MEASURE_PRESETS
    for k in inputs.cutoffs:
        if trec and inputs.gain_spec is None:
            # numeric cutoffs of the trec_eval presets are trec_eval's ndcg_cut (load_systems)
            names.append("ndcg" if k is None else f"ndcg_cut_{k}")
        elif inputs.gain_spec is not None:
            base = f"ndcg_{inputs.gain_spec}"
            names.append(base if k is None else f"{base}@{k}")
        else:
            names.append("ndcg" if k is None else f"ndcg@{k}")
    return names


def _qid_text(q: Any) -> str:
    return str(q.item() if isinstance(q, np.generic) else q)


def _num(v: float, digits: Optional[int] = None) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return round(float(v), digits) if digits is not None else float(v)


def _fmt_value(v: float, digits: int) -> str:
    return "nan" if math.isnan(v) else f"{v:.{digits}f}"


# ============================================================================ eval


def add_eval_parser(sub) -> None:
    p = sub.add_parser("eval", help="NDCG of TREC runs against qrels, or of prediction files against LETOR/SVMlight data",
                       description="Evaluate TREC runs against qrels (fastndcg eval QRELS RUN ...) or prediction "
                                   "files against SVMlight/LETOR data (fastndcg eval --data DATA PRED ...). "
                                   "-m takes the measures as trec_eval (-m ndcg_cut.5,10 -m ndcg.1=3,2=9) or "
                                   "ir_measures (-m 'nDCG@10' -m \"nDCG(dcg='exp-log2')@20\") name them.")
    add_input_arguments(p)
    meas = p.add_argument_group("measures (TREC files)")
    meas.add_argument("-m", "--measure", dest="measures", action="append", default=None, metavar="MEASURE",
                      help="a measure in trec_eval syntax (ndcg, ndcg.L=G,..., ndcg_cut.5,10, ndcg_rel, Rndcg, dcg, "
                           "ideal_dcg, ndcg_p; runid and num_q for --format trec) or ir_measures syntax (nDCG@10, "
                           "nDCG(dcg='exp-log2')@20, nDCG(gains={0:0,1:1,2:3})@10, nDCG(judged_only=True)@10); "
                           "repeat for several. Replaces -k and --gain")
    meas.add_argument("-J", "--judged-only", action="store_true",
                      help="trec_eval -J: rank only the retrieved documents judged >= 0 (condensed lists)")
    meas.add_argument("-l", "--level-for-rel", dest="level", type=int, default=None, metavar="L",
                      help="trec_eval -l: the relevance level of Rndcg and ndcg_p (default 1)")
    add_output_arguments(p, formats=("table", "json", "csv", "trec"))
    p.add_argument("-q", "--per-query", action="store_true", help="also print every query's values (trec_eval -q)")
    p.add_argument("--layout", choices=("wide", "long"), default="wide",
                   help="csv: one column per measure (wide) or one row per run, query and measure (long: "
                        "run,query,measure,value)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="table: open with every field of the convention")
    p.set_defaults(func=cmd_eval)


def cmd_eval(args) -> int:
    progress = _progress_for(args)
    if args.layout == "long" and args.format != "csv":
        raise _Usage("--layout long applies to --format csv")
    if args.measures is None and (args.judged_only or args.level is not None):
        args.measures = _measures_from_cutoffs(args)
    if args.measures is not None:
        return _eval_measures(args, progress)
    inputs = load_systems(args, progress)
    results = evaluate(inputs, args.threads, progress)
    for r in results:
        for n in r["notes"]:
            _note(n)
    names = measure_names(inputs, args.format)
    meta = dict(preset=inputs.preset, convention=inputs.convention.describe(), cutoffs=inputs.cutoffs,
                truth=inputs.truth_path)
    text = render_eval(meta, results, names, args.format, args.per_query, args.digits, args.layout,
                       _header(inputs.preset, inputs.convention, args.verbose), bookkeeping=("runid", "num_q"))
    write_output(text, args.output)
    return EXIT_OK


def _measures_from_cutoffs(args) -> List[str]:
    """-J / -l without -m: the -k cutoffs (and --gain) as trec_eval measures."""
    if args.data is not None:
        raise _Usage("-J and -l apply to TREC qrels + runs")
    if getattr(args, "stream", False):
        raise _Usage("-J and -l evaluate each run in memory; they do not apply with --stream")
    preset = args.preset or "trec_eval"
    if preset not in TREC_MEASURE_PRESETS:
        raise _Usage(f"-J and -l apply to trec_eval's measures (presets {', '.join(TREC_MEASURE_PRESETS)}); "
                     f"got --preset {preset}")
    ks: List[Optional[int]] = args.k or DEFAULT_CUTOFFS.get(preset, FALLBACK_CUTOFFS)
    gain = getattr(args, "gain", None)
    cut = [k for k in ks if k is not None]
    if gain is not None and cut:
        raise _Usage("-J with --gain and cutoffs: trec_eval has no cutoff for ndcg with custom gains; "
                     "use -m ndcg.L=G,... and -m ndcg_cut.K")
    out = ["runid", "num_q"]
    if None in ks:
        out.append("ndcg" if gain is None else f"ndcg.{gain.text}")
    if cut:
        out.append("ndcg_cut." + ",".join(str(k) for k in cut))
    args.k = None
    args.gain = None
    return out


#: --preset with -m: the rules of the trec_eval-syntax measures
_RULES_OF_PRESET = {None: "trec_eval", "trec_eval": "trec_eval", "trec_eval_cut": "trec_eval",
                    "pytrec_eval": "pytrec_eval", "pytrec_eval_cut": "pytrec_eval"}


def _eval_measures(args, progress: Progress) -> int:
    """fastndcg eval QRELS RUN ... -m MEASURE ...: trec_eval's and ir_measures' measures."""
    from fastndcg.io import readers
    from fastndcg.measures.measure_strings import BOOKKEEPING, MeasureWarning, parse_measures
    from fastndcg.measures.trec_measures import evaluate_trec

    if args.data is not None:
        raise _Usage("-m applies to TREC qrels + runs; with --data use --preset and -k")
    if args.k is not None or getattr(args, "gain", None) is not None:
        raise _Usage("-m replaces -k and --gain: give cutoffs and gains in the measure (e.g. -m ndcg_cut.5,10 "
                     "-m ndcg.1=3,2=9 -m nDCG@10)")
    if getattr(args, "stream", False):
        raise _Usage("--stream does not apply with -m yet; -m evaluates each run in memory")
    if args.ideal != "auto":
        raise _Usage("--ideal does not apply with -m: each measure takes its ideal as its tool does (the qrels)")
    if args.preset not in _RULES_OF_PRESET:
        raise _Usage(f"--preset {args.preset} does not go with -m: the measures follow trec_eval 10 (--preset "
                     "trec_eval, the default) or trec_eval 9 as pytrec_eval bundles it (--preset pytrec_eval)")
    if len(args.inputs) < 2:
        raise _Usage("TREC mode needs QRELS and at least one RUN")
    rules = _RULES_OF_PRESET[args.preset]
    book = [m for m in args.measures if m.strip() in BOOKKEEPING]
    strings = [m for m in args.measures if m.strip() not in BOOKKEEPING]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MeasureWarning)
        try:
            measures = parse_measures(strings) if strings else []
        except ValueError as exc:
            raise _Usage(str(exc)) from None
    for w in caught:
        _warn(str(w.message))
    _note_trec_repeats(strings)
    missing = "zero" if args.complete else "skip" if args.skip_missing else "error"
    qrels_path, run_paths = args.inputs[0], args.inputs[1:]
    qrels = readers.read_qrels(qrels_path, progress=progress.start(qrels_path), n_threads=args.threads)
    progress.done()
    names = _unique_names([os.path.basename(p) for p in run_paths], run_paths)
    results = []
    for name, path in zip(names, run_paths):
        run = readers.read_run(path, progress=progress.start(path), n_threads=args.threads)
        progress.done()
        if measures:
            res = evaluate_trec(run, qrels, measures, rules=rules, missing=missing, max_docs=args.max_docs,
                                judged_only=args.judged_only, relevance_level=1 if args.level is None else args.level,
                                n_threads=args.threads)
            qids, values, means, runid = res.qids, res.values, res.means, res.run_name
            notes = _run_notes(path, res.ignored_qids, res.missing_qids, missing)
        else:       # only runid / num_q
            a = readers.align_run(run, qrels, missing=missing, max_docs=args.max_docs, n_threads=args.threads)
            qids, values, means, runid = a.qids, np.zeros((a.n_queries, 0)), np.zeros(0), a.run_name
            notes = _run_notes(path, a.ignored_qids, a.missing_qids, missing)
        for n in notes:
            _note(n)
        results.append(dict(name=name, runid=runid, path=path, qids=qids, values=values, mean=means, notes=notes))
    order = list(range(len(measures)))
    if args.format == "trec":       # trec_eval prints its measures in the order of its measure table
        order.sort(key=lambda j: _trec_rank(measures[j]))
        for r in results:
            r["values"], r["mean"] = r["values"][:, order], r["mean"][order]
    names_m = [measures[j].name for j in order]
    how = {"trec_eval": "trec_eval 10", "pytrec_eval": "trec_eval 9 (pytrec_eval: float32 scores)"}[rules]
    meta = dict(preset=args.preset or "trec_eval", convention=f"trec_eval-syntax measures by {how}'s rules; "
                "ir_measures-syntax measures as ir_measures' providers compute them",
                cutoffs=None, truth=qrels_path, measure_strings=list(args.measures),
                judged_only=bool(args.judged_only))
    header = f"measures: trec_eval syntax by {how}'s rules, ir_measures syntax as ir_measures computes them"
    if args.judged_only:
        header += "; -J: judged documents only"
    text = render_eval(meta, results, names_m, args.format, args.per_query, args.digits, args.layout,
                       header + "\n", bookkeeping=[b.strip() for b in book])
    write_output(text, args.output)
    return EXIT_OK


def _trec_rank(m) -> Tuple[int, int]:
    from fastndcg.measures.measure_strings import TREC_MEASURES

    if m.syntax == "trec_eval":
        return (TREC_MEASURES.index(m.family), 0)
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


def _header(preset: str, convention: Any, verbose: bool) -> str:
    """The table's opening: the preset, and with --verbose every field of its convention."""
    if not verbose:
        return f"preset {preset}\n"
    lines = [f"preset {preset}"]
    for part in convention.describe().split(" "):
        key, _, value = part.partition("=")
        lines.append(f"  {key:<17} {value}")
    return "\n".join(lines) + "\n\n"


def _c_fixed(v: float, digits: int) -> str:
    """printf's %6.4f (trec_eval's format), NaN as glibc prints it (-nan when the sign bit is set)."""
    if math.isnan(v):
        return f"{'-nan' if math.copysign(1.0, v) < 0 else 'nan':>6}"
    return f"{v:6.{digits}f}"


def render_eval(meta: Dict[str, Any], results, names: List[str], fmt: str, per_query: bool, digits: int,
                layout: str = "wide", header: str = "", bookkeeping=("runid", "num_q")) -> str:
    """The output of ``fastndcg eval``. Runs are named by their file (the
    base name when those are unique); ``runid`` is the run tag (trec_eval's)."""
    if fmt == "json":
        doc = dict(meta)
        doc.update(measures=names, runs=[])
        for r in results:
            run = {"name": r["name"], "runid": r.get("runid", ""), "path": r["path"],
                   "n_queries": int(r["values"].shape[0]),
                   "mean": {m: _num(v) for m, v in zip(names, r["mean"].tolist())}}
            if per_query:
                run["per_query"] = [dict(query=_qid_json(q), **{m: _num(v) for m, v in zip(names, row)})
                                    for q, row in zip(r["qids"].tolist(), r["values"].tolist())]
            doc["runs"].append(run)
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        if layout == "long":
            buf.write("run,query,measure,value\n")
            for r in results:
                per_row = list(zip(r["qids"].tolist(), r["values"].tolist())) if per_query else []
                for q, row in per_row + [("all", r["mean"].tolist())]:
                    for m, v in zip(names, row):
                        buf.write(",".join([_csv(r["name"]), _csv(_qid_text(q)), _csv(m), _csv_num(v)]) + "\n")
            return buf.getvalue()
        buf.write(",".join(["run", "query"] + [_csv(n) for n in names]) + "\n")
        for r in results:
            if per_query:
                for q, row in zip(r["qids"].tolist(), r["values"].tolist()):
                    buf.write(",".join([_csv(r["name"]), _csv(_qid_text(q))] + [_csv_num(v) for v in row]) + "\n")
            buf.write(",".join([_csv(r["name"]), "all"] + [_csv_num(v) for v in r["mean"].tolist()]) + "\n")
        return buf.getvalue()
    if fmt == "trec":
        lines = []
        for r in results:
            if per_query:
                for q, row in zip(r["qids"].tolist(), r["values"].tolist()):
                    for m, v in zip(names, row):
                        lines.append(f"{m:<22}\t{_qid_text(q)}\t{_c_fixed(v, digits)}")
            if "runid" in bookkeeping:
                lines.append(f"{'runid':<22}\tall\t{r.get('runid') or r['name']}")
            if "num_q" in bookkeeping:
                lines.append(f"{'num_q':<22}\tall\t{r['values'].shape[0]}")
            for m, v in zip(names, r["mean"].tolist()):
                lines.append(f"{m:<22}\tall\t{_c_fixed(v, digits)}")
        return "\n".join(lines) + "\n" if lines else ""
    head = ["run", "query"] + names
    rows: List[List[str]] = []
    for r in results:
        if per_query:
            for q, row in zip(r["qids"].tolist(), r["values"].tolist()):
                rows.append([r["name"], _qid_text(q)] + [_fmt_value(v, digits) for v in row])
        rows.append([r["name"], f"all ({r['values'].shape[0]})"] + [_fmt_value(v, digits) for v in r["mean"].tolist()])
    return header + _table(head, rows, right_from=2)


# ============================================================================ test


def add_test_parser(sub) -> None:
    p = sub.add_parser("test", help="significance tests between runs (paired t, Wilcoxon, randomization)",
                       description="Compare two or more systems on the same queries: mean NDCG@k with a "
                                   "bootstrap confidence interval, and per pair the paired t-test, Wilcoxon "
                                   "signed-rank and randomization p-values, the Holm-adjusted p-value, the "
                                   "effect size and the winner at --alpha.")
    add_input_arguments(p)
    add_output_arguments(p)
    p.add_argument("--alpha", type=_probability, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--test", choices=("t", "wilcoxon", "randomization"), default="t",
                   help="the test that decides the winner (default: t); all three are reported")
    p.add_argument("--correction", choices=("holm", "none"), default="holm",
                   help="multiple-comparison adjustment over the pairs (default: holm)")
    p.add_argument("--baseline", default=None, metavar="NAME",
                   help="compare every system with this one only (default: all pairs)")
    p.add_argument("--resamples", type=int, default=10000,
                   help="bootstrap and randomization resamples (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    p.add_argument("--confidence", type=_probability, default=0.95,
                   help="confidence of the bootstrap intervals (default 0.95)")
    p.set_defaults(func=cmd_test)


def cmd_test(args) -> int:
    from fastndcg.report import stats

    if args.resamples < 1:
        raise _Usage(f"--resamples must be >= 1; got {args.resamples}")
    progress = _progress_for(args)
    inputs = load_systems(args, progress)
    if len(inputs.systems) < 2:
        raise _Usage("fastndcg test needs at least two runs / prediction files")
    results = evaluate(inputs, args.threads, progress)
    for r in results:
        for n in r["notes"]:
            _note(n)
    # the same queries, in the same order, for every system
    key_lists = [[_qid_text(q) for q in r["qids"].tolist()] for r in results]
    common: List[str] = key_lists[0] if key_lists else []
    for keys in key_lists[1:]:
        present = set(keys)
        common = [q for q in common if q in present]
    blocks = []
    for r in results:
        keys = [_qid_text(q) for q in r["qids"].tolist()]
        pos = {q: i for i, q in enumerate(keys)}
        if len(keys) != len(common):
            _note(f"{r['path']}: {len(keys) - len(common)} query(ies) not evaluated for every system were dropped")
        blocks.append(r["values"][[pos[q] for q in common]])
    names = measure_names(inputs, "table")
    sys_names = [r["name"] for r in results]
    if args.baseline is not None and args.baseline not in sys_names:
        raise _Usage(f"--baseline {args.baseline!r} is not one of the systems: {', '.join(sys_names)}")
    report = {"preset": inputs.preset, "alpha": args.alpha, "test": args.test, "correction": args.correction,
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
            ci = stats.bootstrap_ci(v, confidence=args.confidence, n_resamples=args.resamples, seed=args.seed)
            systems.append({"name": n, "mean": ci.mean, "ci_low": ci.low, "ci_high": ci.high})
        pairs = stats.compare_systems(per, alpha=args.alpha, test=args.test, correction=args.correction,
                                      baseline=args.baseline, n_resamples=args.resamples, seed=args.seed)
        report["measures"].append({"measure": m, "systems": systems,
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
        return json.dumps(clean(report), indent=2, allow_nan=False) + "\n"
    pair_cols = ["a", "b", "mean_a", "mean_b", "diff", "effect_size", "p_t", "p_wilcoxon",
                 "p_randomization", "p_adjusted", "winner"]
    if fmt == "csv":
        buf = io.StringIO()
        buf.write(",".join(["measure"] + pair_cols) + "\n")
        for m in report["measures"]:
            for p in m["pairs"]:
                cells = [m["measure"]] + [_csv(str(p[c])) if isinstance(p[c], str) else _csv_num(p[c])
                                          for c in pair_cols]
                buf.write(",".join(cells) + "\n")
        return buf.getvalue()
    out = [f"preset {report['preset']}; {report['n_queries']} queries; winner by the {report['test']} test "
           f"at alpha {report['alpha']} ({report['correction']} correction)\n"]
    for m in report["measures"]:
        out.append(f"\n{m['measure']}\n")
        pct = f"{100 * confidence:g}% CI"
        rows = [[s["name"], _fmt_value(s["mean"], digits),
                 f"[{_fmt_value(s['ci_low'], digits)}, {_fmt_value(s['ci_high'], digits)}]"] for s in m["systems"]]
        out.append(_table(["system", "mean", pct], rows))
        out.append("\n")
        rows = []
        for p in m["pairs"]:
            rows.append([p["a"], p["b"], _fmt_value(p["diff"], digits), _fmt_value(p["effect_size"], 3),
                         _fmt_p(p["p_t"]), _fmt_p(p["p_wilcoxon"]), _fmt_p(p["p_randomization"]),
                         _fmt_p(p["p_adjusted"]), p["winner"] or "-"])
        out.append(_table(["A", "B", "A-B", "d_z", "p(t)", "p(wilcoxon)", "p(rand)", "p(adj)", "winner"],
                          rows, right_from=2))
    return "".join(out)


def _fmt_p(p: float) -> str:
    if math.isnan(p):
        return "nan"
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"


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
    from fastndcg.report.compare import RunData, compare

    if args.per_query and args.format == "table":
        _note("--per-query applies to --format json and csv; the table shows the aggregates")
    if args.plot_max_k is not None and args.plot is None:
        raise _Usage("--plot-max-k needs --plot FILE.png")
    if args.plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise _Usage('--plot needs matplotlib: pip install "fastndcg[plot]"') from None
    _check_writable(args.output, "-o/--output")
    _check_writable(args.plot, "--plot")
    progress = _progress_for(args)
    # Load once with everything a preset may need: the docno tie key and the
    # judgments (TREC), so that each preset can take what its tool uses.
    load = argparse.Namespace(**vars(args))
    load.preset = "trec_eval" if args.data is None else "standard"
    load.ideal = "qrels"
    inputs = load_systems(load, progress)
    runs = {}
    for sys_ in inputs.systems:
        for n in sys_.notes:
            _note(n)
        runs[sys_.name] = RunData(qids=sys_.qids, **sys_.arrays)
    ks = args.k or FALLBACK_CUTOFFS
    result = compare(runs, k=ks, presets=args.presets, ideal=args.ideal if args.data is None else "auto",
                     per_query=args.per_query, n_threads=args.threads)
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


# ============================================================================ main

#: (name, function adding the subparser). A new subcommand (e.g. ``compare``)
#: adds its own ``add_<name>_parser`` here.
SUBCOMMANDS: List[Tuple[str, Callable]] = [
    ("demo", lambda sub: _add_demo_parser(sub)),
    ("eval", add_eval_parser),
    ("test", add_test_parser),
    ("compare", add_compare_parser),
]


def _add_demo_parser(sub) -> None:
    demo = sub.add_parser("demo", help="NDCG of the embedded synthetic data under contrasting conventions")
    demo.add_argument("--queries", type=_positive, default=10_000, help="number of queries (default 10000)")
    demo.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    demo.add_argument("-k", type=_cutoffs, default=[1, 3, 5, 10], help="cutoffs, e.g. 1,3,5,10")
    demo.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all)")
    demo.add_argument("--write-examples", metavar="DIR", default=None,
                      help="write the README's example files (TREC qrels and two runs, SVMlight data and "
                           "predictions) into DIR and exit")
    demo.set_defaults(func=cmd_demo, value_error_code=EXIT_USAGE)


class _Parser(argparse.ArgumentParser):
    """argparse with the one error prefix of every fastndcg error (``fastndcg: error:``)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"fastndcg: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="fastndcg", description="Exact NDCG under every convention.",
        epilog="exit codes: 0 ok, 1 internal error, 2 usage, 3 file cannot be read/written, "
               "4 invalid input data, 130 interrupted")
    sub = parser.add_subparsers(dest="command", required=True)
    for _name, add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(_joined_gain(sys.argv[1:] if argv is None else list(argv)))
    with warnings.catch_warnings():
        _show_gain_warning_once()
        return _run(args)


def _joined_gain(argv: List[str]) -> List[str]:
    """``--gain -1=2`` as ``--gain=-1=2``: argparse would take a value starting
    with '-' (trec_eval's level -1 or -2 listed first) for an option."""
    out: List[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--gain" and i + 1 < len(argv) and argv[i + 1][:1] == "-" and "=" in argv[i + 1]:
            out.append("--gain=" + argv[i + 1])
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def _show_gain_warning_once() -> None:
    """Print the first :class:`fastndcg.measures.trec_gains.TrecGainQuirkWarning` of the
    command on stderr as ``fastndcg: warning: ...`` (one for all runs)."""
    from fastndcg.measures.trec_gains import TrecGainQuirkWarning

    shown: List[Any] = []
    other = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, TrecGainQuirkWarning):
            return other(message, category, filename, lineno, file, line)
        if not shown:
            shown.append(message)
            print(f"fastndcg: warning: {message}", file=sys.stderr)

    warnings.simplefilter("always", TrecGainQuirkWarning)
    warnings.showwarning = show


def _run(args) -> int:
    try:
        return args.func(args)
    except _Usage as exc:
        print(f"fastndcg: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("fastndcg: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # e.g. `fastndcg eval ... | head`: the reader went away; not an error.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except OSError as exc:
        where = f" {exc.filename!r}" if getattr(exc, "filename", None) else ""
        print(f"fastndcg: error: cannot access{where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_IO
    except (ValueError, TypeError) as exc:
        print(f"fastndcg: error: {exc}", file=sys.stderr)
        return getattr(args, "value_error_code", EXIT_DATA)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
