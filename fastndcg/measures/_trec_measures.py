"""trec_eval's NDCG family and ir_measures' nDCG on a TREC run and qrels.

:func:`evaluate_trec` computes any list of measures (:mod:`fastndcg.measures._measure_strings`)
for the topics of a run and qrels, per topic and averaged:

* trec_eval 10 (usnistgov/trec_eval f4253652): ``ndcg`` (``ndcg.L=G``),
  ``ndcg_cut.k``, ``ndcg_rel``, ``Rndcg``, ``dcg``, ``ideal_dcg`` (all but
  ``ndcg_cut`` take custom gains) and ``ndcg_p`` (in trec_eval's source, not
  in its measure table), with trec_eval's options ``-c`` (``missing="zero"``:
  a judged topic without results is ranked as one unjudged document), ``-M``
  (``max_docs``), ``-J`` (``judged_only``: documents without a judgment >= 0
  are removed from the ranking, the others move up) and ``-l``
  (``relevance_level``, which ``Rndcg`` and ``ndcg_p`` read). The rules are
  written out in :mod:`fastndcg.reference._trec_ndcg` (the pure-Python spec) and
  :mod:`fastndcg.measures` (custom gains: ``GainSpec``, ``GainScorer``) (custom gains). ``convention="pytrec_eval"`` gives
  trec_eval 9 as pytrec_eval bundles it: scores rounded to float32, and a
  topic missing from the run is not ranked (it scores 0 with ``-c``).
* ir_measures' ``nDCG`` (ir-measures 0.4.3), as its default providers
  compute it: ``dcg='log2'`` through pytrec_eval (``nDCG`` is ``ndcg``,
  ``nDCG@k`` is ``ndcg_cut.k``, ``gains={...}`` maps the judgments first,
  ``judged_only=True`` is ``-J``); ``dcg='exp-log2'`` with a cutoff through
  gdeval (gain 2**rel - 1, ideal from the judgments cut at k, ties by docno
  descending; gdeval prints 5 decimals), without one through ranx
  (``ndcg_burges``: the same with the ideal not cut; ranx breaks ties by
  numba's quicksort order, fastndcg by docno descending). ir_measures scores
  judged topics missing from the run 0 (``missing="zero"``).

Per-topic values come from the NDCG kernels (:class:`fastndcg.NDCGScorer`,
:class:`fastndcg.measures._trec_gain_scoring.GainScorer`) and, for the measures that read
NDCG at several depths of one ranking (``ndcg_rel``, ``Rndcg``, ``ndcg_p``),
from the ``_trec_ndcg`` kernel; every mean is the package's exact aggregate
(:func:`fastndcg._core.prepared.aggregate`): the plain mean over the evaluated
topics (trec_eval: sum / number of topics), NaN when a topic's value is NaN
(trec_eval's ``Rndcg`` with custom gains that leave no positive ideal gain).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from fastndcg._core import _trec_ndcg
from fastndcg.conventions._topics import DEFAULT_MISSING
from fastndcg.conventions._convention import Convention
from fastndcg._core.plan import kernel_plan
from fastndcg._core.resolve import TIE_CODES, resolve
from fastndcg._core.prepared import NDCGScorer, aggregate
from fastndcg._core.query_checks import max_query_size
from fastndcg.measures._trec_gain_levels import gain_entries, ndcg_p_gains
from fastndcg._core.summary import summary_repr
from fastndcg._core.threads import threads_for
from fastndcg._core.score_checks import check_scores, overflow_at_file_lines
from fastndcg.measures._measure_strings import Measure
from fastndcg.measures._measurement import ARRAY_FAMILIES, RANKS_MISSING_ALIKE, Measurement, resolve_measurements
from fastndcg.measures._trec_gain_scoring import GainScorer, bogus_ranking
from fastndcg.measures._trec_gain_specs import GainSpec
from fastndcg.measures._trec_gain_resolution import resolve_trec_gains, warn_quirks

__all__ = ["TrecResult", "evaluate_trec", "RULES"]

#: ``rules`` of the trec_eval-syntax measures: trec_eval 10, or trec_eval 9 as pytrec_eval bundles it.
RULES = ("trec_eval", "pytrec_eval")
_NO_GAINS = GainSpec((), "")


@dataclass
class TrecResult:
    """Per-topic values and means of measures on one run.

    Attributes
    ----------
    measures : list of Measure
    qids : object array of str (n_topics,)
        The evaluated topics, in trec_eval's order (bytewise).
    values : float64 (n_topics, n_measures)
    means : float64 (n_measures,)
        The mean over the evaluated topics (NaN when a value is NaN or there
        is no topic).
    run_name : str
        The run's tag (its last line's, as trec_eval's ``runid``).
    missing_qids, ignored_qids : list of str
        Judged topics without results; run topics without judgments (ignored).
    """

    measures: List[Measure]
    qids: np.ndarray
    values: np.ndarray
    means: np.ndarray
    run_name: str = ""
    missing_qids: List[str] = field(default_factory=list)
    ignored_qids: List[str] = field(default_factory=list)
    #: what each column computes (:class:`fastndcg.Measurement`)
    measurements: List[Measurement] = field(default_factory=list)

    @property
    def names(self) -> List[str]:
        return [m.name for m in self.measures]

    def __repr__(self) -> str:
        return summary_repr("TrecResult", self.names, len(self.qids), self.means.tolist(), self.run_name,
                            self.missing_qids, self.ignored_qids)


@dataclass
class _Topics:
    """The ranked documents of the evaluated topics (CSR), after -M, the bogus
    ranking of trec_eval 10's -c and -J; and every judgment of each topic."""

    scores: np.ndarray
    labels: np.ndarray        # gain levels: judgment >= 0, else 0
    tie_key: np.ndarray
    offsets: np.ndarray
    judged: np.ndarray        # every judgment (below 0 as -2)
    judged_offsets: np.ndarray
    status: Optional[np.ndarray] = None     # AlignedRun.status (0, -1, -2); None: every document judged >= 0
    _levels: Optional[np.ndarray] = None
    #: each document's row in the AlignedRun (-J drops rows); None: the same rows
    rows: Optional[np.ndarray] = None

    @property
    def levels(self) -> np.ndarray:
        """trec_eval levels: judgment >= 0, -1 not in the qrels, -2 judged below 0
        (built when a measure needs them: custom gains, the prefix measures)."""
        if self._levels is None:
            lab = self.labels.astype(np.int64, copy=False)
            self._levels = lab if self.status is None else np.where(self.status < 0, self.status, lab).astype(np.int64)
        return self._levels

    @property
    def ideal_labels(self) -> np.ndarray:
        return np.maximum(self.judged, 0)




