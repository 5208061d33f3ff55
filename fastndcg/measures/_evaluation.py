"""``fastndcg.evaluate``: NDCG measures on qrels and a run, the way ir_measures users call them.

::

    import fastndcg
    res = fastndcg.evaluate(["nDCG@10", "ndcg_cut.5", "Rndcg"], qrels, run)
    res.aggregated            # {measure: mean}, as ir_measures.calc_aggregate
    res.per_query             # [Metric(query_id, measure, value), ...], as ir_measures.iter_calc
    res.by_query              # {query_id: {name: value}}, as pytrec_eval's evaluate
    fastndcg.calc_aggregate(["nDCG@10"], qrels, run)    # ir_measures' shapes directly

Measures are strings in trec_eval or ir_measures syntax, or ir_measures
measure objects (:mod:`fastndcg.measures._measure_strings`); the returned dict is keyed
by :class:`~fastndcg.measures._measure_strings.Measure` objects that also match the
measure's name and the equal ir_measures object (``res.aggregated[nDCG@10]``,
``res.aggregated["nDCG@10"]``).

Qrels and runs may be:

* pytrec_eval-style dicts ``{query_id: {doc_id: relevance}}`` /
  ``{query_id: {doc_id: score}}``; as in pytrec_eval, a run topic given as
  ``{}`` is present with an empty ranking (DCG 0, scored and reported whatever
  ``missing`` says), while an absent topic is missing;
* pandas (or polars) DataFrames with ir_measures' columns (``query_id``,
  ``doc_id``, ``relevance`` / ``score``) or the TREC-style names other tools
  use (``qid``/``query``/``topic``, ``docno``/``docid``, ``rel``/``label``,
  ``sim``);
* iterables of namedtuples with fields ``query_id``, ``doc_id`` and
  ``relevance`` / ``score`` (``ir_measures.Qrel``/``ScoredDoc``,
  ir_datasets' ``qrels_iter()`` / ``scoreddocs_iter()``);
* paths of TREC files, or :class:`fastndcg.io.Qrels` / ``Run`` objects.

Query and document ids are compared as strings (UTF-8, bytewise, as
trec_eval); relevance must be an integer and a score a finite number; a
document listed twice for a query is an error naming both rows. Empty
qrels or an empty run (``{}``) is an error (``run: no rows``), where
pytrec_eval returns ``{}``: see :func:`evaluate`.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from itertools import chain, groupby
from operator import attrgetter
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Tuple

from fastndcg._core.arguments import renamed_argument

import numpy as np

from fastndcg._core.summary import mean_text, summary_repr
from fastndcg.conventions._topics import DEFAULT_MISSING
from fastndcg.measures._measure_strings import Measure
from fastndcg.measures._measurement import Measurement
from fastndcg.measures._trec_measures import TrecResult, evaluate_trec

__all__ = ["Evaluation", "Metric", "evaluate", "calc_aggregate", "iter_calc", "calc", "as_qrels", "as_run"]

_QUERY = ("query_id", "qid", "query", "topic", "topic_id")
_DOC = ("doc_id", "docno", "docid", "doc")
_REL = ("relevance", "rel", "label", "judgment", "grade")
_SCORE = ("score", "sim", "similarity")
_BAD_ID = re.compile(r"[\s\x00]").search


class Metric(NamedTuple):
    """One query's value of one measure (ir_measures' ``Metric`` fields)."""

    query_id: str
    measure: Measure
    value: float


@dataclass
class Evaluation:
    """Per-query values and aggregates of :func:`evaluate`.

    Attributes
    ----------
    measures : list of Measure
    query_ids : list of str
        The evaluated queries (bytewise order).
    values : float64 (n_queries, n_measures)
    aggregated : dict {Measure: float}
        The mean of each measure over the evaluated queries (ir_measures'
        ``calc_aggregate``).
    run_name : str
    missing_query_ids, ignored_query_ids : list of str
        Judged queries without results; run queries without judgments.
    """

    measures: List[Measure]
    query_ids: List[str]
    values: np.ndarray
    aggregated: Dict[Measure, float]
    run_name: str = ""
    missing_query_ids: Optional[List[str]] = None
    ignored_query_ids: Optional[List[str]] = None
    measurements: List[Measurement] = field(default_factory=list)

    def __repr__(self) -> str:
        """``Evaluation(2 measures, 2,000 topics, mean ndcg_cut_10=0.3914, ndcg_cut_20=0.4012)``:
        a summary; the values stay in the attributes, :meth:`to_dict` and :meth:`to_frame`."""
        return summary_repr("Evaluation", [m.name for m in self.measures], len(self.query_ids),
                            list(self.aggregated.values()), self.run_name, self.missing_query_ids,
                            self.ignored_query_ids)

    @property
    def signatures(self) -> Dict[Measure, str]:
        """{measure: signature}: what each number is, completely
        (:attr:`fastndcg.Measurement.signature`)."""
        return {m: s.signature for m, s in zip(self.measures, self.measurements)}

    @property
    def signature(self) -> str:
        """The signature of the one measure evaluated (ValueError for several: see :attr:`signatures`)."""
        if len(self.measurements) != 1:
            raise ValueError(f"{len(self.measurements)} measures were evaluated; each has its signature in "
                             ".signatures")
        return self.measurements[0].signature

    @property
    def per_query(self) -> List[Metric]:
        """ir_measures' ``iter_calc`` results as a list: query by query, measures in order."""
        return list(self.iter_calc())

    def iter_calc(self) -> Iterator[Metric]:
        vals = self.values.tolist()
        for q, row in zip(self.query_ids, vals):
            for m, v in zip(self.measures, row):
                yield Metric(q, m, v)

    @property
    def by_query(self) -> Dict[str, Dict[str, float]]:
        """pytrec_eval's ``evaluate`` shape: {query_id: {measure name: value}}."""
        names = [m.name for m in self.measures]
        return {q: dict(zip(names, row)) for q, row in zip(self.query_ids, self.values.tolist())}

    def to_dict(self) -> Dict[str, Dict[str, float]]:
        """{query_id: {measure name: value}} (as :attr:`by_query`, pytrec_eval's shape)."""
        return self.by_query

    def to_frame(self, layout: str = "long"):
        """A pandas DataFrame: ``long`` (columns query_id, measure, value) or
        ``wide`` (query_id, then one column per measure)."""
        import pandas as pd

        names = [m.name for m in self.measures]
        if layout == "wide":
            df = pd.DataFrame(self.values, columns=names)
            df.insert(0, "query_id", self.query_ids)
            return df
        if layout != "long":
            raise ValueError(f"layout must be 'long' or 'wide'; got {layout!r}")
        n_q, n_m = self.values.shape
        return pd.DataFrame({"query_id": np.repeat(np.asarray(self.query_ids, dtype=object), n_m),
                             "measure": np.tile(np.asarray(names, dtype=object), n_q),
                             "value": self.values.reshape(-1)})


