"""XGBoost integration: one objective (``obj=``; LambdaMART or SoftNDCG) and an NDCG metric
(``custom_metric=``).

* :class:`XGBoostObjective`: with ``loss="lambdamart"`` (the default) in ``mode="xgboost"``
  it reproduces XGBoost
  3.x ``objective="rank:ndcg"`` bit for bit (identical trees and predictions
  with ``tree_method="hist"`` and an explicit ``base_score``), including the
  ``mean`` pair method (3.0-3.3) and Unbiased LambdaMART
  (``lambdarank_unbiased``) with their round-to-round state; in
  ``mode="default"`` it trains under any fastndcg convention. ``loss="softndcg"``
  optimises SoftNDCG (SoftRank) instead.
* :class:`XGBoostNDCGMetric`: NDCG@k under any convention or preset.

Both read the query structure (``group_ptr``), labels and group weights from
the ``DMatrix`` on first use and cache them with the ideal DCG. XGBoost is
imported lazily: ``pip install fastndcg[xgboost]``.

XGBoost's scikit-learn API cannot use them: ``XGBRanker`` refuses any
callable objective ("custom objective function not supported by XGBRanker")
and calls a callable ``eval_metric`` once per query, averaging the results
itself; ``XGBRegressor`` calls an objective as ``f(y_true, y_pred)``, with no
query groups. Called with arrays, both raise a TypeError that says so: train
with ``xgboost.train`` and a ``DMatrix`` built with ``qid=`` (or ``group=``).

Example
-------
>>> import xgboost as xgb                                             # doctest: +SKIP
>>> from fastndcg.integrations import XGBoostObjective, XGBoostNDCGMetric
>>> booster = xgb.train({"tree_method": "hist", "base_score": 0.0}, dtrain, 100,
...                     obj=XGBoostObjective(), custom_metric=XGBoostNDCGMetric([5, 10]),
...                     evals=[(dvalid, "valid")])                    # doctest: +SKIP
"""
from __future__ import annotations

import weakref
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from fastndcg._core.prepared import NDCGScorer
from fastndcg.conventions._convention import Convention
from fastndcg.conventions._presets import as_convention
from fastndcg._core.arguments import check_flag, check_real
from fastndcg.integrations._library_params import library_bool, metric_name_prefix
from fastndcg.integrations._xgboost_data import require_dmatrix, xgboost_fields, xgboost_row_weights
from fastndcg.integrations._xgboost_ranking import PAIR_METHODS, XGBoostRankNDCG
from fastndcg.integrations._trainings import SoftTraining, Training, Trainings, check_loss
from fastndcg.measures._softrank import SoftNDCGObjective
from fastndcg.measures._lambdamart_checks import check_mode
from fastndcg.measures._lambdamart_model import LambdaMART
from fastndcg.conventions._presets import XGBOOST
from fastndcg._core.query_checks import distinct_cutoffs

_INSTALL_HINT = ("fastndcg.integrations.XGBoostObjective and XGBoostNDCGMetric need XGBoost; install it with: "
                 "pip install fastndcg[xgboost]")

#: XGBoost's own ndcg@k: the "xgboost" preset (exponential gain for labels
#: 0..31, float32 predictions ranked in input order on ties, k clamped, a query
#: without relevant documents scores 1 and enters the weighted mean unweighted,
#: float32 group weights, an aggregate above 1 is an error).
XGBOOST_NDCG = XGBOOST


def _require_xgboost():
    """Import the real XGBoost package (absolute import, not this module)."""
    try:
        import xgboost
    except ImportError as exc:  # pragma: no cover - exercised only without xgboost
        raise ImportError(_INSTALL_HINT) from exc
    return xgboost


def mean_seed_offset(version: str) -> int:
    """The ``mean`` pair method's seed is (iteration + offset) * n_groups + g:
    offset 0 in XGBoost 3.0, 1 in 3.1-3.3. Other versions are refused: before
    3.0 the method was normalised differently, and from 3.4 on the seed comes
    from the booster's own random engine, which no objective outside XGBoost
    can follow."""
    parts = []
    for piece in str(version).split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    major, minor = (parts + [0, 0])[:2]
    if major == 3 and minor == 0:
        return 0
    if major == 3 and 1 <= minor <= 3:
        return 1
    raise ValueError(f"lambdarank_pair_method='mean' is reproduced for XGBoost 3.0-3.3; this is {version} "
                     "(3.4 seeds its pair sampling from the booster's own random engine)")


