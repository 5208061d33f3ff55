"""fastndcg's LightGBM objective and metric: bit-exact against the built-in lambdarank and ndcg@k."""
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import fastndcg
from conftest import require, load_ranking_dataset, told_unknown_labels
import fastndcg.integrations._lightgbm as flgb
from fastndcg import Convention
from fastndcg.io import cascade_clicks
from fastndcg.integrations import LightGBMObjective as LambdarankObjective, LightGBMNDCGMetric as NDCGMetric

pytestmark = [pytest.mark.peers]

lgb = require("lightgbm")

ROUNDS = 20
BASE = dict(num_threads=1, deterministic=True, force_row_wise=True, learning_rate=0.1,
            num_leaves=31, min_data_in_leaf=5, verbose=-1, seed=0)


def load(shared_data, name):
    """(X_train, y_train, group_train, X_test, y_test, group_test)."""
    return load_ranking_dataset(shared_data, name)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def train_pair(data, extra, weights=None, mode="lightgbm"):
    Xtr, ytr, gtr, Xte, _, _ = data
    params = dict(BASE, objective="lambdarank", **extra)
    builtin = lgb.train(params, lgb.Dataset(Xtr, ytr, group=gtr, weight=weights), ROUNDS)
    obj = LambdarankObjective.from_params(params, mode=mode)
    custom = lgb.train(dict(params, objective=obj), lgb.Dataset(Xtr, ytr, group=gtr, weight=weights), ROUNDS)
    assert obj._model is not None, "the fastndcg objective was not called"
    return builtin, custom


# ----------------------------------------------------------------------------- exactness


CASES = [
    ("lightgbm-rank", {}, False),
    ("lightgbm-rank", dict(sigmoid=2.0), False),
    ("lightgbm-rank", dict(sigmoid=0.5, lambdarank_truncation_level=10), False),
    ("lightgbm-rank", dict(lambdarank_norm=False), False),
    ("lightgbm-rank", dict(label_gain=[0, 1, 2.5, 6, 20]), False),
    ("lightgbm-rank", {}, True),
    ("lightgbm-rank", dict(num_threads=2), False),
    ("mq2008", {}, False),
    ("mq2008", dict(lambdarank_truncation_level=10, lambdarank_norm=False), False),
    ("mq2008", dict(num_threads=2, sigmoid=1.5), True),
]


@pytest.mark.parametrize("name, extra, weighted", CASES, ids=[f"{c[0]}-{c[1]}-w{int(c[2])}" for c in CASES])
def test_lightgbm_mode_trains_identical_trees(shared_data, name, extra, weighted):
    data = load(shared_data, name)
    weights = np.random.default_rng(7).uniform(0.3, 3.0, size=len(data[1])) if weighted else None
    builtin, custom = train_pair(data, extra, weights)
    assert builtin.dump_model()["tree_info"] == custom.dump_model()["tree_info"]
    for X in (data[0], data[3]):
        p1 = builtin.predict(X, raw_score=True)
        p2 = custom.predict(X, raw_score=True)
        assert np.array_equal(bits(p1), bits(p2)), f"max |diff| {np.abs(p1 - p2).max()}"
    assert np.ptp(builtin.predict(data[0], raw_score=True)) > 0    # the model did learn something


def test_negative_control_default_mode_is_not_lightgbm(shared_data):
    # The same comparison fails for the exact-logistic double-precision mode.
    data = load(shared_data, "lightgbm-rank")
    builtin, custom = train_pair(data, {}, mode="default")
    p1 = builtin.predict(data[0], raw_score=True)
    p2 = custom.predict(data[0], raw_score=True)
    assert not np.array_equal(bits(p1), bits(p2))
    np.testing.assert_allclose(p1, p2, atol=0.5)   # but it is the same objective, nearly


def test_gradients_equal_on_real_data_at_trained_scores(shared_data):
    # Kernel vs the float32-exact reference at non-trivial scores of real data.
    Xtr, ytr, gtr, _, _, _ = load(shared_data, "lightgbm-rank")
    booster = lgb.train(dict(BASE, objective="lambdarank"), lgb.Dataset(Xtr, ytr, group=gtr), 10)
    s = booster.predict(Xtr, raw_score=True)
    off = fastndcg.offsets_from_group_sizes(gtr)
    import fastndcg.reference as ref
    from fastndcg import lambda_gradients
    g, h = lambda_gradients(s, ytr, off, mode="lightgbm")
    rg, rh = ref.lambda_gradients(s, ytr, off, mode="lightgbm")
    assert np.array_equal(g.view(np.uint32), rg.view(np.uint32))
    assert np.array_equal(h.view(np.uint32), rh.view(np.uint32))


