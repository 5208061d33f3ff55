"""trec_eval's resolution of custom gains, topic by topic, exactly as its gain_init.c and
m_ndcg.c do (levels -1 and -2, the ``(int)(g1 - g2)`` ordering, the ideal walk that stops at a
gain <= 0), with the quirks it hits (:class:`GainQuirks`, one warning per gain set). The rules
themselves are in the spec, :mod:`fastndcg.reference._trec_gains`."""
from __future__ import annotations
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from fastndcg.conventions._convention import Convention
from fastndcg.conventions._presets import as_convention
from fastndcg.conventions._trec_levels import LEVEL_NEGATIVE
from fastndcg.measures._trec_gain_levels import gain_entries, ideal_gains, level_gain
from fastndcg.measures._trec_gain_specs import GainSpec, MAX_JUDGED_LEVEL, TrecGainQuirkWarning, format_gain


# ----------------------------------------------------------------------------- quirks


@dataclass
class GainQuirks:
    """Where a gain set makes trec_eval's numbers differ from the textbook reading.

    Attributes
    ----------
    n_topics : int
        Topics resolved.
    order_topics : int
        Topics whose ideal ranking is not by gain descending (levels whose gains
        are less than 1 apart, or 2**31 or more apart, sorted out of order).
    stop_topics : int
        Topics whose ideal leaves out judged documents with a positive gain
        (the walk stopped at a level with gain <= 0).
    duplicate_levels : dict
        Levels listed more than once with different gains and present in the
        data: {level: (gain in the DCG, gain in the ideal, L)}, for the topics
        with the most judged levels L seen.
    examples : dict
        One description per kind ("order", "stop"): the first in sort order,
        so that it does not depend on the order topics come in.
    """

    n_topics: int = 0
    order_topics: int = 0
    stop_topics: int = 0
    duplicate_levels: Dict[int, Tuple[float, float, int]] = field(default_factory=dict)
    examples: Dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.order_topics or self.stop_topics or self.duplicate_levels)

    def example(self, kind: str, text: str) -> None:
        old = self.examples.get(kind)
        self.examples[kind] = text if old is None else min(old, text)

    def duplicate(self, level: int, g_dcg: float, g_ideal: float, n_levels: int) -> None:
        old = self.duplicate_levels.get(level)
        if old is None or n_levels > old[2]:
            self.duplicate_levels[level] = (g_dcg, g_ideal, n_levels)

    def merge(self, other: "GainQuirks") -> "GainQuirks":
        """Add another set of topics' quirks (e.g. the next piece of a streamed run)."""
        self.n_topics += other.n_topics
        self.order_topics += other.order_topics
        self.stop_topics += other.stop_topics
        for level, gains in other.duplicate_levels.items():
            self.duplicate(level, *gains)
        for kind, text in other.examples.items():
            self.example(kind, text)
        return self

    def message(self, spec: GainSpec, textbook: str = "") -> str:
        """The warning: what trec_eval does, and where the textbook value is."""
        parts = []
        if self.order_topics or self.stop_topics:
            hits = []
            if self.order_topics:
                hits.append(f"on {self.order_topics} of {self.n_topics} topic(s) the ideal ranking is not by "
                            f"gain descending ({self.examples['order']})")
            if self.stop_topics:
                hits.append(f"on {self.stop_topics} of {self.n_topics} topic(s) the ideal DCG leaves out judged "
                            f"documents with a positive gain ({self.examples['stop']})")
            parts.append(
                "; ".join(hits) + ": trec_eval orders the levels for the ideal with the integer comparison "
                "(int)(g1 - g2), so gains less than 1 apart compare equal and keep their listed order and gains "
                "2**31 or more apart overflow, then walks them from the last and stops at the first level with "
                "gain <= 0")
        listed = spec.duplicates()
        for level, (g_dcg, g_ideal, _) in sorted(self.duplicate_levels.items()):
            what = (f"level {level} is listed more than once (gains "
                    + ", ".join(format_gain(g) for g in listed.get(level, ())) + "): ")
            if level < 0:
                what += f"trec_eval gives its documents gain {format_gain(g_dcg)} (the entry that sorts first)"
            elif g_dcg != g_ideal:
                what += (f"trec_eval gives retrieved documents of level {level} gain {format_gain(g_dcg)} (the entry "
                         f"that sorts first) but counts the judged ones in the ideal with gain {format_gain(g_ideal)} "
                         "(the entry listed first)")
            else:
                what += f"trec_eval uses gain {format_gain(g_dcg)} (the entry listed first, which also sorts first)"
            parts.append(what)
        where = textbook or ("a gain table under any other convention, e.g. "
                             "get_preset('trec_eval').replace(gain={...}) in Python or --preset standard "
                             "--ideal qrels on the command line")
        return (f"gains {spec.text!r} hit trec_eval's quirks: " + "; ".join(parts) +
                f". The values reproduce trec_eval (-m ndcg.{spec.text}); the textbook value comes from {where}.")


