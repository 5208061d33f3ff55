"""The one door of streaming evaluation: :func:`evaluate_stream` tells what its source is (an
iterable of chunks, ``.npy`` files or arrays, a Parquet file, an SVMlight file with its
predictions, a TREC run with its qrels) and hands it, with the options that apply to that kind,
to the evaluator of that kind (:mod:`fastndcg.stream._chunks`, ``_sources``, ``_frame_chunks``,
``_trec_stream``), whose defaults are the only ones."""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from fastndcg.conventions._convention import Cutoffs
from fastndcg.stream._chunks import StreamResult

#: The options of each kind of source besides ``k``, ``convention``, ``keep``, ``per_query`` and
#: ``n_threads`` (every kind) and ``chunk_rows`` (every kind but chunks), in the order of the docs.
KIND_OPTIONS: Dict[str, Tuple[str, ...]] = {
    "chunks": (),
    "npy": ("tie_key", "weights", "query_ids"),
    "parquet": ("query", "label", "score", "doc_id", "weight"),
    "svmlight": ("predictions", "group", "docids", "prediction_column", "block_size", "progress"),
    "trec_run": ("qrels", "ideal", "missing", "max_docs", "gains", "block_size", "progress"),
}
#: What each kind is called in messages.
KIND_NAMES = {"chunks": "an iterable of chunks", "npy": "(scores, labels, offsets) .npy files or arrays",
              "parquet": "a Parquet file", "svmlight": "an SVMlight file with predictions=",
              "trec_run": "a TREC run with qrels="}
PARQUET_SUFFIXES = (".parquet", ".pq")


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def source_kind(source: Any, qrels: Any = None, predictions: Any = None) -> str:
    """The kind of ``source`` (a key of :data:`KIND_OPTIONS`), or a TypeError / ValueError
    naming ``source=`` (or ``qrels=`` / ``predictions=``) and what it was."""
    if qrels is not None and predictions is not None:
        raise ValueError("evaluate_stream: pass qrels= (a TREC run) or predictions= (an SVMlight file), not both")
    if _is_path(source):
        path = os.fspath(source)
        if qrels is not None:
            return "trec_run"
        if predictions is not None:
            return "svmlight"
        if path.lower().endswith(PARQUET_SUFFIXES):
            return "parquet"
        if path.lower().endswith(".npy"):
            raise ValueError(f"source={path!r}: a .npy source is three files or arrays: "
                             "source=(scores, labels, offsets)")
        raise ValueError(f"source={path!r}: cannot tell what kind of file it is: pass qrels=... for a TREC "
                         "run, predictions=... for an SVMlight/LETOR file; a Parquet file ends in .parquet")
    for name, value in (("qrels", qrels), ("predictions", predictions)):
        if value is not None:
            raise TypeError(f"evaluate_stream: {name}= applies to a file named by source=; source is a "
                            f"{type(source).__name__}")
    if isinstance(source, np.ndarray) or hasattr(source, "columns"):
        what = "an array" if isinstance(source, np.ndarray) else f"a data frame ({type(source).__name__})"
        raise TypeError(f"source= is {what}: pass (scores, labels, offsets) for CSR arrays, or use "
                        "fastndcg.stream.frame_ndcg / frame_mean_ndcg for a data frame")
    if isinstance(source, (tuple, list)) and len(source) == 3 and all(
            _is_path(x) or isinstance(x, np.ndarray) for x in source):
        for i, x in enumerate(source):
            if _is_path(x) and not os.fspath(x).lower().endswith(".npy"):
                raise ValueError(f"source[{i}]={os.fspath(x)!r}: (scores, labels, offsets) are .npy files "
                                 "or arrays")
        return "npy"
    if isinstance(source, (str, bytes)) or not hasattr(source, "__iter__"):
        raise TypeError(f"source= must be an iterable of chunks, (scores, labels, offsets) .npy files or "
                        f"arrays, or a path (Parquet, SVMlight with predictions=, TREC run with qrels=); got "
                        f"{type(source).__name__}")
    return "chunks"


def _check_options(kind: str, options: Dict[str, Any]) -> None:
    """A TypeError naming an option that does not apply to ``kind`` (and the options that do)."""
    own = KIND_OPTIONS[kind] + (() if kind == "chunks" else ("chunk_rows",))
    for name in options:
        if name in own:
            continue
        if name == "chunk_rows":
            raise TypeError("evaluate_stream: chunk_rows= does not apply to an iterable of chunks: its chunks "
                            "are evaluated as they come")
        users = [KIND_NAMES[k] for k, names in KIND_OPTIONS.items() if name in names]
        if not users:
            raise TypeError(f"evaluate_stream() got an unexpected keyword argument {name!r}")
        takes = ", ".join(f"{n}=" for n in own if n not in ("qrels", "predictions")) or "only k, convention, " \
            "keep, per_query and n_threads"
        raise TypeError(f"evaluate_stream: {name}= does not apply to {KIND_NAMES[kind]}: it is an option of "
                        f"{' and of '.join(users)}; {KIND_NAMES[kind]} takes {takes}")


