"""What LightGBM's and XGBoost's objectives share: the choice of loss (``loss=``, and which
settings belong to which loss) and the state an objective keeps between boosting rounds,
one per training data set, safe when one objective object serves several trainings from
several threads."""
from __future__ import annotations

import inspect
import threading
import weakref
from typing import Any, Callable, List, Mapping, Optional, Tuple

import numpy as np

from fastndcg.integrations._lightgbm_data import LightGBMRows
from fastndcg._core.threads import threads_within
from fastndcg.measures._lambdamart_model import LambdaMART
from fastndcg.measures._softrank import SoftNDCGObjective

#: The losses an objective optimises: LambdaMART (the libraries' own) or SoftNDCG (SoftRank).
LOSSES = ("lambdamart", "softndcg")
#: The settings only loss="softndcg" takes; sigma, convention and n_threads are both losses'
#: (sigma: the logistic's for LambdaMART, the score noise's for SoftNDCG); the rest are LambdaMART's.
SOFTNDCG_SETTINGS = ("k", "max_docs", "min_hessian")
SHARED_SETTINGS = ("sigma", "convention", "n_threads")


def _is_default(value: Any, default: Any) -> bool:
    if value is default:
        return True
    try:
        return bool(value == default)
    except Exception:   # an array compared with a scalar: not the default
        return False


def check_loss(loss: Any, init: Callable[..., Any], given: Mapping[str, Any]) -> str:
    """``loss`` checked, and no setting of the other loss given (one away from its default in
    ``init``'s signature): ``k=`` with LambdaMART, ``truncation=`` with SoftNDCG, ... say so
    rather than being ignored."""
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}; got loss={loss!r}")
    defaults = {name: p.default for name, p in inspect.signature(init).parameters.items()}
    for name, value in given.items():
        if name in SHARED_SETTINGS or (name in SOFTNDCG_SETTINGS) == (loss == "softndcg"):
            continue
        if not _is_default(value, defaults[name]):
            owner = "softndcg" if name in SOFTNDCG_SETTINGS else "lambdamart"
            raise ValueError(f"{name}= is a setting of loss={owner!r}; got {name}={value!r} with loss={loss!r} "
                             f"(pass loss={owner!r}, or leave {name}= out)")
    return loss

#: The scikit-learn calls' data kept (LightGBMRows compare by content, so this
#: bounds the comparisons per call).
ROWS_KEPT = 8


class Training:
    """What one training data set keeps between rounds: its model, the round
    state of a debiased or sampled LambdaMART (or None) and the output buffers,
    reused every round under ``lock`` (one round at a time per data set).
    ``host_threads``: the thread count the library trains this data set with
    (None: unknown), the cap of the default thread count
    (:func:`fastndcg._core.threads.threads_within`)."""

    def __init__(self, model: LambdaMART, state: Any = None, host_threads: Optional[int] = None) -> None:
        self.model = model
        self.state = state
        self.host_threads = host_threads
        self.grad: Optional[np.ndarray] = None
        self.hess: Optional[np.ndarray] = None
        self.lock = threading.Lock()

    def gradients(self, scores: np.ndarray, n_threads: Optional[int]) -> Tuple[np.ndarray, np.ndarray]:
        """(grad, hess) at ``scores`` in this training's reused buffers."""
        model = self.model
        dtype = model.output_dtype or (scores.dtype if scores.dtype in (np.float32, np.float64) else np.float64)
        with self.lock:
            if self.grad is None or self.grad.dtype != dtype:
                self.grad = np.empty(model.n_docs, dtype=dtype)
                self.hess = np.empty(model.n_docs, dtype=dtype)
            compute = model.gradients if self.state is None else self.state.gradients
            return compute(scores, grad_out=self.grad, hess_out=self.hess,
                           n_threads=threads_within(self.host_threads, n_threads))


class SoftTraining:
    """What one training data set keeps with ``loss="softndcg"``: the SoftNDCG plan of its
    labels, query boundaries and row weights (no model and no round state: ``model`` and
    ``state`` are None). The plan is read-only, so rounds need no lock."""

    model = None
    state = None

    def __init__(self, soft: SoftNDCGObjective, labels: np.ndarray, offsets: np.ndarray,
                 weights: Optional[np.ndarray]) -> None:
        self.soft = soft
        self.plan = soft.plan(labels, offsets, weights)

    def gradients(self, scores: np.ndarray, n_threads: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
        """(grad, hess) of sum_q w (1 - SoftNDCG_q) at ``scores``, with the loss's own thread count."""
        return self.soft.grad_hess_with(self.plan, scores)


class Trainings:
    """One :class:`Training` (or :class:`SoftTraining`) per data set: a ``lightgbm.Dataset`` or
    ``xgboost.DMatrix`` by identity (held weakly), the
    :class:`~fastndcg.integrations._lightgbm_data.LightGBMRows` of a scikit-learn call by
    content (the last :data:`ROWS_KEPT`). A training is built outside the lock,
    so trainings on other data sets go on meanwhile; two threads building the
    same one keep the first stored."""

    def __init__(self) -> None:
        self._by_object: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()
        self._by_rows: List[Tuple[LightGBMRows, Any]] = []
        self._lock = threading.Lock()
        self.last: Any = None        # the training of the last call, for reports

    def get(self, data: Any, build: Callable[[Any], Any]) -> Any:
        if isinstance(data, LightGBMRows):
            def find() -> Any:
                return next((t for r, t in self._by_rows if r.same_as(data)), None)
        else:
            def find() -> Any:
                return self._by_object.get(data)
        with self._lock:
            training = find()
        if training is None:
            built = build(data)
            with self._lock:
                training = find()
                if training is None:
                    training = built
                    if isinstance(data, LightGBMRows):
                        self._by_rows = (self._by_rows + [(data, built)])[-ROWS_KEPT:]
                    else:
                        self._by_object[data] = built
        self.last = training
        return training


__all__ = ["LOSSES", "ROWS_KEPT", "SoftTraining", "Training", "Trainings", "check_loss"]
