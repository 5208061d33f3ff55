"""The measures beyond the headline API: LambdaMART debiased by position, SoftRank's rank
distributions, and the measure strings (trec_eval's ``ndcg_cut.10``, ir_measures' ``nDCG@10``)
with their errors and warnings.

The headline functions are public at the top level, only there: arrays (``fastndcg.ndcg``,
``mean_ndcg``, ``NDCGScorer``, ``rankdcg``, ``soft_ndcg``), LambdaMART (``fastndcg.LambdaMART``,
``lambda_gradients``), TREC runs and qrels as files, dicts or data frames (``fastndcg.evaluate``
and the ir_measures-style pair ``calc_aggregate`` / ``iter_calc``) and the measurement model
(``fastndcg.Measurement``, ``from_signature``, ``measurement``).

>>> import fastndcg.measures
>>> fastndcg.measures.parse_measures(["ndcg_cut.5,10", "nDCG@10"])
[ndcg_cut_5, ndcg_cut_10, nDCG@10]
>>> d = fastndcg.measures.soft_rank_distributions([2.0, 1.0, 0.0], [0, 3], sigma=0.5)
>>> d[0].round(3).tolist()              # P(rank of document 0 = 1, 2, 3)
[0.919, 0.081, 0.0]

The public names are the imports of ``__init__.pyi``, each module imported on first use (the code
is in private modules, ``_x.py``). Names that left this face and were documented still resolve
for a while, with a DeprecationWarning naming what to use instead.
"""
from fastndcg._core import faces as _faces

_EVALUATE = "fastndcg.evaluate(measures, qrels, run)"
_RUN = "(qrels and run as files, dicts or data frames; trec_eval's gains as 'ndcg.1=3,2=9')"
#: names that left the face, documented before: (private module, name there, what to use instead)
_DEPRECATED = {
    # XGBoost's rank:ndcg state went to the XGBoost objective, in integrations
    "XGBoostRankNDCG": ("fastndcg.integrations._xgboost_ranking", "XGBoostRankNDCG",
                        "fastndcg.integrations.XGBoostObjective(unbiased=True, pair_method=...) with "
                        "xgboost.train (its state per DMatrix: .t_plus, .t_minus)"),
    "rankdcg": ("fastndcg.measures._rankdcg", "rankdcg", "fastndcg.rankdcg"),
    # one door for a TREC run: evaluate (and the ir_measures-style pair)
    "evaluate_trec": ("fastndcg.measures._trec_measures", "evaluate_trec", f"{_EVALUATE} {_RUN}"),
    "aligned_ndcg": ("fastndcg.measures._aligned", "aligned_ndcg",
                     f"{_EVALUATE}.values (per query) {_RUN}"),
    "aligned_mean_ndcg": ("fastndcg.measures._aligned", "aligned_mean_ndcg",
                          f"fastndcg.calc_aggregate(measures, qrels, run) {_RUN}"),
    "calc": ("fastndcg.measures._evaluation", "calc",
             f"{_EVALUATE} (.aggregated and .per_query), or fastndcg.calc_aggregate / fastndcg.iter_calc"),
    "GainSpec": ("fastndcg.measures._trec_gain_specs", "GainSpec",
                 "gains as a 'LEVEL=GAIN,...' string or a {level: gain} mapping"),
}

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__, deprecated=_DEPRECATED)
