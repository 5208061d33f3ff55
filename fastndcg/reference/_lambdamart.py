"""Pure-Python reference for LambdaMART gradients: the readable spec.

Plain Python, one query and one pair at a time, written for clarity (numpy
only for float32 scalars and array conversion; the C library only for
``expf``, which Python lacks). No compiled fastndcg module is used. The
compiled kernels of :mod:`fastndcg.measures.lambdamart` are tested against it.

For one query, documents are ranked by score, descending; equal scores keep
their input order (or follow the convention's tie rule in default mode).
r is the 0-based rank, G the gain, D(r) the discount at 0-based rank r
(``1/log2(r+2)`` by default), T the truncation and IDCG@T the ideal DCG.
Every pair (h, l) with a larger gain (label, in the exact modes) for h and
min(r_h, r_l) < T contributes

* |ΔNDCG_hl| = (G_h - G_l) · |D(r_h) - D(r_l)| / IDCG@T,
  divided by (0.01 + |s_h - s_l|) with score normalisation (unless all of the
  query's scores are equal);
* ρ = 1 / (1 + exp(σ (s_h - s_l)));
* λ_hl = -σ |ΔNDCG_hl| ρ: grad_h += λ_hl, grad_l -= λ_hl;
* σ² |ΔNDCG_hl| ρ (1 - ρ) to both hessians (twice that in XGBoost);

then, with list normalisation, every value is scaled by log2(1 + S) / S,
S = Σ 2|λ_hl|; then weights apply. The three modes differ in arithmetic:

* ``default``: double precision; ρ = u_l / (u_h + u_l) from the documents'
  u = e^{-σ (s_pivot - s)} (``pair_logistic``; the pivot is rank 0, moved to
  the current row when its u drops below 2**-64), exact but for rounding;
* ``lightgbm``: LightGBM 4.x lambdarank — ρ from a 2**20-bin table,
  float32 accumulation in pair-loop order, ``0.01f``, IDCG by label order;
* ``xgboost``: XGBoost 3.x rank:ndcg topk — float32 scores, ``expf``,
  hessian 2 ρ(1-ρ)|ΔNDCG|, float32 scaling, group weights × n/Σw.

The spec in three modules: :mod:`._lambdamart_query` (the pieces and one query in each mode),
:mod:`._lambdamart_debias` (XGBoost's mean pairs, position debiasing), :mod:`._lambdamart_batches`
(CSR batches, weights, the pair API). This module re-exports them.
"""
from fastndcg.reference._lambdamart_query import (DEFAULT_TRUNCATION, MODES, SIGMOID_BINS, Unbiased, inverse_or_zero,  # noqa: F401
                                                  ndcg_spec, discount, expf, f32, gain, ideal_dcg,
                                                  lightgbm_sigmoid, pair_logistic, query_lambdas_default,
                                                  query_lambdas_lightgbm, query_lambdas_xgboost, ranking,
                                                  xgboost_pair, xgboost_sigmoid)
from fastndcg.reference._lambdamart_debias import (MinstdRand, lightgbm_position_bias_update, mean_pairs,  # noqa: F401
                                                   position_ids, query_lambdas_xgboost_mean, uniform_int,
                                                   xgboost_position_bias_update)
from fastndcg.reference._lambdamart_batches import (delta_ndcg_pairs, lambda_gradients,  # noqa: F401
                                                    xgboost_lambda_gradients)
