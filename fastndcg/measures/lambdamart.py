"""LambdaMART: lambda gradients, hessians and |ΔNDCG| over CSR queries.

Three numeric modes share one kernel layout (:mod:`fastndcg._core._lambdamart`):

* ``"default"``: the logistic in double precision (one exponential per document),
  double accumulation,
  under any :class:`~fastndcg.Convention` (gain, discount, tie rule, short and
  empty rules, ideal list), with σ, score-distance normalisation, list
  normalisation and per-query / per-document weights;
* ``"lightgbm"``: LightGBM 4.x ``objective="lambdarank"`` bit for bit;
* ``"xgboost"``: XGBoost 3.x ``objective="rank:ndcg"`` with
  ``lambdarank_pair_method="topk"`` bit for bit.

The stateful variants (position debiasing, XGBoost's ``mean`` pairs) are in
:mod:`fastndcg.measures.debias`. The kernels come in two builds of the same code
(``_lambdamart`` and, on x86-64, ``_lambdamart_avx2``, used when the CPU has
AVX2); both give the same bits. The pure-Python specification is
:mod:`fastndcg.reference._lambdamart`.

One module per job: :mod:`.lambdamart_checks` (modes, argument checks, the kernel build, results),
:mod:`.lambdamart_model` (:class:`LambdaMART`), :mod:`.lambdamart_functions` (one-shot calls and
the research API). This module re-exports their public names.
"""
from fastndcg.measures.lambdamart_checks import (ArrayLike, DEFAULT_TRUNCATION, DeltaNDCGPairs,  # noqa: F401
                                                 LIGHTGBM_DEFAULT_LABELS, LIGHTGBM_MAX_LINEAR_LABEL, MODES,
                                                 Truncation, XGBOOST_MAX_LABEL, _check_flag,
                                                 check_mode, _lambdamart)
from fastndcg.measures.lambdamart_model import (LambdaMART)  # noqa: F401
from fastndcg.measures.lambdamart_functions import (delta_ndcg_matrix, delta_ndcg_pairs, lambda_gradients)  # noqa: F401
from fastndcg._core import _lambdamart as _baseline  # noqa: F401  (the baseline build)
