"""Pure-Python reference for trec_eval's custom gains (``trec_eval -m ndcg.L=G,...``).

The spec the compiled path (:mod:`fastndcg.measures` (custom gains: ``GainSpec``, ``GainScorer``)) is tested against,
written one topic at a time after trec_eval 10.0 (usnistgov/trec_eval
f4253652: ``gain_init.c``, ``form_res_rels.c``, ``m_ndcg.c``; trec_eval
9.0.x, bundled by pytrec_eval, has the same rules). For one topic:

* **Levels.** A retrieved document has the level of its judgment when that
  is >= 0, level -1 when it is not in the qrels, level -2 when it is judged
  below 0. The judged levels are the judgments >= 0 of *every* judged document
  of the topic, retrieved or not; c[l] counts them and L = 1 + the highest
  judged level (0 when the topic has no judgment >= 0).
* **Gain entries.** The listed pairs ``(level, gain)`` in listing order
  (duplicates kept), each with count 0; then for each level i = 0..L-1 the
  *first* listed entry for i receives the count c[i], or, if i is not listed,
  an entry (i, i, c[i]) is appended: unlisted levels keep gain = level.
  Levels -1 and -2 get a gain only when listed.
* **Order.** The entries are sorted by glibc's ``qsort`` (a top-down merge
  sort: the first half has n // 2 entries, and a merge takes the left entry
  when the comparison is <= 0) with trec_eval's comparator ``(int)(g1 - g2)``
  as x86-64 computes it: the difference truncated toward zero, or INT_MIN
  when it is NaN or out of the int range. So gains less than 1 apart compare
  equal (they keep their listing order) and a difference of 2**31 or more
  compares as "smaller".
* **DCG.** A retrieved document's gain is that of the first entry of its level
  in the sorted order (0 when its level has no entry). Documents are ranked by
  score descending, ties by docno descending (the convention's ``tie_key``).
* **Ideal DCG.** A walk from the last sorted entry down: entries whose count is
  used up (or 0) are skipped; each position takes the gain of the current
  entry; the walk stops at the first entry with a count whose gain is <= 0,
  or at once when the *last* sorted entry (count 0 or not) has gain <= 0.
  IDCG = sum_p gain_p D(p) over the positions walked (never cut at k).
* **NDCG** = DCG / IDCG when IDCG > 0, else 0 (the topic counts in the mean).
* **-c** (trec_eval 10): a judged topic missing from the run is ranked as one
  document that is not in the qrels (score 1, level -1), so with a gain listed
  for -1 its DCG is that gain (trec_eval 9 counts such a topic as 0).

Sums run in rank order, in double, as gain times D(r) = 1 / log2(r + 1)
(the package's discount; trec_eval divides by log2(r + 1), which can differ
in the last bit). Nothing here imports a compiled module.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["c_int_difference", "glibc_qsort", "trec_gain_entries", "trec_level_gain",
           "trec_ideal_gains", "trec_gain_topic_ndcg", "trec_gain_ndcg"]

from fastndcg.conventions._trec_levels import C_INT_MIN as INT_MIN
from fastndcg.conventions._trec_levels import LEVEL_UNJUDGED

Entry = Tuple[int, float, int]      # (level, gain, count)


def c_int_difference(a: float, b: float) -> int:
    """``(int)(a - b)`` as compiled C gives it on x86-64 (``cvttsd2si``):
    the double difference truncated toward zero, INT_MIN when it is NaN or
    outside the 32-bit int range."""
    d = a - b
    if not (-2147483649.0 < d < 2147483648.0):     # also False for NaN
        return INT_MIN
    return int(d)


def glibc_qsort(items: Sequence, cmp) -> list:
    """glibc's ``qsort`` (``msort_with_tmp``): top-down merge sort, the first
    half holding n // 2 items, the left item taken when ``cmp(left, right) <= 0``.
    With a consistent comparator this is a stable sort; with trec_eval's
    gain comparator (not transitive) the result depends on these details."""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    left = glibc_qsort(items[:n1], cmp)
    right = glibc_qsort(items[n1:], cmp)
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def _compare_entries(a: Entry, b: Entry) -> int:
    return c_int_difference(a[1], b[1])


def trec_gain_entries(pairs: Sequence[Tuple[int, float]], level_counts: Sequence[int]) -> List[Entry]:
    """trec_eval's ``setup_gains``: the sorted ``(level, gain, count)`` entries.

    Parameters
    ----------
    pairs : sequence of (level, gain)
        The listed gains, in listing order (a level may repeat).
    level_counts : sequence of int
        c[l] for l = 0, 1, ...: judged documents of the topic at level l
        (retrieved or not). L = 1 + the last l with c[l] > 0.
    """
    counts = [int(c) for c in level_counts]
    n_levels = 0
    for level, c in enumerate(counts):
        if c > 0:
            n_levels = level + 1
    entries: List[list] = [[int(level), float(gain), 0] for level, gain in pairs]
    n_listed = len(entries)
    for level in range(n_levels):
        for entry in entries[:n_listed]:
            if entry[0] == level:
                entry[2] = counts[level]
                break
        else:
            entries.append([level, float(level), counts[level]])
    return [tuple(e) for e in glibc_qsort(entries, _compare_entries)]


def trec_level_gain(entries: Sequence[Entry], level: int) -> float:
    """``get_gain``: the gain of the first sorted entry of ``level``, else 0."""
    for lv, gain, _ in entries:
        if lv == level:
            return gain
    return 0.0


def trec_ideal_gains(entries: Sequence[Entry]) -> List[float]:
    """The gains of trec_eval's ideal ranking, best position first (``m_ndcg.c``)."""
    cur = len(entries) - 1
    gain = entries[cur][1] if cur >= 0 else 0.0
    used = 0
    out: List[float] = []
    while gain > 0.0:
        used += 1
        while cur >= 0 and used > entries[cur][2]:
            used = 1
            cur -= 1
            gain = entries[cur][1] if cur >= 0 else 0.0
        if gain > 0.0:
            out.append(gain)
    return out


