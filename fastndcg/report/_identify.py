"""Which NDCG reproduces a reported number: every preset and every variant of the fields
that make tools disagree, evaluated on the same inputs and matched against the number.

:func:`identify` (TREC qrels + run) and :func:`identify_data` (SVMlight/LETOR data +
predictions) evaluate

* every registered preset, as ``k`` means under it (:func:`~fastndcg.measurement`);
* the grid of variants: gain (exp, lin) x discount (log2, letor) x ties (key_desc,
  key, stable, average, worst, best) x ideal (cut, full) x ideal source (qrels,
  run) x empty (zero, one, skip) x short (clamp, zero) x score precision (native,
  float32) x missing topics (zero, skip; error when no topic is missing) x the
  cutoff (``k`` as given, and the whole list).

A field that cannot change a value on these inputs is not evaluated for each of
its choices (the choices are listed as equivalent): ties when no two scores of a
topic are equal, float32 when rounding makes no new tie, the gain when every
label is 0 or 1, short queries when every topic has at least k results, the ideal
cut when no ideal list has more than k relevant documents, the ideal source when
every topic's retrieved relevant documents are all its judged ones, empty queries
when every ideal list has a relevant document, and missing topics when none is
missing. Candidates that give the same bits (per-topic values and mean) are one
:class:`Candidate`, which lists every measurement and preset behind it.

Matching rule: a reported value printed with d decimals matches a computed value
v when ``|v - reported| <= 0.5 * 10**-d + 1e-12`` (what rounding v to d decimals
can print, either way at the half, plus a tolerance for the binary value of the
text). A per-query file matches when every topic in it matches at its own printed
decimals, and its mean (trec_eval's ``all`` line) too when it has one.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from fastndcg._core.summary import mean_text, short_list
from fastndcg.conventions._convention import FIELD_INFO, FIELDS, PRESETS, Convention
from fastndcg.measures._measurement import Measurement, measurement_for
from fastndcg._core.query_checks import gathered_label_warnings
from fastndcg.io._results import MATCH_RULE, PerQueryValues, ReportedValue, parse_reported_value, read_per_query

__all__ = ["Candidate", "Identification", "identify", "identify_data"]

#: The tie rules tried (from the field's description; the first is the one evaluated when ties
#: cannot matter).
TIE_CHOICES = FIELD_INFO["ties"].grid
SOURCE_CHOICES = FIELD_INFO["ideal_source"].grid
#: The fields the grid varies: those whose descriptions give values to try (``grid``).
_GRID_ORDER = tuple(info.name for info in FIELDS if info.grid)


# ----------------------------------------------------------------------------- candidates


#: A variant as plain data: (the convention, its fields without the name, cutoff, missing rule).
_Variant = Tuple[Convention, Tuple, Optional[int], str]


def _variant(conv: Convention, k: Optional[int], missing: str) -> _Variant:
    return (conv, conv.fields_key(), k, missing)


@dataclass
class Candidate:
    """Measurements that give the same bits on these inputs, and how they compare.

    Attributes
    ----------
    presets : list of str
        Registered presets among the measurements.
    qids : array of str
    values : float64 (n_topics,)
    mean : float
    matches : bool
    difference : float
        Computed mean minus the reported one (NaN without a reported mean).
    matching_queries : int
        Topics of a per-query file that match (0 without one).
    first_mismatch : str
        Where the first topic that does not match is (``FILE:LINE: ...``), or "".
    """

    presets: List[str]
    qids: np.ndarray
    values: np.ndarray
    mean: float
    matches: bool = False
    difference: float = math.nan
    matching_queries: int = 0
    first_mismatch: str = ""
    #: the variants behind these values, each once (built into Measurements when asked:
    #: thousands of them per search)
    variants: Dict[Tuple, _Variant] = field(default_factory=dict, repr=False)
    _measurements: Optional[List[Measurement]] = field(default=None, repr=False)
    _signatures: Optional[List[str]] = field(default=None, repr=False)

    @property
    def measurements(self) -> List[Measurement]:
        """Every measurement behind these values, the presets' first (the names users know)."""
        if self._measurements is None:
            ms = [Measurement("ndcg", k, conv, missing=missing) for conv, _, k, missing in self.variants.values()]
            rank = {name: i for i, name in enumerate(self.presets)}
            ms.sort(key=lambda m: rank.get(m.convention.name, len(rank)))
            self._measurements = ms
        return self._measurements

    @property
    def n_measurements(self) -> int:
        return len(self.variants)

    def __repr__(self) -> str:
        """``Candidate(presets ['trec_eval'], 250 topics, mean 0.3914, matches)``."""
        verdict = "matches" if self.matches else "does not match"
        who = f"presets {short_list(self.presets)}" if self.presets else \
            f"{self.n_measurements:,} measurement{'s' if self.n_measurements != 1 else ''}"
        return f"Candidate({who}, {len(self.qids):,} topics, mean {mean_text(self.mean)}, {verdict})"

    @property
    def signatures(self) -> List[str]:
        if self._signatures is None:
            self._signatures = [m.signature for m in self.measurements]
        return self._signatures

    @property
    def signature(self) -> str:
        return self.measurements[0].signature


