"""Position-debiased LambdaMART: LightGBM's and XGBoost's schemes, bit for bit.

Click logs say which shown documents were clicked, and users click the top
of a list more whatever its content. Both libraries correct for that with
state learned alongside the trees; this module keeps that state between
boosting rounds:

* :class:`PositionBiasedLambdaMART` — LightGBM >= 4.1 (``Dataset(position=)``,
  ``lambdarank_position_bias_regularization``): one additive bias factor b_p
  per displayed position p. Each round the gradients are computed at the
  scores s_i + b_{p_i}, then every factor takes a Newton step on those
  gradients (see :meth:`PositionBiasedLambdaMART.gradients`).
* :class:`XGBoostRankNDCG` — XGBoost >= 2.0 ``rank:ndcg`` with its state:
  Unbiased LambdaMART (``lambdarank_unbiased``, ``lambdarank_bias_norm``:
  position ratios t+ and t- that divide each pair's lambda, re-estimated
  every round from the pair costs) and the ``mean`` pair method (pairs drawn
  with ``std::minstd_rand`` seeded by the round).

Both drive the compiled kernels of :mod:`fastndcg._core._lambdamart` and reproduce
the libraries' objectives to the bit (``mode="lightgbm"`` / ``"xgboost"``);
the pure-Python specification is in :mod:`fastndcg.reference._lambdamart_debias`. The
LightGBM and XGBoost objectives (:mod:`fastndcg.integrations._lightgbm`,
:mod:`fastndcg.integrations._xgboost`) use them when the training data asks for it.
"""
from __future__ import annotations

import numbers
from typing import Any, Dict, Optional, Tuple

import numpy as np

from fastndcg._core import _lambdamart
from fastndcg.conventions._convention import Convention
from fastndcg._core.validation import check_tie_key
from fastndcg._core.arguments import check_count, check_flag, check_real
from fastndcg.measures._lambdamart_checks import ArrayLike
from fastndcg.measures._lambdamart_model import LambdaMART

#: Pair methods of XGBoost's ``lambdarank_pair_method``.
PAIR_METHODS = ("topk", "mean")
#: XGBoost tracks at most this many positions with the ``mean`` method.
XGBOOST_MEAN_MAX_POSITIONS = 32


