"""The checks of what a set of queries is made of, run once when queries are prepared
(:mod:`fastndcg._core.prepared`) and by every other front-end: offsets, labels (and the
labels outside a gain table), cutoffs, tie keys, query weights, external ideal DCG and the
lengths of per-document arrays; with the pieces every message uses (the value as Python
shows it, its position and query: :class:`ValueAtError`). The scores, checked on every
call, and the results' overflow are in :mod:`fastndcg._core.score_checks`.

Shape, dtype and per-query checks run in Python (O(1) or O(n_queries), the latter
compiled for offsets). Labels are checked in parallel by compiled kernels, query by query:
the NDCG kernels check them inside their own pass; :func:`check_labels` runs the same rule
for the other kernels. A problem is raised afterwards, naming the argument, the position
(row, query) and the offending value.

Each function returns arrays ready for the kernels (C-contiguous, kernel dtypes) without
copying inputs that already are.
"""
from __future__ import annotations

import contextvars
import numbers
import warnings
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from fastndcg._core import _ndcg
from fastndcg._core._check import offsets_problem
from fastndcg.conventions._convention import MAX_EXPONENTIAL_LABEL, Convention, UnknownLabelWarning
from fastndcg._core.resolve import FLOAT32_OVERFLOW, resolve
from fastndcg._core.arguments import caller_stacklevel

LABEL_DTYPES = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64))
OFFSET_DTYPE = np.dtype(np.int64)
# A cutoff larger than any query: "the whole list".
FULL_LIST = 1 << 62
HUGE_CUTOFF = 1 << 61   # cutoffs from here up all mean "beyond every query"

# Codes of the kernels: the Python copy of _codes.pxd's (tests/test_architecture.py checks them;
# the scores' and the results' are in score_checks.py).
LABEL_NEGATIVE = 3
LABEL_NOT_INTEGER = 4
LABEL_ABOVE_LIMIT = 5
LABEL_OUTSIDE_TABLE = 6
# Per-query flag of the NDCG kernels (a bit).
FLAG_LABELS = 2
# What is wrong with an offsets array (_check.offsets_problem).
OFFSETS_OK = 0
OFFSETS_FIRST_NOT_ZERO = 1
OFFSETS_DECREASING = 2
OFFSETS_END = 3


def plain(value: Any) -> Any:
    """A numpy scalar as the Python scalar it holds (anything else unchanged),
    so that messages show 3 or 'q1', not np.int64(3) or np.str_('q1')."""
    return value.item() if isinstance(value, np.generic) else value


def shown_value(value: Any) -> str:
    """A value for an error message: plain Python repr, not numpy's np.float64(...)."""
    return repr(plain(value))


class ValueAtError(ValueError):
    """A bad value at one position of an array argument.

    ``argument`` names the argument, ``index`` is the position and ``detail``
    the message without the position, for front-ends that read the array from
    a file and name the file's line instead (:func:`fastndcg.io._row_lines.at_file_lines`).
    Re-raised wrappers (``type(exc)(message)``) leave them None.
    """

    def __init__(self, message: str, argument: Optional[str] = None, index: Optional[int] = None,
                 detail: Optional[str] = None):
        super().__init__(message)
        self.argument = argument
        self.index = index
        self.detail = detail


def _value_at(message: str, name: str, i: int, offsets: Optional[np.ndarray], detail_at: str = "") -> ValueAtError:
    """``message`` with ``{at}`` (where the value is) and ``{where}`` (its query) filled in;
    in the detail, ``{at}`` is ``detail_at`` and ``{where}`` empty."""
    return ValueAtError(message.format(at=f"{name}[{i}]=", where=_where(i, offsets)), name, i,
                        message.format(at=detail_at, where=""))


def _where(i: int, offsets: Optional[np.ndarray]) -> str:
    if offsets is None or len(offsets) < 2:
        return ""
    q = int(np.searchsorted(offsets, i, side="right")) - 1
    return f" (query {q}, row {i - int(offsets[q])} of rows {int(offsets[q])}:{int(offsets[q + 1])})"


