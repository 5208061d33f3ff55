"""LambdaMART's modes and their limits, the argument checks shared by the model, the objectives
and the debiased variants, the kernel build (baseline or AVX2, same bits) and LightGBM's sigmoid
table, and the result type of the pair API."""
from __future__ import annotations

import numbers
import threading
from collections import OrderedDict
from typing import Any, NamedTuple, Optional, Tuple, Union

import numpy as np

from fastndcg._core import _lambdamart as _baseline
from fastndcg._core import _ndcg
from fastndcg.conventions._convention import Convention, described_fields
from fastndcg.conventions._fields import ANY
from fastndcg._core.query_checks import one_dimensional, check_same_length, finite_nonnegative
from fastndcg._core.arguments import check_real


ArrayLike = Any
Truncation = Union[None, int, str]

MODES = ("default", "lightgbm", "xgboost")
#: Truncation level used when ``truncation="auto"``: LightGBM's
#: ``lambdarank_truncation_level`` (30) and XGBoost's topk
#: ``lambdarank_num_pair_per_sample`` (32).
DEFAULT_TRUNCATION = {"default": 30, "lightgbm": 30, "xgboost": 32}
#: LightGBM's default ``label_gain`` has 31 entries (labels 0..30).
LIGHTGBM_DEFAULT_LABELS = 31
#: The largest label of linear gain in lightgbm mode (LightGBM's float32 labels are exact integers up to it).
LIGHTGBM_MAX_LINEAR_LABEL = 2**24
#: XGBoost's exponential gain ``(1u << label) - 1`` allows labels up to 31.
XGBOOST_MAX_LABEL = 31
NO_TRUNCATION = 1 << 62

#: How many LightGBM sigmoid tables (8 MiB each) stay cached.
SIGMOID_TABLES_KEPT = 4
# sigma -> (table, lo, hi, factor), least recently used first. Shared by every
# thread: read and changed only under _SIGMOID_LOCK.
_SIGMOID_TABLES: "OrderedDict[float, Tuple[np.ndarray, float, float, float]]" = OrderedDict()
_SIGMOID_LOCK = threading.Lock()


def _kernels():
    """The LambdaMART kernel module: the AVX2 build when the NDCG kernel takes its AVX2 path
    (the one rule: the CPU runs AVX2 and FASTNDCG_NO_AVX2 does not force the portable code;
    same bits, wider vectors), else the baseline one."""
    if _ndcg.simd_level() == 1:
        try:
            from fastndcg._core import _lambdamart_avx2 as wide
        except ImportError:  # pragma: no cover - built without it
            return _baseline
        if wide.built_for_avx2():
            return wide
    return _baseline


_lambdamart = _kernels()


def sigmoid_table(sigma: float) -> Tuple[np.ndarray, float, float, float]:
    """LightGBM's 2**20-bin sigmoid table for sigma (8 MiB, read-only), cached
    for the :data:`SIGMOID_TABLES_KEPT` most recently used sigmas.

    Safe from many threads: the cache is only touched under a lock (an
    eviction iterating the dict while another thread inserted raised
    ``RuntimeError: dictionary changed size during iteration``). The table
    is built outside the lock (milliseconds, without the GIL); two threads
    missing the same sigma at once may both build it, and the first one
    stored is kept (the same bits either way).
    """
    with _SIGMOID_LOCK:
        hit = _SIGMOID_TABLES.get(sigma)
        if hit is not None:
            _SIGMOID_TABLES.move_to_end(sigma)
            return hit
    table, lo, hi, factor = _lambdamart.lightgbm_sigmoid_table(sigma)
    table.setflags(write=False)      # shared by every model and thread
    built = (table, lo, hi, factor)
    with _SIGMOID_LOCK:
        hit = _SIGMOID_TABLES.setdefault(sigma, built)
        _SIGMOID_TABLES.move_to_end(sigma)
        while len(_SIGMOID_TABLES) > SIGMOID_TABLES_KEPT:
            _SIGMOID_TABLES.popitem(last=False)
    return hit


