"""Scores beyond float32 against the tools themselves: pytrec_eval (its C float
cast), the ir_measures provider that promises its values, torchmetrics."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fastndcg
from fastndcg.conventions import ScoreOverflowWarning
from fastndcg.measures._trec_measures import evaluate_trec
from conftest import require

pytestmark = [pytest.mark.peers]

QRELS = {"1": {"a": 1, "b": 0}}
CASES = [{"a": 1e39, "b": 2e39}, {"a": 2e39, "b": 1e39}, {"a": -1e39, "b": -2e39}, {"a": -1e39, "b": 0.0},
         {"a": float("inf"), "b": 1e39}, {"a": 1.0, "b": float("inf")}]


def _pytrec(qrels, run, measure):
    pytrec_eval = require("pytrec_eval")
    return pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)


@pytest.mark.parametrize("case", CASES)
def test_issue_example_and_variants_equal_pytrec_eval(case):
    want = _pytrec(QRELS, {"1": case}, "ndcg")["1"]["ndcg"]
    docs = sorted(case)
    scores = np.array([case[d] for d in docs])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScoreOverflowWarning)
        got = fastndcg.ndcg(scores, np.array([QRELS["1"][d] for d in docs]), np.array([0, len(docs)]),
                            convention="pytrec_eval", tie_key=np.arange(len(docs)))
    assert got[0] == pytest.approx(want, rel=1e-12)


def test_ir_measures_provider_gives_pytrec_eval_value():
    ir_measures = require("ir_measures")
    import fastndcg.integrations as provider

    qrels = [ir_measures.Qrel("1", d, r) for d, r in QRELS["1"].items()]
    provider.register_ir_measures()
    try:
        for case in CASES[:4]:
            run = [ir_measures.ScoredDoc("1", d, s) for d, s in case.items()]
            want = _pytrec(QRELS, {"1": case}, "ndcg")["1"]["ndcg"]
            with pytest.warns(ScoreOverflowWarning, match="overflow float32"):
                got = ir_measures.calc_aggregate([ir_measures.nDCG], qrels, run)[ir_measures.nDCG]
            assert got == pytest.approx(want, rel=1e-12)
            assert got == pytest.approx(0.6309297535714575, rel=1e-12)
    finally:
        provider.unregister_ir_measures()


def test_generated_runs_equal_pytrec_eval():
    rng = np.random.default_rng(24)
    pool = [0.25, 1.0, 3e38, 3.4028234e38, 3.41e38, 1e39, 5e39, -1e39, -3.41e38, float("inf"), float("-inf")]
    for _ in range(30):
        qrels, run = {}, {}
        for q in range(int(rng.integers(1, 5))):
            n = int(rng.integers(1, 9))
            docs = [f"d{i:02d}" for i in rng.permutation(20)[:n]]
            qrels[str(q)] = {d: int(rng.integers(0, 3)) for d in docs}
            run[str(q)] = {d: float(rng.choice(pool)) for d in docs}
        for measure in ("ndcg", "ndcg_cut_3"):
            want = _pytrec(qrels, run, measure)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ScoreOverflowWarning)
                res = evaluate_trec(_as_run(run), _as_qrels(qrels), [measure.replace("_cut_", "_cut.")],
                                    convention="pytrec_eval", missing="skip")
            got = dict(zip(res.qids.tolist(), res.values[:, 0].tolist()))
            for q in want:
                assert got[q] == pytest.approx(want[q][measure], rel=1e-12, abs=1e-15), (q, run[q], qrels[q])


def _as_run(run):
    """as_run takes finite scores only; +-1e39 ranks as the same infinity in float32."""
    from fastndcg.measures._evaluation import as_run
    finite = {q: {d: (s if np.isfinite(s) else np.copysign(1e39, s)) for d, s in docs.items()}
              for q, docs in run.items()}
    return as_run(finite)


def _as_qrels(qrels):
    from fastndcg.measures._evaluation import as_qrels
    return as_qrels(qrels)


def test_torchmetrics_two_infinite_scores():
    torch = require("torch")
    tm = require("torchmetrics.functional.retrieval")
    want = float(tm.retrieval_normalized_dcg(torch.tensor([1e39, 2e39]), torch.tensor([1, 0])))
    with pytest.warns(ScoreOverflowWarning):
        got = fastndcg.ndcg(np.array([1e39, 2e39]), np.array([1, 0]), np.array([0, 2]), convention="torchmetrics")
    assert got[0] == pytest.approx(want, rel=1e-6)