def one_dimensional(x: Any, name: str) -> np.ndarray:
    arr = x if type(x) is np.ndarray else np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric; got dtype {arr.dtype}")
    return arr


# ----------------------------------------------------------------------------- offsets


def prepare_offsets(offsets: Any, n_docs: int, name: str = "offsets") -> Tuple[np.ndarray, int]:
    """int64 offsets (1-D, start at 0, non-decreasing, end at n_docs) and the
    largest query size, checked in one compiled pass."""
    arr = one_dimensional(offsets, name)
    if arr.dtype != OFFSET_DTYPE:
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{name} must be an integer array; got dtype {arr.dtype}")
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name} has values beyond int64")
        arr = arr.astype(OFFSET_DTYPE)
    elif not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    if arr.size == 0:
        raise ValueError(f"{name} must have at least one entry (0 for no queries); got an empty array")
    code, i, top = offsets_problem(arr, n_docs)
    if code == OFFSETS_FIRST_NOT_ZERO:
        raise ValueError(f"{name} must start at 0; got {name}[0]={int(arr[0])}")
    if code == OFFSETS_DECREASING:
        raise ValueError(f"{name} must be non-decreasing; got {name}[{i}]={int(arr[i])} > {name}[{i + 1}]={int(arr[i + 1])}")
    if code == OFFSETS_END:
        raise ValueError(f"{name} must end at the number of documents ({n_docs}); got {name}[-1]={int(arr[-1])}")
    return arr, int(top)


def check_offsets(offsets: Any, n_docs: int, name: str = "offsets") -> np.ndarray:
    """int64 offsets: 1-D, starts at 0, non-decreasing, ends at n_docs."""
    return prepare_offsets(offsets, n_docs, name)[0]


def max_query_size(offsets: np.ndarray) -> int:
    return int(np.diff(offsets).max(initial=0))


def check_same_length(arr: np.ndarray, n: int, name: str, other: str = "scores") -> None:
    if arr.shape[0] != n:
        raise ValueError(f"{name} must have the same length as {other} ({n}); got length {arr.shape[0]}")


# ----------------------------------------------------------------------------- labels


def as_labels(labels: Any, name: str = "labels") -> np.ndarray:
    """1-D labels in a kernel dtype (int32, int64, float32, float64), C-contiguous.
    Values are checked by the kernels (:func:`check_labels`)."""
    arr = one_dimensional(labels, name)
    if arr.dtype not in LABEL_DTYPES:
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name} has values beyond int64")
        arr = arr.astype(np.int64 if arr.dtype.kind in "biu" else np.float64)
    elif not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    return arr


def label_error(name: str, arr: np.ndarray, i: int, code: int, offsets: Optional[np.ndarray],
                convention: Convention, limit_message: Optional[str] = None) -> ValueError:
    """The message for the kernels' label problem ``code`` at row ``i``."""
    v = shown_value(arr[i])
    need_integer = convention.needs_integer_labels
    if code in (LABEL_NEGATIVE, LABEL_NOT_INTEGER):
        what = "non-negative integers (the gain is exponential or a table)" if need_integer else "finite and >= 0"
        return _value_at(f"{name} must be {what}; got {{at}}{v}{{where}}", name, i, offsets)
    if code == LABEL_ABOVE_LIMIT and limit_message is not None:
        return ValueAtError(limit_message.format(name=name, i=i, value=v, where=_where(i, offsets)), name, i,
                            limit_message.format(name=name, i=i, value=v, where=""))
    if code == LABEL_ABOVE_LIMIT and convention.gain == "exponential":
        return _value_at(f"{name} must be <= {MAX_EXPONENTIAL_LABEL} with exponential gain (2**label overflows); "
                         f"got {{at}}{v}{{where}}", name, i, offsets)
    known = [lv for lv, g in enumerate(convention.gain) if g == g] if convention.gain_is_table else []
    return _value_at(f"{{at}}{v} is outside the gain table (labels {known}; "
                     f"use unknown_label='zero' to give such labels gain 0){{where}}", name, i, offsets,
                     detail_at=f"{name}: ")


