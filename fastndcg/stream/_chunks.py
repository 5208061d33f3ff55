"""Chunks of whole queries and their exact accumulation: :class:`Chunk`, :class:`ChunkEvaluator`
(one kernel pass per chunk), :class:`NDCGAccumulator` (exact sums of the aggregate's terms, per-query
values kept or not) and :func:`evaluate_chunks` over any iterable of chunks; small consecutive chunks are
gathered into one kernel call (up to :data:`COALESCE_ROWS` rows)."""
from __future__ import annotations
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

import numpy as np

from fastndcg._core.prepared import NDCGScorer, exact_column_sums, finish_aggregate, one_shot
from fastndcg._core._exact import ExactSum
from fastndcg._core.summary import summary_repr
from fastndcg.conventions._topics import DEFAULT_MISSING
from fastndcg.conventions._convention import Convention, Cutoffs
from fastndcg.conventions._presets import as_convention
from fastndcg._core.query_checks import gathered_label_warnings, plain


PathLike = Union[str, "os.PathLike[str]"]
KEEP = ("queries", "sums")


# ----------------------------------------------------------------------------- exact sums


def exact_partials(values: Iterable[float]) -> List[float]:
    """Non-overlapping floats whose exact sum is the exact sum of ``values``
    (the state of a :class:`ExactSum`: usually 1-3 floats). Partials of several
    parts combine exactly: the correctly rounded sum of all of them is that of
    every value, whatever the split."""
    acc = ExactSum(1)
    acc.add(np.asarray(values if isinstance(values, np.ndarray) else list(values),
                       dtype=np.float64).reshape(-1, 1))
    return acc.partials(0)


# ----------------------------------------------------------------------------- chunks


@dataclass
class Chunk:
    """Whole queries in CSR form.

    Attributes
    ----------
    scores, labels : arrays (n_rows,)
    offsets : int array (n_queries + 1,), starting at 0
    query_ids : array (n_queries,), optional
    tie_key : int array (n_rows,), optional (``ties="key"/"key_desc"``)
    weights : float array (n_queries,), optional
    ideal_labels, ideal_offsets : arrays, optional
        An external ideal list per query in CSR form (``ideal_offsets`` has
        n_queries + 1 entries), as :class:`fastndcg.NDCGScorer` takes it;
        without it each query's ideal comes from its own rows.
    gains : float array (n_rows,), optional
        Each document's own gain (any finite real), used instead of the
        convention's gain of ``labels``; needs ``ideal_dcg``. TREC runs use it
        for trec_eval's custom gains (:mod:`fastndcg.measures` (custom gains: ``GainSpec``, ``GainScorer``)).
    ideal_dcg : float array (n_queries,), optional
        An external ideal DCG per query (instead of an ideal list).
    row_lines : dict, optional
        Where the rows were read from (:data:`fastndcg.io._row_lines.RowLines`;
        the chunks of ``iter_svmlight`` have it): a bad label or score is then
        reported as ``path:line: ...``.
    """

    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    query_ids: Optional[np.ndarray] = None
    tie_key: Optional[np.ndarray] = None
    weights: Optional[np.ndarray] = None
    ideal_labels: Optional[np.ndarray] = None
    ideal_offsets: Optional[np.ndarray] = None
    gains: Optional[np.ndarray] = None
    ideal_dcg: Optional[np.ndarray] = None
    row_lines: Optional[Dict[str, Any]] = None

    @property
    def n_queries(self) -> int:
        return int(np.asarray(self.offsets).shape[0] - 1)


def _as_chunk(obj: Any, i: int) -> Chunk:
    if isinstance(obj, Chunk):
        return obj
    if isinstance(obj, tuple):
        if len(obj) != 3:
            raise TypeError(f"chunk {i}: a tuple chunk must be (scores, labels, offsets); got {len(obj)} items")
        return Chunk(*obj)
    if all(hasattr(obj, a) for a in ("scores", "labels", "offsets")):
        if getattr(obj, "scores") is None:
            raise ValueError(f"chunk {i} has no scores (for iter_svmlight, pass a prediction file)")
        return Chunk(obj.scores, obj.labels, obj.offsets, getattr(obj, "query_ids", None),
                     getattr(obj, "tie_key", None), getattr(obj, "weights", None),
                     getattr(obj, "ideal_labels", None), getattr(obj, "ideal_offsets", None),
                     getattr(obj, "gains", None), getattr(obj, "ideal_dcg", None),
                     obj.row_lines() if callable(getattr(obj, "row_lines", None)) else None)
    raise TypeError(f"chunk {i}: expected a Chunk, a (scores, labels, offsets) tuple or an object "
                    f"with scores/labels/offsets; got {type(obj).__name__}")


