"""Computing a comparison (:func:`fastndcg.compare`): one system's inputs (:class:`RunData`),
checked once; the diagnostics (ties, gains, the ideal's source); every system under every preset
through the prepared-queries layer and its exact aggregate; and the views derived from the numbers
(spread, rankings, flips, NDCG curves). Rendering them (text, JSON, CSV, plot) is
``_compare_render``'s job: this module never imports it."""
from __future__ import annotations
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np

from fastndcg._core.prepared import NDCGScorer, exact_column_sums
from fastndcg._core.resolve import label_gains
from fastndcg._core.query_checks import distinct_cutoffs, gathered_label_warnings
from fastndcg._core.score_checks import overflow_at_file_lines
from fastndcg.conventions._convention import PRESETS, Convention
from fastndcg.conventions._presets import STANDARD, list_presets, unknown_preset_message
from fastndcg.conventions._topics import DEFAULT_MISSING
from fastndcg.measures._ndcg import mean_ndcg
from fastndcg.report._format import qid_json

ArrayLike = Any
Cutoff = Optional[int]

#: Ideal sources: the run's own list, or external judgments (qrels).
IDEAL_CHOICES = ("auto", "qrels", "run")


def measure_name(k: Cutoff) -> str:
    return "ndcg" if k is None else f"ndcg@{k}"


@dataclass
class RunData:
    """One system's inputs when runs do not share labels and queries.

    A mapping ``{name: RunData}`` (or any object with these attributes, such as
    :class:`fastndcg.io.AlignedRun`) can be given to :func:`compare`.

    Attributes
    ----------
    scores, labels : arrays of shape (n_docs,)
    offsets : int array of shape (n_queries + 1,)
    tie_key : int array of shape (n_docs,), optional
        Per-document tie key (e.g. the docno rank) for presets with
        ``ties="key"``/``"key_desc"``.
    ideal_labels, ideal_offsets : arrays, optional
        External judgments (every judged document per query) for presets whose
        tool takes the ideal list from the qrels.
    qids : array of shape (n_queries,), optional
        Query names (per-query output).
    run_path, score_line : optional
        The file the scores were read from and the file line of score i (None
        when unknown), as :class:`fastndcg.io.AlignedRun` has them: a score
        beyond float32 is then named by its line (``run.txt:3``).
    """

    scores: ArrayLike
    labels: ArrayLike
    offsets: ArrayLike
    tie_key: Optional[ArrayLike] = None
    ideal_labels: Optional[ArrayLike] = None
    ideal_offsets: Optional[ArrayLike] = None
    qids: Optional[ArrayLike] = None
    run_path: str = ""
    score_line: Optional[Callable[[int], Optional[int]]] = None


@dataclass
class ComparedSystem:
    name: str
    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    tie_key: Optional[np.ndarray]
    ideal_labels: Optional[np.ndarray]
    ideal_offsets: Optional[np.ndarray]
    qids: np.ndarray
    weights: Optional[np.ndarray]
    run_path: str = ""
    score_line: Optional[Callable[[int], Optional[int]]] = None

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)


