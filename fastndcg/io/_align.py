"""A run joined with qrels: :func:`align_run` gives the CSR arrays of :func:`fastndcg.ndcg`
(:class:`AlignedRun`), ranking and judging as trec_eval does (unjudged documents, negative
judgments, docno tie order, the ideal from the qrels or the run). Arrays out: the measures take
them (:func:`fastndcg.measures.aligned_ndcg`, :func:`fastndcg.measures.evaluate_trec`); io never
imports the measures or the kernels."""
from __future__ import annotations
import dataclasses
import os
import queue
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from fastndcg.io import _parse
from fastndcg.conventions._topics import DEFAULT_MISSING, check_missing
from fastndcg._core.arguments import NamedArgumentError, check_max_docs, literal
from fastndcg._core.threads import effective_n_threads, helper_pool, threads_for
from fastndcg.io._files import DEFAULT_BLOCK_SIZE, PathLike, Progress, line_error, iter_line_blocks, rereadable
from fastndcg.io._pages import PAGED_RESULTS, heap_array, page_array
from fastndcg.io._trec import ParsedRows, Qrels, Run, TrecParser, no_rows_error, read_qrels, read_run


# ----------------------------------------------------------------------------- alignment

#: A joined result keeps its judgment's row and its tie key in 32 bits.
INT32_MAX = 2 ** 31 - 1

#: Bytes of a run file read at a time while it is joined (:class:`RunJoiner`). A piece
#: joined at once holds at least a block's lines, at about 80 bytes each while it is
#: joined (a block of short lines holds the more): 4 MiB keeps that near 10 MiB, and
#: costs no speed (measured against 16 MiB: 0.28 s against 0.31 s for 5M lines).
JOIN_BLOCK_SIZE = 4 << 20

@dataclass
class AlignedRun:
    """A run joined with qrels, as CSR arrays for :func:`fastndcg.ndcg`.

    Attributes
    ----------
    scores : float64 (n_docs,)
        Retrieved documents of the evaluated topics; within a topic in file order.
    labels : int32 (n_docs,)
        Judged relevance, with unjudged documents and negative judgments 0
        (trec_eval's gain for them); int64 when a judgment is above 2**31 - 1.
    offsets : int64 (n_queries + 1,)
    tie_key : int64 (n_docs,)
        Each document's rank within its topic by (score rounded to float32,
        docno bytewise), ascending. Within every group of equal scores, as
        doubles or rounded to float32 (trec_eval 9 / pytrec_eval), it orders
        the documents by docno, which is all a ranking reads from it:
        ``ties="key_desc"`` ranks tied scores by docno descending, as
        trec_eval (score descending, then docno descending). Docnos are
        compared only within such groups (the join does not sort them).
    ideal_labels, ideal_offsets : int64
        Every judged document of each evaluated topic, negatives as 0: the
        ideal list of trec_eval (retrieved or not).
    qids : object array of str (n_queries,)
        Topic of each query, bytewise order (trec_eval's output order).
    missing_qids : list of str
        Qrels topics with no results in the run (evaluated as empty queries
        with ``missing="zero"``, left out with ``"skip"``).
    ignored_qids : list of str
        Run topics without judgments (never evaluated, as trec_eval).
    n_retrieved : int64 (n_queries,)
        Results per query (after ``max_docs``).
    status : int8 (n_docs,), optional
        How each retrieved document is judged, for trec_eval's custom gains:
        0 judged >= 0 (its level is ``labels``), -1 not in the qrels, -2
        judged below 0 (trec_eval's levels for them). None: every document
        is taken as judged at its label.
    ideal_status : int8 (len(ideal_labels),), optional
        0 for a judgment >= 0, -2 for one below 0 (``ideal_labels`` holds it
        as 0); None: every judgment is >= 0.
    score_lines : (int64 rows, int64 lines), optional
        The run file line of each result whose score is beyond float32's range
        (the others keep none: a joined run stores no line per result), for the
        messages of the float32 presets (:meth:`score_line`).
    """

    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    tie_key: np.ndarray
    ideal_labels: np.ndarray
    ideal_offsets: np.ndarray
    qids: np.ndarray
    missing_qids: List[str]
    ignored_qids: List[str]
    n_retrieved: np.ndarray
    run_name: str = ""
    run_path: str = ""
    qrels_path: str = ""
    status: Optional[np.ndarray] = field(default=None, repr=False)
    ideal_status: Optional[np.ndarray] = field(default=None, repr=False)
    score_lines: Optional[Tuple[np.ndarray, np.ndarray]] = field(default=None, repr=False)

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def score_line(self, i: int) -> Optional[int]:
        """The run file line of result ``i`` (a row of ``scores``) when its score is beyond
        float32's range (what a float32 preset warns about or refuses), else None: only
        those rows keep their line (a joined run keeps none: 8 bytes a result)."""
        if self.score_lines is None:
            return None
        rows, lines = self.score_lines
        at = int(np.searchsorted(rows, i))
        return int(lines[at]) if at < rows.shape[0] and int(rows[at]) == i else None

    def trec_levels(self) -> np.ndarray:
        """trec_eval's level of each retrieved document: its judgment when
        >= 0, -1 when it is not in the qrels, -2 when judged below 0."""
        if self.status is None:
            return self.labels.astype(np.int64)
        return np.where(self.status < 0, self.status, self.labels).astype(np.int64)

    def trec_judged(self) -> np.ndarray:
        """Every judgment of each evaluated topic (CSR over ``ideal_offsets``),
        those below 0 as -2: what trec_eval's ideal counts from (levels >= 0)."""
        if self.ideal_status is None:
            return self.ideal_labels.astype(np.int64)
        return np.where(self.ideal_status < 0, self.ideal_status, self.ideal_labels).astype(np.int64)


#: float32's largest finite value: a double beyond it may round to an infinite float32.
FLOAT32_MAX = float(np.finfo(np.float32).max)