# ----------------------------------------------------------------------------- argument checks


def check_mode(mode: Any) -> str:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}; got {mode!r}")
    return mode


def check_truncation(truncation: Truncation, mode: str) -> Optional[int]:
    """Resolve ``truncation`` to an int >= 1, or None for the whole list."""
    if isinstance(truncation, str):
        if truncation != "auto":
            raise ValueError(f"truncation must be 'auto', None or an int >= 1; got {truncation!r}")
        return DEFAULT_TRUNCATION[mode]
    if truncation is None:
        return None
    if isinstance(truncation, (bool, np.bool_)) or not isinstance(truncation, (numbers.Integral, np.integer)):
        raise TypeError(f"truncation must be 'auto', None or an int >= 1; got {truncation!r}")
    if truncation < 1:
        raise ValueError(f"truncation must be >= 1; got {int(truncation)}")
    return int(truncation)


def check_sigma(sigma: Any, mode: str) -> float:
    value = check_real(sigma, "sigma", positive=True)
    if mode == "xgboost" and value != 1.0:
        raise ValueError(f"sigma must be 1.0 in mode='xgboost' (XGBoost's rank:ndcg has no sigma); got {sigma!r}")
    return value


def check_sample_weights(weights: Any, n_docs: int, name: str = "sample_weights",
                          float32: Optional[str] = None) -> np.ndarray:
    arr = one_dimensional(weights, name)
    check_same_length(arr, n_docs, name)
    return finite_nonnegative(arr, name, float32)


def check_exact_convention(conv: Convention, mode: str) -> None:
    """lightgbm / xgboost modes reproduce a library: a field may differ from its default only
    where its description allows it in that mode (an allow-list: a new field is refused here
    until its description says it applies, :attr:`FieldInfo.exact`)."""
    for info in described_fields(conv):
        got = getattr(conv, info.name)
        allowed = info.allowed_in(mode)
        default = info.default
        if allowed == ANY or got == default or (allowed is not None and isinstance(got, str) and got in allowed):
            continue
        shown = repr(got) if isinstance(got, (str, int, float, type(None))) else \
            f"a {'table' if info.name == 'gain' else 'array'} of {len(got)}"
        if allowed is None:
            raise ValueError(
                f"mode={mode!r} reproduces the library, whose {info.name} is {default!r}; the convention "
                f"has {info.name}={shown}. Use mode='default' to train under other conventions")
        raise ValueError(f"mode={mode!r} takes {info.name}=" + " or ".join(repr(v) for v in allowed) +
                         f" (the library's choices); the convention has {info.name}={shown}. Use mode='default' "
                         "to train under other conventions")


def check_out_arrays(out: Any, name: str, n: int, dtype: np.dtype, inputs) -> np.ndarray:
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name} must be a numpy array; got {type(out).__name__}")
    if out.dtype != dtype:
        raise ValueError(f"{name} must have dtype {dtype} (the output dtype of this call); got {out.dtype}")
    if out.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},); got {out.shape}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(f"{name} must be C-contiguous and writeable")
    for other_name, other in inputs:
        if other is not None and np.shares_memory(out, other):
            raise ValueError(f"{name} must not share memory with {other_name}")
    return out


# ----------------------------------------------------------------------------- results


class DeltaNDCGPairs(NamedTuple):
    """The LambdaMART pairs of some queries with their |ΔNDCG| weights.

    One entry per pair, grouped by query in the requested order and, within a
    query, in pair-loop order (rank i ascending, then partner rank j > i).
    ``high`` / ``low`` are rows of the batch (indices into ``scores``) of the
    document with the larger / smaller gain; ``rank_high`` / ``rank_low`` their
    0-based ranks in the query under the current scores.
    """

    query: np.ndarray
    high: np.ndarray
    low: np.ndarray
    rank_high: np.ndarray
    rank_low: np.ndarray
    delta: np.ndarray
