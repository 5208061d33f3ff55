"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.report._chunks import Chunk, ChunkEvaluator, NDCGAccumulator, StreamResult, evaluate_chunks
from fastndcg.report._compare_compute import RunData
from fastndcg.report._compare_render import Comparison
from fastndcg.report._frame_chunks import evaluate_parquet, iter_parquet
from fastndcg.report._frame_ndcg import frame_mean_ndcg, frame_ndcg
from fastndcg.report._identify import Identification, identify, identify_data
from fastndcg.report._significance import (bootstrap_ci, compare_systems, effect_size, holm, paired_t_test,
                                           randomization_test, wilcoxon)
from fastndcg.report._sources import evaluate_npy, evaluate_svmlight, iter_npy
from fastndcg.report._trec_stream import RunStreamResult, align_chunk, aligned_chunk, evaluate_run

__all__ = [
    # streaming
    "Chunk", "ChunkEvaluator", "NDCGAccumulator", "StreamResult", "evaluate_chunks",
    "evaluate_npy", "iter_npy", "evaluate_parquet", "iter_parquet", "evaluate_svmlight",
    "RunStreamResult", "align_chunk", "aligned_chunk", "evaluate_run",
    # data frames
    "frame_ndcg", "frame_mean_ndcg",
    # comparisons (compare: top level)
    "Comparison", "RunData",
    # statistics
    "bootstrap_ci", "compare_systems", "effect_size", "holm", "paired_t_test", "randomization_test", "wilcoxon",
    # which NDCG reproduces a value
    "Identification", "identify", "identify_data",
]
