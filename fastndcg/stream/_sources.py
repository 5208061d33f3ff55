"""Chunk sources on disk: ``.npy`` files opened memory-mapped and cut at query boundaries
(:func:`iter_npy`, :func:`evaluate_npy`), SVMlight / LETOR files with a prediction file
(:func:`evaluate_svmlight`)."""
from __future__ import annotations
import numbers
import os
from typing import Any, Iterator, Optional

import numpy as np

from fastndcg.conventions._convention import Cutoffs
from fastndcg.stream._chunks import Chunk, PathLike, StreamResult, evaluate_chunks


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
    return evaluate_chunks(iter_npy(scores, labels, offsets, tie_key=tie_key, weights=weights,
                             query_ids=query_ids, chunk_rows=chunk_rows),
                    k, convention=convention, keep=keep, per_query=per_query, n_threads=n_threads)


# ----------------------------------------------------------------------------- SVMlight


def evaluate_svmlight(path: PathLike, predictions: PathLike, k: Cutoffs = 10, *,
                      convention: Any = None, group: Any = None, chunk_rows: int = 1 << 20,
                      keep: str = "queries", per_query: bool = True,
                      n_threads: Optional[int] = None, **reader_kwargs: Any) -> StreamResult:
    """NDCG of an SVMlight / LETOR file and its prediction file, streamed by
    whole queries with :func:`fastndcg.io.iter_svmlight` (each query's
    rows contiguous in the file). Query ids are the ``qid:`` values."""
    from fastndcg.io._svmlight import iter_svmlight

    chunks = iter_svmlight(path, predictions, group=group, chunk_rows=chunk_rows, **reader_kwargs)
    return evaluate_chunks(chunks, k, convention=convention, keep=keep, per_query=per_query,
                    n_threads=n_threads)
