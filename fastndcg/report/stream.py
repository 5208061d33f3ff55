"""Out-of-core NDCG: evaluate query-complete chunks one at a time.

Data larger than memory is evaluated chunk by chunk, each chunk holding whole
queries, with the public kernels (:class:`fastndcg.NDCGScorer`) per chunk.
Per-query values are those of the in-memory call, bit for bit (NDCG of a
query depends only on its own rows). Sources:

* any iterable of chunks (:class:`Chunk`, ``(scores, labels, offsets)``
  tuples, or the :class:`fastndcg.io.readers.SvmlightChunk` of
  :func:`fastndcg.io.readers.iter_svmlight`): :func:`evaluate`;
* ``.npy`` files opened memory-mapped and cut at query boundaries:
  :func:`iter_npy`, :func:`evaluate_npy`;
* SVMlight / LETOR files (with a prediction file): :func:`evaluate_svmlight`;
* Parquet (``pip install "fastndcg[parquet]"``, pyarrow) with query, label and
  score columns, whose row groups may split a query (the tail is carried over
  to the next batch): :func:`iter_parquet`, :func:`evaluate_parquet`;
* a TREC run against qrels held in memory, the run read by whole topics
  (:func:`fastndcg.io.readers.iter_run`) and each piece joined with the qrels as
  :func:`fastndcg.io.readers.align_run` does: :func:`evaluate_run`.

A chunk may carry an external ideal (``ideal_labels``/``ideal_offsets``, one
ideal list per query, as :class:`fastndcg.NDCGScorer` takes it): TREC runs use
it for the judged documents the run did not retrieve.

How the aggregate is summed
---------------------------
Per query, the summands are exactly those of :meth:`fastndcg.NDCGScorer.mean`
(``w_q NDCG_q`` and ``w_q`` for ``aggregation="mean"``; ``w_q DCG_q`` and
``w_q IDCG_q`` for ``"ratio"``; queries with NaN NDCG, ``empty="skip"``, left
out). Two ways to add them up:

* ``keep="queries"`` (default): the per-query summands are kept (8 bytes per
  query and cutoff, twice) and summed at the end;
* ``keep="sums"``: only exact running sums are kept
  (:class:`fastndcg._core._exact.ExactSum`, Shewchuk partials as :func:`math.fsum`):
  O(number of cutoffs) memory.

Either way the sums are exact and correctly rounded, as in every aggregate of
fastndcg (:func:`fastndcg._core.prepared.aggregate`), so the result equals
:func:`fastndcg.mean_ndcg` on the concatenated data **bit for bit**, whatever
the chunking and the order of the chunks.

Memory bound
------------
Data: O(chunk_rows + largest query) rows at a time (a chunk, plus the carried
tail for Parquet, each column copied at most twice), plus what the kernels
allocate per chunk (O(chunk_rows)); for Parquet also the pages of one row
group of the read columns (Arrow reads a column chunk whole). Results: with ``keep="queries"``
8 x n_queries x (1 + 2 x n_cutoffs) bytes (the per-query NDCG and summands;
the query ids too if the source has them); with ``keep="sums"`` nothing per
query unless ``per_query=True``. ``tests/report/test_stream.py`` checks the bound
with :mod:`tracemalloc` in a subprocess on data several times the limit.
"""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence,
                    Tuple, Union)

import numpy as np

from fastndcg.measures.ndcg import NDCGScorer, exact_column_sums, finish_aggregate, one_shot
from fastndcg._core._exact import ExactSum
from fastndcg.conventions import Convention, Cutoffs, as_convention
from fastndcg._core.validation import plain
from fastndcg.io.frames import query_weights_from_rows

if TYPE_CHECKING:  # pragma: no cover
    from fastndcg.io.readers import AlignedRun, Qrels, Run

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
        for trec_eval's custom gains (:mod:`fastndcg.measures.trec_gains`).
    ideal_dcg : float array (n_queries,), optional
        An external ideal DCG per query (instead of an ideal list).
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
                     getattr(obj, "gains", None), getattr(obj, "ideal_dcg", None))
    raise TypeError(f"chunk {i}: expected a Chunk, a (scores, labels, offsets) tuple or an object "
                    f"with scores/labels/offsets; got {type(obj).__name__}")


def _cutoff_list(k: Cutoffs) -> Tuple[List[Optional[int]], bool]:
    if k is None or isinstance(k, (int, np.integer)):
        return [None if k is None else int(k)], True
    ks = list(k)
    if not ks:
        raise ValueError("k: an empty list of cutoffs")
    return ks, False


