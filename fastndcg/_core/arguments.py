"""Checks of scalar arguments and of the LightGBM / XGBoost training data that
every measure and objective takes (LambdaMART, its debiased variants and
SoftNDCG, for both libraries): one place, one message per rule, naming the
argument and the value. Pure Python; the library objects are only read."""
from __future__ import annotations

import warnings

import math
import numbers
import contextlib
import os
import sys
import types
from typing import Any, Callable, Iterable, Optional, Tuple

import numpy as np

from fastndcg._core.groups import offsets_from_group_sizes

_REAL = (numbers.Real, np.floating, np.integer)
_INTEGRAL = (numbers.Integral, np.integer)
_BOOL = (bool, np.bool_)

#: One setting an error message names: (Python argument, the value as Python
#: source, e.g. ``"'zero'"``; None for the argument alone).
Setting = Tuple[str, Optional[str]]


def python_setting(argument: str, value: Optional[str]) -> str:
    """A setting as Python code spells it: ``missing='zero'``, or the bare argument."""
    return argument if value is None else f"{argument}={value}"


def literal(text: Any) -> str:
    """``text`` for a :class:`NamedArgumentError` template: braces doubled so that
    formatting leaves them as they are (a path or an id may hold one)."""
    return str(text).replace("{", "{{").replace("}", "}}")


class NamedArgumentError(ValueError):
    """A ValueError whose message names Python arguments, kept apart from the text.

    ``template`` is the message with ``{0}``, ``{1}``, ... where it names a
    setting; ``settings`` are those settings (:data:`Setting`). The message
    (``str(exc)``) spells them as Python does (``missing='zero'``); a front end
    with other names for them (the command line's options) spells them its own
    way with :meth:`render`. Re-raised wrappers (``type(exc)(message)``) have
    the plain message as template and no settings.
    """

    def __init__(self, template: str, settings: Iterable[Setting] = ()):
        self.template = template
        self.settings: Tuple[Setting, ...] = tuple(settings)
        super().__init__(self.render(python_setting))

    def render(self, spell: Callable[[str, Optional[str]], str]) -> str:
        """The message with each setting spelled by ``spell(argument, value)``."""
        if not self.settings:
            return self.template
        return self.template.format(*(spell(argument, value) for argument, value in self.settings))


def check_max_docs(max_docs: Any) -> Optional[int]:
    """trec_eval's ``-M``: None or an integer >= 1 (the one check of it)."""
    if max_docs is None:
        return None
    if isinstance(max_docs, (bool, np.bool_)) or not isinstance(max_docs, numbers.Real) \
            or not math.isfinite(float(max_docs)) or not float(max_docs).is_integer() or max_docs < 1:
        raise NamedArgumentError("{0} must be an integer >= 1; got " + literal(repr(max_docs)), [("max_docs", None)])
    return int(max_docs) if isinstance(max_docs, numbers.Integral) else int(float(max_docs))


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


class LightGBMRows:
    """The training data of a call from LightGBM's scikit-learn API (``LGBMRanker``),
    which passes arrays, not the Dataset: labels float32, CSR offsets int64, row
    weights float32 or None, all copies (a cache keyed by them cannot go stale
    when the caller changes its arrays in place)."""

    __slots__ = ("labels", "offsets", "weights")

    def __init__(self, y_true: Any, weight: Any, group: Any) -> None:
        labels = np.array(y_true, dtype=np.float32)      # a copy
        if labels.ndim != 1:
            raise ValueError(f"y_true must be 1-D; got an array of shape {labels.shape}")
        offsets = offsets_from_group_sizes(group)
        if int(offsets[-1]) != labels.shape[0]:
            raise ValueError(f"group sizes must add up to the number of rows ({labels.shape[0]}); "
                             f"got sum(group)={int(offsets[-1])}")
        weights = None if weight is None else np.array(weight, dtype=np.float32)
        if weights is not None and weights.shape != labels.shape:
            raise ValueError(f"weight must have one entry per row ({labels.shape[0]}); "
                             f"got an array of shape {weights.shape}")
        self.labels, self.offsets, self.weights = labels, offsets, weights

    def same_as(self, other: Any) -> bool:
        """Equal content (the identity of LightGBM's arrays says nothing: one
        ``y`` may be fitted with two ``group`` arrays)."""
        if not isinstance(other, LightGBMRows):
            return False
        if self.weights is None or other.weights is None:
            same_weights = self.weights is None and other.weights is None
        else:
            same_weights = np.array_equal(self.weights, other.weights)
        return (same_weights and np.array_equal(self.offsets, other.offsets)
                and np.array_equal(self.labels, other.labels))