def evaluate(measures: Any, qrels: Any, run: Any, *, convention: Any = None, missing: Optional[str] = None,
             max_docs: Optional[int] = None, judged_only: bool = False, relevance_level: int = 1,
             n_threads: Optional[int] = None, rules: Optional[str] = None) -> Evaluation:
    """NDCG measures of a run against qrels, per query and averaged.

    Parameters
    ----------
    measures : str, measure object or list of them
        trec_eval syntax (``"ndcg_cut.5,10"``, ``"ndcg.0=0,1=1,2=3"``,
        ``"ndcg_rel"``, ``"Rndcg"``, ``"dcg"``, ``"ideal_dcg"``, ``"ndcg_p"``)
        or ir_measures syntax (``"nDCG@10"``, ``"nDCG(dcg='exp-log2')@20"``,
        ``"nDCG(gains={0:0,1:1,2:3})@10"``, ``"nDCG(judged_only=True)@10"``,
        or ``ir_measures.nDCG@10``).
    qrels, run : dicts, DataFrames, namedtuple iterables, paths (see the module docstring)
        Each must hold at least one row: empty qrels or an empty run (``{}``,
        an empty DataFrame, list or iterable) is a ValueError ``qrels: no rows``
        / ``run: no rows`` (pytrec_eval returns ``{}``; ir_measures an empty
        result), as an empty file is an error on the command line (``no
        judgments in the file`` / ``no results in the file``): an evaluation of
        nothing is taken for a mistake upstream (a filter that kept no row, the
        wrong file), not for a mean to report.
    convention : Convention or preset name, default "trec_eval"
        The convention of the trec_eval-syntax measures: ``"trec_eval"`` (trec_eval 10)
        or ``"pytrec_eval"`` (trec_eval 9: scores rounded to float32), or a
        convention with their fields (renamed, or with the fields trec_eval reads
        changed). ir_measures-syntax measures follow ir_measures' providers
        (pytrec_eval for ``dcg='log2'``, gdeval or ranx for ``'exp-log2'``); a
        :class:`~fastndcg.Measurement` or signature carries its own.
        ``rules=`` is its deprecated spelling.
    missing : {"error", "zero", "skip"}, default "error"
        Judged queries without results: an error naming them (trec_eval 10;
        the one default of every front-end,
        :data:`fastndcg.conventions._topics.DEFAULT_MISSING`), scored (``"zero"``: 0 for
        every NDCG measure unless trec_eval gains give unjudged documents a
        gain; ir_measures and trec_eval ``-c``), or left out (``"skip"``:
        trec_eval 9.x, pytrec_eval). A :class:`~fastndcg.Measurement` or a
        signature states its own rule; ``missing=`` given beside one that
        states another is a ValueError naming both.
    max_docs : int, optional
        Only the top ``max_docs`` results of each query (trec_eval ``-M``).
    judged_only : bool
        trec_eval's ``-J`` for every measure (documents without a judgment
        >= 0 are dropped from the ranking).
    relevance_level : int
        trec_eval's ``-l`` (read by ``Rndcg`` and ``ndcg_p``).
    n_threads : int, optional

    Returns
    -------
    Evaluation
        For each query, DCG = sum_r g_r / log2(r + 1) over the ranking by score
        descending, ties by doc id descending (bytewise), and NDCG = DCG / IDCG
        with the ideal from the query's judgments (0 when the ideal is 0);
        each measure's gains, cutoff and variants as its tool defines them
        (:mod:`fastndcg.measures._trec_measures`). Aggregates are plain means over the
        evaluated queries.
    """
    convention = renamed_argument("rules", rules, "convention", convention, "trec_eval")
    res = _evaluate(measures, qrels, run, convention=convention, missing=missing, max_docs=max_docs,
                    judged_only=judged_only, relevance_level=relevance_level, n_threads=n_threads)
    agg = {m: float(v) for m, v in zip(res.measures, res.means.tolist())}
    return Evaluation(res.measures, [str(q) for q in res.qids.tolist()], res.values, agg, res.run_name,
                      res.missing_qids, res.ignored_qids, res.measurements)


