"""The join of run files with qrels while they are read: the threaded pipeline (a piece of whole
topics is parsed, grouped and joined, a large run's next piece parsed while one is joined;
several small runs side by side, :func:`join_runs`), whose result is a
:class:`fastndcg.io._joined_runs.JoinedRun` (the joined rows, kept as read), and
:func:`fastndcg.io.align_run`, the door that joins a run (a file, or a :class:`Run` table) and
applies the alignment rules of :mod:`fastndcg.io._alignment`."""
from __future__ import annotations
import os
import queue
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Deque, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from fastndcg.io import _parse
from fastndcg.conventions._topics import DEFAULT_MISSING
from fastndcg._core.threads import effective_n_threads, helper_pool, threads_for
from fastndcg.io._alignment import (INT32_MAX, AlignedRun, JoinedPiece, TopRows, beyond_float32,
                                    check_align_options, read_qrels_for, table_piece)
from fastndcg.io._files import (PathLike, Progress, line_error, iter_line_blocks, iter_range_blocks, rereadable,
                                split_point)
from fastndcg.io._pages import heap_array, page_array
from fastndcg.io._joined_runs import JoinedRun, align_pieces, concat_pieces
from fastndcg.io._trec import (CONTIGUOUS_TOPICS, ParsedRows, Qrels, Run, TrecParser, check_topics_contiguous,
                               no_rows_error)

#: Bytes of a run file read at a time while it is joined (:class:`RunJoiner`). A piece
#: joined at once holds at least a block's lines, at about 80 bytes each while it is
#: joined (a block of short lines holds the more): 4 MiB keeps that near 10 MiB, and
#: costs no speed (measured against 16 MiB: 0.28 s against 0.31 s for 5M lines).
JOIN_BLOCK_SIZE = 4 << 20


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
    check_align_options(missing, max_docs)
    if not isinstance(qrels, Qrels):
        qrels = read_qrels_for(run, qrels, n_threads)
    if isinstance(run, Run):
        piece, ignored = table_piece(run, qrels, n_threads)
        return align_pieces(qrels, [piece], ignored, run.name, run.path, missing, max_docs, float32_scores,
                            n_threads)
    joined = join_run_file(run, qrels, n_threads=n_threads)
    return joined.aligned(missing=missing, max_docs=max_docs, float32_scores=float32_scores, n_threads=n_threads,
                          consume=True)


class _BeyondFloat32(Exception):
    """A score beyond float32 in a run joined with ``top=``: such a row is named by its file
    line wherever it ranks, so the run is joined again with every row."""


class _TopicAgain(Exception):
    """A topic's lines come back after another topic's (the run is not grouped by topic)."""


def _join_piece(rows: ParsedRows, qrels: Qrels, qindex: dict, n_threads: Optional[int],
                scratch: List[np.ndarray], allocate: Callable[[int, Any], np.ndarray] = page_array,
                top: Optional[TopRows] = None):
    """Group parsed rows by topic and join them with the qrels (compiled,
    parallel over topics: each docno looked up in the qrels'
    :func:`docno_index`); ``allocate``: where the piece's arrays come from
    (:mod:`fastndcg.io._pages`). Returns (names of the piece's topics (bytewise),
    offsets of their rows, order (row ids grouped), qidx, sizes, scores, match,
    tie_key of the judged topics, then the rows of scores beyond float32 and their file lines).
    ``top``: each topic keeps only its best rows (:class:`TopRows`; the whole topic is joined in
    ``scratch``, reused from piece to piece, and the kept rows copied out); a score beyond
    float32 raises :class:`_BeyondFloat32`."""
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
    if scratch[0].shape[0] < 7 * n_rows:       # reused by the next pieces (no new pages to fault in)
        scratch[0] = np.empty(7 * n_rows, dtype=np.int64)
    if top is None:
        scores = allocate(n_out, np.float64)
        tie_key = allocate(n_out, np.int32)
        match = allocate(n_out, np.int32)
    else:                                       # the whole topics in reused arrays, cut below
        if len(scratch) < 2 or scratch[1].shape[0] < n_out:
            scratch[1:] = [np.empty(n_out, dtype=np.float64), np.empty(n_out, dtype=np.int32),
                           np.empty(n_out, dtype=np.int32)]
        scores, tie_key, match = scratch[1][:n_out], scratch[2][:n_out], scratch[3][:n_out]
    dup = np.empty(2 * len(names), dtype=np.int64)
    index.join(_parse.RunRows(rows.pool[:pool_end], rows.dstart[:n_rows], pool_end, rows.values[:n_rows]),
               order, offsets, qgroup, dst, _parse.JoinedRows(scores, match, tie_key, dup), scratch[0],
               threads_for(8 * n_rows, n_threads))
    again = np.flatnonzero(dup[1::2] >= 0)
    if again.size:
        raise _duplicate_error(rows, names, order, offsets, int(again[0]))
    # the few results beyond float32 keep their file line (for a float32 preset's messages)
    big = beyond_float32(scores)
    if top is not None:
        if big.size:
            raise _BeyondFloat32()
        return (names, offsets, order, qgroup[judged]) + _cut_piece(sizes[judged], dst[judged], scores, match,
                                                                    tie_key, top, allocate, n_threads) + (big, big)
    at = np.searchsorted(dst + kept, big, side="right")           # each one's topic (group)
    big_lines = rows.lines[order[offsets[at] + big - dst[at]]]
    return names, offsets, order, qgroup[judged], sizes[judged], scores, match, tie_key, big, big_lines