def warn_quirks(quirks: GainQuirks, spec: GainSpec, stacklevel: int = 3) -> None:
    """Issue the one :class:`TrecGainQuirkWarning` of a call, if any quirk was hit."""
    if quirks:
        warnings.warn(quirks.message(spec), TrecGainQuirkWarning, stacklevel=stacklevel)


# ----------------------------------------------------------------------------- resolution


@dataclass
class ResolvedGains:
    """What the kernels need for trec_eval's custom gains.

    Attributes
    ----------
    doc_gains : float64 (n_docs,)
        Each retrieved document's gain in the DCG (may be negative).
    ideal_dcg : float64 (n_topics,)
        Each topic's ideal DCG by trec_eval's walk (>= 0; never cut at k).
    quirks : GainQuirks
    ideal_gains, ideal_offsets : float64 / int64
        The walk itself in CSR form: the gains of each topic's ideal ranking,
        best position first (trec_eval's ``ndcg_rel`` and ``Rndcg`` read it
        position by position; :mod:`fastndcg.measures._trec_measures`).
    """

    doc_gains: np.ndarray
    ideal_dcg: np.ndarray
    quirks: GainQuirks
    ideal_gains: Optional[np.ndarray] = None
    ideal_offsets: Optional[np.ndarray] = None


class _Plan:
    """trec_eval's sorted gain entries for one number L of judged levels."""

    def __init__(self, spec: GainSpec, n_levels: int):
        # entries of a topic whose levels 0..L-1 all have judged documents
        # (the sort does not depend on the counts; the holder of level l's
        # count is the entry whose count comes out as 1 + l)
        probe = gain_entries(spec.pairs, [1 + lv for lv in range(n_levels)])
        self.levels = [lv for lv, _, _ in probe]
        self.gains = [g for _, g, _ in probe]
        self.holds = [c - 1 if c > 0 else -1 for _, _, c in probe]   # level whose count it holds, or -1
        self.holder_gain = {lv: g for g, lv in zip(self.gains, self.holds) if lv >= 0}
        self.n_levels = n_levels
        self._walks: Dict[Tuple[int, ...], Tuple[List[int], bool, bool, str, str]] = {}

    def level_gain(self, level: int) -> float:
        return level_gain(list(zip(self.levels, self.gains, [0] * len(self.levels))), level)

    def walk(self, present: Tuple[int, ...]):
        """(levels walked in ideal order, order quirk, stop quirk, examples) for
        a topic whose judged levels with documents are ``present``."""
        got = self._walks.get(present)
        if got is not None:
            return got
        pset = set(present)
        counts = [1 if lv in pset else 0 for lv in self.holds]
        entries = [(lv, g, c) for lv, g, c in zip(self.holds, self.gains, counts)]
        walked_gains = ideal_gains(entries)
        walked: List[Any] = []
        for i in range(len(entries) - 1, -1, -1):   # the entries the walk used, in order
            if len(walked) == len(walked_gains):
                break
            if counts[i]:
                walked.append(self.holds[i])
        order = any(a < b for a, b in zip(walked_gains, walked_gains[1:]))
        left_out = [lv for lv in present if self.holder_gain[lv] > 0 and lv not in walked]
        order_ex = stop_ex = ""
        if order:
            i = next(j for j, (a, b) in enumerate(zip(walked_gains, walked_gains[1:])) if a < b)
            order_ex = (f"e.g. level {walked[i]} (gain {format_gain(walked_gains[i])}) before level {walked[i + 1]} "
                        f"(gain {format_gain(walked_gains[i + 1])})")
        if left_out:
            stop_ex = "e.g. " + ", ".join(f"level {lv} (gain {format_gain(self.holder_gain[lv])})" for lv in left_out[:3])
        got = (walked, order, bool(left_out), order_ex, stop_ex)
        self._walks[present] = got
        return got


