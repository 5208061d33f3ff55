"""The reference face (fastndcg/reference/__init__.py): the spec of each public function, about
10 names (issue 35); the per-query helpers stay in the private spec modules the tests import."""
from __future__ import annotations

import fastndcg
import fastndcg.reference


def test_the_reference_face_is_the_spec_of_the_public_functions():
    assert sorted(fastndcg.reference.__all__) == sorted([
        "ndcg", "mean_ndcg", "dcg", "ideal_dcg", "lambda_gradients", "delta_ndcg_pairs", "soft_ndcg",
        "soft_ndcg_grad", "rankdcg", "trec_gain_ndcg"])
    # each is the spec of the public function of its name (trec_gain_ndcg: of evaluate's custom gains)
    assert set(fastndcg.reference.__all__) - {"trec_gain_ndcg"} <= set(fastndcg.__all__)
    for helper in ("query_dcg", "gain_of", "discount_of", "trec_gain_entries", "soft_ndcg_grad_hess"):
        assert not hasattr(fastndcg.reference, helper), helper
