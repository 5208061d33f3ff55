"""Differential fuzz tier, the LightGBM and XGBoost objectives (both losses) and metrics, called
on a Dataset / DMatrix without training, against the reference; the generators are in
fuzz_cases.py, the tier's description in test_fuzz_differential.py."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import fastndcg
from fastndcg import Convention, reference
from fastndcg.reference import _softrank as ref_softrank
from fastndcg._core.resolve import FLOAT32_OVERFLOW

from conftest import require, fuzz_settings
from fuzz_cases import (Batch, Outcome, agree, close, expect_score_error, first_overflow32, grad_compare, run,
                        run_ref, score_values)

pytestmark = [pytest.mark.fuzz]


# ----------------------------------------------------------------------------- objectives and metrics


@st.composite
def library_batches(draw, max_label: int = 4, overflow32_ok: bool = False):
    # empty groups too (both libraries accept them), but at least one row
    sizes = draw(st.lists(st.integers(0, 8), min_size=1, max_size=4).filter(lambda v: sum(v) > 0))
    off = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
    n = int(off[-1])
    labels = np.asarray(draw(st.lists(st.integers(0, max_label), min_size=n, max_size=n)), dtype=np.float32)
    pool = draw(st.lists(score_values(allow_overflow32=overflow32_ok), min_size=1, max_size=6))
    preds = np.asarray(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=np.float64)
    if not overflow32_ok:
        preds = np.where(np.abs(preds) < FLOAT32_OVERFLOW, preds, 0.0)
    return preds, labels, off


@fuzz_settings(0.4)
@given(library_batches(overflow32_ok=True), st.data())
def test_lightgbm_objective_and_metric_equal_the_reference(batch, data):
    lgb = require("lightgbm")
    from fastndcg.integrations import LightGBMObjective as LambdarankObjective, LightGBMNDCGMetric as NDCGMetric

    preds, labels, off = batch
    n = len(preds)
    sizes = np.diff(off)
    row_w = data.draw(st.one_of(st.none(), st.lists(st.sampled_from([1.0, 0.5, 2.0, 3.0, 1e-30]),
                                                    min_size=n, max_size=n).map(lambda v: np.asarray(v, np.float32))),
                      label="row weights")
    ds = lgb.Dataset(np.zeros((n, 1)), label=labels, group=sizes, weight=row_w,
                     free_raw_data=False, params={"verbose": -1}).construct()
    mode = data.draw(st.sampled_from(["lightgbm", "default"]), label="mode")
    conv = None if mode == "lightgbm" else data.draw(st.sampled_from(["lightgbm", "xgboost", "letor4", None]))
    truncation = data.draw(st.one_of(st.just("auto"), st.none(), st.integers(1, 10)), label="truncation")
    sigma = data.draw(st.sampled_from([1.0, 0.5, 2.0]), label="sigma")
    normalize = data.draw(st.booleans(), label="normalize")
    obj = LambdarankObjective(mode=mode, convention=conv, truncation=truncation, sigma=sigma, normalize=normalize)
    b = Batch(preds, labels, off, None, None, first_overflow32(preds))
    fast = run(lambda: obj(preds, ds))
    if not expect_score_error(fast, b, obj.convention.score_precision == "float32", "LambdarankObjective",
                              lambda: Outcome(True)):
        ref = run_ref(lambda: reference.lambda_gradients(preds, labels, off, mode=mode, convention=obj.convention,
                                                      truncation=truncation, sigma=sigma, normalize=normalize,
                                                      score_normalization=normalize, sample_weights=row_w))
        if agree(fast, ref, "LambdarankObjective", grad_compare(dict(mode=mode), np.float64)):
            assert np.isfinite(fast.value[0]).all() and np.isfinite(fast.value[1]).all()

    k = data.draw(st.lists(st.integers(1, 10), min_size=1, max_size=3), label="k")
    mconv = data.draw(st.sampled_from(["lightgbm", "standard", "letor4", "xgboost", "sklearn"]), label="metric conv")
    metric = NDCGMetric(k, convention=mconv)
    conv_obj = fastndcg.get_preset(mconv)
    fast = run(lambda: [v for _, v, _ in metric(preds, ds)])
    if expect_score_error(fast, b, conv_obj.score_precision == "float32", "NDCGMetric", lambda: Outcome(True)):
        return
    qw = None
    stored = ds.get_field("weight")     # what LightGBM keeps: none when every row weight is 1
    if stored is not None:   # LightGBM's query weight: the float32 mean of the query's row weights (0 if empty)
        qw = np.array([np.float32(np.cumsum(stored[a:b], dtype=np.float32)[-1] / np.float32(b - a)) if b > a
                       else 0.0 for a, b in zip(off[:-1], off[1:])], dtype=np.float64)
    distinct = list(dict.fromkeys(k))       # a repeated cutoff is one metric (one name in the log)
    agree(fast, run_ref(lambda: reference.mean_ndcg(preds, labels, off, distinct, conv_obj, qw)), "NDCGMetric",
          close())


@fuzz_settings(0.4)
@given(library_batches(), st.data())
def test_xgboost_objective_and_metric_equal_the_reference(batch, data):
    xgb = require("xgboost")
    from fastndcg.integrations import XGBoostNDCGMetric as NDCGMetric, XGBoostObjective as RankNDCGObjective

    preds, labels, off = batch
    n = len(preds)
    preds = preds.astype(np.float32)        # XGBoost hands float32 margins to objectives
    dm = xgb.DMatrix(np.zeros((n, 1)), label=labels)
    dm.set_group(np.diff(off))
    gw = data.draw(st.one_of(st.none(), st.lists(st.sampled_from([1.0, 0.5, 2.0, 3.0]), min_size=len(off) - 1,
                                                 max_size=len(off) - 1).map(lambda v: np.asarray(v, np.float32))),
                   label="group weights")
    if gw is not None:
        dm.set_weight(gw)
    mode = data.draw(st.sampled_from(["xgboost", "default"]), label="mode")
    conv = data.draw(st.sampled_from([None, Convention(gain="linear")] + ([] if mode == "xgboost" else ["xgboost"])))
    truncation = data.draw(st.one_of(st.just("auto"), st.none(), st.integers(1, 10)), label="truncation")
    normalize = data.draw(st.booleans(), label="normalize")
    obj = RankNDCGObjective(mode=mode, convention=conv, truncation=truncation, normalize=normalize)
    fast = run(lambda: obj(preds, dm))
    ref = run_ref(lambda: reference.lambda_gradients(preds, labels, off, mode=mode, convention=obj.convention,
                                                  truncation=truncation, normalize=normalize, query_weights=gw))
    if agree(fast, ref, "RankNDCGObjective", grad_compare(dict(mode=mode), np.float32)):
        assert np.isfinite(fast.value[0]).all() and np.isfinite(fast.value[1]).all()

    k = data.draw(st.lists(st.integers(1, 10), min_size=1, max_size=3), label="k")
    mconv = data.draw(st.sampled_from(["xgboost", "xgboost_minus", "standard"]), label="metric conv")
    metric = NDCGMetric(k, convention=mconv)
    fast = run(lambda: [v for _, v in metric(preds, dm)])
    distinct = list(dict.fromkeys(k))       # a repeated cutoff is one metric (one name in the log)
    ref = run_ref(lambda: reference.mean_ndcg(preds, labels, off, distinct, fastndcg.get_preset(mconv),
                                              None if gw is None else gw.astype(np.float64)))
    agree(fast, ref, "xgboost NDCGMetric", close())


@fuzz_settings(0.3)
@given(library_batches(max_label=3), st.data())
def test_softndcg_library_objectives_equal_the_reference(batch, data):
    lgb = require("lightgbm")
    xgb = require("xgboost")
    from fastndcg.integrations import LightGBMObjective, XGBoostObjective

    preds, labels, off = batch
    n = len(preds)
    sizes = np.diff(off)
    kw = dict(sigma=data.draw(st.sampled_from([1.0, 0.3, 3.0])), k=data.draw(st.one_of(st.none(), st.integers(1, 9))),
              convention=data.draw(st.sampled_from([None, "xgboost", "letor4", "lightgbm"])),
              max_docs=data.draw(st.one_of(st.none(), st.integers(1, 9))))
    min_h = data.draw(st.sampled_from([1e-6, 0.0, 0.1]))
    w = data.draw(st.one_of(st.none(), st.lists(st.sampled_from([1.0, 0.5, 2.0]), min_size=len(sizes),
                                                max_size=len(sizes)).map(lambda v: np.asarray(v, np.float32))))
    row_w = None if w is None else np.repeat(w, sizes)
    ds = lgb.Dataset(np.zeros((n, 1)), label=labels, group=sizes, weight=row_w, free_raw_data=False,
                     params={"verbose": -1}).construct()
    lobj = LightGBMObjective("softndcg", min_hessian=min_h, **kw)
    g, h = lobj(preds, ds)
    _, rg, rh = ref_softrank.soft_ndcg_grad_hess(preds, labels, off, **dict(kw, convention=lobj.convention))
    rw = np.ones(n) if row_w is None else row_w.astype(np.float64)
    np.testing.assert_allclose(g, -rw * rg, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(h, rw * np.maximum(rh, min_h), rtol=1e-10, atol=1e-13)

    dm = xgb.DMatrix(np.zeros((n, 1)), label=labels)
    dm.set_group(sizes)
    if w is not None:
        dm.set_weight(w)
    xobj = XGBoostObjective("softndcg", min_hessian=min_h, **kw)
    p32 = preds.astype(np.float32)
    assume(np.isfinite(p32).all())
    g, h = xobj(p32, dm)
    assert g.dtype == np.float32
    _, rg, rh = ref_softrank.soft_ndcg_grad_hess(p32.astype(np.float64), labels, off, **dict(kw, convention=xobj.convention))
    np.testing.assert_allclose(g, -rw * rg, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(h, rw * np.maximum(rh, min_h), rtol=1e-5, atol=1e-7)
