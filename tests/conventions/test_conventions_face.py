"""The conventions face (fastndcg/conventions/__init__.py, __init__.pyi): three names beyond the
top level's Convention and presets (issue 35); ideal_source, documented before, warns naming the
Convention field that replaces it; the other constants and helpers are gone from the face."""
from __future__ import annotations

import pytest

import fastndcg
import fastndcg.conventions
from fastndcg.conventions import _presets


def test_the_conventions_face_is_three_names():
    assert fastndcg.conventions.__all__ == ["MISSING_TOPICS", "ScoreOverflowWarning", "UnknownLabelWarning"]


def test_ideal_source_warns_and_names_the_convention_field():
    with pytest.warns(DeprecationWarning, match=r"fastndcg\.conventions\.ideal_source is deprecated .*use the "
                                                r"Convention's field: fastndcg\.get_preset\(name\)\.ideal_source"):
        assert fastndcg.conventions.ideal_source is _presets.ideal_source
    assert fastndcg.get_preset("lightgbm").ideal_source == "run"


@pytest.mark.parametrize("name", ["ABOVE_ONE_TOLERANCE", "DEFAULT", "DEFAULT_MISSING", "LEVEL_NEGATIVE",
                                  "LEVEL_UNJUDGED", "MAX_EXPONENTIAL_LABEL", "Cutoffs", "as_convention",
                                  "check_missing"])
def test_undocumented_names_are_just_gone(name):
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
        getattr(fastndcg.conventions, name)