def cutoff_names(k: Cutoffs) -> List[str]:
    """Column names of the cutoffs, as :mod:`fastndcg.io.frames`: ``ndcg@k`` (``ndcg`` for None)."""
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

    def terms(self, chunk: Chunk) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ndcg, numerator, denominator), each (n_queries, n_cutoffs).

        The summands are those of :meth:`fastndcg.NDCGScorer.mean`, so their
        column sums in query order give the in-memory aggregate bit for bit.
        """
        if chunk.gains is not None:
            from fastndcg.measures.trec_gains import GainScorer

            scorer: Any = GainScorer(chunk.gains, chunk.offsets, self.k, convention=self.convention,
                                ideal_dcg=chunk.ideal_dcg, weights=chunk.weights, n_threads=self.n_threads)
        else:
            # one kernel pass: labels and scores checked, ideal computed, ranked
            scorer, _, _ = one_shot(chunk.scores, chunk.labels, chunk.offsets, self.k, self.convention,
                                    chunk.tie_key, chunk.weights, chunk.ideal_dcg, chunk.ideal_labels,
                                    chunk.ideal_offsets, self.n_threads)
        return scorer.summands(chunk.scores, tie_key=chunk.tie_key, n_threads=self.n_threads)

    def finish(self, num: np.ndarray, den: np.ndarray) -> Union[float, np.ndarray]:
        """Aggregate from per-cutoff sums (:func:`fastndcg.measures.ndcg.finish_aggregate`)."""
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
                            self.n_chunks, self.max_chunk_rows)


def _stack(parts: List[np.ndarray], nc: int) -> np.ndarray:
    return np.concatenate(parts, axis=0) if parts else np.empty((0, nc))



def evaluate(chunks: Iterable[Any], k: Cutoffs = 10, *, convention: Any = None,
             keep: str = "queries", per_query: bool = True,
             n_threads: Optional[int] = None) -> StreamResult:
    """NDCG of a stream of query-complete chunks.

    Parameters
    ----------
    chunks : iterable
        :class:`Chunk` objects, ``(scores, labels, offsets)`` tuples, or
        objects with ``scores``/``labels``/``offsets`` (and optionally
        ``query_ids``/``tie_key``/``weights``) attributes, e.g. the chunks of
        :func:`fastndcg.io.readers.iter_svmlight` with a prediction file. Each
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


#: Rows up to which :func:`evaluate` gathers consecutive chunks into one
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


# ----------------------------------------------------------------------------- .npy


def _load(a: Any, name: str) -> np.ndarray:
    if isinstance(a, (str, os.PathLike)):
        arr = np.load(os.fspath(a), mmap_mode="r", allow_pickle=False)
    else:
        arr = np.asarray(a) if not isinstance(a, np.ndarray) else a
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}")
    return arr


def iter_npy(scores: Any, labels: Any, offsets: Any, *, tie_key: Any = None, weights: Any = None,
             query_ids: Any = None, chunk_rows: int = 1 << 20) -> Iterator[Chunk]:
    """Query-complete chunks of (memory-mapped) CSR arrays.

    Parameters
    ----------
    scores, labels, tie_key : path to a ``.npy`` file or array (n_rows,)
        Paths are opened with ``np.load(mmap_mode="r")``, so only the pages of
        the current chunk are read.
    offsets : path or int array (n_queries + 1,)
        Read whole (8 bytes per query).
    weights, query_ids : path or array (n_queries,), optional
    chunk_rows : int
        Rows per chunk: as many whole queries as fit in ``chunk_rows`` (at
        least one query, so a larger query makes a larger chunk). A chunk
        never splits a query.

    Yields
    ------
    Chunk
        Copies of the chunk's slices (offsets rebased to 0).
    """
    if not isinstance(chunk_rows, numbers.Integral) or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be an integer >= 1; got {chunk_rows!r}")
    sc, lab = _load(scores, "scores"), _load(labels, "labels")
    off = np.asarray(_load(offsets, "offsets"))
    if off.dtype.kind not in "iu":
        raise TypeError(f"offsets must be integers; got dtype {off.dtype}")
    off = off.astype(np.int64)
    n = sc.shape[0]
    if lab.shape[0] != n:
        raise ValueError(f"scores has {n} rows but labels has {lab.shape[0]}")
    if off.size == 0 or off[0] != 0 or off[-1] != n:
        raise ValueError(f"offsets must start at 0 and end at the number of rows ({n}); got "
                         f"{off[:1].tolist()}...{off[-1:].tolist()}")
    bad = np.flatnonzero(np.diff(off) < 0)
    if bad.size:
        raise ValueError(f"offsets must be non-decreasing; offsets[{int(bad[0]) + 1}] < offsets[{int(bad[0])}]")
    key = None if tie_key is None else _load(tie_key, "tie_key")
    w = None if weights is None else _load(weights, "weights")
    ids = None if query_ids is None else _load(query_ids, "query_ids")
    nq = off.shape[0] - 1
    for name, arr, size in (("tie_key", key, n), ("weights", w, nq), ("query_ids", ids, nq)):
        if arr is not None and arr.shape[0] != size:
            raise ValueError(f"{name} must have {size} entries; got {arr.shape[0]}")
    q0 = 0
    while q0 < nq:
        q1 = int(np.searchsorted(off, off[q0] + chunk_rows, side="right")) - 1
        q1 = min(max(q1, q0 + 1), nq)
        a, b = int(off[q0]), int(off[q1])
        yield Chunk(np.array(sc[a:b]), np.array(lab[a:b]), off[q0:q1 + 1] - a,
                    None if ids is None else np.array(ids[q0:q1]),
                    None if key is None else np.array(key[a:b]),
                    None if w is None else np.array(w[q0:q1]))
        q0 = q1


