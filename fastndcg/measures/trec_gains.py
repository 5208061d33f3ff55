"""trec_eval's custom gains (``trec_eval -m ndcg.L=G,...``): the one place for their rules.

``fastndcg eval QRELS RUN --gain L=G,...``, :meth:`fastndcg.io.readers.AlignedRun.ndcg`
with ``gains=``, :func:`fastndcg.report.stream.align_chunk` and
:func:`fastndcg.report.stream.evaluate_run` all come here:

* :func:`parse_gains` / :func:`as_gains` read a gain set into a :class:`GainSpec`
  (the listed ``(level, gain)`` pairs in order, duplicates kept);
* :func:`gain_rules` says which rules a convention applies: trec_eval's own
  under the ``trec_eval`` and ``pytrec_eval`` presets, the textbook gain table
  under any other convention, none under ``trec_eval_cut`` / ``pytrec_eval_cut``
  (trec_eval's ``ndcg_cut`` takes no gains);
* :func:`resolve_trec_gains` turns a spec and the topics' trec_eval levels into
  what the kernels need: each retrieved document's gain (for the DCG) and each
  topic's ideal DCG (trec_eval's walk);
* :class:`GainScorer` evaluates those per-document gains with the NDCG kernels
  (negative gains allowed);
* :func:`textbook_convention` gives the gain-table convention of the other presets.

trec_eval's rules (read from trec_eval 10.0, usnistgov/trec_eval f4253652:
``gain_init.c``, ``form_res_rels.c``, ``m_ndcg.c``, ``m_ndcg_cut.c``,
``meas_init.c``; the pure-Python spec is :mod:`fastndcg.reference._trec_gains`):

* a retrieved document not in the qrels is level -1, one judged below 0 is
  level -2; both have gain 0 unless a gain is listed for -1 / -2;
* unlisted levels keep gain = level; negative gains are allowed;
* the ideal DCG counts every judged document with a judgment >= 0 (retrieved or
  not), level by level in trec_eval's order of the gain entries: sorted by
  glibc's ``qsort`` with the comparator ``(int)(g1 - g2)`` (gains less than 1
  apart compare equal and keep their listing order; differences of 2**31 or
  more overflow), walked from the last entry and stopped at the first level
  with gain <= 0;
* a level listed twice: the first listed entry holds the judged count (the
  ideal), the first entry in sorted order gives the gain of retrieved documents
  (the DCG);
* NDCG = DCG / IDCG when IDCG > 0, else 0 (the topic counts in the mean);
  the ideal is never cut at k.

Where fastndcg differs on purpose: a malformed gain string (a level that is
not an integer, a gain that is not a finite number, an empty pair) is a
ValueError naming the pair, where trec_eval silently skips the pair (trec_eval
10) or reads it with ``atol``/``atof`` (``1=3x`` is gain 3, ``x=3`` level 0 in
trec_eval 9); a topic whose judgments are all below 0 has no judged level
(trec_eval 10 reuses the previous topic's level counts when they are all -1
and crashes when one is below -1).
"""
from __future__ import annotations

import math
import numbers
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from fastndcg.measures.ndcg import NDCGScorer, aggregate, finish_aggregate
from fastndcg.conventions import Convention, as_convention
from fastndcg.reference._trec_gains import (LEVEL_NEGATIVE, LEVEL_UNJUDGED, trec_gain_entries,
                                      trec_ideal_gains, trec_level_gain)

__all__ = ["GainSpec", "GainScorer", "ResolvedGains", "TrecGainQuirkWarning", "GainQuirks",
           "TREC_GAIN_PRESETS", "NO_GAIN_PRESETS", "as_gains", "bogus_ranking", "gain_rules", "parse_gains",
           "resolve_trec_gains", "textbook_convention", "LEVEL_UNJUDGED", "LEVEL_NEGATIVE"]

