"""The measures, built on :mod:`fastndcg._core`: NDCG/DCG, LambdaMART gradients and their
debiased variants, SoftNDCG, RankDCG, trec_eval's and ir_measures' NDCG family with custom
gains, and the measurement model (a measure, cutoff, convention and topic rule, and its
signature).

The headline functions are public at the top level (``fastndcg.ndcg``, ``fastndcg.mean_ndcg``,
``fastndcg.NDCGScorer``, ``fastndcg.LambdaMART``, ``fastndcg.lambda_gradients``,
``fastndcg.soft_ndcg``, ``fastndcg.evaluate``, ``fastndcg.Measurement``, ...), only there;
this room's public names are the rest, the imports of ``__init__.pyi`` (each module imported
on first use; the code is in private modules, ``_x.py``).
"""
from fastndcg._core import faces as _faces

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
# XGBoostRankNDCG (XGBoost's rank:ndcg state) went to the XGBoost objective, in integrations
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__, deprecated={
    "XGBoostRankNDCG": ("fastndcg.integrations._xgboost_ranking", "XGBoostRankNDCG",
                        "fastndcg.integrations.XGBoostObjective(unbiased=True, pair_method=...) with "
                        "xgboost.train (its state per DMatrix: .t_plus, .t_minus)"),
})
