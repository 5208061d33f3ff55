"""fastndcg.integrations._spark on a local[2] Spark session: the in-memory numbers, whatever the partitioning."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import fastndcg
import fastndcg.integrations as fspark
from fastndcg.stream import frame_mean_ndcg, frame_ndcg
from conftest import require, scattered_frame as _frame

pytestmark = [pytest.mark.distributed, pytest.mark.slow]

pd = require("pandas")
SparkSession = require("pyspark.sql").SparkSession


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Spark's Python workers put their working directory first on sys.path;
    # started from the checkout they would import the uncompiled source tree
    # instead of the installed package.
    old_cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("spark-cwd"))
    session = (SparkSession.builder.master("local[2]").appName("fastndcg-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.default.parallelism", "4")          # createDataFrame: 4 input partitions
               .config("spark.sql.shuffle.partitions", "3")
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "97")   # batches cut queries
               .config("spark.driver.memory", "1g")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()
        os.chdir(old_cwd)


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values("qid").reset_index(drop=True)


def test_queries_are_split_across_input_partitions(spark):
    sdf = spark.createDataFrame(_frame(1))
    assert sdf.rdd.getNumPartitions() == 4
    parts = sdf.rdd.mapPartitions(lambda rows: [{r["qid"] for r in rows}]).collect()
    assert set.intersection(*parts)                             # some query is in every partition


@pytest.mark.parametrize("conv,str_ids", [("standard", True), ("trec_eval", False), ("gdeval", True),
                                          ("letor4", True), ("xgboost", False)])
def test_matches_in_memory(spark, conv, str_ids):
    df = _frame(2, str_ids=str_ids)
    sdf = spark.createDataFrame(df)
    doc = "doc" if fastndcg.get_preset(conv).uses_tie_key else None
    ks = [1, 5, None]
    res = fspark.spark_evaluate(sdf, ks, doc_id=doc, weight="w", convention=conv)
    got = _sorted(res.per_query.toPandas())
    want = _sorted(frame_ndcg(df, ks, doc_id=doc, weight="w", convention=conv))
    res.per_query.unpersist()
    assert list(got.columns) == list(want.columns)
    assert got["qid"].tolist() == want["qid"].tolist()
    np.testing.assert_array_equal(got.drop(columns="qid").to_numpy(dtype=float),
                                  want.drop(columns="qid").to_numpy(dtype=float))   # bit for bit
    want_mean = frame_mean_ndcg(df, ks, doc_id=doc, weight="w", convention=conv)
    assert res.mean.keys() == want_mean.keys()
    # each cutoff's number says what it is: the preset's NDCG@k on the list given
    conv_run = fastndcg.get_preset(conv).replace(ideal_source="run")
    assert res.signatures == [fastndcg.measurement(k, convention=conv_run).signature for k in ks]
    for name in want_mean:
        assert res.mean[name] == pytest.approx(want_mean[name], rel=0, abs=0, nan_ok=True)


def test_aggregate_does_not_depend_on_partitioning(spark):
    df = _frame(3)
    sdf = spark.createDataFrame(df)
    conv = fastndcg.Convention(aggregation="ratio", short="zero", empty="skip")
    means = [fspark.spark_mean_ndcg(sdf, [3, 10], weight="w", convention=conv, num_partitions=p) for p in (1, 2, 5)]
    assert means[0] == means[1] == means[2]                     # exact sums: identical floats
    want = frame_mean_ndcg(df, [3, 10], weight="w", convention=conv)
    for name in want:
        assert means[0][name] == pytest.approx(want[name], rel=0, abs=0)
    single = fspark.spark_mean_ndcg(sdf, 10)
    assert isinstance(single, float)
    assert single == pytest.approx(frame_mean_ndcg(df, 10), rel=0, abs=0)


def test_bad_input(spark):
    df = _frame(4, n=200, n_queries=15)
    sdf = spark.createDataFrame(df)
    with pytest.raises(ValueError, match="score column 'pred' is not in the DataFrame"):
        fspark.spark_ndcg(sdf, 5, score="pred")
    with pytest.raises(ValueError, match="pass doc_id"):
        fspark.spark_ndcg(sdf, 5, convention="trec_eval")
    with pytest.raises(TypeError, match="pyspark.sql.DataFrame"):
        fspark.spark_ndcg(df, 5)
    bad = df.copy()
    bad.loc[5, "w"] = 1e3
    with pytest.raises(ValueError, match="weight column 'w' must be constant within a query; query 'q"):
        fspark.spark_mean_ndcg(spark.createDataFrame(bad), 5, weight="w")
    bad = df.copy()
    bad.loc[9, "label"] = -1
    with pytest.raises(ValueError, match="in the partition holding queries"):
        fspark.spark_mean_ndcg(spark.createDataFrame(bad), 5)


def test_spark_result_repr_shows_the_means_only():
    from fastndcg.integrations import SparkResult

    assert repr(SparkResult(object(), 0.25, ["nDCG@10|gain:exp"])) == "SparkResult(1 measure, mean nDCG@10=0.2500)"
