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


#: scikit-learn ``ndcg_score`` (1.9.1; all-zero rows score 0, "sklearn <= 1.9
#: semantics", which its issue #29521 plans to change): linear gain, 1/log2(r+1),
#: tie-averaged DCG (McSherry & Najork), ideal cut at k, weighted mean.
SKLEARN = _register(Convention(gain="linear", ties="average", name="sklearn"))

#: pytrec_eval (pytrec-eval-terrier 0.5.11, bundling trec_eval 9.0.x) ``ndcg``:
#: as ``trec_eval`` but scores are stored as float32, so doubles closer than
#: float32 precision tie (and fall to docno descending).
PYTREC_EVAL = _register(TREC_EVAL.replace(score_precision="float32", name="pytrec_eval"))

#: pytrec_eval ``ndcg_cut_k``: as ``trec_eval_cut`` with float32 scores.
PYTREC_EVAL_CUT = _register(TREC_EVAL_CUT.replace(score_precision="float32", name="pytrec_eval_cut"))

#: LETOR 3.0 ``Eval-Score-3.0.pl``: as ``letor4`` (its average over all queries
#: makes a query shorter than k count 0); it reports NDCG@1..16.
LETOR3 = _register(LETOR4.replace(name="letor3"))

#: MSLR ``eval-score-mslr.pl``: gains {0:0, 1:1, 2:3, 3:7, 4:15}, other labels 0,
#: LETOR discount, file order on ties, short queries 0, empty 0.
MSLR = _register(LETOR4.replace(gain=(0.0, 1.0, 3.0, 7.0, 15.0), name="mslr"))

#: Yahoo! Learning to Rank Challenge ``evaluate.py``: 2**l - 1, log discount
#: (ln, same ratio), file order, k clamped, empty queries 1; k = 10 there.
YAHOO = _register(Convention(empty="one", name="yahoo"))

#: gdeval.pl (TREC Web track, ir_measures' exp-log2): 2**l - 1, ties by docno
#: descending (``tie_key`` = docno rank), ideal from the judgments cut at k,
#: topics without relevant judgments skipped. gdeval prints 5 decimals.
GDEVAL = _register(Convention(ties="key_desc", empty="skip", name="gdeval"))

#: CatBoost ``NDCG`` (1.2.10 defaults: type=Base, denominator=LogPosition):
#: linear gain, 1/log2(r+1), ties with the lower label first (worst case),
#: empty queries 1.
CATBOOST = _register(Convention(gain="linear", ties="worst", empty="one", name="catboost"))

#: RankLib ``NDCG@k`` (codelibs/ranklib): 2**l - 1 on integer labels, stable
#: merge sort (file order), ideal from the same list cut at min(k, n), empty 0.
RANKLIB = _register(Convention(name="ranklib"))


def get_preset(name: str) -> Convention:
    """Return the preset called ``name`` (see :data:`PRESETS`)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; known presets: {', '.join(sorted(PRESETS))}") from None


def list_presets():
    """Names of all presets, sorted."""
    return sorted(PRESETS)
