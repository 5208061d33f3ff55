"""XGBoost's training data as fastndcg's arrays: the labels, query boundaries
(``group_ptr``) and group weights of an ``xgboost.DMatrix``. The DMatrix is only read;
XGBoost itself is never imported here."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np


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


def xgboost_row_weights(dmat: Any) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """(labels, offsets, weights one per row or None): XGBoost's ranking weights are one per
    group, repeated here over the group's rows (SoftNDCG weighs rows)."""
    labels, ptr, weights = xgboost_fields(dmat)
    return labels, ptr, None if weights is None else np.repeat(weights, np.diff(ptr))


__all__ = ["require_dmatrix", "xgboost_fields", "xgboost_row_weights"]
