"""Named conventions that reproduce well-known tools.

Each preset is a :class:`~fastndcg.Convention`; start from one and change a
field with ``preset.replace(...)``. The comment above each preset says which
version of the tool it matches; docs/presets.md has one section per preset
(rules, versions, and the test that checks it against the tool).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from fastndcg.conventions._convention import DEFAULT as _DEFAULT
from fastndcg.conventions._convention import FIELDS, PRESETS, Convention, described_fields

#: The cutoffs a report shows when none are asked for, unless the preset states its own.
REPORT_CUTOFFS: Tuple[Optional[int], ...] = (1, 3, 5, 10)
#: trec_eval's ``ndcg_cut`` defaults.
TREC_EVAL_CUT_CUTOFFS: Tuple[Optional[int], ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class PresetRecord:
    """What a preset states beyond its convention's fields.

    Attributes
    ----------
    convention : Convention
        The fields; its ``name`` is the preset's name.
    cutoffs : tuple of (int or None)
        The cutoffs a report shows when none are asked for (the CLI without ``-k``):
        the tool's own default measures.
    """

    convention: Convention
    cutoffs: Tuple[Optional[int], ...] = REPORT_CUTOFFS


#: name: record, beside :data:`PRESETS` (name: convention); filled by :func:`_register` only
RECORDS: Dict[str, PresetRecord] = {}


def _register(convention: Convention, cutoffs: Tuple[Optional[int], ...] = REPORT_CUTOFFS) -> Convention:
    PRESETS[convention.name] = convention
    RECORDS[convention.name] = PresetRecord(convention, tuple(cutoffs))
    return convention


def report_cutoffs(preset: Optional[str]) -> List[Optional[int]]:
    """The cutoffs a report shows when none are asked for: the preset's record (``None``:
    :data:`REPORT_CUTOFFS`). A convention its user added to :data:`PRESETS` under a name of
    its own has no record: it takes the record of the built-in preset with its fields (a
    renamed ``trec_eval`` shows trec_eval's ``ndcg``), else :data:`REPORT_CUTOFFS`."""
    record = RECORDS.get(preset) if preset is not None else None
    if record is None and preset in PRESETS:
        key = PRESETS[preset].fields_key()
        record = next((r for r in list(RECORDS.values()) if r.convention.fields_key() == key), None)
    return list(record.cutoffs if record is not None else REPORT_CUTOFFS)


#: The textbook definition (Jarvelin & Kekalainen 2002 with Burges et al.'s
#: gain): exponential gain 2**l - 1, 1/log2(r+1), ties in input order, ideal
#: from the same list cut at k, k clamped to n, empty queries 0, plain mean.
#: Not a tool: the comparison study recommends it for final reporting.
STANDARD = _register(Convention(name="standard"))

# ----------------------------------------------------------------------------- IR evaluation

#: trec_eval ``ndcg`` and ``ndcg_cut.k`` (v10.0; v9.x differs only by float32
#: scores, see ``pytrec_eval``): linear gain (the relevance level; negative
#: levels count 0), ties by docno descending (pass the docno's rank as
#: ``tie_key``), ideal over every judged document of the qrels (pass
#: ``ideal_labels``), empty 0. Which queries count (run and qrels, ``-c``) is
#: the caller's. A cutoff k is trec_eval's ``ndcg_cut.k``: the ideal is cut at
#: k too (trec_eval's ``ndcg`` has no cutoff, and the whole list's ideal "cut"
#: at the whole list is the full ideal), so ``k=10`` under this preset is the
#: number trec_eval prints as ``ndcg_cut_10``, in every front-end.
#: Custom gains follow trec_eval's level rules (``custom_gains="trec_eval"``), and a
#: judged topic missing from the run ranks one unjudged document under ``-c``
#: (``missing_ranking="unjudged"``, trec_eval 10). Reports without ``-k`` show
#: trec_eval's ``ndcg`` (the whole list).
TREC_EVAL = _register(Convention(gain="linear", ties="key_desc", ideal="cut", custom_gains="trec_eval",
                                 missing_ranking="unjudged", name="trec_eval"), cutoffs=(None,))

#: trec_eval ``ndcg_cut.k`` (v10.0): as ``trec_eval``, but custom gains are refused
#: (``custom_gains="refuse"``: ndcg_cut takes no gains), and reports without ``-k``
#: show trec_eval's ``ndcg_cut`` defaults (5, 10, 15, 20, 30, 100, 200, 500, 1000).
TREC_EVAL_CUT = _register(TREC_EVAL.replace(custom_gains="refuse", name="trec_eval_cut"),
                          cutoffs=TREC_EVAL_CUT_CUTOFFS)

#: pytrec_eval (pytrec-eval-terrier 0.5.11, bundling trec_eval 9.0.x) ``ndcg``,
#: also trec_eval <= 9.0.8 itself: as ``trec_eval`` but scores are stored as
#: float32, so doubles closer than float32 precision tie (and fall to docno
#: descending), and a double beyond float32 becomes +-inf (C's cast; 0.6309 for
#: run ``a 2e39``, ``b 1e39`` with only a relevant: both inf, b first by docno;
#: a warning names the rows). trec_eval 10 reads scores as double (``atof``).
PYTREC_EVAL = _register(TREC_EVAL.replace(score_precision="float32", float32_overflow="inf",
                                          missing_ranking="empty", name="pytrec_eval"), cutoffs=(None,))

#: pytrec_eval ``ndcg_cut_k`` (and trec_eval <= 9.0.8 ``ndcg_cut.k``): as
#: ``trec_eval_cut`` with float32 scores (beyond float32: +-inf, as ``pytrec_eval``).
PYTREC_EVAL_CUT = _register(TREC_EVAL_CUT.replace(score_precision="float32", float32_overflow="inf",
                                                  missing_ranking="empty", name="pytrec_eval_cut"),
                            cutoffs=TREC_EVAL_CUT_CUTOFFS)

#: gdeval.pl 1.2a/1.3 (TREC Web track, ir_measures' exp-log2): 2**l - 1, ties
#: by docno descending (``tie_key`` = docno rank), ideal from the judgments cut
#: at k, topics without relevant judgments skipped. gdeval prints 5 decimals.
GDEVAL = _register(Convention(ties="key_desc", empty="skip", name="gdeval"))

#: ranx ``ndcg`` (0.3.21): linear gain, 1/log2(r+1), ideal from the qrels cut
#: at k, empty 0, plain mean. Ties: numba's quicksort, which is input order
#: for queries of at most 15 documents given as ``Run`` objects (the last
#: inserted wins with plain dicts, and larger queries have no simple rule);
#: this preset uses input order. ranx's default ``rel_lvl=1`` only drops
#: negative labels, which fastndcg rejects.
RANX = _register(Convention(gain="linear", name="ranx"))

#: ranx ``ndcg_burges`` (0.3.21): as ``ranx`` with gain 2**l - 1.
RANX_BURGES = _register(Convention(name="ranx_burges"))

# ----------------------------------------------------------------------------- ML libraries

#: scikit-learn ``ndcg_score`` (1.9.1; all-zero rows score 0, "sklearn <= 1.9
#: semantics", which its issue #29521 plans to change): linear gain, 1/log2(r+1),
#: tie-averaged DCG (McSherry & Najork), ideal cut at k, weighted mean.
SKLEARN = _register(Convention(gain="linear", ties="average", ideal_source="run", name="sklearn"))

#: torchmetrics ``retrieval_normalized_dcg`` / ``RetrievalNormalizedDCG``
#: (1.9.0, default ``empty_target_action="neg"``): scikit-learn's rule (tie
#: averaging since 1.1, PR #2031) on float32-rounded scores. torchmetrics also
#: sums in float32; this preset sums in double, so it differs from torchmetrics
#: by float32 rounding (about 1e-7 on short lists, up to 1.5e-6 on 1,500-document
#: lists with k=None), not by rule. Scores beyond float32 are
#: +-inf, as in a float32 tensor, and equal infinities tie (averaged: 0.8155
#: for scores 1e39, 2e39 with labels 1, 0). With no query left to average
#: (``empty_target_action="skip"``: ``replace(empty="skip")``) the class returns 0.0.
TORCHMETRICS = _register(Convention(gain="linear", ties="average", score_precision="float32",
                                    float32_overflow="inf", ideal_source="run", empty_mean="zero",
                                    name="torchmetrics"))

#: LightGBM ``ndcg@k`` metric (4.x, 4.7.0 checked): label_gain 2**l - 1 for
#: l = 0..30 (other labels are an error), input order on ties, k clamped,
#: empty queries 1, and with weights: float32 query weights (LightGBM's query
#: weight is the float32 mean of the query's row weights; pass that), an empty
#: query adding a bare 1 to the weighted sum (so the mean can exceed 1; kept).
LIGHTGBM = _register(Convention(gain=tuple(float(2**i - 1) for i in range(31)), empty="one",
                                weight_precision="float32", empty_weight="unweighted",
                                ideal_source="run", name="lightgbm"))

#: XGBoost ``ndcg`` / ``ndcg@k`` metric (>= 2.0; 3.2.0 checked), default
#: ``ndcg_exp_gain=true``: gain 2**l - 1 for l = 0..31 (other labels are an
#: error), float32 predictions ranked in input order on ties, k clamped, and a
#: plain ``ndcg`` (k=None) is ``ndcg@32``. Empty queries 1, added unweighted;
#: float32 group weights; the mean is clamped to 1 and is an error above
#: 1 + 1e-6. XGBoost 1.x differs: the whole list for a plain ``ndcg``
#: (``replace(default_k=None)``) and an unweighted mean (pass no weights).
XGBOOST = _register(Convention(gain=tuple(float(2**i - 1) for i in range(32)), empty="one",
                               score_precision="float32", default_k=32, weight_precision="float32",
                               empty_weight="unweighted", above_one="check", ideal_source="run",
                               name="xgboost"))

#: XGBoost ``ndcg-`` / ``ndcg@k-``: as ``xgboost`` but empty queries score 0.
XGBOOST_MINUS = _register(XGBOOST.replace(empty="zero", name="xgboost_minus"))

#: CatBoost ``NDCG`` (1.2.10 defaults: type=Base, denominator=LogPosition):
#: linear gain, 1/log2(r+1), ties with the lower label first (worst case),
#: empty queries 1 (older releases gave 0), float32 group weights
#: that do weigh empty queries.
CATBOOST = _register(Convention(gain="linear", ties="worst", empty="one", weight_precision="float32",
                                ideal_source="run", name="catboost"))

#: RankLib ``NDCG@k`` (codelibs/ranklib e43f605f, as RankLib 2.x): 2**l - 1 on
#: integer labels, stable merge sort (file order), ideal from the same list
#: cut at min(k, n), empty 0, plain mean. RankLib's own default k is 10.
RANKLIB = _register(Convention(ideal_source="run", name="ranklib"))

# ----------------------------------------------------------------------------- LTR data set scripts

#: LETOR 4.0 ``Eval-Score-4.0.pl`` (Jun Xu, March 2009): gains {0:0, 1:1, 2:3}
#: and 0 for any other label, D(r) = 1 for r <= 2 then 1/log2(r), file order on
#: ties, NDCG@k = 0 for queries shorter than k, empty 0, plain mean.
LETOR4 = _register(Convention(gain=(0.0, 1.0, 3.0), unknown_label="zero", discount="letor",
                              short="zero", ideal_source="run", name="letor4"))

#: LETOR 3.0 ``Eval-Score-3.0.pl``: as ``letor4`` (it has no NDCG@k for a
#: query shorter than k, but its average divides by all queries, so such a
#: query counts 0); it reports NDCG@1..16.
LETOR3 = _register(LETOR4.replace(name="letor3"))

#: MSLR ``eval-score-mslr.pl`` (Jun Xu, June 2010): gains {0:0, 1:1, 2:3, 3:7,
#: 4:15}, other labels 0, LETOR discount, file order on ties, short queries 0,
#: empty 0.
MSLR = _register(LETOR4.replace(gain=(0.0, 1.0, 3.0, 7.0, 15.0), name="mslr"))

#: Yahoo! Learning to Rank Challenge ``evaluate.py`` (2010): 2**l - 1, log
#: discount (ln, same ratio), file order, k clamped, empty queries 1; k = 10
#: there.
YAHOO = _register(Convention(empty="one", ideal_source="run", name="yahoo"))


#: The fields trec_eval's own rules read (custom gains, the ``-m`` measures, ``-c``), from the
#: fields' descriptions; every other field of a convention under those rules is trec_eval's
#: (:func:`follows_trec_eval`).
TREC_EVAL_READS = tuple(info.name for info in FIELDS if info.trec_eval_reads)


def follows_trec_eval(convention: Any) -> bool:
    """Whether trec_eval's own rules compute under ``convention`` (its measures ``ndcg_cut``,
    ``ndcg_rel``, ``Rndcg``, ``ndcg_p``, its custom gains, its output names): every field
    but those it reads (:data:`TREC_EVAL_READS`) is trec_eval's. Decided by the fields,
    never by the name: a renamed preset follows the same rules."""
    conv = as_convention(convention)
    return all(getattr(conv, info.name) == getattr(TREC_EVAL, info.name, info.default)
               for info in described_fields(conv) if not info.trec_eval_reads)


def with_preset_label(convention: Convention) -> Convention:
    """``convention``, or the preset with exactly its fields when it has none of its own name
    (``"custom"``): a label for reports of conventions rebuilt from their fields (a signature),
    never a change of what is computed."""
    if convention.name != "custom":
        return convention
    key = convention.fields_key()
    for preset in list(PRESETS.values()):
        if preset.fields_key() == key:
            return preset
    return convention


def presets_where(test: Callable[[Convention], bool]) -> List[str]:
    """The names of the presets whose convention passes ``test`` (for messages that list them)."""
    return [name for name, conv in PRESETS.items() if test(conv)]


def get_preset(name: str) -> Convention:
    """Return the preset called ``name`` (see :data:`PRESETS`); an unknown name
    is a ValueError that suggests the closest preset names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(unknown_preset_message(name)) from None


def unknown_preset_message(name: str) -> str:
    """``unknown preset 'trec'; did you mean 'trec_eval'? (known presets: ...)``: the one
    message for a preset name that is not registered (Python and the CLI's ``--preset``)."""
    import difflib

    known = sorted(PRESETS)
    text = str(name)
    guess = difflib.get_close_matches(text, known, n=1, cutoff=0.5) or \
        difflib.get_close_matches(text.lower().replace("-", "_"), known, n=1, cutoff=0.5)
    hint = f"did you mean {guess[0]!r}? " if guess else ""
    return f"unknown preset {name!r}; {hint}known presets: {', '.join(known)}"


def list_presets():
    """Names of all presets, sorted."""
    return sorted(PRESETS)


def as_convention(convention: Any) -> Convention:
    """Accept a Convention, None (the default), or a preset name."""
    if convention is None:
        return _DEFAULT
    if isinstance(convention, Convention):
        return convention
    if isinstance(convention, str):
        return get_preset(convention)
    raise TypeError(f"convention must be a Convention, a preset name or None; got {type(convention).__name__}")


def ideal_source(convention: Any) -> str:
    """Where a convention's ideal list comes from for qrels + run input: its
    :attr:`~fastndcg.Convention.ideal_source` field, ``"qrels"`` (every judged
    document, retrieved or not, as trec_eval) or ``"run"`` (the retrieved
    documents only, as learning-to-rank tools that only see the list they are
    given). Presets declare theirs; a custom convention uses the qrels."""
    return as_convention(convention).ideal_source