# ----------------------------------------------------------------------------- position debiasing


def click_data(shared_data, name, seed=3):
    """Rows in displayed order, cascade-model clicks as labels, 0-based displayed positions."""
    Xtr, ytr, gtr, _, _, _ = load(shared_data, name)
    off = fastndcg.offsets_from_group_sizes(gtr)
    log = cascade_clicks(ytr.astype(np.int64), off, seed=seed)
    return Xtr[log.order], log.click.astype(np.float64), gtr, log.position


class _Capture:
    """A LightGBM logger that keeps the text (the position factors are logged at debug level)."""

    def __init__(self):
        self.text = []

    def info(self, msg):
        self.text.append(msg)

    warning = info


def lightgbm_factor_log(params, dataset, rounds):
    """Train the built-in objective and read its position-bias factors from the debug log:
    one list of (position, factor text) per round."""
    import re

    capture = _Capture()
    previous = lgb.basic._LOGGER
    lgb.register_logger(capture)
    try:
        booster = lgb.train(dict(params, verbose=2), dataset, rounds)
    finally:
        lgb.register_logger(previous)
    text = "".join(capture.text)
    blocks = text.split("bias_factor")[1:]
    rows = [re.findall(r"\[Debug\]\s+(-?\d+)\s+(\S+?)(?=\[LightGBM\]|\n|$)", b) for b in blocks]
    return booster, rows


POSITION_CASES = [
    ("lightgbm-rank", dict(lambdarank_position_bias_regularization=0.5), False),
    ("lightgbm-rank", dict(learning_rate=0.3), True),
    ("mq2008", dict(lambdarank_position_bias_regularization=0.5), False),
    ("mq2008", dict(lambdarank_position_bias_regularization=2.0, lambdarank_truncation_level=10, sigmoid=1.5), True),
]


@pytest.mark.peers
@pytest.mark.parametrize("name, extra, weighted", POSITION_CASES,
                         ids=[f"{c[0]}-{c[1]}-w{int(c[2])}" for c in POSITION_CASES])
def test_position_debiased_lambdarank_trains_identical_trees(shared_data, name, extra, weighted):
    X, clicks, group, position = click_data(shared_data, name)
    weights = np.random.default_rng(5).uniform(0.3, 3.0, size=len(clicks)) if weighted else None
    params = dict(BASE, objective="lambdarank", **extra)

    def dataset():
        return lgb.Dataset(X, clicks, group=group, position=position, weight=weights)

    builtin, logged = lightgbm_factor_log(params, dataset(), 50)
    obj = LambdarankObjective.from_params(params)
    history = []
    custom = lgb.train(dict(params, objective=obj), dataset(), 50,
                       callbacks=[lambda env: history.append(obj.position_factors)])
    assert builtin.dump_model()["tree_info"] == custom.dump_model()["tree_info"]
    p1, p2 = builtin.predict(X, raw_score=True), custom.predict(X, raw_score=True)
    assert np.array_equal(bits(p1), bits(p2)), f"max |diff| {np.abs(p1 - p2).max()}"
    # The factors, round by round, as LightGBM logs them (6 significant digits).
    assert len(logged) == len(history) == 50
    n_pos = int(position.max()) + 1
    for round_log, ours in zip(logged, history):
        assert [int(p) for p, _ in round_log[:n_pos]] == list(range(n_pos))
        assert [v for _, v in round_log[:n_pos]] == ["%g" % f for f in ours]
    assert np.count_nonzero(history[-1]) == n_pos and history[-1][0] > history[-1][-1]


@pytest.mark.peers
def test_negative_control_positions_ignored_is_not_lightgbm(shared_data):
    # The same comparison fails when the objective does not see the positions.
    X, clicks, group, position = click_data(shared_data, "lightgbm-rank")
    params = dict(BASE, objective="lambdarank", lambdarank_position_bias_regularization=0.5)
    builtin = lgb.train(params, lgb.Dataset(X, clicks, group=group, position=position), 20)
    custom = lgb.train(dict(params, objective=LambdarankObjective.from_params(params)),
                       lgb.Dataset(X, clicks, group=group), 20)
    assert not np.array_equal(bits(builtin.predict(X, raw_score=True)), bits(custom.predict(X, raw_score=True)))


