"""fastndcg's XGBoost objective and metric: bit-exact against the built-in rank:ndcg (topk)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import json

import fastndcg
from conftest import require, load_ranking_dataset, told_unknown_labels
from fastndcg.io import cascade_clicks
import fastndcg.integrations._xgboost as fxgb
from fastndcg import Convention
from fastndcg.integrations._xgboost import XGBOOST_NDCG
from fastndcg.integrations import XGBoostNDCGMetric as NDCGMetric, XGBoostObjective as RankNDCGObjective

pytestmark = [pytest.mark.peers]

xgb = require("xgboost")

ROUNDS = 20
BASE = dict(tree_method="hist", nthread=1, eta=0.1, max_depth=6, base_score=0.0, seed=0)


def load(shared_data, name):
    """(X_train, y_train, qid_train, X_test, y_test, qid_test) with contiguous qids."""
    Xtr, ytr, gtr, Xte, yte, gte = load_ranking_dataset(shared_data, name)
    return (Xtr, ytr, np.repeat(np.arange(len(gtr)), gtr), Xte, yte, np.repeat(np.arange(len(gte)), gte))


def n_groups(qid):
    return int(np.count_nonzero(np.diff(qid)) + 1)


def train_pair(data, extra, weights=None, mode="xgboost"):
    Xtr, ytr, qtr, Xte, yte, qte = data
    params = dict(BASE, objective="rank:ndcg", lambdarank_pair_method="topk", **extra)

    def dmatrix():
        d = xgb.DMatrix(Xtr, ytr, qid=qtr)
        if weights is not None:
            d.set_weight(weights)
        return d

    builtin = xgb.train(params, dmatrix(), ROUNDS)
    obj = RankNDCGObjective.from_params(params, mode=mode)
    plain = {k: v for k, v in params.items() if not k.startswith(("objective", "lambdarank", "ndcg"))}
    custom = xgb.train(plain, dmatrix(), ROUNDS, obj=obj)
    assert obj._model is not None, "the fastndcg objective was not called"
    return builtin, custom


def margins(booster, X):
    return booster.predict(xgb.DMatrix(X), output_margin=True)


# ----------------------------------------------------------------------------- exactness


CASES = [
    ("mq2008", {}, False),
    ("mq2008", dict(lambdarank_num_pair_per_sample=8, lambdarank_score_normalization=False), False),
    ("mq2008", dict(lambdarank_num_pair_per_sample=100, ndcg_exp_gain=False,
                    lambdarank_normalization=False), False),
    ("mq2008", {}, True),
    ("mq2008", dict(nthread=2), False),
    ("lightgbm-rank", {}, False),
    ("lightgbm-rank", dict(lambdarank_num_pair_per_sample=10, nthread=2), True),
]


@pytest.mark.parametrize("name, extra, weighted", CASES, ids=[f"{c[0]}-{c[1]}-w{int(c[2])}" for c in CASES])
def test_xgboost_mode_trains_identical_trees(shared_data, name, extra, weighted):
    data = load(shared_data, name)
    weights = (np.random.default_rng(3).uniform(0.3, 3.0, size=n_groups(data[2])) if weighted else None)
    builtin, custom = train_pair(data, extra, weights)
    assert (builtin.get_dump(dump_format="json", with_stats=True)
            == custom.get_dump(dump_format="json", with_stats=True))
    for X in (data[0], data[3]):
        p1, p2 = margins(builtin, X), margins(custom, X)
        assert np.array_equal(p1.view(np.uint32), p2.view(np.uint32)), f"max |diff| {np.abs(p1 - p2).max()}"
    assert np.ptp(margins(builtin, data[0])) > 0


def test_negative_control_default_mode_is_not_xgboost(shared_data):
    data = load(shared_data, "mq2008")
    builtin, custom = train_pair(data, {}, mode="default")
    p1, p2 = margins(builtin, data[0]), margins(custom, data[0])
    assert not np.array_equal(p1.view(np.uint32), p2.view(np.uint32))


def test_gradients_equal_reference_on_real_data(shared_data):
    Xtr, ytr, qtr, _, _, _ = load(shared_data, "mq2008")
    booster = xgb.train(dict(BASE, objective="rank:ndcg"), xgb.DMatrix(Xtr, ytr, qid=qtr), 8)
    s = margins(booster, Xtr)
    off = fastndcg.offsets_from_qid(qtr).offsets
    import fastndcg.reference as ref
    from fastndcg import lambda_gradients
    g, h = lambda_gradients(s, ytr, off, mode="xgboost")
    rg, rh = ref.lambda_gradients(s, ytr, off, mode="xgboost")
    assert np.array_equal(g.view(np.uint32), rg.view(np.uint32))
    assert np.array_equal(h.view(np.uint32), rh.view(np.uint32))


# ----------------------------------------------------------------------------- unbiased, mean pairs


def click_data(shared_data, name, seed=3):
    """Rows in displayed order (XGBoost's positions), cascade-model clicks as labels."""
    Xtr, ytr, qtr, _, _, _ = load(shared_data, name)
    off = fastndcg.offsets_from_qid(qtr).offsets
    log = cascade_clicks(ytr.astype(np.int64), off, seed=seed)
    return Xtr[log.order], log.click.astype(np.float64), qtr


class RatioLog(xgb.callback.TrainingCallback):
    """XGBoost's saved t+ / t- (float32 in the config) after every round."""

    def __init__(self):
        super().__init__()
        self.rounds = []

    def after_iteration(self, model, epoch, evals_log):
        cfg = json.loads(model.save_config())["learner"]["objective"]
        self.rounds.append((np.asarray(cfg["ti+"], dtype=np.float32), np.asarray(cfg["tj-"], dtype=np.float32)))
        return False


STATE_CASES = [
    ("mq2008", dict(lambdarank_unbiased=True)),
    ("mq2008", dict(lambdarank_unbiased=True, lambdarank_num_pair_per_sample=8, lambdarank_bias_norm=0.5)),
    ("mq2008", dict(lambdarank_pair_method="mean")),
    ("mq2008", dict(lambdarank_pair_method="mean", lambdarank_num_pair_per_sample=4, lambdarank_unbiased=True)),
    ("lightgbm-rank", dict(lambdarank_unbiased=True, nthread=2)),
    ("lightgbm-rank", dict(lambdarank_pair_method="mean", lambdarank_unbiased=True, lambdarank_bias_norm=0.5)),
    ("lightgbm-rank", dict(lambdarank_pair_method="mean", lambdarank_num_pair_per_sample=3, ndcg_exp_gain=False)),
]


@pytest.mark.peers
@pytest.mark.parametrize("name, extra", STATE_CASES, ids=[f"{c[0]}-{c[1]}" for c in STATE_CASES])
def test_unbiased_and_mean_train_identical_trees(shared_data, name, extra):
    X, clicks, qid = click_data(shared_data, name)
    params = dict(BASE, objective="rank:ndcg", **extra)
    theirs, ours = RatioLog(), []
    builtin = xgb.train(params, xgb.DMatrix(X, clicks, qid=qid), 50,
                        callbacks=[theirs] if extra.get("lambdarank_unbiased") else None)
    obj = RankNDCGObjective.from_params(params)
    plain = {k: v for k, v in params.items() if not k.startswith(("objective", "lambdarank", "ndcg"))}

    class Track(xgb.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            if obj.unbiased:
                ours.append((obj.t_plus, obj.t_minus))
            return False

    custom = xgb.train(plain, xgb.DMatrix(X, clicks, qid=qid), 50, obj=obj, callbacks=[Track()])
    assert (builtin.get_dump(dump_format="json", with_stats=True)
            == custom.get_dump(dump_format="json", with_stats=True))
    p1, p2 = margins(builtin, X), margins(custom, X)
    assert np.array_equal(p1.view(np.uint32), p2.view(np.uint32)), f"max |diff| {np.abs(p1 - p2).max()}"
    assert obj._state.iteration == 50
    if obj.unbiased:
        assert len(theirs.rounds) == len(ours) == 50
        for (tp, tm), (op, om) in zip(theirs.rounds, ours):
            assert np.array_equal(tp, op.astype(np.float32)) and np.array_equal(tm, om.astype(np.float32))
        assert np.all(ours[-1][0][1:] != 1.0)


@pytest.mark.peers
def test_negative_control_mean_seed_rule(shared_data):
    # XGBoost 3.0's seed rule (iteration * n_groups + g) draws other pairs than 3.2's.
    X, clicks, qid = click_data(shared_data, "mq2008")
    params = dict(BASE, objective="rank:ndcg", lambdarank_pair_method="mean")
    builtin = xgb.train(params, xgb.DMatrix(X, clicks, qid=qid), 10)
    plain = {k: v for k, v in params.items() if not k.startswith(("objective", "lambdarank"))}
    obj = RankNDCGObjective.from_params(params)
    obj.seed_offset = 0
    custom = xgb.train(plain, xgb.DMatrix(X, clicks, qid=qid), 10, obj=obj)
    assert not np.array_equal(margins(builtin, X).view(np.uint32), margins(custom, X).view(np.uint32))


# ----------------------------------------------------------------------------- metric


def test_metric_matches_xgboost_ndcg(shared_data):
    Xtr, ytr, qtr, Xte, yte, qte = load(shared_data, "mq2008")
    dtrain = xgb.DMatrix(Xtr, ytr, qid=qtr)
    dtest = xgb.DMatrix(Xte, yte, qid=qte)
    params = dict(BASE, objective="rank:ndcg", eval_metric=["ndcg@5", "ndcg@10"])
    booster = xgb.train(params, dtrain, 5)
    metric = NDCGMetric([5, 10])
    ours = dict(metric(booster.predict(dtest, output_margin=True), dtest))
    text = booster.eval(dtest, "test")            # "[0]\ttest-ndcg@5:0.xxx\ttest-ndcg@10:0.xxx"
    theirs = dict(item.split(":") for item in text.split("\t")[1:])
    for k in (5, 10):
        assert ours[f"ndcg[xgboost]@{k}"] == pytest.approx(float(theirs[f"test-ndcg@{k}"]), abs=2e-6)


def test_metric_matches_xgboost_ndcg_with_group_weights(shared_data):
    # MQ2008 has queries without relevant documents: XGBoost adds their 1
    # unweighted while their (float32) weight stays in the denominator.
    Xtr, ytr, qtr, Xte, yte, qte = load(shared_data, "mq2008")
    dtrain = xgb.DMatrix(Xtr, ytr, qid=qtr)
    dtest = xgb.DMatrix(Xte, yte, qid=qte)
    n_groups = len(np.unique(qte))
    dtest.set_weight(np.random.default_rng(4).uniform(0.5, 2.0, size=n_groups))
    params = dict(BASE, objective="rank:ndcg", eval_metric=["ndcg@5", "ndcg@10"])
    booster = xgb.train(params, dtrain, 5)
    ours = dict(NDCGMetric([5, 10])(booster.predict(dtest, output_margin=True), dtest))
    text = booster.eval(dtest, "test")
    theirs = dict(item.split(":") for item in text.split("\t")[1:])
    plain = NDCGMetric([5, 10], convention=fastndcg.get_preset("xgboost").replace(empty_weight="weighted"),
                       name="plain")
    plain_values = dict(plain(booster.predict(dtest, output_margin=True), dtest))
    for k in (5, 10):
        assert ours[f"ndcg[xgboost]@{k}"] == pytest.approx(float(theirs[f"test-ndcg@{k}"]), abs=2e-6)
        # the rule matters here (a test that can fail):
        assert abs(plain_values[f"plain@{k}"] - float(theirs[f"test-ndcg@{k}"])) > 1e-3


def test_metric_as_custom_metric_with_conventions(shared_data):
    Xtr, ytr, qtr, Xte, yte, qte = load(shared_data, "mq2008")
    dtrain = xgb.DMatrix(Xtr, ytr, qid=qtr)
    dtest = xgb.DMatrix(Xte, yte, qid=qte)
    evals = {}
    metric = NDCGMetric([1, 10], convention="letor4")
    booster = xgb.train(dict(BASE, disable_default_eval_metric=1), dtrain, 4, obj=RankNDCGObjective(),
                        custom_metric=metric, evals=[(dtest, "test")], evals_result=evals)
    assert len(evals["test"]["ndcg[letor4]@10"]) == 4
    off = fastndcg.offsets_from_qid(qte).offsets
    want = fastndcg.mean_ndcg(booster.predict(dtest, output_margin=True), yte, off, [1, 10],
                              convention="letor4")
    np.testing.assert_allclose(metric.values(booster.predict(dtest, output_margin=True), dtest), want,
                               rtol=1e-12)
    assert evals["test"]["ndcg[letor4]@10"][-1] == pytest.approx(want[1], abs=1e-6)


# ----------------------------------------------------------------------------- caching, plumbing


def test_group_structure_is_read_once(shared_data, monkeypatch):
    Xtr, ytr, qtr, _, _, _ = load(shared_data, "mq2008")
    reads = []
    real = fxgb.xgboost_fields
    monkeypatch.setattr(fxgb, "xgboost_fields", lambda d: reads.append(1) or real(d))
    dtrain = xgb.DMatrix(Xtr, ytr, qid=qtr)
    obj = RankNDCGObjective()
    metric = NDCGMetric(5)
    xgb.train(dict(BASE, disable_default_eval_metric=1), dtrain, 5, obj=obj, custom_metric=metric,
              evals=[(dtrain, "train")])
    assert len(reads) == 2          # objective once, metric once
    assert obj.model_for(dtrain) is obj._model


def test_default_mode_under_a_convention_trains(shared_data):
    Xtr, ytr, qtr, Xte, yte, qte = load(shared_data, "mq2008")
    obj = RankNDCGObjective(mode="default", convention=Convention(gain="linear", discount="reciprocal"),
                            truncation=10)
    booster = xgb.train(dict(BASE), xgb.DMatrix(Xtr, ytr, qid=qtr), 10, obj=obj)
    off = fastndcg.offsets_from_qid(qte).offsets
    assert fastndcg.mean_ndcg(margins(booster, Xte), yte, off, 10) > 0.3


def test_xgboost_import_is_the_real_package():
    assert fxgb._require_xgboost() is sys.modules["xgboost"] is xgb
    assert hasattr(xgb, "train") and hasattr(xgb, "DMatrix")


def test_objective_validation():
    with pytest.raises(ValueError, match=r"lambdarank_pair_method must be one of \('topk', 'mean'\); got 'pairs'"):
        RankNDCGObjective.from_params({"lambdarank_pair_method": "pairs"})
    obj = RankNDCGObjective.from_params({"lambdarank_pair_method": "mean", "lambdarank_unbiased": "true",
                                         "lambdarank_bias_norm": 0.5})
    assert (obj.pair_method, obj.unbiased, obj.bias_norm, obj.seed_offset) == ("mean", True, 0.5, 1)
    assert fxgb.mean_seed_offset("3.0.5") == 0 and fxgb.mean_seed_offset("3.3.0rc1") == 1
    for version in ("3.4.0", "2.1.4", "4.0.0"):
        with pytest.raises(ValueError, match=f"reproduced for XGBoost 3.0-3.3; this is {version}"):
            fxgb.mean_seed_offset(version)
    with pytest.raises(ValueError, match="use mode='xgboost'"):
        RankNDCGObjective(mode="default", unbiased=True)
    with pytest.raises(ValueError, match="bias_norm must be finite and >= 0; got bias_norm=-1"):
        RankNDCGObjective(unbiased=True, bias_norm=-1)
    with pytest.raises(ValueError, match="sigma must be 1.0 in mode='xgboost'"):
        RankNDCGObjective(sigma=2.0)
    obj = RankNDCGObjective.from_params({"ndcg_exp_gain": False, "lambdarank_num_pair_per_sample": 4})
    assert obj.convention.gain == "linear" and obj.truncation == 4
    # one rule for the libraries' boolean parameters (it read any other string as False)
    with pytest.raises(ValueError, match="lambdarank_unbiased must be a boolean; got 'maybe'"):
        RankNDCGObjective.from_params({"lambdarank_unbiased": "maybe"})
    d = xgb.DMatrix(np.zeros((4, 1)), [0, 1, 0, 1], qid=[0, 0, 1, 1])
    d.set_weight([1.0, 2.0])
    assert obj.model_for(d).query_weights.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="no query information"):
        obj(np.zeros(4, dtype=np.float32), xgb.DMatrix(np.zeros((4, 1)), [0, 1, 0, 1]))
    assert XGBOOST_NDCG.score_precision == "float32" and XGBOOST_NDCG.empty == "one"


# ----------------------------------------------------------------------------- scikit-learn API, metric names


def test_xgbranker_refuses_custom_objectives():
    # XGBoost's own refusal (documented in docs/lambdamart.md): the way that works is xgboost.train.
    from fastndcg.integrations import XGBoostObjective

    for obj in (RankNDCGObjective(), XGBoostObjective("softndcg")):
        with pytest.raises(ValueError, match="custom objective function not supported by XGBRanker"):
            xgb.XGBRanker(objective=obj)


HOW = r"expected an xgboost.DMatrix; got ndarray. XGBoost's scikit-learn API passes no query groups .* xgboost.train"


def test_scikit_learn_calls_say_what_to_do_instead(shared_data):
    # Issue 24.8: XGBRegressor(objective=RankNDCGObjective()) said only "expected an xgboost.DMatrix;
    # got ndarray", and XGBRanker(eval_metric=NDCGMetric()) failed with "unhashable type: 'numpy.ndarray'".
    from fastndcg.integrations import XGBoostObjective

    Xtr, ytr, qtr, Xte, yte, qte = load(shared_data, "mq2008")
    for obj in (RankNDCGObjective(), XGBoostObjective("softndcg")):
        with pytest.raises(TypeError, match=HOW):      # called as objective(y_true, y_pred): no groups
            xgb.XGBRegressor(objective=obj, n_estimators=1).fit(Xtr, ytr)
    with pytest.raises(TypeError, match=HOW):          # called once per query
        xgb.XGBRanker(n_estimators=1, eval_metric=NDCGMetric(10)).fit(
            Xtr, ytr, qid=qtr, eval_set=[(Xte, yte)], eval_qid=[qte])


def test_metric_named_ndcg_in_place_of_the_builtin(shared_data):
    # Early stopping and evals_result code written for eval_metric="ndcg@10" keeps working.
    Xtr, ytr, qtr, Xte, yte, qte = load(shared_data, "mq2008")
    dtrain, dtest = xgb.DMatrix(Xtr, ytr, qid=qtr), xgb.DMatrix(Xte, yte, qid=qte)
    runs = {}
    for label, params, metric in (("builtin", dict(BASE, objective="rank:ndcg", eval_metric="ndcg@10"), None),
                                  ("custom", dict(BASE, objective="rank:ndcg", disable_default_eval_metric=1),
                                   NDCGMetric(10, name="ndcg"))):
        evals = {}
        booster = xgb.train(params, dtrain, 200, evals=[(dtest, "test")], custom_metric=metric,
                            evals_result=evals, early_stopping_rounds=5, verbose_eval=False)
        runs[label] = booster, evals
    (b1, e1), (b2, e2) = runs["builtin"], runs["custom"]
    assert list(e2["test"]) == list(e1["test"]) == ["ndcg@10"]
    np.testing.assert_allclose(e2["test"]["ndcg@10"], e1["test"]["ndcg@10"], rtol=0, atol=2e-6)
    assert b2.best_iteration == b1.best_iteration < 199


def test_metric_names():
    assert NDCGMetric(10).name == "ndcg[xgboost]"
    assert NDCGMetric(10, name="ndcg", convention=XGBOOST_NDCG.replace(gain="linear")).name == "ndcg"
    for conv in ("standard", "xgboost_minus", "lightgbm"):
        with pytest.raises(ValueError, match="name='ndcg' gives XGBoost's own metric names"):
            NDCGMetric(10, name="ndcg", convention=conv)
    with pytest.raises(ValueError, match="name is the prefix of the metric names"):
        NDCGMetric(10, name="ndcg@10")
    # a repeated cutoff is one metric (it was two metrics of one name; issue 33 item 1)
    assert NDCGMetric([10, 5, 10]).k == [10, 5] and len(NDCGMetric([3, 3]).signatures) == 1


def test_metric_signatures_state_the_measurement():
    metric = NDCGMetric([5, 10])
    sigs = metric.signatures
    assert [fastndcg.from_signature(s).cutoff for s in sigs] == [5, 10]
    assert all(fastndcg.from_signature(s).convention.name == "xgboost" for s in sigs)
    assert sigs[0].startswith("nDCG@5|gain:table:exp:0-3") and "|ideal:cut,run|" in sigs[0]


def test_letor_labels_outside_the_table_are_told_once(shared_data):
    """As the LightGBM integrations: the objective and the metric under letor4 tell once that
    labels 3 and 4 of LightGBM's example data get gain 0 (issue 33 item 6)."""
    _, _, _, X, y, group = load_ranking_dataset(shared_data, "lightgbm-rank")
    d = xgb.DMatrix(X, label=y)
    d.set_group(group)
    preds = np.linspace(0, 1, len(y))
    for f in (RankNDCGObjective(mode="default", convention="letor4"), NDCGMetric(10, convention="letor4")):
        got = told_unknown_labels(lambda: f(preds, d))
        assert len(got) == 1 and got[0].filename == __file__
        assert "labels: 54 of 768 documents have a label outside the gain table (3, 4)" in str(got[0].message)