#: Presets whose custom gains follow trec_eval's rules (``ndcg.L=G``).
TREC_GAIN_PRESETS = frozenset({"trec_eval", "pytrec_eval"})
#: Presets of trec_eval's ``ndcg_cut``, which takes no gains.
NO_GAIN_PRESETS = frozenset({"trec_eval_cut", "pytrec_eval_cut"})

_LEVEL = re.compile(r"[+-]?[0-9]+\Z")
_GAIN = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
_INT64_MAX = np.iinfo(np.int64).max
#: The highest judgment custom gains take (trec_eval keeps one gain entry per
#: level from 0 to the highest judgment of a topic).
MAX_JUDGED_LEVEL = 1 << 16


class TrecGainQuirkWarning(UserWarning):
    """A gain set hits one of trec_eval's ordering quirks (see :class:`GainQuirks`)."""


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e16 else repr(float(v))


@dataclass(frozen=True)
class GainSpec:
    """A custom gain set, as trec_eval's ``ndcg.L=G,...`` parameters.

    Attributes
    ----------
    pairs : tuple of (int, float)
        The listed (level, gain) pairs in listing order; a level may repeat.
    text : str
        The gain set as written (``1=3,2=9``): the measure name is
        ``ndcg_`` + text, as trec_eval prints it.
    """

    pairs: Tuple[Tuple[int, float], ...]
    text: str

    def __str__(self) -> str:
        return self.text

    @property
    def levels(self) -> Tuple[int, ...]:
        return tuple(level for level, _ in self.pairs)

    def duplicates(self) -> Dict[int, Tuple[float, ...]]:
        """Levels listed more than once with different gains: {level: gains in listing order}."""
        seen: Dict[int, List[float]] = {}
        for level, gain in self.pairs:
            seen.setdefault(level, []).append(gain)
        return {lv: tuple(gs) for lv, gs in seen.items() if len(set(gs)) > 1}