def label_rule(convention: Convention, label_limit: Optional[float] = None):
    """(table, last, need_integer, limit, holes) of the label check under ``convention``;
    ``label_limit`` lowers the largest valid label (a library's own limit)."""
    res = resolve(convention)
    limit = res.label_limit if label_limit is None else min(res.label_limit, float(label_limit))
    return (res.table if res.table_holes else None), res.last, res.need_integer, limit, res.table_holes


#: How many labels outside the table an :class:`UnknownLabelWarning` shows.
SHOWN_UNKNOWN_LABELS = 5


#: While :func:`gathered_label_warnings` runs: {(argument, gain table, convention name):
#: [documents outside it, documents, labels outside it]}, to be told in one warning at its end.
_GATHERED: contextvars.ContextVar[Optional[Dict[Tuple[str, Tuple[float, ...], str], list]]] = \
    contextvars.ContextVar("fastndcg_gathered_label_warnings", default=None)


def warn_unknown_labels(labels: np.ndarray, convention: Convention, name: str = "labels") -> None:
    """Warn (:class:`UnknownLabelWarning`, once) when checked ``labels`` fall outside the
    convention's gain table and so get gain 0 (``unknown_label="zero"``: LETOR's scripts); the
    rule of the convention's fields, for every front-end that hands labels to the kernels.
    Costs one pass over the labels under such a convention, nothing under any other. Inside
    :func:`gathered_label_warnings` the counts are added up for its one warning instead."""
    if not (convention.gain_is_table and convention.unknown_label == "zero") or labels.size == 0:
        return
    gain = np.asarray(convention.gain, dtype=np.float64)
    last = gain.shape[0]
    outside = labels >= last
    holes = np.isnan(gain)
    if holes.any():         # a {label: gain} mapping's missing labels are outside it too
        outside |= holes[np.minimum(labels, last - 1).astype(np.intp)]
    count = int(np.count_nonzero(outside))
    if not count:
        return
    found = np.unique(labels[outside]).tolist()
    gathered = _GATHERED.get()
    if gathered is not None:
        entry = gathered.setdefault((name, tuple(gain.tolist()), convention.name), [0, 0, set()])
        entry[0] += count
        entry[1] += int(labels.size)
        entry[2].update(found)
        return
    _warn_outside_table(name, gain, found, count, int(labels.size), convention.name)


def _warn_outside_table(name: str, gain: np.ndarray, found: List[float], count: int, n_docs: int,
                        convention: str) -> None:
    shown = [int(v) if float(v).is_integer() else v for v in sorted(found)[:SHOWN_UNKNOWN_LABELS]]
    more = f" and {len(found) - SHOWN_UNKNOWN_LABELS} more" if len(found) > SHOWN_UNKNOWN_LABELS else ""
    table = ", ".join(f"{lv}: {float(g):g}" for lv, g in enumerate(gain.tolist()) if g == g)
    message = (f"{name}: {count} of {n_docs} documents have a label outside the gain table "
               f"({', '.join(map(str, shown))}{more}) and get gain 0 (convention {convention!r}: "
               f"unknown_label='zero', gain table {{{table}}}); give a table that covers them "
               f"(convention.replace(gain=...)) to count them")
    warnings.warn(UnknownLabelWarning(message, name, shown, count, n_docs, convention),
                  stacklevel=caller_stacklevel())


