"""The checks run on every call: the scores (finite, and finite after the float32
rounding a convention asks for, or ranked as +-inf with a warning under
``float32_overflow="inf"``) and the results (no sum may overflow float64), with their
messages and warnings; and :func:`check_csr`, a whole batch for the kernels that do not
check values themselves. What the queries are made of (offsets, labels, cutoffs, ...) is
checked in :mod:`fastndcg._core.query_checks`.

The NDCG kernels check the scores inside their own pass (see
:mod:`fastndcg._core.prepared`); :func:`check_scores` runs the same rule, in parallel
query by query, for the other kernels. A problem is raised afterwards, naming the argument,
the position (row, query) and the offending value.
"""
from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Tuple

import numpy as np

from fastndcg._core import _ndcg
from fastndcg.conventions._convention import Convention, ScoreOverflowWarning
from fastndcg._core.resolve import FLOAT32_OVERFLOW
from fastndcg._core.arguments import caller_stacklevel
from fastndcg._core.query_checks import (_value_at, _where, as_labels, check_csr_lengths, check_labels,
                                         one_dimensional, shown_value)

SCORE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

# Codes of the kernels: the Python copy of _codes.pxd's (tests/test_architecture.py checks them;
# the labels' and the offsets' are in query_checks.py).
SCORE_NOT_FINITE = 1
SCORE_FLOAT32_OVERFLOW = 2
SCORE_FLOAT32_TO_INF = 7      # not an error: float32_overflow="inf" ranks it as +-inf
# Per-query flags of the NDCG kernels (bits).
FLAG_SCORES = 1
FLAG_IDEAL_OVERFLOW = 4
FLAG_DCG_OVERFLOW = 8
FLAG_NDCG_OVERFLOW = 16
FLAG_SCORES_TO_INF = 32


def as_scores(scores: Any, name: str = "scores") -> np.ndarray:
    """1-D scores as float32/float64 (other numbers become float64), C-contiguous.
    Values are checked by the kernels (:func:`check_scores`)."""
    arr = one_dimensional(scores, name)
    if arr.dtype not in SCORE_DTYPES:
        arr = arr.astype(np.float64)
    elif not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    return arr


def score_error(name: str, arr: np.ndarray, i: int, code: int, offsets: Optional[np.ndarray],
                float32: Optional[str]) -> ValueError:
    """The message for the kernels' score problem ``code`` at row ``i``."""
    v = shown_value(arr[i])
    if code == SCORE_NOT_FINITE:
        return _value_at(f"{name} must be finite; got {{at}}{v}{{where}}", name, i, offsets)
    return _value_at(f"{name} must stay finite when rounded to float32 ({float32}): |{name}| must be below "
                     f"{FLOAT32_OVERFLOW!r}; got {{at}}{v}{{where}}", name, i, offsets)


def raise_score_problem(arr: np.ndarray, offsets: np.ndarray, flags: np.ndarray, limit: float,
                        name: str = "scores", float32: Optional[str] = None, inf_ok: bool = False) -> None:
    """Raise for the first query flagged (FLAG_SCORES) by a kernel's score check."""
    q = int(np.flatnonzero(flags & FLAG_SCORES)[0])
    i, code = _ndcg.first_score_problem(arr, int(offsets[q]), int(offsets[q + 1]), limit, inf_ok)
    raise score_error(name, arr, i, code, offsets, float32)


#: How many rows a :class:`ScoreOverflowWarning` shows.
SHOWN_OVERFLOW_ROWS = 3


def overflow_lines_message(at: str, count: int, shown: int) -> str:
    """The message of a :class:`ScoreOverflowWarning` whose rows are named by file line
    (``at``: ``run.txt:3, run.txt:4``; ``shown`` of the ``count`` rows)."""
    more = f" and {count - shown} more" if count > shown else ""
    return (f"{at}{more}: {count} score(s) overflow float32 and rank as +-inf (float32_overflow='inf', the "
            f"tool's C cast; equal infinities tie)")