def _evaluate(measures, qrels, run, **kw) -> TrecResult:
    from fastndcg.io._trec import qrels_before_run

    with qrels_before_run(qrels, run, ("qrels", "run"), "pass the qrels as qrels= and the run as run="):
        run_in, qrels_in, consume = run_and_qrels(run, qrels, kw.get("n_threads"))
        return evaluate_trec(run_in, qrels_in, measures, consume_run=consume, **kw)


def run_and_qrels(run: Any, qrels: Any, n_threads: Optional[int] = None) -> Tuple[Any, Any, bool]:
    """(the run as :func:`evaluate_trec` takes it, the qrels as a :class:`fastndcg.io.Qrels`,
    whether the run is to be freed as it is evaluated), for any accepted inputs; the one
    place that chooses how an input run meets the qrels (``evaluate``, the ir_measures provider):

    * a path: as it is (joined with the qrels while it is read);
    * pytrec_eval's dicts, rows (namedtuples) or a frame whose ids and scores are the usual
      ones (ASCII ids without whitespace or control characters, finite scores, each query's
      rows together): joined with the qrels as a run file is
      (:func:`fastndcg.io._memory_runs.join_run_rows`: hash lookups, tie keys among equal
      scores), without a :class:`Run` table, whose docnos are sorted within queries;
    * anything else: a :class:`Run` table (:func:`as_run`: reads any accepted input and
      names the row of an error).

    The run is checked before the qrels are read, as on every path."""
    from fastndcg.io._memory_runs import join_run_rows, plain_dict_rows, plain_list_rows

    if isinstance(run, (str, os.PathLike)):
        return run, as_qrels(qrels), False
    rows = plain_dict_rows(run, integer=False)
    if rows is None and not isinstance(run, dict) and not _is_table(run):
        columns = _columns(run, _SCORE, "run", "score")     # read once (a generator is consumed)
        rows = plain_list_rows(*columns)
        if rows is None:
            return _run_table(*columns), as_qrels(qrels), False
    if rows is None:
        return as_run(run), as_qrels(qrels), False
    topics, sizes, pool, start, scores = rows
    qrels_in = as_qrels(qrels)
    joined = join_run_rows(qrels_in, topics, sizes, pool, start, scores, n_threads=n_threads)
    if joined is None:          # a docno twice in a query (ids equal as str): the table names the rows
        return as_run(run), qrels_in, False
    return joined, qrels_in, True


