"""The engine's trec_eval level rules (measures/_trec_gain_levels.py) against the reference's own
(reference/_trec_gains.py, reference/_trec_ndcg.py): two implementations of one rule."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastndcg.measures import _trec_gain_levels as engine
from fastndcg.reference import _trec_gains as ref
from fastndcg.reference._trec_ndcg import _ndcg_p_walk
from conftest import fuzz_settings

# gains chosen to hit trec_eval's comparator quirks: less than 1 apart (equal), 2**31 apart
# (wrap), NaN-free but huge, negative, zero
_gain = st.one_of(st.sampled_from([0.0, 0.5, 0.9, 1.0, 1.4, 2.0, 3.0, -1.0, -0.5, 2.0 ** 31, 3e9, 1e12, 1e300]),
                  st.floats(-10, 10, allow_nan=False))
_pairs = st.lists(st.tuples(st.integers(-2, 6), _gain), max_size=9)
_counts = st.lists(st.integers(0, 4), max_size=8)


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y))


def _engine_equals_reference(pairs, counts):
    mine = engine.gain_entries(pairs, counts)
    theirs = ref.trec_gain_entries(pairs, counts)
    assert mine == theirs
    _same(engine.ideal_gains(mine), ref.trec_ideal_gains(theirs))
    _same(engine.ndcg_p_gains(mine), _ndcg_p_walk(theirs))
    for level in range(-3, 8):
        assert engine.level_gain(mine, level) == ref.trec_level_gain(theirs, level)


@settings(max_examples=150, deadline=None)
@given(pairs=_pairs, counts=_counts)
def test_engine_level_rules_equal_the_reference(pairs, counts):
    _engine_equals_reference(pairs, counts)


# the same property in depth, in the fuzz tier (600 cases here took most of a second of the fast
# tier): 24 cases in its quick profile, 1,000 in ci, 4,000 in deep
@pytest.mark.fuzz
@fuzz_settings(2.0)
@given(pairs=_pairs, counts=_counts)
def test_engine_level_rules_equal_the_reference_in_depth(pairs, counts):
    _engine_equals_reference(pairs, counts)


def test_a_known_non_transitive_order():
    # gains less than 1 apart compare equal (3.0, 2.6 keep their listing order) and a difference
    # of 2**31 or more casts to INT_MIN ("smaller"): the sorted gains are not ascending
    pairs = [(1, 3.0), (2, 2.6), (3, 2.0 ** 31 + 3.0), (0, 0.0)]
    entries = engine.gain_entries(pairs, [1, 1, 1, 1])
    assert entries == ref.trec_gain_entries(pairs, [1, 1, 1, 1])
    assert [e[0] for e in entries] == [1, 2, 3, 0]
