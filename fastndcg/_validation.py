"""Input validation: every check runs once, in Python, before any kernel.

Each function returns arrays ready for the kernels (C-contiguous, kernel
dtypes) without copying inputs that already are, and raises ValueError or
TypeError naming the argument, the position and the offending value.
"""
from __future__ import annotations

import numbers
from typing import Any, List, Optional, Tuple

import numpy as np

from fastndcg._check import first_nonfinite, scan_labels
from fastndcg._convention import MAX_EXPONENTIAL_LABEL, Convention

SCORE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
LABEL_DTYPES = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64))
OFFSET_DTYPE = np.dtype(np.int64)
# A cutoff larger than any query: "the whole list".
FULL_LIST = 1 << 62
# Doubles at or beyond this magnitude round to an infinite float32 (the
# midpoint between FLT_MAX and 2**128 rounds to even, i.e. up).
FLOAT32_OVERFLOW = 2.0 ** 128 - 2.0 ** 103


def plain(value: Any) -> Any:
    """A numpy scalar as the Python scalar it holds (anything else unchanged),
    so that messages show 3 or 'q1', not np.int64(3) or np.str_('q1')."""
    return value.item() if isinstance(value, np.generic) else value


def _show(value: Any) -> str:
    """A value for an error message: plain Python repr, not numpy's np.float64(...)."""
    return repr(plain(value))


def _where(i: int, offsets: Optional[np.ndarray]) -> str:
    if offsets is None or len(offsets) < 2:
        return ""
    q = int(np.searchsorted(offsets, i, side="right")) - 1
    return f" (query {q}, row {i - int(offsets[q])} of rows {int(offsets[q])}:{int(offsets[q + 1])})"


def _one_d(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric; got dtype {arr.dtype}")
    return arr


def check_offsets(offsets: Any, n_docs: int, name: str = "offsets") -> np.ndarray:
    """int64 offsets: 1-D, starts at 0, non-decreasing, ends at n_docs."""
    arr = _one_d(offsets, name)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer array; got dtype {arr.dtype}")
    if arr.size == 0:
        raise ValueError(f"{name} must have at least one entry (0 for no queries); got an empty array")
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} has values beyond int64")
    arr = np.ascontiguousarray(arr, dtype=OFFSET_DTYPE)
    if arr[0] != 0:
        raise ValueError(f"{name} must start at 0; got {name}[0]={int(arr[0])}")
    steps = np.diff(arr)
    bad = np.flatnonzero(steps < 0)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name} must be non-decreasing; got {name}[{i}]={int(arr[i])} > {name}[{i + 1}]={int(arr[i + 1])}")
    if arr[-1] != n_docs:
        raise ValueError(f"{name} must end at the number of documents ({n_docs}); got {name}[-1]={int(arr[-1])}")
    return arr


def max_query_size(offsets: np.ndarray) -> int:
    return int(np.diff(offsets).max(initial=0))


def check_scores(scores: Any, offsets: Optional[np.ndarray] = None, name: str = "scores",
                 float32: Optional[str] = None) -> np.ndarray:
    """float32/float64 kept as given (others become float64); all finite.

    ``float32``: why the kernels will round the scores to float32 (e.g. "the
    convention's score_precision='float32'"), or None. Then finiteness is
    checked after that rounding: a double that overflows float32 would rank
    as an infinity (two of them give inf - inf = NaN in a gradient).
    """
    arr = _one_d(scores, name)
    if arr.dtype not in SCORE_DTYPES:
        arr = arr.astype(np.float64)
    arr = np.ascontiguousarray(arr)
    rounds = float32 is not None and arr.dtype == np.float64
    # One SIMD-dispatched numpy pass proves the usual all-finite case; the
    # compiled scan only locates a culprit for the message.
    if arr.size and (np.isfinite(arr).all() if not rounds else (np.abs(arr) < FLOAT32_OVERFLOW).all()):
        return arr
    bad = first_nonfinite(arr)
    if bad >= 0:
        raise ValueError(f"{name} must be finite; got {name}[{bad}]={_show(arr[bad])}{_where(bad, offsets)}")
    if rounds and arr.size:
        bad = int(np.flatnonzero(np.abs(arr) >= FLOAT32_OVERFLOW)[0])
        raise ValueError(
            f"{name} must stay finite when rounded to float32 ({float32}): |{name}| must be below "
            f"{FLOAT32_OVERFLOW!r}; got {name}[{bad}]={_show(arr[bad])}{_where(bad, offsets)}")
    return arr


def check_same_length(arr: np.ndarray, n: int, name: str, other: str = "scores") -> None:
    if arr.shape[0] != n:
        raise ValueError(f"{name} must have the same length as {other} ({n}); got length {arr.shape[0]}")


