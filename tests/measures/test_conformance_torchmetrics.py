"""The ``torchmetrics`` preset against torchmetrics itself (1.9.0, torch 2.13 CPU).

torchmetrics computes in float32 from end to end (scores, targets, discounts,
the tie-averaging sums), and sums with torch's vectorised reductions. The
preset reproduces its rules (scikit-learn's tie averaging on float32-rounded
scores) but sums in double, so the two differ by float32 rounding only:
every difference must stay below TOL = 1e-6 (a few float32 ulps of values
<= 1; conventions.md observed 5.7e-7 against scikit-learn). A rule
difference (tie order, cutoff, empty queries) would show as >= 1e-3.
"""
from __future__ import annotations

import numpy as np
import pytest

import fastndcg
from test_conformance import K, make_case, near_ties, queries, report
from conftest import require

pytestmark = [pytest.mark.peers]

torch = require("torch")
retrieval_normalized_dcg = require("torchmetrics.functional.retrieval").retrieval_normalized_dcg
RetrievalNormalizedDCG = require("torchmetrics.retrieval").RetrievalNormalizedDCG

TOL = 1e-6


@pytest.mark.parametrize("data", ["ties", "tie_free", "near_ties"])
def test_torchmetrics(data):
    s, y, off = near_ties(11) if data == "near_ties" else make_case(11, ties=data == "ties")
    sizes = np.diff(off)
    worst = mean_worst = 0.0
    for k in [None] + K:
        ours = fastndcg.ndcg(s, y, off, k, convention="torchmetrics")
        for q, (a, b) in enumerate(queries(off)):
            if a == b:      # no rows: torchmetrics never sees the query (nor does the mean below)
                continue
            theirs = float(retrieval_normalized_dcg(torch.tensor(s[a:b]), torch.tensor(y[a:b]), top_k=k))
            worst = max(worst, abs(ours[q] - theirs))
            assert ours[q] == pytest.approx(theirs, abs=TOL), (q, k)
        metric = RetrievalNormalizedDCG(top_k=k, empty_target_action="neg")
        theirs = float(metric(torch.tensor(s), torch.tensor(y), indexes=torch.tensor(np.repeat(np.arange(len(sizes)), sizes))))
        mine = fastndcg.mean_ndcg(s, y, off, k, convention="torchmetrics", weights=sizes > 0)
        mean_worst = max(mean_worst, abs(mine - theirs))
        assert mine == pytest.approx(theirs, abs=TOL), k
    report(f"torchmetrics {data}", worst, mean_worst)


def test_torchmetrics_float32_ties():
    """1.0 and 1 + 1e-9 are one float32 value: averaged (conventions.md: 0.5 at k = 1)."""
    s, y, off = np.array([1.0, 1.0 + 1e-9]), np.array([0, 1]), np.array([0, 2])
    theirs = float(retrieval_normalized_dcg(torch.tensor(s), torch.tensor(y), top_k=1))
    assert theirs == 0.5 == fastndcg.ndcg(s, y, off, 1, convention="torchmetrics")[0]
    assert fastndcg.ndcg(s, y, off, 1, convention="sklearn")[0] == 1.0


@pytest.mark.parametrize("action, empty", [("skip", "skip"), ("neg", "zero"), ("pos", "one")])
@pytest.mark.parametrize("labels", [[0, 0, 0, 0], [0, 0, 1, 0]])
def test_empty_target_actions(action, empty, labels):
    """empty_target_action as replace(empty=...): with "skip" and no query left, torchmetrics'
    class returns 0.0 where fastndcg returned NaN (issue 33 item 11): empty_mean="zero"."""
    s, y = np.array([0.5, 0.2, 0.3, 0.1]), np.array(labels)
    off, idx = np.array([0, 2, 4]), torch.tensor([0, 0, 1, 1])
    conv = fastndcg.get_preset("torchmetrics").replace(empty=empty)
    for k in (None, 1):
        theirs = float(RetrievalNormalizedDCG(top_k=k, empty_target_action=action)(
            torch.tensor(s), torch.tensor(y), indexes=idx))
        mine = fastndcg.mean_ndcg(s, y, off, k, convention=conv)
        assert mine == pytest.approx(theirs, abs=TOL), (k, mine, theirs)


def test_long_lists_differ_by_float32_sums_only():
    """docs/presets.md said "<= 1.9e-7 from torchmetrics", measured on queries of <= 25 documents;
    torchmetrics sums in float32, so on 1,500-document queries with k=None it is up to 1.5e-6
    away (issue 33 item 12): the docs say so, and the difference stays float32 rounding."""
    from pathlib import Path

    rng = np.random.default_rng(0)
    worst = {None: 0.0, 10: 0.0}
    for _ in range(10):
        s, y = rng.random(1500), rng.integers(0, 5, 1500)
        for k in worst:
            ours = fastndcg.ndcg(s, y, np.array([0, 1500]), k, convention="torchmetrics")[0]
            theirs = float(retrieval_normalized_dcg(torch.tensor(s), torch.tensor(y), top_k=k))
            worst[k] = max(worst[k], abs(ours - theirs))
    assert 3e-7 < worst[None] < 3e-6 and worst[10] < TOL, worst
    doc = (Path(__file__).resolve().parents[2] / "docs" / "presets.md").read_text()
    assert "1.5e-6 at 1,500 documents" in doc and "queries of ≤ 25 documents" in doc
