"""Other libraries: LightGBM and XGBoost objectives and metrics, Dask and Spark evaluation,
the ir_measures provider. Each name carries its library's name; each private module imports
its library lazily, so importing this room imports none of them.
"""
from fastndcg.integrations._dask import DaskResult, dask_evaluate, dask_mean_ndcg, dask_ndcg, partition_by_query
from fastndcg.integrations._ir_measures import ir_measures_provider, register_ir_measures, unregister_ir_measures
from fastndcg.integrations._lightgbm import LightGBMLambdarankObjective, LightGBMNDCGMetric
from fastndcg.integrations._spark import SparkResult, spark_evaluate, spark_mean_ndcg, spark_ndcg
from fastndcg.integrations._xgboost import XGBOOST_NDCG, XGBoostNDCGMetric, XGBoostRankNDCGObjective

__all__ = [
    "LightGBMLambdarankObjective", "LightGBMNDCGMetric",
    "XGBOOST_NDCG", "XGBoostNDCGMetric", "XGBoostRankNDCGObjective",
    "DaskResult", "dask_evaluate", "dask_mean_ndcg", "dask_ndcg", "partition_by_query",
    "SparkResult", "spark_evaluate", "spark_mean_ndcg", "spark_ndcg",
    "ir_measures_provider", "register_ir_measures", "unregister_ir_measures",
]