def test_objective_reads_positions_and_learning_rate(shared_data):
    X, clicks, group, position = click_data(shared_data, "mq2008")
    obj = LambdarankObjective.from_params({"eta": 0.2, "lambdarank_position_bias_regularization": 1.5})
    assert (obj.learning_rate, obj.position_bias_regularization) == (0.2, 1.5)
    assert obj.position_factors is None
    ds = lgb.Dataset(X, clicks, group=group, position=position * 10 + 3).construct()
    obj(np.zeros(len(clicks)), ds)
    factors = obj.position_factors
    assert factors.dtype == np.float32 and factors.shape == (int(position.max()) + 1,)
    # LightGBM numbers positions by first appearance: our ids are its ids
    assert np.array_equal(obj._debiased.position_ids, ds.get_field("position"))
    with pytest.raises(ValueError, match="position_bias_regularization must be finite and >= 0"):
        LambdarankObjective(position_bias_regularization=-1.0)


# ----------------------------------------------------------------------------- metric


@pytest.mark.parametrize("label_gain", [None, [0, 1, 2.5, 6, 20]])
def test_metric_equals_lightgbm_ndcg(shared_data, label_gain):
    Xtr, ytr, gtr, Xte, yte, gte = load(shared_data, "lightgbm-rank")
    params = dict(BASE, objective="lambdarank", metric="ndcg", eval_at=[1, 3, 5, 10])
    conv = "lightgbm"
    if label_gain is not None:
        params["label_gain"] = label_gain
        conv = fastndcg.get_preset("lightgbm").replace(gain=tuple(label_gain))
    train = lgb.Dataset(Xtr, ytr, group=gtr)
    test = lgb.Dataset(Xte, yte, group=gte, reference=train)
    metric = NDCGMetric([1, 3, 5, 10], convention=conv, name="fast")
    evals = {}
    lgb.train(params, train, 10, valid_sets=[train, test], valid_names=["train", "test"],
              feval=metric, callbacks=[lgb.record_evaluation(evals)])
    for part in ("train", "test"):
        for k in (1, 3, 5, 10):
            ours, theirs = evals[part][f"fast@{k}"], evals[part][f"ndcg@{k}"]
            assert len(ours) == 10
            assert ours == theirs, (part, k)          # to the bit, every round


def test_metric_equals_lightgbm_ndcg_with_weights_and_empty_queries(shared_data):
    # Row weights (one per query, not float32 numbers) and queries without a
    # relevant document: LightGBM adds those queries' 1 unweighted.
    Xtr, ytr, gtr, _, _, _ = load(shared_data, "lightgbm-rank")
    ytr = ytr.copy()
    off = np.concatenate([[0], np.cumsum(gtr)])
    for q in range(0, len(gtr), 5):
        ytr[off[q]:off[q + 1]] = 0
    qw = np.random.default_rng(3).uniform(0.05, 2.0, size=len(gtr))
    train = lgb.Dataset(Xtr, ytr, group=gtr, weight=np.repeat(qw, gtr))
    params = dict(BASE, objective="lambdarank", metric="ndcg", eval_at=[1, 3, 10])
    metric = NDCGMetric([1, 3, 10], name="fast")
    evals = {}
    lgb.train(params, train, 5, valid_sets=[train], valid_names=["train"], feval=metric,
              callbacks=[lgb.record_evaluation(evals)])
    for k in (1, 3, 10):
        assert evals["train"][f"fast@{k}"] == evals["train"][f"ndcg@{k}"], k   # to the bit, every round


