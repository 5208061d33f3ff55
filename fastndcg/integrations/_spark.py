"""NDCG of a PySpark DataFrame (``pip install "fastndcg[spark]"``).

One row per (query, document) with query, label and score columns (and
optionally a doc id column for tie rules by key, and a query weight column).
The rows are repartitioned by query (a hash shuffle, so each query is whole in
one partition) and sorted within each partition by (query, input position);
``mapInPandas`` (Arrow batches) then hands each partition's rows to the
in-memory kernels, whole queries at a time (a query cut between two Arrow
batches is carried over to the next one). Results: a Spark DataFrame with one
row per query, and the aggregate as a number.

* Per-query values equal :func:`fastndcg.stream.frame_ndcg` on ``df.toPandas()``
  bit for bit: the input position is ``monotonically_increasing_id()`` taken
  before the shuffle (increasing in partition order, then row order), and doc
  ids are ranked within each batch of whole queries. The input order is
  Spark's (partition, then row): deterministic for files and
  ``createDataFrame``, but not for a DataFrame that went through a
  round-robin ``repartition(n)`` (Spark may prune columns below it and deal
  the rows differently), which matters only to tie rules that fall back on
  input order (``ties="stable"``, the default).
* The aggregate is summed exactly: each partition turns its per-query
  summands (as :meth:`fastndcg.NDCGScorer.mean`) into exact partial sums
  (:func:`fastndcg.stream._chunks.exact_partials`, a few floats per cutoff), which are
  collected and added exactly on the driver, then rounded once: the correctly
  rounded exact sum of every in-memory aggregate too, independent of the
  partitioning and of the order in which partitions finish, so the result
  equals :func:`fastndcg.mean_ndcg` on the same data bit for bit.

Query ids may be any type Spark can partition and sort (integers, strings).
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Union

import numpy as np

from fastndcg._core.summary import frame_result_repr
from fastndcg.conventions._convention import Cutoffs
from fastndcg.stream._chunks import ChunkEvaluator
from fastndcg.integrations._partitions import combine_partial_rows, FRAME_PARAMS_DOC, frame_plan, partial_rows, partition_terms, term_columns
from fastndcg.stream._frame_chunks import whole_queries

POSITION = "__fastndcg_pos"
#: Rows handed to the kernels at once within a partition (whole queries; more
#: when one query is larger).
CHUNK_ROWS = 1 << 16


def _require_spark():
    try:
        from pyspark.sql import DataFrame, functions, types
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("fastndcg.integrations' spark_evaluate needs pyspark: "
                          'pip install "fastndcg[spark]"') from exc
    return DataFrame, functions, types


@dataclass
class SparkResult:
    """Per-query NDCG (a cached Spark DataFrame) and the aggregate."""

    per_query: Any
    mean: Union[float, Dict[str, float]]
    #: what each cutoff's number is (:attr:`fastndcg.Measurement.signature`)
    signatures: List[str] = field(default_factory=list)

    def __repr__(self) -> str:
        """``SparkResult(1 measure, mean nDCG@10=0.3914)``; the per-query values stay in the
        Spark DataFrame :attr:`per_query`."""
        return frame_result_repr("SparkResult", self.mean, self.signatures)


def _terms(sdf: Any, k: Cutoffs, query: str, label: str, score: str, doc_id: Optional[str],
           weight: Optional[str], convention: Any, num_partitions: Optional[int],
           n_threads: Optional[int]):
    DataFrame, F, T = _require_spark()
    if not isinstance(sdf, DataFrame):
        raise TypeError(f"df must be a pyspark.sql.DataFrame; got {type(sdf).__module__}.{type(sdf).__name__}")
    cols, evaluator, names = frame_plan(list(sdf.columns), k, query, label, score, doc_id, weight,
                                        convention, n_threads)
    nums, dens = term_columns(evaluator.n_cutoffs)
    fields = [sdf.schema[query]]
    fields += [T.StructField(nm, T.DoubleType()) for nm in names]
    if weight is not None:
        fields.append(T.StructField(weight, T.DoubleType()))
    fields += [T.StructField(c, T.DoubleType()) for c in nums + dens]
    schema = T.StructType(fields)

    data = sdf.select(*cols).withColumn(POSITION, F.monotonically_increasing_id())
    data = (data.repartition(num_partitions, query) if num_partitions else data.repartition(query))
    data = data.sortWithinPartitions(query, POSITION)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        arrays = ({c: b[c].to_numpy() for c in cols} for b in batches)
        for piece in whole_queries(arrays, query, CHUNK_ROWS, source="a Spark partition"):
            out = partition_terms(piece, evaluator, query, label, score, doc_id, weight, names)
            yield pd.DataFrame({c: np.asarray(v) for c, v in out.items()})

    return data.mapInPandas(run, schema), evaluator, names, nums + dens


def _aggregate(terms: Any, evaluator: ChunkEvaluator, names: List[str]):
    nc = evaluator.n_cutoffs
    rows = _collect(terms.mapInPandas(lambda batches: iter([partial_rows(batches, nc)]),
                                      "part int, value double"))
    return combine_partial_rows(evaluator, [r["part"] for r in rows], [r["value"] for r in rows], names)


def _collect(df: Any) -> list:
    """``df.collect()``, re-raising a ValueError/TypeError of fastndcg's Python
    code on an executor as that ValueError/TypeError (Spark wraps it)."""
    try:
        return df.collect()
    except Exception as exc:
        if type(exc).__name__ != "PythonException":
            raise
        # the worker's exception by its (qualified) class name: ValueError, TypeError
        # or one of fastndcg's subclasses of them (fastndcg._core.query_checks.ValueAtError)
        found = [(kind, message) for name, message in
                 re.findall(r"^([A-Za-z_][\w.]*Error): (.+)$", str(exc), flags=re.MULTILINE)
                 for kind in [_builtin_kind(name)] if kind is not None]
        if not found:
            raise
        kind, message = found[-1]
        raise kind(message) from exc


def _builtin_kind(name: str) -> Optional[type]:
    """ValueError or TypeError for a worker's exception class name that is one of
    them or a fastndcg subclass of one; None otherwise."""
    if name in ("ValueError", "TypeError"):
        return ValueError if name == "ValueError" else TypeError
    module, _, cls_name = name.rpartition(".")
    if not module.startswith("fastndcg."):
        return None
    try:
        cls = getattr(importlib.import_module(module), cls_name)
    except (ImportError, AttributeError):
        return None
    for kind in (ValueError, TypeError):
        if isinstance(cls, type) and issubclass(cls, kind):
            return kind
    return None


_DOC = """
    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per (query, document).
