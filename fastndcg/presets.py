"""Named conventions that reproduce well-known tools.

Each preset is a :class:`~fastndcg.Convention`; start from one and change a
field with ``preset.replace(...)``. The rules behind each are documented in
the project's conventions notes; the preset docstrings say which version of
the tool they match.
"""
from __future__ import annotations

from typing import Dict

from fastndcg._convention import Convention

PRESETS: Dict[str, Convention] = {}


def _register(convention: Convention) -> Convention:
    PRESETS[convention.name] = convention
    return convention


#: The textbook definition: exponential gain 2**l - 1, 1/log2(r+1), ties in
#: input order, ideal cut at k, k clamped to n, empty queries 0, plain mean.
STANDARD = _register(Convention(name="standard"))

#: trec_eval ``ndcg`` (v10.0): linear gain (the relevance level; negative
#: levels count 0), ties by docno descending (pass the docno's rank as
#: ``tie_key``), ideal over every judged document (not cut at k), empty 0.
TREC_EVAL = _register(Convention(gain="linear", ties="key_desc", ideal="full", name="trec_eval"))

#: trec_eval ``ndcg_cut.k`` (v10.0): as ``trec_eval`` but the ideal is cut at k.
TREC_EVAL_CUT = _register(Convention(gain="linear", ties="key_desc", ideal="cut", name="trec_eval_cut"))

#: LETOR 4.0 ``Eval-Score-4.0.pl``: gains {0:0, 1:1, 2:3} and 0 for any other
#: label, D(r) = 1 for r <= 2 then 1/log2(r), file order on ties, NDCG@k = 0
#: for queries shorter than k, empty 0.
LETOR4 = _register(Convention(gain=(0.0, 1.0, 3.0), unknown_label="zero", discount="letor",
                              short="zero", name="letor4"))

#: LightGBM 4.x ``ndcg@k`` metric: label_gain 2**l - 1 for l = 0..30 (other
#: labels are an error), input order on ties, k clamped, empty queries 1.
LIGHTGBM = _register(Convention(gain=tuple(float(2**i - 1) for i in range(31)), empty="one",
                                name="lightgbm"))


def get_preset(name: str) -> Convention:
    """Return the preset called ``name`` (see :data:`PRESETS`)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; known presets: {', '.join(sorted(PRESETS))}") from None


def list_presets():
    """Names of all presets, sorted."""
    return sorted(PRESETS)
