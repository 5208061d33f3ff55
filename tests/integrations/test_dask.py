"""fastndcg.integrations._dask on a distributed.LocalCluster: the in-memory numbers, whatever the partitioning."""
from __future__ import annotations

import numpy as np
import pytest

import fastndcg
import fastndcg.integrations as fdask
from fastndcg.stream import frame_mean_ndcg, frame_ndcg
from conftest import require, scattered_frame as _frame

pytestmark = [pytest.mark.distributed]

dd = require("dask.dataframe")
pd = require("pandas")
Client = require("distributed").Client
LocalCluster = require("distributed").LocalCluster


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as c:
        yield c


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values("qid").reset_index(drop=True)


def _assert_same_per_query(got: pd.DataFrame, want: pd.DataFrame) -> None:
    got, want = _sorted(got), _sorted(want)
    assert list(got.columns) == list(want.columns)
    assert got["qid"].tolist() == want["qid"].tolist()
    np.testing.assert_array_equal(got.drop(columns="qid").to_numpy(dtype=float),
                                  want.drop(columns="qid").to_numpy(dtype=float))   # bit for bit


@pytest.mark.parametrize("conv", ["standard", "trec_eval", "gdeval", "letor4", "lightgbm", "xgboost",
                                  "sklearn", "catboost"])
def test_matches_in_memory(client, conv):
    df = _frame(1)
    ddf = dd.from_pandas(df, npartitions=6, sort=False)
    doc = "doc" if fastndcg.get_preset(conv).uses_tie_key else None
    ks = [1, 5, None]
    res = fdask.dask_evaluate(ddf, ks, doc_id=doc, weight="w", convention=conv, npartitions=4)
    _assert_same_per_query(res.per_query.compute(),
                           frame_ndcg(df, ks, doc_id=doc, weight="w", convention=conv))
    want = frame_mean_ndcg(df, ks, doc_id=doc, weight="w", convention=conv)
    assert res.mean.keys() == want.keys()
    # each cutoff's number says what it is: the preset's NDCG@k on the list given
    conv_run = fastndcg.get_preset(conv).replace(ideal_source="run")
    assert res.signatures == [fastndcg.measurement(k, convention=conv_run).signature for k in ks]
    for name in want:
        assert res.mean[name] == pytest.approx(want[name], rel=0, abs=0, nan_ok=True)


def test_aggregate_does_not_depend_on_partitioning(client):
    df = _frame(2, str_ids=False)
    conv = fastndcg.Convention(aggregation="ratio", short="zero", empty="skip")
    means = [fdask.dask_mean_ndcg(dd.from_pandas(df, npartitions=p, sort=False), [3, 10], weight="w",
                             convention=conv, npartitions=out)
             for p, out in ((1, 1), (5, 3), (9, 7))]
    assert means[0] == means[1] == means[2]                       # exact sums: identical floats
    want = frame_mean_ndcg(df, [3, 10], weight="w", convention=conv)
    for name in want:
        assert means[0][name] == pytest.approx(want[name], rel=0, abs=0)


def test_single_cutoff_and_lazy_ndcg(client):
    df = _frame(3, n=1500, n_queries=90)
    ddf = dd.from_pandas(df, npartitions=3, sort=False)
    per = fdask.dask_ndcg(ddf, 10, convention="sklearn")
    assert isinstance(per, dd.DataFrame)
    _assert_same_per_query(per.compute(), frame_ndcg(df, 10, convention="sklearn"))
    got = fdask.dask_mean_ndcg(ddf, 10, convention="sklearn")
    assert isinstance(got, float)
    assert got == pytest.approx(frame_mean_ndcg(df, 10, convention="sklearn"), rel=0, abs=0)


def test_a_repeated_cutoff_is_one_column(client):
    """Issue 33 item 1: it was "the result columns ['ndcg@5', 'ndcg@10', 'ndcg@5'] must differ"."""
    df = _frame(6, n=600, n_queries=30)
    ddf = dd.from_pandas(df, npartitions=2, sort=False)
    res = fdask.dask_evaluate(ddf, [5, 10, 5])
    _assert_same_per_query(res.per_query.compute(), frame_ndcg(df, [5, 10]))
    assert list(res.mean) == ["ndcg@5", "ndcg@10"] and len(res.signatures) == 2


def test_already_partitioned_by_query(client):
    df = _frame(4, n=1200, n_queries=60, str_ids=False)
    by_query = dd.from_pandas(df.sort_values("qid", kind="mergesort"), npartitions=4, sort=False)
    by_query = by_query.set_index("qid", sort=True).reset_index()   # divisions on qid: whole queries
    got = fdask.dask_mean_ndcg(by_query, 5, shuffle=False)
    assert got == pytest.approx(frame_mean_ndcg(df, 5), rel=0, abs=0)
    split = dd.from_pandas(df, npartitions=4, sort=False)
    with pytest.raises(ValueError, match="shuffle=False but query .* is in several partitions"):
        fdask.dask_mean_ndcg(split, 5, shuffle=False)