def evaluate_npy(scores: Any, labels: Any, offsets: Any, k: Cutoffs = 10, *, convention: Any = None,
                 tie_key: Any = None, weights: Any = None, query_ids: Any = None,
                 chunk_rows: int = 1 << 20, keep: str = "queries", per_query: bool = True,
                 n_threads: Optional[int] = None) -> StreamResult:
    """NDCG of CSR arrays in ``.npy`` files, memory-mapped and evaluated
    chunk by chunk (see :func:`iter_npy` and :func:`evaluate`)."""
    return evaluate(iter_npy(scores, labels, offsets, tie_key=tie_key, weights=weights,
                             query_ids=query_ids, chunk_rows=chunk_rows),
                    k, convention=convention, keep=keep, per_query=per_query, n_threads=n_threads)


# ----------------------------------------------------------------------------- SVMlight


def evaluate_svmlight(path: PathLike, predictions: PathLike, k: Cutoffs = 10, *,
                      convention: Any = None, group: Any = None, chunk_rows: int = 1 << 20,
                      keep: str = "queries", per_query: bool = True,
                      n_threads: Optional[int] = None, **reader_kwargs: Any) -> StreamResult:
    """NDCG of an SVMlight / LETOR file and its prediction file, streamed by
    whole queries with :func:`fastndcg.io.readers.iter_svmlight` (each query's
    rows contiguous in the file). Query ids are the ``qid:`` values."""
    from fastndcg.io.readers import iter_svmlight

    chunks = iter_svmlight(path, predictions, group=group, chunk_rows=chunk_rows, **reader_kwargs)
    return evaluate(chunks, k, convention=convention, keep=keep, per_query=per_query,
                    n_threads=n_threads)


# ----------------------------------------------------------------------------- TREC runs


@dataclass
class RunStreamResult(StreamResult):
    """Result of :func:`evaluate_run`: a :class:`StreamResult` (query ids are
    the topics, in bytewise order as trec_eval prints them) plus what
    :class:`fastndcg.io.readers.AlignedRun` reports about the topics.

    Attributes
    ----------
    run_name : str
        The tag of the run's last line (trec_eval's ``runid``).
    missing_qids : list of str
        Judged topics with no results in the run.
    ignored_qids : list of str
        Run topics without judgments (never evaluated, as trec_eval).
    """

    run_name: str = ""
    missing_qids: List[str] = field(default_factory=list)
    ignored_qids: List[str] = field(default_factory=list)


def aligned_chunk(aligned: "AlignedRun", convention: Any = "trec_eval", ideal: str = "auto",
                  gains: Any = None) -> Chunk:
    """The :class:`Chunk` of a :class:`fastndcg.io.readers.AlignedRun` under a
    convention: the docno tie key when the convention breaks ties by key, and
    the judged documents as external ideal where the convention's tool takes
    its ideal from the qrels (:func:`fastndcg.conventions.ideal_source`; ``ideal``
    "qrels"/"run" overrides), exactly what :meth:`AlignedRun.ndcg` passes to
    the kernels.

    ``gains``: trec_eval's custom gains under the ``trec_eval`` /
    ``pytrec_eval`` presets (:mod:`fastndcg.measures.trec_gains`): the chunk then
    carries each document's gain and each topic's ideal DCG (one
    :class:`fastndcg.measures.trec_gains.TrecGainQuirkWarning` if a quirk of trec_eval
    changes a value). Under other conventions custom gains are a gain table:
    evaluate with ``convention=fastndcg.measures.trec_gains.textbook_convention(...)``
    and no ``gains`` (a ValueError says so)."""
    chunk, quirks = _aligned_chunk(aligned, convention, ideal, gains, None)
    if gains is not None:
        from fastndcg.measures.trec_gains import as_gains, warn_quirks

        warn_quirks(quirks, as_gains(gains))
    return chunk