def beyond_float32(scores: np.ndarray) -> np.ndarray:
    """Positions of the scores beyond float32's finite range (a superset of those that
    round to +-inf), whose file lines a join keeps for messages."""
    return np.flatnonzero(np.abs(scores) > FLOAT32_MAX)


def missing_topics_error(qrels_path: str, run_path: str, missing_qids: List[str],
                         line: Optional[int] = None) -> NamedArgumentError:
    """The error for judged topics without results under ``missing="error"``
    (:func:`align_run`, :func:`fastndcg.report.evaluate_run`); ``line``: the
    qrels line of the first judgment of the first topic listed."""
    shown = ", ".join(repr(t) for t in missing_qids[:5]) + (" ..." if len(missing_qids) > 5 else "")
    where = f"{qrels_path}:{line}:" if line is not None else f"{qrels_path}:"
    return NamedArgumentError(
        literal(f"{where} {len(missing_qids)} judged topic(s) have no results in {run_path}: {shown}. ")
        + "trec_eval 10 stops here too. Use {0} (as trec_eval -c: they count as 0) or {1} (trec_eval 9.x: "
        "they are left out of the mean)", [("missing", "'zero'"), ("missing", "'skip'")])


def topic_first_line(qrels: Qrels, t: int) -> int:
    """The file line of topic t's first judgment (t: index in qrels.topics)."""
    return int(qrels.lines[qrels.offsets[t]:qrels.offsets[t + 1]].min())


def judged_ideal(qrels: Qrels, topics: np.ndarray, *, with_status: bool = False) -> Tuple[np.ndarray, ...]:
    """trec_eval's ideal list of the selected topics: every judged document,
    negative judgments as 0, as CSR ``(ideal_labels, ideal_offsets)``; with
    ``with_status``, also the :attr:`AlignedRun.ideal_status` of each
    judgment (0, or -2 below 0).

    Parameters
    ----------
    qrels : Qrels
    topics : bool array (qrels.n_topics,)
        The topics to include, in qrels order.
    """
    jcounts = np.diff(qrels.offsets)
    jsel = np.repeat(topics, jcounts)
    relevance = qrels.relevance[jsel]
    ideal_labels = np.maximum(relevance, 0).astype(np.int64)
    ideal_offsets = np.zeros(int(topics.sum()) + 1, dtype=np.int64)
    np.cumsum(jcounts[topics], out=ideal_offsets[1:])
    if with_status:
        return ideal_labels, ideal_offsets, _judgment_status(relevance)
    return ideal_labels, ideal_offsets


def _judgment_status(relevance: np.ndarray) -> np.ndarray:
    """0 for a judgment >= 0, -2 (trec_eval's level of a judgment below 0) else."""
    return np.where(relevance < 0, -2, 0).astype(np.int8)


def align_run(run: Union[Run, PathLike], qrels: Union[Qrels, PathLike], *, missing: str = DEFAULT_MISSING,
              max_docs: Optional[int] = None, float32_scores: bool = False,
              n_threads: Optional[int] = None) -> AlignedRun:
    """Join a run with qrels the way trec_eval does, into CSR arrays.

    Parameters
    ----------
    run, qrels : Run / Qrels or paths
        A run given as a path is joined while it is read
        (:func:`join_run_file`), without a :class:`Run` table: faster, and
        memory peaks at about 25 bytes per result (the output) instead of
        about 80.
    missing : {"error", "zero", "skip"}, default "error"
        Qrels topics that have no results in the run. "error": a ValueError
        listing them (trec_eval 10.0 exits with an error). "zero": evaluated
        as empty rankings, NDCG 0, counted in the mean (trec_eval ``-c``).
        "skip": left out (trec_eval 9.x without ``-c``, pytrec_eval).
        Run topics without qrels are always ignored, as in trec_eval.
    max_docs : int, optional
        Keep only the top ``max_docs`` results of each topic, ranked as
        trec_eval ranks (score descending, docno descending): trec_eval ``-M``.
    float32_scores : bool
        Rank in float32 for ``max_docs`` (trec_eval 9.x / pytrec_eval).

    Returns
    -------
    AlignedRun
    """
    _check_align_options(missing, max_docs)
    if not isinstance(qrels, Qrels):
        qrels = read_qrels_for(run, qrels, n_threads)
    if not isinstance(run, Run):
        joined = join_run_file(run, qrels, n_threads=n_threads)
        return joined.aligned(missing=missing, max_docs=max_docs, float32_scores=float32_scores, n_threads=n_threads,
                              consume=True)
    qindex = {t: i for i, t in enumerate(qrels.topics.tolist())}
    run_topics = run.topics.tolist()
    run_to_q = np.array([qindex.get(t, -1) for t in run_topics], dtype=np.int64)
    ignored = [t for t, q in zip(run_topics, run_to_q.tolist()) if q < 0]
    pair_run = np.flatnonzero(run_to_q >= 0).astype(np.int64)
    pair_q = run_to_q[pair_run]
    match = np.full(len(run), -1, dtype=np.int64)
    _parse.join_sorted(_parse.GroupedStrings(run.pool, run.doc_start, run.doc_len, run.offsets),
                       _parse.GroupedStrings(qrels.pool, qrels.doc_start, qrels.doc_len, qrels.offsets),
                       pair_run, pair_q, match, threads_for(4 * len(run), n_threads))
    # rows of the judged topics, file order within a topic (the table holds
    # them in docno order: its row index is the tie key)
    row_topic = np.repeat(np.arange(run.n_topics, dtype=np.int32), np.diff(run.offsets))
    n = len(run)
    # the table's rows in file order: file_row holds distinct file rows, so when they are 0..n-1
    # (a whole file) inverting them is O(n); a piece of a file is sorted. Then the judged topics'
    # rows, by a stable radix sort on the topic (codes < 2**16: numpy sorts 16-bit keys by radix)
    if n and int(run.file_row.min()) == 0 and int(run.file_row.max()) == n - 1:
        by_file = np.empty(n, dtype=np.int64)
        by_file[run.file_row] = np.arange(n, dtype=np.int64)
    else:
        by_file = np.argsort(run.file_row, kind="stable").astype(np.int64)
    topic_of = row_topic[by_file]
    judged = run_to_q[topic_of] >= 0
    by_file, topic_of = by_file[judged], topic_of[judged]
    key = topic_of.astype(np.uint16) if run.n_topics < (1 << 16) else topic_of
    rows = by_file[np.argsort(key, kind="stable")]
    sizes = np.diff(run.offsets)[pair_run]
    scores = np.ascontiguousarray(run.scores[rows], dtype=np.float64)
    goff = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=goff[1:])
    tie_key = np.empty(rows.shape[0], dtype=np.int32)
    _parse.tie_keys(run.pool, np.ascontiguousarray(run.doc_start[rows], dtype=np.int64),
                    np.ascontiguousarray(run.doc_len[rows], dtype=np.int64), scores, goff, tie_key,
                    threads_for(4 * rows.shape[0], n_threads))
    big = beyond_float32(scores)
    rows_of = _Piece(pair_q, sizes, scores, match[rows].astype(np.int32), tie_key, big, run.lines[rows[big]])
    return _finish_alignment(qrels, [rows_of], ignored, run.name, run.path, missing, max_docs, float32_scores,
                             n_threads)