def test_metric_with_a_zero_document_query():
    # LightGBM keeps no weights when every row weight is 1 (and then agrees
    # with the metric: plain mean); with other weights it reports NaN (a query
    # of 0 documents weighs 0 / 0), where the metric weighs that query 0.
    # Found by the deep fuzz profile, whose oracle had kept all-one weights.
    X = np.zeros((4, 1))
    y = np.array([1.0, 0.0, 2.0, 0.0])
    groups = [0, 2, 2]                   # query 0 has no documents
    preds = np.array([0.0, 0.0, 0.5, 1.0])
    off = np.array([0, 0, 2, 4])
    params = dict(BASE, objective="lambdarank", metric="ndcg", eval_at=[1], min_data_in_leaf=1)
    evals = {}
    ones = lgb.Dataset(X, y, group=groups, weight=np.ones(4, np.float32), params={"verbose": -1})
    lgb.train(params, ones, 2, valid_sets=[ones], valid_names=["t"], feval=NDCGMetric([1], name="fast"),
              callbacks=[lgb.record_evaluation(evals)])
    assert ones.get_field("weight") is None
    assert evals["t"]["fast@1"] == evals["t"]["ndcg@1"]
    for conv in ("lightgbm", "xgboost"):
        got = NDCGMetric([1], convention=conv)(preds, ones)[0][1]
        assert got == pytest.approx(fastndcg.mean_ndcg(preds, y, off, 1, convention=conv), rel=1e-15), conv
        assert got == pytest.approx((1.0 + 1.0 + 0.0) / 3), conv          # empty query = 1 under both
    halves = lgb.Dataset(X, y, group=groups, weight=np.full(4, 0.5, np.float32), params={"verbose": -1})
    evals = {}
    lgb.train(params, halves, 1, valid_sets=[halves], valid_names=["t"], callbacks=[lgb.record_evaluation(evals)])
    assert np.isnan(evals["t"]["ndcg@1"][0])                              # LightGBM: 0 / 0
    # weights (0, 0.5, 0.5); the empty query's bare 1 still enters the numerator
    assert NDCGMetric([1])(preds, halves)[0][1] == pytest.approx((1.0 + 0.5 * 1.0 + 0.5 * 0.0) / 1.0)


def test_metric_under_other_conventions_equals_engine(shared_data):
    Xtr, ytr, gtr, Xte, yte, gte = load(shared_data, "mq2008")
    booster = lgb.train(dict(BASE, objective="lambdarank"), lgb.Dataset(Xtr, ytr, group=gtr), 5)
    preds = booster.predict(Xte, raw_score=True)
    test = lgb.Dataset(Xte, yte, group=gte).construct()
    off = fastndcg.offsets_from_group_sizes(gte)
    for conv in ("standard", "letor4", Convention(empty="skip", aggregation="ratio")):
        metric = NDCGMetric([1, 5, 10], convention=conv)
        got = metric(preds, test)
        want = fastndcg.mean_ndcg(preds, yte, off, [1, 5, 10], convention=conv)
        assert [name for name, _, _ in got] == [f"{metric.name}@{k}" for k in (1, 5, 10)]
        np.testing.assert_allclose([v for _, v, _ in got], want, rtol=1e-12)
        assert all(higher for _, _, higher in got)


# ----------------------------------------------------------------------------- caching, plumbing


def test_group_structure_and_ideal_are_read_once(shared_data, monkeypatch):
    Xtr, ytr, gtr, Xte, yte, gte = load(shared_data, "mq2008")
    made = []
    real = flgb.NDCGScorer

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(flgb, "NDCGScorer", counting)
    reads = []
    real_fields = flgb.lightgbm_fields
    monkeypatch.setattr(flgb, "lightgbm_fields", lambda ds: reads.append(1) or real_fields(ds))
    obj = LambdarankObjective()
    metric = NDCGMetric([5])
    made.clear()
    train = lgb.Dataset(Xtr, ytr, group=gtr)
    test = lgb.Dataset(Xte, yte, group=gte, reference=train)
    lgb.train(dict(BASE, objective=obj, metric="None"), train, 6, valid_sets=[train, test],
              feval=metric)
    assert len(made) == 2          # one scorer per evaluated Dataset, not one per round
    assert len(reads) == 3         # objective: train once; metric: train and test once
    model = obj._model
    assert obj.model_for(train) is model


def test_default_mode_trains_under_other_conventions(shared_data):
    Xtr, ytr, gtr, Xte, yte, gte = load(shared_data, "mq2008")
    off = fastndcg.offsets_from_group_sizes(gte)
    preds = {}
    for conv in ("standard", "letor4"):
        obj = LambdarankObjective(mode="default", convention=conv, truncation=10)
        booster = lgb.train(dict(BASE, objective=obj), lgb.Dataset(Xtr, ytr, group=gtr), 10)
        preds[conv] = booster.predict(Xte, raw_score=True)
        assert fastndcg.mean_ndcg(preds[conv], yte, off, 10) > 0.3
    assert not np.array_equal(preds["standard"], preds["letor4"])


def test_lightgbm_import_is_the_real_package():
    assert flgb._require_lightgbm() is sys.modules["lightgbm"] is lgb
    assert Path(lgb.__file__).parent.name == "lightgbm"
    assert hasattr(lgb, "train") and hasattr(lgb, "Dataset")