class XGBoostObjective:
    """XGBoost objective for ``xgboost.train(..., obj=objective)``: LambdaMART (XGBoost's
    ``rank:ndcg``, bit for bit) or SoftNDCG, as ``loss`` says.

    Parameters
    ----------
    loss : {"lambdamart", "softndcg"}, default "lambdamart"
        ``"lambdamart"``: LambdaMART gradients (the settings ``mode`` ... ``seed_offset``).
        ``"softndcg"``: the loss sum_q w (1 - SoftNDCG_q) of SoftRank (the settings ``k``,
        ``max_docs``, ``min_hessian``; see ``docs/softrank.md``). A setting of the other
        loss is a ValueError. ``sigma``, ``convention`` and ``n_threads`` are both losses'.
    mode : {"xgboost", "default"}, default "xgboost"
        ``"xgboost"`` reproduces ``rank:ndcg`` bit for bit; ``"default"``
        is the logistic in double (no table) under any convention (its hessian is
        σ²ρ(1-ρ)|ΔNDCG|, half of XGBoost's). (``"lightgbm"`` arithmetic is
        available too, for experiments.)
    convention : Convention, preset name or None
        The NDCG to optimise. In xgboost mode only the gain may be chosen:
        ``"exponential"`` (``ndcg_exp_gain=True``, the default) or ``"linear"``.
        With SoftNDCG, its gain, discount, ideal and short rule.
    truncation : "auto", int or None, default "auto"
        ``lambdarank_num_pair_per_sample``: topk's k (32 for "auto"), or the
        pairs drawn per document with ``pair_method="mean"`` (1 for "auto").
    normalize : bool, default True
        ``lambdarank_normalization``.
    score_normalization : bool, default True
        ``lambdarank_score_normalization``.
    sigma : float, default 1.0
        Must stay 1 in xgboost mode; with SoftNDCG, the standard deviation of the score
        noise (see :func:`fastndcg.soft_ndcg`).
    pair_method : {"topk", "mean"}, default "topk"
        ``lambdarank_pair_method`` (xgboost mode).
    unbiased : bool, default False
        ``lambdarank_unbiased``: Unbiased LambdaMART position debiasing
        (xgboost mode; the rows of each group in displayed order).
    bias_norm : float, default 1.0
        ``lambdarank_bias_norm``.
    iteration : int, default 0
        The boosting round of the first call (the ``mean`` seed); counts up by
        one per call. Set it when training continues from an existing model.
    seed_offset : int, default 1
        The ``mean`` method's seed is (iteration + seed_offset) · n_groups + g: 1 in
        XGBoost 3.1-3.3, 0 in 3.0 (:meth:`from_params` sets it from the installed XGBoost
        version).
    k : int, optional
        SoftNDCG's cut (SoftNDCG@k); also bounds its cost, O(n^2 min(k, n)) per query.
    max_docs : int, optional
        SoftNDCG: the documents taking part per query (the highest-scored ones).
    min_hessian : float, default 1e-6
        SoftNDCG: the floor of the hessian (lower ``min_child_weight`` too: XGBoost's
        default of 1 can stop all splits on small queries).
    n_threads : int, optional
        Threads for the gradient kernel (bit-identical results for any value).

    Notes
    -----
    Only ``xgboost.train(..., obj=objective)`` can call it (see the module
    docstring for XGBoost's scikit-learn API). XGBoost's ranking weights are per group: in xgboost mode they scale each
    group by w_g · n_groups / Σ w, as XGBoost does. Train with an explicit
    ``base_score`` when comparing with the built-in objective (XGBoost fits an
    intercept otherwise). The state of the ``mean`` method and of Unbiased
    LambdaMART is kept per DMatrix, round to round; the learned ratios are :attr:`t_plus` and :attr:`t_minus` (XGBoost saves them, rounded
    to float32, as ``"ti+"`` and ``"tj-"`` in ``Booster.save_config()``).

    Threads: the state kept between rounds is per DMatrix, so one object may
    serve trainings on different DMatrix objects at once, from several threads.
    Two trainings on the same DMatrix object at once are not supported (they
    would share its round state and buffers): give each its own objective.

    With SoftNDCG, the weights (per group) weigh each group's rows, the predictions arrive
    as float32 and the gradient is returned as float32; set ``base_score`` explicitly.

    Examples
    --------
    >>> import xgboost as xgb                                                 # doctest: +SKIP
    >>> from fastndcg.integrations import XGBoostObjective
    >>> lambdamart = XGBoostObjective()                                      # rank:ndcg, bit for bit
    >>> soft = XGBoostObjective("softndcg", sigma=1.0, k=10)
    >>> booster = xgb.train({"base_score": 0.0, "min_child_weight": 0.01}, dtrain, 100,
    ...                     obj=soft)                                         # doctest: +SKIP
    """

    convention: Convention       # the NDCG optimised (for SoftNDCG: with empty="error" made "zero")

    def __init__(self, loss: str = "lambdamart", *, mode: str = "xgboost", convention: Any = None,
                 truncation: Union[str, int, None] = "auto", normalize: bool = True,
                 score_normalization: bool = True, sigma: float = 1.0, pair_method: str = "topk",
                 unbiased: bool = False, bias_norm: float = 1.0, iteration: int = 0,
                 seed_offset: int = 1, k: Optional[int] = None, max_docs: Optional[int] = None,
                 min_hessian: float = 1e-6, n_threads: Optional[int] = None) -> None:
        self.loss = check_loss(loss, XGBoostObjective.__init__, dict(
            mode=mode, convention=convention, truncation=truncation, normalize=normalize,
            score_normalization=score_normalization, sigma=sigma, pair_method=pair_method, unbiased=unbiased,
            bias_norm=bias_norm, iteration=iteration, seed_offset=seed_offset, k=k, max_docs=max_docs,
            min_hessian=min_hessian, n_threads=n_threads))
        self.n_threads = n_threads
        # one training per DMatrix, so that trainings on different DMatrix objects may share this object
        self._trainings = Trainings()
        self._soft: Optional[SoftNDCGObjective] = None
        self.pair_method, self.unbiased = pair_method, unbiased
        if self.loss == "softndcg":
            # the SoftNDCG loss never needed XGBoost here: it only reads the data it is given
            self._soft = SoftNDCGObjective(sigma=sigma, k=k, convention=convention, max_docs=max_docs,
                                           min_hessian=min_hessian, n_threads=n_threads)
            self.mode, self.convention, self.sigma = mode, self._soft.convention, self._soft.sigma
            self.k, self.max_docs, self.min_hessian = self._soft.k, self._soft.max_docs, self._soft.min_hessian
            return
        _require_xgboost()
        self.k, self.max_docs, self.min_hessian = k, max_docs, min_hessian
        self.mode = check_mode(mode)
        if pair_method not in PAIR_METHODS:
            raise ValueError(f"pair_method must be one of {PAIR_METHODS}; got {pair_method!r}")
        self.pair_method = pair_method
        self.unbiased = check_flag(unbiased, "unbiased")
        self.bias_norm = check_real(bias_norm, "bias_norm")
        self.iteration = iteration
        self.seed_offset = seed_offset
        if self.mode != "xgboost" and (pair_method != "topk" or self.unbiased):
            raise ValueError("pair_method='mean' and unbiased=True follow XGBoost's arithmetic: use mode='xgboost'")
        if convention is None and self.mode == "lightgbm":
            convention = "lightgbm"
        self.convention = as_convention(convention)
        self.truncation = truncation
        self.normalize = normalize
        self.score_normalization = score_normalization
        self.sigma = sigma
        # Build throw-away models to validate the settings now, not at round 1.
        LambdaMART([0], [0, 1], mode=self.mode, convention=self.convention, truncation=truncation,
                   sigma=sigma, normalize=normalize, score_normalization=score_normalization)
        if self._needs_state:
            self._stateful([0], [0, 1], None)

    @property
    def _needs_state(self) -> bool:
        return self._soft is None and (self.pair_method != "topk" or self.unbiased)

    def _stateful(self, labels, offsets, weights) -> XGBoostRankNDCG:
        if self.truncation is None and self.pair_method == "topk":
            raise ValueError("truncation=None has no XGBoost equivalent with unbiased=True; give the "
                             "topk truncation (lambdarank_num_pair_per_sample)")
        k = None if self.truncation in ("auto", None) else int(self.truncation)
        return XGBoostRankNDCG(labels, offsets, pair_method=self.pair_method, num_pair_per_sample=k,
                               unbiased=self.unbiased, bias_norm=self.bias_norm,
                               normalize=self.normalize, score_normalization=self.score_normalization,
                               gain=self.convention.gain, query_weights=weights, iteration=self.iteration,
                               seed_offset=self.seed_offset, n_threads=self.n_threads)

    @classmethod
    def from_params(cls, params: Mapping[str, Any], *, mode: str = "xgboost",
                    n_threads: Optional[int] = None) -> "XGBoostObjective":
        """The LambdaMART objective that matches an XGBoost ``rank:ndcg`` parameter dict.

        Reads ``lambdarank_pair_method``, ``lambdarank_num_pair_per_sample``,
        ``lambdarank_normalization``, ``lambdarank_score_normalization``,
        ``ndcg_exp_gain``, ``lambdarank_unbiased`` and ``lambdarank_bias_norm``.
        With ``"mean"``, the installed XGBoost version sets the seed rule
        (3.0-3.3 are reproduced; see :func:`mean_seed_offset`).
        """
        method = params.get("lambdarank_pair_method", "topk")
        if method not in PAIR_METHODS:
            raise ValueError(f"lambdarank_pair_method must be one of {PAIR_METHODS}; got {method!r}")
        offset = mean_seed_offset(_require_xgboost().__version__) if method == "mean" else 1
        k = params.get("lambdarank_num_pair_per_sample")
        gain = "exponential" if library_bool(params.get("ndcg_exp_gain", True), "ndcg_exp_gain") else "linear"
        return cls(mode=mode, convention=Convention(gain=gain), truncation="auto" if k is None else int(k),
                   normalize=library_bool(params.get("lambdarank_normalization", True), "lambdarank_normalization"),
                   score_normalization=library_bool(params.get("lambdarank_score_normalization", True), "lambdarank_score_normalization"),
                   pair_method=method, unbiased=library_bool(params.get("lambdarank_unbiased", False), "lambdarank_unbiased"),
                   bias_norm=float(params.get("lambdarank_bias_norm", 1.0)), seed_offset=offset,
                   n_threads=n_threads)

    def __getstate__(self) -> Dict[str, Any]:
        # settings only: the per-DMatrix state does not pickle
        return {k: v for k, v in self.__dict__.items() if k != "_trainings"}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._trainings = Trainings()

    def _training_for(self, dmat) -> Any:
        require_dmatrix(dmat)      # before the look-up: arrays from the scikit-learn API say what works
        return self._trainings.get(dmat, self._new_training)

    def _new_training(self, dmat) -> Any:
        if self._soft is not None:
            return SoftTraining(self._soft, *xgboost_row_weights(dmat))
        labels, offsets, weights = xgboost_fields(dmat)
        if self._needs_state:
            state = self._stateful(labels, offsets, weights)
            return Training(state.model, state)
        return Training(LambdaMART(labels, offsets, mode=self.mode, convention=self.convention,
                                    truncation=self.truncation, sigma=self.sigma, normalize=self.normalize,
                                    score_normalization=self.score_normalization, query_weights=weights,
                                    n_threads=self.n_threads))

    def model_for(self, dmat) -> Optional[LambdaMART]:
        """The cached :class:`LambdaMART` of ``dmat`` (built on first use); None with
        ``loss="softndcg"``."""
        return self._training_for(dmat).model

    @property
    def n_plans_built(self) -> int:
        """With ``loss="softndcg"``: how many times training data was read and planned (once
        per DMatrix); 0 otherwise."""
        return 0 if self._soft is None else self._soft.n_plans_built

    @property
    def _model(self) -> Optional[LambdaMART]:
        last = self._trainings.last
        return None if last is None else last.model

    @property
    def _state(self) -> Optional[XGBoostRankNDCG]:
        last = self._trainings.last
        return None if last is None else last.state

    @property
    def t_plus(self) -> Optional[np.ndarray]:
        """Unbiased LambdaMART's t+ per position (after the last round, on the DMatrix of the last call), or None."""
        state = self._state
        return state.t_plus if state is not None and self.unbiased else None

    @property
    def t_minus(self) -> Optional[np.ndarray]:
        """Unbiased LambdaMART's t- per position (after the last round, on the DMatrix of the last call), or None."""
        state = self._state
        return state.t_minus if state is not None and self.unbiased else None

    def __call__(self, predt: np.ndarray, dtrain) -> Tuple[np.ndarray, np.ndarray]:
        """(grad, hess) at the margins ``predt``; ``xgboost.train`` calls ``obj(predt, dtrain)``."""
        training = self._training_for(dtrain)
        if self._soft is not None:
            return training.gradients(predt)
        return training.gradients(np.asarray(predt).reshape(-1), self.n_threads)