@dataclass
class ComparisonData:
    """The numbers of a comparison and the views derived from them; the public result,
    :class:`fastndcg.report.Comparison`, adds its outputs (its docstring lists the attributes)."""

    cutoffs: List[Cutoff]
    presets: List[str]
    conventions: Dict[str, Convention]
    ideal_sources: Dict[str, str]
    systems: List[str]
    n_queries: np.ndarray
    n_docs: np.ndarray
    zero_doc_queries: np.ndarray
    short_queries: np.ndarray
    empty_queries: np.ndarray
    mean: np.ndarray
    tie_worst: np.ndarray
    tie_best: np.ndarray
    tied_queries: np.ndarray
    tie_crossing_queries: np.ndarray
    reasons: Dict[str, Dict[str, str]]
    qids: Dict[str, np.ndarray]
    per_query: Optional[Dict[str, Dict[str, np.ndarray]]] = None
    notes: List[str] = field(default_factory=list)
    _inputs: List[ComparedSystem] = field(default_factory=list, repr=False)
    _ideal: str = field(default="auto", repr=False)
    _n_threads: Optional[int] = field(default=None, repr=False)
    #: the rule for judged topics missing from a run, as the inputs were aligned (TREC files)
    missing: str = DEFAULT_MISSING

    def signature(self, preset: str, cutoff: Cutoff) -> str:
        """The signature of one column: ``preset`` at ``cutoff``, with the ideal
        list it was computed from (:mod:`fastndcg.measures._measurement`)."""
        from fastndcg.measures._measurement import measurement_for

        conv = self.conventions[preset]
        source = "qrels" if self.ideal_sources[preset] == "qrels" else "run"
        if source != conv.ideal_source:
            conv = conv.replace(ideal_source=source)
        return measurement_for(cutoff, convention=conv, missing=self.missing).signature

    def signatures(self) -> Dict[str, Dict[str, str]]:
        """{preset: {measure: signature}}."""
        return {p: {m: self.signature(p, k) for m, k in zip(self.measures, self.cutoffs)} for p in self.presets}

    # ------------------------------------------------------------------ derived views
    @property
    def measures(self) -> List[str]:
        """Column names: ``ndcg@k``, or ``ndcg`` for the whole list."""
        return [measure_name(k) for k in self.cutoffs]

    @property
    def baseline(self) -> str:
        """The preset the others' system order is checked against: the first with the
        textbook fields (``standard``'s, whatever its name) when compared and it has
        values, else the first preset that has values (else the first preset)."""
        has = [p for j, p in enumerate(self.presets) if not np.isnan(self.mean[:, j]).all()]
        # by the fields, not the name: a renamed copy of standard is the textbook definition too
        textbook = [p for p in has if self.conventions[p].fields_key() == STANDARD.fields_key()]
        if textbook:
            return textbook[0]
        return has[0] if has else self.presets[0]

    def computable(self, system: str, preset: str) -> bool:
        return preset not in self.reasons.get(system, {})

    def spread(self) -> List[List[Dict[str, Any]]]:
        """Per system and cutoff, the largest difference between presets:
        dicts with ``spread`` (max - min), ``min``, ``max``, ``min_presets``,
        ``max_presets`` (NaN spread when fewer than one preset has a value)."""
        out = []
        for s in range(len(self.systems)):
            row = []
            for c in range(len(self.cutoffs)):
                vals = {p: float(self.mean[s, j, c]) for j, p in enumerate(self.presets)
                        if not math.isnan(self.mean[s, j, c])}
                if not vals:
                    row.append(dict(spread=math.nan, min=math.nan, max=math.nan, min_presets=[], max_presets=[]))
                    continue
                lo, hi = min(vals.values()), max(vals.values())
                row.append(dict(spread=hi - lo, min=lo, max=hi,
                                min_presets=[p for p, v in vals.items() if v == lo],
                                max_presets=[p for p, v in vals.items() if v == hi]))
            out.append(row)
        return out

    def rankings(self) -> Dict[str, List[List[List[str]]]]:
        """``rankings()[preset][c]``: the systems from best to worst at cutoff
        ``cutoffs[c]``, as tiers (systems with exactly equal means share a
        tier). Systems without a value are left out."""
        out: Dict[str, List[List[List[str]]]] = {}
        for j, p in enumerate(self.presets):
            per_k = []
            for c in range(len(self.cutoffs)):
                vals = [(float(self.mean[s, j, c]), name) for s, name in enumerate(self.systems)
                        if not math.isnan(self.mean[s, j, c])]
                vals.sort(key=lambda t: -t[0])
                tiers: List[List[str]] = []
                last = None
                for v, name in vals:
                    if tiers and v == last:
                        tiers[-1].append(name)
                    else:
                        tiers.append([name])
                    last = v
                per_k.append(tiers)
            out[p] = per_k
        return out

    def order_changed(self) -> Dict[str, List[bool]]:
        """``order_changed()[preset][c]``: whether the preset orders the systems
        differently from :attr:`baseline` at cutoff ``cutoffs[c]``."""
        ranks = self.rankings()
        base = ranks[self.baseline]
        return {p: [ranks[p][c] != base[c] and bool(ranks[p][c]) and bool(base[c])
                    for c in range(len(self.cutoffs))] for p in self.presets}

    def flips(self) -> List[Dict[str, Any]]:
        """Pairs of systems whose order depends on the preset.

        One dict per (cutoff, pair) where some preset puts ``a`` ahead and
        another puts ``b`` ahead: ``measure``, ``cutoff``, ``a``, ``b``,
        ``a_ahead`` / ``b_ahead`` / ``equal`` (preset names), and
        ``max_a_lead`` / ``max_b_lead`` (largest difference each way).
        """
        out = []
        n = len(self.systems)
        for c, m in enumerate(self.measures):
            for i in range(n):
                for j in range(i + 1, n):
                    a_ahead, b_ahead, equal, lead_a, lead_b = [], [], [], 0.0, 0.0
                    for pj, p in enumerate(self.presets):
                        d = float(self.mean[i, pj, c] - self.mean[j, pj, c])
                        if math.isnan(d):
                            continue
                        if d > 0:
                            a_ahead.append(p)
                            lead_a = max(lead_a, d)
                        elif d < 0:
                            b_ahead.append(p)
                            lead_b = max(lead_b, -d)
                        else:
                            equal.append(p)
                    if a_ahead and b_ahead:
                        out.append(dict(measure=m, cutoff=self.cutoffs[c], a=self.systems[i], b=self.systems[j],
                                        a_ahead=a_ahead, b_ahead=b_ahead, equal=equal,
                                        max_a_lead=lead_a, max_b_lead=lead_b))
        return out

    def curves(self, max_k: int) -> np.ndarray:
        """Aggregate NDCG@1..max_k, shape (n_systems, n_presets, max_k); NaN
        where a preset is not computable."""
        if isinstance(max_k, bool) or not isinstance(max_k, (numbers.Integral, np.integer)) or max_k < 1:
            raise ValueError(f"max_k must be an int >= 1; got {max_k!r}")
        ks = list(range(1, int(max_k) + 1))
        out = np.full((len(self.systems), len(self.presets), len(ks)), np.nan)
        for s, sys_ in enumerate(self._inputs):
            for j, p in enumerate(self.presets):
                if not self.computable(sys_.name, p):
                    continue
                scorer = _scorer(sys_, ks, self.conventions[p], ideal_arrays(sys_, self.conventions[p], self._ideal),
                                 self._n_threads)
                out[s, j] = scorer.mean(sys_.scores, tie_key=tie_key_of(sys_, self.conventions[p]),
                                        n_threads=self._n_threads)
        return out


