"""The state a LambdaMART objective keeps between boosting rounds, one per training
data set, safe when one objective object serves several trainings from several
threads (LightGBM's and XGBoost's objectives share it)."""
from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from fastndcg._core.arguments import LightGBMRows
from fastndcg._core.threads import threads_within
from fastndcg.measures._lambdamart_model import LambdaMART

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


class Trainings:
    """One :class:`Training` per data set: a ``lightgbm.Dataset`` or
    ``xgboost.DMatrix`` by identity (held weakly), the
    :class:`~fastndcg._core.arguments.LightGBMRows` of a scikit-learn call by
    content (the last :data:`ROWS_KEPT`). A training is built outside the lock,
    so trainings on other data sets go on meanwhile; two threads building the
    same one keep the first stored."""

    def __init__(self) -> None:
        self._by_object: "weakref.WeakKeyDictionary[Any, Training]" = weakref.WeakKeyDictionary()
        self._by_rows: List[Tuple[LightGBMRows, Training]] = []
        self._lock = threading.Lock()
        self.last: Optional[Training] = None        # the training of the last call, for reports

    def get(self, data: Any, build: Callable[[Any], Training]) -> Training:
        if isinstance(data, LightGBMRows):
            def find() -> Optional[Training]:
                return next((t for r, t in self._by_rows if r.same_as(data)), None)
        else:
            def find() -> Optional[Training]:
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
