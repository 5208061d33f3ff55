"""Measure strings in trec_eval's and ir_measures' syntax (fastndcg.measures._measure_strings, issue 15)."""
from __future__ import annotations

import warnings

import pytest

from fastndcg.measures import MeasureError, MeasureWarning, parse_measures
from fastndcg.measures._measure_strings import parse_measure
from conftest import require

pytestmark = [pytest.mark.peers]

ir_measures = require("ir_measures")
nDCG = require("ir_measures").nDCG


@pytest.mark.parametrize("text, names", [
    ("ndcg", ["ndcg"]),
    ("ndcg.1=3,2=9,4=4.5", ["ndcg_1=3,2=9,4=4.5"]),
    ("ndcg.0=0,1=1,2=3", ["ndcg_0=0,1=1,2=3"]),
    ("ndcg_cut.10,5", ["ndcg_cut_5", "ndcg_cut_10"]),
    ("ndcg_cut", [f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
    ("ndcg_cut_10", ["ndcg_cut_10"]),                       # pytrec_eval / trec_eval output names
    ("ndcg_cut_5,10", ["ndcg_cut_5", "ndcg_cut_10"]),
    ("ndcg_1=3,2=9", ["ndcg_1=3,2=9"]),
    ("ndcg_rel", ["ndcg_rel"]), ("Rndcg.-1=2", ["Rndcg_-1=2"]), ("dcg", ["dcg"]), ("ideal_dcg.1=2", ["ideal_dcg_1=2"]),
    ("ndcg_p", ["ndcg_p"]),
    ("nDCG@10", ["nDCG@10"]), ("NDCG@10", ["nDCG@10"]), ("nDCG", ["nDCG"]), ("nDCG(cutoff=3)", ["nDCG@3"]),
    ("nDCG(dcg='exp-log2')@20", ["nDCG(dcg='exp-log2')@20"]),
    ("nDCG(dcg='log2')@20", ["nDCG@20"]),
    ("nDCG(gains={0:0,1:1,2:3})@10", ["nDCG(gains={2:3})@10"]),
    ("nDCG(judged_only=True)@10", ["nDCG(judged_only=True)@10"]),
    ("nDCG(judged_only=True, gains={1:5})", ["nDCG(judged_only=True,gains={1:5})"]),
])
def test_names(text, names):
    assert [m.name for m in parse_measure(text)] == names


@pytest.mark.parametrize("obj", [nDCG @ 10, nDCG(dcg="exp-log2") @ 20, nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10,
                                 nDCG(judged_only=True), nDCG(gains={1: 5}, judged_only=True) @ 3])
def test_names_are_ir_measures_repr(obj):
    """The name is ir_measures' repr (its results' key); the string of the
    repr parses back to the same measure; our Measure equals the object."""
    m = parse_measure(obj)[0]
    assert m.name == repr(obj) and m == obj and hash(m) == hash(obj)
    assert parse_measure(repr(obj))[0].key == m.key
    assert ir_measures.parse_measure(m.name) == obj


@pytest.mark.parametrize("name", ["AP", "P", "R", "RR", "ERR", "Judged", "NumQ", "SetP", "Success", "Bpref",
                                  "alpha_nDCG", "SDCG"])
def test_ir_measures_objects_of_other_measures_are_refused(name):
    """An ir_measures object of another measure was computed as nDCG with its
    cutoff (P@10 gave nDCG@10); now it is refused, named as ir_measures prints it."""
    obj = getattr(ir_measures, name)
    obj = obj @ 10 if "cutoff" in obj.SUPPORTED_PARAMS else obj
    with pytest.raises(MeasureError, match=f"measure {repr(obj)!r}: not an NDCG measure"):
        parse_measures(obj)


def test_semantics():
    m = parse_measure("nDCG(gains={0:0,1:1,2:3}, judged_only=True)@10")[0]
    assert (m.family, m.cutoff, m.relabel, m.dcg, m.judged_only, m.syntax) == (
        "nDCG", 10, ((2, 3),), "log2", True, "ir_measures")
    t = parse_measure("ndcg.1=3,2=9")[0]
    assert (t.family, t.gains.pairs, t.syntax) == ("ndcg", ((1, 3.0), (2, 9.0)), "trec_eval")
    # duplicates by meaning are dropped, order kept
    ms = parse_measures(["nDCG@10", "NDCG@10", "ndcg_cut.10", "ndcg_cut_10", nDCG @ 10, "nDCG(gains={1:1})@10"])
    assert [m.name for m in ms] == ["nDCG@10", "ndcg_cut_10", "nDCG(gains={})@10"]


def test_trec_eval_reads_fractional_cutoffs_with_a_warning():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert [m.cutoff for m in parse_measure("ndcg_cut.10,20,23.4")] == [10, 20, 23]
    assert any(issubclass(x.category, MeasureWarning) and "'23.4' as 23" in str(x.message) for x in w)


@pytest.mark.parametrize("text, message", [
    ("ndgc", "measure 'ndgc': unknown measure name 'ndgc', neither trec_eval syntax"),
    ("ndgc", "did you mean 'ndcg'?"),
    ("NDCG_cut.10", "did you mean 'ndcg_cut'?"),
    ("map", "measure 'map': not an NDCG measure. fastndcg computes the NDCG family only"),
    ("ndcg_cut.5,x", "read as trec_eval measure 'ndcg_cut' with cutoffs '5,x': cutoff 'x' is not an integer"),
    ("ndcg_cut.0", "cutoff 0 is not >= 1"),
    ("ndcg_cut.5,5", "cutoff 5 is given twice"),
    ("ndcg.", "read as trec_eval measure 'ndcg' with parameters after '.', but there are none"),
    ("ndcg.1=x", "read as trec_eval measure 'ndcg' with custom gains '1=x': '1=x' is not LEVEL=GAIN"),
    ("runid", "bookkeeping line"),
    ("official", "measure 'official': trec_eval's set of measures 'official' has no NDCG measure"),
    ("qrels_jg", "-m all_trec gives those of trec_eval's all_trec"),
    ("nDCG@0", "(ir_measures syntax): read as nDCG with cutoff 0: the cutoff must be an integer >= 1"),
    ("nDCG(dgc='exp-log2')@10", "nDCG has no parameter 'dgc' (did you mean 'dcg'?)"),
    ("nDCG(dcg='exp')@10", "read as nDCG with dcg='exp': dcg is 'log2'"),
    ("nDCG(gains={1:0.5})@10", "gains is a dict {relevance: gain} of integers"),
    ("nDCG(gains={1:2}, dcg='exp-log2')@10", "no ir_measures provider computes this combination"),
    ("nDCG(judged_only=1)", "judged_only is True or False"),
    ("nDCG(10)", "parameters must be named"),
    ("nDCG@10@5", "expected a measure name such as nDCG, then optional (k=v, ...) and @cutoff"),
    ("P@10", "measure 'P@10': not an NDCG measure. fastndcg computes the NDCG family only"),
    ("nDGC@10", "read measure name 'nDGC': fastndcg computes ir_measures' nDCG (also spelled NDCG) only"),
    ("ndcg@10", "did you mean 'nDCG'?"),
    ("nDCG(@10", "not a valid Measure(k=v, ...)@cutoff expression"),
    ("", "empty measure string"),
])
def test_errors_say_what_was_understood(text, message):
    with pytest.raises(MeasureError) as exc:
        parse_measures([text])
    assert message in str(exc.value)
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize("text", ['nDCG(dcg="exp-log2", cutoff=20)@10', "nDCG(cutoff=5)@10",
                                  "nDCG(cutoff=10)@10"])
def test_cutoff_given_both_ways_follows_ir_measures(text):
    """ir_measures' parse_measure takes @k over cutoff= (its own test_util.py parses
    nDCG(dcg="exp-log2", cutoff=20)@10 as nDCG(dcg='exp-log2')@10); so does fastndcg,
    where it refused the string as "the cutoff is given twice" (issue 33 item 11)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = parse_measure(text)[0]
    theirs = ir_measures.parse_measure(text)
    assert m == theirs and m.name == repr(theirs) and m.cutoff == 10
    differ = "cutoff=10)" not in text
    assert any(issubclass(x.category, MeasureWarning) and "@10 wins" in str(x.message) for x in w) == differ


def test_types():
    with pytest.raises(TypeError, match="must be a string"):
        parse_measures([3])
    with pytest.raises(MeasureError, match="no measures given"):
        parse_measures([])


def test_all_trec_is_its_ndcg_measures():
    """Issue 33 item 7: 'all_trec' was an unknown measure name; it is trec_eval's all_trec for the
    NDCG family (its bookkeeping lines runid and num_q are the command line's)."""
    names = [m.name for m in parse_measures("all_trec")]
    assert names == ["ndcg", "ndcg_rel", "Rndcg"] + [f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [m.name for m in parse_measures(["all_trec", "ndcg_cut.10", "nDCG@10"])] == names + ["nDCG@10"]