@contextmanager
def gathered_label_warnings(tell: bool = True) -> Iterator[Dict[Tuple[str, Tuple[float, ...], str], list]]:
    """One :class:`UnknownLabelWarning` per argument for the whole block (a stream of chunks is
    one call), told when the block ends, instead of one per kernel call. It yields what it
    gathers: {(argument, gain table, convention name): [documents outside the table,
    documents, labels outside it]}. ``tell=False`` keeps it for the caller, without a warning
    (a note of identify, which tries conventions the user did not choose)."""
    outer = _GATHERED.get()
    if tell and outer is not None:      # an outer block tells them
        yield outer
        return
    gathered: Dict[Tuple[str, Tuple[float, ...], str], list] = {}
    token = _GATHERED.set(gathered)
    try:
        yield gathered
    finally:
        _GATHERED.reset(token)
    if tell:
        for (name, table, convention), (count, n_docs, found) in gathered.items():
            _warn_outside_table(name, np.asarray(table, dtype=np.float64), list(found), count, n_docs, convention)


def check_labels(labels: Any, n_docs: int, convention: Convention,
                 offsets: Optional[np.ndarray] = None, name: str = "labels",
                 other: str = "scores", n_threads: int = 1, label_limit: Optional[float] = None,
                 limit_message: Optional[str] = None) -> Tuple[np.ndarray, float]:
    """Labels in a kernel dtype, with their maximum. Non-negative and finite;
    integers when the gain is exponential or a table, and inside the table
    unless ``unknown_label="zero"``; at most ``label_limit`` when given (then
    ``limit_message``, formatted with name, i, value and where, explains it).
    Checked query by query in parallel (``n_threads``)."""
    arr = as_labels(labels, name)
    check_same_length(arr, n_docs, name, other)
    off = offsets if offsets is not None and len(offsets) >= 2 else np.array([0, arr.shape[0]], dtype=np.int64)
    table, last, need_integer, limit, holes = label_rule(convention, label_limit)
    nq = off.shape[0] - 1
    flags = np.zeros(nq, dtype=np.int8)
    qmax = np.zeros(nq, dtype=np.float64)
    if _ndcg.check_labels_batch(arr, off, table, last, need_integer, limit, holes, flags, qmax, n_threads):
        q = int(np.flatnonzero(flags)[0])
        i, code = _ndcg.first_label_problem(arr, int(off[q]), int(off[q + 1]), table, last, need_integer,
                                            limit, holes)
        raise label_error(name, arr, i, code, offsets, convention, limit_message)
    warn_unknown_labels(arr, convention, name)
    return arr, float(qmax.max(initial=0.0))


# ----------------------------------------------------------------------------- cutoffs and the rest


def check_cutoffs(k: Any) -> Tuple[np.ndarray, np.ndarray, bool]:
    """Return (sorted unique cutoffs, column of each requested cutoff, single).

    ``k`` is None (whole list), an int >= 1, or a non-empty sequence of them
    (None in a sequence also means the whole list).
    """
    if k is None:
        return np.array([FULL_LIST], dtype=np.int64), np.zeros(1, dtype=np.intp), True
    if type(k) is int and k >= 1:
        return np.array([min(k, FULL_LIST - 1)], dtype=np.int64), np.zeros(1, dtype=np.intp), True
    single = isinstance(k, (numbers.Integral, np.integer))
    items: List[Any] = [k] if single else list(k) if _is_sequence(k) else None  # type: ignore[assignment]
    if items is None:
        raise TypeError(f"k must be None, an int or a sequence of ints; got {type(k).__name__}")
    if not items:
        raise ValueError("k must not be an empty list of cutoffs")
    values: List[Optional[int]] = []
    for pos, item in enumerate(items):
        where = "k" if single else f"k[{pos}]"
        if item is None:
            values.append(None)
            continue
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (numbers.Integral, np.integer)):
            raise TypeError(f"{where} must be an int >= 1 or None; got {item!r}")
        if item < 1:
            raise ValueError(f"{where} must be >= 1; got {item!r}")
        values.append(int(item))
    # Any k >= 2**61 ranks the whole list (no query is that long) but is still a
    # cutoff for short="zero": it must not become FULL_LIST (None). Distinct
    # huge cutoffs stay distinct (each may come with its own external ideal):
    # the i-th smallest of m of them becomes min(k, FULL_LIST - m + i), which
    # keeps their order and stays >= 2**61.
    huge = sorted({v for v in values if v is not None and v >= HUGE_CUTOFF})
    fold = {v: min(v, FULL_LIST - len(huge) + i) for i, v in enumerate(huge)}
    requested = np.asarray([FULL_LIST if v is None else fold.get(v, v) for v in values], dtype=np.int64)
    unique, column = np.unique(requested, return_inverse=True)
    return np.ascontiguousarray(unique), column.astype(np.intp).reshape(-1), single