def _is_table(data: Any) -> bool:
    from fastndcg.io._trec import TrecTable

    return isinstance(data, TrecTable)


def calc_aggregate(measures: Any, qrels: Any, run: Any, **kw: Any) -> Dict[Measure, float]:
    """ir_measures' ``calc_aggregate``: {measure: mean} (see :func:`evaluate` for the arguments)."""
    return evaluate(measures, qrels, run, **kw).aggregated


def iter_calc(measures: Any, qrels: Any, run: Any, **kw: Any) -> Iterator[Metric]:
    """ir_measures' ``iter_calc``: Metric(query_id, measure, value) per query and measure."""
    return evaluate(measures, qrels, run, **kw).iter_calc()


class CalcResults(NamedTuple):
    """ir_measures' ``calc`` result: (aggregated, per_query)."""

    aggregated: Dict[Measure, float]
    per_query: List[Metric]

    def __repr__(self) -> str:
        """``CalcResults(aggregated={nDCG@10: 0.3914}, per_query=[2,000 metrics])``."""
        agg = ", ".join(f"{m}: {mean_text(v)}" for m, v in self.aggregated.items())
        return f"CalcResults(aggregated={{{agg}}}, per_query=[{len(self.per_query):,} metrics])"


def calc(measures: Any, qrels: Any, run: Any, **kw: Any) -> CalcResults:
    """ir_measures' ``calc``: (aggregated, per-query metrics)."""
    ev = evaluate(measures, qrels, run, **kw)
    return CalcResults(ev.aggregated, ev.per_query)


# ----------------------------------------------------------------------------- inputs


def as_qrels(qrels: Any):
    """A :class:`fastndcg.io.Qrels` from any accepted qrels input."""
    from fastndcg.io._memory_runs import plain_dict_rows
    from fastndcg.io._trec import Qrels, read_qrels

    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels)
    rows = plain_dict_rows(qrels, integer=True)
    if rows is not None:        # the usual dicts: their ids' bytes in one compiled walk
        keys, sizes, pool, start, rel = rows
        judged = sizes > 0      # a qrels topic given as {} has no judgments (left out)
        if judged.any():
            return _table(Qrels, None, None, "qrels", ([k for k, j in zip(keys, judged.tolist()) if j],
                                                       sizes[judged].tolist()),
                          ids=(pool, start[:-1], np.diff(start)), relevance=rel)
    q, d, v, stretches = _columns(qrels, _REL, "qrels", "relevance")
    arr = np.asarray(v) if v else np.zeros(0, dtype=np.int64)
    if arr.ndim == 1 and arr.dtype.kind in "iu" and (arr.dtype.kind == "i" or not arr.size or arr.max() < 2**63):
        return _table(Qrels, q, d, "qrels", stretches, relevance=arr.astype(np.int64))
    rel = np.empty(len(v), dtype=np.int64)
    for i, x in enumerate(v):
        try:
            iv = int(x)
            ok = iv == x and not isinstance(x, (bool, np.bool_)) and -2**63 <= iv < 2**63
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise ValueError(f"qrels row {i}: relevance {x!r} (query {_query_at(q, stretches, i)!r}, "
                             f"doc {str(d[i])!r}) is not an integer (int64)")
        rel[i] = iv
    return _table(Qrels, q, d, "qrels", stretches, relevance=rel)