def ideal_source_of(conv: Convention, sys_: ComparedSystem, ideal: str) -> str:
    if sys_.ideal_labels is None:
        return "list"
    if ideal != "auto":
        return ideal
    from fastndcg.conventions._presets import ideal_source

    return ideal_source(conv)


def ideal_arrays(sys_: ComparedSystem, conv: Convention, ideal: str) -> Dict[str, Any]:
    if ideal_source_of(conv, sys_, ideal) == "qrels":
        return dict(ideal_labels=sys_.ideal_labels, ideal_offsets=sys_.ideal_offsets)
    return {}


def tie_key_of(sys_: ComparedSystem, conv: Convention) -> Optional[np.ndarray]:
    return sys_.tie_key if conv.uses_tie_key else None


def _scorer(sys_: ComparedSystem, ks: List[Cutoff], conv: Convention, ideal_kw: Dict[str, Any],
            n_threads: Optional[int]) -> NDCGScorer:
    return NDCGScorer(sys_.labels, sys_.offsets, ks, convention=conv, weights=sys_.weights,
                      n_threads=n_threads, **ideal_kw)


# ============================================================================ inputs


def _as_cutoffs(k: Any) -> List[Cutoff]:
    # the API's own messages ("k[1] must be >= 1; got 0"); a repeated cutoff is one column
    ks = distinct_cutoffs(k)
    return list(ks) if isinstance(ks, list) else [ks]


def _as_presets(presets: Any) -> Dict[str, Convention]:
    if presets is None:
        names: List[Any] = list_presets()
    elif isinstance(presets, (str, Convention)):
        names = [presets]
    else:
        names = list(presets)
    if not names:
        raise ValueError("presets must name at least one preset; got an empty list")
    out: Dict[str, Convention] = {}
    for item in names:
        if isinstance(item, Convention):
            conv = item
        elif isinstance(item, str):
            if item not in PRESETS:
                raise ValueError(f"presets: {unknown_preset_message(item)}")
            conv = PRESETS[item]
        else:
            raise TypeError(f"presets must hold preset names or Conventions; got {type(item).__name__}")
        if conv.name in out:
            raise ValueError(f"presets: {conv.name!r} is given twice (a Convention is shown under its name; "
                             "give custom ones distinct names with .replace(name=...))")
        out[conv.name] = conv
    return out