def _cut_piece(sizes: np.ndarray, src: np.ndarray, scores: np.ndarray, match: np.ndarray, tie_key: np.ndarray,
               top: TopRows, allocate: Callable[[int, Any], np.ndarray],
               n_threads: Optional[int]) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(sizes, scores, match, tie_key) of a joined piece's topics cut to their ``top`` best rows
    (compiled, the one comparator), in arrays of their own."""
    kept = np.minimum(sizes, top.depth)
    n = int(kept.sum())
    out = allocate(n, np.float64), allocate(n, np.int32), allocate(n, np.int32)
    _parse.cut_topics(scores, match, tie_key,
                      _parse.TopicBlocks(np.ascontiguousarray(src, dtype=np.int64), np.cumsum(kept) - kept,
                                         np.ascontiguousarray(sizes, dtype=np.int64), top.depth, top.key_order,
                                         top.round_f32),
                      *out, threads_for(int(scores.shape[0]), n_threads))
    return (kept,) + out


def _duplicate_error(rows: ParsedRows, names: List[str], order: np.ndarray, offsets: np.ndarray,
                     g: int) -> ValueError:
    """The error for topic ``g``'s duplicate docnos, as :func:`fastndcg.io.read_run` reports them: the
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
                 block_size: int = JOIN_BLOCK_SIZE, n_threads: Optional[int] = None,
                 top: Optional[TopRows] = None):
        if chunk_rows is not None and chunk_rows < 1:
            raise ValueError(f"chunk_rows must be >= 1; got {chunk_rows}")
        self.qrels = qrels
        self.chunk_rows = chunk_rows
        self.block_size = block_size
        self.n_threads = n_threads
        self.top = top
        self._second: Optional[RunJoiner] = None     # the joiner of a run's second half (_join_halves)
        self._buffers: List[bytearray] = []
        self._parser: Optional[TrecParser] = None
        self._scratch = [np.empty(0, dtype=np.int64)]

    def release(self) -> None:
        """Drop the buffers (the joiner stays usable; the next run allocates them again)."""
        self._buffers.clear()
        self._parser = None
        self._scratch[:] = [np.empty(0, dtype=np.int64)]
        self._second = None

    def join(self, path: PathLike, progress: Progress = None) -> JoinedRun:
        """The run file joined with the qrels (:func:`join_run_file`)."""
        if not rereadable(path):
            # a pipe, a FIFO or standard input is read once: as one piece from the start, since a
            # topic that comes back after others could not be read again (about 75 bytes a result);
            # every row kept (a score beyond float32 could not be read again either)
            return concat_pieces(self.qrels, list(self.pieces(path, progress=progress, stream=False, whole=True,
                                                               top=None)))
        try:
            halves = self._join_halves(path, self.top) if progress is None else None
            return halves if halves is not None else self._join_whole(path, progress, self.top)
        except _BeyondFloat32:
            # a score beyond float32 is named by its line wherever it ranks: every row
            return self._join_whole(path, progress, None)

    def _join_whole(self, path: PathLike, progress: Progress, top: Optional[TopRows]) -> JoinedRun:
        """The file read from its start on this joiner's threads; read again as one piece when
        a topic comes back after others."""
        try:
            pieces = list(self.pieces(path, progress=progress, stream=False, top=top))
        except _TopicAgain:
            pieces = list(self.pieces(path, progress=progress, stream=False, whole=True, top=top))
        return concat_pieces(self.qrels, pieces)

    def _join_halves(self, path: PathLike, top: Optional[TopRows]) -> Optional[JoinedRun]:
        """A large plain run on several threads, read as two halves of whole topics side by side
        (:func:`fastndcg.io._files.split_point`): this thread parses and joins the first half,
        a helper the second, each a piece at a time. (One thread parsing while another joins left
        the joining thread idle most of the time: the parse is the longer step.) None when the
        file has no such halves, or when a half raises ValueError (its line numbers count from
        the half's start) or shares a topic with the other: the caller then reads the file as
        one, which reports what read_run reports."""
        if effective_n_threads(self.n_threads) < 2 or not self._large(path):
            return None
        split = split_point(path)
        if split is None:
            return None
        second = self._second
        if second is None:
            second = self._second = RunJoiner(self.qrels, chunk_rows=self.chunk_rows, block_size=self.block_size,
                                              n_threads=1)
        docno_index(self.qrels, self.n_threads)     # on both threads, before either half starts
        later = helper_pool().submit(lambda: list(second.pieces(path, stream=False, top=top,
                                                                byte_range=(split, None))))
        try:
            first = list(self.pieces(path, stream=False, top=top, byte_range=(0, split)))
            lines_before = self._parser.line if self._parser is not None else 0
            rest = later.result()
        except (ValueError, _TopicAgain):
            return None
        finally:
            wait([later])
        judged = [np.concatenate([pc.qidx for pc in part]) for part in (first, rest)]
        ignored = [{t for pc in part for t in pc.ignored_qids} for part in (first, rest)]
        if np.intersect1d(judged[0], judged[1]).size or ignored[0] & ignored[1]:
            return None
        for pc in rest:                 # the second half's lines count from the file's start
            for piece in pc.pieces:
                if piece.big_lines is not None and len(piece.big_lines):
                    piece.big_lines = np.asarray(piece.big_lines, dtype=np.int64) + lines_before
        return concat_pieces(self.qrels, first + rest)

    # over 100 lines: one generator owns the parser, the buffers and the piece joined on a helper thread
    def pieces(self, path: PathLike, progress: Progress = None, stream: bool = True,
               whole: bool = False, top: Optional[TopRows] = None,
               byte_range: Optional[Tuple[int, Optional[int]]] = None) -> Iterator[JoinedRun]:
        """The run file in pieces of whole topics, each joined (:func:`iter_joined`;
        ``whole``: one piece; ``top``: each topic's best rows only, see :func:`_join_piece`).
        Read whole (``stream=False``) on several threads, a piece is joined on a helper
        thread while the next one is read (:meth:`_overlap_threads`). ``byte_range``: the
        lines of a plain file from one line start to another (None: the end), on this
        thread alone, line numbers counted from the range's start (:meth:`_join_halves`)."""
        chunk_rows = None if whole else self.chunk_rows
        qrels, scratch = self.qrels, self._scratch
        large = self._large(path)
        allocate = page_array if large else heap_array
        overlap = None if stream or chunk_rows is None or not large or byte_range else self._overlap_threads()
        threads = 1 if byte_range else self.n_threads
        parse_threads, join_threads = overlap if overlap is not None else (threads, threads)
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
                                 f"topic {names[i]!r} appears again after other topics; {CONTIGUOUS_TOPICS}")
            if stream:
                check_topics_contiguous(rows.path, names, offsets, order, rows.lines[order])
            seen.update(names)
            ignored = [t for t in names if t not in qindex]
            return JoinedRun(qrels, qidx, sizes, [JoinedPiece(qidx, sizes, scores, match, tie_key, big, big_lines)], ignored,
                             rows.tag.decode("utf-8", "replace"), rows.path, top=top)

        def piece(n_rows: int, n_threads: Optional[int]) -> JoinedRun:
            rows = p.front(n_rows)
            joined = checked(rows, _join_piece(rows, qrels, qindex, n_threads, scratch, allocate, top))
            p.drop_front(n_rows)
            return joined

        def rest_then_raise(blocks: Iterator[memoryview]) -> None:
            """As read_run: a malformed line further on is reported before a piece's error."""
            if not stream:
                for rest in blocks:
                    p.parse(rest)
                    p.drop_front(p.values.n)

        n_out = 0
        blocks = iter_line_blocks(path, self.block_size, progress, self._buffers) if byte_range is None else \
            iter_range_blocks(path, byte_range[0], byte_range[1], self.block_size, self._buffers)
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
                    joined = piece(cut, threads) if overlap is None else finish_pending()
                except ValueError:
                    rest_then_raise(blocks)
                    raise
                if overlap is not None:     # the next piece is joined while the caller takes this one
                    rows = p.split_front(cut, spare)
                    spare = None
                    pending = (rows, helper_pool().submit(_join_piece, rows, qrels, qindex, join_threads, scratch,
                                                          allocate, top))
                if joined is not None:
                    yield joined
            last = finish_pending()
            if last is not None:
                yield last
            if p.values.n:
                yield piece(p.values.n, threads)
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
    topic comes back, as :func:`fastndcg.io._trec.iter_run`; otherwise the internal
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