@dataclass
class Identification:
    """What :func:`identify` found.

    Attributes
    ----------
    matches : list of Candidate
        The candidates that reproduce the reported number (presets first).
    nearest : list of Candidate
        When none does: the closest few (by matching topics, then by
        |mean difference|).
    candidates : list of Candidate
        Every distinct result evaluated.
    n_measurements : int
        Distinct measurements considered (presets and variants), equivalent ones included.
    notes : list of str
        Which fields could not change the values here, presets that could not
        be evaluated, topics missing from the run.
    rule : str
        The matching rule.
    reported : ReportedValue or PerQueryValues
    """

    matches: List[Candidate]
    nearest: List[Candidate]
    candidates: List[Candidate]
    n_measurements: int
    notes: List[str]
    reported: Any
    rule: str = MATCH_RULE

    def __repr__(self) -> str:
        """``Identification(1 match of 3,120 measurements: presets ['trec_eval', 'trec_eval_cut'])``."""
        n = len(self.matches)
        found = f"{n:,} match{'es' if n != 1 else ''} of {self.n_measurements:,} measurements"
        if self.matches:
            presets = [p for c in self.matches for p in c.presets]
            return f"Identification({found}: presets {short_list(presets)})" if presets else \
                f"Identification({found})"
        return f"Identification({found}; nearest {short_list(self.nearest[:1])})"


@dataclass
class _Props:
    """What the inputs decide about which fields can change a value."""

    has_ties: Dict[str, bool]           # per score precision
    float32_new_ties: bool
    binary_labels: bool                 # every label 0 or 1: 2**l - 1 == l
    sizes: np.ndarray                   # results per evaluated topic
    positives: Dict[str, np.ndarray]    # relevant documents in each ideal list, per source
    sources_equal: bool
    tie_choice: str = TIE_CHOICES[0]    # the tie rule evaluated when ties cannot matter


def _ties_of(scores: np.ndarray, offsets: np.ndarray) -> int:
    """Number of distinct (topic, score) pairs."""
    if scores.size == 0:
        return 0
    topic = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    order = np.lexsort((scores, topic))
    s, t = scores[order], topic[order]
    new = np.ones(s.size, dtype=bool)
    new[1:] = (s[1:] != s[:-1]) | (t[1:] != t[:-1])
    return int(new.sum())


def _positives_sorted(labels: np.ndarray, offsets: np.ndarray) -> Tuple[np.ndarray, List[bytes]]:
    lab = np.asarray(labels, dtype=np.float64)
    pos = np.add.reduceat((lab > 0).astype(np.int64), offsets[:-1]) if lab.size else np.zeros(offsets.size - 1)
    pos = np.where(np.diff(offsets) > 0, pos, 0)
    sorted_lists = [np.sort(lab[a:b][lab[a:b] > 0]).tobytes() for a, b in zip(offsets[:-1], offsets[1:])]
    return pos.astype(np.int64), sorted_lists


