"""LightGBM integration: one objective (LambdaMART or SoftNDCG) and an NDCG eval metric.

* :class:`LightGBMObjective` goes in ``params["objective"]`` (LightGBM 4.x
  callable form). With ``loss="lambdamart"`` (the default) in ``mode="lightgbm"`` it
  reproduces the built-in ``objective="lambdarank"`` bit for bit (identical trees,
  identical predictions), with LightGBM's position debiasing when the Dataset has a
  ``position`` column; in ``mode="default"`` it trains under any fastndcg
  convention. ``loss="softndcg"`` optimises SoftNDCG (SoftRank) instead.
* :class:`LightGBMNDCGMetric` goes in ``feval=``: NDCG@k under any convention or
  preset; with the ``"lightgbm"`` preset it equals LightGBM's own ``ndcg@k``.

Both read the query structure (and labels, weights) from the ``Dataset`` on
their first call and cache it, with the ideal DCG, for the following rounds.
Both work in LightGBM's scikit-learn API too:
``LGBMRanker(objective=LightGBMObjective()).fit(X, y, group=sizes,
eval_metric=LightGBMNDCGMetric(10, name="ndcg"), ...)`` trains the built-in
``lambdarank`` model and logs the built-in's ``ndcg@10`` (see
``docs/lambdamart.md``). LightGBM is imported lazily:
``pip install fastndcg[lightgbm]``.

Example
-------
>>> import lightgbm as lgb                                       # doctest: +SKIP
>>> from fastndcg.integrations import LightGBMObjective, LightGBMNDCGMetric
>>> params = {"objective": LightGBMObjective(), "metric": "None"}
>>> booster = lgb.train(params, train_set, 100, valid_sets=[valid_set],
...                     feval=LightGBMNDCGMetric([1, 5, 10]))            # doctest: +SKIP
"""
from __future__ import annotations

import weakref
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from fastndcg._core.prepared import NDCGScorer, apply_above_one, empty_mean_value
from fastndcg.conventions._convention import Convention
from fastndcg.conventions._presets import as_convention
from fastndcg._core.prepared import inverse_ideal_dcg
from fastndcg._core.plan import kernel_plan
from fastndcg._core.threads import threads_within
from fastndcg._core.arguments import check_real
from fastndcg.integrations._library_params import library_bool, metric_name_prefix
from fastndcg.integrations._lightgbm_data import (LightGBMRows, lightgbm_call, lightgbm_fields, lightgbm_positions,
                                                  lightgbm_threads)
from fastndcg.conventions._presets import LIGHTGBM
from fastndcg.measures._debias import PositionBiasedLambdaMART
from fastndcg.measures._lambdamart_checks import check_mode
from fastndcg.measures._lambdamart_model import LambdaMART
from fastndcg.integrations._trainings import ROWS_KEPT, SoftTraining, Training, Trainings, check_loss
from fastndcg.measures._softrank import SoftNDCGObjective
from fastndcg._core.query_checks import distinct_cutoffs

_INSTALL_HINT = ("fastndcg.integrations.LightGBMObjective and LightGBMNDCGMetric need LightGBM; install it with: "
                 "pip install fastndcg[lightgbm]")


def _require_lightgbm():
    """Import the real LightGBM package (absolute import, not this module)."""
    try:
        import lightgbm
    except ImportError as exc:  # pragma: no cover - exercised only without lightgbm
        raise ImportError(_INSTALL_HINT) from exc
    return lightgbm


def _as_gain_list(value: Any) -> Optional[Tuple[float, ...]]:
    if value is None:
        return None
    if isinstance(value, str):
        value = [v for v in value.replace(" ", "").split(",") if v]
    gains = tuple(float(v) for v in value)
    return gains or None


# ----------------------------------------------------------------------------- objective