def read_qrels_for(run: Union[Run, PathLike], qrels: PathLike, n_threads: Optional[int] = None) -> Qrels:
    """Read the qrels that a run will be joined with. The qrels are read
    before a run file (which is joined while it is read), but an error in the
    run is reported first, as when the run was read first: when the qrels
    are malformed, a run path is checked (:func:`read_run`) before the qrels'
    error is raised."""
    try:
        return read_qrels(qrels, n_threads=n_threads)
    except ValueError:
        if not isinstance(run, Run) and rereadable(run):     # a pipe would be read for nothing
            read_run(run, n_threads=n_threads)
        raise


def _check_align_options(missing: str, max_docs: Optional[int]) -> None:
    check_missing(missing)
    check_max_docs(max_docs)


@dataclass
class _Piece:
    """Results of some judged topics: topic ``qidx[i]`` (qrels index,
    increasing) has the next ``sizes[i]`` rows, in file order; ``match``: each
    result's qrels row or -1; ``tie_key``: :attr:`AlignedRun.tie_key`; ``big_rows`` /
    ``big_lines``: :attr:`AlignedRun.score_lines` of the piece."""

    qidx: np.ndarray
    sizes: np.ndarray
    scores: np.ndarray = field(repr=False)
    match: np.ndarray = field(repr=False)
    tie_key: np.ndarray = field(repr=False)
    #: rows (of this piece) whose score is beyond float32's range, and their file lines
    big_rows: Optional[np.ndarray] = field(default=None, repr=False)
    big_lines: Optional[np.ndarray] = field(default=None, repr=False)


def level_dtype(relevance: np.ndarray) -> np.dtype:
    """The dtype of :attr:`AlignedRun.labels` for these judgments: int32 (4 bytes a
    result, a dtype every kernel takes) unless a judgment is above int32's range."""
    big = relevance.size and int(relevance.max()) > INT32_MAX
    return np.dtype(np.int64 if big else np.int32)