def _aligned_chunk(aligned: "AlignedRun", convention: Any, ideal: str, gains: Any, n_threads: Optional[int]):
    """(Chunk, GainQuirks or None): :func:`aligned_chunk` without the warning."""
    if gains is None:
        kw = aligned._kwargs(convention, ideal)
        return Chunk(aligned.scores, aligned.labels, aligned.offsets, aligned.qids, kw.get("tie_key"),
                     None, kw.get("ideal_labels"), kw.get("ideal_offsets")), None
    from fastndcg.measures.trec_gains import aligned_inputs, gain_rules

    if gain_rules(convention) != "trec_eval":
        raise ValueError(
            f"gains: under convention {as_convention(convention).name!r} custom gains are a gain table; pass "
            "convention=fastndcg.measures.trec_gains.textbook_convention(gains, convention, max_label) and no gains")
    _, kw, quirks = aligned_inputs(aligned, gains, convention, ideal, n_threads)
    gains_ = kw["gains"]
    chunk = Chunk(kw["scores"], np.zeros(gains_.shape[0], dtype=np.int64), kw["offsets"], aligned.qids,
                  kw.get("tie_key"), gains=gains_, ideal_dcg=kw["ideal_dcg"])
    return chunk, quirks


def align_chunk(run: Union["Run", PathLike], qrels: Union["Qrels", PathLike],
                convention: Any = "trec_eval", *, ideal: str = "auto", missing: str = "error",
                max_docs: Optional[int] = None, gains: Any = None,
                n_threads: Optional[int] = None) -> Tuple["AlignedRun", Chunk]:
    """Join a run (or a topic-complete piece of one) with qrels as
    ``fastndcg eval`` does: :func:`fastndcg.io.readers.align_run` (``max_docs``
    ranked in float32 when the convention scores in float32, as trec_eval 9.x
    and pytrec_eval), then :func:`aligned_chunk` (``gains``: trec_eval's
    custom gains, see there).

    Returns
    -------
    (AlignedRun, Chunk)
    """
    aligned, chunk, quirks = _align_chunk(run, qrels, convention, ideal, missing, max_docs, gains, n_threads)
    if gains is not None:
        from fastndcg.measures.trec_gains import as_gains, warn_quirks

        warn_quirks(quirks, as_gains(gains))
    return aligned, chunk


def _align_chunk(run, qrels, convention, ideal, missing, max_docs, gains, n_threads):
    from fastndcg.io.readers import align_run

    conv = as_convention(convention)
    aligned = align_run(run, qrels, missing=missing, max_docs=max_docs,
                        float32_scores=conv.score_precision == "float32", n_threads=n_threads)
    chunk, quirks = _aligned_chunk(aligned, conv, ideal, gains, n_threads)
    return aligned, chunk, quirks


