"""The engine's trec_eval gain-level rules: sorted gain entries, a level's gain, the ideal walks.

Written from the rules in :mod:`fastndcg.conventions._trec_levels`, apart from the
reference (:mod:`fastndcg.reference._trec_gains`), which the differential tests
compare it with (``tests/measures/test_trec_gain_levels.py``). An entry is
``(level, gain, count)``: count is the number of judged documents of the topic
at that level (0 for listed levels no document has).
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from fastndcg.conventions._trec_levels import C_INT_MIN, C_INT_RANGE, QSORT_SPLIT

Entry = Tuple[int, float, int]

__all__ = ["Entry", "gain_entries", "level_gain", "ideal_gains", "ndcg_p_gains"]


def _c_int_difference(a: float, b: float) -> int:
    d = a - b
    low, high = C_INT_RANGE
    return int(d) if low < d < high else C_INT_MIN      # NaN fails both comparisons


def _qsort(entries: List[Entry]) -> List[Entry]:
    """glibc's top-down merge sort on index ranges, with trec_eval's gain comparator."""
    buf = list(entries)
    tmp = list(entries)

    def sort(lo: int, hi: int) -> None:
        n = hi - lo
        if n <= 1:
            return
        mid = lo + n // QSORT_SPLIT
        sort(lo, mid)
        sort(mid, hi)
        i, j, k = lo, mid, lo
        while i < mid and j < hi:
            if _c_int_difference(buf[i][1], buf[j][1]) <= 0:
                tmp[k] = buf[i]
                i += 1
            else:
                tmp[k] = buf[j]
                j += 1
            k += 1
        while i < mid:
            tmp[k] = buf[i]
            i += 1
            k += 1
        while j < hi:
            tmp[k] = buf[j]
            j += 1
            k += 1
        buf[lo:hi] = tmp[lo:hi]

    sort(0, len(buf))
    return buf


def gain_entries(pairs: Sequence[Tuple[int, float]], level_counts: Sequence[int]) -> List[Entry]:
    """trec_eval's ``setup_gains``: the listed ``(level, gain)`` pairs in listing order, the first
    listed entry of each judged level 0..L-1 carrying its count (L: one past the highest level with
    a judged document), unlisted judged levels appended with gain = level; then sorted."""
    n_levels = max((lv + 1 for lv, c in enumerate(level_counts) if c > 0), default=0)
    first_listed: Dict[int, int] = {}
    for i, (level, _) in enumerate(pairs):
        first_listed.setdefault(int(level), i)
    listed: List[Entry] = [(int(level), float(gain), 0) for level, gain in pairs]
    extra: List[Entry] = []
    for level in range(n_levels):
        count = int(level_counts[level])
        at = first_listed.get(level)
        if at is None:
            extra.append((level, float(level), count))
        else:
            listed[at] = (listed[at][0], listed[at][1], count)
    return _qsort(listed + extra)


def level_gain(entries: Sequence[Entry], level: int) -> float:
    """``get_gain``: the gain of the first sorted entry of ``level`` (0 without one)."""
    return next((gain for lv, gain, _ in entries if lv == level), 0.0)


def ideal_gains(entries: Sequence[Entry]) -> List[float]:
    """``m_ndcg.c``'s ideal: from the last sorted entry down, each judged document of an entry
    takes one position; entries used up or without documents are passed whatever their gain; the
    walk ends at the first entry with documents whose gain is <= 0, or at once when the last
    entry's gain is <= 0."""
    out: List[float] = []
    pos = len(entries) - 1
    if pos < 0 or entries[pos][1] <= 0.0:
        return out
    left = entries[pos][2]
    while True:
        while left == 0:
            pos -= 1
            if pos < 0:
                return out
            left = entries[pos][2]
        if entries[pos][1] <= 0.0:
            return out
        out.append(entries[pos][1])
        left -= 1


def ndcg_p_gains(entries: Sequence[Entry]) -> List[float]:
    """``m_ndcg_p.c``'s ideal: as :func:`ideal_gains`, at most as many positions as judged
    documents, and moving down stops at the first entry with gain <= 0 even when it has no document."""
    out: List[float] = []
    total = sum(e[2] for e in entries)
    pos = len(entries) - 1
    left = entries[pos][2] if pos >= 0 else 0
    while len(out) < total:
        while left == 0:
            pos -= 1
            if pos < 0 or entries[pos][1] <= 0.0:
                return out
            left = entries[pos][2]
        if entries[pos][1] <= 0.0:
            return out
        out.append(entries[pos][1])
        left -= 1
    return out
