"""Computing a comparison: the inputs (systems, cutoffs, presets) checked once, the diagnostics
(ties, gains, the ideal's source) and :func:`compare`, which evaluates every system under every
preset with the prepared-queries layer and its exact aggregate."""
from __future__ import annotations
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np

from fastndcg._core.prepared import NDCGScorer, exact_column_sums
from fastndcg.measures._ndcg import mean_ndcg
from fastndcg.report._format import qid_json as _qid
from fastndcg.conventions._convention import Convention
from fastndcg._core.resolve import gain_tables, table_labels
from fastndcg._core.validation import distinct_cutoffs, gathered_label_warnings, overflow_at_file_lines
from fastndcg.conventions._convention import PRESETS
from fastndcg.conventions._presets import list_presets, unknown_preset_message
from fastndcg.report._comparison import Comparison, ComparedSystem, ideal_arrays, _ideal_source, tie_key_of, _scorer
from fastndcg.report._comparison_text import ArrayLike, Cutoff, IDEAL_CHOICES


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
    table, linear, _ = gain_tables(conv, float(labels.max(initial=0)))
    return labels.astype(np.float64) if linear else table[table_labels(labels, table, linear).astype(np.intp)]


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


def compare(scores: Any, labels: Optional[ArrayLike] = None, offsets: Optional[ArrayLike] = None,
            k: Any = (1, 3, 5, 10), presets: Any = None, *, tie_key: Any = None,
            weights: Optional[ArrayLike] = None, ideal_labels: Optional[ArrayLike] = None,
            ideal_offsets: Optional[ArrayLike] = None, ideal: str = "auto", qids: Optional[ArrayLike] = None,
            per_query: bool = False, n_threads: Optional[int] = None,
            explain_error: Callable[[Exception], str] = str) -> Comparison:
    """NDCG of one or more runs under every preset, with the reasons they differ.

    Parameters
    ----------
    scores : array of shape (n_docs,), or mapping {name: scores}
        One run, or several systems. A mapping's values are score arrays over
        the same documents (``labels``/``offsets`` shared), or objects with
        ``scores``, ``labels``, ``offsets`` attributes and optionally
        ``tie_key``, ``ideal_labels``, ``ideal_offsets``, ``qids``
        (:class:`RunData`, :class:`fastndcg.io.AlignedRun`): runs that
        retrieved different documents.
    labels : array of shape (n_docs,), optional
        Relevance labels (with array scores).
    offsets : int array of shape (n_queries + 1,), optional
        Query q owns rows ``offsets[q]:offsets[q+1]`` (with array scores).
    k : int, None or sequence, default (1, 3, 5, 10)
        Cutoffs (None: the whole list). Repeated values are reported once.
    presets : None, name, Convention or sequence of them
        None: every registered preset (:func:`fastndcg.list_presets`). A
        Convention is reported under its ``name``.
    tie_key : int array of shape (n_docs,) or mapping {name: array}, optional
        Per-document tie key (e.g. the docno's rank) for presets that break
        ties by it (``ties="key"``/``"key_desc"``: trec_eval, pytrec_eval,
        gdeval, ...). **Without it those presets are reported as not
        computable** (with the reason): input order is never substituted,
        since it would silently give a different number than the tool.
    weights : array of shape (n_queries,), optional
        Query weights for the aggregate (shared by every system).
    ideal_labels, ideal_offsets : arrays, optional
        External judgments: every judged document of each query (CSR). Used by
        presets whose tool takes the ideal from the qrels (see
        :func:`fastndcg.conventions.ideal_source`); the others use the run's list.
    ideal : {"auto", "qrels", "run"}, default "auto"
        Override the ideal source for every preset when judgments are given.
    qids : array of shape (n_queries,), optional
        Query names for per-query output (default 0..n_queries-1).
    per_query : bool, default False
        Keep every query's NDCG (:attr:`Comparison.per_query`).
    n_threads : int, optional
        OpenMP threads; results do not depend on it.
    explain_error : callable, default str
        The reason reported for a preset whose own rules refuse the input
        (``fastndcg compare --data`` names the data file's line).

    Returns
    -------
    Comparison
        Means per system x preset x cutoff, the diagnostics, rankings and
        flips; ``to_text()``, ``to_json()``, ``to_csv()``, ``plot(path)``.

    Raises
    ------
    ValueError, TypeError
        Bad cutoffs (``k[0] must be >= 1; got 0``), an unknown preset, runs
        that do not match their labels, and any input error common to all
        presets (named by system). An error specific to one preset (labels
        outside its gain table, ``empty="error"`` with an empty query) does not
        raise: that preset is reported as not computable with the message.

    Notes
    -----
    For each query with documents ranked by score descending, DCG@k =
    sum_{r <= min(k, n)} G(l_(r)) D(r) and NDCG@k = DCG@k / IDCG@k, with G, D,
    the tie rule, the empty and short rules and the ideal list taken from the
    preset. The tie range uses the preset with ``ties="worst"`` (lower gain
    first among equal scores) and ``ties="best"`` (higher gain first), which
    bound every tie order, including ``"average"`` and the tools' own. A
    query counts as "tied at k" when a group of equal scores (after the
    preset's score precision) holds documents of different gain and starts at
    a rank <= k; it also "crosses k" when it extends beyond rank k. A query is
    "empty" for a preset when its ideal DCG is 0 (no document of positive
    gain), which depends on the preset's gain.

    Examples
    --------
    >>> import fastndcg
    >>> r = fastndcg.compare([3, 2, 1], [0, 1, 2], [0, 3], k=[1, 3],
    ...                      presets=["standard", "sklearn"])
    >>> round(float(r.mean[0, 0, 1]), 6)   # standard, NDCG@3
    0.586883
    """
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
        qsets = {tuple(_qid(q) for q in sys_.qids) for sys_ in systems}
        if len(qsets) > 1:
            notes.append("the systems were evaluated on different sets of queries; their means are not "
                         "directly comparable")
    ideal_sources = {p: _ideal_source(convs[p], systems[0], ideal) for p in names}
    return Comparison(
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