def _ideal_convention(convention: Any) -> Convention:
    """The convention the ideal DCG of resolved gains is summed under: the gains as they
    are (linear), discounted as ``convention`` discounts (its base included)."""
    conv = as_convention(convention)
    return Convention(gain="linear", discount=conv.discount, discount_base=conv.discount_base)


def resolve_trec_gains(spec: GainSpec, levels: Any, offsets: Any, judged: Any, judged_offsets: Any,
                       convention: Any = "trec_eval", n_threads: Optional[int] = None) -> ResolvedGains:
    """Resolve trec_eval's custom gains for CSR topics.

    Parameters
    ----------
    spec : GainSpec
        The gain set (:func:`parse_gains`).
    levels : int array (n_docs,)
        trec_eval's level of each retrieved document: its judgment when >= 0,
        -1 (:data:`LEVEL_UNJUDGED`) when it is not in the qrels, -2
        (:data:`LEVEL_NEGATIVE`) when it is judged below 0.
    offsets : int array (n_topics + 1,)
        Topic q owns ``levels[offsets[q]:offsets[q+1]]``.
    judged, judged_offsets : int arrays
        Every judgment of each topic (retrieved or not), negative ones
        included (they are not counted), in CSR form over the same topics.
    convention : Convention or preset name, default "trec_eval"
        The convention whose discount (and its ``discount_base``) the ideal DCG
        is summed with.
    n_threads : int, optional
        Threads of the kernel that sums the ideal DCGs.

    Returns
    -------
    ResolvedGains
        ``doc_gains`` (the DCG gain of each document: the gain of the first
        entry of its level in trec_eval's order, 0 for a level without entry)
        and ``ideal_dcg`` = sum_p g_p D(p) over trec_eval's ideal walk (see the
        module docstring), summed in position order as the kernels sum.
        NDCG = DCG / IDCG when IDCG > 0, else 0. Ties: see the ranking of the
        convention (trec_eval: score descending, docno descending).

    Raises
    ------
    ValueError
        A level below -2, or gains so large that an ideal DCG overflows.
    """
    lev = np.ascontiguousarray(levels, dtype=np.int64)
    off = np.ascontiguousarray(offsets, dtype=np.int64)
    jud = np.ascontiguousarray(judged, dtype=np.int64)
    joff = np.ascontiguousarray(judged_offsets, dtype=np.int64)
    n_topics = off.shape[0] - 1
    _check_levels(lev, off, joff)
    u_level, u_count, tstart, n_levels = _judged_levels(jud, joff, n_topics)
    plans: Dict[int, _Plan] = {}
    quirks = GainQuirks(n_topics=n_topics)
    walk_gains, walk_sizes = _walk_topics(spec, plans, quirks, n_levels, u_level, u_count, tstart)
    ideal, wg, woff = _ideal_dcg(spec, walk_gains, walk_sizes, convention, n_threads)
    doc_gains, distinct = _document_gains(spec, plans, lev, off, n_levels)
    _duplicate_quirks(spec, plans, quirks, distinct, lev, u_level)
    return ResolvedGains(doc_gains, ideal, quirks, wg, woff)


