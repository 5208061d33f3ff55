"""Position-debiased LambdaMART with LightGBM's scheme, bit for bit.

Click logs say which shown documents were clicked, and users click the top
of a list more whatever its content. LightGBM >= 4.1 (``Dataset(position=)``,
``lambdarank_position_bias_regularization``) corrects for that with one additive
bias factor b_p per displayed position p, learned alongside the trees:
:class:`PositionBiasedLambdaMART` keeps it between boosting rounds. Each round the
gradients are computed at the scores s_i + b_{p_i}, then every factor takes a
Newton step on those gradients (see :meth:`PositionBiasedLambdaMART.gradients`).
XGBoost's scheme (Unbiased LambdaMART, the ``mean`` pair method) is XGBoost's
objective's state, in ``fastndcg/integrations/_xgboost_ranking.py``.

It drives the compiled kernels of :mod:`fastndcg._core._lambdamart` and reproduces
LightGBM's objective to the bit (``mode="lightgbm"``);
the pure-Python specification is in :mod:`fastndcg.reference._lambdamart_debias`. The
LightGBM objective (``fastndcg.integrations.LightGBMObjective``) uses it when the
Dataset has positions.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from fastndcg._core import _lambdamart
from fastndcg._core.query_checks import check_tie_key
from fastndcg._core.arguments import check_flag, check_real
from fastndcg.measures._lambdamart_checks import ArrayLike
from fastndcg.measures._lambdamart_model import LambdaMART


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
        sc = model._score_array(scores)
        grad, hess = model._check_outputs(sc, grad_out, hess_out)
        model._run(sc, grad, hess, n_threads, positions=self._ids, position_bias=self._factors)
        if check_flag(update, "update"):
            _lambdamart.lightgbm_position_bias_update(grad, hess, self._ids, self._factors,
                                                      self.regularization, self.learning_rate)
            self.rounds += 1
        return grad, hess

    __call__ = gradients


__all__ = ["PositionBiasedLambdaMART", "position_ids"]