def evaluate_run(qrels: Union["Qrels", PathLike], run: PathLike, k: Cutoffs = 10, *,
                 convention: Any = "trec_eval", ideal: str = "auto", missing: str = "error",
                 max_docs: Optional[int] = None, gains: Any = None, chunk_rows: int = 1 << 20,
                 keep: str = "queries",
                 per_query: bool = True, n_threads: Optional[int] = None,
                 block_size: Optional[int] = None,
                 progress: Optional[Callable[[int, int], None]] = None) -> RunStreamResult:
    """NDCG of a TREC run against qrels, the run streamed by whole topics.

    The qrels are held in memory (:func:`fastndcg.io.readers.read_qrels`); the
    run is read in pieces of whole topics (:func:`fastndcg.io.readers.iter_run`),
    each joined with the qrels as :func:`fastndcg.io.readers.align_run` does
    (:func:`align_chunk`: docno tie key, judged documents as the ideal list
    where the convention's tool takes it from the qrels, ``max_docs``) and
    evaluated with the in-memory kernels. Judged topics that never appear in
    the run are handled at the end, as ``align_run(missing=...)``.

    Parameters
    ----------
    qrels : Qrels or path
    run : path
        A TREC run (plain, gzip, bz2 or xz) whose topics each occupy one
        stretch of lines (a topic that comes back after another is a
        ValueError naming the file, line and topic); topics may come in any
        order.
    k : None, int or sequence
        Cutoff(s), as :func:`fastndcg.ndcg` (None: trec_eval's ``ndcg``).
    convention : Convention or preset name, default "trec_eval"
    ideal : {"auto", "qrels", "run"}
        Where the ideal list comes from (see :meth:`AlignedRun.ndcg`).
    missing : {"error", "zero", "skip"}
        Judged topics without results: a ValueError listing them (trec_eval
        10), NDCG 0 counted in the mean (trec_eval ``-c``), or left out.
    max_docs : int, optional
        Top ``max_docs`` results per topic (trec_eval ``-M``).
    gains : str, mapping or GainSpec, optional
        Custom gains, as trec_eval's ``-m ndcg.L=G,...``: trec_eval's rules under
        the ``trec_eval`` / ``pytrec_eval`` presets, a gain table under other
        conventions (:mod:`fastndcg.measures.trec_gains`). One
        :class:`fastndcg.measures.trec_gains.TrecGainQuirkWarning` for the whole run if a
        quirk of trec_eval changes a value.
    chunk_rows : int
        Results per piece (more when one topic is larger).
    keep, per_query, n_threads
        See :class:`NDCGAccumulator`.
    block_size : int, optional
        Bytes read at a time (default :data:`fastndcg.io.readers.DEFAULT_BLOCK_SIZE`).
    progress : callable(done, total), optional
        Progress callback of the reader (bytes of the run file).

    Returns
    -------
    RunStreamResult
        Topics in bytewise order as :func:`fastndcg.io.readers.align_run` gives
        them, whatever their order in the file: per-query values equal
        ``align_run(...).ndcg(k, convention=...)`` bit for bit, and with
        ``keep="queries"`` the mean equals ``AlignedRun.mean_ndcg`` bit for
        bit (the summands are added in topic order); ``keep="sums"`` is
        within a few ulps. Memory: one piece (and its alignment) plus the
        qrels, plus 8 bytes x topics x (2 + 2 x n_cutoffs) for the per-topic
        values and summands.
    """
    from fastndcg.io import readers

    if missing not in readers.MISSING:
        raise ValueError(f"missing must be one of {readers.MISSING}; got {missing!r}")
    if not isinstance(chunk_rows, numbers.Integral) or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be an integer >= 1; got {chunk_rows!r}")
    conv = as_convention(convention)
    if not isinstance(qrels, readers.Qrels):
        qrels = readers.read_qrels(qrels, n_threads=n_threads)
    spec = quirks = None
    if gains is not None:
        from fastndcg.measures import trec_gains

        spec = trec_gains.as_gains(gains)
        if trec_gains.gain_rules(conv) == "table":
            conv = trec_gains.textbook_convention(spec, conv, float(np.max(qrels.relevance, initial=0)))
            spec = None
        else:
            quirks = trec_gains.GainQuirks()
    qindex = {t: i for i, t in enumerate(qrels.topics.tolist())}
    acc = NDCGAccumulator(k, convention=conv, keep=keep, per_query=per_query, n_threads=n_threads)
    ordered = keep == "queries" or per_query
    seen = np.zeros(qrels.n_topics, dtype=bool)
    positions: List[np.ndarray] = []       # qrels index of each evaluated topic, in arrival order
    ignored: List[str] = []
    name = ""
    pieces = readers.iter_run(run, chunk_rows=chunk_rows, n_threads=n_threads, progress=progress,
                              block_size=block_size or readers.DEFAULT_BLOCK_SIZE)
    for piece in pieces:          # iter_run rejects a topic whose lines are interrupted
        aligned, chunk, piece_quirks = _align_chunk(piece, qrels, conv, ideal, "skip", max_docs, spec,
                                                    n_threads)
        if piece_quirks is not None:
            quirks.merge(piece_quirks)
        name = piece.name
        del piece               # free the parsed piece before the kernels run
        ignored.extend(aligned.ignored_qids)
        pos = np.array([qindex[t] for t in aligned.qids.tolist()], dtype=np.int64)
        seen[pos] = True
        if ordered:
            positions.append(pos)
        del aligned
        acc.add(chunk)
        del chunk
    missing_qids = qrels.topics[~seen].tolist()
    if missing_qids and missing == "error":
        raise readers.missing_topics_error(qrels.path, os.fspath(run), missing_qids,
                                           readers.topic_first_line(qrels, int(np.flatnonzero(~seen)[0])))
    if missing_qids and missing == "zero":
        # judged topics without results: empty rankings against their judgments
        unseen = ~seen
        n = int(unseen.sum())
        ideal_labels, ideal_offsets, ideal_status = readers.judged_ideal(qrels, unseen, with_status=True)
        empty = readers.AlignedRun(np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(n + 1, dtype=np.int64),
                                   np.zeros(0, dtype=np.int64), ideal_labels, ideal_offsets,
                                   qrels.topics[unseen], [], [], np.zeros(n, dtype=np.int64),
                                   status=np.zeros(0, dtype=np.int8), ideal_status=ideal_status)
        if ordered:
            positions.append(np.flatnonzero(unseen))
        chunk, piece_quirks = _aligned_chunk(empty, conv, ideal, spec, n_threads)
        if piece_quirks is not None:
            quirks.merge(piece_quirks)
        acc.add(chunk)
    if quirks is not None:
        from fastndcg.measures.trec_gains import warn_quirks

        warn_quirks(quirks, spec)
    order = None
    if ordered and positions:
        arrival = np.concatenate(positions)
        if arrival.size and bool(np.any(arrival[1:] < arrival[:-1])):
            order = np.argsort(arrival, kind="stable")
    res = acc.result(order)
    return RunStreamResult(res.mean, res.ndcg, res.query_ids, res.n_queries, res.n_rows, res.n_chunks,
                           res.max_chunk_rows, name, missing_qids, sorted(set(ignored)))


