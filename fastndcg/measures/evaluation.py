"""``fastndcg.evaluate``: NDCG measures on qrels and a run, the way ir_measures users call them.

::

    import fastndcg
    res = fastndcg.evaluate(["nDCG@10", "ndcg_cut.5", "Rndcg"], qrels, run)
    res.aggregated            # {measure: mean}, as ir_measures.calc_aggregate
    res.per_query             # [Metric(query_id, measure, value), ...], as ir_measures.iter_calc
    res.by_query              # {query_id: {name: value}}, as pytrec_eval's evaluate
    fastndcg.calc_aggregate(["nDCG@10"], qrels, run)    # ir_measures' shapes directly

Measures are strings in trec_eval or ir_measures syntax, or ir_measures
measure objects (:mod:`fastndcg.measures.measure_strings`); the returned dict is keyed
by :class:`~fastndcg.measures.measure_strings.Measure` objects that also match the
measure's name and the equal ir_measures object (``res.aggregated[nDCG@10]``,
``res.aggregated["nDCG@10"]``).

Qrels and runs may be:

* pytrec_eval-style dicts ``{query_id: {doc_id: relevance}}`` /
  ``{query_id: {doc_id: score}}``;
* pandas (or polars) DataFrames with ir_measures' columns (``query_id``,
  ``doc_id``, ``relevance`` / ``score``) or the TREC-style names other tools
  use (``qid``/``query``/``topic``, ``docno``/``docid``, ``rel``/``label``,
  ``sim``);
* iterables of namedtuples with fields ``query_id``, ``doc_id`` and
  ``relevance`` / ``score`` (``ir_measures.Qrel``/``ScoredDoc``,
  ir_datasets' ``qrels_iter()`` / ``scoreddocs_iter()``);
* paths of TREC files, or :class:`fastndcg.io.readers.Qrels` / ``Run`` objects.

Query and document ids are compared as strings (UTF-8, bytewise, as
trec_eval); relevance must be an integer and a score a finite number; a
document listed twice for a query is an error naming both rows.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Tuple

import numpy as np

from fastndcg.conventions import DEFAULT_MISSING
from fastndcg.measures.measure_strings import Measure
from fastndcg.measures.measurement import Measurement
from fastndcg.measures.trec_measures import TrecResult, evaluate_trec

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

    @property
    def signatures(self) -> Dict[Measure, str]:
        """{measure: signature}: what each number is, completely
        (:attr:`fastndcg.measures.measurement.Measurement.signature`)."""
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


def evaluate(measures: Any, qrels: Any, run: Any, *, rules: str = "trec_eval", missing: str = DEFAULT_MISSING,
             max_docs: Optional[int] = None, judged_only: bool = False, relevance_level: int = 1,
             n_threads: Optional[int] = None) -> Evaluation:
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
    rules : {"trec_eval", "pytrec_eval"}
        Rules of the trec_eval-syntax measures: trec_eval 10 or trec_eval 9
        (pytrec_eval: scores rounded to float32). ir_measures-syntax measures
        follow ir_measures' providers (pytrec_eval for ``dcg='log2'``, gdeval
        or ranx for ``'exp-log2'``).
    missing : {"error", "zero", "skip"}, default "error"
        Judged queries without results: an error naming them (trec_eval 10;
        the one default of every front-end,
        :data:`fastndcg.conventions.DEFAULT_MISSING`), scored (``"zero"``: 0 for
        every NDCG measure unless trec_eval gains give unjudged documents a
        gain; ir_measures and trec_eval ``-c``), or left out (``"skip"``:
        trec_eval 9.x, pytrec_eval).
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
        (:mod:`fastndcg.measures.trec_measures`). Aggregates are plain means over the
        evaluated queries.
    """
    res = _evaluate(measures, qrels, run, rules=rules, missing=missing, max_docs=max_docs,
                    judged_only=judged_only, relevance_level=relevance_level, n_threads=n_threads)
    agg = {m: float(v) for m, v in zip(res.measures, res.means.tolist())}
    return Evaluation(res.measures, [str(q) for q in res.qids.tolist()], res.values, agg, res.run_name,
                      res.missing_qids, res.ignored_qids, res.measurements)


def _evaluate(measures, qrels, run, **kw) -> TrecResult:
    from fastndcg.io.trec import qrels_before_run

    with qrels_before_run(qrels, run, ("qrels", "run"), "pass the qrels as qrels= and the run as run="):
        # a run file is joined with the qrels while it is read (no Run table)
        run_in = run if isinstance(run, (str, os.PathLike)) else as_run(run)
        return evaluate_trec(run_in, as_qrels(qrels), measures, **kw)


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


def calc(measures: Any, qrels: Any, run: Any, **kw: Any) -> CalcResults:
    """ir_measures' ``calc``: (aggregated, per-query metrics)."""
    ev = evaluate(measures, qrels, run, **kw)
    return CalcResults(ev.aggregated, ev.per_query)


# ----------------------------------------------------------------------------- inputs


def as_qrels(qrels: Any):
    """A :class:`fastndcg.io.readers.Qrels` from any accepted qrels input."""
    from fastndcg.io import readers

    if isinstance(qrels, readers.Qrels):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return readers.read_qrels(qrels)
    q, d, v = _columns(qrels, _REL, "qrels", "relevance")
    arr = np.asarray(v) if v else np.zeros(0, dtype=np.int64)
    if arr.ndim == 1 and arr.dtype.kind in "iu":
        return _table(readers.Qrels, q, d, "qrels", relevance=arr.astype(np.int64))
    rel = np.empty(len(v), dtype=np.int64)
    for i, x in enumerate(v):
        try:
            iv = int(x)
            ok = iv == x and not isinstance(x, (bool, np.bool_))
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise ValueError(f"qrels row {i}: relevance {x!r} (query {q[i]!r}, doc {d[i]!r}) is not an integer")
        rel[i] = iv
    return _table(readers.Qrels, q, d, "qrels", relevance=rel)