def _cutoff_list(k: Cutoffs) -> Tuple[List[Optional[int]], bool]:
    if k is None or isinstance(k, (int, np.integer)):
        return [None if k is None else int(k)], True
    ks = list(k)
    if not ks:
        raise ValueError("k: an empty list of cutoffs")
    return ks, False


def stream_repr(res: "StreamResult", kind: str) -> str:
    """The short repr of a streamed result: counts and the mean of each cutoff
    (named by its signature's measure, ``nDCG@10``)."""
    means = np.atleast_1d(np.asarray(res.mean, dtype=np.float64)).tolist()
    names = [s.split("|", 1)[0] for s in res.signatures] if len(res.signatures) == len(means) else \
        [f"#{i}" for i in range(len(means))]
    # a TREC run's result (RunStreamResult) also reports its tag and topics
    text = summary_repr(kind, names, res.n_queries, means, getattr(res, "run_name", ""),
                        getattr(res, "missing_qids", None), getattr(res, "ignored_qids", None),
                        unit="topics" if hasattr(res, "missing_qids") else "queries")
    return text[:-1] + f", {res.n_rows:,} rows in {res.n_chunks:,} chunk{'s' if res.n_chunks != 1 else ''})"


def cutoff_names(k: Cutoffs) -> List[str]:
    """Column names of the cutoffs, as :mod:`fastndcg.io._frames`: ``ndcg@k`` (``ndcg`` for None)."""
    ks, _ = _cutoff_list(k)
    return ["ndcg" if v is None else f"ndcg@{int(v)}" for v in ks]


