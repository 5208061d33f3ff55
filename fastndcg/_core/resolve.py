"""A Convention resolved into what the kernels read: the one place for it.

:func:`resolve` turns a :class:`~fastndcg.Convention` into gain and label
rules, tie and empty codes and the discount kind, and caches the result on
the (immutable) convention, so a call pays for it once per convention.
:func:`discount` gives D(r) tables, grown and cached per discount kind.
Every kernel front-end (NDCG, LambdaMART, SoftNDCG, RankDCG, compare) takes
its tables from here; a new convention field is resolved here, in the
Convention and in the reference, and nowhere else.
"""
from __future__ import annotations

import math
import threading
from typing import Dict, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from fastndcg._core import _ndcg
from fastndcg.conventions._convention import MAX_EXPONENTIAL_LABEL, Convention

# Kernel codes: the Python copy of fastndcg/_core/_codes.pxd (the Cython one,
# cimported by every kernel); tests/test_architecture.py checks that they agree.
# worst / best are the comparator's too: ties by a gain-rank key (gain_rank_key), ascending / descending.
TIE_CODES = {"stable": 0, "key": 0, "key_desc": 0, "average": 1, "worst": 0, "best": 0}
DISCOUNT_CODES = {"log2": 0, "letor": 1, "reciprocal": 2}
MODE_CODES = {"default": 0, "lightgbm": 1, "xgboost": 2}
# What a query with ideal DCG 0 scores (NaN: left out of the aggregate; "error" raises before).
EMPTY_VALUES = {"zero": 0.0, "one": 1.0, "skip": math.nan, "error": math.nan}

# Doubles at or beyond this magnitude round to an infinite float32 (the
# midpoint between FLT_MAX and 2**128 rounds to even, i.e. up).
FLOAT32_OVERFLOW = 2.0 ** 128 - 2.0 ** 103

# Tables of at most this many levels get the counting ideal.
COUNTING_LIMIT = 65

_EXPONENTIAL = np.concatenate([np.exp2(np.arange(MAX_EXPONENTIAL_LABEL + 1, dtype=np.float64)) - 1.0, [0.0]])
_EXPONENTIAL.setflags(write=False)
_EMPTY_F64 = np.empty(0, dtype=np.float64)
_EMPTY_F64.setflags(write=False)


class Resolution(NamedTuple):
    """What the kernels need from a convention, independent of the data.

    ``table``: G(l) for integer labels 0..last-1, and table[last] = 0, the gain
    of labels above the table (``unknown_label="zero"``); NaN entries are the
    holes of a ``{label: gain}`` mapping under ``unknown_label="error"``.
    ``count_size`` > 0: the counting ideal applies (per-thread counters of that
    size); with ``levels`` None the gain grows with the label (exponential),
    else ``levels`` lists table levels by gain, descending.
    ``short_zero``: a query shorter than the cutoff scores 0 (``short="zero"``);
    ``empty_value``: the value of a query whose ideal DCG is 0.
    ``key_desc``: ties go by the tie key descending (``key_desc``, and ``best`` on
    the gain-rank key); ``tie_by_gain``: the tie key is :func:`gain_rank_key`'s.
    """

    table: np.ndarray
    last: int
    linear: bool
    count_size: int
    levels: Optional[np.ndarray]
    need_integer: bool
    label_limit: float
    table_holes: bool
    tie_code: int
    key_desc: bool
    round_f32: bool
    score_limit: float
    overflow_inf: bool
    short_zero: bool
    empty_value: float
    tie_by_gain: bool