def _check_levels(lev: np.ndarray, off: np.ndarray, joff: np.ndarray) -> None:
    """The levels of the run's documents in trec_eval's range, the judgments over the same topics."""
    n_topics = off.shape[0] - 1
    if joff.shape[0] != off.shape[0]:
        raise ValueError(f"judged_offsets must describe {n_topics} topics; got {joff.shape[0] - 1}")
    if lev.size and int(lev.min()) < LEVEL_NEGATIVE:
        i = int(np.argmin(lev))
        raise ValueError(f"levels must be >= {LEVEL_NEGATIVE} (trec_eval: -1 not in the qrels, -2 judged "
                         f"below 0); got levels[{i}]={int(lev[i])}")
    if lev.size and int(lev.max()) > MAX_JUDGED_LEVEL:
        i = int(np.argmax(lev))
        raise ValueError(f"levels[{i}]={int(lev[i])}: custom gains take levels up to {MAX_JUDGED_LEVEL}")


def _judged_levels(jud: np.ndarray, joff: np.ndarray, n_topics: int
                   ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The judged documents per (topic, level >= 0): the levels ``u_level`` and their counts
    ``u_count``, topic by topic (topic q's from ``tstart[q]`` to ``tstart[q + 1]``), and each
    topic's number of levels (its highest judgment + 1, 0 without judgments)."""
    jtopic = np.repeat(np.arange(n_topics, dtype=np.int64), np.diff(joff))
    keep = jud >= 0
    pair_topic, pair_level = jtopic[keep], jud[keep]
    order = np.lexsort((pair_level, pair_topic))
    pair_topic, pair_level = pair_topic[order], pair_level[order]
    new = np.ones(pair_topic.shape[0], dtype=bool)
    new[1:] = (pair_topic[1:] != pair_topic[:-1]) | (pair_level[1:] != pair_level[:-1])
    starts = np.flatnonzero(new)
    u_topic, u_level = pair_topic[starts], pair_level[starts]
    u_count = np.diff(np.append(starts, pair_topic.shape[0]))
    tstart = np.searchsorted(u_topic, np.arange(n_topics + 1))
    n_levels = np.zeros(n_topics, dtype=np.int64)
    has = tstart[1:] > tstart[:-1]
    n_levels[has] = u_level[tstart[1:][has] - 1] + 1
    if n_levels.size and int(n_levels.max()) > MAX_JUDGED_LEVEL + 1:
        q = int(np.argmax(n_levels))
        raise ValueError(f"topic {q} has a judgment of {int(n_levels[q]) - 1}: custom gains take judgments up to "
                         f"{MAX_JUDGED_LEVEL} (trec_eval keeps one gain entry per level up to the highest)")
    return u_level, u_count, tstart, n_levels


def _walk_topics(spec: GainSpec, plans: Dict[int, _Plan], quirks: GainQuirks, n_levels: np.ndarray,
                 u_level: np.ndarray, u_count: np.ndarray, tstart: np.ndarray) -> Tuple[List[float], np.ndarray]:
    """trec_eval's ideal walk of each topic: the gains of the walk, topic after topic, and each
    topic's number of them. Adds a plan per number of levels to ``plans`` and counts the
    topics whose walk shows a quirk in ``quirks``."""
    walk_gains: List[float] = []
    walk_sizes = np.zeros(n_levels.shape[0], dtype=np.int64)
    u_level_l, u_count_l, tstart_l = u_level.tolist(), u_count.tolist(), tstart.tolist()
    for q, nl in enumerate(n_levels.tolist()):
        plan = plans.get(nl)
        if plan is None:
            plan = plans[nl] = _Plan(spec, nl)
        a, b = tstart_l[q], tstart_l[q + 1]
        present = tuple(u_level_l[a:b])
        walked, order_q, stop_q, order_ex, stop_ex = plan.walk(present)
        count_of = dict(zip(present, u_count_l[a:b]))
        size = 0
        for lv in walked:
            c = count_of[lv]
            walk_gains.extend([plan.holder_gain[lv]] * c)
            size += c
        walk_sizes[q] = size
        if order_q:
            quirks.order_topics += 1
            quirks.example("order", order_ex)
        if stop_q:
            quirks.stop_topics += 1
            quirks.example("stop", stop_ex)
    return walk_gains, walk_sizes


def _ideal_dcg(spec: GainSpec, walk_gains: List[float], walk_sizes: np.ndarray, convention: Any,
               n_threads: Optional[int]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ideal DCG of each topic: the walk's gains in walk order, summed by the DCG kernel;
    with the gains and their offsets."""
    from fastndcg.measures._ndcg import dcg as _dcg

    n_topics = walk_sizes.shape[0]
    woff = np.zeros(n_topics + 1, dtype=np.int64)
    np.cumsum(walk_sizes, out=woff[1:])
    wg = np.asarray(walk_gains, dtype=np.float64)
    wpos = (np.arange(wg.shape[0], dtype=np.int64) - np.repeat(woff[:-1], walk_sizes)).astype(np.float64)
    ideal = np.asarray(_dcg(-wpos, wg, woff, None, convention=_ideal_convention(convention),
                            n_threads=n_threads),
                       dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(ideal))
    if bad.size:
        raise ValueError(f"gains {spec.text!r}: the ideal DCG of topic {int(bad[0])} overflows a double; "
                         "use smaller gains")
    return ideal, wg, woff


def _document_gains(spec: GainSpec, plans: Dict[int, _Plan], lev: np.ndarray, off: np.ndarray,
                    n_levels: np.ndarray) -> Tuple[np.ndarray, List[int]]:
    """Each document's DCG gain, from one lookup table row per number of judged levels (the
    distinct numbers, returned too; a missing plan is added to ``plans``)."""
    sizes = np.diff(off)
    doc_nl = np.repeat(n_levels, sizes)
    top = int(max(lev.max(initial=0), n_levels.max(initial=0)))
    width = top + 1 - LEVEL_NEGATIVE
    distinct = sorted(plans) if plans else [0]
    row_of = np.zeros(int(max(distinct)) + 1, dtype=np.int64)
    lut = np.zeros((len(distinct), width), dtype=np.float64)
    for r, nl in enumerate(distinct):
        row_of[nl] = r
        plan = plans.get(nl) or _Plan(spec, nl)
        plans[nl] = plan
        for level in range(LEVEL_NEGATIVE, top + 1):
            lut[r, level - LEVEL_NEGATIVE] = plan.level_gain(level)
    doc_gains = lut[row_of[doc_nl], lev - LEVEL_NEGATIVE] if lev.size else np.zeros(0)
    return np.ascontiguousarray(doc_gains, dtype=np.float64), distinct


def _duplicate_quirks(spec: GainSpec, plans: Dict[int, _Plan], quirks: GainQuirks, distinct: List[int],
                      lev: np.ndarray, u_level: np.ndarray) -> None:
    """A level listed twice with different gains, present in the data, goes to ``quirks``."""
    dup = spec.duplicates()
    if dup:
        in_run = set(np.unique(lev).tolist()) if lev.size else set()
        in_qrels = set(np.unique(u_level).tolist())
        for level in dup:
            if level in in_run or level in in_qrels:
                nl = max(distinct)
                g_ideal = next(g for lv, g in spec.pairs if lv == level)
                quirks.duplicate(level, plans[nl].level_gain(level), g_ideal, nl)
