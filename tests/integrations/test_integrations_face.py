"""The integrations face (fastndcg/integrations/__init__.py): one objective and one metric per
library, one door per data-frame engine, the ir_measures provider; the names that left it (and
the SoftNDCG objectives that left the top level) still resolve, with a warning naming the
replacement; no integration module imports its library when imported."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import fastndcg
import fastndcg.integrations
import fastndcg.measures
from fastndcg.integrations import LightGBMObjective, XGBoostObjective

FACE = ["DaskResult", "LightGBMNDCGMetric", "LightGBMObjective", "SparkResult", "XGBoostNDCGMetric",
        "XGBoostObjective", "dask_evaluate", "ir_measures_provider", "partition_by_query",
        "register_ir_measures", "spark_evaluate", "unregister_ir_measures"]
LIBRARIES = {"lightgbm", "xgboost", "dask", "distributed", "pyspark", "ir_measures", "pandas", "pyarrow"}


def test_the_face_has_one_objective_and_one_metric_per_library():
    assert fastndcg.integrations.__all__ == FACE
    for name in ("LightGBMSoftNDCGObjective", "SoftNDCGObjective", "XGBoostSoftNDCGObjective"):
        assert name not in fastndcg.__all__
    assert "XGBoostRankNDCG" not in fastndcg.measures.__all__


@pytest.mark.parametrize("face, old, replacement", [
    (fastndcg.integrations, "LightGBMLambdarankObjective", "fastndcg.integrations.LightGBMObjective"),
    (fastndcg.integrations, "XGBoostRankNDCGObjective", "fastndcg.integrations.XGBoostObjective"),
    (fastndcg.integrations, "XGBOOST_NDCG", "convention='xgboost'"),
    (fastndcg.integrations, "dask_ndcg", r"fastndcg.integrations.dask_evaluate\(...\).per_query"),
    (fastndcg.integrations, "dask_mean_ndcg", r"fastndcg.integrations.dask_evaluate\(..., persist=False\).mean"),
    (fastndcg.integrations, "spark_ndcg", r"fastndcg.integrations.spark_evaluate\(...\).per_query"),
    (fastndcg.integrations, "spark_mean_ndcg", r"fastndcg.integrations.spark_evaluate\(...\).mean"),
    (fastndcg, "LightGBMSoftNDCGObjective", r"fastndcg.integrations.LightGBMObjective\(loss='softndcg'"),
    (fastndcg, "XGBoostSoftNDCGObjective", r"fastndcg.integrations.XGBoostObjective\(loss='softndcg'"),
    (fastndcg, "SoftNDCGObjective", r"fastndcg.integrations.LightGBMObjective\(loss='softndcg'.* on arrays as "
                                   r"objective\(labels, preds, "
                                   r"weights, group_sizes\)\) or XGBoostObjective"),
    (fastndcg.measures, "XGBoostRankNDCG", r"fastndcg.integrations.XGBoostObjective\(unbiased=True"),
])
def test_a_name_that_left_warns_and_names_its_replacement(face, old, replacement):
    with pytest.warns(DeprecationWarning, match=rf"{face.__name__}\.{old} is deprecated .*use {replacement}"):
        getattr(face, old)


def test_the_former_objectives_are_the_new_ones():
    with pytest.warns(DeprecationWarning):
        assert fastndcg.integrations.LightGBMLambdarankObjective is LightGBMObjective
    with pytest.warns(DeprecationWarning):
        assert fastndcg.integrations.XGBoostRankNDCGObjective is XGBoostObjective
    with pytest.warns(DeprecationWarning):
        soft = fastndcg.LightGBMSoftNDCGObjective(sigma=0.5, k=3)
    assert isinstance(soft, LightGBMObjective) and (soft.loss, soft.sigma, soft.k) == ("softndcg", 0.5, 3)
    with pytest.warns(DeprecationWarning):
        soft = fastndcg.XGBoostSoftNDCGObjective(max_docs=4)
    assert isinstance(soft, XGBoostObjective) and (soft.loss, soft.max_docs) == ("softndcg", 4)
    with pytest.warns(DeprecationWarning):
        assert fastndcg.integrations.XGBOOST_NDCG == fastndcg.get_preset("xgboost")


def test_no_integration_module_imports_its_library_when_imported():
    """Each library is imported inside the functions that need it: importing the room (or a
    module of it) imports none of them."""
    room = Path(fastndcg.integrations.__file__).parent
    for path in sorted(room.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            top = {n.split(".")[0] for n in names}
            assert not top & LIBRARIES, f"{path.name}:{node.lineno} imports {sorted(top & LIBRARIES)} at import"
