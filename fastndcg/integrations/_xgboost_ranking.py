"""XGBoost's ``rank:ndcg`` with its round-to-round state, bit for bit: Unbiased LambdaMART
(``lambdarank_unbiased``, ``lambdarank_bias_norm``: position ratios t+ and t- that divide each
pair's lambda, re-estimated every round from the pair costs) and the ``mean`` pair method
(pairs drawn with ``std::minstd_rand`` seeded by the round), XGBoost >= 2.0.

:class:`XGBoostRankNDCG` drives the compiled kernels of :mod:`fastndcg._core._lambdamart`;
the pure-Python specification is in :mod:`fastndcg.reference._lambdamart_debias`.
XGBoost's objective (``fastndcg.integrations.XGBoostObjective``) keeps one per DMatrix
when its settings ask for the state (``pair_method="mean"``, ``unbiased=True``).
"""
from __future__ import annotations

import numbers
from typing import Any, Dict, Optional, Tuple

import numpy as np

from fastndcg._core import _lambdamart
from fastndcg._core.arguments import check_count, check_flag, check_real
from fastndcg.conventions._convention import Convention
from fastndcg.measures._lambdamart_checks import ArrayLike
from fastndcg.measures._lambdamart_model import LambdaMART

#: Pair methods of XGBoost's ``lambdarank_pair_method``.
PAIR_METHODS = ("topk", "mean")
#: XGBoost tracks at most this many positions with the ``mean`` method.
XGBOOST_MEAN_MAX_POSITIONS = 32


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
        sc = model._score_array(scores)
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


__all__ = ["PAIR_METHODS", "XGBoostRankNDCG"]
