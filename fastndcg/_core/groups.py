"""Building CSR offsets from the group descriptions users already have."""
from __future__ import annotations

from typing import Any, NamedTuple, Optional

import numpy as np


class QueryGroups(NamedTuple):
    """Result of :func:`offsets_from_qid`.

    offsets : int64 array (n_queries + 1,)
    order : int64 array (n_docs,) or None
        None when the rows were already grouped; otherwise the stable
        permutation that groups them: ``scores[order]`` is in CSR order.
    qids : array (n_queries,)
        The query id of each query, in CSR order (first appearance).
    """

    offsets: np.ndarray
    order: Optional[np.ndarray]
    qids: np.ndarray


#: The largest number of rows (or pairs) an int64 offset can count.
MAX_TOTAL = 2**63 - 1


def first_overflow(sizes: np.ndarray) -> int:
    """The index of the first size at which the running total of ``sizes``
    (int64, each >= 0) passes 2**63 - 1, or -1 when it never does.

    Each addend is below 2**63, so the first wrap-around shows as a total that
    decreases; every later total would be garbage.
    """
    ends = np.cumsum(sizes)
    wrap = np.flatnonzero(ends[1:] < ends[:-1])
    return int(wrap[0]) + 1 if wrap.size else -1


def offsets_from_sizes(sizes: np.ndarray, name: str, what: str = "sizes") -> np.ndarray:
    """[0, cumsum(sizes)] as int64 offsets, for sizes (int64, each >= 0) that a
    caller gave; a total past 2**63 - 1 is a ValueError naming ``name[i]``."""
    i = first_overflow(sizes)
    if i >= 0:
        raise ValueError(f"the {what} add up to more than 2**63 - 1 (int64 offsets would wrap around) at "
                         f"{name}[{i}]={int(sizes[i])}")
    out = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def offsets_from_group_sizes(group: Any) -> np.ndarray:
    """Offsets from group sizes (LightGBM/XGBoost ``group``): [0, cumsum(group)].

    Sizes are integers >= 0 (floats with integer values are accepted) adding
    up to at most 2**63 - 1; otherwise a ValueError names the offending entry.

    >>> offsets_from_group_sizes([3, 0, 2]).tolist()
    [0, 3, 3, 5]
    """
    sizes = np.asarray(group)
    if sizes.ndim != 1:
        raise ValueError(f"group must be 1-D; got an array of shape {sizes.shape}")
    if sizes.size and sizes.dtype.kind not in "iu":
        if sizes.dtype.kind == "f" and np.all(np.isfinite(sizes)) and np.all(sizes == np.floor(sizes)):
            big = np.flatnonzero(np.abs(sizes) >= 2.0**63)      # 2**63 - 1 is 2.0**63 as a float
            if big.size:
                i = int(big[0])
                raise ValueError(f"group sizes must be at most 2**63 - 1; got group[{i}]={sizes[i].item()!r}")
            sizes = sizes.astype(np.int64)
        else:
            raise TypeError(f"group must hold integer sizes; got dtype {sizes.dtype}")
    if sizes.dtype.kind == "u" and sizes.dtype.itemsize >= 8:
        big = np.flatnonzero(sizes > MAX_TOTAL)
        if big.size:
            i = int(big[0])
            raise ValueError(f"group sizes must be at most 2**63 - 1; got group[{i}]={int(sizes[i])}")
    sizes = sizes.astype(np.int64, copy=False)
    bad = np.flatnonzero(sizes < 0)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"group sizes must be >= 0; got group[{i}]={int(sizes[i])}")
    return offsets_from_sizes(sizes, "group", "group sizes")


def offsets_from_qid(qid: Any) -> QueryGroups:
    """Offsets from a per-row query id array.

    Rows of one query that are contiguous give ``order=None``. Otherwise the
    rows are grouped stably (queries in order of first appearance, rows in
    input order within a query) and ``order`` is the permutation to apply to
    scores, labels and any other per-row array.

    >>> g = offsets_from_qid([7, 7, 3, 3, 3])
    >>> g.offsets.tolist(), g.order, g.qids.tolist()
    ([0, 2, 5], None, [7, 3])
    """
    q = np.asarray(qid)
    if q.ndim != 1:
        raise ValueError(f"qid must be 1-D; got an array of shape {q.shape}")
    n = q.shape[0]
    if n == 0:
        return QueryGroups(np.zeros(1, dtype=np.int64), None, q[:0])
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    run_ids = q[starts]
    if np.unique(run_ids).size == run_ids.size:
        offsets = np.append(starts, n).astype(np.int64)
        return QueryGroups(offsets, None, run_ids)
    # Not contiguous: group by first appearance, stably.
    _, first_row, row_group = np.unique(q, return_index=True, return_inverse=True)
    rank_of_group = np.empty(first_row.size, dtype=np.int64)
    rank_of_group[np.argsort(first_row, kind="stable")] = np.arange(first_row.size)
    group_rank = rank_of_group[row_group.ravel()]
    order = np.argsort(group_rank, kind="stable").astype(np.int64)
    counts = np.bincount(group_rank, minlength=first_row.size)
    offsets = np.zeros(first_row.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    qids = q[np.sort(first_row)]
    return QueryGroups(offsets, order, qids)
