"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
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