def resolve(convention: Convention) -> Resolution:
    """The convention's :class:`Resolution`, computed once per convention object."""
    cached = convention.__dict__.get("_resolution")
    if cached is not None:
        return cached
    conv = convention
    if conv.gain == "linear":
        table, last, linear, count_size, levels = _EMPTY_F64, 0, True, 0, None
        need_integer, label_limit, holes = False, math.inf, False
    elif conv.gain == "exponential":
        table, last, linear = _EXPONENTIAL, MAX_EXPONENTIAL_LABEL + 1, False
        count_size, levels = MAX_EXPONENTIAL_LABEL + 1, None
        need_integer, label_limit, holes = True, float(MAX_EXPONENTIAL_LABEL), False
    else:
        given = np.asarray(conv.gain, dtype=np.float64)
        holes = bool(np.isnan(given).any()) and conv.unknown_label == "error"
        table = np.concatenate([given, [0.0]])
        if not holes:
            table = np.where(np.isnan(table), 0.0, table)
        table.setflags(write=False)
        last, linear, need_integer = given.size, False, True
        label_limit = float(given.size - 1) if conv.unknown_label == "error" else math.inf
        if table.size <= COUNTING_LIMIT and not holes:
            count_size = table.size
            levels = np.argsort(-table, kind="stable").astype(np.int64)
            levels.setflags(write=False)
        else:
            # with holes the counting order is still valid (no label reaches a
            # hole once checked), but NaN has no place in a gain order
            count_size = table.size if table.size <= COUNTING_LIMIT else 0
            levels = (np.argsort(-np.where(np.isnan(table), -np.inf, table), kind="stable").astype(np.int64)
                      if count_size else None)
    round_f32 = conv.score_precision == "float32"
    out = Resolution(table=table, last=last, linear=linear, count_size=count_size, levels=levels,
                     need_integer=need_integer, label_limit=label_limit, table_holes=holes,
                     tie_code=TIE_CODES[conv.ties], key_desc=conv.ties in ("key_desc", "best"), round_f32=round_f32,
                     score_limit=FLOAT32_OVERFLOW if round_f32 else math.inf,
                     overflow_inf=round_f32 and conv.float32_overflow == "inf",
                     short_zero=conv.short == "zero", empty_value=EMPTY_VALUES[conv.empty],
                     tie_by_gain=conv.ties in ("worst", "best"))
    object.__setattr__(convention, "_resolution", out)     # frozen dataclass: cache, not state
    return out


def gain_rank_key(convention: Convention, labels: np.ndarray) -> np.ndarray:
    """The tie key of ``ties="worst"`` / ``"best"``, the one place of that rule (NDCG and
    LambdaMART read it): each document's gain as an int64 that orders as the gain does (the
    bits of a double >= 0), so equal scores go lowest gain first under ``worst`` (the key
    ascending) and highest gain first under ``best`` (descending); equal gains keep the input
    order, which changes no sum. Labels that are not valid under the convention get some key:
    the kernel that reads them checks them and raises before a value is used."""
    res = resolve(convention)
    lab = np.asarray(labels)
    if res.linear:
        # the gain is the label: integers order as they are, doubles >= 0 as their bits (no copy)
        if lab.dtype.kind in "iub":
            return np.ascontiguousarray(lab, dtype=np.int64)
        return np.ascontiguousarray(lab, dtype=np.float64).view(np.int64)
    # a table (exponential: 2**l - 1): the bits of each entry, looked up with labels past the
    # table clipped to its last slot (gain 0); NaN holes are labels the kernel refuses
    keys = np.where(np.isnan(res.table) | (res.table <= 0.0), 0.0, res.table).view(np.int64)
    if lab.dtype.kind not in "iub":
        with np.errstate(invalid="ignore"):
            lab = lab.astype(np.int64)
    return np.take(keys, lab, mode="clip")


def short_limits(convention: Convention, cutoffs: Sequence[Optional[int]]) -> np.ndarray:
    """The short-query limit of each cutoff (one column each; None: the whole list), the one rule
    every family reads (NDCG, LambdaMART's truncation, SoftNDCG, the library metrics): under
    ``short="zero"`` a query with fewer documents than its column's limit scores 0; a limit of 0
    is none (``short="clamp"``, or the whole list, which no query is shorter than)."""
    zero = resolve(convention).short_zero
    return np.array([k if (zero and k is not None) else 0 for k in cutoffs], dtype=np.int64)