class ChunkEvaluator:
    """Per-query NDCG and aggregate summands of one query-complete chunk.

    Runs :class:`fastndcg.NDCGScorer` (the in-memory kernels) on the chunk.
    Used by :class:`NDCGAccumulator` and by the Dask and Spark back-ends,
    one partition at a time.
    """

    def __init__(self, k: Cutoffs = 10, *, convention: Any = None,
                 n_threads: Optional[int] = None) -> None:
        self.k = k
        self.cutoffs, self.single = _cutoff_list(k)
        self.convention: Convention = as_convention(convention)
        self.n_threads = n_threads
        # k is checked now, not at the first chunk
        NDCGScorer(np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64), k, convention=self.convention)

    @property
    def n_cutoffs(self) -> int:
        return len(self.cutoffs)

    def signatures(self, missing: str = DEFAULT_MISSING, ideal_source: str = "run") -> List[str]:
        """The signature of each cutoff's measurement (:mod:`fastndcg.measures._measurement`);
        ``ideal_source``: "qrels" when the chunks carry an external ideal."""
        from fastndcg.measures._measurement import column_signatures

        return column_signatures(self.cutoffs, self.convention, ideal_source, missing)

    def terms(self, chunk: Chunk) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ndcg, numerator, denominator), each (n_queries, n_cutoffs).

        The summands are those of :meth:`fastndcg.NDCGScorer.mean`, so their
        column sums in query order give the in-memory aggregate bit for bit.
        """
        if chunk.gains is not None:
            from fastndcg.measures._trec_gain_scoring import GainScorer

            scorer: Any = GainScorer(chunk.gains, chunk.offsets, self.k, convention=self.convention,
                                ideal_dcg=chunk.ideal_dcg, weights=chunk.weights, n_threads=self.n_threads)
        else:
            # one kernel pass: labels and scores checked, ideal computed, ranked
            scorer, _, _ = one_shot(chunk.scores, chunk.labels, chunk.offsets, self.k, self.convention,
                                    chunk.tie_key, chunk.weights, chunk.ideal_dcg, chunk.ideal_labels,
                                    chunk.ideal_offsets, self.n_threads)
        return scorer.summands(chunk.scores, tie_key=chunk.tie_key, n_threads=self.n_threads)

    def finish(self, num: np.ndarray, den: np.ndarray) -> Union[float, np.ndarray]:
        """Aggregate from per-cutoff sums (:func:`fastndcg._core.prepared.finish_aggregate`)."""
        return finish_aggregate(num, den, self.convention, self.single)


@dataclass
class StreamResult:
    """Result of a streamed evaluation.

    Attributes
    ----------
    mean : float or ndarray
        The aggregate (:meth:`fastndcg.NDCGScorer.mean`): a float for a single
        k, else one value per cutoff.
    ndcg : ndarray or None
        Per-query NDCG, (n_queries,) or (n_queries, n_cutoffs); None with
        ``per_query=False``.
    query_ids : ndarray or None
        The id of each query when the source has ids.
    n_queries, n_rows, n_chunks : int
    max_chunk_rows : int
        The largest chunk evaluated (rows).
    """

    mean: Union[float, np.ndarray]
    ndcg: Optional[np.ndarray]
    query_ids: Optional[np.ndarray]
    n_queries: int
    n_rows: int
    n_chunks: int
    max_chunk_rows: int
    #: what each cutoff's number is (:attr:`fastndcg.Measurement.signature`)
    signatures: List[str] = field(default_factory=list)

    def __repr__(self) -> str:
        """``StreamResult(2,000 queries, 40,000 rows in 3 chunks, mean 0.3914)``."""
        return stream_repr(self, type(self).__name__)

    @property
    def signature(self) -> str:
        """The signature of the one cutoff evaluated (see :attr:`signatures` for several)."""
        if len(self.signatures) != 1:
            raise ValueError(f"{len(self.signatures)} cutoffs were evaluated; each has its signature in .signatures")
        return self.signatures[0]


class NDCGAccumulator:
    """Feed query-complete chunks with :meth:`add`, read the aggregate with :meth:`result`.

    Parameters
    ----------
    k : None, int or sequence
        Cutoff(s), as :func:`fastndcg.ndcg`.
    convention : Convention, preset name or None
        Any convention or preset, as :func:`fastndcg.ndcg`.
    keep : {"queries", "sums"}, default "queries"
        "queries": keep the per-query summands and sum them at the end as the
        in-memory call does (bit-identical aggregate); "sums": keep exact
        partial sums only (O(n_cutoffs) memory, correctly rounded total).
    per_query : bool, default True
        Keep the per-query NDCG (and query ids) for :attr:`StreamResult.ndcg`.
    n_threads : int, optional
        OpenMP threads per chunk.
    """

    def __init__(self, k: Cutoffs = 10, *, convention: Any = None, keep: str = "queries",
                 per_query: bool = True, n_threads: Optional[int] = None) -> None:
        if keep not in KEEP:
            raise ValueError(f"keep must be one of {KEEP}; got {keep!r}")
        self.evaluator = ChunkEvaluator(k, convention=convention, n_threads=n_threads)
        self.keep = keep
        self.per_query = per_query
        nc = self.evaluator.n_cutoffs
        self._num: List[np.ndarray] = []
        self._den: List[np.ndarray] = []
        self._exact_num, self._exact_den = ExactSum(nc), ExactSum(nc)
        self._ndcg: List[np.ndarray] = []
        self._ids: List[np.ndarray] = []
        self._ids_missing = False
        self.n_queries = self.n_rows = self.n_chunks = self.max_chunk_rows = 0

    def add(self, scores: Any, labels: Any = None, offsets: Any = None, *, query_ids: Any = None,
            tie_key: Any = None, weights: Any = None, ideal_labels: Any = None,
            ideal_offsets: Any = None) -> np.ndarray:
        """Evaluate one chunk of whole queries; returns its per-query NDCG.

        ``scores`` may also be a :class:`Chunk` (then the other arguments are
        not given). ``ideal_labels``/``ideal_offsets``: an external ideal list
        per query of the chunk (see :class:`Chunk`).
        """
        if isinstance(scores, Chunk):
            chunk = scores
        else:
            if labels is None or offsets is None:
                raise TypeError("add() needs scores, labels and offsets (or a Chunk)")
            chunk = Chunk(scores, labels, offsets, query_ids, tie_key, weights, ideal_labels,
                          ideal_offsets)
        first_query = self.n_queries
        try:
            nd, num, den = self.evaluator.terms(chunk)
        except (ValueError, TypeError) as exc:
            if chunk.row_lines:     # read from files: the readers' path:line: rule
                from fastndcg.io._row_lines import file_line_error

                located = file_line_error(exc, chunk.row_lines)
                if located is not None:
                    raise located from exc
            where = f"chunk {self.n_chunks} (queries from number {first_query}, rows from {self.n_rows}"
            if chunk.query_ids is not None and len(chunk.query_ids):
                where += f", first query id {plain(np.asarray(chunk.query_ids)[0])!r}"
            raise type(exc)(f"{where}): {exc}") from exc
        nq = nd.shape[0]
        if chunk.query_ids is not None and len(chunk.query_ids) != nq:
            raise ValueError(f"chunk {self.n_chunks}: query_ids has {len(chunk.query_ids)} entries "
                             f"but offsets describe {nq} queries")
        return self._keep(chunk, nd, num, den, 1, int(np.asarray(chunk.offsets)[-1]) if nq else 0)

    def _keep(self, chunk: Chunk, nd: np.ndarray, num: np.ndarray, den: np.ndarray, n_chunks: int,
              largest: int) -> np.ndarray:
        nq = nd.shape[0]
        if self.keep == "queries":
            self._num.append(num)
            self._den.append(den)
        else:
            self._exact_num.add(num)
            self._exact_den.add(den)
        if self.per_query:
            self._ndcg.append(nd)
            if chunk.query_ids is None:
                self._ids_missing = True
            else:
                self._ids.append(np.asarray(chunk.query_ids))
        rows = int(np.asarray(chunk.offsets)[-1]) if nq else 0
        self.n_queries += nq
        self.n_rows += rows
        self.n_chunks += n_chunks
        self.max_chunk_rows = max(self.max_chunk_rows, largest)
        return nd[:, 0].copy() if self.evaluator.single else nd

    def add_many(self, chunks: List[Chunk]) -> None:
        """Add several chunks as :meth:`add` does, evaluated together in one
        kernel call (the results are the same: queries are independent and the
        aggregate's sums are exact). A problem is reported for the chunk it is in."""
        if len(chunks) == 1:
            self.add(chunks[0])
            return
        merged = _concatenate(chunks)
        try:
            if merged is None:
                raise ValueError("chunks differ in their optional columns")
            for i, ch in enumerate(chunks):
                if ch.query_ids is not None and len(ch.query_ids) != ch.n_queries:
                    raise ValueError(f"chunk {self.n_chunks + i}: query_ids has {len(ch.query_ids)} entries")
            nd, num, den = self.evaluator.terms(merged)
        except (ValueError, TypeError):
            for ch in chunks:          # one by one: the error names the chunk it is in
                self.add(ch)
            return
        largest = max(int(np.asarray(ch.offsets)[-1]) for ch in chunks)
        self._keep(merged, nd, num, den, len(chunks), largest)

    def result(self, order: Optional[np.ndarray] = None) -> StreamResult:
        """The aggregate and the per-query values of the chunks added so far.

        Parameters
        ----------
        order : int array (n_queries,), optional
            A permutation of the queries (numbered in the order they were
            added): the per-query values come out in this order, and with
            ``keep="queries"`` the summands are added in this order (e.g. the
            in-memory query order when chunks arrive in another one).
        """
        ev = self.evaluator
        nc = ev.n_cutoffs
        if order is not None:
            order = np.asarray(order, dtype=np.int64)
            if order.shape != (self.n_queries,):
                raise ValueError(f"order must have one entry per query ({self.n_queries}); "
                                 f"got shape {order.shape}")

        def arranged(parts: List[np.ndarray]) -> np.ndarray:
            x = _stack(parts, nc)
            return x if order is None else x[order]

        if self.keep == "queries":
            num = exact_column_sums(arranged(self._num))
            den = exact_column_sums(arranged(self._den))
        else:
            num, den = self._exact_num.total(), self._exact_den.total()
        per = ids = None
        if self.per_query:
            per = arranged(self._ndcg)
            per = per[:, 0].copy() if ev.single else per
            if not self._ids_missing:
                ids = np.concatenate(self._ids) if self._ids else np.empty(0)
                ids = ids if order is None else ids[order]
        return StreamResult(ev.finish(num, den), per, ids, self.n_queries, self.n_rows,
                            self.n_chunks, self.max_chunk_rows, ev.signatures())


def _stack(parts: List[np.ndarray], nc: int) -> np.ndarray:
    return np.concatenate(parts, axis=0) if parts else np.empty((0, nc))



def evaluate_chunks(chunks: Iterable[Any], k: Cutoffs = 10, *, convention: Any = None,
             keep: str = "queries", per_query: bool = True,
             n_threads: Optional[int] = None) -> StreamResult:
    """NDCG of a stream of query-complete chunks.

    Parameters
    ----------
    chunks : iterable
        :class:`Chunk` objects, ``(scores, labels, offsets)`` tuples, or
        objects with ``scores``/``labels``/``offsets`` (and optionally
        ``query_ids``/``tie_key``/``weights``) attributes, e.g. the chunks of
        :func:`fastndcg.io.iter_svmlight` with a prediction file. Each
        chunk must hold whole queries; a query must not continue in the next
        chunk (it would count as two queries).
    k, convention, keep, per_query, n_threads
        See :class:`NDCGAccumulator`.

    Returns
    -------
    StreamResult
        With ``keep="queries"`` the aggregate equals :func:`fastndcg.mean_ndcg`
        on the concatenated chunks bit for bit; per-query values always do.
    """
    acc = NDCGAccumulator(k, convention=convention, keep=keep, per_query=per_query,
                          n_threads=n_threads)
    batch: List[Chunk] = []
    rows = 0
    with gathered_label_warnings():         # labels outside a gain table: one warning for the stream
        for i, obj in enumerate(chunks):
            # Small chunks are evaluated together, up to COALESCE_ROWS rows: a
            # kernel call per tiny chunk would cost more than its queries.
            chunk = _as_chunk(obj, i)
            if batch and _columns(batch[0]) != _columns(chunk):
                acc.add_many(batch)
                batch, rows = [], 0
            batch.append(chunk)
            rows += len(chunk.scores)
            if rows >= COALESCE_ROWS:
                acc.add_many(batch)
                batch, rows = [], 0
        if batch:
            acc.add_many(batch)
    return acc.result()


#: Rows up to which :func:`evaluate_chunks` gathers consecutive chunks into one
#: kernel call (about 1.5 MB of scores, labels and offsets).
COALESCE_ROWS = 1 << 16


def _columns(chunk: Chunk) -> Tuple[bool, ...]:
    return (chunk.query_ids is None, chunk.tie_key is None, chunk.weights is None,
            chunk.ideal_labels is None, chunk.gains is None, chunk.ideal_dcg is None)


def _joined_offsets(offs: List[np.ndarray]) -> Optional[np.ndarray]:
    """The offsets of several CSR parts one after the other (each starts at 0),
    in a few numpy calls whatever the number of parts; None if one decreases."""
    flat = np.concatenate(offs).astype(np.int64, copy=False)
    steps = np.diff(flat)
    # the step from one part's end to the next part's 0 is not a query
    ends = np.cumsum([o.shape[0] for o in offs])[:-1] - 1
    keep = np.ones(steps.shape[0], dtype=bool)
    keep[ends] = False
    sizes = steps[keep]
    if (sizes < 0).any():
        return None
    out = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def _concatenate(chunks: List[Chunk]) -> Optional[Chunk]:
    """One chunk holding the queries of several (same optional columns), or
    None when a chunk is malformed (its own evaluation will say how)."""
    if chunks[0].gains is not None or chunks[0].ideal_dcg is not None:
        return None              # trec_eval gains: evaluated chunk by chunk
    try:
        offs = [np.asarray(ch.offsets) for ch in chunks]
        for ch, o in zip(chunks, offs):
            # each chunk must be well formed on its own: lengths cannot be
            # allowed to make up for each other across chunks
            n = len(ch.scores)
            if (o.ndim != 1 or o.shape[0] < 1 or o.dtype.kind not in "iu" or o[0] != 0 or o[-1] != n
                    or len(ch.labels) != n or (ch.tie_key is not None and len(ch.tie_key) != n)
                    or (ch.weights is not None and len(ch.weights) != o.shape[0] - 1)):
                return None
            if ch.ideal_labels is not None:
                io = np.asarray(ch.ideal_offsets)
                if (io.ndim != 1 or io.shape[0] != o.shape[0] or io.dtype.kind not in "iu" or io[0] != 0
                        or io[-1] != len(ch.ideal_labels)):
                    return None
        offsets = _joined_offsets(offs)
        if offsets is None:
            return None

        def cat(name):
            parts = [getattr(ch, name) for ch in chunks]
            return None if parts[0] is None else np.concatenate([np.asarray(p) for p in parts])

        ideal_offsets = None
        if chunks[0].ideal_labels is not None:
            ideal_offsets = _joined_offsets([np.asarray(ch.ideal_offsets) for ch in chunks])
            if ideal_offsets is None:
                return None
        return Chunk(cat("scores"), cat("labels"), offsets, cat("query_ids"), cat("tie_key"), cat("weights"),
                     cat("ideal_labels"), ideal_offsets)
    except (ValueError, TypeError):
        return None