class LightGBMObjective:
    """LightGBM objective for ``lightgbm.train(params={"objective": obj, ...})`` and
    ``lightgbm.LGBMRanker(objective=obj)``: LambdaMART (LightGBM's ``lambdarank``, bit for
    bit) or SoftNDCG, as ``loss`` says.

    Parameters
    ----------
    loss : {"lambdamart", "softndcg"}, default "lambdamart"
        ``"lambdamart"``: LambdaMART gradients (the settings ``mode`` ... ``learning_rate``).
        ``"softndcg"``: the loss sum_q w (1 - SoftNDCG_q) of SoftRank (the settings ``k``,
        ``max_docs``, ``min_hessian``; see ``docs/softrank.md``). A setting of the other
        loss is a ValueError. ``sigma``, ``convention`` and ``n_threads`` are both losses'.
    mode : {"lightgbm", "default"}, default "lightgbm"
        ``"lightgbm"`` reproduces LightGBM 4.x ``objective="lambdarank"`` bit
        for bit (set the same ``sigma``, ``truncation``, ``normalize`` and
        ``label_gain`` as the built-in would use; see :meth:`from_params`).
        ``"default"`` is the logistic in double (no table) under any convention.
        (``"xgboost"`` arithmetic is available too, for experiments.)
    convention : Convention, preset name or None
        The NDCG to optimise; see :class:`fastndcg.LambdaMART` (None: ``"lightgbm"`` in
        lightgbm mode). With SoftNDCG, its gain, discount, ideal and short rule (queries
        with ideal DCG 0 get gradient 0 whatever ``empty`` says).
    truncation : "auto", int or None, default "auto"
        ``lambdarank_truncation_level`` (30 for "auto").
    sigma : float, default 1.0
        LightGBM ``sigmoid``; with SoftNDCG, the standard deviation of the score noise
        (see :func:`fastndcg.soft_ndcg`).
    normalize : bool, default True
        LightGBM ``lambdarank_norm``: the list normalisation, and also the
        score-distance normalisation unless ``score_normalization`` is given.
    score_normalization : bool, optional
        The /(0.01 + |Δs|) step on its own (LightGBM ties it to ``normalize``).
    label_gain : sequence of float, optional
        LightGBM ``label_gain``: the gain of label l is ``label_gain[l]``.
        Replaces the convention's gain.
    position_bias_regularization : float, default 0.0
        LightGBM ``lambdarank_position_bias_regularization``; used when the
        Dataset has a ``position`` column.
    learning_rate : float, default 0.1
        The boosting learning rate: LightGBM scales the position-bias step by
        it (set it to the training's ``learning_rate``; :meth:`from_params`
        does).
    k : int, optional
        SoftNDCG's cut (SoftNDCG@k); also bounds its cost, O(n^2 min(k, n)) per query.
    max_docs : int, optional
        SoftNDCG: the documents taking part per query (the highest-scored ones).
    min_hessian : float, default 1e-6
        SoftNDCG: the floor of the hessian, so that every row has a positive one.
    n_threads : int, optional
        Threads for the gradient kernel (bit-identical results for any value).
        None: :func:`fastndcg.effective_n_threads`'s default (the CPUs other
        work does not hold), for LambdaMART capped at the training's ``num_threads``
        (or an alias) when ``lightgbm.train`` was given one.

    Notes
    -----
    Called as ``objective(preds, dataset)`` by ``lightgbm.train`` and as
    ``objective(y_true, y_pred, weight, group)`` by LightGBM's scikit-learn
    API (``LGBMRanker(objective=...)``; ``group`` holds the query sizes, and
    no positions are passed). The labels, query boundaries, row weights and
    positions are read once (on the first call for that Dataset, or for
    arrays of that content) and the ideal DCG is cached with them. Row weights multiply
    each document's gradient and hessian, as LightGBM does. With a ``position`` column
    (LightGBM >= 4.1), LambdaMART's gradients are LightGBM's position-debiased ones: see
    :class:`fastndcg.measures.PositionBiasedLambdaMART`; the learned factors are
    :attr:`position_factors`. LightGBM's own factors are bit-identical when it
    trains with ``num_threads=1`` (with more threads it sums the factors'
    derivatives in an order that follows its thread schedule). With a custom objective
    LightGBM computes no metric by default: set ``params["metric"] = "ndcg"`` or pass a
    :class:`LightGBMNDCGMetric` as ``feval``.

    Threads: the state kept between rounds (model, position factors, output
    buffers) is per Dataset, so one object may serve trainings on different
    Datasets at once, from several threads. Two trainings on the same Dataset
    object at once are not supported (they would share its position factors
    and buffers): give each its own objective.

    Examples
    --------
    >>> import lightgbm as lgb                                              # doctest: +SKIP
    >>> from fastndcg.integrations import LightGBMObjective
    >>> params = {"objective": LightGBMObjective(), "metric": "ndcg"}       # lambdarank, bit for bit
    >>> soft = {"objective": LightGBMObjective("softndcg", sigma=1.0, k=10), "metric": "ndcg"}
    >>> booster = lgb.train(soft, train_set, 100)                          # doctest: +SKIP
    """

    convention: Convention       # the NDCG optimised (for SoftNDCG: with empty="error" made "zero")

    def __init__(self, loss: str = "lambdamart", *, mode: str = "lightgbm", convention: Any = None,
                 truncation: Union[str, int, None] = "auto", sigma: float = 1.0,
                 normalize: bool = True, score_normalization: Optional[bool] = None,
                 label_gain: Optional[Sequence[float]] = None,
                 position_bias_regularization: float = 0.0, learning_rate: float = 0.1,
                 k: Optional[int] = None, max_docs: Optional[int] = None, min_hessian: float = 1e-6,
                 n_threads: Optional[int] = None) -> None:
        self.loss = check_loss(loss, LightGBMObjective.__init__, dict(
            mode=mode, convention=convention, truncation=truncation, sigma=sigma, normalize=normalize,
            score_normalization=score_normalization, label_gain=label_gain,
            position_bias_regularization=position_bias_regularization, learning_rate=learning_rate,
            k=k, max_docs=max_docs, min_hessian=min_hessian, n_threads=n_threads))
        self.n_threads = n_threads
        # one training per Dataset, so that trainings on different Datasets may share this object
        self._trainings = Trainings()
        self._soft: Optional[SoftNDCGObjective] = None
        if self.loss == "softndcg":
            # the SoftNDCG loss never needed LightGBM here: it only reads the data it is given
            self._soft = SoftNDCGObjective(sigma=sigma, k=k, convention=convention, max_docs=max_docs,
                                           min_hessian=min_hessian, n_threads=n_threads)
            self.mode, self.convention, self.sigma = mode, self._soft.convention, self._soft.sigma
            self.k, self.max_docs, self.min_hessian = self._soft.k, self._soft.max_docs, self._soft.min_hessian
            return
        _require_lightgbm()
        self.k, self.max_docs, self.min_hessian = k, max_docs, min_hessian
        self.mode = check_mode(mode)
        if convention is None and self.mode == "lightgbm":
            convention = "lightgbm"
        conv = as_convention(convention)
        gains = _as_gain_list(label_gain)
        if gains is not None:
            conv = conv.replace(gain=gains, name=f"{conv.name}+label_gain")
        self.convention = conv
        self.truncation = truncation
        self.sigma = sigma
        self.normalize = normalize
        self.score_normalization = normalize if score_normalization is None else score_normalization
        self.position_bias_regularization = check_real(position_bias_regularization,
                                                        "position_bias_regularization")
        self.learning_rate = check_real(learning_rate, "learning_rate")
        # Build a throw-away model to validate the settings now, not at round 1.
        LambdaMART([0], [0, 1], mode=self.mode, convention=self.convention, truncation=truncation,
                   sigma=sigma, normalize=normalize, score_normalization=self.score_normalization)

    @classmethod
    def from_params(cls, params: Mapping[str, Any], *, mode: str = "lightgbm", convention: Any = None,
                    n_threads: Optional[int] = None) -> "LightGBMObjective":
        """The LambdaMART objective that matches a LightGBM parameter dict.

        Reads ``sigmoid``, ``lambdarank_truncation_level``, ``lambdarank_norm``,
        ``label_gain``, ``lambdarank_position_bias_regularization`` and
        ``learning_rate`` (or its aliases ``shrinkage_rate``, ``eta``);
        LightGBM's defaults when absent.
        """
        truncation = int(params.get("lambdarank_truncation_level", 30))
        rate = next((params[k] for k in ("learning_rate", "shrinkage_rate", "eta") if k in params), 0.1)
        return cls(mode=mode, convention=convention, truncation=truncation,
                   sigma=float(params.get("sigmoid", 1.0)),
                   normalize=library_bool(params.get("lambdarank_norm", True), "lambdarank_norm"),
                   label_gain=_as_gain_list(params.get("label_gain")),
                   position_bias_regularization=float(params.get("lambdarank_position_bias_regularization", 0.0)),
                   learning_rate=float(rate), n_threads=n_threads)

    def __deepcopy__(self, memo) -> "LightGBMObjective":
        # lightgbm.train deep-copies params; share this object (and its cache)
        # instead of copying the cached model.
        return self

    def __getstate__(self) -> Dict[str, Any]:
        # settings only: the per-Dataset state does not pickle (a fitted LGBMRanker keeps this object)
        return {k: v for k, v in self.__dict__.items() if k != "_trainings"}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._trainings = Trainings()

    def _training_for(self, dataset) -> Any:
        """The state of a ``lightgbm.Dataset`` (by identity) or of the
        :class:`~fastndcg.integrations._lightgbm_data.LightGBMRows` of a scikit-learn call
        (by content), built on first use."""
        return self._trainings.get(dataset, self._new_training)

    def _new_training(self, dataset) -> Any:
        labels, offsets, weights = lightgbm_fields(dataset)
        if self._soft is not None:
            return SoftTraining(self._soft, labels, offsets, weights)
        host = lightgbm_threads(dataset)
        options: Dict[str, Any] = dict(mode=self.mode, convention=self.convention, truncation=self.truncation,
                       sigma=self.sigma, normalize=self.normalize,
                       score_normalization=self.score_normalization, sample_weights=weights,
                       n_threads=threads_within(host, self.n_threads))
        positions = lightgbm_positions(dataset)
        if positions is None:
            return Training(LambdaMART(labels, offsets, **options), host_threads=host)
        debiased = PositionBiasedLambdaMART(
            labels, offsets, positions, regularization=self.position_bias_regularization,
            learning_rate=self.learning_rate, **options)
        return Training(debiased.model, debiased, host_threads=host)

    def model_for(self, dataset) -> Optional[LambdaMART]:
        """The cached :class:`LambdaMART` of ``dataset`` (built on first use); None with
        ``loss="softndcg"``."""
        return self._training_for(dataset).model

    @property
    def n_plans_built(self) -> int:
        """With ``loss="softndcg"``: how many times training data was read and planned (once
        per Dataset, or per content of the scikit-learn API's arrays); 0 otherwise."""
        return 0 if self._soft is None else self._soft.n_plans_built

    @property
    def _model(self) -> Optional[LambdaMART]:
        last = self._trainings.last
        return None if last is None else last.model

    @property
    def _debiased(self) -> Optional[PositionBiasedLambdaMART]:
        last = self._trainings.last
        return None if last is None else last.state

    @property
    def position_factors(self) -> Optional[np.ndarray]:
        """The learned float32 position-bias factor per position id (LightGBM's
        ``pos_biases_``) of the Dataset of the last call, or None when it has no
        positions (or with ``loss="softndcg"``)."""
        debiased = self._debiased
        return None if debiased is None else debiased.position_factors

    def __call__(self, preds_or_y_true: np.ndarray, dataset_or_y_pred: Any, weight: Optional[np.ndarray] = None,
                 group: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
        """(grad, hess) at the raw scores.

        ``lightgbm.train`` calls ``objective(preds, dataset)``; LightGBM's
        scikit-learn API (``LGBMRanker(objective=...)``) calls
        ``objective(y_true, y_pred, weight, group)`` with the query sizes.
        """
        scores, data = lightgbm_call(type(self).__name__, preds_or_y_true, dataset_or_y_pred, weight, group)
        training = self._training_for(data)
        if self._soft is None and scores.ndim != 1:
            raise ValueError(f"expected one raw score per row; got predictions of shape {scores.shape}")
        return training.gradients(scores, self.n_threads)


class LightGBMSoftNDCGObjective(LightGBMObjective):
    """``LightGBMObjective(loss="softndcg", ...)`` under its former name (deprecated:
    ``fastndcg.LightGBMSoftNDCGObjective`` warns and names the replacement)."""

    def __init__(self, *, sigma: float = 1.0, k: Optional[int] = None, convention: Any = None,
                 max_docs: Optional[int] = None, min_hessian: float = 1e-6,
                 n_threads: Optional[int] = None) -> None:
        super().__init__("softndcg", sigma=sigma, k=k, convention=convention, max_docs=max_docs,
                         min_hessian=min_hessian, n_threads=n_threads)


# ----------------------------------------------------------------------------- metric


class _MetricState:
    def __init__(self, scorer: NDCGScorer, offsets: np.ndarray, k: List[int],
                 query_weights: Optional[np.ndarray], host_threads: Optional[int] = None):
        self.scorer = scorer
        self.host_threads = host_threads      # the training's thread count: the cap of the default
        idcg = scorer.ideal_dcg.reshape(offsets.shape[0] - 1, len(k))   # cached by the scorer
        self.idcg = idcg
        self.inv = inverse_ideal_dcg(idcg)
        sizes = np.diff(offsets)[:, None]
        plan = kernel_plan(scorer.convention, int(sizes.max(initial=0)), k)
        self.short = sizes < plan.short_limit[None, :]
        self.empty_value = plan.empty_value
        self.weights = query_weights




def _lightgbm_query_weights(weights: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """LightGBM Metadata query weights: the float32 mean of a query's row weights,
    summed row by row in float32."""
    out = np.empty(offsets.shape[0] - 1, dtype=np.float32)
    for q in range(out.shape[0]):
        a, b = int(offsets[q]), int(offsets[q + 1])
        total = np.cumsum(weights[a:b], dtype=np.float32)[-1] if b > a else np.float32(0.0)
        out[q] = np.float32(total / np.float32(b - a)) if b > a else np.float32(0.0)
    return out


def sequential_sum(values: np.ndarray) -> float:
    """Left-to-right double sum (numpy's add.accumulate), as C++ loops sum."""
    return float(np.cumsum(values, dtype=np.float64)[-1]) if values.size else 0.0


class LightGBMNDCGMetric:
    """NDCG@k eval metric for ``lightgbm.train(..., feval=metric)``.

    Parameters
    ----------
    k : int or sequence of int, default (1, 2, 3, 4, 5)
        Cutoffs (LightGBM's default ``eval_at``); one result per distinct cutoff
        (a repeated cutoff is one metric name).
    convention : Convention or preset name, default "lightgbm"
        How NDCG is computed. The ``"lightgbm"`` preset gives LightGBM's own
        ``ndcg@k`` to the bit (with the same ``label_gain``).
    name : str, optional
        Metric names are ``f"{name}@{k}"``; the default is
        ``f"ndcg[{convention.name}]"`` so that they do not collide with the
        built-in ``ndcg@k`` in ``evals_result``. ``name="ndcg"`` gives the
        built-in's names (``ndcg@10``), for early stopping and
        ``evals_result`` code written for it; it is allowed with the
        ``"lightgbm"`` convention only (any gain), so that ``ndcg@k`` is
        always LightGBM's number. Then turn the built-in metric off
        (``metric="None"``), or its ``ndcg@k`` and this one are both logged
        under one name.
    n_threads : int, optional
        Threads for the NDCG kernels. None: the default count, capped at the
        training's ``num_threads`` (or an alias) when ``lightgbm.train`` was
        given one.

    Notes
    -----
    Called as ``metric(preds, dataset)`` by ``lightgbm.train(feval=...)``, and
    as ``metric(y_true, y_pred, weight, group)`` by LightGBM's scikit-learn API
    (``LGBMRanker.fit(..., eval_metric=metric)``); the query structure is
    cached per Dataset, or per content of the arrays.

    Per query, NDCG@k = DCG@k · (1 / IDCG@k) (the inverse ideal is cached;
    LightGBM multiplies by it too), with the convention's short and empty
    rules; queries combine as the convention's aggregation says, summed in
    query order. With row weights in the Dataset, each query weighs the
    float32 mean of its row weights (LightGBM's query weights); under the
    convention's ``empty_weight="unweighted"`` (the "lightgbm" preset) a query
    without relevant documents adds its bare value (1) to the weighted sum,
    as LightGBM does, so the metric can exceed 1. LightGBM keeps no weights
    when every row weight is 1, and neither does this metric. A query of zero
    documents weighs 0 here; LightGBM divides 0 by 0 for it and reports NaN
    for the whole metric whenever the Dataset has row weights.
    """

    def __init__(self, k: Union[int, Sequence[int]] = (1, 2, 3, 4, 5), *, convention: Any = "lightgbm",
                 name: Optional[str] = None, n_threads: Optional[int] = None) -> None:
        _require_lightgbm()
        self.convention = as_convention(convention)
        # one metric per distinct cutoff: a repeated cutoff is one name (f"{name}@{k}")
        self.k: List[int] = [int(k)] if isinstance(k, (int, np.integer)) else distinct_cutoffs([int(x) for x in k])
        NDCGScorer([0], [0, 1], self.k, convention=self.convention.replace(empty="zero"))  # validate k
        self.name = metric_name_prefix(name, self.convention, LIGHTGBM, "LightGBM")
        self.n_threads = n_threads
        self._states: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
        self._rows_states: List[Tuple[LightGBMRows, _MetricState]] = []   # scikit-learn calls, newest last

    @property
    def signatures(self) -> List[str]:
        """What each reported ``ndcg@k`` is, completely (:mod:`fastndcg.measures._measurement`):
        the metric ranks the list it is given, so its ideal comes from that list."""
        from fastndcg.measures._measurement import column_signatures

        return column_signatures(self.k, self.convention)

    def __deepcopy__(self, memo) -> "LightGBMNDCGMetric":
        # LGBMRanker.fit deep-copies eval_metric: share this object (its caches
        # are keyed by the data) instead of copying the cached scorers.
        return self

    def __getstate__(self) -> Dict[str, Any]:
        # Pickle the settings; the caches (weak references) are rebuilt on first use.
        return {key: value for key, value in self.__dict__.items() if key not in ("_states", "_rows_states")}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._states = weakref.WeakKeyDictionary()
        self._rows_states = []

    def _state_for(self, dataset) -> _MetricState:
        rows = isinstance(dataset, LightGBMRows)
        if rows:
            state = next((st for seen, st in list(self._rows_states) if dataset.same_as(seen)), None)
        else:
            state = self._states.get(dataset)
        if state is None:
            labels, offsets, weights = lightgbm_fields(dataset)
            host = lightgbm_threads(dataset)
            scorer = NDCGScorer(labels, offsets, self.k, convention=self.convention,
                                n_threads=threads_within(host, self.n_threads))
            qw = None if weights is None else _lightgbm_query_weights(weights, offsets)
            state = _MetricState(scorer, offsets, self.k, qw, host)
            if rows:   # the training set and a few validation sets; older entries go
                self._rows_states = self._rows_states[-(ROWS_KEPT - 1):] + [(dataset, state)]
            else:
                self._states[dataset] = state
        return state

    def values(self, preds: np.ndarray, dataset) -> np.ndarray:
        """The metric per cutoff (float64 array, one entry per k): ``dataset``
        is a ``lightgbm.Dataset`` or the
        :class:`~fastndcg.integrations._lightgbm_data.LightGBMRows` of a scikit-learn call."""
        st = self._state_for(dataset)
        conv = self.convention
        dcg = st.scorer.dcg(np.asarray(preds), n_threads=threads_within(st.host_threads, self.n_threads))
        dcg = dcg.reshape(dcg.shape[0], -1)
        empty = st.empty_value
        per_query = np.where(st.short, 0.0, np.where(st.idcg > 0, dcg * st.inv, empty))
        n_q = per_query.shape[0]
        w = np.ones(n_q) if st.weights is None else st.weights.astype(np.float64)
        out = np.empty(per_query.shape[1])
        for j in range(per_query.shape[1]):
            counted = ~np.isnan(per_query[:, j])
            if conv.aggregation == "mean":
                # empty_weight="unweighted" (LightGBM): an empty query's value enters bare
                bare = (st.idcg[:, j] <= 0) & ~st.short[:, j] if conv.empty_weight == "unweighted" else False
                num = sequential_sum(np.where(counted, per_query[:, j] * np.where(bare, 1.0, w), 0.0)[counted])
                den = float(n_q) if st.weights is None and counted.all() else sequential_sum(w[counted])
            else:
                num = sequential_sum((np.where(st.short[:, j], 0.0, dcg[:, j]) * w)[counted])
                den = sequential_sum((st.idcg[:, j] * w)[counted])
            out[j] = num / den if den > 0 else empty_mean_value(conv.empty_mean)
        return apply_above_one(out, conv.above_one)

    def __call__(self, preds_or_y_true: np.ndarray, dataset_or_y_pred: Any, weight: Optional[np.ndarray] = None,
                 group: Optional[np.ndarray] = None) -> List[Tuple[str, float, bool]]:
        """[(name, value, True)] per cutoff: called as ``metric(preds, dataset)``
        or ``metric(y_true, y_pred, weight, group)`` (see Notes)."""
        scores, data = lightgbm_call(type(self).__name__, preds_or_y_true, dataset_or_y_pred, weight, group)
        vals = self.values(scores, data)
        return [(f"{self.name}@{k}", float(v), True) for k, v in zip(self.k, vals)]


__all__ = ["LightGBMNDCGMetric", "LightGBMObjective", "LightGBMSoftNDCGObjective"]