def evaluate_trec(run: Any, qrels: Any, measures: Any, *, convention: Any = "trec_eval", missing: Optional[str] = None,
                  max_docs: Optional[int] = None, judged_only: bool = False, relevance_level: int = 1,
                  n_threads: Optional[int] = None, consume_run: bool = False) -> TrecResult:
    """Measures of trec_eval's NDCG family and ir_measures' nDCG on a run.

    Parameters
    ----------
    run, qrels : :class:`fastndcg.io.Run` / :class:`~fastndcg.io.Qrels` or paths
        A run path is joined with the qrels while it is read
        (:func:`fastndcg.io._joining.join_run_file`); a
        :class:`fastndcg.io._joined_runs.JoinedRun` (joined with these ``qrels``) is
        used as it is.
    measures : str, Measure or a list of them
        trec_eval or ir_measures syntax (:func:`fastndcg.measures.parse_measures`).
    convention : Convention or preset name, default "trec_eval"
        For the trec_eval-syntax measures: ``"trec_eval"`` (trec_eval 10), or
        ``"pytrec_eval"`` (trec_eval 9 as pytrec_eval bundles it: scores rounded
        to float32; a topic missing from the run is not ranked), or a convention
        with their fields. ir_measures-syntax measures follow ir_measures'
        providers whatever this is.
    missing : {"error", "zero", "skip"}
        Judged topics without results (:func:`fastndcg.io.align_run`):
        an error (trec_eval 10 without ``-c``), evaluated (``-c``; 0 for
        every NDCG measure unless custom gains give level -1 a gain), or left
        out. ir_measures counts them: ``"zero"``.
    max_docs : int, optional
        trec_eval's ``-M``: the top ``max_docs`` results of each topic.
    judged_only : bool
        trec_eval's ``-J`` for every measure: retrieved documents without a
        judgment >= 0 are removed before ranking positions are counted
        (Sakai's condensed lists). A measure's own ``judged_only`` (ir_measures)
        applies to it alone.
    relevance_level : int
        trec_eval's ``-l``: ``Rndcg`` is 0 for a topic without a judged
        document at or above it; ``ndcg_p`` is 0 for a topic without a
        retrieved one.
    n_threads : int, optional
    consume_run : bool
        A :class:`fastndcg.io._joined_runs.JoinedRun` given as ``run`` is freed as
        it is evaluated (``JoinedRun.aligned(consume=True)``: a peak of about
        25 bytes a result instead of 41); it cannot be evaluated again. A run
        given as a path is always joined, and freed, here.

    Returns
    -------
    TrecResult
        Per-topic values (n_topics, n_measures) and means. For one topic,
        DCG = sum_r g_r / log2(r + 1) over its ranking (score descending,
        ties by docno descending), NDCG = DCG / IDCG with the ideal from every
        judgment of the topic (0 when the ideal is 0); the other measures as
        :mod:`fastndcg.reference._trec_ndcg` defines them.
    """
    ms, topic_rule = _measurements(measures, convention, missing, max_docs, judged_only, relevance_level)
    top = top_rows_read(ms)
    qrels, joined, consume_run = _qrels_and_joined_run(run, qrels, n_threads, consume_run, top)
    columns, first = _evaluate_groups(ms, run, qrels, joined, topic_rule, consume_run, n_threads, top)
    nq = first.n_queries
    values = np.empty((nq, len(ms)), dtype=np.float64)
    means = np.empty(len(ms), dtype=np.float64)
    for j in range(len(ms)):
        values[:, j], means[j] = columns[j]
    return TrecResult([m.key for m in ms], first.qids, values, means, first.run_name, list(first.missing_qids),
                      list(first.ignored_qids), measurements=ms)


