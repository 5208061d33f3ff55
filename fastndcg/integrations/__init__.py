"""Other libraries: train LightGBM and XGBoost for an NDCG and report it while they train,
evaluate Dask and Spark DataFrames, and serve ir_measures' NDCG.

One objective and one metric per library: :class:`LightGBMObjective` /
:class:`XGBoostObjective` (``loss="lambdamart"``, the library's own LambdaMART bit for
bit, or ``loss="softndcg"``) and :class:`LightGBMNDCGMetric` / :class:`XGBoostNDCGMetric`
(NDCG@k under any convention). One door per data-frame engine: :func:`dask_evaluate`
(with :func:`partition_by_query` to lay a Dask DataFrame out for training) and
:func:`spark_evaluate`, each giving per-query values and the aggregate. The ir_measures
provider: :func:`register_ir_measures`, :func:`unregister_ir_measures`,
:func:`ir_measures_provider`. Each private module imports its library lazily, so importing
this room imports none of them; the public names are the imports of ``__init__.pyi``, each
module imported on first use.

Example
-------
>>> import numpy as np
>>> from fastndcg.integrations import LightGBMObjective, LightGBMNDCGMetric
>>> y, preds, sizes = np.array([2.0, 0.0, 1.0]), np.array([0.1, 0.5, 0.3]), np.array([3])
>>> objective = LightGBMObjective("softndcg", sigma=1.0, k=10)  # lightgbm.train(params={"objective": objective})
>>> grad, hess = objective(y, preds, None, sizes)          # as LGBMRanker calls it
>>> grad.shape
(3,)
>>> LightGBMNDCGMetric(3)(y, preds, None, sizes)[0][0]     # feval= / eval_metric=
'ndcg[lightgbm]@3'
"""
from fastndcg._core import faces as _faces

_DASK, _SPARK = "fastndcg.integrations._dask", "fastndcg.integrations._spark"
# names that left the face: they still resolve, with a DeprecationWarning naming the replacement
_DEPRECATED = {
    "LightGBMLambdarankObjective": ("fastndcg.integrations._lightgbm", "LightGBMObjective",
                                    "fastndcg.integrations.LightGBMObjective (loss='lambdamart', the default)"),
    "XGBoostRankNDCGObjective": ("fastndcg.integrations._xgboost", "XGBoostObjective",
                                 "fastndcg.integrations.XGBoostObjective (loss='lambdamart', the default)"),
    "XGBOOST_NDCG": ("fastndcg.integrations._xgboost", "XGBOOST_NDCG",
                     "convention='xgboost' (fastndcg.get_preset('xgboost'))"),
    "dask_ndcg": (_DASK, "dask_ndcg", "fastndcg.integrations.dask_evaluate(...).per_query"),
    "dask_mean_ndcg": (_DASK, "dask_mean_ndcg", "fastndcg.integrations.dask_evaluate(..., persist=False).mean"),
    "spark_ndcg": (_SPARK, "spark_ndcg", "fastndcg.integrations.spark_evaluate(...).per_query"),
    "spark_mean_ndcg": (_SPARK, "spark_mean_ndcg", "fastndcg.integrations.spark_evaluate(...).mean"),
}

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__, deprecated=_DEPRECATED)
