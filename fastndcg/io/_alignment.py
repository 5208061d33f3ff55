"""trec_eval's alignment rules on a run's joined rows: the judged topics missing from the run
(``missing=``), the top ``max_docs`` of each topic (``-M``, ranked by the one comparator of
``fastndcg/_core/_rank.pxd``), the evaluated topics and their ideal from the qrels, and the
result, :class:`fastndcg.io.AlignedRun` (the CSR arrays of :func:`fastndcg.ndcg`). The rows are
joined and placed by :mod:`fastndcg.io._joining` (a run file while it is read, a :class:`Run`
table through :func:`table_piece`), whose :func:`fastndcg.io.align_run` is the door: the join
calls these rules, never the other way. Arrays out: io never imports the measures or the kernels."""
from __future__ import annotations
from dataclasses import dataclass, field
from typing import List, Optional, Tuple, Union

import numpy as np

from fastndcg.io import _parse
from fastndcg.conventions._topics import check_missing
from fastndcg._core.arguments import NamedArgumentError, check_max_docs, literal
from fastndcg._core.threads import threads_for
from fastndcg.io._files import PathLike, rereadable
from fastndcg.io._trec import Qrels, Run, read_qrels, read_run


#: A joined result keeps its judgment's row and its tie key in 32 bits.
INT32_MAX = 2 ** 31 - 1

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
    # two reductions (no temporary array) tell the usual case, where there is none
    if scores.size == 0 or (scores.max() <= FLOAT32_MAX and scores.min() >= -FLOAT32_MAX):
        return np.flatnonzero(np.zeros(0, dtype=bool))
    return np.flatnonzero(np.abs(scores) > FLOAT32_MAX)


def missing_topics_error(qrels_path: str, run_path: str, missing_qids: List[str],
                         line: Optional[int] = None) -> NamedArgumentError:
    """The error for judged topics without results under ``missing="error"``
    (:func:`fastndcg.io.align_run`, :func:`fastndcg.stream.evaluate_stream`); ``line``: the
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


def table_piece(run: Run, qrels: Qrels, n_threads: Optional[int] = None) -> Tuple["JoinedPiece", List[str]]:
    """The rows of a :class:`Run` table joined with the qrels (compiled, docnos sorted within
    topics) as one :class:`JoinedPiece` for :func:`fastndcg.io.align_run`, and the run's topics
    without judgments."""
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
    return JoinedPiece(pair_q, sizes, scores, match[rows].astype(np.int32), tie_key, big, run.lines[rows[big]]), ignored


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


def check_align_options(missing: str, max_docs: Optional[int]) -> None:
    check_missing(missing)
    check_max_docs(max_docs)


@dataclass
class JoinedPiece:
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


def missing_topics(qrels: Qrels, in_run: np.ndarray, missing: str, run_path: str) -> List[str]:
    """The judged topics a run did not retrieve (``in_run``: bool per qrels topic), in the
    qrels' order; under ``missing="error"`` the error listing them (:func:`missing_topics_error`)."""
    missing_qids = [t for t, r in zip(qrels.topics.tolist(), in_run.tolist()) if not r]
    if missing_qids and missing == "error":
        raise missing_topics_error(qrels.path, run_path, missing_qids,
                                   topic_first_line(qrels, int(np.flatnonzero(~in_run)[0])))
    return missing_qids


@dataclass(frozen=True)
class TopRows:
    """Only each topic's ``depth`` best rows are placed (a longer topic keeps those, in file
    order), ranked by the one comparator of the kernels: the score (rounded to float32 with
    ``round_f32``) descending, then the tie key (``key_order`` 1 ascending, -1 descending, 0
    unused), then the position. For measures that read no more of a ranking by that order
    than its top ``depth`` (``fastndcg.measures._trec_measures.top_rows_read``): the same
    values, without placing the rest."""

    depth: int
    key_order: int
    round_f32: bool


@dataclass
class PlacedRows:
    """A run's joined rows placed in the qrels' topic order (file order within a topic):
    topic ``qidx[i]`` (increasing) has the next ``sizes[i]`` rows; the columns of
    :class:`AlignedRun` (``labels``, ``status``, ``tie_key``); ``big_rows`` / ``big_lines``:
    pieces of :attr:`AlignedRun.score_lines`, not yet sorted."""

    qidx: np.ndarray
    sizes: np.ndarray
    scores: np.ndarray = field(repr=False)
    tie_key: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    status: np.ndarray = field(repr=False)
    big_rows: List[np.ndarray] = field(default_factory=list, repr=False)
    big_lines: List[np.ndarray] = field(default_factory=list, repr=False)


def keep_top(placed: PlacedRows, max_docs: int, float32_scores: bool, n_threads: Optional[int] = None) -> np.ndarray:
    """trec_eval's ``-M``: which rows are among the ``max_docs`` best of their topic (a bool
    mask), ranked as trec_eval ranks (score descending, then docno descending) by the one
    comparator of the kernels (compiled, ``fastndcg/_core/_rank.pxd``); ``float32_scores``:
    ranked rounded to float32 (a score beyond float32 ranks as +-inf, as the tools cast it)."""
    n = placed.scores.shape[0]
    kept = np.zeros(n, dtype=np.uint8)
    if n:
        offsets = np.zeros(placed.sizes.shape[0] + 1, dtype=np.int64)
        np.cumsum(placed.sizes, out=offsets[1:])
        _parse.keep_top(np.ascontiguousarray(placed.scores, dtype=np.float64),
                        np.ascontiguousarray(placed.tie_key, dtype=np.int64), offsets,
                        min(int(max_docs), int(placed.sizes.max())), float32_scores, kept, threads_for(n, n_threads))
    return kept.view(bool)


def finish_alignment(qrels: Qrels, placed: PlacedRows, in_run: np.ndarray, missing_qids: List[str],
                     ignored: List[str], run_name: str, run_path: str, missing: str, max_docs: Optional[int],
                     float32_scores: bool, n_threads: Optional[int] = None) -> AlignedRun:
    """The :class:`AlignedRun` of placed rows: the top ``max_docs`` of each topic
    (:func:`keep_top`), the evaluated topics (those not retrieved too unless ``missing="skip"``),
    trec_eval's ideal of each (:func:`judged_ideal`)."""
    nq = qrels.n_topics
    scores, labels, tie_key, status = placed.scores, placed.labels, placed.tie_key, placed.status
    big_rows, big_lines = placed.big_rows, placed.big_lines
    counts_all = np.zeros(nq, dtype=np.int64)
    counts_all[placed.qidx] = placed.sizes
    if max_docs is not None:
        kept = keep_top(placed, max_docs, float32_scores, n_threads)
        qtopic = np.repeat(np.asarray(placed.qidx, dtype=np.int64), placed.sizes)
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
