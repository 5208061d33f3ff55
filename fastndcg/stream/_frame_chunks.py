"""Columns to chunks: data-frame columns (query, label, score, doc id, weight) into CSR chunks,
and Parquet files whose row groups may split a query (the tail is carried to the next batch):
:func:`iter_parquet`, :func:`evaluate_parquet`."""
from __future__ import annotations
import math
import numbers
import os
from typing import Any, Dict, Iterable, Iterator, Optional

import numpy as np

from fastndcg.conventions._convention import Cutoffs
from fastndcg._core.query_checks import plain
from fastndcg.io._frames import query_weights_from_rows
from fastndcg.stream._chunks import Chunk, PathLike, StreamResult, evaluate_chunks


# ----------------------------------------------------------------------------- columns -> chunks


def frame_chunk(cols: Dict[str, np.ndarray], query: str, label: str, score: str,
                doc_id: Optional[str] = None, weight: Optional[str] = None) -> Chunk:
    """A :class:`Chunk` from column arrays whose rows of each query are contiguous.

    Queries are the runs of equal values of ``cols[query]`` (any type that
    compares with ``!=``); the tie key is the rank of ``cols[doc_id]`` within
    the chunk (ascending doc id order, as :mod:`fastndcg.io._frames`); the weight
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
        raise ImportError('reading Parquet (fastndcg.stream.evaluate_stream) needs pyarrow: '
                          'pip install "fastndcg[parquet]"') from exc
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
    :func:`fastndcg.stream.frame_ndcg` / :func:`fastndcg.stream.frame_mean_ndcg` on the
    whole table (queries in file order) bit for bit with ``keep="queries"``.
    """
    return evaluate_chunks(iter_parquet(path, query=query, label=label, score=score, doc_id=doc_id,
                                 weight=weight, chunk_rows=chunk_rows),
                    k, convention=convention, keep=keep, per_query=per_query, n_threads=n_threads)
