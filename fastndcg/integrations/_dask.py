"""NDCG of a Dask DataFrame (``pip install "fastndcg[dask]"``).

One row per (query, document), with query, label and score columns (and
optionally a doc id column for tie rules by key, and a query weight column),
in any number of partitions; a query's rows may be spread over several
partitions. The rows are shuffled by query so that each query lives in one
partition (skip with ``shuffle=False`` when the data is already partitioned
by query), each partition is sorted by (query, input position) and evaluated
with the in-memory kernels, and the results come back as a Dask DataFrame
(one row per query) and the aggregate, a number (:func:`dask_evaluate`).

* Per-query values equal :func:`fastndcg.stream.frame_ndcg` on the computed frame
  bit for bit: a query's rows keep their input order (a position column is
  added before the shuffle: partition number * 2**40 + row in partition), and
  doc ids are ranked within each partition, which orders a query's documents
  as a global ranking does.
* The aggregate (:attr:`DaskResult.mean`) is summed exactly: each partition turns
  its per-query summands (``w_q NDCG_q`` and ``w_q``, or ``w_q DCG_q`` and
  ``w_q IDCG_q`` for ``aggregation="ratio"``, as :meth:`fastndcg.NDCGScorer.mean`)
  into exact partial sums (:func:`fastndcg.stream._chunks.exact_partials`, a few
  floats), and the driver adds all partials exactly and rounds once. These
  are the correctly rounded exact sums of every in-memory aggregate too, so
  the result does not depend on the partitioning or the order of the
  partitions and equals :func:`fastndcg.mean_ndcg` on the same data bit for bit.

Query ids may be of any sortable type (integers, strings). Works on the
threaded scheduler and on ``distributed`` clusters.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

import numpy as np

from fastndcg.stream._chunks import ChunkEvaluator
from fastndcg.integrations._partitions import combine_partial_rows, FRAME_PARAMS_DOC, frame_plan, partial_rows, partition_terms, term_columns
from fastndcg._core.summary import frame_result_repr
from fastndcg._core.query_checks import plain
from fastndcg.conventions._convention import Cutoffs

POSITION = "__fastndcg_pos"
_ROW_BITS = 40


def _require_dask():
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("fastndcg.integrations' dask_evaluate and partition_by_query need dask: "
                          'pip install "fastndcg[dask]"') from exc
    return dask, dd


def _check_columns(ddf: Any, roles: Dict[str, Optional[str]]) -> List[str]:
    _, dd = _require_dask()
    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(f"ddf must be a dask.dataframe.DataFrame; got {type(ddf).__module__}.{type(ddf).__name__}")
    cols = list(ddf.columns)
    for role, name in roles.items():
        if name is not None and name not in cols:
            raise ValueError(f"{role} column {name!r} is not in the DataFrame; columns: {cols}")
    return list(dict.fromkeys(n for n in roles.values() if n is not None))


def _with_position(pdf: Any, partition_info: Optional[dict] = None) -> Any:
    number = 0 if partition_info is None else int(partition_info["number"])
    out = pdf.copy()
    out[POSITION] = (np.int64(number) << _ROW_BITS) + np.arange(len(pdf), dtype=np.int64)
    return out


def _evaluate_partition(pdf: Any, evaluator: ChunkEvaluator, query: str, label: str, score: str,
                        doc_id: Optional[str], weight: Optional[str], names: List[str], meta: Any) -> Any:
    import pandas as pd

    if len(pdf) == 0:
        return meta.copy()
    if POSITION in pdf.columns:
        pdf = pdf.sort_values([query, POSITION], kind="mergesort")
    elif not _contiguous(pdf[query].to_numpy()):     # shuffle=False: rows are in input order
        pdf = pdf.sort_values(query, kind="mergesort")
    cols = {c: pdf[c].to_numpy() for c in pdf.columns if c != POSITION}
    out = partition_terms(cols, evaluator, query, label, score, doc_id, weight, names)
    frame = pd.DataFrame({c: np.asarray(v) for c, v in out.items()})
    return frame.astype(meta.dtypes.to_dict())


def _sort_partition(pdf: Any, query: str) -> Any:
    return pdf.sort_values([query, POSITION], kind="mergesort").drop(columns=POSITION)


def partition_by_query(ddf: Any, query: str = "qid", *, npartitions: Optional[int] = None) -> Any:
    """Rows sorted by query, each query whole in one partition, in input order within a query.

    ``set_index(query)`` (a sort by query with quantile divisions, so a
    query never straddles two partitions), then a stable sort of each
    partition by (query, input position). The result suits
    ``xgboost.dask.DaskDMatrix(..., qid=ddf[query])`` for learning to rank
    (XGBoost needs each worker's query ids sorted and each query on one
    worker): with :class:`fastndcg.integrations.XGBoostObjective` every worker
    then computes the gradients of whole queries, as single-machine training
    does (see docs/scale.md). Persist the result first (``.persist()``):
    the sort computes its divisions when the graph is built, which
    ``xgboost.dask`` (an asynchronous client) cannot do.
    """
    _check_columns(ddf, {"query": query})
    data = ddf.map_partitions(_with_position, meta=ddf._meta.assign(**{POSITION: np.int64(0)}))
    data = data.set_index(query, sort=True, npartitions=npartitions).reset_index()
    data = data[list(ddf.columns) + [POSITION]]
    return data.map_partitions(_sort_partition, query, meta=ddf._meta)


def _contiguous(q: np.ndarray) -> bool:
    """True when each query's rows form one run."""
    import pandas as pd

    if q.shape[0] == 0:
        return True
    runs = q[np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))]
    return len(pd.unique(runs)) == runs.shape[0]