# ----------------------------------------------------------------------------- columns -> chunks


def frame_chunk(cols: Dict[str, np.ndarray], query: str, label: str, score: str,
                doc_id: Optional[str] = None, weight: Optional[str] = None) -> Chunk:
    """A :class:`Chunk` from column arrays whose rows of each query are contiguous.

    Queries are the runs of equal values of ``cols[query]`` (any type that
    compares with ``!=``); the tie key is the rank of ``cols[doc_id]`` within
    the chunk (ascending doc id order, as :mod:`fastndcg.io.frames`); the weight
    must be constant within a query. Missing values raise ValueError naming
    the column and the query.
    """
    q = np.asarray(cols[query])
    n = q.shape[0]
    if n and _has_missing(q):
        raise ValueError(f"query column {query!r} has a missing value (null/NaN) at row {int(_missing(q)[0])}")
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1]))) if n else np.empty(0, np.int64)
    offsets = np.append(starts, n).astype(np.int64)
    ids = q[starts]
    for role, name in (("label", label), ("score", score)):
        arr = np.asarray(cols[name])
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{role} column {name!r} must be numeric; got dtype {arr.dtype}")
        if arr.dtype.kind == "f":
            bad = np.flatnonzero(np.isnan(arr))
            if bad.size:
                qi = int(np.searchsorted(offsets, bad[0], side="right")) - 1
                raise ValueError(f"{role} column {name!r} has a missing value (NaN/null) in query "
                                 f"{plain(ids[qi])!r}")
    tie_key = None
    if doc_id is not None:
        d = np.asarray(cols[doc_id])
        if n and _has_missing(d):
            qi = int(np.searchsorted(offsets, _missing(d)[0], side="right")) - 1
            raise ValueError(f"doc_id column {doc_id!r} has a missing value in query {plain(ids[qi])!r}")
        tie_key = np.unique(d, return_inverse=True)[1].reshape(-1).astype(np.int64)
    weights = None
    if weight is not None:
        weights = query_weights_from_rows(cols[weight], offsets, ids, weight)
    return Chunk(np.asarray(cols[score]), np.asarray(cols[label]), offsets, ids, tie_key, weights)


def _missing(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        return np.flatnonzero(np.isnan(a))
    if a.dtype.kind == "O":
        return np.flatnonzero([v is None or (isinstance(v, float) and math.isnan(v)) for v in a.tolist()])
    return np.empty(0, dtype=np.int64)


def _has_missing(a: np.ndarray) -> bool:
    return a.dtype.kind in "fO" and _missing(a).size > 0


def whole_queries(batches: Iterable[Dict[str, np.ndarray]], query: str, chunk_rows: int,
                  source: str = "input") -> Iterator[Dict[str, np.ndarray]]:
    """Regroup column batches into batches of whole queries.

    Each query's rows must be contiguous across the batches (a query that
    reappears after another raises ValueError naming it). The rows of the
    last (possibly incomplete) query of a batch are carried over to the next
    one; a batch is yielded once it holds at least ``chunk_rows`` rows of
    complete queries, and at the end. Memory: O(chunk_rows + largest query).
    """
    pending: Optional[Dict[str, np.ndarray]] = None
    seen: set = set()

    def check(piece: Dict[str, np.ndarray]) -> None:
        q = piece[query]
        if q.shape[0] == 0:
            return
        starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
        ids = q[starts].tolist()
        hashable = [v.item() if isinstance(v, np.generic) else v for v in ids]
        if len(set(hashable)) != len(hashable) or not seen.isdisjoint(hashable):
            dup = next(v for i, v in enumerate(hashable) if v in seen or v in hashable[:i])
            raise ValueError(f"{source}: query {dup!r} appears again after other queries; streaming "
                             "needs each query's rows to be contiguous (sort by query first)")
        seen.update(hashable)

    for batch in batches:
        pending = batch if pending is None else {c: np.concatenate((pending[c], batch[c])) for c in batch}
        q = pending[query]
        n = q.shape[0]
        if n < chunk_rows or n == 0:
            continue
        last_start = int(np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))[-1])
        if last_start == 0:
            continue
        piece = {c: v[:last_start] for c, v in pending.items()}
        pending = {c: v[last_start:].copy() for c, v in pending.items()}
        check(piece)
        yield piece
    if pending is not None and pending[query].shape[0]:
        check(pending)
        yield pending