def parse_gains(text: str, name: str = "gains") -> GainSpec:
    """Parse trec_eval's gain parameters ``L=G,L=G,...``.

    Each pair is ``LEVEL=GAIN``: LEVEL an integer (optionally signed; -1 and -2
    are trec_eval's levels of unjudged and judged-below-0 documents), GAIN a
    finite decimal number (negative allowed). The pairs keep their order and
    a level may repeat, as trec_eval reads them.

    Raises
    ------
    ValueError
        Naming ``name``, the offending pair and its position, for an empty
        string or pair, a level that is not an integer or a gain that is not a
        finite number (trec_eval skips or ``atof``-reads such pairs silently).
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a string like '1=3,2=9'; got {type(text).__name__}")
    parts = text.split(",")
    pairs = []
    head = f"{name}: " if name else ""
    for pos, part in enumerate(parts):
        level_s, sep, gain_s = part.partition("=")
        where = f" (pair {pos + 1} of {text!r})" if len(parts) > 1 else ""
        if not sep or not _LEVEL.match(level_s) or not _GAIN.match(gain_s):
            raise ValueError(
                f"{head}{part!r}{where} is not LEVEL=GAIN with LEVEL an integer and GAIN a number, "
                "e.g. 1=3,2=9 (trec_eval would skip or misread it silently)")
        level, gain = int(level_s), float(gain_s)
        if abs(level) > _INT64_MAX:
            raise ValueError(f"{head}level {level_s}{where} is out of range")
        if not math.isfinite(gain):
            raise ValueError(f"{head}gain {gain_s}{where} is not a finite double")
        pairs.append((level, gain))
    return GainSpec(tuple(pairs), text)


def as_gains(gains: Any, name: str = "gains") -> GainSpec:
    """A :class:`GainSpec` from a spec, a string (:func:`parse_gains`), a
    mapping ``{level: gain}`` or a sequence of ``(level, gain)`` pairs."""
    if isinstance(gains, GainSpec):
        return gains
    if isinstance(gains, str):
        return parse_gains(gains, name)
    items = list(gains.items()) if isinstance(gains, Mapping) else None
    if items is None:
        try:
            items = [tuple(p) for p in gains]
        except TypeError:
            raise TypeError(f"{name} must be a string like '1=3,2=9', a mapping {{level: gain}} or "
                            f"(level, gain) pairs; got {type(gains).__name__}") from None
    if not items:
        raise ValueError(f"{name}: no (level, gain) pairs")
    pairs = []
    for pos, item in enumerate(items):
        if len(item) != 2:
            raise ValueError(f"{name}[{pos}]: expected a (level, gain) pair; got {item!r}")
        level, gain = item
        if isinstance(level, (bool, np.bool_)) or not isinstance(level, (numbers.Integral, np.integer)) \
                or abs(int(level)) > _INT64_MAX:
            raise ValueError(f"{name}[{pos}]: the level must be an integer; got {level!r}")
        if isinstance(gain, (bool, np.bool_)) or not isinstance(gain, (numbers.Real, np.floating, np.integer)) \
                or not math.isfinite(float(gain)):
            raise ValueError(f"{name}[{pos}]: the gain of level {int(level)} must be a finite number; got {gain!r}")
        pairs.append((int(level), float(gain)))
    return GainSpec(tuple(pairs), ",".join(f"{lv}={_fmt(g)}" for lv, g in pairs))


def gain_rules(convention: Any) -> str:
    """Which custom-gain rules a convention applies: ``"trec_eval"`` under the
    ``trec_eval`` and ``pytrec_eval`` presets (:data:`TREC_GAIN_PRESETS`),
    ``"table"`` (the textbook gain table, :func:`textbook_convention`) under any
    other convention, including a preset changed with ``replace`` (named
    "custom"). ValueError under ``trec_eval_cut`` / ``pytrec_eval_cut``:
    trec_eval's ``ndcg_cut`` takes no gains (it always uses the judgment)."""
    conv = as_convention(convention)
    if conv.name in NO_GAIN_PRESETS:
        raise ValueError(
            f"custom gains do not apply to preset {conv.name!r}: trec_eval's ndcg_cut takes no gains (it "
            "always uses the judgment as the gain; its parameters are cutoffs). For trec_eval's ndcg.L=G use "
            "the 'trec_eval' preset (or 'pytrec_eval'); other presets apply the gains as a gain table")
    return "trec_eval" if conv.name in TREC_GAIN_PRESETS else "table"