def _measurements(measures: Any, convention: Any, missing: Optional[str], max_docs: Optional[int],
                  judged_only: bool, relevance_level: int) -> Tuple[List[Measurement], str]:
    """The measurements asked for (two printed under one name are named by their signature)
    and their one rule for missing topics."""
    ms = resolve_measurements(measures, convention=convention, missing=missing, max_docs=max_docs, judged_only=judged_only,
                              relevance_level=relevance_level)
    on_arrays = [m for m in ms if m.family in ARRAY_FAMILIES]
    if on_arrays:
        raise ValueError(f"measures: {on_arrays[0].head} is computed on arrays (fastndcg.soft_ndcg / "
                         "fastndcg.rankdcg, with measurement=), not on qrels and a run")
    labels = [m.label for m in ms]
    # two different measurements printed under one name (signatures share their heads): named by the signature
    ms = [m.replace(name=m.signature) if labels.count(m.label) > 1 else m for m in ms]
    rules_of_topics = {m.missing for m in ms}
    if len(rules_of_topics) > 1:
        raise ValueError(f"measures: one call evaluates one set of topics; these measurements differ in the rule "
                         f"for missing topics ({', '.join(sorted(rules_of_topics))}): evaluate them separately")
    return ms, ms[0].missing


def _qrels_and_joined_run(run: Any, qrels: Any, n_threads: Optional[int], consume_run: bool,
                          top: Any) -> Tuple[Any, Any, bool]:
    """The qrels (read if a path), the run joined with them (None for a :class:`Run` in
    memory; a path is joined while it is read, keeping each topic's ``top`` rows when the
    measures read no more (:func:`top_rows_read`), and then always freed) and whether to free it."""
    from fastndcg.io._trec import Qrels, Run
    from fastndcg.io._alignment import read_qrels_for
    from fastndcg.io._joined_runs import JoinedRun
    from fastndcg.io._joining import join_run_file

    if not isinstance(qrels, Qrels):
        qrels = read_qrels_for(run, qrels, n_threads)
    joined: Optional[JoinedRun] = None
    if isinstance(run, JoinedRun):
        if run.qrels is not qrels:
            raise ValueError("run: a JoinedRun is evaluated against the qrels it was joined with (run.qrels)")
        joined = run
    elif not isinstance(run, Run):
        joined = join_run_file(run, qrels, n_threads=n_threads, top=top)   # a path: joined while it is read
        consume_run = True
    return qrels, joined, consume_run