def _finish_alignment(qrels: Qrels, pieces: List[_Piece], ignored: List[str], run_name: str, run_path: str,
                      missing: str, max_docs: Optional[int], float32_scores: bool,
                      n_threads: Optional[int] = None, consume: bool = False) -> AlignedRun:
    """The :class:`AlignedRun` of the judged topics a run retrieved, from
    pieces with disjoint topics: rows placed in the qrels' topic order (file
    order within a topic) with their judgments and trec_eval's levels in one
    pass; then ``missing`` and ``max_docs``. ``consume``: the pieces are taken
    out of ``pieces`` and freed one by one as they are placed, so the peak is
    the output (25 bytes a result) plus one piece, not the pieces (16) plus the
    output (:mod:`fastndcg.io._pages`: the output's pages become resident as
    they are written)."""
    nq = qrels.n_topics
    qidx = np.concatenate([pc.qidx for pc in pieces]).astype(np.int64, copy=False)
    sizes = np.concatenate([pc.sizes for pc in pieces]).astype(np.int64, copy=False)
    in_run = np.zeros(nq, dtype=bool)
    in_run[qidx] = True
    missing_qids = [t for t, r in zip(qrels.topics.tolist(), in_run.tolist()) if not r]
    if missing_qids and missing == "error":
        raise missing_topics_error(qrels.path, run_path, missing_qids,
                                   topic_first_line(qrels, int(np.flatnonzero(~in_run)[0])))
    by_topic = np.argsort(qidx, kind="stable")
    qidx, sizes_sorted = qidx[by_topic], sizes[by_topic]
    dest = np.zeros(qidx.shape[0], dtype=np.int64)
    dest[by_topic] = np.concatenate([[0], np.cumsum(sizes_sorted)[:-1]]).astype(np.int64)
    n = int(sizes.sum())
    allocate = page_array if n >= PAGED_RESULTS else heap_array
    scores = allocate(n, np.float64)
    tie_key = allocate(n, np.int64)
    relevance = np.ascontiguousarray(qrels.relevance, dtype=np.int64)
    labels = allocate(n, level_dtype(relevance))        # gain levels: the judgment if >= 0, else 0
    status = allocate(n, np.int8)           # trec_eval's: -1 not in the qrels, -2 judged below 0
    first_topic = np.zeros(len(pieces) + 1, dtype=np.int64)     # each piece's topics in qidx/dest
    np.cumsum([pc.qidx.shape[0] for pc in pieces], out=first_topic[1:])
    order = range(len(pieces) - 1, -1, -1) if consume else range(len(pieces))
    big_rows: List[np.ndarray] = []      # rows of scores beyond float32, and their file lines
    big_lines: List[np.ndarray] = []
    for i in order:
        pc = pieces.pop() if consume else pieces[i]
        k = pc.qidx.shape[0]
        src = np.zeros(k, dtype=np.int64)
        np.cumsum(pc.sizes[:-1], out=src[1:])
        t0 = int(first_topic[i])
        if pc.big_rows is not None and pc.big_rows.size:
            at = np.searchsorted(src, pc.big_rows, side="right") - 1     # each row's topic in the piece
            big_rows.append(dest[t0:t0 + k][at] + pc.big_rows - src[at])
            big_lines.append(np.asarray(pc.big_lines, dtype=np.int64))
        _parse.place_topics(np.ascontiguousarray(pc.scores, dtype=np.float64),
                            np.ascontiguousarray(pc.match, dtype=np.int32),
                            np.ascontiguousarray(pc.tie_key, dtype=np.int32), relevance,
                            _parse.TopicBlocks(src, dest[t0:t0 + k], np.ascontiguousarray(pc.sizes, dtype=np.int64)),
                            scores, tie_key, labels, status,
                            threads_for(int(pc.scores.shape[0]), n_threads))
        del pc
    sizes = sizes_sorted
    counts_all = np.zeros(nq, dtype=np.int64)
    counts_all[qidx] = sizes
    if max_docs is not None:
        qtopic = np.repeat(np.asarray(qidx, dtype=np.int64), sizes)
        with np.errstate(over="ignore"):     # a score beyond float32 ranks as +-inf, as the tools cast it
            ranked = scores.astype(np.float32) if float32_scores else scores
        by_rank = np.lexsort((-tie_key, -ranked.astype(np.float64), qtopic))
        first = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(counts_all, out=first[1:])
        pos = np.empty_like(by_rank)
        pos[by_rank] = np.arange(by_rank.size)
        kept = (pos - first[qtopic]) < max_docs
        scores, labels, tie_key, status = scores[kept], labels[kept], tie_key[kept], status[kept]
        if big_rows:            # the kept rows move up
            rows_, lines_ = np.concatenate(big_rows), np.concatenate(big_lines)
            stays = kept[rows_]
            big_rows, big_lines = [(np.cumsum(kept) - 1)[rows_[stays]]], [lines_[stays]]
        counts_all = np.bincount(qtopic[kept], minlength=nq).astype(np.int64)
    evaluated = in_run if missing == "skip" else np.ones(nq, dtype=bool)
    counts = counts_all[evaluated]
    offsets = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    ideal_labels, ideal_offsets, ideal_status = judged_ideal(qrels, evaluated, with_status=True)
    score_lines = None
    if big_rows:
        rows_, lines_ = np.concatenate(big_rows), np.concatenate(big_lines)
        by_row = np.argsort(rows_, kind="stable")
        score_lines = (rows_[by_row], lines_[by_row])
    return AlignedRun(np.ascontiguousarray(scores), labels, offsets, np.ascontiguousarray(tie_key, dtype=np.int64),
                      ideal_labels, ideal_offsets, qrels.topics[evaluated],
                      missing_qids, ignored, counts, run_name, run_path, qrels.path,
                      np.ascontiguousarray(status), ideal_status, score_lines)


# ----------------------------------------------------------------------------- joining while reading


@dataclass
class JoinedRun:
    """A TREC run joined with qrels (:func:`join_run_file`): the results of
    the judged topics it retrieved, kept as the pieces they were read in (no
    copy into one array). :meth:`aligned` places them in the qrels' (bytewise)
    topic order, file order within a topic, applies trec_eval's options and
    gives the :class:`AlignedRun`.

    Attributes
    ----------
    qrels : Qrels
    qidx : int64 (n_topics,)
        The qrels index of each retrieved judged topic, increasing.
    sizes : int64 (n_topics,)
        Results of each of these topics.
    ignored_qids : list of str
        Run topics without judgments, bytewise order.
    run_name, run_path : str
        The run's tag (of its last line) and file.
    consumed : bool
        True once ``aligned(consume=True)`` has freed the results.
    """

    qrels: Qrels
    qidx: np.ndarray
    sizes: np.ndarray
    pieces: List[_Piece] = field(repr=False)
    ignored_qids: List[str]
    run_name: str = ""
    run_path: str = ""
    consumed: bool = field(default=False, repr=False)

    @property
    def n_results(self) -> int:
        return int(self.sizes.sum())

    def aligned(self, *, missing: str = DEFAULT_MISSING, max_docs: Optional[int] = None, float32_scores: bool = False,
                relevance: Optional[np.ndarray] = None, n_threads: Optional[int] = None,
                consume: bool = False) -> AlignedRun:
        """The :class:`AlignedRun` (``missing``, ``max_docs``, ``float32_scores``
        as :func:`align_run`); ``relevance``: other judgments for the qrels'
        rows (ir_measures' ``gains={...}`` mapping).

        ``consume``: free the joined results as they are placed, for the
        lowest peak (25 bytes a result instead of 41); this JoinedRun cannot
        be aligned again (a ValueError says so)."""
        _check_align_options(missing, max_docs)
        if self.consumed:
            raise ValueError(f"run: this JoinedRun of {self.run_path or 'a run'} was consumed by "
                             "aligned(consume=True); join the run again")
        qrels = self.qrels if relevance is None else dataclasses.replace(self.qrels, relevance=relevance)
        aligned = _finish_alignment(qrels, self.pieces, self.ignored_qids, self.run_name, self.run_path, missing,
                                    max_docs, float32_scores, n_threads, consume)
        if consume:
            self.consumed = True
        return aligned