def textbook_convention(spec: GainSpec, convention: Any, max_label: float) -> Convention:
    """The convention with the gains as a gain table (the rule outside the
    trec_eval presets): G(l) = the gain listed for l (the last one when listed
    twice), l for unlisted levels up to ``max_label``; the ideal and the
    documents are those of the convention (unjudged and negative judgments
    are label 0, whose gain is that of level 0).

    Raises
    ------
    ValueError
        For a gain listed for a level below 0 (trec_eval's unjudged -1 and
        judged-negative -2 exist only under the trec_eval presets) or a negative
        gain (a gain table is >= 0).
    """
    conv = as_convention(convention)
    for level, gain in spec.pairs:
        if level < 0:
            raise ValueError(
                f"gains: level {level} ({spec.text!r}): levels -1 (unjudged) and -2 (judged below 0) exist "
                f"only under trec_eval's rules (presets {sorted(TREC_GAIN_PRESETS)}); under convention "
                f"{conv.name!r} the gains are a table over labels >= 0")
        if gain < 0:
            raise ValueError(
                f"gains: level {level} has gain {_fmt(gain)} ({spec.text!r}): negative gains follow "
                f"trec_eval's rules only under presets {sorted(TREC_GAIN_PRESETS)}; under convention "
                f"{conv.name!r} the gains are a table, which must be >= 0")
    top = int(max(max_label if max_label == max_label else 0, max(spec.levels)))
    table = [float(level) for level in range(top + 1)]
    for level, gain in spec.pairs:
        table[level] = gain
    return conv.replace(gain=tuple(table), unknown_label="zero", name=conv.name)


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
                    + ", ".join(_fmt(g) for g in listed.get(level, ())) + "): ")
            if level < 0:
                what += f"trec_eval gives its documents gain {_fmt(g_dcg)} (the entry that sorts first)"
            elif g_dcg != g_ideal:
                what += (f"trec_eval gives retrieved documents of level {level} gain {_fmt(g_dcg)} (the entry "
                         f"that sorts first) but counts the judged ones in the ideal with gain {_fmt(g_ideal)} "
                         "(the entry listed first)")
            else:
                what += f"trec_eval uses gain {_fmt(g_dcg)} (the entry listed first, which also sorts first)"
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
        position by position; :mod:`fastndcg.measures.trec_measures`).
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
        probe = trec_gain_entries(spec.pairs, [1 + lv for lv in range(n_levels)])
        self.levels = [lv for lv, _, _ in probe]
        self.gains = [g for _, g, _ in probe]
        self.holds = [c - 1 if c > 0 else -1 for _, _, c in probe]   # level whose count it holds, or -1
        self.holder_gain = {lv: g for g, lv in zip(self.gains, self.holds) if lv >= 0}
        self.n_levels = n_levels
        self._walks: Dict[Tuple[int, ...], Tuple[List[int], bool, bool, str, str]] = {}

    def level_gain(self, level: int) -> float:
        return trec_level_gain(list(zip(self.levels, self.gains, [0] * len(self.levels))), level)

    def walk(self, present: Tuple[int, ...]):
        """(levels walked in ideal order, order quirk, stop quirk, examples) for
        a topic whose judged levels with documents are ``present``."""
        got = self._walks.get(present)
        if got is not None:
            return got
        pset = set(present)
        counts = [1 if lv in pset else 0 for lv in self.holds]
        entries = [(lv, g, c) for lv, g, c in zip(self.holds, self.gains, counts)]
        walked_gains = trec_ideal_gains(entries)
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
            order_ex = (f"e.g. level {walked[i]} (gain {_fmt(walked_gains[i])}) before level {walked[i + 1]} "
                        f"(gain {_fmt(walked_gains[i + 1])})")
        if left_out:
            stop_ex = "e.g. " + ", ".join(f"level {lv} (gain {_fmt(self.holder_gain[lv])})" for lv in left_out[:3])
        got = (walked, order, bool(left_out), order_ex, stop_ex)
        self._walks[present] = got
        return got


def resolve_trec_gains(spec: GainSpec, levels: Any, offsets: Any, judged: Any, judged_offsets: Any,
                       discount: Any = "log2", n_threads: Optional[int] = None) -> ResolvedGains:
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
    discount : str or array, default "log2"
        The convention's discount, for the ideal DCG.
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
    from fastndcg.measures.ndcg import dcg as _dcg

    lev = np.ascontiguousarray(levels, dtype=np.int64)
    off = np.ascontiguousarray(offsets, dtype=np.int64)
    jud = np.ascontiguousarray(judged, dtype=np.int64)
    joff = np.ascontiguousarray(judged_offsets, dtype=np.int64)
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
    # judged documents per (topic, level >= 0)
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

    plans: Dict[int, _Plan] = {}
    quirks = GainQuirks(n_topics=n_topics)
    walk_gains: List[float] = []
    walk_sizes = np.zeros(n_topics, dtype=np.int64)
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

    # ideal DCG: the walk's gains in walk order, summed by the DCG kernel
    woff = np.zeros(n_topics + 1, dtype=np.int64)
    np.cumsum(walk_sizes, out=woff[1:])
    wg = np.asarray(walk_gains, dtype=np.float64)
    wpos = (np.arange(wg.shape[0], dtype=np.int64) - np.repeat(woff[:-1], walk_sizes)).astype(np.float64)
    ideal = np.asarray(_dcg(-wpos, wg, woff, None, convention=Convention(gain="linear", discount=discount),
                            n_threads=n_threads),
                       dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(ideal))
    if bad.size:
        raise ValueError(f"gains {spec.text!r}: the ideal DCG of topic {int(bad[0])} overflows a double; "
                         "use smaller gains")

    # each document's DCG gain: one lookup table row per number of judged levels
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
    doc_gains = np.ascontiguousarray(doc_gains, dtype=np.float64)

    # a level listed twice with different gains, present in the data
    dup = spec.duplicates()
    if dup:
        in_run = set(np.unique(lev).tolist()) if lev.size else set()
        in_qrels = set(np.unique(u_level).tolist())
        for level in dup:
            if level in in_run or level in in_qrels:
                nl = max(distinct)
                g_ideal = next(g for lv, g in spec.pairs if lv == level)
                quirks.duplicate(level, plans[nl].level_gain(level), g_ideal, nl)
    return ResolvedGains(doc_gains, ideal, quirks, wg, woff)