# ----------------------------------------------------------------------------- Parquet


def iter_parquet(path: PathLike, *, query: str = "qid", label: str = "label", score: str = "score",
                 doc_id: Optional[str] = None, weight: Optional[str] = None,
                 chunk_rows: int = 1 << 20) -> Iterator[Chunk]:
    """Query-complete chunks of a Parquet file, read with pyarrow batch by batch.

    Needs ``pip install "fastndcg[parquet]"`` (pyarrow). Only the named
    columns are read. Each query's rows must be contiguous in the file (e.g.
    written sorted by query); row groups and batches may split a query: its
    rows are carried over to the next chunk. Query ids may be any type
    pyarrow converts to numpy (integers, strings).
    """
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError('fastndcg.report.stream.iter_parquet needs pyarrow: pip install "fastndcg[parquet]"') from exc
    if not isinstance(chunk_rows, numbers.Integral) or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be an integer >= 1; got {chunk_rows!r}")
    # no pre-buffering, one thread: Arrow then holds one row group's pages of
    # the wanted columns at a time, not the whole file (measured: 5 MB vs 36 MB)
    pf = pq.ParquetFile(os.fspath(path), pre_buffer=False)
    names = [c for c in (query, label, score, doc_id, weight) if c is not None]
    have = pf.schema_arrow.names
    for role, name in (("query", query), ("label", label), ("score", score), ("doc_id", doc_id),
                       ("weight", weight)):
        if name is not None and name not in have:
            raise ValueError(f"{role} column {name!r} is not in {os.fspath(path)}; columns: {have}")
    cols = list(dict.fromkeys(names))

    def batches() -> Iterator[Dict[str, np.ndarray]]:
        for rb in pf.iter_batches(batch_size=max(1, min(chunk_rows, 1 << 16)), columns=cols,
                                    use_threads=False):
            yield {c: rb.column(c).to_numpy(zero_copy_only=False) for c in cols}

    for piece in whole_queries(batches(), query, chunk_rows, source=os.fspath(path)):
        yield frame_chunk(piece, query, label, score, doc_id, weight)


def evaluate_parquet(path: PathLike, k: Cutoffs = 10, *, query: str = "qid", label: str = "label",
                     score: str = "score", doc_id: Optional[str] = None, weight: Optional[str] = None,
                     convention: Any = None, chunk_rows: int = 1 << 20, keep: str = "queries",
                     per_query: bool = True, n_threads: Optional[int] = None) -> StreamResult:
    """NDCG of a Parquet file streamed by whole queries (see :func:`iter_parquet`).

    ``doc_id`` is needed for ``ties="key"/"key_desc"`` conventions; ``weight``
    is a query weight column (constant within a query). The result equals
    :func:`fastndcg.io.frames.ndcg` / :func:`fastndcg.io.frames.mean_ndcg` on the
    whole table (queries in file order) bit for bit with ``keep="queries"``.
    """
    return evaluate(iter_parquet(path, query=query, label=label, score=score, doc_id=doc_id,
                                 weight=weight, chunk_rows=chunk_rows),
                    k, convention=convention, keep=keep, per_query=per_query, n_threads=n_threads)


# ----------------------------------------------------------------------------- partitions (Dask, Spark)


#: The parameters the DataFrame back-ends (Dask, Spark) share, for their docstrings.
FRAME_PARAMS_DOC = """    k : None, int or list, default 10
        Cutoff(s), as :func:`fastndcg.ndcg`; columns ``ndcg@k`` (``ndcg`` for None).
    query, label, score : str
        Column names. Query ids may be any sortable type.
    doc_id : str, optional
        Doc ids, for conventions that break ties by key (trec_eval, gdeval).
    weight : str, optional
        Query weights (constant within a query).
    convention : Convention, preset name or None
        Any convention or preset.
"""