class _TopicAgain(Exception):
    """A topic's lines come back after another topic's (the run is not grouped by topic)."""


def _join_piece(rows: ParsedRows, qrels: Qrels, qindex: dict, n_threads: Optional[int],
                scratch: List[np.ndarray], allocate: Callable[[int, Any], np.ndarray] = page_array):
    """Group parsed rows by topic and join them with the qrels (compiled,
    parallel over topics: each docno looked up in the qrels'
    :func:`docno_index`); ``allocate``: where the piece's arrays come from
    (:mod:`fastndcg.io._pages`). Returns (names of the piece's topics (bytewise),
    offsets of their rows, order (row ids grouped), qidx, sizes, scores, match,
    tie_key of the judged topics, then the rows of scores beyond float32 and their file lines)."""
    index = docno_index(qrels)
    n_rows, pool_end = rows.n_rows, rows.pool_end
    uniq, seg_code = np.unique(rows.seg_topics, return_inverse=True)
    names = [t.decode("utf-8", "surrogateescape") for t in uniq.tolist()]
    order = np.empty(n_rows, dtype=np.int64)
    offsets = np.empty(len(names) + 1, dtype=np.int64)
    _parse.group_rows(np.ascontiguousarray(rows.seg_first), seg_code.ravel().astype(np.int64), order, offsets)
    qgroup = np.array([qindex.get(t, -1) for t in names], dtype=np.int64)
    judged = qgroup >= 0
    sizes = np.diff(offsets)
    if sizes.size and int(sizes.max()) > INT32_MAX:
        g = int(np.argmax(sizes))
        raise ValueError(f"{rows.path}: topic {names[g]!r} has {int(sizes[g])} results; the join handles up to "
                         f"{INT32_MAX} a topic")
    kept = np.where(judged, sizes, 0)
    dst = np.cumsum(kept) - kept
    n_out = int(kept.sum())
    # what the piece keeps, 16 bytes a result (a large run's in pages of their own, freed as placed)
    scores = allocate(n_out, np.float64)
    tie_key = allocate(n_out, np.int32)
    match = allocate(n_out, np.int32)
    dup = np.empty(2 * len(names), dtype=np.int64)
    if scratch[0].shape[0] < 7 * n_rows:       # reused by the next pieces (no new pages to fault in)
        scratch[0] = np.empty(7 * n_rows, dtype=np.int64)
    index.join(_parse.RunRows(rows.pool[:pool_end], rows.dstart[:n_rows], pool_end, rows.values[:n_rows]),
               order, offsets, qgroup, dst, _parse.JoinedRows(scores, match, tie_key, dup), scratch[0],
               threads_for(8 * n_rows, n_threads))
    again = np.flatnonzero(dup[1::2] >= 0)
    if again.size:
        raise _duplicate_error(rows, names, order, offsets, int(again[0]))
    # the few results beyond float32 keep their file line (for a float32 preset's messages)
    big = beyond_float32(scores)
    at = np.searchsorted(dst + kept, big, side="right")           # each one's topic (group)
    big_lines = rows.lines[order[offsets[at] + big - dst[at]]]
    return names, offsets, order, qgroup[judged], sizes[judged], scores, match, tie_key, big, big_lines


def _duplicate_error(rows: ParsedRows, names: List[str], order: np.ndarray, offsets: np.ndarray,
                     g: int) -> ValueError:
    """The error for topic ``g``'s duplicate docnos, as :func:`read_run` reports them: the
    bytewise smallest docno given twice, at the line of its second occurrence."""
    ids = order[offsets[g]:offsets[g + 1]].tolist()
    ends = [int(rows.dstart[r + 1]) if r + 1 < rows.n_rows else rows.pool_end for r in ids]
    docs = [bytes(rows.pool[int(rows.dstart[r]):e]) for r, e in zip(ids, ends)]
    first: dict = {}
    twice: dict = {}
    for r, d in zip(ids, docs):            # rows in file order
        if d in first:
            twice.setdefault(d, (first[d], r))
        else:
            first[d] = r
    doc = min(twice)
    ra, rb = twice[doc]
    return line_error(rows.path, int(rows.lines[rb]), f"duplicate docno {doc.decode('utf-8', 'surrogateescape')!r} "
                      f"for topic {names[g]!r} (also on line {int(rows.lines[ra])})")


