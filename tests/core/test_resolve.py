"""Every family takes its kernel tables from one resolution (fastndcg._core.resolve)
and validates each input once at set-up."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fastndcg import Convention
from fastndcg._core import _ndcg, prepared, query_checks
from fastndcg._core.resolve import EMPTY_VALUES, resolve
from fastndcg import LambdaMART
from fastndcg import soft_ndcg
from fastndcg.measures._softrank import SoftNDCGObjective


@pytest.fixture
def checks(monkeypatch):
    """Counts of offsets checks and label checks (Python's and the NDCG kernel's fused one)."""
    counts = {"offsets": 0, "labels": 0}
    real_offsets, real_labels = query_checks.offsets_problem, _ndcg.check_labels_batch

    def offsets_problem(*args):
        counts["offsets"] += 1
        return real_offsets(*args)

    def check_labels_batch(*args):
        counts["labels"] += 1
        return real_labels(*args)

    class SpyKernel(prepared.NDCGKernel):
        def compute_ideal(self, flags, check_labels, n_threads):
            counts["labels"] += bool(check_labels)
            return super().compute_ideal(flags, check_labels, n_threads)

    monkeypatch.setattr(query_checks, "offsets_problem", offsets_problem)
    monkeypatch.setattr(_ndcg, "check_labels_batch", check_labels_batch)
    monkeypatch.setattr(prepared, "NDCGKernel", SpyKernel)
    return counts


LABELS = np.array([3, 0, 1, 2, 0, 1], dtype=np.int64)
OFFSETS = np.array([0, 4, 6], dtype=np.int64)
SCORES = np.array([0.5, 0.1, -0.2, 0.3, 0.0, 0.7])


@pytest.mark.parametrize("mode", ["default", "xgboost"])
def test_lambdamart_checks_labels_and_offsets_once(checks, mode):
    model = LambdaMART(LABELS, OFFSETS, mode=mode)
    assert checks == {"offsets": 1, "labels": 1}
    assert np.all(model.ideal_dcg > 0)


def test_softndcg_checks_labels_and_offsets_once(checks):
    values = soft_ndcg(SCORES, LABELS, OFFSETS, sigma=1.0)
    assert checks == {"offsets": 1, "labels": 1}
    assert values.shape == (2,)
    SoftNDCGObjective().plan(LABELS, OFFSETS)
    assert checks == {"offsets": 2, "labels": 2}


def test_a_label_error_still_reads_as_before():
    with pytest.raises(ValueError, match=r"labels must be non-negative integers.*labels\[1\]=-1"):
        LambdaMART([1, -1], [0, 2])
    with pytest.raises(ValueError, match=r"labels must be non-negative integers.*labels\[1\]=-1"):
        soft_ndcg([0.1, 0.2], [1, -1], [0, 2], sigma=1.0)
    with pytest.raises(ValueError, match="ideal DCG 0 and the convention says empty='error'"):
        soft_ndcg([0.1, 0.2], [0, 0], [0, 2], sigma=1.0, convention=Convention(empty="error"))


@pytest.mark.parametrize("empty", ["zero", "one", "skip", "error"])
def test_the_resolution_holds_the_empty_value_and_short_rule(empty):
    res = resolve(Convention(empty=empty))
    assert res.empty_value == EMPTY_VALUES[empty] or (math.isnan(res.empty_value) and empty in ("skip", "error"))
    assert not hasattr(res, "empty_code")
    assert resolve(Convention(short="zero")).short_zero and not resolve(Convention(short="clamp")).short_zero