def check_labels(labels: Any, n_docs: int, convention: Convention,
                 offsets: Optional[np.ndarray] = None, name: str = "labels",
                 other: str = "scores") -> Tuple[np.ndarray, float]:
    """Labels in a kernel dtype, with their maximum. Non-negative and finite;
    integers when the gain is exponential or a table."""
    arr = _one_d(labels, name)
    check_same_length(arr, n_docs, name, other)
    if arr.dtype not in LABEL_DTYPES:
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name} has values beyond int64")
        arr = arr.astype(np.int64 if arr.dtype.kind in "biu" else np.float64)
    arr = np.ascontiguousarray(arr)
    need_integer = convention.needs_integer_labels
    unsigned_top = arr.view(arr.dtype.str.replace("i", "u")).max() if arr.dtype.kind == "i" and arr.size else None
    if unsigned_top is not None and unsigned_top <= np.iinfo(arr.dtype).max:
        # Integer labels: only the sign can be wrong. Seen as unsigned, a
        # negative label is larger than any non-negative one, so one SIMD max
        # both proves every label >= 0 and gives the largest.
        bad, top = -1, float(unsigned_top)
    else:
        bad, top = scan_labels(arr, need_integer)
    if bad >= 0:
        v = arr[bad]
        what = "non-negative integers (the gain is exponential or a table)" if need_integer else "finite and >= 0"
        raise ValueError(f"{name} must be {what}; got {name}[{bad}]={_show(v)}{_where(bad, offsets)}")
    if convention.gain == "exponential" and top > MAX_EXPONENTIAL_LABEL:
        i = int(np.argmax(arr))
        raise ValueError(
            f"{name} must be <= {MAX_EXPONENTIAL_LABEL} with exponential gain (2**label overflows); "
            f"got {name}[{i}]={_show(arr[i])}{_where(i, offsets)}")
    return arr, float(top)


def gain_tables(convention: Convention, labels: np.ndarray, max_label: float,
                offsets: Optional[np.ndarray] = None, name: str = "labels",
                counting_limit: int = 64) -> Tuple[np.ndarray, bool, np.ndarray]:
    """Resolve the gain into (table, linear, levels_desc) for the kernels.

    ``levels_desc`` lists table levels by gain descending (stable) when the
    table is small enough for the counting ideal; otherwise it is empty.
    """
    empty_i64 = np.empty(0, dtype=np.int64)
    if convention.gain == "linear":
        return np.empty(0, dtype=np.float64), True, empty_i64
    size = int(max_label) + 1
    if convention.gain == "exponential":
        table = np.exp2(np.arange(size, dtype=np.float64)) - 1.0
    else:
        given = np.asarray(convention.gain, dtype=np.float64)
        table = np.full(max(size, given.size), np.nan)
        table[: given.size] = given
        holes = np.isnan(table[:size])
        if holes.any():
            if convention.unknown_label == "error":
                bad_levels = np.flatnonzero(holes)
                level_of = labels.astype(np.int64, copy=False)
                hit = np.flatnonzero(np.isin(level_of, bad_levels))
                if hit.size:    # holes no label falls into (e.g. {1: g} without 0) are fine
                    i = int(hit[0])
                    known = [lv for lv, g in enumerate(convention.gain) if g == g]
                    raise ValueError(
                        f"{name}[{i}]={_show(labels[i])} is outside the gain table (labels {known}; "
                        f"use unknown_label='zero' to give such labels gain 0){_where(i, offsets)}")
        table = np.where(np.isnan(table), 0.0, table)
    levels = np.argsort(-table, kind="stable").astype(np.int64) if table.size <= counting_limit else empty_i64
    return np.ascontiguousarray(table), False, levels


def check_cutoffs(k: Any) -> Tuple[np.ndarray, np.ndarray, bool]:
    """Return (sorted unique cutoffs, column of each requested cutoff, single).

    ``k`` is None (whole list), an int >= 1, or a non-empty sequence of them
    (None in a sequence also means the whole list).
    """
    single = k is None or isinstance(k, (numbers.Integral, np.integer))
    items: List[Any] = [k] if single else list(k) if _is_sequence(k) else None  # type: ignore[assignment]
    if items is None:
        raise TypeError(f"k must be None, an int or a sequence of ints; got {type(k).__name__}")
    if not items:
        raise ValueError("k must not be an empty list of cutoffs")
    values = []
    for pos, item in enumerate(items):
        where = "k" if single else f"k[{pos}]"
        if item is None:
            values.append(FULL_LIST)
            continue
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (numbers.Integral, np.integer)):
            raise TypeError(f"{where} must be an int >= 1 or None; got {item!r}")
        if item < 1:
            raise ValueError(f"{where} must be >= 1; got {item!r}")
        # any k >= 2**62 ranks the whole list (no query is that long) but is
        # still a cutoff for short="zero": it must not become FULL_LIST (None)
        values.append(min(int(item), FULL_LIST - 1))
    requested = np.asarray(values, dtype=np.int64)
    unique, column = np.unique(requested, return_inverse=True)
    return np.ascontiguousarray(unique), column.astype(np.intp), single