def float32_reason(convention: Convention) -> Optional[str]:
    """Why NDCG kernels round scores to float32 under ``convention`` (None: they do not)."""
    return "the convention's score_precision='float32'" if convention.score_precision == "float32" else None


_DISCOUNTS: Dict[int, np.ndarray] = {}
_DISCOUNTS_LOCK = threading.Lock()


def discount(convention: Convention, n: int) -> np.ndarray:
    """D(r) for ranks 1..n (at least n entries, read-only), computed with libc log2.

    Built-in discounts come from a table grown by doubling and shared by
    every call; an array discount must itself cover n ranks.
    """
    n = max(int(n), 1)
    if convention.discount == "jk":
        return _jk_discount(convention, n)
    if isinstance(convention.discount, str):
        return builtin_discount(convention.discount, n)
    cached = convention.__dict__.get("_discount_array")
    if cached is None:
        cached = np.asarray(convention.discount, dtype=np.float64)
        cached.setflags(write=False)
        object.__setattr__(convention, "_discount_array", cached)
    if cached.size < n:
        raise ValueError(
            f"discount: the array has {cached.size} entries but ranks up to {n} are summed "
            f"(longest query / largest k); give at least {n} entries")
    return cached


def _jk_discount(convention: Convention, n: int) -> np.ndarray:
    """Jarvelin and Kekalainen's discount with log base b: 1 for r < b, then log2(b) / log2(r)
    (libc log2, as the reference), cached on the convention and replaced whole when it grows."""
    cached = convention.__dict__.get("_discount_jk")
    if cached is None or cached.shape[0] < n:
        size = max(n, 1024, 2 * (cached.shape[0] if cached is not None else 0))
        b = convention.discount_base
        lb = math.log2(b)
        cached = np.array([1.0 if r < b else 1.0 / (math.log2(r) / lb) for r in range(1, size + 1)],
                          dtype=np.float64)
        cached.setflags(write=False)
        object.__setattr__(convention, "_discount_jk", cached)
    return cached


def builtin_discount(name: str, n: int) -> np.ndarray:
    """D(r) of the built-in discount ``name`` ("log2", "letor", "reciprocal") for
    ranks 1..n (at least n entries, read-only); the LambdaMART exact modes use "log2"."""
    kind = DISCOUNT_CODES[name]
    with _DISCOUNTS_LOCK:       # one table per kind, replaced whole when it grows
        table = _DISCOUNTS.get(kind)
        if table is None or table.shape[0] < n:
            size = max(n, 1024, 2 * (table.shape[0] if table is not None else 0))
            table = _ndcg.discount_table(kind, size)
            table.setflags(write=False)
            _DISCOUNTS[kind] = table
    return table


def label_gains(convention: Convention, labels: np.ndarray) -> np.ndarray:
    """G(label) of every document as the kernels compute it (the label itself, or its table
    entry; labels past the table have gain 0). Labels must have been checked under
    ``convention``."""
    res = resolve(convention)
    lab = np.asarray(labels)
    if res.linear:
        return lab.astype(np.float64)
    return res.table[np.minimum(lab, res.last).astype(np.intp)]


def table_labels(convention: Convention, labels: np.ndarray) -> np.ndarray:
    """Labels past the convention's gain table (gain 0 under ``unknown_label="zero"``) as one
    label, the table's zero slot: LambdaMART pairs documents by label, and every such label is
    one level of gain 0 to it (no copy when no label is past the table)."""
    res = resolve(convention)
    if res.linear or labels.size == 0 or float(labels.max()) < res.last:
        return labels
    return np.ascontiguousarray(np.minimum(labels, res.last).astype(labels.dtype, copy=False))