def _systems(scores: Any, labels: Any, offsets: Any, tie_key: Any, weights: Any,
             ideal_labels: Any, ideal_offsets: Any, qids: Any) -> List[ComparedSystem]:
    if isinstance(scores, Mapping):
        if not scores:
            raise ValueError("scores: an empty mapping has no system to compare")
        items = [(str(name), value) for name, value in scores.items()]
        if len({name for name, _ in items}) != len(items):
            raise ValueError("scores: system names must be distinct as strings; got "
                             f"{[name for name, _ in items]}")
    else:
        items = [("run", scores)]
    out = []
    for name, value in items:
        where = f"scores[{name!r}]" if isinstance(scores, Mapping) else "scores"
        if hasattr(value, "scores") and hasattr(value, "labels") and hasattr(value, "offsets"):
            if labels is not None or offsets is not None:
                raise ValueError(f"{where} carries its own labels and offsets; do not also give labels=/offsets=")
            sc, lab, off = value.scores, value.labels, value.offsets
            key = getattr(value, "tie_key", None)
            il, io_ = getattr(value, "ideal_labels", None), getattr(value, "ideal_offsets", None)
            q = getattr(value, "qids", None)
        else:
            if labels is None or offsets is None:
                raise ValueError(f"labels and offsets are needed with array scores ({where})")
            sc, lab, off, il, io_, q = value, labels, offsets, ideal_labels, ideal_offsets, qids
            key = tie_key.get(name) if isinstance(tie_key, Mapping) else tie_key
        sc_arr = np.asarray(sc)
        lab_arr = np.asarray(lab)
        if sc_arr.ndim != 1:
            raise ValueError(f"{where} must be 1-D; got an array of shape {sc_arr.shape}")
        if lab_arr.ndim == 1 and sc_arr.shape[0] != lab_arr.shape[0]:
            raise ValueError(f"{where} has {sc_arr.shape[0]} entries but its labels have {lab_arr.shape[0]}; "
                             "every run must score the same documents")
        off_arr = np.asarray(off)
        nq = int(off_arr.shape[0]) - 1 if off_arr.ndim == 1 else 0
        q_arr = np.arange(nq) if q is None else np.asarray(q)
        if q_arr.shape[0] != nq:
            raise ValueError(f"qids of {where} name {q_arr.shape[0]} queries but offsets describe {nq}")
        out.append(ComparedSystem(name, sc_arr, lab_arr, off_arr, None if key is None else np.asarray(key),
                           None if il is None else np.asarray(il), None if io_ is None else np.asarray(io_),
                           q_arr, None if weights is None else np.asarray(weights, dtype=np.float64),
                           getattr(value, "run_path", "") or "", getattr(value, "score_line", None)))
    return out


def _validate(sys_: ComparedSystem, n_threads: Optional[int]) -> None:
    """Check what every preset needs (shapes, offsets, finite scores, labels >= 0,
    weights, external ideal) once, with a permissive convention, so that an error
    later can only come from the preset itself (its gain table, empty='error')."""
    probe = Convention(gain="linear", name="probe")
    try:
        mean_ndcg(sys_.scores, sys_.labels, sys_.offsets, 1, convention=probe, weights=sys_.weights,
                  ideal_labels=sys_.ideal_labels, ideal_offsets=sys_.ideal_offsets, n_threads=n_threads)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"system {sys_.name!r}: {exc}") from None
    sys_.offsets = sys_.offsets.astype(np.int64)   # validated above
    if sys_.tie_key is not None:
        key = sys_.tie_key
        if key.ndim != 1 or key.shape[0] != sys_.scores.shape[0]:
            raise ValueError(f"system {sys_.name!r}: tie_key must have one entry per document "
                             f"({sys_.scores.shape[0]}); got shape {key.shape}")


def _no_key_reason(conv: Convention) -> str:
    return (f"ties={conv.ties!r} ranks tied scores by a per-document tie key (e.g. the docno rank) and none "
            "was given (tie_key=); input order is not substituted")


# ============================================================================ diagnostics


def _gains(labels: np.ndarray, conv: Convention) -> np.ndarray:
    """G(label) per document, from the same gain table as the kernels."""
    return label_gains(conv, labels)


