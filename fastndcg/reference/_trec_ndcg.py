"""Pure-Python reference for trec_eval's NDCG family, one topic at a time.

The spec :mod:`fastndcg.measures._trec_measures` (and its kernel ``_trec_ndcg.pyx``) is
tested against. Written after trec_eval 10.0 (usnistgov/trec_eval f4253652:
``form_res_rels.c``, ``gain_init.c``, ``m_ndcg.c`` (measures ``ndcg``,
``dcg``, ``ideal_dcg``), ``m_ndcg_cut.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c``,
``m_ndcg_p.c``); the gain entries, their order and the ideal walk are those
of :mod:`fastndcg.reference._trec_gains`. Nothing here imports a compiled module.

For one topic, with ``levels`` the trec_eval level of each ranked document
(its judgment when >= 0, -1 when it is not in the qrels, -2 when judged below
0), in rank order (score descending, docno descending), after ``-M`` (the top
``max_docs``) and, with ``-J``, with every document of a level below 0
removed (the others keep their order), and ``counts`` c[l] of the judged
documents at each level l >= 0 (retrieved or not):

* gains: the sorted entries of :func:`~fastndcg.reference._trec_gains.trec_gain_entries`
  (no listed pair: gain = level); a document's gain g_i is that of its level's
  first entry (0 without one, so levels -1 and -2 have gain 0 unless listed);
* the ideal walk w_1..w_L: :func:`~fastndcg.reference._trec_gains.trec_ideal_gains`;
* D(r) = 1/log2(r + 1) as trec_eval computes it, ``g / log2(r + 1)``; sums in
  rank order; prefixes DCG@r = sum_{i <= r} g_i D(i), IDCG@r = sum_{p <= r} w_p D(p);
* ``dcg`` = DCG@n (all n ranked documents); ``ideal_dcg`` = IDCG@L;
  ``ndcg`` = dcg / ideal_dcg when ideal_dcg > 0, else 0;
* ``ndcg_cut.k`` (no gains: the gain is the level, positive levels only; the
  ideal sorts the levels >= 1 of the judged documents): DCG@min(k, n) / IDCG@k
  when the ideal is > 0, else the DCG;
* ``ndcg_rel``: with R the retrieved documents with g_i > 0,
  S = sum_{i in R} DCG@i / IDCG@min(i, L) + (L - |R|) DCG@n / IDCG@L, the
  value is S / L when S > 0, else 0 (trec_eval's "averaged over rel docs");
* ``Rndcg``: 0 when no judged document has a level >= the relevance level
  (``-l``, default 1); otherwise the mean of DCG@min(b, n) / IDCG@min(b, L)
  over the boundaries b where the ideal gain changes (w_b != w_{b+1}, and the
  walk's end b = L) and, when n > L + 1, b = n (trec_eval's loops skip that
  last point when n = L + 1); boundaries where the ideal DCG is 0 are left
  out (NaN when none is left, as trec_eval computes it);
* ``ndcg_p`` (in trec_eval's source, not in the measure table of its binary):
  the same sums with D'(1) = 1, D'(r) = 1/log2(r) (Jarvelin and Kekalainen
  with b = 2) over its own walk (as the ideal walk, but moving down past a
  used-up entry stops at the first entry with gain <= 0, even one without
  judged documents), DCG'@n / IDCG' when a retrieved document has a level
  >= 0 and >= the relevance level, else 0.

trec_eval divides by zero where it does (``ndcg_rel`` and ``ndcg_p`` with an
empty walk): the reference follows IEEE arithmetic there (inf or NaN).
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from fastndcg.conventions._trec_levels import LEVEL_UNJUDGED
from fastndcg.reference._trec_gains import trec_gain_entries, trec_ideal_gains, trec_level_gain

__all__ = ["rank_topic", "trec_topic_measures", "trec_measures", "MEASURES"]

#: The per-topic values :func:`trec_topic_measures` returns.
MEASURES = ("dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_p")


def _nan() -> float:
    # 0.0 / 0.0 as x86-64 computes it: the default NaN, sign bit set (printf "-nan")
    return -math.nan if math.copysign(1.0, math.nan) > 0 else math.nan


def rank_topic(scores: Sequence[float], tie_key: Sequence[int], levels: Sequence[int], *,
               score_precision: str = "native", max_docs: Optional[int] = None,
               judged_only: bool = False) -> List[int]:
    """The levels of a topic's documents in trec_eval's rank order.

    Score descending (rounded to float32 first with ``score_precision="float32"``,
    as trec_eval 9 / pytrec_eval store scores), then tie key descending (the
    docno rank: docno descending, as trec_eval); the top ``max_docs`` (``-M``);
    with ``judged_only`` (``-J``) the documents of a level below 0 are dropped.
    """
    s = [float(np.float32(x)) if score_precision == "float32" else float(x) for x in scores]
    order = sorted(range(len(s)), key=lambda i: (-s[i], -int(tie_key[i]), i))
    if max_docs is not None:
        order = order[:max_docs]
    out = [int(levels[i]) for i in order]
    if judged_only:
        out = [lv for lv in out if lv >= 0]
    return out


def _level_counts(judged: Sequence[int]) -> List[int]:
    counts = [0] * (max([int(j) for j in judged if j >= 0], default=-1) + 1)
    for j in judged:
        if j >= 0:
            counts[int(j)] += 1
    return counts


def _ndcg_cut(levels: Sequence[int], counts: Sequence[int], cutoffs: Sequence[int]) -> List[float]:
    """``m_ndcg_cut.c``: the gain is the level; cutoffs ascending."""
    values = [0.0] * len(cutoffs)
    n_levels = len(counts)
    ci = 0
    total = 0.0
    done = False
    for i, lv in enumerate(levels):
        if i == cutoffs[ci]:
            values[ci] = total
            ci += 1
            if ci == len(cutoffs):
                done = True
                break
        if lv > 0:
            total += lv / math.log2(i + 2)
    if not done:
        while ci < len(cutoffs):
            values[ci] = total
            ci += 1
    ci = 0
    cur = n_levels - 1
    used = 0
    ideal = 0.0
    i = 0
    while True:
        used += 1
        while cur > 0 and used > counts[cur]:
            cur -= 1
            used = 1
        if cur <= 0:       # trec_eval: cur_lvl == 0 (also no judged level at all)
            break
        if i == cutoffs[ci]:
            if ideal > 0.0:
                values[ci] /= ideal
            ci += 1
            if ci == len(cutoffs):
                break
        ideal += cur / math.log2(i + 2)
        i += 1
    while ci < len(cutoffs):
        if ideal > 0.0:
            values[ci] /= ideal
        ci += 1
    return values


def _ndcg_p_walk(entries) -> List[float]:
    """``m_ndcg_p.c``'s ideal walk: as :func:`trec_ideal_gains`, but moving
    down past a used-up entry stops at the first entry with gain <= 0 even
    when that entry has no judged document."""
    total = sum(e[2] for e in entries)
    cur = len(entries) - 1
    used = 0
    out: List[float] = []
    for _ in range(total):
        used += 1
        stop = False
        while used > entries[cur][2]:
            used = 1
            cur -= 1
            if cur < 0 or entries[cur][1] <= 0.0:
                stop = True
                break
        if stop or cur < 0 or entries[cur][1] <= 0.0:
            break
        out.append(entries[cur][1])
    return out


def trec_topic_measures(levels: Sequence[int], judged: Sequence[int], *,
                        pairs: Sequence[Tuple[int, float]] = (), relevance_level: int = 1,
                        cutoffs: Sequence[int] = ()) -> Dict[str, object]:
    """trec_eval's NDCG family for one topic.

    Parameters
    ----------
    levels : the ranked documents' levels (:func:`rank_topic`)
    judged : the judgment of every judged document of the topic (negative ones
        included; only those >= 0 count)
    pairs : the listed ``(level, gain)`` pairs (``ndcg.L=G``), in order
    relevance_level : trec_eval's ``-l``
    cutoffs : ``ndcg_cut``'s cutoffs, ascending, unique, >= 1

    Returns
    -------
    dict
        ``dcg``, ``ideal_dcg``, ``ndcg``, ``ndcg_rel``, ``Rndcg``, ``ndcg_p``
        (floats) and ``ndcg_cut`` (a list, one value per cutoff; computed
        without the gains, as trec_eval).
    """
    counts = _level_counts(judged)
    entries = trec_gain_entries(pairs, counts)
    gains = [trec_level_gain(entries, lv) for lv in levels]
    walk = trec_ideal_gains(entries)
    n, big_l = len(gains), len(walk)

    dcg_at = [0.0]                 # DCG@r, r = 0..n, summed as trec_eval: += g / log2(r + 1)
    for i, g in enumerate(gains):
        dcg_at.append(dcg_at[-1] + g / math.log2(i + 2) if g != 0 else dcg_at[-1])
    idcg_at = [0.0]
    for p, w in enumerate(walk):
        idcg_at.append(idcg_at[-1] + w / math.log2(p + 2))
    dcg, ideal = dcg_at[n], idcg_at[big_l]
    out: Dict[str, object] = {"dcg": dcg, "ideal_dcg": ideal, "ndcg": dcg / ideal if ideal > 0.0 else 0.0}

    # ndcg_rel
    s = 0.0
    n_rel_ret = 0
    for i, g in enumerate(gains):
        if g > 0:
            s += _div(dcg_at[i + 1], idcg_at[min(i + 1, big_l)])
            n_rel_ret += 1
    s += _div(float(big_l - n_rel_ret) * dcg, ideal)
    out["ndcg_rel"] = _div(s, float(big_l)) if s > 0.0 else 0.0

    # Rndcg
    n_rel = sum(c for lv, c in enumerate(counts) if lv >= relevance_level)
    if n_rel == 0:
        out["Rndcg"] = 0.0
    else:
        bounds = [b for b in range(1, big_l) if walk[b] != walk[b - 1]] + [big_l]
        if n > big_l + 1:          # trec_eval adds the last point only past the walk's end + 1
            bounds.append(n)
        s, m = 0.0, 0
        for b in bounds:
            idcg = idcg_at[min(b, big_l)]
            if idcg > 0.0:
                s += dcg_at[min(b, n)] / idcg
                m += 1
        out["Rndcg"] = s / m if m else _nan()

    # ndcg_p: discount 1 at rank 1, 1/log2(r) after
    sp = 0.0
    for i, g in enumerate(gains):
        if g != 0:
            sp += g / math.log2(i + 1) if i > 0 else g
    ip = 0.0
    for p, w in enumerate(_ndcg_p_walk(entries)):
        ip += w / math.log2(p + 1) if p > 0 else w
    rel_ret = sum(1 for lv in levels if lv >= 0 and lv >= relevance_level)
    out["ndcg_p"] = _div(sp, ip) if rel_ret > 0 else 0.0

    out["ndcg_cut"] = _ndcg_cut(levels, counts, list(cutoffs)) if cutoffs else []
    return out


def _div(a: float, b: float) -> float:
    """a / b with IEEE semantics (C's division)."""
    if b != 0.0:
        return a / b
    if a == 0.0 or math.isnan(a):
        return _nan()
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def trec_measures(scores, levels, offsets, tie_key, judged, judged_offsets, *, pairs=(),
                  relevance_level: int = 1, cutoffs: Sequence[int] = (), score_precision: str = "native",
                  max_docs: Optional[int] = None, judged_only: bool = False,
                  missing_as_unjudged: bool = False) -> Dict[str, np.ndarray]:
    """Every measure of :func:`trec_topic_measures` over CSR topics.

    ``scores``/``levels``/``tie_key`` with ``offsets``: the retrieved
    documents; ``judged`` with ``judged_offsets``: every judgment of the same
    topics. ``missing_as_unjudged``: a topic without retrieved documents is
    ranked as one document of level -1 (trec_eval 10's ``-c``). Returns
    {measure: array (n_topics,)} and ``ndcg_cut``: (n_topics, n_cutoffs).
    """
    off = [int(x) for x in offsets]
    joff = [int(x) for x in judged_offsets]
    scores, levels, tie_key, judged = (np.asarray(a) for a in (scores, levels, tie_key, judged))
    rows = []
    for q in range(len(off) - 1):
        a, b = off[q], off[q + 1]
        s, key, lev = scores[a:b], tie_key[a:b], levels[a:b]
        if missing_as_unjudged and a == b:
            s, key, lev = [1.0], [0], [LEVEL_UNJUDGED]
        ranked = rank_topic(s, key, lev, score_precision=score_precision, max_docs=max_docs,
                            judged_only=judged_only)
        rows.append(trec_topic_measures(ranked, judged[joff[q]:joff[q + 1]].tolist(), pairs=pairs,
                                        relevance_level=relevance_level, cutoffs=cutoffs))
    out = {m: np.array([r[m] for r in rows], dtype=np.float64) for m in MEASURES}
    out["ndcg_cut"] = np.array([r["ndcg_cut"] for r in rows], dtype=np.float64).reshape(len(rows), len(cutoffs))
    return out