def as_run(run: Any):
    """A :class:`fastndcg.io.readers.Run` from any accepted run input."""
    from fastndcg.io import readers

    if isinstance(run, readers.Run):
        return run
    if isinstance(run, (str, os.PathLike)):
        return readers.read_run(run)
    q, d, v = _columns(run, _SCORE, "run", "score")
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
                raise ValueError(f"run row {i}: score {x!r} (query {q[i]!r}, doc {d[i]!r}) is not a finite number")
    return _table(readers.Run, q, d, "run", scores=scores)


def _pick(cols: List[str], names: Tuple[str, ...], what: str, field: str, kind: str) -> str:
    for n in names:
        if n in cols:
            return n
    raise ValueError(f"{what}: no {field} column; expected one of {list(names)}, found {cols} "
                     f"(a {kind} needs query, document and {field} columns)")


def _columns(data: Any, value_names: Tuple[str, ...], what: str, field: str) -> Tuple[List[str], List[str], list]:
    """(query ids, doc ids, values) as Python lists, from a dict, a frame or namedtuples."""
    kind = "qrels" if what == "qrels" else "run"
    if isinstance(data, dict):
        q, d, v = [], [], []
        for qid, docs in data.items():
            if not isinstance(docs, dict):
                raise ValueError(f"{what}[{qid!r}] must be a dict {{doc_id: {field}}} (pytrec_eval's shape); got "
                                 f"{type(docs).__name__}")
            for did, val in docs.items():
                q.append(str(qid))
                d.append(str(did))
                v.append(val)
        return q, d, v
    if hasattr(data, "columns") and (hasattr(data, "itertuples") or hasattr(data, "to_pandas")):
        cols = [str(c) for c in data.columns]
        qc = _pick(cols, _QUERY, what, "query id", kind)
        dc = _pick(cols, _DOC, what, "document id", kind)
        vc = _pick(cols, value_names, what, field, kind)
        get = (lambda c: data[c].to_list()) if hasattr(data[qc], "to_list") else (lambda c: list(data[c]))
        return [str(x) for x in get(qc)], [str(x) for x in get(dc)], get(vc)
    try:
        it = iter(data)
    except TypeError:
        raise TypeError(f"{what} must be a dict {{query_id: {{doc_id: {field}}}}}, a DataFrame, an iterable of "
                        f"namedtuples (query_id, doc_id, {field}) or a path; got {type(data).__name__}") from None
    q, d, v = [], [], []
    attr = None
    for i, row in enumerate(it):
        if attr is None:
            fields = getattr(row, "_fields", None)
            if fields is None:
                raise ValueError(f"{what}: item 0 is a {type(row).__name__}, not a namedtuple with fields "
                                 f"query_id, doc_id, {field}")
            attr = (_pick(list(fields), _QUERY, what, "query id", kind), _pick(list(fields), _DOC, what,
                    "document id", kind), _pick(list(fields), value_names, what, field, kind))
        q.append(str(getattr(row, attr[0])))
        d.append(str(getattr(row, attr[1])))
        v.append(getattr(row, attr[2]))
    return q, d, v


def _table(cls, qids: List[str], docs: List[str], what: str, **values):
    """A Qrels / Run table (topics and docnos bytewise, as the file readers give)."""
    n = len(qids)
    if n == 0:
        raise ValueError(f"{what}: no rows")
    for name, ids in (("query", qids), ("document", docs)):
        bad = next((i for i, x in enumerate(ids) if not x or _BAD_ID(x)), None)
        if bad is not None:
            raise ValueError(f"{what} row {bad}: {name} id {ids[bad]!r} is empty or has a space or NUL "
                             "(TREC ids are single tokens)")
    tq = np.asarray(qids, dtype=str)
    topics, tcode = np.unique(tq, return_inverse=True)          # code point order = UTF-8 bytewise order
    enc = [x.encode("utf-8", "surrogateescape") for x in docs]
    db = np.array(enc, dtype=bytes)
    order = np.lexsort((db, tcode.ravel())).astype(np.int64)
    tcode = tcode.ravel()[order]
    dsorted = db[order]
    same = (tcode[1:] == tcode[:-1]) & (dsorted[1:] == dsorted[:-1])
    if same.any():
        k = int(np.flatnonzero(same)[0])
        a, b = sorted((int(order[k]), int(order[k + 1])))
        raise ValueError(f"{what} rows {a} and {b}: document {docs[b]!r} is listed twice for query {qids[b]!r}")
    lengths = np.fromiter((len(enc[i]) for i in order.tolist()), dtype=np.int64, count=n)
    pool = np.frombuffer(b"".join(enc[i] for i in order.tolist()), dtype=np.uint8).copy()
    start = np.zeros(n, dtype=np.int64)
    np.cumsum(lengths[:-1], out=start[1:])
    offsets = np.zeros(topics.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(tcode, minlength=topics.shape[0]), out=offsets[1:])
    kw: Dict[str, Any] = {k: np.asarray(v)[order] for k, v in values.items()}
    if "scores" in kw:
        kw["file_row"] = order
        kw["name"] = ""
    return cls(what, np.array(topics.tolist(), dtype=object), offsets, pool, start, lengths, order + 1, **kw)
