"""One objective per library, its loss a choice (fastndcg/integrations/_trainings.py): SoftNDCG
through LightGBMObjective / XGBoostObjective gives the SoftNDCG loss's numbers bit for bit (what
the former LightGBMSoftNDCGObjective / XGBoostSoftNDCGObjective computed), and a setting of the
other loss is refused. Stand-ins of the libraries' data objects: neither library is needed (but
for the trainings marked peers)."""
from __future__ import annotations

import numpy as np
import pytest

import fastndcg
from conftest import make_batch, require
from fastndcg.integrations import LightGBMObjective, XGBoostObjective
from fastndcg.integrations._lightgbm import LightGBMSoftNDCGObjective
from fastndcg.integrations._xgboost import XGBoostSoftNDCGObjective
from fastndcg.measures._softrank import SoftNDCGObjective

SETTINGS = [dict(), dict(sigma=0.5, k=5), dict(sigma=2.0, k=3, max_docs=6, min_hessian=1e-3, convention="letor4")]


class Dataset:
    """What the objectives read from a lightgbm.Dataset."""

    def __init__(self, labels, offsets, weights=None):
        self.fields = {"label": labels.astype(np.float32), "group": offsets.astype(np.int32),
                       "weight": weights, "position": None}

    def construct(self):
        return self

    def get_field(self, name):
        return self.fields[name]


class DMatrix:
    """What the objectives read from an xgboost.DMatrix (weights one per group)."""

    def __init__(self, labels, offsets, group_weights=None):
        self.labels, self.offsets = labels.astype(np.float32), offsets.astype(np.uint32)
        self.weights = np.zeros(0, np.float32) if group_weights is None else group_weights.astype(np.float32)

    def get_label(self):
        return self.labels

    def get_uint_info(self, name):
        assert name == "group_ptr"
        return self.offsets

    def get_weight(self):
        return self.weights


def _bits(a):
    return np.asarray(a).view(np.uint8).tobytes()


@pytest.mark.parametrize("settings", SETTINGS)
def test_lightgbm_objective_with_softndcg_is_the_softndcg_loss_bit_for_bit(settings):
    rng = np.random.default_rng(7)
    scores, labels, offsets = make_batch(rng, n_queries=15, max_docs=12, n_labels=3, p_empty_query=0.0)
    weights = rng.uniform(0.5, 2.0, size=labels.shape[0]).astype(np.float32)
    want = SoftNDCGObjective(**settings).grad_hess(scores, labels.astype(np.float32), offsets, weights)
    objective = LightGBMObjective("softndcg", **settings)
    data = Dataset(labels, offsets, weights)
    for _ in range(2):                                     # rounds reuse the plan of the Dataset
        got = objective(scores, data)
        assert all(_bits(g) == _bits(w) for g, w in zip(got, want))
    sizes = np.diff(offsets)
    assert all(_bits(g) == _bits(w) for g, w in zip(objective(labels, scores, weights, sizes), want))
    assert objective.n_plans_built == 2 and objective.model_for(data) is None
    assert objective.position_factors is None
    former = LightGBMSoftNDCGObjective(**settings)(scores, Dataset(labels, offsets, weights))
    assert all(_bits(g) == _bits(w) for g, w in zip(former, want))


@pytest.mark.parametrize("settings", SETTINGS)
def test_xgboost_objective_with_softndcg_is_the_softndcg_loss_bit_for_bit(settings):
    rng = np.random.default_rng(8)
    scores, labels, offsets = make_batch(rng, n_queries=15, max_docs=12, n_labels=3, dtype=np.float32,
                                         p_empty_query=0.0)
    group_weights = rng.uniform(0.5, 2.0, size=offsets.shape[0] - 1).astype(np.float32)
    want = SoftNDCGObjective(**settings).grad_hess(scores, labels.astype(np.float32), offsets,
                                                   np.repeat(group_weights, np.diff(offsets)))
    objective = XGBoostObjective("softndcg", **settings)
    dmat = DMatrix(labels, offsets, group_weights)
    for _ in range(2):
        got = objective(scores, dmat)
        assert got[0].dtype == np.float32
        assert all(_bits(g) == _bits(w) for g, w in zip(got, want))
    assert objective.n_plans_built == 1 and objective.t_plus is None
    former = XGBoostSoftNDCGObjective(**settings)(scores, DMatrix(labels, offsets, group_weights))
    assert all(_bits(g) == _bits(w) for g, w in zip(former, want))
    with pytest.raises(TypeError, match="expected an xgboost.DMatrix; got ndarray. XGBoost's scikit-learn API"):
        objective(scores, labels)