@dataclass
class DaskResult:
    """Per-query NDCG (a Dask DataFrame, persisted) and the aggregate."""

    per_query: Any
    mean: Union[float, Dict[str, float]]
    #: what each cutoff's number is (:attr:`fastndcg.Measurement.signature`)
    signatures: List[str] = field(default_factory=list)

    def __repr__(self) -> str:
        """``DaskResult(1 measure, mean nDCG@10=0.3914)``; the per-query values stay in the
        Dask DataFrame :attr:`per_query`."""
        return frame_result_repr("DaskResult", self.mean, self.signatures)


def _terms(ddf: Any, k: Cutoffs, query: str, label: str, score: str, doc_id: Optional[str],
           weight: Optional[str], convention: Any, shuffle: bool, npartitions: Optional[int],
           n_threads: Optional[int]):
    import pandas as pd

    _check_columns(ddf, {})
    cols, evaluator, names = frame_plan(list(ddf.columns), k, query, label, score, doc_id, weight,
                                        convention, n_threads)
    data = ddf[cols]
    if shuffle:   # input positions keep each query's rows in input order through the shuffle
        meta_in = data._meta.assign(**{POSITION: np.int64(0)})
        data = data.map_partitions(_with_position, meta=meta_in)
        data = data.shuffle(on=query, npartitions=npartitions)
    nums, dens = term_columns(evaluator.n_cutoffs)
    meta = {query: data._meta[query].dtype}
    meta.update({nm: np.float64 for nm in names})
    if weight is not None:
        meta[weight] = np.float64
    meta.update({c: np.float64 for c in nums + dens})
    meta_df = pd.DataFrame({c: pd.Series([], dtype=t) for c, t in meta.items()})
    terms = data.map_partitions(_evaluate_partition, evaluator, query, label, score, doc_id, weight,
                                names, meta_df, meta=meta_df)
    return terms, evaluator, names, nums + dens


def _query_range(ids: Any) -> Any:
    import pandas as pd

    if len(ids) == 0:
        return pd.DataFrame({"lo": ids.iloc[:0], "hi": ids.iloc[:0]})
    return pd.DataFrame({"lo": [ids.min()], "hi": [ids.max()]})