def frame_plan(have: List[str], k: Cutoffs, query: str, label: str, score: str,
               doc_id: Optional[str], weight: Optional[str], convention: Any,
               n_threads: Optional[int], where: str = "the DataFrame") -> Tuple[List[str], ChunkEvaluator, List[str]]:
    """Check a frame's column arguments; return (columns to read, evaluator,
    result column names). Raises ValueError naming a missing column, a
    missing ``doc_id`` for a tie-key convention, or clashing result names."""
    roles = {"query": query, "label": label, "score": score, "doc_id": doc_id, "weight": weight}
    for role, name in roles.items():
        if name is not None and name not in have:
            raise ValueError(f"{role} column {name!r} is not in {where}; columns: {list(have)}")
    cols = list(dict.fromkeys(n for n in roles.values() if n is not None))
    evaluator = ChunkEvaluator(k, convention=convention, n_threads=n_threads)
    if evaluator.convention.uses_tie_key and doc_id is None:
        raise ValueError(f"the convention breaks ties by doc id (ties={evaluator.convention.ties!r}); "
                         "pass doc_id=<column>")
    names = cutoff_names(k)
    out_cols = names + [c for c in (query, weight) if c is not None]
    if len(set(out_cols)) != len(out_cols):
        raise ValueError(f"the result columns {names} must differ from each other and from the "
                         f"query/weight columns {query!r}/{weight!r}")
    return cols, evaluator, names


def term_columns(n_cutoffs: int) -> Tuple[List[str], List[str]]:
    """Names of the hidden per-query summand columns of the distributed back-ends."""
    return ([f"__fastndcg_num{j}" for j in range(n_cutoffs)],
            [f"__fastndcg_den{j}" for j in range(n_cutoffs)])


def partition_terms(cols: Dict[str, np.ndarray], evaluator: ChunkEvaluator, query: str, label: str,
                    score: str, doc_id: Optional[str], weight: Optional[str], names: List[str]) -> Dict[str, Any]:
    """Per-query output columns of one query-complete partition.

    ``cols`` holds the partition's rows with each query contiguous and in
    input order. Returns {query: ids, *names: NDCG per cutoff, weight: w_q
    (if given), *term_columns: the aggregate's per-query summands}.
    """
    chunk = frame_chunk(cols, query, label, score, doc_id, weight)
    try:
        nd, num, den = evaluator.terms(chunk)
    except (ValueError, TypeError) as exc:
        ids = chunk.query_ids
        assert ids is not None      # frame chunks carry their query ids
        raise type(exc)(f"in the partition holding queries {plain(ids[0])!r}..{plain(ids[-1])!r}: {exc}") from exc
    out: Dict[str, Any] = {query: chunk.query_ids}
    for j, nm in enumerate(names):
        out[nm] = nd[:, j]
    if weight is not None:
        out[weight] = chunk.weights
    nums, dens = term_columns(evaluator.n_cutoffs)
    for j in range(evaluator.n_cutoffs):
        out[nums[j]] = num[:, j]
    for j in range(evaluator.n_cutoffs):
        out[dens[j]] = den[:, j]
    return out


def partial_rows(frames: Iterable[Any], n_cutoffs: int) -> Any:
    """Exact partial sums of per-query frames' summand columns, as a small
    pandas DataFrame (``part``: cutoff j for numerators, n_cutoffs + j for
    denominators; ``value``: one partial a row), for a partition to send to
    the driver instead of its per-query values."""
    import pandas as pd

    nums, dens = term_columns(n_cutoffs)
    acc = ExactSum(2 * n_cutoffs)
    for frame in frames:
        acc.add(np.column_stack([np.asarray(frame[c], dtype=np.float64) for c in nums + dens]))
    part = [j for j, p in enumerate(acc.parts) for _ in p]
    value = [v for p in acc.parts for v in p]
    return pd.DataFrame({"part": np.array(part, dtype=np.int32), "value": np.array(value, dtype=np.float64)})


def combine_partial_rows(evaluator: ChunkEvaluator, part: Any, value: Any,
                         names: List[str]) -> Union[float, Dict[str, float]]:
    """The aggregate from every partition's :func:`partial_rows`: the exact sum
    of all partials per cutoff, correctly rounded (independent of the
    partitioning and of the order of the rows), then num / den. A
    float for a single k, else {column name: value}."""
    nc = evaluator.n_cutoffs
    part = np.asarray(part, dtype=np.int64)
    value = np.asarray(value, dtype=np.float64)
    acc = ExactSum(2 * nc)
    for j in range(2 * nc):
        acc.add_partials(j, value[part == j].tolist())
    sums = acc.values()
    values = evaluator.finish(sums[:nc], sums[nc:])
    if evaluator.single:
        return float(values)
    return dict(zip(names, (float(v) for v in np.asarray(values))))