def as_run(run: Any):
    """A :class:`fastndcg.io.Run` from any accepted run input."""
    from fastndcg.io._trec import Run, read_run

    if isinstance(run, Run):
        return run
    if isinstance(run, (str, os.PathLike)):
        return read_run(run)
    return _run_table(*_columns(run, _SCORE, "run", "score"))


def _run_table(q: Optional[list], d: list, v: list, stretches: Any):
    """:func:`as_run` of the (query ids, doc ids, scores) of :func:`_columns`."""
    from fastndcg.io._trec import Run

    try:
        scores = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        scores = None
    if scores is None or scores.shape != (len(v),) or not np.isfinite(scores).all():
        for i, x in enumerate(v):
            try:
                ok = np.isfinite(float(x)) and not isinstance(x, (bool, np.bool_))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise ValueError(f"run row {i}: score {x!r} (query {_query_at(q, stretches, i)!r}, "
                                 f"doc {str(d[i])!r}) is not a finite number")
    return _table(Run, q, d, "run", stretches, scores=scores)


def _pick(cols: List[str], names: Tuple[str, ...], what: str, field: str, kind: str) -> str:
    for n in names:
        if n in cols:
            return n
    raise ValueError(f"{what}: no {field} column; expected one of {list(names)}, found {cols} "
                     f"(a {kind} needs query, document and {field} columns)")


def _columns(data: Any, value_names: Tuple[str, ...], what: str,
             field: str) -> Tuple[Optional[list], list, list, Optional[Tuple[List[str], List[int]]]]:
    """(query ids, doc ids, values) as Python lists, from a dict, a frame or
    namedtuples; for a dict, no query id per row (None) but the (query ids,
    numbers of rows), else None. A run topic given as ``{}`` is kept with no rows: a
    topic with an empty ranking (scored, as pytrec_eval scores it), not a missing one; a
    qrels topic given as ``{}`` has no judgments, so it is no judged topic (left out).

    The ids are as given (``str()`` of each is the id; :func:`_table` applies it
    only when some id is not a ``str``)."""
    kind = "qrels" if what == "qrels" else "run"
    if isinstance(data, dict):
        d: list = []
        v: list = []
        keys: List[str] = []
        sizes: List[int] = []
        for qid, docs in data.items():
            if not isinstance(docs, dict):
                raise ValueError(f"{what}[{qid!r}] must be a dict {{doc_id: {field}}} (pytrec_eval's shape); got "
                                 f"{type(docs).__name__}")
            if docs or what == "run":
                keys.append(str(qid))
                sizes.append(len(docs))
                d.extend(docs)
                v.extend(docs.values())
        return None, d, v, (keys, sizes)
    if hasattr(data, "columns") and (hasattr(data, "itertuples") or hasattr(data, "to_pandas")):
        cols = [str(c) for c in data.columns]
        qc = _pick(cols, _QUERY, what, "query id", kind)
        dc = _pick(cols, _DOC, what, "document id", kind)
        vc = _pick(cols, value_names, what, field, kind)
        get = (lambda c: data[c].to_list()) if hasattr(data[qc], "to_list") else (lambda c: list(data[c]))
        return get(qc), get(dc), get(vc), None
    try:
        it = iter(data)
    except TypeError:
        raise TypeError(f"{what} must be a dict {{query_id: {{doc_id: {field}}}}}, a DataFrame, an iterable of "
                        f"namedtuples (query_id, doc_id, {field}) or a path; got {type(data).__name__}") from None
    none = object()
    first = next(it, none)
    if first is none:
        return [], [], [], None
    fields = getattr(first, "_fields", None)
    if fields is None:
        raise ValueError(f"{what}: item 0 is a {type(first).__name__}, not a namedtuple with fields "
                         f"query_id, doc_id, {field}")
    names = [_pick(list(fields), which, what, label, kind)
             for which, label in ((_QUERY, "query id"), (_DOC, "document id"), (value_names, field))]
    if isinstance(data, list) and isinstance(first, tuple) and set(map(type, data)) == {type(first)}:
        # one namedtuple type throughout: its fields by position, in one C loop
        items = list(chain.from_iterable(data))
        q, d, v = (items[fields.index(n)::len(fields)] for n in names)
        return q, d, v, None
    # any other iterable (a generator): the three fields of each row by name into one flat list,
    # each row freed once read; rows of other types work as long as they have the fields
    flat: list = []
    try:
        flat.extend(chain.from_iterable(map(attrgetter(*names), chain((first,), it))))
    except AttributeError:
        raise ValueError(f"{what}: item {len(flat) // 3} lacks a field of {names} (item 0 is a "
                         f"{type(first).__name__} with fields {list(fields)})") from None
    return flat[0::3], flat[1::3], flat[2::3], None