# ----------------------------------------------------------------------------- evaluation


class GainScorer:
    """NDCG of per-document gains against an external ideal DCG, with the
    interface of :class:`fastndcg.NDCGScorer` (``ndcg``, ``dcg``, ``mean``,
    ``summands``, ``finish``).

    DCG@k = sum_{r <= min(k, n)} g_(r) D(r) with the documents' own gains
    ``gains`` (any finite real, negative allowed), ranked by the convention's
    ties; NDCG@k = DCG@k / ``ideal_dcg`` (the convention's empty rule when the
    ideal DCG is 0). The kernels take gains >= 0, so a negative gain is
    scored as DCG(g+) - DCG(g-) with g+ = max(g, 0) and g- = max(-g, 0), both
    ranked identically: per query NDCG = DCG(g+) / IDCG - DCG(g-) / IDCG, which
    can differ from one sum in rank order by rounding only.

    Parameters
    ----------
    gains : float array (n_docs,)
    offsets : int array (n_queries + 1,)
    k : None, int or sequence
    convention : Convention or preset name
        Its gain is replaced by the documents' gains (``gain="linear"`` on
        them); everything else applies.
    ideal_dcg : float array (n_queries,) or (n_queries, n_cutoffs)
    weights : optional query weights
    n_threads : int, optional
    """

    def __init__(self, gains: Any, offsets: Any, k: Any = None, *, convention: Any = None,
                 ideal_dcg: Any = None, weights: Any = None, n_threads: Optional[int] = None) -> None:
        conv = as_convention(convention)
        g = np.asarray(gains, dtype=np.float64)
        if g.ndim != 1:
            raise ValueError(f"gains must be 1-D; got an array of shape {g.shape}")
        bad = np.flatnonzero(~np.isfinite(g))
        if bad.size:
            raise ValueError(f"gains must be finite; got gains[{int(bad[0])}]={float(g[bad[0]])!r}")
        if ideal_dcg is None:
            raise ValueError("GainScorer needs ideal_dcg (the gains of the ideal list are not the documents')")
        self.convention = conv
        linear = conv.replace(gain="linear", unknown_label="error", name=conv.name)
        self._pos = NDCGScorer(np.maximum(g, 0.0), offsets, k, convention=linear, ideal_dcg=ideal_dcg,
                               weights=weights, n_threads=n_threads)
        self._neg = None
        if bool(np.any(g < 0)):
            # the subtracted part never takes the empty-query value
            self._neg = NDCGScorer(np.maximum(-g, 0.0), offsets, k, convention=linear.replace(
                empty="zero", name=conv.name), ideal_dcg=ideal_dcg, weights=weights, n_threads=n_threads)

    @property
    def ideal_dcg(self) -> np.ndarray:
        return self._pos.ideal_dcg

    def ndcg(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None) -> np.ndarray:
        """Per-query NDCG, shape (n_queries,) or (n_queries, n_cutoffs)."""
        return self.summands(scores, tie_key=tie_key, n_threads=n_threads, _shape=True)[0]

    def dcg(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None) -> np.ndarray:
        """Per-query DCG of the gains, same shape as :meth:`ndcg`."""
        d = self._pos.dcg(scores, tie_key=tie_key, n_threads=n_threads)
        if self._neg is not None:
            d = d - self._neg.dcg(scores, tie_key=tie_key, n_threads=n_threads)
        return d

    def summands(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None,
                 _shape: bool = False):
        """(ndcg, num, den) as :meth:`fastndcg.NDCGScorer.summands`."""
        nd, num, den = self._pos.summands(scores, tie_key=tie_key, n_threads=n_threads)
        if self._neg is not None:
            nd2, num2, _ = self._neg.summands(scores, tie_key=tie_key, n_threads=n_threads)
            counted = ~np.isnan(nd)
            nd = nd - np.where(counted, nd2, 0.0)
            num = num - np.where(counted, num2, 0.0)
        if _shape:
            nd = nd[:, 0].copy() if self._pos._single else nd
        return nd, num, den

    def finish(self, num: Any, den: Any):
        """The aggregate from summed terms (see :meth:`fastndcg.NDCGScorer.finish`)."""
        return finish_aggregate(num, den, self.convention, self._pos._single)

    def mean(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None):
        """The aggregate (:meth:`fastndcg.NDCGScorer.mean`): a float for a single k."""
        return self.evaluate(scores, tie_key=tie_key, n_threads=n_threads)[1]

    def evaluate(self, scores: Any, *, tie_key: Any = None, n_threads: Optional[int] = None):
        """(per-query NDCG as :meth:`ndcg`, the aggregate as :meth:`mean`) from one pass."""
        nd, num, den = self.summands(scores, tie_key=tie_key, n_threads=n_threads)
        mean = aggregate(num, den, self.convention, self._pos._single)
        return (nd[:, 0].copy() if self._pos._single else nd), mean

    __call__ = mean