def test_bad_input(client):
    df = _frame(5, n=300, n_queries=20)
    ddf = dd.from_pandas(df, npartitions=2, sort=False)
    with pytest.raises(ValueError, match="score column 'pred' is not in the DataFrame"):
        fdask.dask_ndcg(ddf, 5, score="pred")
    with pytest.raises(ValueError, match="pass doc_id"):
        fdask.dask_ndcg(ddf, 5, convention="trec_eval")
    with pytest.raises(TypeError, match="dask.dataframe.DataFrame"):
        fdask.dask_ndcg(df, 5)
    bad = df.copy()
    bad.loc[7, "score"] = np.nan
    with pytest.raises(ValueError, match=f"score column 'score' has a missing value .* query {bad.loc[7, 'qid']!r}"):
        fdask.dask_mean_ndcg(dd.from_pandas(bad, npartitions=2, sort=False), 5)
    bad = df.copy()
    bad.loc[3, "w"] = 1e3
    with pytest.raises(ValueError, match="weight column 'w' must be constant"):
        fdask.dask_mean_ndcg(dd.from_pandas(bad, npartitions=2, sort=False), 5, weight="w")


def test_partition_by_query(client):
    df = _frame(6, n=1500, n_queries=80, str_ids=False)
    parted = fdask.partition_by_query(dd.from_pandas(df, npartitions=5, sort=False), "qid", npartitions=3)
    parts = [p.compute() for p in parted.partitions]
    assert sum(len(p) for p in parts) == len(df)
    seen = [set(p["qid"]) for p in parts]
    assert sum(len(s) for s in seen) == len(set().union(*seen))          # each query in one partition
    whole = pd.concat(parts, ignore_index=True)
    assert whole["qid"].is_monotonic_increasing
    want = df.sort_values("qid", kind="mergesort").reset_index(drop=True)    # input order within a query
    pd.testing.assert_frame_equal(whole, want, check_dtype=False)


def test_xgboost_dask_training_gives_the_single_machine_model(client):
    """fastndcg's LambdaMART objective in xgboost.dask.train on query-partitioned
    data (2 workers) gives the model of single-machine xgb.train, prediction for
    prediction (features with fewer distinct values than max_bin, so the
    distributed quantile sketch equals the single-machine one)."""
    import xgboost as xgb
    import xgboost.dask  # noqa: F401

    from fastndcg.integrations import XGBoostObjective as RankNDCGObjective

    rng = np.random.default_rng(8)
    n_queries = 80
    sizes = rng.integers(3, 30, n_queries)
    q = np.repeat(rng.permutation(n_queries) * 5, sizes)
    n = q.size
    feats = pd.DataFrame(rng.integers(0, 10, (n, 4)).astype(np.float32), columns=list("abcd"))
    y = np.clip((feats["a"] + 0.5 * feats["b"] + rng.integers(0, 4, n)) // 3, 0, 4).astype(np.float32)
    df = feats.assign(label=y, qid=q).iloc[rng.permutation(n)].reset_index(drop=True)
    params = {"tree_method": "hist", "base_score": 0.0, "max_depth": 3, "eta": 0.3, "nthread": 1}
    local = df.sort_values("qid", kind="mergesort")
    single = xgb.train(params, xgb.DMatrix(local[list("abcd")], local["label"], qid=local["qid"]), 8,
                       obj=RankNDCGObjective(mode="default"))
    parted = fdask.partition_by_query(dd.from_pandas(df, npartitions=4, sort=False), "qid",
                                      npartitions=4).persist()
    dtrain = xgb.dask.DaskDMatrix(client, parted[list("abcd")], parted["label"], qid=parted["qid"])
    out = xgb.dask.train(client, params, dtrain, 8, obj=RankNDCGObjective(mode="default"))
    check = xgb.DMatrix(feats)
    np.testing.assert_array_equal(out["booster"].predict(check), single.predict(check))
    assert out["booster"].get_dump() == single.get_dump()


def test_dask_result_repr_shows_the_means_only():
    from fastndcg.integrations import DaskResult

    big = object()      # stands for the per-query Dask DataFrame
    assert repr(DaskResult(big, 0.39141, ["nDCG@10|gain:exp"])) == "DaskResult(1 measure, mean nDCG@10=0.3914)"
    assert repr(DaskResult(big, {"ndcg@5": 0.5, "ndcg@10": 0.25})) == \
        "DaskResult(2 measures, mean ndcg@5=0.5000, ndcg@10=0.2500)"