def lightgbm_call(caller: str, preds_or_y_true: Any, dataset_or_y_pred: Any, weight: Any,
                  group: Any) -> Tuple[np.ndarray, Any]:
    """(raw scores, training data) of a call to a custom objective or metric.

    ``lightgbm.train`` calls ``f(preds, dataset)``: the data is the Dataset.
    LightGBM's scikit-learn API calls ``f(y_true, y_pred, weight, group)``
    (``group``: the query sizes): the data is a :class:`LightGBMRows`.
    """
    if hasattr(dataset_or_y_pred, "get_field"):
        if weight is not None or group is not None:
            raise TypeError(f"{caller} takes (preds, dataset) or (y_true, y_pred, weight, group); "
                            "got a Dataset with weight or group: they are read from the Dataset")
        return np.asarray(preds_or_y_true), dataset_or_y_pred
    y_pred = np.asarray(dataset_or_y_pred)
    if y_pred.dtype.kind not in "biuf":
        raise TypeError(f"{caller} takes (preds, lightgbm.Dataset) or (y_true, y_pred, weight, group); "
                        f"got {type(dataset_or_y_pred).__name__} as the second argument")
    if group is None:
        raise ValueError(f"{caller} needs the query groups, and none were passed: fit "
                         "lightgbm.LGBMRanker(objective=...).fit(X, y, group=sizes) (LGBMRegressor and "
                         "LGBMClassifier pass no groups), or lightgbm.train with a Dataset(..., group=sizes)")
    rows = LightGBMRows(preds_or_y_true, weight, group)
    if y_pred.shape != rows.labels.shape:
        raise ValueError(f"y_pred must have one raw score per row ({rows.labels.shape[0]}); "
                         f"got an array of shape {y_pred.shape}")
    return y_pred, rows


def lightgbm_fields(dataset: Any) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """(labels float32, offsets int64, row weights float32 or None) of a LightGBM
    Dataset or of :class:`LightGBMRows`."""
    if isinstance(dataset, LightGBMRows):
        return dataset.labels, dataset.offsets, dataset.weights
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


#: LightGBM's names of its thread count (``num_threads`` and its aliases)
LIGHTGBM_THREAD_PARAMS = ("num_threads", "num_thread", "nthread", "nthreads", "n_jobs")


def lightgbm_threads(dataset: Any) -> Optional[int]:
    """The thread count the training of ``dataset`` was given (its params:
    ``lightgbm.train`` copies the training's params onto the Dataset), or None
    (not given, <= 0 = LightGBM's default, or a scikit-learn call's rows)."""
    params = getattr(dataset, "params", None)
    if not isinstance(params, dict):
        return None
    for name in LIGHTGBM_THREAD_PARAMS:
        value = params.get(name)
        if value is not None:
            try:
                value = int(value)
            except (TypeError, ValueError):
                return None
            return value if value > 0 else None
    return None


