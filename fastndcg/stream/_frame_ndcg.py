"""NDCG of pandas and polars DataFrames: :func:`frame_ndcg`, :func:`frame_mean_ndcg`.

The frame becomes CSR arrays in io (:func:`fastndcg.io._frames.frame_arrays`: rows grouped by
query, stably) and the NDCG API scores them; per-query results come back as a DataFrame of the
caller's library.

>>> import pandas as pd
>>> from fastndcg.stream import frame_ndcg
>>> df = pd.DataFrame({"qid": [1, 1, 2, 2], "label": [1, 0, 0, 2], "score": [.9, .1, .8, .3]})
>>> frame_ndcg(df, k=[1, 2])
   qid  ndcg@1   ndcg@2
0    1     1.0  1.00000
1    2     0.0  0.63093
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from fastndcg.conventions._convention import Cutoffs
from fastndcg._core.query_checks import check_cutoffs, distinct_cutoffs
from fastndcg.io._frames import frame_arrays
from fastndcg.measures._ndcg import mean_ndcg, ndcg

__all__ = ["frame_ndcg", "frame_mean_ndcg"]


def _names(k: Cutoffs) -> List[str]:
    """The result columns of ``k`` (:func:`distinct_cutoffs`: a repeated cutoff is one column)."""
    _, _, single = check_cutoffs(k)
    ks: List[Any] = [k] if single else list(k)  # type: ignore[arg-type]  # a sequence when not single
    return ["ndcg" if v is None else f"ndcg@{int(v)}" for v in ks]


def frame_ndcg(df: Any, k: Cutoffs = 10, *, query: str = "qid", label: str = "label", score: str = "score",
               doc_id: Optional[str] = None, weight: Optional[str] = None, convention: Any = None,
               n_threads: Optional[int] = None) -> Any:
    """Per-query NDCG of a pandas or polars DataFrame.

    Parameters
    ----------
    df : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
    k : None, int or list, default 10
        Cutoff(s); None is the whole list. A repeated cutoff is one column
        (first appearance first).
    query, label, score : str
        Column names. Query ids may be any hashable/sortable type; rows of a
        query may be scattered (they are grouped stably, queries in order of
        first appearance).
    doc_id : str, optional
        Document ids; needed when the convention breaks ties by a key
        (``ties="key"``/``"key_desc"``, e.g. the ``trec_eval`` presets, where
        tied scores are ranked by doc id descending). Strings compare by
        code point, which for UTF-8 is trec_eval's bytewise order.
    weight : str, optional
        A query weight column (constant within each query); it is copied to
        the result and used by :func:`frame_mean_ndcg`.
    convention : Convention, preset name or None
        See :func:`fastndcg.ndcg`. The ideal list comes from each query's
        own rows.

    Returns
    -------
    DataFrame of the same library
        One row per query: the query column, then ``ndcg@k`` (``ndcg`` for
        k=None) per cutoff, then the weight column if given. A frame without
        rows gives those columns and no rows (as :func:`fastndcg.ndcg` gives an
        empty array for no queries; :func:`frame_mean_ndcg` gives NaN).
    """
    lib, df, conv, sc, lab, offsets, tie_key, weights, q_uniques = frame_arrays(
        df, query, label, score, doc_id, weight, convention)
    k = distinct_cutoffs(k)
    values = ndcg(sc, lab, offsets, k, convention=conv, tie_key=tie_key, n_threads=n_threads)
    names = _names(k)
    # one column per cutoff, also for no rows (as fastndcg.ndcg: no queries, an empty result)
    values = values.reshape(values.shape[0], len(names))
    if lib == "pandas":
        import pandas as pd

        data: Dict[str, Any] = {query: np.asarray(q_uniques)}
        for j, nm in enumerate(names):
            data[nm] = values[:, j]
        if weight is not None:
            data[weight] = weights
        return pd.DataFrame(data)
    import polars as pl

    cols = [q_uniques.alias(query)]
    cols += [pl.Series(nm, values[:, j]) for j, nm in enumerate(names)]
    if weight is not None:
        cols.append(pl.Series(weight, weights))
    return pl.DataFrame(cols)


def frame_mean_ndcg(df: Any, k: Cutoffs = 10, *, query: str = "qid", label: str = "label",
                    score: str = "score", doc_id: Optional[str] = None, weight: Optional[str] = None,
                    convention: Any = None, n_threads: Optional[int] = None):
    """Mean NDCG of a DataFrame (see :func:`frame_ndcg` for the arguments and
    :func:`fastndcg.mean_ndcg` for the aggregation): a float for a single k,
    else a dict {column name: value}."""
    lib, df, conv, sc, lab, offsets, tie_key, weights, q_uniques = frame_arrays(
        df, query, label, score, doc_id, weight, convention)
    k = distinct_cutoffs(k)
    values = mean_ndcg(sc, lab, offsets, k, convention=conv, tie_key=tie_key, weights=weights,
                   n_threads=n_threads)
    if np.ndim(values) == 0:
        return float(values)
    return dict(zip(_names(k), (float(v) for v in np.asarray(values))))