@contextmanager
def overflow_at_file_lines(path: str, line_of: Callable[[int], Optional[int]]) -> Iterator[None]:
    """Inside the block, a :class:`ScoreOverflowWarning` about rows of ``scores`` read from
    the file ``path`` is given again naming the file and the lines (``line_of(row)``:
    ``run.txt:3, run.txt:4: 2 score(s) beyond float32 ...``), at the place it pointed at;
    one whose rows ``line_of`` does not know (None), and other warnings, pass unchanged."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        message = w.message
        if isinstance(message, ScoreOverflowWarning) and message.argument == "scores" and not message.at \
                and message.rows:
            lines = [line_of(i) for i in message.rows]
            if None not in lines:
                at = ", ".join(f"{path}:{line}" for line in lines)
                message = ScoreOverflowWarning(overflow_lines_message(at, message.count, len(lines)),
                                               message.argument, message.rows, message.count, at=at)
        warnings.warn_explicit(message, w.category, w.filename, w.lineno)


def warn_scores_to_inf(arr: np.ndarray, offsets: Optional[np.ndarray], flags: np.ndarray,
                       name: str = "scores") -> None:
    """Warn (:class:`ScoreOverflowWarning`, once) when a kernel flagged (FLAG_SCORES_TO_INF)
    queries whose finite scores overflow float32 and so rank as +-inf
    (``float32_overflow="inf"``). Only the flagged queries are read. The warning points
    at the caller's line (:func:`caller_stacklevel`)."""
    hit = np.flatnonzero(flags & FLAG_SCORES_TO_INF)
    if hit.size == 0:
        return
    bounds = offsets if offsets is not None else np.array([0, arr.shape[0]], dtype=np.int64)
    cand = np.concatenate([np.arange(int(bounds[q]), int(bounds[q + 1])) for q in hit.tolist()])
    v = arr[cand].astype(np.float64)
    rows = cand[np.isfinite(v) & (np.abs(v) >= FLOAT32_OVERFLOW)]
    shown = ", ".join(f"{name}[{i}]={shown_value(arr[i])}{_where(int(i), offsets)}" for i in rows[:SHOWN_OVERFLOW_ROWS])
    more = f" and {rows.size - SHOWN_OVERFLOW_ROWS} more" if rows.size > SHOWN_OVERFLOW_ROWS else ""
    message = (f"{rows.size} {name} overflow float32 and rank as +-inf (float32_overflow='inf', the tool's "
               f"C cast; equal infinities tie): {shown}{more}")
    warnings.warn(ScoreOverflowWarning(message, name, rows[:SHOWN_OVERFLOW_ROWS].tolist(), int(rows.size)),
                  stacklevel=caller_stacklevel())


def check_scores(scores: Any, offsets: Optional[np.ndarray] = None, name: str = "scores",
                 float32: Optional[str] = None, n_threads: int = 1, overflow_inf: bool = False) -> np.ndarray:
    """float32/float64 kept as given (others become float64); all finite.

    ``float32``: why the kernels will round the scores to float32 (e.g. "the
    convention's score_precision='float32'"), or None. Then finiteness is
    checked after that rounding: a double that overflows float32 would rank
    as an infinity (two of them give inf - inf = NaN in a gradient). The
    check runs query by query in parallel (``n_threads``) when ``offsets``
    are given. ``overflow_inf`` (``float32_overflow="inf"``): only NaN is an
    error; doubles that overflow float32 are returned as +-inf (a copy) with
    a :class:`ScoreOverflowWarning`, and literal +-inf pass.
    """
    arr = as_scores(scores, name)
    limit = FLOAT32_OVERFLOW if (float32 is not None and arr.dtype == np.float64) else np.inf
    if offsets is None or len(offsets) < 2:
        i, code = _ndcg.first_score_problem(arr, 0, arr.shape[0], limit, overflow_inf)
        if code == SCORE_FLOAT32_TO_INF:
            flags, offsets = np.full(1, 32, dtype=np.int8), None
        elif code:
            raise score_error(name, arr, i, code, offsets, float32)
        else:
            return arr
    else:
        if arr.shape[0] != int(offsets[-1]):
            return arr   # the caller's length check names the argument at fault
        flags = np.zeros(offsets.shape[0] - 1, dtype=np.int8)
        if _ndcg.score_problems(arr, offsets, limit, flags, n_threads, overflow_inf):
            raise_score_problem(arr, offsets, flags, limit, name, float32, overflow_inf)
    if overflow_inf and (flags & FLAG_SCORES_TO_INF).any():
        warn_scores_to_inf(arr, offsets, flags, name)
        with np.errstate(over="ignore"):
            arr = arr.astype(np.float32).astype(arr.dtype)   # the rounding the kernels apply anyway
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
                         f"float64 (got {shown_value(got)}); {hint}")
    i = int(np.flatnonzero(bad)[0])
    raise ValueError(f"{what}[{i}] overflows (got {shown_value(values[i])}){_where(i, offsets)}; {hint}")


def check_csr(scores: Any, labels: Any, offsets: Any, convention: Convention,
              float32: Optional[str] = None, n_threads: int = 1
              ) -> Tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """Validate a CSR batch for kernels that do not check values themselves:
    1-D finite scores (finite after the float32 rounding that ``float32``
    explains, see :func:`check_scores`), offsets over them, labels as the
    convention needs. Returns (scores, labels, max_label, offsets)."""
    sc = as_scores(scores)
    lab = as_labels(labels)
    off, _ = check_csr_lengths(sc, lab, offsets)
    sc = check_scores(sc, off, float32=float32, n_threads=n_threads)
    lab, top = check_labels(lab, sc.shape[0], convention, off, n_threads=n_threads)
    return sc, lab, top, off