# ----------------------------------------------------------------------------- aligned TREC runs


#: Presets of trec_eval 10, whose ``-c`` ranks a topic missing from the run as
#: one unjudged document (``trec_eval.c``'s ``bogus_ranking``).
BOGUS_RANKING_PRESETS = frozenset({"trec_eval"})


def bogus_ranking(scores: Any, levels: Any, tie_key: Any, offsets: Any):
    """trec_eval 10's ``-c``: every topic without a retrieved document is ranked
    as one document that is not in the qrels (score 1, level -1, tie key 0),
    as ``trec_eval.c``'s ``bogus_ranking``. Returns ``(scores, levels,
    tie_key, offsets)``, unchanged when no topic is empty."""
    offsets = np.asarray(offsets, dtype=np.int64)
    empty = np.flatnonzero(np.diff(offsets) == 0)
    if not empty.size:
        return scores, levels, tie_key, offsets
    at = offsets[empty]
    scores = np.insert(np.asarray(scores, dtype=np.float64), at, 1.0)
    levels = np.insert(np.asarray(levels, dtype=np.int64), at, LEVEL_UNJUDGED)
    tie_key = np.insert(np.asarray(tie_key, dtype=np.int64), at, 0)
    add = np.zeros(offsets.shape[0], dtype=np.int64)
    add[empty + 1] = 1
    return scores, levels, tie_key, offsets + np.cumsum(add)