#: :data:`_BAD_ID` but for the newline (the separator of :func:`_id_pool`): for ids beyond ASCII.
_BAD_ID_BUT_NEWLINE = re.compile(r"[^\S\n]|\x00").search
#: Every ASCII character :data:`_BAD_ID` finds is a byte <= 32.
_MAX_BAD_ASCII = max(c for c in range(128) if _BAD_ID(chr(c)))


def _first_bad_id(ids: list, what: str, name: str, rows: Optional[list] = None) -> Optional[ValueError]:
    """The error for the first id (after ``str()``) that is empty or has a space or NUL
    (``rows[k]``: the row of ``ids[k]``, when ids are not one per row); None if there is none."""
    for k, x in enumerate(ids):
        s = str(x)
        if not s or _BAD_ID(s):
            return ValueError(f"{what} row {k if rows is None else rows[k]}: {name} id {s!r} is empty or has a "
                              "space or NUL (TREC ids are single tokens)")
    return None


def _id_pool(ids: list, what: str) -> Tuple[list, np.ndarray, np.ndarray, np.ndarray]:
    """(the ids as str, their UTF-8 bytes, each one's start and length in those bytes).

    The ids are joined once with newlines and checked on the joined bytes
    (vectorised); the first bad row is looked for only when something is wrong.
    The newlines stay in the pool (an id is its start and length)."""
    n = len(ids)
    if n == 0:          # a run whose topics all have empty rankings
        empty = np.zeros(0, dtype=np.int64)
        return [], np.zeros(0, dtype=np.uint8), empty, empty.copy()
    try:
        text = "\n".join(ids)
    except TypeError:                   # not all str: the id is str() of the value
        ids = list(map(str, ids))
        text = "\n".join(ids)
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        k = text.count("\n", 0, exc.start)
        raise ValueError(f"{what} row {k}: document id {ids[k]!r} is not encodable as UTF-8") from None
    pool = np.frombuffer(raw, dtype=np.uint8)
    # bytes <= 32 are the n - 1 newlines unless an id holds a control character or a space
    ends = np.flatnonzero(pool <= _MAX_BAD_ASCII)
    if ends.shape[0] != n - 1 or (not text.isascii() and _BAD_ID_BUT_NEWLINE(text)):
        err = _first_bad_id(ids, what, "document")
        if err is not None:
            raise err
        ends = np.flatnonzero(pool == 10)    # control characters that are not spaces are allowed
    start = np.empty(n, dtype=np.int64)
    start[0] = 0
    start[1:] = ends + 1
    length = np.empty(n, dtype=np.int64)
    length[:-1] = ends - start[:-1]
    length[-1] = pool.shape[0] - start[-1]
    if not length.all():
        raise _first_bad_id(ids, what, "document") or AssertionError("an empty id")
    return ids, pool, start, length


