"""Names a user reads (issue 25 item 5): a measure prints as its string, and a
measure outside the NDCG family is told so, in either syntax (fast tier: no
ir_measures needed)."""
from __future__ import annotations

import pytest

import fastndcg
from fastndcg.measures import MeasureError, parse_measures
from fastndcg.measures._measure_strings import parse_measure


@pytest.mark.parametrize("text, name", [("nDCG@10", "nDCG@10"), ("ndcg_cut.10", "ndcg_cut_10"),
                                        ("nDCG(dcg='exp-log2')@20", "nDCG(dcg='exp-log2')@20"),
                                        ("ndcg.1=3,2=9", "ndcg_1=3,2=9")])
def test_measure_prints_as_its_string(text, name):
    m = parse_measure(text)[0]
    assert repr(m) == str(m) == name
    assert repr({m: 0.5}) == "{" + name + ": 0.5}"


def test_results_print_readably(shared_data):
    te = shared_data / "trec_eval-test"
    agg = fastndcg.evaluate(["nDCG@10", "ndcg_cut.5"], te / "qrels.test", te / "results.test").aggregated
    assert str(agg) == f"{{nDCG@10: {agg['nDCG@10']!r}, ndcg_cut_5: {agg['ndcg_cut_5']!r}}}"
    agg2 = fastndcg.calc_aggregate(["nDCG@10"], te / "qrels.test", te / "results.test")
    assert str(agg2) == f"{{nDCG@10: {agg['nDCG@10']!r}}}" and "Measure(" not in str(agg2)


@pytest.mark.parametrize("text", [
    # trec_eval syntax, as given to -m and as trec_eval / pytrec_eval print them
    "map", "P", "P_10", "P.10", "P.5,10", "recall", "recall.100", "Rprec", "bpref", "recip_rank", "map_cut.10",
    "iprec_at_recall", "num_ret", "success.1", "infAP", "ERR", "err",
    # ir_measures syntax
    "AP", "MAP", "P@10", "R@100", "RR", "RR(rel=2)", "ERR@20", "Judged@10", "Bpref", "Success@1", "alpha_nDCG@10",
])
def test_other_measures_are_not_ndcg(text):
    with pytest.raises(MeasureError) as exc:
        parse_measures([text])
    message = str(exc.value)
    assert message.startswith(f"measure {text!r}: not an NDCG measure.")
    assert "fastndcg computes the NDCG family only" in message and "use trec_eval or ir_measures" in message
    assert "unknown measure" not in message and "did you mean" not in message


@pytest.mark.parametrize("text, guess", [("ndgc", "'ndcg'"), ("NDCG_cut.10", "'ndcg_cut'"), ("ndcg@10", "'nDCG'"),
                                         ("nDGC@10", "'nDCG'"), ("ndcg_cutt.10", "'ndcg_cut'")])
def test_ndcg_misspellings_still_get_did_you_mean(text, guess):
    with pytest.raises(MeasureError, match=f"did you mean {guess}"):
        parse_measures([text])


def test_cutoff_given_both_ways_takes_the_at():
    """ir_measures reads nDCG(dcg="exp-log2", cutoff=20)@10 as nDCG(dcg='exp-log2')@10
    (@k wins); fastndcg refused it as "the cutoff is given twice" (issue 33 item 11)."""
    import warnings

    from fastndcg.measures import MeasureWarning

    with pytest.warns(MeasureWarning, match=r"cutoff=20 and @10 both give the cutoff; @10 wins") as w:
        m = parse_measure('nDCG(dcg="exp-log2", cutoff=20)@10')[0]
    assert w[0].filename == __file__
    assert (m.name, m.cutoff, m.dcg) == ("nDCG(dcg='exp-log2')@10", 10, "exp-log2")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_measure("nDCG(cutoff=10)@10")[0].name == "nDCG@10"