class RunJoiner:
    """Joins TREC run files with one qrels as they are read (:func:`join_run_file`,
    :func:`iter_joined`), one run after the other, reusing its buffers from run to
    run: the block of lines, the parser's arrays and the join's scratch keep their
    pages, which a new run would otherwise fault in again (on a VM, about as long as
    parsing the run). For many runs against one qrels (``fastndcg eval QRELS RUN ...``).

    The qrels' :func:`docno_index` and topic index are built once per :class:`Qrels`
    and shared; a joiner's buffers are its own, so a joiner serves one thread at a
    time (one joiner per thread; its :class:`JoinedRun` results own their arrays).
    Parameters as :func:`iter_joined`.
    """

    def __init__(self, qrels: Qrels, *, chunk_rows: Optional[int] = 1 << 18,
                 block_size: int = JOIN_BLOCK_SIZE, n_threads: Optional[int] = None):
        if chunk_rows is not None and chunk_rows < 1:
            raise ValueError(f"chunk_rows must be >= 1; got {chunk_rows}")
        self.qrels = qrels
        self.chunk_rows = chunk_rows
        self.block_size = block_size
        self.n_threads = n_threads
        self._buffers: List[bytearray] = []
        self._parser: Optional[TrecParser] = None
        self._scratch = [np.empty(0, dtype=np.int64)]

    def release(self) -> None:
        """Drop the buffers (the joiner stays usable; the next run allocates them again)."""
        self._buffers.clear()
        self._parser = None
        self._scratch[0] = np.empty(0, dtype=np.int64)

    def join(self, path: PathLike, progress: Progress = None) -> JoinedRun:
        """The run file joined with the qrels (:func:`join_run_file`)."""
        if not rereadable(path):
            # a pipe, a FIFO or standard input is read once: as one piece from the start, since a
            # topic that comes back after others could not be read again (about 75 bytes a result)
            return _concat_pieces(self.qrels, list(self.pieces(path, progress=progress, stream=False, whole=True)))
        try:
            pieces = list(self.pieces(path, progress=progress, stream=False))
        except _TopicAgain:
            pieces = list(self.pieces(path, progress=progress, stream=False, whole=True))
        return _concat_pieces(self.qrels, pieces)

    def pieces(self, path: PathLike, progress: Progress = None, stream: bool = True,
               whole: bool = False) -> Iterator[JoinedRun]:
        """The run file in pieces of whole topics, each joined (:func:`iter_joined`;
        ``whole``: one piece). Read whole (``stream=False``) on several threads, a
        piece is joined on a helper thread while the next one is read
        (:meth:`_overlap_threads`)."""
        chunk_rows = None if whole else self.chunk_rows
        qrels, scratch = self.qrels, self._scratch
        large = self._large(path)
        allocate = page_array if large else heap_array
        overlap = None if stream or chunk_rows is None or not large else self._overlap_threads()
        parse_threads, join_threads = overlap if overlap is not None else (self.n_threads, self.n_threads)
        p = self._parser
        if p is None:
            # arrays in pages of their own: freed with the joiner, they go back to the system
            # before the run is placed (from the heap they would stay with the process)
            p = self._parser = TrecParser(path, True, parse_threads, allocate=page_array)
        else:
            p.restart(path)
        p.n_threads = parse_threads
        qindex = _topic_index(qrels)
        seen: set = set()

        def checked(rows: ParsedRows, joined: tuple) -> JoinedRun:
            """A joined piece, in file order: its topics must be new (and contiguous when streaming)."""
            names, offsets, order, qidx, sizes, scores, match, tie_key, big, big_lines = joined
            again = [i for i, t in enumerate(names) if t in seen]
            if again:
                if not stream:
                    raise _TopicAgain()
                i = again[0]
                lines = rows.lines[order[offsets[i]:offsets[i + 1]]]
                raise line_error(rows.path, int(lines.min()),
                                 f"topic {names[i]!r} appears again after other topics; {_CONTIGUOUS_TOPICS}")
            if stream:
                _check_topics_contiguous(rows.path, names, offsets, order, rows.lines[order])
            seen.update(names)
            ignored = [t for t in names if t not in qindex]
            return JoinedRun(qrels, qidx, sizes, [_Piece(qidx, sizes, scores, match, tie_key, big, big_lines)], ignored,
                             rows.tag.decode("utf-8", "replace"), rows.path)

        def piece(n_rows: int, n_threads: Optional[int]) -> JoinedRun:
            rows = p.front(n_rows)
            joined = checked(rows, _join_piece(rows, qrels, qindex, n_threads, scratch, allocate))
            p.drop_front(n_rows)
            return joined

        def rest_then_raise(blocks: Iterator[memoryview]) -> None:
            """As read_run: a malformed line further on is reported before a piece's error."""
            if not stream:
                for rest in blocks:
                    p.parse(rest)
                    p.drop_front(p.values.n)

        n_out = 0
        blocks = iter_line_blocks(path, self.block_size, progress, self._buffers)
        pending: Optional[Tuple[ParsedRows, Future]] = None     # the piece being joined on a helper
        spare: Optional[ParsedRows] = None

        def finish_pending() -> Optional[JoinedRun]:
            """The piece joined on the helper (None before the first); its arrays become the spare."""
            nonlocal pending, spare
            if pending is None:
                return None
            rows, job = pending
            pending = None
            joined = checked(rows, job.result())
            spare = rows            # its arrays take the parser's next rows
            return joined

        try:
            for block in blocks:
                p.parse(block)
                if chunk_rows is None or p.values.n < chunk_rows:
                    continue
                cut = p.last_topic_start()
                if cut <= 0:
                    continue
                n_out += cut
                try:
                    joined = piece(cut, self.n_threads) if overlap is None else finish_pending()
                except ValueError:
                    rest_then_raise(blocks)
                    raise
                if overlap is not None:     # the next piece is joined while the caller takes this one
                    rows = p.split_front(cut, spare)
                    spare = None
                    pending = (rows, helper_pool().submit(_join_piece, rows, qrels, qindex, join_threads, scratch,
                                                          allocate))
                if joined is not None:
                    yield joined
            last = finish_pending()
            if last is not None:
                yield last
            if p.values.n:
                yield piece(p.values.n, self.n_threads)
            elif n_out == 0:
                raise no_rows_error(path, True, p.line)
        finally:
            if pending is not None:     # its arrays and the scratch are in use until it ends
                wait([pending[1]])

    #: A run file of this many blocks or more is large (:meth:`_large`).
    LARGE_RUN_BLOCKS = 4

    def _large(self, path: PathLike) -> bool:
        """A run file of at least :attr:`LARGE_RUN_BLOCKS` blocks on disk (a compressed one
        holds more): its results go in pages of their own (freed as the run is placed,
        :mod:`fastndcg.io._pages`) and, on several threads, it is joined while it is read
        (:meth:`_overlap_threads`). A smaller run is a piece or two: heap arrays (pages
        reused from run to run) and the steps in turn."""
        try:
            return os.path.getsize(path) >= self.LARGE_RUN_BLOCKS * self.block_size
        except (OSError, TypeError, ValueError):
            return False

    def _overlap_threads(self) -> Optional[Tuple[int, int]]:
        """(threads parsing, threads joining) when a large run is read whole on
        several threads: pieces are joined on a helper thread while the blocks after
        them are parsed, half the threads each (one each on two cores), instead of
        both steps in turn on all threads, whose parallel parts scale poorly (the
        parse 1.5x on two threads, the join 1.75x; 5M short lines: 0.24 s in turn,
        0.18 s overlapped). None (in turn) on one thread."""
        threads = effective_n_threads(self.n_threads)
        if threads < 2:
            return None
        return threads - threads // 2, threads // 2


