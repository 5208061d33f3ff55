"""fastndcg: compiled, exact NDCG and LambdaMART gradients under every convention (a preset
reproduces trec_eval, pytrec_eval, ir_measures, scikit-learn, LightGBM, XGBoost, ...).

One door per input kind. Arrays: :func:`ndcg`, :func:`mean_ndcg` and :class:`NDCGScorer` (also
``dcg``, ``ideal_dcg``, ``rankdcg``, ``soft_ndcg``; LambdaMART's gradients and :class:`LambdaMART`).
Arrays are CSR: ``scores`` and ``labels`` of shape (n_docs,), and ``offsets`` of shape
(n_queries + 1,), where query q owns rows ``offsets[q]:offsets[q+1]``. TREC runs and qrels as
files, dicts or data frames: :func:`evaluate`, and the ir_measures-style pair
:func:`calc_aggregate` / :func:`iter_calc`. The rooms hold the rest: files
(:mod:`fastndcg.io`), streams (:mod:`fastndcg.stream`), Dask, Spark and the libraries
(:mod:`fastndcg.integrations`), reports (:mod:`fastndcg.report`); docs/api.md lists every name.

>>> import fastndcg
>>> scores, labels, offsets = [0.9, 0.1, 0.8, 0.3], [1, 0, 0, 2], [0, 2, 4]   # two queries
>>> fastndcg.ndcg(scores, labels, offsets, k=2).round(4).tolist()
[1.0, 0.6309]
>>> round(fastndcg.mean_ndcg(scores, labels, offsets, k=2, convention="sklearn"), 4)
0.8155
>>> qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d3": 0.2, "d4": 0.7}}
>>> round(fastndcg.evaluate("ndcg_cut.10", qrels, run).by_query["q2"]["ndcg_cut_10"], 4)
0.6309
>>> [round(v, 4) for v in fastndcg.calc_aggregate(["nDCG@10"], qrels, run).values()]
[0.8155]
"""
from fastndcg._version import __version__
from fastndcg._core import faces as _faces

# The headline API (fastndcg.ndcg, fastndcg.Convention, ...) is the imports of __init__.pyi, each
# module imported on first use: `fastndcg eval` and `import fastndcg` load only what they use.
# The other public names are in the rooms' faces (fastndcg.conventions, .measures, .io, .stream, .report,
# .integrations, .reference, .cli).
# The SoftNDCG objectives became a choice of each library's objective (loss="softndcg"):
# their old names still resolve, with a DeprecationWarning naming the replacement.
_SOFT = "loss='softndcg', sigma=..., k=...)"
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__, deprecated={
    "LightGBMSoftNDCGObjective": ("fastndcg.integrations._lightgbm", "LightGBMSoftNDCGObjective",
                                  f"fastndcg.integrations.LightGBMObjective({_SOFT}"),
    "XGBoostSoftNDCGObjective": ("fastndcg.integrations._xgboost", "XGBoostSoftNDCGObjective",
                                 f"fastndcg.integrations.XGBoostObjective({_SOFT}"),
    "SoftNDCGObjective": ("fastndcg.measures._softrank", "SoftNDCGObjective",
                          f"fastndcg.integrations.LightGBMObjective({_SOFT} (in a training, or on arrays as "
                          "objective(labels, preds, weights, group_sizes)) or XGBoostObjective"),
})