def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def trec_gain_topic_ndcg(pairs: Sequence[Tuple[int, float]], scores: Sequence[float],
                         tie_key: Sequence[int], levels: Sequence[int], judged: Sequence[int],
                         cutoffs: Sequence[Optional[int]], score_precision: str = "native") -> List[float]:
    """NDCG of one topic under trec_eval's custom gains, at each cutoff.

    ``levels``: each retrieved document's level (its judgment >= 0, -1 not in
    the qrels, -2 judged below 0); ``judged``: the judgment of every judged
    document of the topic (negative ones included; they are not counted);
    ``tie_key``: the docno rank (ties go to the larger key first, as trec_eval's
    docno-descending order). A cutoff k sums the DCG over the top k; the
    ideal is never cut (None: the whole ranking).
    """
    counts = [0] * (max([j for j in judged if j >= 0], default=-1) + 1)
    for j in judged:
        if j >= 0:
            counts[int(j)] += 1
    entries = trec_gain_entries(pairs, counts)
    s = [float(np.float32(x)) if score_precision == "float32" else float(x) for x in scores]
    order = sorted(range(len(s)), key=lambda i: (-s[i], -int(tie_key[i]), i))
    gains = [trec_level_gain(entries, int(levels[i])) for i in order]
    ideal = 0.0
    for p, g in enumerate(trec_ideal_gains(entries)):
        ideal += g * _discount(p + 1)
    out = []
    for k in cutoffs:
        depth = len(gains) if k is None else min(int(k), len(gains))
        dcg = 0.0
        for r in range(depth):
            dcg += gains[r] * _discount(r + 1)
        out.append(dcg / ideal if ideal > 0.0 else 0.0)
    return out


def trec_gain_ndcg(pairs: Sequence[Tuple[int, float]], scores, levels, offsets, tie_key, judged,
                   judged_offsets, k=None, score_precision: str = "native",
                   missing_as_unjudged: bool = False) -> np.ndarray:
    """Per-topic NDCG under trec_eval's custom gains over CSR topics.

    ``scores``/``levels``/``tie_key`` with ``offsets`` hold the retrieved
    documents; ``judged`` with ``judged_offsets`` every judgment of the same
    topics. Shape (n_topics,) for a single k, (n_topics, n_cutoffs) for a list.
    The mean over topics is the plain mean (trec_eval: sum / number of topics).
    ``missing_as_unjudged``: a topic without retrieved documents is ranked as
    one document of level -1 (trec_eval 10's ``-c``).
    """
    single = k is None or isinstance(k, (int, np.integer))
    cutoffs = [k] if single else list(k)
    off = [int(x) for x in offsets]
    joff = [int(x) for x in judged_offsets]
    scores, levels, tie_key, judged = (np.asarray(a) for a in (scores, levels, tie_key, judged))
    rows = []
    for q in range(len(off) - 1):
        a, b = off[q], off[q + 1]
        s, key, lev = scores[a:b], tie_key[a:b], levels[a:b]
        if missing_as_unjudged and a == b:
            s, key, lev = [1.0], [0], [LEVEL_UNJUDGED]
        rows.append(trec_gain_topic_ndcg(pairs, s, key, lev, judged[joff[q]:joff[q + 1]], cutoffs,
                                         score_precision))
    arr = np.array(rows, dtype=np.float64).reshape(len(rows), len(cutoffs))
    return arr[:, 0] if single else arr
