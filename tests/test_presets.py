"""Presets against the golden values observed from the real tools (conventions.md)."""
import numpy as np
import pytest

import fastndcg
from fastndcg import presets

# Query A: y = [2,1,0], s = [.1,.2,.3]; query B: y = [0,2,1,0], s = [.7,.7,.2,.1] (d1, d2 tie).
S = np.array([0.1, 0.2, 0.3, 0.7, 0.7, 0.2, 0.1])
Y = np.array([2, 1, 0, 0, 2, 1, 0])
OFF = np.array([0, 3, 7])
DOCNO_RANK = np.array([0, 1, 2, 0, 1, 2, 3])  # d1 < d2 < d3 < d4

GOLDEN = {  # name: (A@2, A full, B@2, B full), observed outputs in conventions.md
    "sklearn": (0.239812466568131, 0.619906233284066, 0.619906233284066, 0.809953116642033),
    "pytrec_eval_cut": (0.239812466568131, 0.619906233284066, 0.760187533431869, 0.950234416789836),
    "trec_eval_cut": (0.239812466568131, 0.619906233284066, 0.760187533431869, 0.950234416789836),
    "lightgbm": (0.173765342871440, 0.586882671435720, 0.521296028614320, 0.659001804802413),
    "ranklib": (0.173765342871440, 0.586882671435720, 0.521296028614320, 0.659001804802413),
    "catboost": (0.239812466568131, 0.619906233284066, 0.479624933136263, 0.669671816494230),
    "gdeval": (0.17377, 0.58688, 0.82623, 0.96394),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_values(name):
    conv = fastndcg.get_preset(name)
    key = DOCNO_RANK if conv.uses_tie_key else None
    got = fastndcg.ndcg(S, Y, OFF, [2, None], convention=conv, tie_key=key)
    expected = np.array(GOLDEN[name]).reshape(2, 2)
    atol = 5e-6 if name == "gdeval" else 1e-14  # gdeval prints %.5f
    np.testing.assert_allclose(got, expected, rtol=0, atol=atol)


@pytest.mark.parametrize("name", ["letor3", "letor4", "mslr"])
def test_letor_family(name):
    got = fastndcg.ndcg(S, Y, OFF, [2, 3, 4], convention=name)
    np.testing.assert_allclose(got[0], [0.25, 0.723197315179, 0.0], atol=1e-12)
    np.testing.assert_allclose(got[1][[0, 2]], [0.75, 0.907732438393], atol=1e-12)


def test_mslr_counts_labels_three_and_four_but_letor_does_not():
    s, y, off = [2.0, 1.0], [4, 1], [0, 2]
    assert fastndcg.ndcg(s, y, off, 1, convention="mslr")[0] == 1.0
    assert fastndcg.ndcg(s, y, off, 1, convention="letor4")[0] == 0.0


def test_empty_query_values():
    s, y, off = [1.0, 0.5], [0, 0], [0, 2]
    for name, value in [("yahoo", 1.0), ("catboost", 1.0), ("lightgbm", 1.0), ("sklearn", 0.0),
                        ("trec_eval", 0.0), ("ranklib", 0.0), ("letor4", 0.0)]:
        assert fastndcg.ndcg(s, y, off, 2, convention=name, tie_key=[0, 1] if name == "trec_eval" else None)[0] == value
    assert np.isnan(fastndcg.ndcg(s, y, off, 2, convention="gdeval", tie_key=[0, 1])[0])


def test_pytrec_eval_rounds_scores_to_float32():
    # A doc scored 1+1e-12 ties with one scored 1.0 in pytrec_eval and loses on docno (descending).
    s, y, off, key = [1.0 + 1e-12, 1.0], [1, 0], [0, 2], [0, 1]
    assert fastndcg.ndcg(s, y, off, 1, convention="pytrec_eval_cut", tie_key=key)[0] == 0.0
    assert fastndcg.ndcg(s, y, off, 1, convention="trec_eval_cut", tie_key=key)[0] == 1.0


def test_every_preset_is_named_and_listed():
    assert fastndcg.list_presets() == sorted(presets.PRESETS)
    for name, conv in presets.PRESETS.items():
        assert conv.name == name
        assert fastndcg.get_preset(name) is conv