def _aggregate(terms: Any, evaluator: ChunkEvaluator, names: List[str], query: str, check: bool):
    """Exact partials of every partition and, with ``check`` (the caller said
    the data is partitioned by query), each partition's smallest and largest
    query id, in one compute. Disjoint ranges prove that no query is in two
    partitions (range-partitioned data, e.g. after ``set_index``); otherwise
    a ``value_counts`` decides, and a query found twice is a ValueError."""
    import pandas as pd

    dask, _ = _require_dask()
    nc = evaluator.n_cutoffs
    meta = pd.DataFrame({"part": pd.Series([], dtype=np.int32), "value": pd.Series([], dtype=np.float64)})
    rows = terms.map_partitions(lambda f: partial_rows([f], nc), meta=meta)
    if not check:
        (out,) = dask.compute(rows)
    else:
        qmeta = pd.DataFrame({"lo": terms._meta[query], "hi": terms._meta[query]})
        out, ranges = dask.compute(rows, terms[query].map_partitions(_query_range, meta=qmeta))
        ranges = ranges.sort_values("lo", kind="mergesort")
        if bool((ranges["hi"].to_numpy()[:-1] >= ranges["lo"].to_numpy()[1:]).any()):
            top = terms[query].value_counts().nlargest(1).compute()
            if len(top) and int(top.iloc[0]) > 1:
                raise ValueError(f"shuffle=False but query {plain(top.index[0])!r} is in several "
                                 "partitions; the data is not partitioned by query (use shuffle=True)")
    return combine_partial_rows(evaluator, out["part"], out["value"], names)



_DOC = """
    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per (query, document).
""" + FRAME_PARAMS_DOC + """    shuffle : bool, default True
        Shuffle rows by query so each query is whole in one partition. With
        False the caller guarantees it (:func:`dask_evaluate` and
        :func:`dask_mean_ndcg` check it: a query found in two partitions is a
        ValueError; the lazy :func:`dask_ndcg` does not).
    npartitions : int, optional
        Partitions after the shuffle (default: as the input).
    n_threads : int, optional, default 1
        OpenMP threads per partition (Dask already runs partitions in parallel).
"""


def dask_ndcg(ddf: Any, k: Cutoffs = 10, *, query: str = "qid", label: str = "label", score: str = "score",
              doc_id: Optional[str] = None, weight: Optional[str] = None, convention: Any = None,
              shuffle: bool = True, npartitions: Optional[int] = None, n_threads: Optional[int] = 1) -> Any:
    """Per-query NDCG of a Dask DataFrame, lazily: a Dask DataFrame with the
    query column, ``ndcg@k`` per cutoff and the weight column (if given), one
    row per query, values bit-identical to :func:`fastndcg.stream.frame_ndcg`.
    """
    terms, _, _, hidden = _terms(ddf, k, query, label, score, doc_id, weight, convention, shuffle,
                                 npartitions, n_threads)
    return terms.drop(columns=hidden)


def dask_mean_ndcg(ddf: Any, k: Cutoffs = 10, *, query: str = "qid", label: str = "label",
                   score: str = "score", doc_id: Optional[str] = None, weight: Optional[str] = None,
                   convention: Any = None, shuffle: bool = True, npartitions: Optional[int] = None,
                   n_threads: Optional[int] = 1) -> Union[float, Dict[str, float]]:
    """Aggregate NDCG of a Dask DataFrame (computes): a float for a single k,
    else {column name: value}; exact sums over partitions (see the module
    notes), equal to :func:`fastndcg.stream.frame_mean_ndcg` to about 1e-16."""
    return dask_evaluate(ddf, k, query=query, label=label, score=score, doc_id=doc_id, weight=weight,
                    convention=convention, shuffle=shuffle, npartitions=npartitions,
                    n_threads=n_threads, persist=False).mean


def dask_evaluate(ddf: Any, k: Cutoffs = 10, *, query: str = "qid", label: str = "label",
                  score: str = "score", doc_id: Optional[str] = None, weight: Optional[str] = None,
                  convention: Any = None, shuffle: bool = True, npartitions: Optional[int] = None,
                  n_threads: Optional[int] = 1, persist: bool = True) -> DaskResult:
    """Per-query NDCG and the aggregate in one pass over the data.

    The per-query frame is persisted (kept on the workers; ``persist=False``
    leaves it lazy, so using it recomputes), and the aggregate is computed
    from it.
    """
    terms, evaluator, names, hidden = _terms(ddf, k, query, label, score, doc_id, weight, convention,
                                             shuffle, npartitions, n_threads)
    if persist:
        terms = terms.persist()
    return DaskResult(terms.drop(columns=hidden), _aggregate(terms, evaluator, names, query, not shuffle),
                      evaluator.signatures())


for _f in (dask_ndcg, dask_mean_ndcg, dask_evaluate):
    _f.__doc__ = (_f.__doc__ or "") + _DOC