def _is_sequence(x: Any) -> bool:
    if isinstance(x, (str, bytes)):
        return False
    try:
        iter(x)
    except TypeError:
        return False
    return True


def check_tie_key(tie_key: Any, n_docs: int, name: str = "tie_key") -> np.ndarray:
    arr = _one_d(tie_key, name)
    check_same_length(arr, n_docs, name)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"{name} must be an integer array (e.g. a doc-id rank); got dtype {arr.dtype}")
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} has values beyond int64")
    return np.ascontiguousarray(arr, dtype=np.int64)


def check_query_weights(weights: Any, n_queries: int, name: str = "weights",
                        float32: Optional[str] = None) -> np.ndarray:
    arr = _one_d(weights, name)
    if arr.shape[0] != n_queries:
        raise ValueError(f"{name} must have one entry per query ({n_queries}); got length {arr.shape[0]}")
    return finite_nonnegative(arr, name, float32)


def finite_nonnegative(arr: np.ndarray, name: str, float32: Optional[str] = None) -> np.ndarray:
    """float64 C-contiguous copy-if-needed of ``arr``; every entry finite and >= 0.

    ``float32``: why the values will be rounded to float32 (as for
    :func:`check_scores`); then they must stay finite after that rounding."""
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name} must be finite and >= 0; got {name}[{i}]={_show(arr[i])}")
    if float32 is not None:
        bad = np.flatnonzero(arr >= FLOAT32_OVERFLOW)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{name} must stay finite when rounded to float32 ({float32}): below "
                             f"{FLOAT32_OVERFLOW!r}; got {name}[{i}]={_show(arr[i])}")
    return arr


# What to do about a sum that overflows float64 (said by every such error).
OVERFLOW_HINT = ("NDCG does not change when every gain, or every discount, is multiplied by one factor, "
                 "so scale them down")


def check_no_overflow(values: np.ndarray, what: str, offsets: np.ndarray, hint: str,
                      per_query: bool, nan_ok: bool = False) -> None:
    """Results must be finite: an infinity (or a NaN, unless ``nan_ok``) is an
    overflow. ``values`` has one row per query (``per_query``; any number of
    columns) or one entry per document (rows of ``offsets``). Raises
    ValueError naming the query (and the document)."""
    bad = np.isinf(values) if nan_ok else ~np.isfinite(values)
    if not bad.any():
        return
    if per_query:
        q, j = (int(v) for v in np.argwhere(bad.reshape(values.shape[0], -1))[0])
        got = values.reshape(values.shape[0], -1)[q, j]
        raise ValueError(f"the {what} of query {q} (rows {int(offsets[q])}:{int(offsets[q + 1])}) overflows "
                         f"float64 (got {_show(got)}); {hint}")
    i = int(np.flatnonzero(bad)[0])
    raise ValueError(f"{what}[{i}] overflows (got {_show(values[i])}){_where(i, offsets)}; {hint}")


def float32_reason(convention: Convention) -> Optional[str]:
    """Why NDCG kernels round scores to float32 under ``convention`` (None: they do not)."""
    return "the convention's score_precision='float32'" if convention.score_precision == "float32" else None


def check_csr(scores: Any, labels: Any, offsets: Any, convention: Convention,
              float32: Optional[str] = None) -> Tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """Validate a CSR batch: 1-D finite scores (finite after the float32
    rounding that ``float32`` explains, see :func:`check_scores`), offsets
    over them, labels as the convention needs. Returns (scores, labels,
    max_label, offsets)."""
    sc_raw = np.asarray(scores)
    if sc_raw.ndim != 1:
        raise ValueError(f"scores must be 1-D; got an array of shape {sc_raw.shape}")
    off = check_offsets(offsets, sc_raw.shape[0])
    sc = check_scores(sc_raw, off, float32=float32)
    lab, top = check_labels(labels, sc.shape[0], convention, off)
    return sc, lab, top, off


def check_ideal_dcg(values: Any, n_queries: int, n_requested: int, name: str = "ideal_dcg") -> np.ndarray:
    """External ideal DCG: (n_queries,) for every cutoff, or (n_queries, n_cutoffs)."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric; got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim == 1:
        if arr.shape[0] != n_queries:
            raise ValueError(f"{name} must have one entry per query ({n_queries}); got length {arr.shape[0]}")
        arr = np.repeat(arr[:, None], n_requested, axis=1)
    elif arr.ndim == 2:
        if arr.shape != (n_queries, n_requested):
            raise ValueError(f"{name} must have shape ({n_queries},) or ({n_queries}, {n_requested}); got {arr.shape}")
    else:
        raise ValueError(f"{name} must be 1-D or 2-D; got shape {arr.shape}")
    bad = np.argwhere(~np.isfinite(arr) | (arr < 0))
    if bad.size:
        q, j = (int(v) for v in bad[0])
        raise ValueError(f"{name} must be finite and >= 0; got {_show(arr[q, j])} for query {q}")
    return np.ascontiguousarray(arr)