def _evaluate_groups(ms: List[Measurement], run: Any, qrels: Any, joined: Any, topic_rule: str, consume_run: bool,
                     n_threads: Optional[int], top: Any) -> Tuple[Dict[int, Tuple[np.ndarray, float]], Any]:
    """Each measurement's (per-topic values, mean), by index, computed a group at a time (one
    group: the measurements that share their relabelling, convention, -J, -M and -l) on
    the run aligned once per alignment they need; and the first alignment (its topics are
    the result's)."""
    from fastndcg.io._joining import align_run
    from fastndcg.io._row_lines import at_file_lines

    aligned: Dict[Tuple, Any] = {}
    columns: Dict[int, Tuple[np.ndarray, float]] = {}
    groups: Dict[Tuple, List[int]] = {}
    for j, m in enumerate(ms):
        groups.setdefault((m.relabel, m.convention.fields_key(), m.judged_only, m.max_docs, m.relevance_level),
                          []).append(j)
    def align_key(m: Measurement) -> Tuple:
        return m.relabel, m.convention.score_precision == "float32" and m.max_docs is not None, m.max_docs

    last_akey = list(dict.fromkeys(align_key(ms[idx[0]]) for idx in groups.values()))[-1]
    first = None
    for (relabel, _, jo, m_docs, level), idx in groups.items():
        conv = ms[idx[0]].convention
        akey = align_key(ms[idx[0]])
        f32 = akey[1]
        if akey not in aligned:
            q = qrels if relabel is None else _relabel(qrels, relabel)
            if joined is not None:      # the last alignment may free the joined run
                aligned[akey] = joined.aligned(missing=topic_rule, max_docs=m_docs, float32_scores=f32,
                                               relevance=q.relevance, n_threads=n_threads,
                                               consume=consume_run and akey == last_akey, top=top)
            else:
                aligned[akey] = align_run(run, q, missing=topic_rule, max_docs=m_docs, float32_scores=f32,
                                                  n_threads=n_threads)
        a = aligned[akey]
        if first is None:
            first = a
        group = [ms[j] for j in idx]
        plain = all(m.gains is None and m.family in RANKS_MISSING_ALIKE for m in group)
        bogus = conv.missing_ranking == "unjudged" and topic_rule == "zero" and not plain
        topics = _topics(a, bogus=bogus, judged_only=jo)
        if bogus or a.score_lines is None:      # (bogus: rows of their own)
            cols = _group_columns(topics, group, conv, level, n_threads)
        else:
            # a score beyond float32 (warned about or refused) is named by its run file line
            rows = topics.rows
            line_of = a.score_line if rows is None else (lambda i: a.score_line(int(rows[i])))
            with at_file_lines({"scores": (a.run_path, line_of)}), overflow_at_file_lines(a.run_path, line_of):
                cols = _group_columns(topics, group, conv, level, n_threads)
        for j, col in zip(idx, cols):
            columns[j] = col
    assert first is not None      # at least one run was aligned
    return columns, first