def _tie_counts(scores: np.ndarray, gains: np.ndarray, offsets: np.ndarray,
                cutoffs: List[Cutoff]) -> Tuple[np.ndarray, np.ndarray]:
    """Queries whose top k holds a group of equal scores with different gains,
    and those where such a group crosses rank k, per cutoff."""
    nq = offsets.shape[0] - 1
    n = scores.shape[0]
    tied = np.zeros(len(cutoffs), dtype=np.int64)
    crossing = np.zeros(len(cutoffs), dtype=np.int64)
    if n == 0:
        return tied, crossing
    qrow = np.repeat(np.arange(nq), np.diff(offsets))
    order = np.lexsort((-scores.astype(np.float64), qrow))
    s, g, q = scores[order], gains[order], qrow[order]
    start = np.ones(n, dtype=bool)
    start[1:] = (q[1:] != q[:-1]) | (s[1:] != s[:-1])
    first = np.flatnonzero(start)
    size = np.diff(np.append(first, n))
    r0 = first - offsets[q[first]]            # 0-based rank of the group's first document
    mixed = np.maximum.reduceat(g, first) > np.minimum.reduceat(g, first)
    gq = q[first]
    for c, k in enumerate(cutoffs):
        inside = mixed if k is None else mixed & (r0 < k)
        tied[c] = np.unique(gq[inside]).size
        if k is not None:
            crossing[c] = np.unique(gq[inside & (r0 + size > k)]).size
    return tied, crossing


# ============================================================================ compare


def _evaluate_preset(sys_: ComparedSystem, s: int, j: int, conv: Convention, cutoffs: List[Cutoff], ideal: str,
                     n_threads: Optional[int], tie_cache: Dict[Any, Tuple[np.ndarray, np.ndarray]],
                     mean: np.ndarray, worst: np.ndarray, best: np.ndarray, tied: np.ndarray,
                     crossing: np.ndarray, empty: np.ndarray, per_q: Optional[Dict[str, Dict[str, np.ndarray]]]) -> None:
    """Fill row [s, j] of the result arrays: empty count, tie range and counts, mean
    (left NaN when the preset needs a tie key the system does not have)."""
    K = len(cutoffs)
    scorer = _scorer(sys_, cutoffs, conv, ideal_arrays(sys_, conv, ideal), n_threads)
    idcg = np.asarray(scorer.ideal_dcg).reshape(sys_.n_queries, K)
    empty[s, j] = int(np.count_nonzero(idcg[:, 0] <= 0))
    # tie range: the same ideal DCG, only the tie rule changes (the same labels: the scorer above
    # told about labels outside the gain table already)
    with gathered_label_warnings(tell=False):
        for rule, dest in (("worst", worst), ("best", best)):
            bound = NDCGScorer(sys_.labels, sys_.offsets, cutoffs, convention=conv.replace(ties=rule),
                               weights=sys_.weights, ideal_dcg=scorer.ideal_dcg, n_threads=n_threads)
            dest[s, j] = bound.mean(sys_.scores, n_threads=n_threads)
    ckey = (conv.score_precision, conv.gain, conv.unknown_label)
    if ckey not in tie_cache:
        with np.errstate(over="ignore"):     # a score beyond float32 is +-inf, as the tool casts it
            sc = sys_.scores.astype(np.float32) if conv.score_precision == "float32" else sys_.scores
        tie_cache[ckey] = _tie_counts(sc, _gains(sys_.labels, conv), sys_.offsets, cutoffs)
    tied[s, j], crossing[s, j] = tie_cache[ckey]
    if conv.uses_tie_key and sys_.tie_key is None:
        return
    key = tie_key_of(sys_, conv)
    if per_q is None:
        mean[s, j] = scorer.mean(sys_.scores, tie_key=key, n_threads=n_threads)
        return
    # one kernel run for both: the per-query values and the terms of the mean
    nd, num, den = scorer.summands(sys_.scores, tie_key=key, n_threads=n_threads)
    mean[s, j] = scorer.finish(exact_column_sums(num), exact_column_sums(den))
    per_q[sys_.name][conv.name] = nd.reshape(sys_.n_queries, K)