def iter_joined(path: PathLike, qrels: Qrels, *, chunk_rows: Optional[int] = 1 << 18,
                block_size: int = JOIN_BLOCK_SIZE, n_threads: Optional[int] = None, progress: Progress = None,
                stream: bool = True) -> Iterator[JoinedRun]:
    """Read a TREC run in pieces of whole topics, each joined with the qrels
    (:class:`JoinedRun`; a piece's ``ignored_qids`` are its own).

    Memory: a piece (about ``chunk_rows`` results, more if one topic is
    larger; ``None``: the whole file is one piece) plus a block. Each topic's
    lines must be contiguous (``stream``: an error naming the line where a
    topic comes back, as :func:`iter_run`; otherwise the internal
    :class:`_TopicAgain`). Pieces come in file order. Many runs: one
    :class:`RunJoiner`'s ``pieces``.
    """
    joiner = RunJoiner(qrels, chunk_rows=chunk_rows, block_size=block_size, n_threads=n_threads)
    return joiner.pieces(path, progress=progress, stream=stream, whole=chunk_rows is None)


def _topic_index(qrels: Qrels) -> dict:
    """{topic: qrels index}, built once per Qrels (the CLI evaluates many runs against one)."""
    index = qrels.__dict__.get("_topic_index")
    if index is None:
        index = {t: i for i, t in enumerate(qrels.topics.tolist())}
        qrels.__dict__["_topic_index"] = index      # the same dict from any thread: a benign race
    return index


def docno_index(qrels: Qrels) -> "_parse.DocnoIndex":
    """The qrels' docnos in a hash table per topic (:class:`fastndcg.io._parse.DocnoIndex`),
    which every run joined with these qrels looks its docnos up in. Built once per
    :class:`Qrels` (compiled, one pass over the judgments) and kept on it: built whole,
    then stored in one step, so threads that race here build equal indexes and any
    may win; the index is read-only afterwards."""
    index = qrels.__dict__.get("_docno_index")
    if index is None:
        if qrels.doc_start.shape[0] > INT32_MAX:      # a result keeps its judgment's row in 32 bits
            raise ValueError(f"{qrels.path}: {qrels.doc_start.shape[0]} judgments; a run is joined with up to "
                             f"{INT32_MAX}")
        index = _parse.DocnoIndex(qrels.pool, qrels.doc_start, qrels.doc_len, qrels.offsets)
        qrels.__dict__["_docno_index"] = index
    return index


def join_run_file(path: PathLike, qrels: Qrels, *, chunk_rows: int = 1 << 18,
                  block_size: int = JOIN_BLOCK_SIZE, n_threads: Optional[int] = None,
                  progress: Progress = None) -> JoinedRun:
    """Read a TREC run and join it with qrels as it is read: the rows of
    :func:`align_run` without building a :class:`Run` table.

    The file is read in pieces of whole topics, each grouped by topic (a
    counting pass) and joined within topics (compiled, in parallel over
    topics): each docno is looked up in the qrels' :func:`docno_index`, and
    only the docnos of results with equal scores are compared with each other
    (the tie key); a piece's docnos are dropped once it is joined. A large
    run on several threads is joined while it is read: each piece on a helper
    thread while the next blocks are parsed (:meth:`RunJoiner._overlap_threads`).
    Many runs against one qrels: :meth:`RunJoiner.join` (buffers kept between runs).
    Memory: 16 bytes per result (score; judgment row and tie key in 32 bits) plus a piece
    (about 80 bytes per result of ``chunk_rows`` results, at least a block's)
    plus a block. A run whose topics are not each one stretch of lines
    (legal, rare) is read again as one piece: about 75 bytes per result.
    Errors as :func:`read_run`.
    """
    return RunJoiner(qrels, chunk_rows=chunk_rows, block_size=block_size, n_threads=n_threads).join(path, progress)


#: Run files up to this size (bytes on disk) are read side by side when several runs are
#: joined with one qrels on several threads (:func:`join_runs`).
SIDE_BY_SIDE_BYTES = 64 << 20


