"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.integrations._dask import DaskResult, dask_evaluate, partition_by_query
from fastndcg.integrations._ir_measures import ir_measures_provider, register_ir_measures, unregister_ir_measures
from fastndcg.integrations._lightgbm import LightGBMNDCGMetric, LightGBMObjective
from fastndcg.integrations._spark import SparkResult, spark_evaluate
from fastndcg.integrations._xgboost import XGBoostNDCGMetric, XGBoostObjective

__all__ = [
    "LightGBMObjective", "LightGBMNDCGMetric",
    "XGBoostObjective", "XGBoostNDCGMetric",
    "DaskResult", "dask_evaluate", "partition_by_query",
    "SparkResult", "spark_evaluate",
    "ir_measures_provider", "register_ir_measures", "unregister_ir_measures",
]