def test_objective_validation():
    with pytest.raises(ValueError, match="sigma must be finite and > 0; got sigma=-1"):
        LambdarankObjective(sigma=-1)
    with pytest.raises(ValueError, match="truncation must be >= 1; got 0"):
        LambdarankObjective.from_params({"lambdarank_truncation_level": 0})
    with pytest.raises(ValueError, match="mode='lightgbm' reproduces the library"):
        LambdarankObjective(convention="letor4")
    with pytest.raises(ValueError, match="lambdarank_norm must be a boolean; got 'maybe'"):
        LambdarankObjective.from_params({"lambdarank_norm": "maybe"})
    obj = LambdarankObjective.from_params({"label_gain": "0,1,3,7", "lambdarank_norm": "false",
                                           "sigmoid": 2})
    assert obj.convention.gain == (0.0, 1.0, 3.0, 7.0) and obj.normalize is False and obj.sigma == 2.0
    ds = lgb.Dataset(np.zeros((4, 1)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="the Dataset has no query information"):
        obj(np.zeros(4), ds)


# ----------------------------------------------------------------------------- scikit-learn API (LGBMRanker)

# LGBMRanker keyword arguments for the BASE parameters above
SKLEARN = dict(n_jobs=1, deterministic=True, force_row_wise=True, learning_rate=0.1, num_leaves=31,
               min_child_samples=5, verbose=-1, random_state=0)


def model_text(ranker):
    """The model file without the lines that name the objective and the metric
    (a callable objective is written as "custom")."""
    return [line for line in ranker.booster_.model_to_string().splitlines()
            if not line.startswith(("objective=", "[objective:", "[metric:"))]


def assert_same_model(builtin, custom, X):
    assert model_text(builtin) == model_text(custom)
    p1, p2 = builtin.predict(X, raw_score=True), custom.predict(X, raw_score=True)
    assert np.array_equal(bits(p1), bits(p2)), f"max |diff| {np.abs(p1 - p2).max()}"
    assert np.ptp(p1) > 0                                      # the model did learn something


SKLEARN_CASES = [
    ("lightgbm-rank", {}, False),
    ("lightgbm-rank", dict(sigmoid=2.0, lambdarank_truncation_level=10), True),
    ("mq2008", dict(lambdarank_norm=False, label_gain=[0, 1, 2.5]), False),
    ("mq2008", {}, True),
]


@pytest.mark.parametrize("name, extra, weighted", SKLEARN_CASES,
                         ids=[f"{c[0]}-{c[1]}-w{int(c[2])}" for c in SKLEARN_CASES])
def test_lgbmranker_with_the_objective_trains_the_builtin_model(shared_data, name, extra, weighted):
    # Issue 24.8: LGBMRanker(objective=LambdarankObjective()).fit(X, y, group=...) failed with
    # "expected a lightgbm.Dataset; got ndarray" (the scikit-learn API calls
    # objective(y_true, y_pred, weight, group)).
    Xtr, ytr, gtr, Xte, _, _ = load(shared_data, name)
    weights = np.random.default_rng(7).uniform(0.3, 3.0, size=len(ytr)) if weighted else None
    builtin = lgb.LGBMRanker(objective="lambdarank", n_estimators=ROUNDS, **SKLEARN, **extra)
    builtin.fit(Xtr, ytr, group=gtr, sample_weight=weights)
    obj = LambdarankObjective.from_params(dict(SKLEARN, **extra))
    custom = lgb.LGBMRanker(objective=obj, n_estimators=ROUNDS, **SKLEARN, **extra)
    custom.fit(Xtr, ytr, group=gtr, sample_weight=weights)
    assert obj._model is not None, "the fastndcg objective was not called"
    assert_same_model(builtin, custom, Xte)


@pytest.mark.parametrize("weighted", [False, True])
def test_lgbmranker_early_stopping_and_evals_result_as_the_builtin(shared_data, weighted):
    # The metric named "ndcg" logs "ndcg@10" as the built-in does: early
    # stopping stops at the same round and evals_result_ is the same dict, to the bit.
    Xtr, ytr, gtr, Xte, yte, gte = load(shared_data, "lightgbm-rank")
    rng = np.random.default_rng(11)
    weights = rng.uniform(0.3, 3.0, size=len(ytr)) if weighted else None
    eval_weights = [rng.uniform(0.3, 3.0, size=len(yte))] if weighted else None
    fit = dict(group=gtr, sample_weight=weights, eval_X=(Xtr, Xte), eval_y=(ytr, yte), eval_group=[gtr, gte],
               eval_sample_weight=[weights, eval_weights[0]] if weighted else None,
               eval_names=["train", "test"], eval_at=[10], callbacks=[lgb.early_stopping(3, verbose=False)])
    builtin = lgb.LGBMRanker(objective="lambdarank", n_estimators=200, **SKLEARN).fit(Xtr, ytr, **fit)
    metric = NDCGMetric(10, name="ndcg")
    custom = lgb.LGBMRanker(objective=LambdarankObjective(), metric="None", n_estimators=200, **SKLEARN)
    custom.fit(Xtr, ytr, eval_metric=metric, **fit)
    assert list(custom.evals_result_["test"]) == ["ndcg@10"]
    assert custom.evals_result_ == builtin.evals_result_
    assert custom.best_iteration_ == builtin.best_iteration_ < 200     # early stopping did stop
    assert custom.best_score_ == builtin.best_score_
    assert_same_model(builtin, custom, Xte)


def test_lgbmranker_metric_next_to_the_builtin(shared_data):
    # The default name does not collide with the built-in's; the values agree to the bit.
    Xtr, ytr, gtr, Xte, yte, gte = load(shared_data, "mq2008")
    ranker = lgb.LGBMRanker(n_estimators=5, **SKLEARN)
    ranker.fit(Xtr, ytr, group=gtr, eval_X=(Xte,), eval_y=(yte,), eval_group=[gte], eval_at=[1, 5],
               eval_metric=NDCGMetric([1, 5]))
    result = ranker.evals_result_["valid_0"]
    assert sorted(result) == ["ndcg@1", "ndcg@5", "ndcg[lightgbm]@1", "ndcg[lightgbm]@5"]
    for k in (1, 5):
        assert result[f"ndcg[lightgbm]@{k}"] == result[f"ndcg@{k}"] and len(result[f"ndcg@{k}"]) == 5


def test_one_objective_two_fits_do_not_mix_state(shared_data):
    # One object (sklearn's clone shares it), fitted on different data and on the
    # same labels with other groups, through both APIs: every model is the built-in's.
    obj = LambdarankObjective()
    metric = NDCGMetric(5, name="ndcg")
    Xa, ya, ga, _, _, _ = load(shared_data, "lightgbm-rank")
    merged = np.add.reduceat(ga, np.arange(0, len(ga), 2))          # same rows, other queries
    for X, y, g in ((Xa, ya, ga), load(shared_data, "mq2008")[:3], (Xa, ya, merged), (Xa, ya, ga)):
        fit = dict(group=g, eval_X=(X,), eval_y=(y,), eval_group=[g], eval_at=[5])
        builtin = lgb.LGBMRanker(n_estimators=5, **SKLEARN).fit(X, y, **fit)
        custom = lgb.LGBMRanker(objective=obj, metric="None", n_estimators=5, **SKLEARN)
        custom.fit(X, y, eval_metric=metric, **fit)
        assert_same_model(builtin, custom, X)
        assert custom.evals_result_ == builtin.evals_result_
        train = lgb.train(dict(BASE, objective=obj), lgb.Dataset(X, y, group=g), 5)
        assert np.array_equal(bits(train.predict(X, raw_score=True)), bits(custom.predict(X, raw_score=True)))


def test_lgbmranker_with_the_soft_ndcg_objective(shared_data):
    # LightGBMObjective("softndcg") in the scikit-learn API trains the model lightgbm.train trains.
    from fastndcg.integrations import LightGBMObjective

    Xtr, ytr, gtr, Xte, _, _ = load(shared_data, "mq2008")
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=len(ytr))
    obj = LightGBMObjective("softndcg", sigma=0.5, k=10)
    ranker = lgb.LGBMRanker(objective=obj, n_estimators=8, **SKLEARN).fit(Xtr, ytr, group=gtr, sample_weight=weights)
    assert obj.n_plans_built == 1                   # one plan for the fit, not one per round
    booster = lgb.train(dict(BASE, objective=LightGBMObjective("softndcg", sigma=0.5, k=10)),
                        lgb.Dataset(Xtr, ytr, group=gtr, weight=weights), 8)
    p1, p2 = booster.predict(Xte, raw_score=True), ranker.predict(Xte, raw_score=True)
    assert np.array_equal(bits(p1), bits(p2)) and np.ptp(p1) > 0


