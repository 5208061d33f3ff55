"""Checks of scalar arguments and of the LightGBM / XGBoost training data that
every measure and objective takes (LambdaMART, its debiased variants and
SoftNDCG, for both libraries): one place, one message per rule, naming the
argument and the value. Pure Python; the library objects are only read."""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional, Tuple

import numpy as np

_REAL = (numbers.Real, np.floating, np.integer)
_INTEGRAL = (numbers.Integral, np.integer)
_BOOL = (bool, np.bool_)


def check_flag(value: Any, name: str) -> bool:
    """True or False (numpy bools too); anything else is a TypeError."""
    if not isinstance(value, _BOOL):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def check_real(value: Any, name: str, *, positive: bool = False, invertible: bool = False) -> float:
    """A finite float >= 0; > 0 with ``positive``; with ``invertible`` also
    1 / value finite (no subnormal: the kernels divide by it)."""
    if isinstance(value, _BOOL) or not isinstance(value, _REAL):
        raise TypeError(f"{name} must be a real number; got {type(value).__name__} {value!r}")
    x = float(value)
    bound = "> 0" if positive or invertible else ">= 0"
    if not math.isfinite(x) or x < 0 or ((positive or invertible) and x == 0):
        raise ValueError(f"{name} must be finite and {bound}; got {name}={value!r}")
    if invertible and not math.isfinite(1.0 / x):
        raise ValueError(f"{name} must be finite and {bound}, and not subnormal (1/{name} overflows); "
                         f"got {name}={value!r}")
    return x


def check_count(value: Any, name: str, *, optional: bool = False) -> Optional[int]:
    """An int >= 1 (None allowed with ``optional``)."""
    if value is None and optional:
        return None
    what = "None or an int >= 1" if optional else "an int >= 1"
    if isinstance(value, _BOOL) or not isinstance(value, _INTEGRAL):
        raise TypeError(f"{name} must be {what}; got {type(value).__name__} {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be {what}; got {name}={int(value)}")
    return int(value)


def library_bool(value: Any, name: str) -> bool:
    """A boolean parameter of LightGBM or XGBoost, given as a bool, a number or
    a string ("true"/"false", "1"/"0", "yes"/"no", "+"/"-"); any other string
    is an error, not a silent False."""
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "1", "yes", "+"):
            return True
        if low in ("false", "0", "no", "-"):
            return False
        raise ValueError(f"{name} must be a boolean; got {value!r}")
    return bool(value)


def lightgbm_fields(dataset: Any) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """(labels float32, offsets int64, row weights float32 or None) of a LightGBM Dataset."""
    if not hasattr(dataset, "get_field"):
        raise TypeError(f"expected a lightgbm.Dataset; got {type(dataset).__name__}")
    dataset.construct()   # a no-op once constructed (lightgbm.train has done it)
    bounds = dataset.get_field("group")
    if bounds is None:
        raise ValueError("the Dataset has no query information; build it with lightgbm.Dataset(..., group=sizes)")
    labels = dataset.get_field("label")
    weights = dataset.get_field("weight")
    return (np.asarray(labels, dtype=np.float32), np.asarray(bounds, dtype=np.int64),
            None if weights is None or len(weights) == 0 else np.asarray(weights, dtype=np.float32))


def lightgbm_positions(dataset: Any) -> Optional[np.ndarray]:
    """The Dataset's position ids (LightGBM >= 4.1 numbers the positions in
    order of first appearance), or None."""
    try:
        position = dataset.get_field("position")
    except Exception:  # older LightGBM: no position field
        return None
    if position is None or len(position) == 0:
        return None
    return np.asarray(position, dtype=np.int32)


def xgboost_fields(dmat: Any) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """(labels float32, offsets int64, group weights float32 or None) of an XGBoost DMatrix.
    XGBoost's ranking weights are one per group."""
    if not hasattr(dmat, "get_uint_info"):
        raise TypeError(f"expected an xgboost.DMatrix; got {type(dmat).__name__}")
    labels = np.asarray(dmat.get_label(), dtype=np.float32)
    ptr = np.asarray(dmat.get_uint_info("group_ptr"), dtype=np.int64)
    if ptr.size == 0:
        raise ValueError("the DMatrix has no query information; set group= or qid= on it")
    given = np.asarray(dmat.get_weight(), dtype=np.float32)
    n_groups = ptr.size - 1
    weights: Optional[np.ndarray] = given
    if given.size == 0:
        weights = None
    elif given.size != n_groups:
        raise ValueError(f"ranking weights are per group in XGBoost: expected {n_groups} weights; "
                         f"got {given.size}")
    return labels, ptr, weights
