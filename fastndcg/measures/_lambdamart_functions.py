"""One-shot LambdaMART calls (:func:`lambda_gradients`) and the research API: every pair's
|ΔNDCG| (:func:`delta_ndcg_pairs`, :func:`delta_ndcg_matrix`)."""
from __future__ import annotations
from typing import Any, Optional, Tuple

import numpy as np

from fastndcg._core.query_checks import check_lengths_agree, check_offsets
from fastndcg.measures._lambdamart_checks import ArrayLike, DEFAULT_TRUNCATION, DeltaNDCGPairs, MODES, Truncation
from fastndcg.measures._lambdamart_model import LambdaMART


# ----------------------------------------------------------------------------- one-shot functions


def lambda_gradients(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, *,
                     mode: str = "default", convention: Any = None, truncation: Truncation = "auto",
                     sigma: float = 1.0, normalize: bool = True, score_normalization: bool = True,
                     query_weights: Optional[ArrayLike] = None,
                     sample_weights: Optional[ArrayLike] = None, tie_key: Optional[ArrayLike] = None,
                     grad_out: Optional[np.ndarray] = None, hess_out: Optional[np.ndarray] = None,
                     n_threads: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """LambdaMART gradient and hessian per document over CSR queries.

    Parameters
    ----------
    scores : array of shape (n_docs,)
        Current model scores; float32 and float64 are used as given, other
        numbers become float64. Must be finite.
    labels : array of shape (n_docs,)
        Relevance labels (integers for exponential or table gains).
    offsets : int array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``; empty queries allowed.
    mode, convention, truncation, sigma, normalize, score_normalization, query_weights, sample_weights, tie_key
        See :class:`LambdaMART`.
    grad_out, hess_out : ndarray, optional
        Output arrays (see :meth:`LambdaMART.gradients`).
    n_threads : int, optional
        OpenMP threads (None: the CPUs other work does not hold now, see
        :func:`fastndcg.effective_n_threads`). Results are bit-identical for any value.

    Returns
    -------
    (grad, hess) : tuple of ndarray of shape (n_docs,)
        The scores' dtype in default mode, float32 in the exact modes.

    Notes
    -----
    For each pair (h, l) of a query with G(l_h) > G(l_l) and min(r_h, r_l) < T,
    where r is the 0-based rank under the current scores:
    ρ = 1 / (1 + exp(σ (s_h - s_l))),
    |ΔNDCG_hl| = (G_h - G_l) |D(r_h) - D(r_l)| / IDCG@T (÷ (0.01 + |s_h - s_l|)
    with score normalisation), λ_hl = -σ |ΔNDCG_hl| ρ added to grad_h and
    subtracted from grad_l, σ² |ΔNDCG_hl| ρ (1 - ρ) added to both hessians;
    then ×log2(1 + S)/S with S = Σ 2|λ_hl| (list normalisation) and ×weights.
    A query whose ideal DCG is 0, or with one document, gets zeros.
    Tie rule: documents with equal scores are ranked in their original order
    within the query (or as the convention's ``ties`` says).

    Examples
    --------
    >>> import numpy as np
    >>> from fastndcg import lambda_gradients
    >>> g, h = lambda_gradients(np.zeros(3), [2, 0, 1], [0, 3], normalize=False)
    >>> bool(g[0] < 0 < g[1])     # push the relevant document up, the other down
    True
    >>> float(abs(g.sum())) < 1e-15
    True

    See Also
    --------
    LambdaMART : the same with the ideal DCG cached across boosting rounds.
    fastndcg.reference.lambda_gradients : the pure-Python specification.
    """
    labels_arr = np.asarray(labels)
    if labels_arr.ndim != 1:
        raise ValueError(f"labels must be 1-D; got an array of shape {labels_arr.shape}")
    sc_raw = np.asarray(scores)
    if sc_raw.ndim != 1:
        raise ValueError(f"scores must be 1-D; got an array of shape {sc_raw.shape}")
    check_lengths_agree(sc_raw, labels_arr, offsets)
    off = check_offsets(offsets, sc_raw.shape[0])
    model = LambdaMART.__new__(LambdaMART)
    model._validate(labels_arr, off, mode, convention, truncation, sigma, normalize,
                    score_normalization, query_weights, sample_weights, tie_key, other="scores",
                    n_threads=n_threads)
    sc = model._score_array(sc_raw)
    grad, hess = model._check_outputs(sc, grad_out, hess_out)
    model._compute_ideal(n_threads)
    model._run(sc, grad, hess, n_threads)
    return grad, hess


def delta_ndcg_pairs(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, *,
                     queries: Optional[ArrayLike] = None, convention: Any = None,
                     truncation: Optional[int] = None, cut_discount: bool = False,
                     tie_key: Optional[ArrayLike] = None,
                     n_threads: Optional[int] = None) -> DeltaNDCGPairs:
    """|ΔNDCG| of the LambdaMART pairs of some queries, under any convention.

    For each query, the pairs (h, l) with G(l_h) > G(l_l) and min(r_h, r_l) < T
    (T = ``truncation``; None: the whole list) and
    |ΔNDCG_hl| = (G_h - G_l) · |D(r_h) - D(r_l)| / IDCG@T, r being 0-based ranks
    under ``scores`` with the convention's tie rule (input order by default).
    ``cut_discount=True`` sets D(r) = 0 for r >= T: then |ΔNDCG_hl| is the exact
    change of NDCG@T when h and l swap. See :meth:`LambdaMART.delta_ndcg_pairs`.
    """
    _lengths_agree(scores, labels, offsets)
    model = LambdaMART(labels, offsets, convention=convention, truncation=truncation,
                       tie_key=tie_key, n_threads=n_threads)
    return model.delta_ndcg_pairs(scores, queries, cut_discount=cut_discount, n_threads=n_threads)


def delta_ndcg_matrix(scores: ArrayLike, labels: ArrayLike, offsets: Optional[ArrayLike] = None, *,
                      query: int = 0, convention: Any = None, truncation: Optional[int] = None,
                      cut_discount: bool = False, tie_key: Optional[ArrayLike] = None) -> np.ndarray:
    """The symmetric |ΔNDCG| matrix of one query, shape (n, n), in input order.

    ``offsets=None`` treats all of ``scores`` as one query. Entry [a, b] is
    |ΔNDCG| of documents a and b (0 where the pair does not count); see
    :func:`delta_ndcg_pairs` for the definition.

    Examples
    --------
    >>> from fastndcg import delta_ndcg_matrix
    >>> delta_ndcg_matrix([3.0, 2.0, 1.0], [0, 1, 0]).round(4)
    array([[0.    , 0.3691, 0.    ],
           [0.3691, 0.    , 0.1309],
           [0.    , 0.1309, 0.    ]])
    """
    if offsets is None:
        offsets = [0, len(np.asarray(scores))]
    _lengths_agree(scores, labels, offsets)
    model = LambdaMART(labels, offsets, convention=convention, truncation=truncation, tie_key=tie_key)
    return model.delta_ndcg_matrix(scores, query, cut_discount=cut_discount)


def _lengths_agree(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike) -> None:
    """The one length rule (:func:`check_lengths_agree`) before the model is
    built from the labels alone; other shapes are left to the model's checks."""
    sc, lab = np.asarray(scores), np.asarray(labels)
    if sc.ndim == 1 and lab.ndim == 1:
        check_lengths_agree(sc, lab, offsets)


__all__ = ["DEFAULT_TRUNCATION", "DeltaNDCGPairs", "LambdaMART", "MODES", "delta_ndcg_matrix",
           "delta_ndcg_pairs", "lambda_gradients"]