def _query_at(qids: Optional[list], stretches: Optional[Tuple[List[str], List[int]]], row: int) -> str:
    """The query id of a row (from the stretches when there is no id per row)."""
    if qids is not None:
        return str(qids[row])
    keys, sizes = stretches  # type: ignore[misc]
    return keys[int(np.searchsorted(np.cumsum(sizes), row, side="right"))]


def _topic_segments(qids: Optional[list], what: str,
                    stretches: Optional[Tuple[List[str], List[int]]] = None) -> Tuple[List[str], np.ndarray]:
    """(query id, first row) of each stretch of rows with one query id, ids as str
    (one check per stretch: rows of a query usually come together); ``stretches``:
    the (query ids, numbers of rows) when known."""
    if stretches is not None:
        keys, sizes = stretches
    else:
        ids = qids if qids is not None else []
        keys, sizes = [], []
        for k, g in groupby(ids):
            keys.append(k)
            sizes.append(len(list(g)))
        if not all(type(k) is str for k in keys):        # equal values may differ as str (1 == 1.0 == True)
            return _topic_segments(list(map(str, ids)), what)
    first = np.zeros(len(keys), dtype=np.int64)
    np.cumsum(sizes[:-1], out=first[1:])
    if any(not k or _BAD_ID(k) for k in keys):
        raise _first_bad_id(keys, what, "query", first.tolist()) or AssertionError("a bad query id")
    return keys, first


def _table(cls, qids: Optional[list], docs: Optional[list], what: str,
           stretches: Optional[Tuple[List[str], List[int]]] = None,
           ids: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None, **values):
    """A Qrels / Run table (topics and docnos bytewise, as the file readers give);
    ``stretches`` as :func:`_topic_segments` takes it; ``ids``: the doc ids' (pool, start,
    length) when already made and checked (:func:`fastndcg.io._memory_runs.plain_dict_rows`; then ``docs`` is None)."""
    from fastndcg._core.threads import threads_for
    from fastndcg.io import _parse

    n = len(docs or []) if ids is None else int(ids[1].shape[0])
    if n == 0 and not (stretches is not None and stretches[0]):
        raise ValueError(f"{what}: no rows")
    keys, seg_first = _topic_segments(qids, what, stretches)
    if ids is None:
        docs, pool, start, length = _id_pool(docs or [], what)
    else:
        pool, start, length = ids
    try:
        key_bytes = np.array([k.encode("utf-8", "surrogateescape") for k in keys], dtype=bytes)
    except UnicodeEncodeError:
        k = next(i for i, x in enumerate(keys) if not _encodable(x))
        raise ValueError(f"{what} row {int(seg_first[k])}: query id {keys[k]!r} is not encodable as UTF-8") from None
    topics, seg_code = np.unique(key_bytes, return_inverse=True)
    order = np.empty(n, dtype=np.int64)
    offsets = np.empty(topics.shape[0] + 1, dtype=np.int64)
    _parse.group_rows(seg_first, seg_code.ravel().astype(np.int64), order, offsets)
    # docnos bytewise within each topic, as _sorted_table of the file readers (about 16 work units a row)
    _parse.sort_groups(pool, start, length, order, offsets, threads_for(16 * n))
    start = start[order]
    length = length[order]
    dup = _parse.first_duplicate(pool, start, length, offsets)
    if dup >= 0:
        a, b = sorted((int(order[dup - 1]), int(order[dup])))
        query = keys[int(np.searchsorted(seg_first, b, side="right")) - 1]
        doc = docs[b] if docs is not None else bytes(pool[start[dup]:start[dup] + length[dup]]).decode()
        raise ValueError(f"{what} rows {a} and {b}: document {doc!r} is listed twice for query {query!r}")
    kw: Dict[str, Any] = {k: np.asarray(v)[order] for k, v in values.items()}
    if "scores" in kw:
        kw["file_row"] = order
        kw["name"] = ""
    names = np.array([t.decode("utf-8", "surrogateescape") for t in topics.tolist()], dtype=object)
    return cls(what, names, offsets, pool, start, length, order + 1, **kw)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True