def test_a_setting_of_the_other_loss_is_refused():
    for objective in (LightGBMObjective, XGBoostObjective):
        with pytest.raises(ValueError, match=r"truncation= is a setting of loss='lambdamart'; got truncation=10 "
                                             r"with loss='softndcg' \(pass loss='lambdamart', or leave "
                                             r"truncation= out\)"):
            objective("softndcg", truncation=10)
        with pytest.raises(ValueError, match=r"k= is a setting of loss='softndcg'; got k=10 with loss='lambdamart'"):
            objective(k=10)
        with pytest.raises(ValueError, match=r"min_hessian= is a setting of loss='softndcg'"):
            objective("lambdamart", min_hessian=0.0)
        with pytest.raises(ValueError, match=r"loss must be one of \('lambdamart', 'softndcg'\); got loss='soft'"):
            objective("soft")
    with pytest.raises(ValueError, match="label_gain= is a setting of loss='lambdamart'"):
        LightGBMObjective("softndcg", label_gain=np.array([0.0, 1.0, 3.0]))
    with pytest.raises(ValueError, match="unbiased= is a setting of loss='lambdamart'"):
        XGBoostObjective("softndcg", unbiased=True)
    with pytest.raises(ValueError, match="sigma must be finite and > 0"):      # the loss's own checks
        LightGBMObjective("softndcg", sigma=0.0)
    # a setting at its default is no choice: allowed with either loss
    assert LightGBMObjective("softndcg", truncation="auto", mode="lightgbm").loss == "softndcg"


# ----------------------------------------------------------------------------- trainings with SoftNDCG


def _ranking_problem(seed, n_queries=60):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 21, size=n_queries)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 6))
    latent = X @ np.array([1.0, -0.7, 0.5, 0.0, 0.3, 0.0]) + 0.3 * rng.normal(size=n)
    labels = np.clip(np.round(latent + 1.0), 0, 4).astype(np.int64)
    return X, labels, sizes, fastndcg.offsets_from_group_sizes(sizes)


@pytest.mark.peers
def test_lightgbm_training_with_softndcg_improves_training_ndcg():
    lightgbm = require("lightgbm")
    X, y, sizes, off = _ranking_problem(0)
    obj = LightGBMObjective("softndcg", sigma=1.0, k=10)
    data = lightgbm.Dataset(X, label=y, group=sizes)
    params = dict(objective=obj, learning_rate=0.3, num_leaves=7, min_data_in_leaf=5,
                  verbosity=-1, num_threads=1, deterministic=True, force_row_wise=True)
    before = fastndcg.mean_ndcg(np.zeros(len(y)), y, off, k=10)
    booster = lightgbm.train(params, data, num_boost_round=15)
    after = fastndcg.mean_ndcg(booster.predict(X), y, off, k=10)
    assert after > before + 0.15, (before, after)
    assert after > 0.85, after
    assert obj.n_plans_built == 1                 # groups read once, cached over 15 rounds
    # The objective's SoftNDCG went up too.
    soft_before = np.mean(fastndcg.soft_ndcg(np.zeros(len(y)), y, off, sigma=1.0, k=10))
    soft_after = np.mean(fastndcg.soft_ndcg(booster.predict(X), y, off, sigma=1.0, k=10))
    assert soft_after > soft_before + 0.1


@pytest.mark.peers
def test_xgboost_training_with_softndcg_improves_training_ndcg():
    xgboost = require("xgboost")
    X, y, sizes, off = _ranking_problem(1)
    obj = XGBoostObjective("softndcg", sigma=1.0, k=10, max_docs=15)
    dtrain = xgboost.DMatrix(X, label=y)
    dtrain.set_group(sizes)
    params = dict(tree_method="hist", eta=0.3, max_depth=3, base_score=0.0, min_child_weight=0.01,
                  nthread=1, disable_default_eval_metric=1)
    before = fastndcg.mean_ndcg(np.zeros(len(y)), y, off, k=10)
    booster = xgboost.train(params, dtrain, num_boost_round=15, obj=obj)
    after = fastndcg.mean_ndcg(booster.predict(dtrain), y, off, k=10)
    assert after > before + 0.15, (before, after)
    assert obj.n_plans_built == 1


@pytest.mark.peers
def test_objectives_reject_data_without_groups():
    lightgbm = require("lightgbm")
    xgboost = require("xgboost")
    X = np.random.default_rng(0).normal(size=(200, 3))
    y = np.arange(200) % 3
    with pytest.raises(ValueError, match="no query information"):
        lightgbm.train(dict(objective=LightGBMObjective("softndcg"), verbosity=-1),
                       lightgbm.Dataset(X, label=y), num_boost_round=1)
    with pytest.raises(ValueError, match="no query information"):
        xgboost.train(dict(base_score=0.0), xgboost.DMatrix(X, label=y), num_boost_round=1,
                      obj=XGBoostObjective("softndcg"))
