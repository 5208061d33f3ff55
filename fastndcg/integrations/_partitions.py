"""Partitions of a distributed frame, shared by the Dask and Spark back-ends: each partition's per-query values and
aggregate terms, and their exact combination into the in-memory numbers."""
from __future__ import annotations
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

import numpy as np

from fastndcg._core._exact import ExactSum
from fastndcg.conventions._convention import Cutoffs
from fastndcg._core.query_checks import plain
from fastndcg._core.query_checks import distinct_cutoffs
from fastndcg.stream._chunks import ChunkEvaluator, cutoff_names
from fastndcg.stream._frame_chunks import frame_chunk


# ----------------------------------------------------------------------------- partitions (Dask, Spark)


#: The parameters the DataFrame back-ends (Dask, Spark) share, for their docstrings.
FRAME_PARAMS_DOC = """    k : None, int or list, default 10
        Cutoff(s), as :func:`fastndcg.ndcg`; columns ``ndcg@k`` (``ndcg`` for None).
    query, label, score : str
        Column names. Query ids may be any sortable type.
    doc_id : str, optional
        Doc ids, for conventions that break ties by key (trec_eval, gdeval).
    weight : str, optional
        Query weights (constant within a query).
    convention : Convention, preset name or None
        Any convention or preset.
"""


def frame_plan(have: List[str], k: Cutoffs, query: str, label: str, score: str,
               doc_id: Optional[str], weight: Optional[str], convention: Any,
               n_threads: Optional[int], where: str = "the DataFrame") -> Tuple[List[str], ChunkEvaluator, List[str]]:
    """Check a frame's column arguments; return (columns to read, evaluator,
    result column names). Raises ValueError naming a missing column, a
    missing ``doc_id`` for a tie-key convention, or clashing result names."""
    roles = {"query": query, "label": label, "score": score, "doc_id": doc_id, "weight": weight}
    for role, name in roles.items():
        if name is not None and name not in have:
            raise ValueError(f"{role} column {name!r} is not in {where}; columns: {list(have)}")
    cols = list(dict.fromkeys(n for n in roles.values() if n is not None))
    k = distinct_cutoffs(k)       # a repeated cutoff is one result column
    evaluator = ChunkEvaluator(k, convention=convention, n_threads=n_threads)
    if evaluator.convention.uses_tie_key and doc_id is None:
        raise ValueError(f"the convention breaks ties by doc id (ties={evaluator.convention.ties!r}); "
                         "pass doc_id=<column>")
    names = cutoff_names(k)
    out_cols = names + [c for c in (query, weight) if c is not None]
    if len(set(out_cols)) != len(out_cols):
        raise ValueError(f"the result columns {names} must differ from each other and from the "
                         f"query/weight columns {query!r}/{weight!r}")
    return cols, evaluator, names


def term_columns(n_cutoffs: int) -> Tuple[List[str], List[str]]:
    """Names of the hidden per-query summand columns of the distributed back-ends."""
    return ([f"__fastndcg_num{j}" for j in range(n_cutoffs)],
            [f"__fastndcg_den{j}" for j in range(n_cutoffs)])


def partition_terms(cols: Dict[str, np.ndarray], evaluator: ChunkEvaluator, query: str, label: str,
                    score: str, doc_id: Optional[str], weight: Optional[str], names: List[str]) -> Dict[str, Any]:
    """Per-query output columns of one query-complete partition.

    ``cols`` holds the partition's rows with each query contiguous and in
    input order. Returns {query: ids, *names: NDCG per cutoff, weight: w_q
    (if given), *term_columns: the aggregate's per-query summands}.
    """
    chunk = frame_chunk(cols, query, label, score, doc_id, weight)
    try:
        nd, num, den = evaluator.terms(chunk)
    except (ValueError, TypeError) as exc:
        ids = chunk.query_ids
        assert ids is not None      # frame chunks carry their query ids
        raise type(exc)(f"in the partition holding queries {plain(ids[0])!r}..{plain(ids[-1])!r}: {exc}") from exc
    out: Dict[str, Any] = {query: chunk.query_ids}
    for j, nm in enumerate(names):
        out[nm] = nd[:, j]
    if weight is not None:
        out[weight] = chunk.weights
    nums, dens = term_columns(evaluator.n_cutoffs)
    for j in range(evaluator.n_cutoffs):
        out[nums[j]] = num[:, j]
    for j in range(evaluator.n_cutoffs):
        out[dens[j]] = den[:, j]
    return out


def partial_rows(frames: Iterable[Any], n_cutoffs: int) -> Any:
    """Exact partial sums of per-query frames' summand columns, as a small
    pandas DataFrame (``part``: cutoff j for numerators, n_cutoffs + j for
    denominators; ``value``: one partial a row), for a partition to send to
    the driver instead of its per-query values."""
    import pandas as pd

    nums, dens = term_columns(n_cutoffs)
    acc = ExactSum(2 * n_cutoffs)
    for frame in frames:
        acc.add(np.column_stack([np.asarray(frame[c], dtype=np.float64) for c in nums + dens]))
    part = [j for j, p in enumerate(acc.parts) for _ in p]
    value = [v for p in acc.parts for v in p]
    return pd.DataFrame({"part": np.array(part, dtype=np.int32), "value": np.array(value, dtype=np.float64)})


def combine_partial_rows(evaluator: ChunkEvaluator, part: Any, value: Any,
                         names: List[str]) -> Union[float, Dict[str, float]]:
    """The aggregate from every partition's :func:`partial_rows`: the exact sum
    of all partials per cutoff, correctly rounded (independent of the
    partitioning and of the order of the rows), then num / den. A
    float for a single k, else {column name: value}."""
    nc = evaluator.n_cutoffs
    part = np.asarray(part, dtype=np.int64)
    value = np.asarray(value, dtype=np.float64)
    acc = ExactSum(2 * nc)
    for j in range(2 * nc):
        acc.add_partials(j, value[part == j].tolist())
    sums = acc.values()
    values = evaluator.finish(sums[:nc], sums[nc:])
    if evaluator.single:
        return float(values)
    return dict(zip(names, (float(v) for v in np.asarray(values))))