""" + FRAME_PARAMS_DOC + """    num_partitions : int, optional
        Partitions of the shuffle by query (default:
        ``spark.sql.shuffle.partitions``).
    n_threads : int, optional, default 1
        OpenMP threads per task (Spark already runs tasks in parallel).
"""


def spark_ndcg(df: Any, k: Cutoffs = 10, *, query: str = "qid", label: str = "label", score: str = "score",
               doc_id: Optional[str] = None, weight: Optional[str] = None, convention: Any = None,
               num_partitions: Optional[int] = None, n_threads: Optional[int] = 1) -> Any:
    """Per-query NDCG of a Spark DataFrame, lazily: a Spark DataFrame with the
    query column, ``ndcg@k`` per cutoff and the weight column (if given), one
    row per query, values bit-identical to :func:`fastndcg.stream.frame_ndcg`.
    """
    terms, _, _, hidden = _terms(df, k, query, label, score, doc_id, weight, convention,
                                 num_partitions, n_threads)
    return terms.drop(*hidden)


def spark_mean_ndcg(df: Any, k: Cutoffs = 10, *, query: str = "qid", label: str = "label",
                    score: str = "score", doc_id: Optional[str] = None, weight: Optional[str] = None,
                    convention: Any = None, num_partitions: Optional[int] = None,
                    n_threads: Optional[int] = 1) -> Union[float, Dict[str, float]]:
    """Aggregate NDCG of a Spark DataFrame (runs a job): a float for a single
    k, else {column name: value}; exact sums over partitions (see the module
    notes), equal to :func:`fastndcg.stream.frame_mean_ndcg` to about 1e-16."""
    terms, evaluator, names, _ = _terms(df, k, query, label, score, doc_id, weight, convention,
                                        num_partitions, n_threads)
    return _aggregate(terms, evaluator, names)


def spark_evaluate(df: Any, k: Cutoffs = 10, *, query: str = "qid", label: str = "label",
                   score: str = "score", doc_id: Optional[str] = None, weight: Optional[str] = None,
                   convention: Any = None, num_partitions: Optional[int] = None,
                   n_threads: Optional[int] = 1) -> SparkResult:
    """Per-query NDCG and the aggregate: the per-query frame is cached
    (``DataFrame.cache()``; call ``.unpersist()`` on it when done) and the
    aggregate is computed from it, so the data is shuffled once."""
    terms, evaluator, names, hidden = _terms(df, k, query, label, score, doc_id, weight, convention,
                                             num_partitions, n_threads)
    terms = terms.cache()
    return SparkResult(terms.drop(*hidden), _aggregate(terms, evaluator, names), evaluator.signatures())


for _f in (spark_ndcg, spark_mean_ndcg, spark_evaluate):
    _f.__doc__ = (_f.__doc__ or "") + _DOC
