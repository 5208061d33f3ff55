"""Runs in memory (pytrec_eval's dicts, rows of namedtuples, frames) joined with qrels the way a
run file is, without a :class:`fastndcg.io.Run` table: their rows when their ids and scores are the
usual ones (:func:`plain_dict_rows`, :func:`plain_list_rows`), then :func:`join_run_rows`.
:func:`fastndcg.measures._evaluation.run_and_qrels` chooses this door or the table."""
from __future__ import annotations
from collections import defaultdict
from itertools import groupby
from typing import Any, List, Optional, Tuple

import numpy as np

from fastndcg._core.threads import threads_for
from fastndcg.io import _parse
from fastndcg.io._alignment import JoinedPiece, beyond_float32
from fastndcg.io._joined_runs import JoinedRun
from fastndcg.io._joining import docno_index
from fastndcg.io._trec import Qrels


#: Rows of a run in memory joined at a time (:func:`join_run_rows`): the join's scratch is
#: 7 words a row, kept within a few MiB as for a file's pieces.
ROWS_PIECE = 1 << 18


def join_run_rows(qrels: Qrels, topics: List[str], sizes: np.ndarray, pool: np.ndarray, start: np.ndarray,
                  values: np.ndarray, n_threads: Optional[int] = None, run_path: str = "run") -> Optional[JoinedRun]:
    """A run in memory joined with the qrels the way a run file is (each docno looked up in
    the qrels' :func:`docno_index`, tie keys among equal scores only), without a :class:`Run`
    table (whose docnos are sorted within topics). The run is its rows grouped by topic:
    ``topics[i]`` (a plain ASCII id, :func:`plain_ids`) has the next ``sizes[i]`` rows (0: an
    empty ranking); row r's docno is ``pool[start[r]:start[r + 1]]`` (``start``: rows + 1
    entries) and its score ``values[r]`` (:func:`fastndcg.io._parse.dict_rows` of pytrec_eval's dicts). A row's
    "line" in messages is its position + 1, as in the table. Joined in pieces of about
    :data:`ROWS_PIECE` rows; each piece's topics in qrels order. None when a topic lists
    a docno twice (the caller's general path names the rows)."""
    qindex = {t: i for i, t in enumerate(qrels.topics.tolist())}
    index = docno_index(qrels)
    qgroup_all = np.array([qindex.get(t, -1) for t in topics], dtype=np.int64)
    goff_all = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum(sizes, out=goff_all[1:])
    ranges: List[Tuple[int, int]] = []
    t0 = 0
    for t1, end in enumerate(goff_all[1:].tolist(), 1):
        if end - int(goff_all[t0]) >= ROWS_PIECE or t1 == len(topics):
            ranges.append((t0, t1))
            t0 = t1
    widest = max([int(goff_all[b] - goff_all[a]) for a, b in ranges] + [0])
    scratch = np.empty(7 * widest, dtype=np.int64)
    order = np.arange(widest, dtype=np.int64)
    pieces: List[JoinedPiece] = []
    for a_t, b_t in ranges:
        a, b = int(goff_all[a_t]), int(goff_all[b_t])
        qg = qgroup_all[a_t:b_t]
        goff = goff_all[a_t:b_t + 1] - a
        judged = np.flatnonzero(qg >= 0)
        by_q = judged[np.argsort(qg[judged], kind="stable")]      # judged topics in qrels order
        kept = np.diff(goff)[by_q]
        dst = np.zeros(b_t - a_t, dtype=np.int64)
        dst[by_q] = np.cumsum(kept) - kept
        n_out = int(kept.sum())
        scores = np.empty(n_out, dtype=np.float64)
        match = np.empty(n_out, dtype=np.int32)
        tie_key = np.empty(n_out, dtype=np.int32)
        dup = np.empty(2 * (b_t - a_t), dtype=np.int64)
        index.join(_parse.RunRows(pool, start[a:b], int(start[b]), values[a:b]), order[:b - a], goff, qg, dst,
                   _parse.JoinedRows(scores, match, tie_key, dup), scratch, threads_for(8 * (b - a), n_threads))
        if (dup[1::2] >= 0).any():
            return None
        big = beyond_float32(scores)
        g = by_q[np.searchsorted(dst[by_q], big, side="right") - 1]      # each one's topic
        pieces.append(JoinedPiece(qg[by_q], kept, scores, match, tie_key, big, a + goff[g] + big - dst[g] + 1))
    qidx = np.concatenate([pc.qidx for pc in pieces]) if pieces else np.zeros(0, dtype=np.int64)
    n_rows = np.concatenate([pc.sizes for pc in pieces]) if pieces else np.zeros(0, dtype=np.int64)
    by_topic = np.argsort(qidx, kind="stable")
    # bytewise order (ASCII ids: their str order)
    ignored = sorted(t for t, q in zip(topics, qgroup_all.tolist()) if q < 0)
    return JoinedRun(qrels, qidx[by_topic], n_rows[by_topic], pieces, ignored, "", run_path)


def plain_ids(keys: List[Any]) -> bool:
    """Whether every query id is a plain ASCII str: not empty, no whitespace or control character."""
    return all(type(k) is str and k and k.isascii() and k.isprintable() and " " not in k for k in keys)


def plain_list_rows(q: Optional[list], d: list, v: list, stretches: Any):
    """The rows of :func:`plain_dict_rows` from (query ids, doc ids, values) lists of rows
    (namedtuples, a frame) when every id is a plain ASCII str, each query's rows come
    together and every score is finite; else None."""
    if q is None or not d:
        return None
    segments = [(k, len(list(g))) for k, g in groupby(q)]       # stretches of one query id (C loops)
    keys = [k for k, _ in segments]
    if not plain_ids(keys) or len(set(keys)) != len(keys):
        return None
    try:
        text = "".join(d)
    except TypeError:
        return None
    if not text.isascii():
        return None
    pool = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    start = np.zeros(len(d) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, d), dtype=np.int64, count=len(d)), out=start[1:])
    try:
        scores = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if (scores.shape != (len(d),) or not np.isfinite(scores).all() or (pool <= 32).any()
            or (np.diff(start) == 0).any()):
        return None
    return keys, np.array([n for _, n in segments], dtype=np.int64), pool, start, scores


def plain_dict_rows(data: Any, integer: bool):
    """:func:`fastndcg.io._parse.dict_rows` of pytrec_eval's dicts when every query id is a
    plain ASCII str too (the rest as it checks: ASCII doc ids without whitespace or control
    characters, finite float scores / int judgments) and there is a query; else None."""
    if type(data) not in (dict, defaultdict) or not data:     # pytrec_eval's readers give defaultdicts
        return None
    rows = _parse.dict_rows(data, integer)
    if rows is None or not plain_ids(rows[0]):
        return None
    return rows