def _props(scores, labels, offsets, ideal_labels=None, ideal_offsets=None) -> _Props:
    scores = np.asarray(scores, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n = scores.size
    distinct = _ties_of(scores, offsets)
    with np.errstate(over="ignore"):
        f32 = scores.astype(np.float32).astype(np.float64)
    distinct32 = _ties_of(f32, offsets)
    run_pos, run_lists = _positives_sorted(labels, offsets)
    positives = {"run": run_pos}
    binary = bool(np.all((np.asarray(labels) == 0) | (np.asarray(labels) == 1)))
    equal = True
    if ideal_labels is not None:
        q_pos, q_lists = _positives_sorted(ideal_labels, np.asarray(ideal_offsets, dtype=np.int64))
        positives["qrels"] = q_pos
        equal = q_lists == run_lists
        binary = binary and bool(np.all((np.asarray(ideal_labels) == 0) | (np.asarray(ideal_labels) == 1)))
    return _Props({"native": distinct < n, "float32": distinct32 < n}, distinct32 < distinct, binary,
                  np.diff(offsets), positives, equal)


def _canonical(conv: Convention, k: Optional[int], p: _Props) -> Convention:
    """The variant evaluated for ``conv`` at cutoff ``k``: fields that cannot
    change a value on these inputs set to one choice."""
    ch: Dict[str, Any] = {}
    prec = conv.score_precision
    if prec == "float32" and not p.float32_new_ties:
        prec = ch["score_precision"] = "native"
        ch["float32_overflow"] = "error"
    if not p.has_ties[prec]:
        ch["ties"] = p.tie_choice
    if p.binary_labels:
        ch["gain"] = "linear"
    source = conv.ideal_source
    if source == "run" and p.sources_equal and "qrels" in p.positives:
        source = ch["ideal_source"] = "qrels"
    pos = p.positives[source]
    if k is None or not np.any(pos > k):
        ch["ideal"] = "cut"
    if not np.any(pos == 0):
        ch["empty"] = "zero"
    if k is None or not np.any(p.sizes < k):
        ch["short"] = "clamp"
    return conv.replace(**ch, name="custom") if ch else conv


def _grid(sources: Sequence[str], ties: Sequence[str]) -> List[Convention]:
    """Every combination of the values the fields' descriptions give identify to try (``grid``),
    with ``sources`` and ``ties`` as these inputs allow."""
    grids = [tuple(sources) if name == "ideal_source" else tuple(ties) if name == "ties" else FIELD_INFO[name].grid
             for name in _GRID_ORDER]
    out = []
    for values in itertools.product(*grids):
        ch = dict(zip(_GRID_ORDER, values))
        # float32 as the tools that store scores in float32 cast them (C's cast: +-inf beyond float32)
        out.append(Convention(**ch, float32_overflow="inf" if ch["score_precision"] == "float32" else "error"))
    return out


def _cutoffs(k: Optional[int]) -> List[Optional[int]]:
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise ValueError(f"k must be an integer >= 1 or None (the whole list); got {k!r}")
    return [int(k), None] if k is not None else [None]


def _bits(qids: np.ndarray, values: np.ndarray, mean: float) -> Tuple:
    v = np.where(np.isnan(values), np.nan, values)
    return (tuple(str(q) for q in qids), v.tobytes(), np.float64(mean).tobytes() if not math.isnan(mean) else b"nan")


class _Collector:
    """Distinct results and the variants behind each."""

    def __init__(self) -> None:
        self.by_bits: Dict[Tuple, Candidate] = {}

    def add(self, variants: List[_Variant], presets: List[str], qids, values, mean) -> None:
        key = _bits(qids, values, mean)
        c = self.by_bits.get(key)
        if c is None:
            c = self.by_bits[key] = Candidate([], np.asarray(qids), np.asarray(values, dtype=np.float64),
                                              float(mean))
        for v in variants:
            vkey = v[1:]
            if vkey not in c.variants or presets:      # a preset's convention keeps its name
                c.variants[vkey] = v
        for p in presets:
            if p not in c.presets:
                c.presets.append(p)


# ----------------------------------------------------------------------------- TREC qrels + run


def identify(qrels: Any, run: Any, *, value: Any = None, per_query: Any = None, k: Optional[int] = None,
             measure: Optional[str] = None, n_nearest: int = 5, n_threads: Optional[int] = None) -> Identification:
    """Every preset and variant of NDCG that reproduces a reported number on a TREC run.

    Parameters
    ----------
    qrels, run : paths, or :class:`~fastndcg.io.Qrels` and a run path
        The run is joined with the qrels once (:func:`fastndcg.io._joining.join_run_file`).
    value : str or float, optional
        The reported mean as printed (``"0.3914"``): its decimals set the match
        (module docstring; a float has the decimals of its shortest repr, so
        give ``"0.3910"``, not ``0.391``, for a trailing zero). Give ``value``
        or ``per_query``.
    per_query : path, optional
        Another tool's per-query output (a trec_eval ``-q`` file, pytrec_eval-style JSON or CSV
        ``qid,value``: read as ``fastndcg identify --per-query`` reads it).
    k : int, optional
        The reported cutoff (NDCG@k); the whole list is tried too. None: the
        whole list only.
    measure : str, optional
        Which measure of a per-query file with several.
    n_nearest : int
        How many nearest candidates to list when none matches.

    Returns
    -------
    Identification
    """
    from fastndcg.io._trec import Qrels
    from fastndcg.io._alignment import read_qrels_for
    from fastndcg.io._joining import join_run_file
    from fastndcg.measures._trec_measures import evaluate_trec

    reported = _reported(value, per_query, measure)
    ks = _cutoffs(k)
    if not isinstance(qrels, Qrels):
        qrels = read_qrels_for(run, qrels, n_threads)
    joined = join_run_file(run, qrels, n_threads=n_threads)
    probe = joined.aligned(missing="zero", n_threads=n_threads)
    notes: List[str] = []
    if probe.missing_qids:
        rules = ["zero", "skip"]
        shown = ", ".join(map(repr, probe.missing_qids[:5])) + (", ..." if len(probe.missing_qids) > 5 else "")
        notes.append(f"{len(probe.missing_qids)} judged topic(s) have no results ({shown}): counted as 0 "
                     "(missing:zero) or left out (missing:skip)")
    else:
        rules = ["error"]
        notes.append("no judged topic is missing from the run: missing:error, zero and skip are equivalent")
    if probe.ignored_qids:
        notes.append(f"{len(probe.ignored_qids)} run topic(s) have no judgments: ignored, as every tool does")
    col = _Collector()
    grid = _grid(SOURCE_CHOICES, TIE_CHOICES)
    for rule in rules:
        a = probe if rule == "zero" else joined.aligned(missing=rule, n_threads=n_threads)
        p = _props(a.scores, a.labels, a.offsets, a.ideal_labels, a.ideal_offsets)
        if rule == rules[0]:
            notes.extend(_field_notes(p, k))
        equivalent_rules = ["error", "zero", "skip"] if rule == "error" else [rule]

        def evaluate(ms: List[Measurement]):
            r = evaluate_trec(joined, qrels, ms, n_threads=n_threads)
            return [(r.qids, r.values[:, j], float(r.means[j])) for j in range(len(ms))]

        _evaluate_all(col, grid, ks, p, evaluate, equivalent_rules, notes, tie_keys=True)
    return _finish(col, reported, n_nearest, notes)


def _field_notes(p: _Props, k: Optional[int]) -> List[str]:
    notes = []
    if not p.has_ties["native"] and not p.has_ties["float32"]:
        notes.append("no two results of a topic have the same score: the tie rules are equivalent")
    elif not p.has_ties["native"]:
        notes.append("no tied scores in double precision (ties arise only in float32)")
    if not p.float32_new_ties:
        notes.append("float32 scores make no new tie: score precision native and float32 are equivalent")
    if p.binary_labels:
        notes.append("every label is 0 or 1: gains exp (2**l - 1) and lin (l) are equivalent")
    if k is not None and not np.any(p.sizes < k):
        notes.append(f"every topic has at least {k} results: short:clamp and short:zero are equivalent")
    if "qrels" in p.positives and p.sources_equal:
        notes.append("every judged relevant document is retrieved: ideal from qrels and from run are equivalent")
    return notes


def _evaluate_all(col: _Collector, grid: List[Convention], ks: List[Optional[int]], p: _Props, evaluate,
                  rules: List[str], notes: List[str], tie_keys: bool) -> None:
    """Evaluate the grid's distinct variants and every preset; ``evaluate(measurements)``
    returns (qids, values, mean) of each, all under ``rules[0]``."""
    rule = rules[0]
    # the grid: one evaluation per canonical variant, its equivalents listed with it
    todo: Dict[Tuple, Tuple[Measurement, List[_Variant]]] = {}
    for k in ks:
        for conv in grid:
            canon = _variant(_canonical(conv, k, p), k, rule)
            if canon[1:] not in todo:
                todo[canon[1:]] = (Measurement("ndcg", k, canon[0], missing=rule), [])
            todo[canon[1:]][1].extend(_variant(conv, k, r) for r in rules)
    reps = [rep for rep, _ in todo.values()]
    try:
        results = evaluate(reps)
    except (ValueError, TypeError):
        results = []
        refused: Dict[str, int] = {}
        for m, (_, variants) in zip(reps, todo.values()):
            try:
                results.extend(evaluate([m]))
            except (ValueError, TypeError) as exc:      # e.g. gain 2**l - 1 of a label that is no integer
                refused[str(exc)] = refused.get(str(exc), 0) + len(variants)
                results.append(None)
        notes.extend(f"{n} variant(s) cannot evaluate these inputs: {msg}" for msg, n in refused.items())
    for (_, variants), res in zip(todo.values(), results):
        if res is not None:
            col.add(variants, [], *res)
    # presets: each alone (a preset's gain table may refuse these labels)
    refused_by: Dict[str, List[str]] = {}
    dropped: Dict[str, List[str]] = {}
    for name, preset in PRESETS.items():
        conv = preset
        if not tie_keys and conv.uses_tie_key:
            prec = conv.score_precision
            if p.has_ties["native" if prec == "native" or not p.float32_new_ties else "float32"]:
                refused_by.setdefault("they break ties by docno: tied scores here, and the data has no docnos",
                                      []).append(name)
                continue
            conv = conv.replace(ties="stable", name=name)     # no tie: its docno rule changes nothing
        outside: Dict[Tuple[str, Tuple[float, ...], str], list] = {}
        for k in ks:
            # identify tries presets the user did not choose: labels a preset's gain table lacks
            # are a note on that preset (from its first evaluation), not a warning
            with gathered_label_warnings(tell=False) as gathered:
                try:
                    res = evaluate([measurement_for(k, convention=conv, missing=rule)])[0]
                except (ValueError, TypeError) as exc:
                    refused_by.setdefault(str(exc), []).append(name)
                    break
            outside = outside or gathered
            col.add([_variant(conv, k, r) for r in rules], [name], *res)
        if outside:
            count, n_docs, found = next(iter(outside.values()))
            shown = ", ".join(str(int(v)) if float(v).is_integer() else str(v) for v in sorted(found))
            dropped.setdefault(f"labels {shown}: {count} of {n_docs} documents", []).append(name)
    notes.extend(f"presets that cannot evaluate these inputs: {', '.join(names)} ({msg})"
                 for msg, names in refused_by.items())
    notes.extend(f"presets that give labels outside their gain table gain 0 on these inputs: {', '.join(names)} "
                 f"({what})" for what, names in dropped.items())

# ----------------------------------------------------------------------------- data + predictions


def identify_data(data: Any, predictions: Any, *, value: Any = None, per_query: Any = None,
                  k: Optional[int] = None, measure: Optional[str] = None, group: Any = None,
                  prediction_column: Optional[int] = None, n_nearest: int = 5,
                  n_threads: Optional[int] = None) -> Identification:
    """:func:`identify` for SVMlight/LETOR data and a prediction file (one score per line).

    Arrays have no docnos and no external judgments: the ideal list is each
    query's own (``ideal:...,run``), the tie rules ``key``/``key_desc`` are not
    tried (presets with them only when no two scores of a query are equal, where
    their rule changes nothing), and there is no missing-topic rule.
    ``group``: a query-size file for data without ``qid:`` (default DATA.query
    or DATA.group when present). Other parameters as :func:`identify`.
    """
    from fastndcg._core.prepared import NDCGScorer
    from fastndcg.io._numbers import read_predictions
    from fastndcg.io._svmlight import read_svmlight
    from fastndcg.io._svmlight import group_file_for

    reported = _reported(value, per_query, measure)
    ks = _cutoffs(k)
    g = group_file_for(data, group, choose="group=")
    d = read_svmlight(data, group=False if g is None else g)
    if d.offsets is None:
        raise ValueError(f"{data}: the file has no qid: fields and no group file was found; give group=")
    labels = d.grouped(d.labels)
    if np.all(labels == np.floor(labels)):
        labels = labels.astype(np.int64)
    scores = d.grouped(read_predictions(predictions, n=d.n_rows, column=prediction_column,
                                                data_path=os.fspath(data)))
    offsets = d.offsets
    qids = np.array([str(q) for q in d.query_ids], dtype=object) if d.query_ids is not None else \
        np.array([str(i + 1) for i in range(offsets.size - 1)], dtype=object)
    p = dataclasses.replace(_props(scores, labels, offsets), tie_choice="stable")
    notes = _field_notes(p, k)
    notes.append("data + predictions: the ideal list is each query's own (no external judgments), no docnos "
                 "(tie rules key and key_desc not tried), no missing topics")

    def evaluate(ms: List[Measurement]):
        out = []
        for m in ms:
            scorer = NDCGScorer(labels, offsets, m.cutoff, convention=m.convention, n_threads=n_threads)
            per, mean = scorer.evaluate(scores, n_threads=n_threads)
            out.append((qids, np.asarray(per, dtype=np.float64).reshape(-1), float(np.asarray(mean).reshape(-1)[0])))
        return out

    col = _Collector()
    grid = _grid(("run",), tuple(t for t in TIE_CHOICES if t not in ("key", "key_desc")))
    _evaluate_all(col, grid, ks, p, evaluate, ["error"], notes, tie_keys=False)
    return _finish(col, reported, n_nearest, notes)


# ----------------------------------------------------------------------------- matching


def _reported(value: Any, per_query: Any, measure: Optional[str]) -> Any:
    if (value is None) == (per_query is None):
        raise ValueError("give value= (a reported mean as printed, e.g. '0.3914') or per_query= (a per-query "
                         "file), one of them")
    if value is not None:
        return value if isinstance(value, ReportedValue) else parse_reported_value(value, "value")
    return per_query if isinstance(per_query, PerQueryValues) else read_per_query(per_query, measure)


def _match(c: Candidate, reported: Any) -> None:
    if isinstance(reported, ReportedValue):
        c.difference = c.mean - reported.value
        c.matches = reported.matches(c.mean)
        return
    mine = {str(q): float(v) for q, v in zip(c.qids, c.values)}
    matching = 0
    first = ""
    for qid, rv in reported.values.items():
        got = mine.get(qid)
        if got is not None and rv.matches(got):
            matching += 1
        elif not first:
            first = (f"{rv.where}: query {qid!r} is {rv.text}, " +
                     (f"computed {got:.{rv.decimals + 2}f}" if got is not None and not math.isnan(got)
                      else "left out (NaN)" if got is not None else "not evaluated"))
    extra = [q for q, v in mine.items() if q not in reported.values and not math.isnan(v)]
    c.matching_queries = matching
    ok = matching == len(reported.values)
    if reported.mean is not None:
        c.difference = c.mean - reported.mean.value
        if not reported.mean.matches(c.mean):
            ok = False
            first = first or f"{reported.mean.where}: the mean is {reported.mean.text}, computed {c.mean:.6f}"
    elif extra and ok:
        # a topic the file does not have can only be one the candidate counted as missing (0)
        ok = all(v == 0.0 for q, v in mine.items() if q in extra)
        if not ok:
            first = f"{reported.path}: has no line for query {extra[0]!r} (computed {mine[extra[0]]:.6f})"
    c.matches = ok
    c.first_mismatch = "" if ok else first


def _finish(col: _Collector, reported: Any, n_nearest: int, notes: List[str]) -> Identification:
    cands = list(col.by_bits.values())
    for c in cands:
        _match(c, reported)
    cands.sort(key=lambda c: (not c.presets, -len(c.presets)))
    matches = [c for c in cands if c.matches]
    nearest: List[Candidate] = []
    if not matches:
        def distance(c: Candidate):
            d = abs(c.difference) if not math.isnan(c.difference) else math.inf
            return (-c.matching_queries, d)
        nearest = sorted(cands, key=distance)[:max(0, int(n_nearest))]
    return Identification(matches, nearest, cands, sum(c.n_measurements for c in cands), notes, reported)