def test_scikit_learn_calls_that_cannot_work_say_why(shared_data):
    from fastndcg.integrations import LightGBMObjective

    Xtr, ytr, gtr, _, _, _ = load(shared_data, "mq2008")
    for obj in (LambdarankObjective(), LightGBMObjective("softndcg")):
        name = type(obj).__name__
        # LGBMRegressor passes no groups
        with pytest.raises(ValueError, match=f"{name} needs the query groups, and none were passed: fit "
                                             r"lightgbm.LGBMRanker\(objective=...\).fit\(X, y, group=sizes\)"):
            lgb.LGBMRegressor(objective=obj, n_estimators=1, verbose=-1).fit(Xtr, ytr)
        y = np.array([0.0, 1.0, 2.0, 0.0])
        with pytest.raises(ValueError, match=r"group sizes must add up to the number of rows \(4\); got sum\(group\)=5"):
            obj(y, np.zeros(4), None, np.array([2, 3]))
        with pytest.raises(ValueError, match=r"group sizes must be >= 0; got group\[1\]=-1"):
            obj(y, np.zeros(4), None, np.array([5, -1]))
        with pytest.raises(ValueError, match=r"y_pred must have one raw score per row \(4\); got an array of shape \(3,\)"):
            obj(y, np.zeros(3), None, np.array([2, 2]))
        with pytest.raises(ValueError, match=r"weight must have one entry per row \(4\); got an array of shape \(2,\)"):
            obj(y, np.zeros(4), np.ones(2), np.array([2, 2]))
        with pytest.raises(TypeError, match=rf"{name} takes \(preds, lightgbm.Dataset\) or \(y_true, y_pred, weight, group\); got str"):
            obj(y, "scores")
        ds = lgb.Dataset(np.zeros((4, 1)), y, group=[2, 2]).construct()
        with pytest.raises(TypeError, match="got a Dataset with weight or group: they are read from the Dataset"):
            obj(np.zeros(4), ds, None, np.array([2, 2]))
    # the metric: its direct (y_true, y_pred, weight, group) call equals its Dataset call
    metric = NDCGMetric([1, 3])
    preds = np.random.default_rng(0).normal(size=len(ytr))
    assert metric(ytr, preds, None, gtr) == metric(preds, lgb.Dataset(Xtr, ytr, group=gtr).construct())
    with pytest.raises(ValueError, match="NDCGMetric needs the query groups"):
        metric(ytr, preds)


