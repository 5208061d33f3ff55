"""The kernel plan (fastndcg/_core/plan.py): one function gives every family its kernel inputs,
and the worst / best tie rule is one gain-rank key that every ranking reads."""
from __future__ import annotations

import numpy as np
import pytest

import fastndcg
import fastndcg.reference
from fastndcg import Convention
from fastndcg._core.plan import kernel_plan, tie_key_for
from fastndcg._core.query_checks import FULL_LIST
from fastndcg._core.resolve import gain_rank_key
from conftest import make_batch


def test_the_plan_gives_each_column_its_short_limit_depth_and_discount():
    conv = Convention(short="zero", empty="one")
    plan = kernel_plan(conv, 7, [3, None, 10])
    assert plan.cutoffs.tolist() == [3, FULL_LIST, 10]
    assert plan.short_limit.tolist() == [3, 0, 10]          # the whole list: no query is shorter
    assert plan.depth == 7 and plan.disc.shape[0] >= 7 and plan.empty_value == 1.0
    assert kernel_plan(Convention(), 7, [3]).short_limit.tolist() == [0]        # short="clamp"
    assert kernel_plan(conv, 50, [None], depth=1).depth == 1
    log2 = kernel_plan(Convention(discount="letor"), 5, [None], log2_discount=True).disc
    assert log2[:3].tolist() == pytest.approx([1.0, 1 / np.log2(3), 0.5])
    arr = Convention(discount=(4.0, 2.0, 1.0))
    assert kernel_plan(arr, 3, [None], unit_discount=True).disc.tolist() == [1.0, 0.5, 0.25]
    table, last, linear = kernel_plan(arr, 3, [None]).gains       # the convention's: labels past it read 0
    assert linear is False and table[:3].tolist() == [0.0, 1.0, 3.0] and table[last] == 0.0
    assert kernel_plan(Convention(gain="linear"), 3, [None]).gains[2] is True
    # LightGBM looks a linear gain up by integer label: the table 0, 1, 2 (then the zero slot)
    table, last, linear = kernel_plan(Convention(gain="linear"), 3, [None], gain_table=np.arange(3.0)).gains
    assert (table.tolist(), last, linear) == ([0.0, 1.0, 2.0, 0.0], 3, False)


@pytest.mark.parametrize("gain", ["exponential", "linear", (0.0, 5.0, 1.0)])
def test_the_gain_rank_key_orders_as_the_gains(gain):
    conv = Convention(gain=gain, ties="worst")
    labels = np.array([0, 2, 1, 2, 0, 1])
    key = gain_rank_key(conv, labels)
    gains = {"exponential": [0, 3, 1, 3, 0, 1], "linear": [0, 2, 1, 2, 0, 1], (0.0, 5.0, 1.0): [0, 1, 5, 1, 0, 5]}
    g = np.array(gains[gain if isinstance(gain, str) else (0.0, 5.0, 1.0)], dtype=float)
    for i in range(6):
        for j in range(6):
            assert (key[i] < key[j]) == (g[i] < g[j]) and (key[i] == key[j]) == (g[i] == g[j])
    # labels the kernel will refuse get some key, never an error or a warning here
    with np.errstate(all="raise"):
        gain_rank_key(Convention(ties="best"), np.array([np.nan, -3.0, 1e9, 2.5]))


def test_worst_and_best_are_the_key_rules_on_the_gain_ranks():
    rng = np.random.default_rng(3)
    s, y, off = make_batch(rng, n_queries=30, max_docs=25, n_score_values=3)
    for ties, key_ties in (("worst", "key"), ("best", "key_desc")):
        conv = Convention(ties=ties)
        key = tie_key_for(conv, None, y)
        by_key = Convention(ties=key_ties)
        for k in (None, 1, [2, 5]):
            assert fastndcg.ndcg(s, y, off, k, convention=conv).tobytes() == \
                fastndcg.ndcg(s, y, off, k, convention=by_key, tie_key=key).tobytes()
        g, h = fastndcg.lambda_gradients(s, y, off, convention=conv)
        g2, h2 = fastndcg.lambda_gradients(s, y, off, convention=by_key, tie_key=key)
        assert g.tobytes() == g2.tobytes() and h.tobytes() == h2.tobytes()
    with pytest.raises(ValueError, match="tie_key was given but the convention breaks ties by 'worst'"):
        fastndcg.ndcg(s, y, off, convention="catboost", tie_key=np.arange(len(s)))


def test_a_cutoff_as_large_as_the_whole_list_marker_is_still_a_cutoff():
    """Found by the fuzz tier: a truncation (or SoftNDCG k) of 2**62 is a cutoff like any other
    (under short="zero" every query is shorter, so every gradient is 0, as the reference says),
    not the whole list."""
    conv = Convention(short="zero")
    s, y, off = np.zeros(15), np.array([0] * 14 + [1]), np.array([0, 15])
    assert kernel_plan(conv, 15, [2 ** 62]).short_limit.tolist() == [2 ** 62]
    assert kernel_plan(conv, 15, [None]).short_limit.tolist() == [0]
    g, h = fastndcg.lambda_gradients(s, y, off, convention=conv, truncation=2 ** 62)
    rg, rh = fastndcg.reference.lambda_gradients(s, y, off, convention=conv, truncation=2 ** 62)
    assert g.tolist() == list(rg) == [0.0] * 15 and h.tolist() == list(rh)
    v = fastndcg.soft_ndcg(s + np.arange(15), y, off, sigma=0.5, k=2 ** 62, convention=conv)
    assert v.tolist() == [0.0]
