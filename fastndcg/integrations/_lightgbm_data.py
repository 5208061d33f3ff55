"""LightGBM's training data as fastndcg's arrays: a ``lightgbm.Dataset`` (labels, query
boundaries, row weights, positions, the training's thread count) or the arrays of a call
from LightGBM's scikit-learn API (:class:`LightGBMRows`). The LightGBM objects are only
read; LightGBM itself is never imported here."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from fastndcg._core.groups import offsets_from_group_sizes


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


__all__ = ["LIGHTGBM_THREAD_PARAMS", "LightGBMRows", "lightgbm_call", "lightgbm_fields", "lightgbm_positions",
           "lightgbm_threads"]