def docno_index(qrels: Qrels, n_threads: Optional[int] = 1) -> "_parse.DocnoIndex":
    """The qrels' docnos in a hash table per topic (:class:`fastndcg.io._parse.DocnoIndex`),
    which every run joined with these qrels looks its docnos up in. Built once per
    :class:`Qrels` (compiled, one pass over the judgments) and kept on it: one thread
    builds it (under a lock), threads that come meanwhile wait for it; the index is
    read-only afterwards. ``n_threads``: the threads that build it (one by default: it is
    usually built beside other work; :func:`join_runs` and :meth:`RunJoiner._join_halves`
    build it on all of the call's threads before their readers start)."""
    index = qrels.__dict__.get("_docno_index")
    if index is None:
        with _INDEX_LOCK:
            index = qrels.__dict__.get("_docno_index")
            if index is None:
                if qrels.doc_start.shape[0] > INT32_MAX:      # a result keeps its judgment's row in 32 bits
                    raise ValueError(f"{qrels.path}: {qrels.doc_start.shape[0]} judgments; a run is joined with "
                                     f"up to {INT32_MAX}")
                index = _parse.DocnoIndex(qrels.pool, qrels.doc_start, qrels.doc_len, qrels.offsets,
                                          threads_for(int(qrels.doc_start.shape[0]), n_threads))
                qrels.__dict__["_docno_index"] = index
    return index