def aligned_inputs(aligned: Any, gains: Any, convention: Any = "trec_eval", ideal: str = "auto",
                   n_threads: Optional[int] = None) -> Tuple[Convention, Dict[str, Any], GainQuirks]:
    """The kernel inputs of a :class:`fastndcg.io.readers.AlignedRun` under custom gains.

    Returns ``(convention, kwargs, quirks)``; ``kwargs`` always holds ``scores``
    and ``offsets``, and ``tie_key`` when the convention breaks ties by key.

    * Under trec_eval's rules (:func:`gain_rules`) it adds ``gains`` and
      ``ideal_dcg`` (:func:`resolve_trec_gains`; the ideal from every judgment
      of the qrels, or with ``ideal="run"`` from the retrieved ones) for
      :class:`GainScorer`. Under the ``trec_eval`` preset (trec_eval 10) a topic
      with no retrieved document (a judged topic missing from the run, kept by
      ``missing="zero"``, trec_eval's ``-c``) is ranked as one document that is
      not in the qrels (level -1), as trec_eval 10 ranks it: with a gain listed
      for -1 its DCG is that gain, not 0.
    * Under a gain table it adds ``labels`` and ``ideal_labels`` /
      ``ideal_offsets`` for :class:`fastndcg.NDCGScorer`, and ``convention``
      is the table convention (:func:`textbook_convention`).
    """
    from fastndcg.conventions import ideal_source

    spec = as_gains(gains)
    conv = as_convention("trec_eval" if convention is None else convention)   # as AlignedRun.ndcg
    if gain_rules(conv) == "table":
        top = max(float(np.max(aligned.labels, initial=0)), float(np.max(aligned.ideal_labels, initial=0)))
        tconv = textbook_convention(spec, conv, top)
        kw = aligned._kwargs(tconv, ideal)
        kw.pop("convention")
        kw.update(scores=aligned.scores, labels=aligned.labels, offsets=aligned.offsets)
        return tconv, kw, GainQuirks()
    src = ideal_source(conv) if ideal == "auto" else ideal
    if src not in ("qrels", "run"):
        raise ValueError(f"ideal must be 'auto', 'qrels' or 'run'; got {ideal!r}")
    scores, levels, offsets, tie_key = aligned.scores, aligned.trec_levels(), aligned.offsets, aligned.tie_key
    if src == "qrels":
        judged, joff = aligned.trec_judged(), aligned.ideal_offsets
    else:
        judged, joff = levels, offsets
    if conv.name in BOGUS_RANKING_PRESETS:
        scores, levels, tie_key, offsets = bogus_ranking(scores, levels, tie_key, offsets)
    res = resolve_trec_gains(spec, levels, offsets, judged, joff, conv.discount, n_threads)
    kw = dict(scores=scores, offsets=offsets, gains=res.doc_gains, ideal_dcg=res.ideal_dcg)
    if conv.uses_tie_key:
        kw["tie_key"] = tie_key
    return conv, kw, res.quirks


def aligned_scorer(aligned: Any, gains: Any, k: Any = None, convention: Any = "trec_eval",
                   ideal: str = "auto", n_threads: Optional[int] = None):
    """``(scorer, scores, tie_key)`` for an aligned run under custom gains: a
    :class:`GainScorer` under trec_eval's rules (after one
    :class:`TrecGainQuirkWarning` if a quirk changes a value), else a
    :class:`fastndcg.NDCGScorer` with the gain table; score ``scores`` with
    ``tie_key``. Used by :meth:`fastndcg.io.readers.AlignedRun.ndcg` and ``mean_ndcg``."""
    conv, kw, quirks = aligned_inputs(aligned, gains, convention, ideal, n_threads)
    warn_quirks(quirks, as_gains(gains), stacklevel=4)
    scores, key = kw.pop("scores"), kw.pop("tie_key", None)
    if "gains" in kw:
        return GainScorer(kw["gains"], kw["offsets"], k, convention=conv, ideal_dcg=kw["ideal_dcg"],
                          n_threads=n_threads), scores, key
    return NDCGScorer(kw.pop("labels"), kw.pop("offsets"), k, convention=conv, n_threads=n_threads, **kw), scores, key
