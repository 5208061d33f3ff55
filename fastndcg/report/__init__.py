"""Reports on NDCG values: the comparison of conventions and systems (:class:`Comparison`, the
result of ``fastndcg.compare``; :class:`RunData` for runs with their own documents), paired
significance tests on per-query values (``compare_systems`` and the tests it runs), and
:func:`identify`: which NDCG reproduces a reported number.

>>> import fastndcg
>>> from fastndcg.report import compare_systems, paired_t_test
>>> fastndcg.compare([3, 2, 1], [0, 1, 2], [0, 3], k=[1, 3], presets=["standard", "sklearn"])
Comparison(systems ['run'], presets ['standard', 'sklearn'], measures ['ndcg@1', 'ndcg@3'], 1 queries)
>>> a, b = [0.61, 0.52, 0.70, 0.44, 0.58], [0.55, 0.50, 0.62, 0.45, 0.51]   # per-query NDCG
>>> round(paired_t_test(a, b).pvalue, 4)
0.0599
>>> compare_systems({"a": a, "b": b})[0].winner      # no winner at alpha=0.05
''

Streaming evaluation and the NDCG of data frames are in :mod:`fastndcg.stream`.
The code is in private modules (``_x.py``); the public names are the imports of
``__init__.pyi``, each module imported on first use.
"""
from fastndcg._core import faces as _faces

_DOOR = "fastndcg.stream.evaluate_stream"
# streaming moved to fastndcg.stream (one door, evaluate_stream, whatever the source): the names
# the docs used resolve for a while, with a warning naming what to use
_MOVED = {
    "evaluate_chunks": ("fastndcg.stream._chunks", "evaluate_chunks", f"{_DOOR}(chunks, k, ...)"),
    "NDCGAccumulator": ("fastndcg.stream._chunks", "NDCGAccumulator", f"{_DOOR}(chunks, k, ...) with an iterable "
                        "or generator of chunks"),
    "evaluate_npy": ("fastndcg.stream._sources", "evaluate_npy", f"{_DOOR}((scores, labels, offsets), k, ...)"),
    "iter_npy": ("fastndcg.stream._sources", "iter_npy", f"{_DOOR}((scores, labels, offsets), k, ...)"),
    "evaluate_svmlight": ("fastndcg.stream._sources", "evaluate_svmlight",
                          f"{_DOOR}(path, k, predictions=..., ...)"),
    "evaluate_parquet": ("fastndcg.stream._frame_chunks", "evaluate_parquet", f"{_DOOR}(path.parquet, k, ...)"),
    "iter_parquet": ("fastndcg.stream._frame_chunks", "iter_parquet", f"{_DOOR}(path.parquet, k, ...)"),
    "evaluate_run": ("fastndcg.stream._trec_stream", "evaluate_run", f"{_DOOR}(run, k, qrels=..., ...)"),
    "align_chunk": ("fastndcg.stream._trec_stream", "align_chunk", f"fastndcg.io.align_run to join, {_DOOR}"
                    "(run, k, qrels=...) to evaluate"),
    "RunStreamResult": ("fastndcg.stream._trec_stream", "RunStreamResult", "fastndcg.stream.StreamResult (a "
                        "TREC run's result is one, with run_name, missing_qids and ignored_qids)"),
    "StreamResult": ("fastndcg.stream._chunks", "StreamResult", "fastndcg.stream.StreamResult"),
    "Chunk": ("fastndcg.stream._chunks", "Chunk", "fastndcg.stream.Chunk"),
    "frame_ndcg": ("fastndcg.stream._frame_ndcg", "frame_ndcg", "fastndcg.stream.frame_ndcg"),
    "frame_mean_ndcg": ("fastndcg.stream._frame_ndcg", "frame_mean_ndcg", "fastndcg.stream.frame_mean_ndcg"),
}
# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__, deprecated=_MOVED)