def evaluate_stream(source: Any, k: Cutoffs = 10, *, convention: Any = None, qrels: Any = None,
                    predictions: Any = None, chunk_rows: Optional[int] = None, keep: str = "queries",
                    per_query: bool = True, n_threads: Optional[int] = None, **options: Any) -> StreamResult:
    """NDCG of an input larger than memory, evaluated by chunks of whole queries.

    Parameters
    ----------
    source
        What to evaluate; its kind is told from what it is:

        * an iterable (list, generator) of :class:`Chunk` objects, ``(scores, labels, offsets)``
          tuples, or objects with those attributes (:func:`fastndcg.io.iter_svmlight`'s chunks).
          Each chunk holds whole queries;
        * ``(scores, labels, offsets)``: three ``.npy`` paths (memory-mapped) or arrays (CSR),
          cut into chunks of whole queries;
        * a path ending in ``.parquet`` / ``.pq`` (needs pyarrow); each query's rows contiguous;
        * a path with ``predictions=``: an SVMlight / LETOR file and its prediction file;
        * a path with ``qrels=``: a TREC run (plain or compressed) against its qrels, read by
          whole topics.
    k : None, int or sequence
        Cutoff(s), as :func:`fastndcg.ndcg`.
    convention : Convention or preset name, optional
        Default: ``"trec_eval"`` for a TREC run (as ``fastndcg eval``), the standard
        convention for the other sources.
    qrels : Qrels or path
        The judgments of a TREC run ``source``.
    predictions : path
        The prediction file of an SVMlight ``source`` (one score a line).
    chunk_rows : int, optional
        Rows per chunk (whole queries: more when one query is larger); default 2^20, or 2^18
        results per piece of a TREC run. Not for an iterable of chunks (evaluated as they come).
    keep : {"queries", "sums"}
        "queries": the mean equals the in-memory one bit for bit; "sums": exact partial sums
        only (O(n_cutoffs) memory, correctly rounded).
    per_query : bool
        Keep the per-query NDCG (and ids) in :attr:`StreamResult.ndcg`.
    n_threads : int, optional
        OpenMP threads per chunk.
    **options
        The options of one kind of source (another kind's option is a TypeError naming it):

        * ``.npy``: ``tie_key``, ``weights``, ``query_ids`` (paths or arrays);
        * Parquet: ``query``, ``label``, ``score`` (column names; default ``"qid"``,
          ``"label"``, ``"score"``), ``doc_id`` (for conventions that break ties by key),
          ``weight`` (a query weight column);
        * SVMlight: ``group`` (a ``.query``/``.group`` file or sizes), ``docids``,
          ``prediction_column``, ``block_size``, ``progress``;
        * TREC run: ``ideal`` ("auto", "qrels", "run"), ``missing`` ("error", "zero",
          "skip": judged topics without results), ``max_docs`` (trec_eval ``-M``), ``gains``
          (trec_eval's custom gains), ``block_size``, ``progress``.

    Returns
    -------
    StreamResult
        ``mean``, ``ndcg`` (per query), ``query_ids``, counts and signatures. A TREC run's
        result also has ``run_name``, ``missing_qids`` and ``ignored_qids``, and its topics
        are in bytewise order as ``fastndcg.io.align_run`` gives them.

    Examples
    --------
    >>> import numpy as np
    >>> from fastndcg.stream import evaluate_stream
    >>> chunks = [(np.array([.9, .1]), np.array([1, 0]), np.array([0, 2])),
    ...           (np.array([.8, .3]), np.array([0, 2]), np.array([0, 2]))]
    >>> evaluate_stream(chunks, k=2).ndcg
    array([1.        , 0.63092975])
    """
    kind = source_kind(source, qrels, predictions)
    given = dict(options)
    if chunk_rows is not None:
        given["chunk_rows"] = chunk_rows
    if qrels is not None:
        given["qrels"] = qrels
    if predictions is not None:
        given["predictions"] = predictions
    _check_options(kind, given)
    if convention is not None:
        given["convention"] = convention        # else the kind's default (trec_eval for a TREC run)
    common = dict(keep=keep, per_query=per_query, n_threads=n_threads)
    return _EVALUATORS[kind](source, k, given, common)


def _chunks(source: Any, k: Cutoffs, given: Dict[str, Any], common: Dict[str, Any]) -> StreamResult:
    from fastndcg.stream._chunks import evaluate_chunks

    return evaluate_chunks(source, k, **given, **common)


def _npy(source: Any, k: Cutoffs, given: Dict[str, Any], common: Dict[str, Any]) -> StreamResult:
    from fastndcg.stream._sources import evaluate_npy

    scores, labels, offsets = source
    return evaluate_npy(scores, labels, offsets, k, **given, **common)


def _parquet(source: Any, k: Cutoffs, given: Dict[str, Any], common: Dict[str, Any]) -> StreamResult:
    from fastndcg.stream._frame_chunks import evaluate_parquet

    return evaluate_parquet(source, k, **given, **common)


def _svmlight(source: Any, k: Cutoffs, given: Dict[str, Any], common: Dict[str, Any]) -> StreamResult:
    from fastndcg.stream._sources import evaluate_svmlight

    predictions = given.pop("predictions")
    return evaluate_svmlight(source, predictions, k, **given, **common)


def _trec_run(source: Any, k: Cutoffs, given: Dict[str, Any], common: Dict[str, Any]) -> StreamResult:
    from fastndcg.stream._trec_stream import evaluate_run

    qrels = given.pop("qrels")
    return evaluate_run(qrels, source, k, **given, **common)


_EVALUATORS: Dict[str, Callable[[Any, Cutoffs, Dict[str, Any], Dict[str, Any]], StreamResult]] = {
    "chunks": _chunks, "npy": _npy, "parquet": _parquet, "svmlight": _svmlight, "trec_run": _trec_run}
