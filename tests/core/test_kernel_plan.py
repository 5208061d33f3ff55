"""The compiled kernel plan (fastndcg/_core/_kernel_plan.pyx): the one struct every family's
kernel reads is the plan of plan.py, member for member, for every preset and renamed."""
from __future__ import annotations

import numpy as np
import pytest

import fastndcg
from fastndcg._core.plan import kernel_plan
from fastndcg._core.query_checks import FULL_LIST


@pytest.mark.parametrize("name", fastndcg.list_presets())
def test_the_compiled_plan_is_the_plan(name):
    for conv in (fastndcg.get_preset(name), fastndcg.get_preset(name).replace(name="mine")):
        plan = kernel_plan(conv, 20, [1, None, 5])
        res = plan.res
        m = plan.compiled().members()
        table, last, linear = plan.gains
        assert (m["linear"], m["last"]) == (linear, last) == (res.linear, res.last)
        assert (m["count_size"], m["need_integer"], m["label_limit"], m["table_holes"]) == \
            (res.count_size, res.need_integer, res.label_limit, res.table_holes)
        assert (m["round_f32"], m["score_limit"], m["overflow_inf"], m["tie_mode"], m["key_desc"]) == \
            (res.round_f32, res.score_limit, res.overflow_inf, res.tie_code, plan.key_desc)
        assert m["cutoffs"] == [1, FULL_LIST, 5] == plan.cutoffs.tolist()
        assert m["short_limit"] == plan.short_limit.tolist()
        assert m["empty_value"] == plan.empty_value or (np.isnan(m["empty_value"]) and np.isnan(plan.empty_value))
        assert m["ideal_whole"] == (conv.ideal == "full")


def test_lightgbm_looks_a_linear_gain_up_in_a_table():
    plan = kernel_plan(fastndcg.Convention(gain="linear"), 4, [None], gain_table=np.arange(4.0))
    m = plan.compiled().members()
    assert (m["linear"], m["last"]) == (False, 4)
    # the same gradients as the default mode's linear gain reads it: G(l) = l either way
    s, y, off = np.array([0.3, 0.1, 0.2, 0.0]), np.array([3, 0, 1, 2]), np.array([0, 4])
    g, h = fastndcg.lambda_gradients(s, y, off, convention=fastndcg.Convention(gain="linear"), mode="lightgbm")
    assert np.all(np.isfinite(g)) and g[0] < 0 < g[1]