def top_rows_read(ms: List[Measurement]) -> Optional[Any]:
    """The top of each topic's ranking that is all these measurements read of a run
    (:class:`fastndcg.io._alignment.TopRows`), or None when one reads more.

    NDCG@k without custom gains or ``-J``/``-M``, its ideal from the qrels, ranked
    by a strict order (tie rules ``stable``, ``key``, ``key_desc``): its value is a
    function of the top k rows by that order (DCG@k), the qrels (the ideal, so also
    ``empty``) and whether the topic has fewer than k rows (``short``), which the top
    ``max(k)`` rows keep. A gain table that refuses labels outside it reads every
    row's label, so it places every row. Every measurement must rank alike (tie rule,
    float32 scores); the rest of a topic then need not be placed."""
    from fastndcg.io._alignment import TopRows

    orders = set()
    depth = 0
    for m in ms:
        c = m.convention
        res = resolve(c)        # the kernels' comparator: tie rule, key direction, float32 scores
        if (m.family != "ndcg" or m.gains is not None or m.cutoff is None or m.judged_only or m.max_docs is not None
                or c.ideal_source != "qrels" or res.tie_code != TIE_CODES["stable"] or res.tie_by_gain
                or (c.gain_is_table and c.unknown_label == "error")):
            return None
        key_order = (-1 if res.key_desc else 1) if c.uses_tie_key else 0
        orders.add((key_order, res.round_f32))
        depth = max(depth, m.cutoff)
    if len(orders) != 1:
        return None
    key_order, round_f32 = orders.pop()
    return TopRows(depth, key_order, round_f32)


def _relabel(qrels: Any, relabel: Tuple[Tuple[int, int], ...]) -> Any:
    """ir_measures' ``gains={...}``: each judgment r becomes gains.get(r, r)."""
    rel = qrels.relevance
    out = rel.copy()
    for k, v in relabel:
        out[rel == k] = v
    return dataclasses.replace(qrels, relevance=out)


def _topics(a: Any, bogus: bool, judged_only: bool) -> _Topics:
    """The ranked documents of one group of measures. ``bogus``: trec_eval 10's
    ``-c`` ranking of topics without results (:func:`bogus_ranking`); a group of
    plain measures leaves it out (the caller): the bogus document has level -1,
    gain 0, and the scorer gives an empty topic 0 as well (the presets'
    ``empty="zero"``, counted in the mean), so every value is the same."""
    scores, labels, status, tie_key, offsets = a.scores, a.labels, a.status, a.tie_key, a.offsets
    levels = None
    rows = None
    if bogus:
        scores, levels, tie_key, offsets = bogus_ranking(scores, a.trec_levels(), tie_key, offsets)
        labels, status = np.maximum(levels, 0), None
    if judged_only:
        keep = (levels >= 0) if levels is not None else (status == 0) if status is not None else None
        if keep is not None and not keep.all():
            kept_before = np.zeros(keep.shape[0] + 1, dtype=np.int64)   # documents kept before each row
            np.cumsum(keep, out=kept_before[1:])
            offsets = kept_before[offsets]      # empty topics anywhere, the last ones included
            scores, labels, tie_key = scores[keep], labels[keep], tie_key[keep]
            rows = None if bogus else np.flatnonzero(keep)
            levels = levels[keep] if levels is not None else None
            status = status[keep] if status is not None else None
    return _Topics(np.ascontiguousarray(scores, dtype=np.float64), np.ascontiguousarray(labels),
                   np.ascontiguousarray(tie_key, dtype=np.int64), np.ascontiguousarray(offsets, dtype=np.int64),
                   np.ascontiguousarray(a.trec_judged(), dtype=np.int64),
                   np.ascontiguousarray(a.ideal_offsets, dtype=np.int64), status, levels, rows)


def _mean(values: np.ndarray) -> float:
    """The package's exact mean (trec_eval's sum / number of topics); NaN if any value is."""
    if values.size == 0:
        return float("nan")
    nan = np.isnan(values)
    if nan.any():
        return float(values[nan][0])     # trec_eval's sum propagates the first NaN, sign included
    if np.isinf(values).any():
        # a quirky gain set can give a topic an infinite value: trec_eval's sum
        # in topic order (inf, or NaN for inf - inf), divided by the topic count
        total = 0.0
        for v in values.tolist():
            total += v
        return total / values.size
    return float(aggregate(values, np.ones_like(values), Convention(), True))