def run_threads(paths: Sequence[PathLike], n_threads: Optional[int] = None) -> Tuple[int, Optional[int]]:
    """(runs read at once, threads per run) of :func:`join_runs`: with several runs, all
    of them files of at most :data:`SIDE_BY_SIDE_BYTES`, and several threads, one run per
    thread (up to one per run), each read, parsed and joined on its own thread; else one
    run at a time on all the threads. A run of 100,000 lines is too small for its parallel
    regions to pay (their start, and the wait at their end for a thread the machine
    descheduled), while runs side by side need no barrier; large runs stay one at a time
    (the memory of one run in flight)."""
    threads = effective_n_threads(n_threads)
    if len(paths) < 2 or threads < 2:
        return 1, n_threads
    try:
        small = all(os.path.getsize(p) <= SIDE_BY_SIDE_BYTES for p in paths)
    except (OSError, TypeError, ValueError):
        small = False
    if not small:
        return 1, n_threads
    at_once = min(threads, len(paths))
    return at_once, max(1, threads // at_once)


def join_runs(paths: Sequence[PathLike], qrels: Qrels, *, n_threads: Optional[int] = None,
              progress: Optional[Callable[[str], Progress]] = None) -> Iterator[JoinedRun]:
    """Many runs, one qrels: each run file joined with the qrels (:meth:`RunJoiner.join`),
    in the order of ``paths``. The qrels' index is built once; each reading thread keeps
    one :class:`RunJoiner` (its buffers) for all its runs. :func:`run_threads` says how
    many runs are read at once: at most that many plus one joined runs are held ahead of
    the caller. The first failing run (in order) raises its error; the runs after it are
    not waited for. ``progress(path)``: a progress callback per file (then one run at a
    time, so that one bar is drawn at a time)."""
    at_once, per_run = run_threads(paths, n_threads)
    if progress is not None or at_once == 1:
        joiner = RunJoiner(qrels, n_threads=per_run)
        for i, path in enumerate(paths):
            joined = joiner.join(path, progress=progress(os.fspath(path)) if progress is not None else None)
            if i == len(paths) - 1:
                joiner.release()        # the buffers are not held while the last run is evaluated
            yield joined
        return
    docno_index(qrels)          # built once here, not raced for by the readers
    _topic_index(qrels)
    free: "queue.SimpleQueue[RunJoiner]" = queue.SimpleQueue()
    for _ in range(at_once):
        free.put(RunJoiner(qrels, n_threads=per_run))

    def join(path: PathLike) -> JoinedRun:
        joiner = free.get()
        try:
            return joiner.join(path)
        finally:
            free.put(joiner)

    pool = ThreadPoolExecutor(at_once, thread_name_prefix="fastndcg-runs")
    pending: Deque[Future] = deque()
    rest = iter(paths)
    try:
        for path in rest:
            pending.append(pool.submit(join, path))
            if len(pending) > at_once:
                break
        while pending:
            joined = pending.popleft().result()
            for path in rest:
                pending.append(pool.submit(join, path))
                break
            if not pending:             # the last run: every joiner is idle, its buffers not needed
                while not free.empty():
                    free.get().release()
            yield joined
    finally:
        for f in pending:
            f.cancel()
        pool.shutdown(wait=True)


def _bytewise(topic: str) -> bytes:
    """Sort key of a topic as the readers order them (its file bytes)."""
    return topic.encode("utf-8", "surrogateescape")


def _concat_pieces(qrels: Qrels, pieces: List[JoinedRun]) -> JoinedRun:
    """One :class:`JoinedRun` of pieces with disjoint topics (their rows stay where they are)."""
    qidx = np.concatenate([pc.qidx for pc in pieces])
    sizes = np.concatenate([pc.sizes for pc in pieces])
    by_topic = np.argsort(qidx, kind="stable")
    return JoinedRun(qrels, qidx[by_topic], sizes[by_topic], [p for pc in pieces for p in pc.pieces],
                     sorted((t for pc in pieces for t in pc.ignored_qids), key=_bytewise), pieces[-1].run_name,
                     pieces[0].run_path)


_CONTIGUOUS_TOPICS = ("streaming needs each topic's lines to be contiguous (sort the run by topic "
                      "first, e.g. sort -s -k1,1)")


def _check_topics_contiguous(ps, names, offsets, order, lines) -> None:
    """Within one piece (rows grouped by topic), each topic's file rows must
    be one contiguous stretch: a topic interrupted by another is an error at
    the line where it comes back, however the file is cut into pieces."""
    off = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(off)
    nonempty = np.flatnonzero(sizes > 0)
    if nonempty.size == 0:
        return
    starts = off[nonempty]
    order = np.asarray(order)
    span = np.maximum.reduceat(order, starts) - np.minimum.reduceat(order, starts) + 1
    broken = nonempty[span != sizes[nonempty]]
    if broken.size == 0:
        return
    bad_line = None
    bad_topic = None
    for i in broken:
        a, b = int(off[i]), int(off[i + 1])
        idx = np.argsort(order[a:b], kind="stable")
        rows = order[a:b][idx]
        k = int(np.flatnonzero(np.diff(rows) != 1)[0]) + 1
        line = int(lines[a + idx[k]])
        if bad_line is None or line < bad_line:
            bad_line, bad_topic = line, names[i]
    raise line_error(ps, bad_line, f"topic {bad_topic!r} appears again after other topics; {_CONTIGUOUS_TOPICS}")


def iter_run(path: PathLike, *, chunk_rows: int = 1 << 20, block_size: int = DEFAULT_BLOCK_SIZE,
             n_threads: Optional[int] = None, progress: Progress = None) -> Iterator[Run]:
    """Stream a TREC run as :class:`Run` pieces of whole topics.

    For runs larger than memory: memory is a piece (about ``chunk_rows``
    results, more if one topic is larger) plus a block. Each topic's lines
    must be contiguous in the file (a topic that reappears after another is
    an error naming the line). Within a piece topics are in bytewise order;
    pieces come in file order. ``file_row`` counts from the file's first
    result line.
    """
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be >= 1; got {chunk_rows}")
    p = TrecParser(path, True, n_threads)
    seen: set = set()
    row0 = 0

    def piece(n_rows: int) -> Run:
        nonlocal row0
        (ps, topics, offsets, pool, s, ln, lines, scores, order, tag) = p.table(n_rows, n_threads, copy=True)
        names = topics.tolist()
        again = [i for i, t in enumerate(names) if t in seen]
        if again:
            i = again[0]
            raise line_error(ps, int(lines[offsets[i]:offsets[i + 1]].min()),
                        f"topic {names[i]!r} appears again after other topics; {_CONTIGUOUS_TOPICS}")
        _check_topics_contiguous(ps, names, offsets, order, lines)
        seen.update(names)
        run = Run(ps, topics, offsets, pool, s, ln, lines, scores=scores, file_row=order + row0, name=tag)
        p.drop_front(n_rows)
        row0 += n_rows
        return run

    for block in iter_line_blocks(path, block_size, progress):
        p.parse(block)
        if p.values.n >= chunk_rows:
            cut = p.last_topic_start()
            if cut > 0:
                yield piece(cut)
    if p.values.n:
        yield piece(p.values.n)
    elif row0 == 0:
        raise no_rows_error(path, True, p.line)