def test_metric_names():
    assert NDCGMetric(10).name == "ndcg[lightgbm]"
    assert NDCGMetric(10, name="ndcg")(np.zeros(2), np.zeros(2), None, [2])[0][0] == "ndcg@10"
    # the built-in's names with any label_gain (LightGBM's metric reads it too)
    NDCGMetric(10, name="ndcg", convention=fastndcg.get_preset("lightgbm").replace(gain=(0.0, 1.0, 3.0)))
    # ... but not for another number
    for conv in ("standard", fastndcg.get_preset("lightgbm").replace(empty="zero")):
        with pytest.raises(ValueError, match="name='ndcg' gives LightGBM's own metric names"):
            NDCGMetric(10, name="ndcg", convention=conv)
    with pytest.raises(ValueError, match=r"name is the prefix of the metric names .* got name='ndcg@10': "
                                         r"pass name='ndcg' and k"):
        NDCGMetric(10, name="ndcg@10")
    with pytest.raises(TypeError, match="name must be a non-empty str or None; got 10"):
        NDCGMetric(10, name=10)
    # a repeated cutoff is one metric (it was two metrics named ndcg@10; issue 33 item 1)
    got = NDCGMetric([10, 5, 10], name="ndcg")(np.zeros(2), np.zeros(2), None, [2])
    assert [n for n, _, _ in got] == ["ndcg@10", "ndcg@5"]