def _group_columns(t: _Topics, ms: List[Measurement], base: Convention, relevance_level: int,
                   n_threads: Optional[int]) -> List[Tuple[np.ndarray, float]]:
    """(per-topic values, mean) of each measurement of one group (same topics, same convention)."""
    out: List[Optional[Tuple[np.ndarray, float]]] = [None] * len(ms)
    round_f32 = base.score_precision == "float32"
    # pytrec_eval's float32 cast makes a score beyond float32 +-inf: checked
    # (and warned about) once here, then every kernel ranks the infinities
    checked = check_scores(t.scores, t.offsets, float32="the rules' float32 scores" if round_f32 else None,
                           n_threads=threads_for(t.scores.shape[0], n_threads),
                           overflow_inf=base.float32_overflow == "inf")
    t = dataclasses.replace(t, scores=np.ascontiguousarray(checked, dtype=np.float64))

    # NDCG at cutoffs without custom gains: one scorer, one kernel pass
    plain = [i for i, m in enumerate(ms) if m.gains is None and m.family == "ndcg"]
    if plain:
        ks = sorted({ms[i].cutoff for i in plain}, key=lambda k: (k is None, k or 0))
        ideal = dict(ideal_labels=t.ideal_labels, ideal_offsets=t.judged_offsets) \
            if base.ideal_source == "qrels" else {}
        scorer = NDCGScorer(t.labels, t.offsets, ks, convention=base,
                            tie_key=t.tie_key if base.uses_tie_key else None, n_threads=n_threads, **ideal)
        per, mean = scorer.evaluate(t.scores, n_threads=n_threads)
        per = np.asarray(per).reshape(-1, len(ks))
        mean = np.atleast_1d(mean)
        for i in plain:
            c = ks.index(ms[i].cutoff)
            out[i] = (per[:, c].copy(), float(mean[c]))

    # dcg / ideal_dcg without gains: the trec_eval convention's full ideal
    simple = [i for i, m in enumerate(ms) if m.gains is None and m.family in ("dcg", "ideal_dcg")]
    if simple:
        scorer = NDCGScorer(t.labels, t.offsets, None, convention=base, tie_key=t.tie_key,
                            ideal_labels=t.ideal_labels, ideal_offsets=t.judged_offsets, n_threads=n_threads)
        for i in simple:
            v = scorer.dcg(t.scores, n_threads=n_threads) if ms[i].family == "dcg" else scorer.ideal_dcg
            v = np.asarray(v, dtype=np.float64)
            out[i] = (v, _mean(v))

    # custom gains and the prefix measures: trec_eval's resolution, per gain set
    rest = [i for i, m in enumerate(ms) if out[i] is None]
    by_spec: Dict[Any, List[int]] = {}
    for i in rest:
        given = ms[i].gains
        spec = given if given is not None else _NO_GAINS
        by_spec.setdefault(spec.pairs, []).append(i)
    for _, idx in by_spec.items():
        given = ms[idx[0]].gains
        spec = given if given is not None else _NO_GAINS
        res = resolve_trec_gains(spec, t.levels, t.offsets, t.judged, t.judged_offsets, base, n_threads)
        if spec.pairs and any(ms[i].family in ("ndcg", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg") for i in idx):
            # the caller's line: warn_quirks, _group_columns, _evaluate_groups, evaluate_trec, the caller
            warn_quirks(res.quirks, spec, stacklevel=5)
        fams = {ms[i].family for i in idx}
        gscorers: Dict[Optional[int], GainScorer] = {}

        def gain_scorer(k: Optional[int]) -> GainScorer:
            # NDCG@k with custom gains (no trec_eval measure): the top k over the whole list's ideal
            if k not in gscorers:
                gscorers[k] = GainScorer(res.doc_gains, t.offsets, k, convention=base, ideal_dcg=res.ideal_dcg,
                                         n_threads=n_threads)
            return gscorers[k]
        prefix = {}
        if fams & {"ndcg_rel", "Rndcg", "ndcg_p"}:
            prefix = _prefix(t, res, spec, fams, base, relevance_level, n_threads)
        for i in idx:
            fam = ms[i].family
            if fam == "ndcg":
                per, mean = gain_scorer(ms[i].cutoff).evaluate(t.scores, tie_key=t.tie_key, n_threads=n_threads)
                out[i] = (np.asarray(per, dtype=np.float64).reshape(-1), float(np.asarray(mean).reshape(-1)[0]))
            elif fam == "dcg":
                v = np.asarray(gain_scorer(None).dcg(t.scores, tie_key=t.tie_key, n_threads=n_threads), dtype=np.float64)
                out[i] = (v, _mean(v))
            elif fam == "ideal_dcg":
                v = np.asarray(res.ideal_dcg, dtype=np.float64).copy()
                out[i] = (v, _mean(v))
            else:
                v = prefix[fam]
                out[i] = (v, _mean(v))
    return out   # type: ignore[return-value]


def _prefix(t: _Topics, res: Any, spec: GainSpec, fams: set, base: Convention, relevance_level: int,
            n_threads: Optional[int]) -> Dict[str, np.ndarray]:
    """ndcg_rel, Rndcg, ndcg_p from the ``_trec_ndcg`` kernel."""
    nq = t.offsets.shape[0] - 1
    jt = np.repeat(np.arange(nq, dtype=np.int64), np.diff(t.judged_offsets))
    rl = max(int(relevance_level), 0)
    n_rel = np.bincount(jt[t.judged >= rl], minlength=nq).astype(np.int64)
    dt = np.repeat(np.arange(nq, dtype=np.int64), np.diff(t.offsets))
    rel_ret = np.bincount(dt[t.levels >= rl], minlength=nq).astype(np.int64)
    if "ndcg_p" in fams:
        walk_p, walk_p_off = _walks_p(spec, t.judged, t.judged_offsets)
    else:
        walk_p, walk_p_off = np.zeros(0), np.zeros(nq + 1, dtype=np.int64)
    # each family asked for gets a column; the others an empty array (not computed)
    outs = {f: np.zeros(nq if f in fams else 0, dtype=np.float64) for f in ("ndcg_rel", "Rndcg", "ndcg_p")}
    # the convention is trec_eval's (the measures refuse another): docnos descending, its float32 rule
    plan = kernel_plan(base, max_query_size(t.offsets), [None], depth=1)
    topics = _trec_ndcg.PrefixTopics(plan.compiled(), t.scores, t.tie_key,
                                     np.ascontiguousarray(res.doc_gains, dtype=np.float64), t.offsets)
    topics.set_walks(np.ascontiguousarray(res.ideal_gains, dtype=np.float64),
                     np.ascontiguousarray(res.ideal_offsets, dtype=np.int64),
                     np.ascontiguousarray(walk_p, dtype=np.float64), np.ascontiguousarray(walk_p_off, dtype=np.int64),
                     n_rel, rel_ret)
    failed = _trec_ndcg.prefix_measures(topics, outs["ndcg_rel"], outs["Rndcg"], outs["ndcg_p"],
                                        threads_for(int(t.offsets[-1]) * 8, n_threads))
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread scratch")
    return outs


def _walks_p(spec: GainSpec, judged: np.ndarray, joff: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``ndcg_p``'s ideal walk of each topic (CSR), by the reference's rule."""
    nq = joff.shape[0] - 1
    gains: List[float] = []
    off = np.zeros(nq + 1, dtype=np.int64)
    cache: Dict[Tuple[int, ...], List[float]] = {}
    for q in range(nq):
        j = judged[joff[q]:joff[q + 1]]
        j = j[j >= 0]
        counts = tuple(np.bincount(j).tolist()) if j.size else ()
        w = cache.get(counts)
        if w is None:
            w = cache[counts] = ndcg_p_gains(gain_entries(spec.pairs, list(counts)))
        gains.extend(w)
        off[q + 1] = len(gains)
    return np.asarray(gains, dtype=np.float64), off
