"""Out-of-core NDCG: evaluate query-complete chunks one at a time (one module per source).

Data larger than memory is evaluated chunk by chunk, each chunk holding whole queries, with the
public kernels (:class:`fastndcg.NDCGScorer`) per chunk. Per-query values are those of the
in-memory call, bit for bit, and the aggregate is summed exactly, so it is the in-memory mean
whatever the chunking. Memory is O(chunk rows + largest query).

* :mod:`.chunks`: :class:`Chunk`, :class:`NDCGAccumulator`, :func:`evaluate` over any iterable
  of chunks (small consecutive chunks are gathered into one kernel call);
* :mod:`.sources`: memory-mapped ``.npy`` files (:func:`iter_npy`, :func:`evaluate_npy`) and
  SVMlight / LETOR files with predictions (:func:`evaluate_svmlight`);
* :mod:`.trec_stream`: a TREC run against qrels, read by whole topics (:func:`evaluate_run`);
* :mod:`.frame_chunks`: data-frame columns and Parquet (:func:`iter_parquet`,
  :func:`evaluate_parquet`);
* :mod:`.partitions`: per-partition terms and their exact combination for Dask and Spark.

This module re-exports their public names.
"""
from fastndcg.report.chunks import (COALESCE_ROWS, Chunk, ChunkEvaluator, KEEP, NDCGAccumulator, PathLike,  # noqa: F401
                                    StreamResult, cutoff_names, evaluate, exact_partials)
from fastndcg.report.sources import (evaluate_npy, evaluate_svmlight, iter_npy)  # noqa: F401
from fastndcg.report.trec_stream import (RunStreamResult, align_chunk, aligned_chunk, evaluate_run)  # noqa: F401
from fastndcg.report.frame_chunks import (evaluate_parquet, frame_chunk, iter_parquet, whole_queries)  # noqa: F401
from fastndcg.report.partitions import (FRAME_PARAMS_DOC, combine_partial_rows, frame_plan, partial_rows,  # noqa: F401
                                        partition_terms, term_columns)
from fastndcg._core._exact import ExactSum  # noqa: F401  (the accumulator's exact sum)
