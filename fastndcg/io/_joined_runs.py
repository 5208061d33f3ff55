"""A run joined with qrels, kept as it was read (:class:`JoinedRun`: pieces of whole topics
with each result's judgment row and tie key), and its placing in the qrels' topic order
(:func:`align_pieces`, compiled): the rows :func:`fastndcg.io.align_run` aligns. The pieces come
from the join of :mod:`fastndcg.io._joining` (a run file while it is read) or from a :class:`Run`
table (:func:`fastndcg.io._alignment.table_piece`)."""
from __future__ import annotations
import dataclasses
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

from fastndcg.io import _parse
from fastndcg.conventions._topics import DEFAULT_MISSING
from fastndcg._core.threads import threads_for
from fastndcg.io._alignment import (AlignedRun, JoinedPiece, PlacedRows, TopRows, check_align_options,
                                    finish_alignment, level_dtype, missing_topics)
from fastndcg.io._pages import PAGED_RESULTS, heap_array, page_array
from fastndcg.io._trec import Qrels


def align_pieces(qrels: Qrels, pieces: List[JoinedPiece], ignored: List[str], run_name: str, run_path: str,
                 missing: str, max_docs: Optional[int], float32_scores: bool,
                 n_threads: Optional[int] = None, consume: bool = False,
                 top: Optional[TopRows] = None) -> AlignedRun:
    """The :class:`AlignedRun` of the judged topics a run retrieved, from
    pieces with disjoint topics: rows placed in the qrels' topic order (file
    order within a topic) with their judgments and trec_eval's levels in one
    pass (compiled); then the rules (``missing``, ``max_docs``:
    :func:`fastndcg.io._alignment.finish_alignment`). ``consume``: the pieces are taken
    out of ``pieces`` and freed one by one as they are placed, so the peak is
    the output (25 bytes a result) plus one piece, not the pieces (16) plus the
    output (:mod:`fastndcg.io._pages`: the output's pages become resident as
    they are written). ``top``: only each topic's best rows (:class:`TopRows`; not
    with ``max_docs``, nor when a score is beyond float32, whose rows are named)."""
    nq = qrels.n_topics
    qidx = np.concatenate([pc.qidx for pc in pieces]).astype(np.int64, copy=False)
    read_sizes = np.concatenate([pc.sizes for pc in pieces]).astype(np.int64, copy=False)
    if top is not None and (max_docs is not None or any(pc.big_rows is not None and pc.big_rows.size
                                                         for pc in pieces)):
        top = None
    sizes = read_sizes if top is None else np.minimum(read_sizes, top.depth)
    in_run = np.zeros(nq, dtype=bool)
    in_run[qidx] = True
    missing_qids = missing_topics(qrels, in_run, missing, run_path)
    by_topic = np.argsort(qidx, kind="stable")
    dest = np.zeros(qidx.shape[0], dtype=np.int64)
    dest[by_topic] = np.concatenate([[0], np.cumsum(sizes[by_topic])[:-1]]).astype(np.int64)
    n = int(sizes.sum())
    allocate = page_array if n >= PAGED_RESULTS else heap_array
    relevance = np.ascontiguousarray(qrels.relevance, dtype=np.int64)
    # gain levels (the judgment if >= 0, else 0) and trec_eval's status (-1 not in the qrels, -2 judged below 0)
    placed = PlacedRows(qidx[by_topic], sizes[by_topic], allocate(n, np.float64), allocate(n, np.int64),
                        allocate(n, level_dtype(relevance)), allocate(n, np.int8))
    first_topic = np.zeros(len(pieces) + 1, dtype=np.int64)     # each piece's topics in qidx/dest
    np.cumsum([pc.qidx.shape[0] for pc in pieces], out=first_topic[1:])
    order = range(len(pieces) - 1, -1, -1) if consume else range(len(pieces))
    cut = () if top is None else (top.depth, top.key_order, top.round_f32)
    # on the call's threads, the output's fresh pages too: on two free cores, two threads fault
    # them in faster than one (5M results: 49-55 ms against 61-67 ms on a quiet box); two
    # threads on a loaded box contended for the page tables (0.17-0.22 s against 0.06 s), which
    # the default thread count avoids by leaving out the cores other work holds
    for i in order:
        pc = pieces.pop() if consume else pieces[i]
        k = pc.qidx.shape[0]
        src = np.zeros(k, dtype=np.int64)
        np.cumsum(pc.sizes[:-1], out=src[1:])
        t0 = int(first_topic[i])
        if pc.big_rows is not None and pc.big_rows.size:        # rows of scores beyond float32, file lines
            at = np.searchsorted(src, pc.big_rows, side="right") - 1     # each row's topic in the piece
            placed.big_rows.append(dest[t0:t0 + k][at] + pc.big_rows - src[at])
            placed.big_lines.append(np.asarray(pc.big_lines, dtype=np.int64))
        _parse.place_topics(np.ascontiguousarray(pc.scores, dtype=np.float64),
                            np.ascontiguousarray(pc.match, dtype=np.int32),
                            np.ascontiguousarray(pc.tie_key, dtype=np.int32), relevance,
                            _parse.TopicBlocks(src, dest[t0:t0 + k], np.ascontiguousarray(pc.sizes, dtype=np.int64),
                                               *cut),
                            placed.scores, placed.tie_key, placed.labels, placed.status,
                            threads_for(int(pc.scores.shape[0]), n_threads))
        del pc
    return finish_alignment(qrels, placed, in_run, missing_qids, ignored, run_name, run_path, missing, max_docs,
                            float32_scores, n_threads)


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
    top : TopRows or None
        Joined with ``top=`` (:func:`join_run_file`): each topic keeps only its best
        rows (``sizes`` counts them), and is aligned with that ``top`` alone.
    """

    qrels: Qrels
    qidx: np.ndarray
    sizes: np.ndarray
    pieces: List[JoinedPiece] = field(repr=False)
    ignored_qids: List[str]
    run_name: str = ""
    run_path: str = ""
    consumed: bool = field(default=False, repr=False)
    top: Optional[TopRows] = field(default=None, repr=False)

    @property
    def n_results(self) -> int:
        return int(self.sizes.sum())

    def aligned(self, *, missing: str = DEFAULT_MISSING, max_docs: Optional[int] = None, float32_scores: bool = False,
                relevance: Optional[np.ndarray] = None, n_threads: Optional[int] = None,
                consume: bool = False, top: Optional[TopRows] = None) -> AlignedRun:
        """The :class:`AlignedRun` (``missing``, ``max_docs``, ``float32_scores``
        as :func:`align_run`); ``relevance``: other judgments for the qrels'
        rows (ir_measures' ``gains={...}`` mapping).

        ``consume``: free the joined results as they are placed, for the
        lowest peak (25 bytes a result instead of 41); this JoinedRun cannot
        be aligned again (a ValueError says so). ``top``: only each topic's
        best rows (:class:`fastndcg.io._alignment.TopRows`)."""
        check_align_options(missing, max_docs)
        if self.top is not None and (top != self.top or max_docs is not None):
            raise ValueError(f"run: this JoinedRun of {self.run_path or 'a run'} keeps each topic's top "
                             f"{self.top.depth} results only: it is aligned with that top and no max_docs")
        if self.consumed:
            raise ValueError(f"run: this JoinedRun of {self.run_path or 'a run'} was consumed by "
                             "aligned(consume=True); join the run again")
        qrels = self.qrels if relevance is None else dataclasses.replace(self.qrels, relevance=relevance)
        aligned = align_pieces(qrels, self.pieces, self.ignored_qids, self.run_name, self.run_path, missing,
                               max_docs, float32_scores, n_threads, consume, top)
        if consume:
            self.consumed = True
        return aligned


def _bytewise(topic: str) -> bytes:
    """Sort key of a topic as the readers order them (its file bytes)."""
    return topic.encode("utf-8", "surrogateescape")


def concat_pieces(qrels: Qrels, pieces: List[JoinedRun]) -> JoinedRun:
    """One :class:`JoinedRun` of pieces with disjoint topics (their rows stay where they are)."""
    qidx = np.concatenate([pc.qidx for pc in pieces])
    sizes = np.concatenate([pc.sizes for pc in pieces])
    by_topic = np.argsort(qidx, kind="stable")
    return JoinedRun(qrels, qidx[by_topic], sizes[by_topic], [p for pc in pieces for p in pc.pieces],
                     sorted((t for pc in pieces for t in pc.ignored_qids), key=_bytewise), pieces[-1].run_name,
                     pieces[0].run_path, top=pieces[0].top)
