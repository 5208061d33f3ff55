"""The measures face (fastndcg/measures/__init__.py, __init__.pyi): the measures beyond the headline
API, about 10 names; the TREC-run doors and the machinery left it (issue 35): the documented names
warn naming their replacement, the rest is gone from the face (still importable privately)."""
from __future__ import annotations

import pytest

import fastndcg
import fastndcg.measures
from fastndcg.measures import _aligned, _evaluation, _rankdcg, _trec_gain_specs, _trec_measures

MACHINERY = ("GainQuirks", "GainScorer", "ResolvedGains", "RULES", "bogus_ranking", "gain_rules",
             "resolve_trec_gains", "textbook_convention", "aligned_arrays", "as_qrels", "as_run", "ndcg_and_mean",
             "resolve_measurements", "FAMILIES", "MODES", "GAIN_MEASURES", "NDCG_CUT_DEFAULTS", "TREC_MEASURES",
             "DEFAULT_TRUNCATION", "Measure", "parse_measure", "CalcResults", "TrecResult", "as_gains", "parse_gains")


def test_the_measures_face_fits_on_one_page():
    assert sorted(fastndcg.measures.__all__) == sorted([
        "PositionBiasedLambdaMART", "position_ids", "DeltaNDCGPairs", "soft_rank_distributions",
        "parse_measures", "Metric", "MeasureError", "MeasureWarning", "SignatureError", "TrecGainQuirkWarning"])
    # one public path each: rankdcg moved to the top level, soft_rank_distributions came from it
    assert "rankdcg" in fastndcg.__all__ and "soft_rank_distributions" not in fastndcg.__all__


@pytest.mark.parametrize("name, module, replacement", [
    ("rankdcg", _rankdcg, r"fastndcg\.rankdcg$"),
    ("evaluate_trec", _trec_measures, r"fastndcg\.evaluate\(measures, qrels, run\) \(qrels and run as files"),
    ("aligned_ndcg", _aligned, r"fastndcg\.evaluate\(measures, qrels, run\)\.values \(per query\)"),
    ("aligned_mean_ndcg", _aligned, r"fastndcg\.calc_aggregate\(measures, qrels, run\)"),
    ("calc", _evaluation, r"fastndcg\.evaluate\(measures, qrels, run\) \(\.aggregated and \.per_query\)"),
    ("GainSpec", _trec_gain_specs, r"gains as a 'LEVEL=GAIN,\.\.\.' string or a \{level: gain\} mapping"),
])
def test_a_documented_name_that_left_the_face_warns_with_its_replacement(name, module, replacement):
    with pytest.warns(DeprecationWarning, match=rf"fastndcg\.measures\.{name} is deprecated .*use {replacement}"):
        assert getattr(fastndcg.measures, name) is getattr(module, name)
    assert name not in dir(fastndcg.measures)


@pytest.mark.parametrize("name", MACHINERY)
def test_undocumented_machinery_is_just_gone(name):
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
        getattr(fastndcg.measures, name)