def lightgbm_positions(dataset: Any) -> Optional[np.ndarray]:
    """The Dataset's position ids (LightGBM >= 4.1 numbers the positions in
    order of first appearance), or None (always for :class:`LightGBMRows`: the
    scikit-learn API passes no positions)."""
    if isinstance(dataset, LightGBMRows):
        return None
    try:
        position = dataset.get_field("position")
    except Exception:  # older LightGBM: no position field
        return None
    if position is None or len(position) == 0:
        return None
    return np.asarray(position, dtype=np.int32)


def metric_name_prefix(name: Any, convention: Any, builtin: Any, library: str) -> str:
    """The prefix of a custom NDCG metric's names, ``f"{prefix}@{k}"``.

    None gives ``f"ndcg[{convention.name}]"``, which no built-in metric uses.
    ``"ndcg"`` gives the built-in's own names (``ndcg@10``), so it must give
    the built-in's numbers: it needs ``builtin``'s convention (any gain, as
    the library's ``label_gain`` / ``ndcg_exp_gain`` choose one).
    """
    if name is None:
        return f"ndcg[{convention.name}]"
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str or None; got {name!r}")
    if "@" in name:
        raise ValueError(f"name is the prefix of the metric names f'{{name}}@{{k}}' (one per cutoff k); "
                         f"got name={name!r}: pass name='{name.split('@')[0]}' and k")
    if name == "ndcg" and convention.replace(gain=builtin.gain, name=builtin.name) != builtin:
        raise ValueError(f"name='ndcg' gives {library}'s own metric names (ndcg@k), so it needs {library}'s "
                         f"ndcg: convention={builtin.name!r} (any gain); got convention {convention.name!r}. "
                         "Pass another name")
    return name


def require_dmatrix(dmat: Any) -> None:
    """A TypeError unless ``dmat`` is an XGBoost DMatrix; for arrays, the
    message says why XGBoost's scikit-learn API cannot work and what does."""
    if hasattr(dmat, "get_uint_info"):
        return
    hint = ""
    if isinstance(dmat, (np.ndarray, list)):
        hint = (". XGBoost's scikit-learn API passes no query groups to a custom objective or metric "
                "(XGBRanker refuses a custom objective, XGBRegressor calls one as f(y_true, y_pred), "
                "XGBRanker calls a custom eval_metric once per query): train with "
                "xgboost.train(params, xgboost.DMatrix(X, y, qid=qid), num_boost_round, obj=..., "
                "custom_metric=...)")
    raise TypeError(f"expected an xgboost.DMatrix; got {type(dmat).__name__}{hint}")


def xgboost_fields(dmat: Any) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """(labels float32, offsets int64, group weights float32 or None) of an XGBoost DMatrix.
    XGBoost's ranking weights are one per group."""
    require_dmatrix(dmat)
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


#: The package's folder: warnings point at the first frame outside it (the caller's line).
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def caller_stacklevel() -> int:
    """The ``stacklevel`` with which the function calling this, warning, points at the first
    frame outside fastndcg (and outside contextlib's ``with`` machinery): the user's line,
    however deep in the package the warning is raised (``fastndcg.evaluate`` -> ... -> a
    kernel's check)."""
    frame: Optional[types.FrameType] = sys._getframe(1)
    level = 1
    while frame is not None and (frame.f_code.co_filename.startswith(_PACKAGE_DIR)
                                 or frame.f_code.co_filename == contextlib.__file__):
        frame = frame.f_back
        level += 1
    return level


def renamed_argument(old: str, old_value: Any, new: str, new_value: Any, default: Any) -> Any:
    """The value of an argument that was renamed (``old=`` is deprecated for ``new=``): ``old_value``
    with a DeprecationWarning when only it is given, ``new_value`` (or ``default``) otherwise; both
    given is a ValueError naming them."""
    if old_value is None:
        return default if new_value is None else new_value
    if new_value is not None:
        raise ValueError(f"give {new}= only ({old}= is its old spelling, deprecated); got both")
    warnings.warn(f"{old}= is deprecated: use {new}= (the same values)", DeprecationWarning,
                  stacklevel=caller_stacklevel())
    return old_value