def distinct_cutoffs(k: Any) -> Any:
    """``k`` as a result keyed by cutoff name takes it: each cutoff once, in the order of its
    first appearance (None, the whole list, is a cutoff too). A repeated cutoff is the same
    column (``ndcg@10``): the command line's ``-k 5,10,5`` and the DataFrame, Dask, Spark and
    comparison results have one column per distinct cutoff. None and a single int come back as
    they are; a sequence as a list. Checked as :func:`check_cutoffs` checks it (its messages).

    The array functions (:func:`fastndcg.ndcg`, :func:`fastndcg.mean_ndcg`,
    :class:`fastndcg.NDCGScorer`) are positional instead: one column per entry of ``k``, so a
    repeated cutoff repeats its (identical) column and ``result[:, j]`` is ``k[j]``'s.
    """
    _, _, single = check_cutoffs(k)
    if k is None or single:
        return k
    return list(dict.fromkeys(None if v is None else int(v) for v in k))


def _is_sequence(x: Any) -> bool:
    if isinstance(x, (str, bytes)):
        return False
    try:
        iter(x)
    except TypeError:
        return False
    return True


def check_tie_key(tie_key: Any, n_docs: int, name: str = "tie_key") -> np.ndarray:
    arr = one_dimensional(tie_key, name)
    check_same_length(arr, n_docs, name)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"{name} must be an integer array (e.g. a doc-id rank); got dtype {arr.dtype}")
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} has values beyond int64")
    return np.ascontiguousarray(arr, dtype=np.int64)


def check_query_weights(weights: Any, n_queries: int, name: str = "weights",
                        float32: Optional[str] = None) -> np.ndarray:
    arr = one_dimensional(weights, name)
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
        raise ValueError(f"{name} must be finite and >= 0; got {name}[{i}]={shown_value(arr[i])}")
    if float32 is not None:
        bad = np.flatnonzero(arr >= FLOAT32_OVERFLOW)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{name} must stay finite when rounded to float32 ({float32}): below "
                             f"{FLOAT32_OVERFLOW!r}; got {name}[{i}]={shown_value(arr[i])}")
    return arr




def check_lengths_agree(first: np.ndarray, second: np.ndarray, offsets: Any, first_name: str = "scores",
                        second_name: str = "labels") -> None:
    """The one rule for two per-document arrays of different lengths: blame the
    one that the other and the offsets outvote (``offsets[-1]`` equal to the
    other's length), else ``second``. Every entry point that takes two
    per-document arrays and offsets calls it before checking the offsets, so a
    length mismatch reads the same everywhere."""
    n_first, n_second = first.shape[0], second.shape[0]
    if n_first == n_second:
        return
    off_arr = np.asarray(offsets)
    end = int(off_arr[-1]) if off_arr.ndim == 1 and off_arr.size and off_arr.dtype.kind in "iu" else None
    if end == n_second:
        check_same_length(first, n_second, first_name, second_name)
    check_same_length(second, n_first, second_name, first_name)


def check_csr_lengths(sc: np.ndarray, lab: np.ndarray, offsets: Any, scores_name: str = "scores",
                      labels_name: str = "labels") -> Tuple[np.ndarray, int]:
    """Offsets checked against the documents (see :func:`prepare_offsets`),
    after :func:`check_lengths_agree`."""
    check_lengths_agree(sc, lab, offsets, scores_name, labels_name)
    return prepare_offsets(offsets, sc.shape[0])


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
        raise ValueError(f"{name} must be finite and >= 0; got {shown_value(arr[q, j])} for query {q}")
    return np.ascontiguousarray(arr)
