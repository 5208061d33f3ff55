"""pandas and polars DataFrames as CSR arrays (:func:`frame_arrays`).

One row per (query, document) with a query column, a label column and a
score column (optionally a doc id column, for tie rules that need one, and a
query weight column). Rows of a query need not be contiguous. The columns
become numpy arrays and queries are grouped with vectorised numpy/pandas/polars
operations (no Python loop per query). The NDCG of a frame is
:func:`fastndcg.stream.frame_ndcg` (io never calls the measures).
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from fastndcg.conventions._presets import as_convention
from fastndcg._core.query_checks import plain



def _library(df: Any) -> str:
    mod = type(df).__module__.split(".")[0]
    if mod == "pandas":
        return "pandas"
    if mod == "polars":
        return "polars"
    raise TypeError(f"df must be a pandas or polars DataFrame; got {type(df).__module__}.{type(df).__name__}")


def _column(df: Any, lib: str, name: str, role: str) -> Any:
    cols = list(df.columns)
    if name not in cols:
        raise ValueError(f"{role} column {name!r} is not in the DataFrame; columns: {cols}")
    return df[name]


def _numeric(series: Any, lib: str, name: str) -> np.ndarray:
    if lib == "polars":
        if series.null_count():
            i = int(series.is_null().arg_max())
            raise ValueError(f"column {name!r} has a null at row {i}")
        arr = series.to_numpy()
    else:
        if series.isna().any():
            i = int(np.flatnonzero(series.isna().to_numpy())[0])
            raise ValueError(f"column {name!r} has a missing value at row {i} (NaN/None)")
        arr = series.to_numpy()
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"column {name!r} must be numeric; got dtype {arr.dtype}")
    return arr


def _codes(series: Any, lib: str, name: str, order: str) -> Tuple[np.ndarray, Any]:
    """Integer codes of a key column and the unique keys.

    ``order="appearance"``: codes 0.. in order of first appearance (queries);
    ``order="sorted"``: codes are ranks in ascending key order (doc ids).
    """
    if lib == "pandas":
        import pandas as pd

        if series.isna().any():
            i = int(np.flatnonzero(series.isna().to_numpy())[0])
            raise ValueError(f"column {name!r} has a missing value at row {i}")
        codes, uniques = pd.factorize(series, sort=(order == "sorted"))
        return codes.astype(np.int64, copy=False), uniques
    import polars as pl

    if series.null_count():
        i = int(series.is_null().arg_max())
        raise ValueError(f"column {name!r} has a null at row {i}")
    ranks = series.rank(method="dense").cast(pl.Int64).to_numpy() - 1
    if order == "sorted":
        return ranks, series.unique().sort()
    n_unique = int(ranks.max()) + 1 if ranks.size else 0
    first = np.full(n_unique, ranks.size, dtype=np.int64)
    np.minimum.at(first, ranks, np.arange(ranks.size, dtype=np.int64))
    by_first = np.argsort(first, kind="stable")
    relabel = np.empty(n_unique, dtype=np.int64)
    relabel[by_first] = np.arange(n_unique)
    return relabel[ranks], series.gather(first[by_first])


def query_weights_from_rows(w: np.ndarray, offsets: np.ndarray, ids: Any, column: str) -> np.ndarray:
    """One weight per query from a per-row column that must be constant within
    each query (0 for a query without rows); a ValueError names the column
    and the first query whose rows disagree."""
    w = np.asarray(w, dtype=np.float64)
    counts = np.diff(offsets)
    has_rows = counts > 0
    first = w[offsets[:-1][has_rows]]
    bad = np.flatnonzero(w != np.repeat(first, counts[has_rows]))
    if bad.size:
        q = int(np.searchsorted(offsets, bad[0], side="right")) - 1
        raise ValueError(f"weight column {column!r} must be constant within a query; query "
                         f"{plain(ids[q])!r} has several values")
    weights = np.zeros(counts.shape[0])
    weights[has_rows] = first
    return weights


def frame_arrays(df: Any, query: str, label: str, score: str, doc_id: Optional[str], weight: Optional[str],
                 convention: Any) -> Tuple[str, Any, Any, np.ndarray, np.ndarray, np.ndarray, Optional[np.ndarray],
                                           Optional[np.ndarray], Any]:
    """A frame's rows grouped by query as CSR arrays: (library name, the frame (a LazyFrame
    collected), the Convention, scores, labels, offsets, tie key (doc id ranks, ascending, when
    the convention breaks ties by key), query weights (from ``weight``), the query ids in order
    of first appearance). Rows keep their order within a query (a stable grouping)."""
    lib = _library(df)
    if lib == "polars":
        import polars as pl

        if isinstance(df, pl.LazyFrame):
            wanted = [c for c in (query, label, score, doc_id, weight) if c is not None]
            df = df.select(wanted).collect()
    conv = as_convention(convention)
    q_codes, q_uniques = _codes(_column(df, lib, query, "query"), lib, query, "appearance")
    lab = _numeric(_column(df, lib, label, "label"), lib, label)
    sc = _numeric(_column(df, lib, score, "score"), lib, score)
    n_q = len(q_uniques)
    order = np.argsort(q_codes, kind="stable")
    counts = np.bincount(q_codes, minlength=n_q)
    offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    contiguous = bool(np.all(order == np.arange(order.size)))
    take = (lambda a: a) if contiguous else (lambda a: a[order])
    tie_key = None
    if conv.uses_tie_key:
        if doc_id is None:
            raise ValueError(f"the convention breaks ties by doc id (ties={conv.ties!r}); pass doc_id=<column>")
        d_codes, _ = _codes(_column(df, lib, doc_id, "doc_id"), lib, doc_id, "sorted")
        tie_key = take(d_codes)
    weights = None
    if weight is not None:
        w = _numeric(_column(df, lib, weight, "weight"), lib, weight)
        weights = query_weights_from_rows(take(w), offsets, q_uniques, weight)
    return lib, df, conv, take(sc), take(lab), offsets, tie_key, weights, q_uniques