def test_fitted_lgbmranker_pickles(shared_data):
    # A fitted LGBMRanker keeps its objective: pickle (joblib.dump) raised "cannot
    # pickle 'weakref.ReferenceType' object" / "Can't pickle local object" (the caches).
    import pickle

    from fastndcg.integrations import LightGBMObjective

    Xtr, ytr, gtr, Xte, yte, gte = load(shared_data, "mq2008")
    builtin = lgb.LGBMRanker(n_estimators=5, **SKLEARN).fit(Xtr, ytr, group=gtr)
    for obj in (LambdarankObjective(), LightGBMObjective("softndcg", k=10)):
        metric = NDCGMetric(5)
        ranker = lgb.LGBMRanker(objective=obj, n_estimators=5, **SKLEARN)
        ranker.fit(Xtr, ytr, group=gtr, eval_X=(Xte,), eval_y=(yte,), eval_group=[gte], eval_metric=metric)
        copy = pickle.loads(pickle.dumps(ranker))
        assert np.array_equal(bits(copy.predict(Xte)), bits(ranker.predict(Xte)))
        refit = copy.fit(Xtr, ytr, group=gtr)               # the unpickled objective trains again
        assert np.array_equal(bits(refit.predict(Xte)), bits(ranker.predict(Xte)))
        if obj.loss == "lambdamart":                      # the SoftNDCG loss trains another model
            assert_same_model(builtin, refit, Xte)
        train = lgb.Dataset(Xtr, ytr, group=gtr)
        lgb.train(dict(BASE, objective=obj), train, 2, valid_sets=[train], feval=metric)
        pickle.loads(pickle.dumps((obj, metric)))            # after lightgbm.train too (weak references)
        copied_metric = pickle.loads(pickle.dumps(metric))
        assert copied_metric(yte, ranker.predict(Xte), None, gte) == metric(yte, ranker.predict(Xte), None, gte)


def test_metric_signatures_state_the_measurement():
    metric = NDCGMetric([5, 10])
    sigs = metric.signatures
    assert [fastndcg.from_signature(s).cutoff for s in sigs] == [5, 10]
    assert all(fastndcg.from_signature(s).convention.name == "lightgbm" for s in sigs)
    assert sigs[0].startswith("nDCG@5|gain:table:exp:0-3") and "|ideal:cut,run|" in sigs[0]


# ----------------------------------------------------------------------------- threads


@pytest.mark.parametrize("given, host", [({"num_threads": 1}, 1), ({"n_jobs": 1}, 1), ({"nthread": 2}, 2),
                                         ({"num_threads": 0}, None), ({}, None)])
def test_the_default_threads_follow_the_trainings_num_threads(shared_data, monkeypatch, given, host):
    """An objective and a metric left at the default thread count use no more
    threads than the training was given (num_threads or an alias); an explicit
    n_threads stays the caller's."""
    import fastndcg._core.threads as threads
    import fastndcg.integrations._trainings as trainings

    used = []

    def spy(limit, n_threads=None):
        got = threads.threads_within(limit, n_threads)
        used.append((limit, n_threads, got))
        return got

    monkeypatch.setattr(trainings, "threads_within", spy)
    monkeypatch.setattr(flgb, "threads_within", spy)
    Xtr, ytr, gtr, _, _, _ = load(shared_data, "lightgbm-rank")
    params = {k: v for k, v in BASE.items() if k != "num_threads"}
    params.update(given, objective="lambdarank")
    obj, metric = LambdarankObjective.from_params(params), NDCGMetric(10)
    ds = lgb.Dataset(Xtr, ytr, group=gtr)
    lgb.train(dict(params, objective=obj, metric="None"), ds, 2, valid_sets=[ds], feval=metric)
    assert obj._trainings.last.host_threads == host
    assert used and all(limit == host and n is None for limit, n, _ in used)
    # at most the training's count, and at most the CPUs this process may use (the default count
    # also leaves out the CPUs busy at each call: read again here, after the training, it may
    # differ from what the calls read, so it bounds nothing; with LightGBM's threads still
    # spinning at the end it once read 1 after calls that rightly took 2)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    assert {got for _, _, got in used} <= ({None} if host is None else set(range(1, min(host, cpus) + 1)))
    used.clear()
    explicit = LambdarankObjective.from_params(params, n_threads=2)
    lgb.train(dict(params, objective=explicit, metric="None"), lgb.Dataset(Xtr, ytr, group=gtr), 1)
    assert used and all(got == 2 for _, _, got in used)


def test_letor_labels_outside_the_table_are_told_once(shared_data):
    """LightGBM's example data (labels 0-4) under letor4: the objective and the metric said
    nothing about labels 3 and 4 getting gain 0 (issue 33 item 6); one warning each, at the
    caller's line, when they first see the Dataset."""
    _, _, _, X, y, group = load_ranking_dataset(shared_data, "lightgbm-rank")
    ds = lgb.Dataset(X, y, group=group, free_raw_data=False).construct()
    preds = np.linspace(0, 1, len(y))
    for f in (LambdarankObjective(mode="default", convention="letor4"), NDCGMetric([5, 10], convention="letor4")):
        got = told_unknown_labels(lambda: f(preds, ds))
        assert len(got) == 1 and got[0].filename == __file__
        assert "labels: 54 of 768 documents have a label outside the gain table (3, 4)" in str(got[0].message)