def comparison_fields(scores: Any, labels: Optional[ArrayLike], offsets: Optional[ArrayLike], *, k: Any,
                      presets: Any, tie_key: Any, weights: Optional[ArrayLike], ideal_labels: Optional[ArrayLike],
                      ideal_offsets: Optional[ArrayLike], ideal: str, qids: Optional[ArrayLike], per_query: bool,
                      n_threads: Optional[int], explain_error: Callable[[Exception], str]) -> Dict[str, Any]:
    """The fields of the comparison :func:`fastndcg.compare` returns (its parameters, documented
    there): every system under every preset, with the diagnostics."""
    cutoffs = _as_cutoffs(k)
    convs = _as_presets(presets)
    if ideal not in IDEAL_CHOICES:
        raise ValueError(f"ideal must be one of {IDEAL_CHOICES}; got {ideal!r}")
    systems = _systems(scores, labels, offsets, tie_key, weights, ideal_labels, ideal_offsets, qids)
    for sys_ in systems:
        _validate(sys_, n_threads)
        if ideal == "qrels" and sys_.ideal_labels is None:
            raise ValueError(f"ideal='qrels' needs judgments (ideal_labels/ideal_offsets); system {sys_.name!r} has none")
    names = list(convs)
    S, P, K = len(systems), len(names), len(cutoffs)
    mean = np.full((S, P, K), np.nan)
    worst, best = np.full((S, P, K), np.nan), np.full((S, P, K), np.nan)
    tied = np.full((S, P, K), -1, dtype=np.int64)
    crossing = np.full((S, P, K), -1, dtype=np.int64)
    empty = np.full((S, P), -1, dtype=np.int64)
    short = np.zeros((S, K), dtype=np.int64)
    reasons: Dict[str, Dict[str, str]] = {}
    per_q: Optional[Dict[str, Dict[str, np.ndarray]]] = {} if per_query else None
    for s, sys_ in enumerate(systems):
        sizes = np.diff(sys_.offsets)
        for c, kk in enumerate(cutoffs):
            short[s, c] = 0 if kk is None else int(np.count_nonzero(sizes < kk))
        tie_cache: Dict[Any, Tuple[np.ndarray, np.ndarray]] = {}
        if per_q is not None:
            per_q[sys_.name] = {}
        for j, p in enumerate(names):
            conv = convs[p]
            try:
                if sys_.score_line is not None and sys_.run_path:
                    # a score beyond float32 a preset warns about is named by its run file line
                    with overflow_at_file_lines(sys_.run_path, sys_.score_line):
                        _evaluate_preset(sys_, s, j, conv, cutoffs, ideal, n_threads, tie_cache, mean, worst,
                                         best, tied, crossing, empty, per_q)
                else:
                    _evaluate_preset(sys_, s, j, conv, cutoffs, ideal, n_threads, tie_cache, mean, worst, best,
                                     tied, crossing, empty, per_q)
            except (ValueError, TypeError) as exc:      # the preset's own rules (labels, empty='error', ...)
                reasons.setdefault(sys_.name, {})[p] = explain_error(exc)
                mean[s, j] = np.nan
                if per_q is not None:
                    per_q[sys_.name].pop(p, None)
                continue
            if conv.uses_tie_key and sys_.tie_key is None:
                reasons.setdefault(sys_.name, {})[p] = _no_key_reason(conv)
    notes = []
    if S > 1:
        qsets = {tuple(qid_json(q) for q in sys_.qids) for sys_ in systems}
        if len(qsets) > 1:
            notes.append("the systems were evaluated on different sets of queries; their means are not "
                         "directly comparable")
    ideal_sources = {p: ideal_source_of(convs[p], systems[0], ideal) for p in names}
    return dict(
        cutoffs=cutoffs, presets=names, conventions=convs, ideal_sources=ideal_sources,
        systems=[s_.name for s_ in systems],
        n_queries=np.array([s_.n_queries for s_ in systems], dtype=np.int64),
        n_docs=np.array([s_.scores.shape[0] for s_ in systems], dtype=np.int64),
        zero_doc_queries=np.array([int(np.count_nonzero(np.diff(s_.offsets) == 0)) for s_ in systems],
                                  dtype=np.int64),
        short_queries=short, empty_queries=empty, mean=mean, tie_worst=worst, tie_best=best,
        tied_queries=tied, tie_crossing_queries=crossing, reasons=reasons,
        qids={s_.name: s_.qids for s_ in systems}, per_query=per_q, notes=notes,
        _inputs=systems, _ideal=ideal, _n_threads=n_threads)