class XGBoostSoftNDCGObjective(XGBoostObjective):
    """``XGBoostObjective(loss="softndcg", ...)`` under its former name (deprecated:
    ``fastndcg.XGBoostSoftNDCGObjective`` warns and names the replacement)."""

    def __init__(self, *, sigma: float = 1.0, k: Optional[int] = None, convention: Any = None,
                 max_docs: Optional[int] = None, min_hessian: float = 1e-6,
                 n_threads: Optional[int] = None) -> None:
        super().__init__("softndcg", sigma=sigma, k=k, convention=convention, max_docs=max_docs,
                         min_hessian=min_hessian, n_threads=n_threads)


class XGBoostNDCGMetric:
    """NDCG@k for ``xgboost.train(..., custom_metric=metric)``.

    Parameters
    ----------
    k : int or sequence of int, default 10
        Cutoffs; one result per distinct cutoff, named ``f"{name}@{k}"`` (a
        repeated cutoff is one name).
    convention : Convention or preset name, default :data:`XGBOOST_NDCG`
        How NDCG is computed (XGBoost's own ``ndcg@k`` by default).
    name : str, optional
        The prefix of the names; defaults to ``f"ndcg[{convention.name}]"``.
        ``name="ndcg"`` gives the built-in's names (``ndcg@10``), for early
        stopping and ``evals_result`` code written for it; it is allowed with
        the :data:`XGBOOST_NDCG` convention only (exponential or linear gain,
        as ``ndcg_exp_gain``), so that ``ndcg@k`` is always XGBoost's number.
        Leave ``ndcg@k`` out of ``eval_metric`` then, or both are logged
        under one name.
    n_threads : int, optional
        Threads for the NDCG kernels.

    Notes
    -----
    Per query NDCG as :func:`fastndcg.ndcg`; queries combine as the
    convention's aggregation says, weighted by the DMatrix's group weights.
    Only ``xgboost.train(..., custom_metric=metric)`` can call it:
    ``XGBRanker(eval_metric=...)`` calls a metric once per query and averages
    the values itself (scoring a one-document query 1 without calling it),
    which would not be this convention's number, so such a call is a
    TypeError.
    """

    def __init__(self, k: Union[int, Sequence[int]] = 10, *, convention: Any = XGBOOST_NDCG,
                 name: Optional[str] = None, n_threads: Optional[int] = None) -> None:
        _require_xgboost()
        self.convention = as_convention(convention)
        # one metric per distinct cutoff: a repeated cutoff is one name (f"{name}@{k}")
        self.k: List[int] = [int(k)] if isinstance(k, (int, np.integer)) else distinct_cutoffs([int(x) for x in k])
        NDCGScorer([0], [0, 1], self.k, convention=self.convention.replace(empty="zero"))  # validate k
        self.name = metric_name_prefix(name, self.convention, XGBOOST_NDCG, "XGBoost")
        self.n_threads = n_threads
        self._scorers: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    @property
    def signatures(self) -> List[str]:
        """What each reported ``ndcg@k`` is, completely (:mod:`fastndcg.measures._measurement`):
        the metric ranks the list it is given, so its ideal comes from that list."""
        from fastndcg.measures._measurement import column_signatures

        return column_signatures(self.k, self.convention)

    def _scorer_for(self, dmat) -> NDCGScorer:
        require_dmatrix(dmat)      # before the cache: an array is not a key
        scorer = self._scorers.get(dmat)
        if scorer is None:
            labels, offsets, weights = xgboost_fields(dmat)
            scorer = NDCGScorer(labels, offsets, self.k, convention=self.convention, n_threads=self.n_threads,
                                weights=None if weights is None else weights.astype(np.float64))
            self._scorers[dmat] = scorer
        return scorer

    def values(self, predt: np.ndarray, dmat) -> np.ndarray:
        """The metric per cutoff (float64 array, one entry per k)."""
        out = self._scorer_for(dmat).mean(np.asarray(predt).reshape(-1), n_threads=self.n_threads)
        return np.atleast_1d(np.asarray(out, dtype=np.float64))

    def __call__(self, predt: np.ndarray, dmat) -> List[Tuple[str, float]]:
        return [(f"{self.name}@{k}", float(v)) for k, v in zip(self.k, self.values(predt, dmat))]


__all__ = ["XGBoostNDCGMetric", "XGBoostObjective", "XGBoostSoftNDCGObjective", "XGBOOST_NDCG"]