#: One docno index built at a time (:func:`docno_index`): a thread that needs one being built waits.
_INDEX_LOCK = threading.Lock()


def join_run_file(path: PathLike, qrels: Qrels, *, chunk_rows: int = 1 << 18,
                  block_size: int = JOIN_BLOCK_SIZE, n_threads: Optional[int] = None,
                  progress: Progress = None, top: Optional[TopRows] = None) -> JoinedRun:
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
    ``top`` (:class:`fastndcg.io._alignment.TopRows`): each topic keeps only its best rows,
    for measures that read no more; then 16 bytes per kept result, the whole topics of a
    piece in buffers reused from piece to piece. A score beyond float32 (named by its line
    wherever it ranks) makes a file be joined again with every row; so does a pipe.
    Errors as :func:`fastndcg.io.read_run`.
    """
    return RunJoiner(qrels, chunk_rows=chunk_rows, block_size=block_size, n_threads=n_threads,
                     top=top).join(path, progress)


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
              progress: Optional[Callable[[str], Progress]] = None, top: Optional[TopRows] = None) -> Iterator[JoinedRun]:
    """Many runs, one qrels: each run file joined with the qrels (:meth:`RunJoiner.join`),
    in the order of ``paths``. The qrels' index is built once; each reading thread keeps
    one :class:`RunJoiner` (its buffers) for all its runs. :func:`run_threads` says how
    many runs are read at once: at most that many plus one joined runs are held ahead of
    the caller. The first failing run (in order) raises its error; the runs after it are
    not waited for. ``progress(path)``: a progress callback per file (then one run at a
    time, so that one bar is drawn at a time). ``top``: as :func:`join_run_file`."""
    at_once, per_run = run_threads(paths, n_threads)
    if progress is not None or at_once == 1:
        joiner = RunJoiner(qrels, n_threads=per_run, top=top)
        for i, path in enumerate(paths):
            joined = joiner.join(path, progress=progress(os.fspath(path)) if progress is not None else None)
            if i == len(paths) - 1:
                joiner.release()        # the buffers are not held while the last run is evaluated
            yield joined
        return
    docno_index(qrels, n_threads)   # built once here, on the call's threads, before the readers start
    _topic_index(qrels)
    free: "queue.SimpleQueue[RunJoiner]" = queue.SimpleQueue()
    for _ in range(at_once):
        free.put(RunJoiner(qrels, n_threads=per_run, top=top))

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