def position_ids(positions: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Number the distinct positions in order of first appearance, as LightGBM does.

    Parameters
    ----------
    positions : int array of shape (n_docs,)
        The displayed position of each row.

    Returns
    -------
    (ids, values) : tuple of ndarray
        ``ids`` (int32, per row) indexes ``values`` (int64, the raw position of
        each id): ``values[ids] == positions``.
    """
    values, first, inverse = np.unique(positions, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    id_of = np.empty(values.shape[0], dtype=np.int32)
    id_of[order] = np.arange(values.shape[0], dtype=np.int32)
    return np.ascontiguousarray(id_of[inverse.reshape(-1)]), values[order].astype(np.int64)


# ----------------------------------------------------------------------------- LightGBM


class PositionBiasedLambdaMART:
    """LambdaMART with LightGBM's position-bias factors, carried across rounds.

    Parameters
    ----------
    labels, offsets
        As :class:`fastndcg.LambdaMART` (clicks or graded labels).
    positions : int array of shape (n_docs,)
        The position at which each document was displayed (any integers;
        numbered in order of first appearance, as LightGBM numbers them).
    regularization : float, default 0.0
        LightGBM ``lambdarank_position_bias_regularization`` (L2 on the factors).
    learning_rate : float, default 0.1
        The boosting learning rate (LightGBM scales the factor step by it).
    mode : {"lightgbm", "default", "xgboost"}, default "lightgbm"
        The gradient arithmetic (``"lightgbm"`` reproduces LightGBM).
    **options
        Any other :class:`~fastndcg.LambdaMART` argument
        (``convention``, ``truncation``, ``sigma``, ``sample_weights``, ...).

    Notes
    -----
    Round t, with float32 factors b (all 0 at first) and p_i the position id
    of row i:

    1. s'_i = s_i + b_{p_i} (in double); (g, h) = the LambdaMART gradients
       at s' (with the weights); the trees are fitted to these;
    2. for each position p, over its n_p rows in row order,
       G1 = -Σ g_i - b_p · reg · n_p and G2 = -Σ h_i - reg · n_p (double), and
       b_p ← f32(b_p + learning_rate · G1 / (|G2| + 0.001)).

    The factors estimate how much a position lifts a document's score. They
    are float32, as in LightGBM. This object sums in row order, for any
    ``n_threads``: LightGBM's order with ``num_threads=1``. LightGBM with more
    threads sums per-thread buffers in an order that follows its schedule;
    the float32 rounding of the factors almost always hides that, but it is
    not guaranteed.

    Tie rule: documents with equal shifted scores keep their input order
    (or follow the convention's ``ties`` in default mode).
    """

    def __init__(self, labels: ArrayLike, offsets: ArrayLike, positions: ArrayLike, *,
                 regularization: float = 0.0, learning_rate: float = 0.1, mode: str = "lightgbm",
                 **options: Any) -> None:
        self.model = LambdaMART(labels, offsets, mode=mode, **options)
        pos = check_tie_key(positions, self.model.n_docs, name="positions")
        self._ids, self.position_values = position_ids(pos)
        self.regularization = check_real(regularization, "regularization")
        self.learning_rate = check_real(learning_rate, "learning_rate")
        self._factors = np.zeros(self.position_values.shape[0], dtype=np.float32)
        self.rounds = 0

    @property
    def position_factors(self) -> np.ndarray:
        """The float32 bias factor of each position id (a copy); see :attr:`position_values`."""
        return self._factors.copy()

    @property
    def position_ids(self) -> np.ndarray:
        """The position id of each row (int32; positions numbered by first appearance)."""
        return self._ids.copy()

    def factor_of(self, position: int) -> float:
        """The current factor of a raw position value."""
        hit = np.flatnonzero(self.position_values == position)
        if hit.size == 0:
            raise KeyError(f"position {position!r} does not occur in the training data")
        return float(self._factors[hit[0]])

    def reset(self) -> None:
        """Back to round 0: every factor 0."""
        self._factors[:] = 0.0
        self.rounds = 0

    def gradients(self, scores: ArrayLike, *, grad_out: Optional[np.ndarray] = None,
                  hess_out: Optional[np.ndarray] = None, n_threads: Optional[int] = None,
                  update: bool = True) -> Tuple[np.ndarray, np.ndarray]:
        """The gradients at s + b_position, then (``update=True``) one factor update.

        Parameters
        ----------
        scores : array of shape (n_docs,)
            The model's current scores (without the position factors).
        grad_out, hess_out, n_threads
            As :meth:`fastndcg.LambdaMART.gradients`.
        update : bool, default True
            Take the round's Newton step on the factors (LightGBM does, every
            round); False leaves them (and :attr:`rounds`) unchanged.

        Returns
        -------
        (grad, hess) : tuple of ndarray
            The gradients the round's tree is fitted to. Tie rule: the
            model's (input order for LightGBM), on the shifted scores.
        """
        model = self.model
        sc = model._check_scores(scores, n_threads)
        grad, hess = model._check_outputs(sc, grad_out, hess_out)
        model._run(sc, grad, hess, n_threads, positions=self._ids, position_bias=self._factors)
        if check_flag(update, "update"):
            _lambdamart.lightgbm_position_bias_update(grad, hess, self._ids, self._factors,
                                                      self.regularization, self.learning_rate)
            self.rounds += 1
        return grad, hess

    __call__ = gradients


# ----------------------------------------------------------------------------- XGBoost


class XGBoostRankNDCG:
    """XGBoost's ``rank:ndcg`` with its round-to-round state, bit for bit.

    Parameters
    ----------
    labels, offsets
        Relevance labels (clicks) and query boundaries. With ``unbiased``,
        the rows of each query must be in displayed order (XGBoost takes a
        document's index in its group as its position).
    pair_method : {"topk", "mean"}, default "topk"
        XGBoost ``lambdarank_pair_method``.
    num_pair_per_sample : int, optional
        ``lambdarank_num_pair_per_sample``: the truncation k of topk (32 by
        default), or the pairs drawn per document with mean (1 by default).
    unbiased : bool, default False
        ``lambdarank_unbiased``: Unbiased LambdaMART's position ratios.
    bias_norm : float, default 1.0
        ``lambdarank_bias_norm``: the ratios are (L_i / L_0)^(1 / (1 + bias_norm)).
    normalize, score_normalization : bool, default True
        ``lambdarank_normalization``, ``lambdarank_score_normalization``.
    gain : {"exponential", "linear"}, default "exponential"
        ``ndcg_exp_gain`` True / False.
    query_weights : array of shape (n_queries,), optional
        Group weights (normalised to mean 1, as XGBoost does).
    iteration : int, default 0
        The boosting round of the next call (the mean method's seed); counts
        up by one per call. Set it when resuming training.
    seed_offset : {1, 0}, default 1
        The mean method's seed is (iteration + seed_offset) · n_groups + g:
        1 in XGBoost 3.1-3.3, 0 in 3.0.
    n_threads : int, optional
        Threads for the ideal DCG computation.

    Notes
    -----
    Unbiased LambdaMART (Hu et al. 2019) as XGBoost implements it. With
    K = k (topk) or min(largest group, 32) (mean), t+ = t- = 1 (K entries) at
    first. For every pair (h, l) of a round, with i_h, i_l the two documents'
    positions in their group, ρ the (float32) sigmoid of s_h - s_l and |ΔZ|
    its (normalised) |ΔNDCG|:

    * cost = log(1 / (1 - ρ)) · |ΔZ|;
    * if i_h, i_l < K: λ and the hessian are divided by t+[i_h] · t-[i_l]
      (when both are >= 1e-16), L[i_h] += cost / t-[i_l] and
      M[i_l] += cost / t+[i_h];

    after the round, t+_i = (L_i / L_0)^(1/(1+bias_norm)) and
    t-_i = (M_i / M_0)^(1/(1+bias_norm)) (L, M summed over groups in order;
    a ratio stays as it was when L_0 or M_0 < 1e-16).

    ``mean`` draws, for each group g, from ``std::minstd_rand`` seeded with
    (iteration + 1) · n_groups + g (mod 2^32; XGBoost 3.1-3.3), with
    libstdc++'s ``uniform_int_distribution``; see
    :func:`fastndcg.reference._lambdamart_debias.mean_pairs`. XGBoost 3.4 draws the seed
    from the booster's own random engine instead, which an objective outside
    XGBoost cannot follow.
    """

    model: LambdaMART
    iteration: int
    _t_plus: np.ndarray
    _t_minus: np.ndarray
    _li: np.ndarray
    _lj: np.ndarray

    def __init__(self, labels: ArrayLike, offsets: ArrayLike, *, pair_method: str = "topk",
                 num_pair_per_sample: Optional[int] = None, unbiased: bool = False,
                 bias_norm: float = 1.0, normalize: bool = True, score_normalization: bool = True,
                 gain: Any = "exponential", query_weights: Optional[ArrayLike] = None,
                 iteration: int = 0, seed_offset: int = 1, n_threads: Optional[int] = None) -> None:
        if pair_method not in PAIR_METHODS:
            raise ValueError(f"pair_method must be one of {PAIR_METHODS}; got {pair_method!r}")
        self.pair_method = pair_method
        topk = pair_method == "topk"
        default_pairs = 32 if topk else 1
        self.num_pair_per_sample = (default_pairs if num_pair_per_sample is None
                                    else check_count(num_pair_per_sample, "num_pair_per_sample"))
        self.unbiased = check_flag(unbiased, "unbiased")
        self.bias_norm = check_real(bias_norm, "bias_norm")
        if gain not in ("exponential", "linear"):
            raise ValueError(f"gain must be 'exponential' or 'linear' (ndcg_exp_gain); got {gain!r}")
        if seed_offset not in (0, 1):
            raise ValueError(f"seed_offset must be 1 (XGBoost 3.1-3.3) or 0 (3.0); got {seed_offset!r}")
        self.seed_offset = int(seed_offset)
        if isinstance(iteration, (bool, np.bool_)) or not isinstance(iteration, (numbers.Integral, np.integer)) \
                or iteration < 0:
            raise ValueError(f"iteration must be an int >= 0; got {iteration!r}")
        self.iteration = int(iteration)
        self.model = LambdaMART(labels, offsets, mode="xgboost", convention=Convention(gain=gain),
                                truncation=self.num_pair_per_sample if topk else None,
                                normalize=normalize, score_normalization=score_normalization,
                                query_weights=query_weights, n_threads=n_threads)
        if not topk and self.model._max_n >= (1 << 31) - 2:
            raise ValueError("pair_method='mean' supports groups of fewer than 2**31 - 2 documents")
        k = self.num_pair_per_sample if topk else min(self.model._max_n, XGBOOST_MEAN_MAX_POSITIONS)
        self._t_plus = np.ones(k)
        self._t_minus = np.ones(k)
        n = self.model.n_docs if self.unbiased else 0
        self._li = np.zeros(n)
        self._lj = np.zeros(n)

    @property
    def t_plus(self) -> np.ndarray:
        """t+ per position (float64, K entries): the bias ratio of clicked documents."""
        return self._t_plus.copy()

    @property
    def t_minus(self) -> np.ndarray:
        """t- per position (float64, K entries): the bias ratio of unclicked documents."""
        return self._t_minus.copy()

    def reset(self) -> None:
        """Back to round 0: ratios 1, iteration 0."""
        self._t_plus[:] = 1.0
        self._t_minus[:] = 1.0
        self.iteration = 0

    def gradients(self, scores: ArrayLike, *, grad_out: Optional[np.ndarray] = None,
                  hess_out: Optional[np.ndarray] = None,
                  n_threads: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
        """float32 gradient and hessian of round :attr:`iteration`, then the state update.

        Parameters
        ----------
        scores : array of shape (n_docs,)
            The model's margins (XGBoost hands float32 predictions).
        grad_out, hess_out, n_threads
            As :meth:`fastndcg.LambdaMART.gradients`.

        Returns
        -------
        (grad, hess) : tuple of ndarray
            As XGBoost computes them (see the class notes). Tie rule: equal
            float32 scores keep the input order.
        """
        model = self.model
        sc = model._check_scores(scores, n_threads)
        grad, hess = model._check_outputs(sc, grad_out, hess_out)
        state: Dict[str, Any] = dict(mean_pairs=self.pair_method == "mean", num_pair=self.num_pair_per_sample,
                     seed_round=(self.iteration + self.seed_offset) % (1 << 32))
        if self.unbiased:
            state.update(t_plus=self._t_plus, t_minus=self._t_minus, li_rows=self._li, lj_rows=self._lj)
        model._run(sc, grad, hess, n_threads, **state)
        if self.unbiased:
            _lambdamart.xgboost_position_bias_update(self._li, self._lj, model.offsets, self._t_plus,
                                                     self._t_minus, self.bias_norm)
        self.iteration += 1
        return grad, hess

    __call__ = gradients


__all__ = ["PAIR_METHODS", "PositionBiasedLambdaMART", "XGBoostRankNDCG", "position_ids"]
