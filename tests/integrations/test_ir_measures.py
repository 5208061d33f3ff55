"""The ir_measures provider hands ir_measures fastndcg's exact means (issue 25, item 6).

ir_measures' evaluators average the per-query values themselves (``MeanAgg``: a
running float sum, divided by the count); the provider's evaluator returns the
mean fastndcg computes, so ``ir_measures.calc_aggregate`` after ``register()`` is
``fastndcg.evaluate(...).aggregated`` bit for bit. A call that mixes providers
(``nDCG`` with ``P@5``) goes through ir_measures' own ``FallbackEvaluator``,
which averages with ``MeanAgg`` again (docs/files-and-cli.md, "ir_measures").
"""
from __future__ import annotations

import pytest

import fastndcg
import fastndcg.integrations as ir_measures_provider

from conftest import require

pytestmark = [pytest.mark.peers]

ir_measures = require("ir_measures")
pd = require("pandas")
nDCG = ir_measures.nDCG

# nDCG of each query: 1, 1/log2(7) (the relevant document 6th), 1. Summed left to right in
# float64 and divided by 3: 0.785402395702674; the exact mean: 0.7854023957026741.
QRELS = {q: {"r": 1} for q in ("q1", "q2", "q3")}
RUN = {"q1": {"r": 1.0}, "q2": {**{f"n{i}": 2.0 + i for i in range(5)}, "r": 1.0}, "q3": {"r": 1.0}}


def _float_sum_mean(values):
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


@pytest.fixture
def registered():
    p = ir_measures_provider.register_ir_measures()
    try:
        yield p
    finally:
        ir_measures_provider.unregister_ir_measures()


def _shapes():
    qrels = [ir_measures.Qrel(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    return [(QRELS, RUN), (qrels, run), (pd.DataFrame(qrels), pd.DataFrame(run))]


def test_the_case_separates_float_sum_and_exact_mean():
    ev = fastndcg.evaluate([nDCG, nDCG @ 5], QRELS, RUN)
    assert _float_sum_mean(ev.values[:, 0].tolist()) != ev.aggregated[nDCG]
    assert ir_measures.calc_aggregate([nDCG], QRELS, RUN)[nDCG] == _float_sum_mean(ev.values[:, 0].tolist())


@pytest.mark.parametrize("shape", range(3))
def test_provider_aggregates_are_fastndcg_means_bit_for_bit(registered, shape):
    qrels, run = _shapes()[shape]
    measures = [nDCG, nDCG @ 5, nDCG(dcg="exp-log2") @ 5]
    want = fastndcg.evaluate(measures, qrels, run).aggregated
    got = ir_measures.calc_aggregate(measures, qrels, run)
    assert got == {m: want[m] for m in measures}
    calc = ir_measures.calc(measures, qrels, run)
    assert calc.aggregated == got and len(calc.per_query) == 3 * 3
    assert registered.evaluator(measures, qrels).calc_aggregate(run) == got
    # the per-query values are fastndcg's too
    per = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    ev = fastndcg.evaluate(measures, qrels, run)
    assert per == {(q, m): ev.values[i, j] for i, q in enumerate(ev.query_ids) for j, m in enumerate(measures)}


def test_judged_queries_without_results_count_in_the_mean(registered):
    run = {"q1": RUN["q1"], "q2": RUN["q2"]}            # q3 judged, not retrieved: 0
    got = ir_measures.calc_aggregate([nDCG], QRELS, run)[nDCG]
    assert got == fastndcg.evaluate([nDCG], QRELS, run, missing="zero").aggregated[nDCG]   # ir_measures' rule
    assert len(list(ir_measures.iter_calc([nDCG], QRELS, run))) == 3


def test_mixed_providers_average_with_ir_measures_own_mean(registered):
    """Documented limit: nDCG with a measure of another provider goes through ir_measures'
    FallbackEvaluator, whose mean is the float sum of the per-query values."""
    agg = ir_measures.calc_aggregate([nDCG, ir_measures.P @ 5], QRELS, RUN)
    ev = fastndcg.evaluate([nDCG], QRELS, RUN)
    assert agg[nDCG] == _float_sum_mean(ev.values[:, 0].tolist()) != ev.aggregated[nDCG]
