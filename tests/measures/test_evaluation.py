"""fastndcg.evaluate / calc_aggregate / iter_calc (issue 15) and the ir_measures provider.

* Equal to ir_measures 0.4.3's own results for every nDCG variant it computes,
  per query and aggregated: through pytrec_eval (``nDCG``, ``nDCG@k``,
  ``gains=``, ``judged_only=``) to 1e-12, through gdeval
  (``dcg='exp-log2'`` with a cutoff; gdeval prints 5 decimals) to its
  rounding, through ranx (``dcg='exp-log2'`` without a cutoff) to 1e-12.
  Each measure is asked alone: ir_measures' pytrec_eval provider evaluates a
  measure without ``gains`` in whatever invocation exists, so asking for
  ``nDCG@10`` together with ``nDCG(gains=...)@5`` computes both on the
  relabelled judgments (ir-measures 0.4.3, providers/pytrec_eval_provider.py).
* Inputs: pytrec_eval dicts, pandas / polars frames with ir_measures' or
  TREC-style column names, namedtuple iterables (ir_measures, ir_datasets),
  paths; errors name the row.
* The provider: after ``register()``, ``ir_measures.calc_aggregate`` runs on fastndcg.
"""
from __future__ import annotations

import collections
import math

import numpy as np
import pytest

import fastndcg
import fastndcg.integrations as ir_measures_provider
from fastndcg.measures import Metric, _evaluation

from trec_cases import generated_trec
from conftest import require

pytestmark = [pytest.mark.peers]

pd = require("pandas")
ir_measures = require("ir_measures")
nDCG = require("ir_measures").nDCG

PYTREC_MEASURES = [nDCG, nDCG @ 1, nDCG @ 5, nDCG @ 10, nDCG @ 20, nDCG(judged_only=True), nDCG(judged_only=True) @ 10,
                   nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10, nDCG(gains={1: 5, 3: 1}, judged_only=True) @ 5,
                   nDCG(gains={-1: 2, 2: 7}), nDCG(gains={0: 1, 4: 0})]


def _per_query(metrics):
    return {(m.query_id, str(m.measure)): float(m.value) for m in metrics}


def _compare(qrels, run, measure, tol, ours_inputs=None):
    theirs = _per_query(ir_measures.iter_calc([measure], qrels, run))
    oq, orun = ours_inputs or (qrels, run)
    ours = _per_query(fastndcg.iter_calc([measure], oq, orun, missing="zero"))   # ir_measures' rule
    assert set(ours) == set(theirs), str(measure)
    diff = max(abs(ours[k] - theirs[k]) for k in theirs)
    assert diff <= tol, (str(measure), diff)
    agg_t = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    agg_o = fastndcg.calc_aggregate([measure], oq, orun, missing="zero")[measure]
    assert abs(agg_t - agg_o) <= tol, (str(measure), agg_t, agg_o)
    return len(theirs) + 1


@pytest.mark.parametrize("seed", [30, 31, 32])
def test_ir_measures_generated(tmp_path, seed):
    """Tie-heavy generated runs: judged topics missing from the run (ir_measures
    scores them 0), topics judged 0 throughout, negative judgments, unjudged documents."""
    q, r = generated_trec(tmp_path, seed)
    qrels = list(ir_measures.read_trec_qrels(str(q)))
    run = list(ir_measures.read_trec_run(str(r)))
    n = 0
    for m in PYTREC_MEASURES:
        n += _compare(qrels, run, m, 1e-12)
    for k in (1, 5, 10, 20):
        n += _compare(qrels, run, nDCG(dcg="exp-log2") @ k, 5e-6 + 1e-12)      # gdeval: %.5f
    assert n > 150


def test_ir_measures_trec_eval_test_files(shared_data):
    base = shared_data / "trec_eval-test"
    for qf in ("qrels.test", "qrels.rel_level"):
        qrels = list(ir_measures.read_trec_qrels(str(base / qf)))
        run = list(ir_measures.read_trec_run(str(base / "results.test")))
        for m in PYTREC_MEASURES:
            _compare(qrels, run, m, 1e-12)
        for k in (5, 10, 100):
            _compare(qrels, run, nDCG(dcg="exp-log2") @ k, 5e-6 + 1e-12)


def test_ir_measures_ranx_exp_log2(shared_data):
    """nDCG(dcg='exp-log2') without a cutoff is ranx's ndcg_burges in ir_measures.
    ranx's provider needs object-dtype id columns (pandas 3 makes them strings)."""
    base = shared_data / "trec_eval-test"
    for qf in ("qrels.test", "qrels.rel_level"):
        qrels = pd.DataFrame(list(ir_measures.read_trec_qrels(str(base / qf))))
        qrels = qrels[qrels.relevance >= 0].astype({"query_id": object, "doc_id": object})
        run = pd.DataFrame(list(ir_measures.read_trec_run(str(base / "results.test")))).astype(
            {"query_id": object, "doc_id": object})
        m = nDCG(dcg="exp-log2")
        theirs = _per_query(ir_measures.ranx.iter_calc([m], qrels, run))
        ours = _per_query(fastndcg.iter_calc([m], qrels, run, missing="zero"))
        assert set(theirs) == set(ours)
        assert max(abs(ours[k] - theirs[k]) for k in theirs) <= 1e-12


# ----------------------------------------------------------------------------- the provider


def test_provider_runs_ir_measures_calls(shared_data):
    base = shared_data / "trec_eval-test"
    qrels = list(ir_measures.read_trec_qrels(str(base / "qrels.rel_level")))
    run = list(ir_measures.read_trec_run(str(base / "results.test")))
    measures = [nDCG @ 10, nDCG(judged_only=True, dcg="exp-log2") @ 10]
    with pytest.raises(ValueError, match="Unsupported measures"):       # no provider of ir_measures has it
        ir_measures.calc_aggregate(measures[1:], qrels, run)
    before = ir_measures.calc_aggregate(measures[:1], qrels, run)
    p = ir_measures_provider.register_ir_measures()
    try:
        assert ir_measures.providers.registry["fastndcg"] is p
        assert ir_measures.DefaultPipeline.providers[0] is p
        agg = ir_measures.calc_aggregate(measures, qrels, run)
        assert agg[nDCG @ 10] == pytest.approx(before[nDCG @ 10], abs=1e-12)
        ours = fastndcg.calc_aggregate(measures, qrels, run)
        assert agg[measures[1]] == ours[measures[1]]
        per = list(ir_measures.iter_calc(measures, qrels, run))
        assert len(per) == 2 * 3 and {type(m) for m in per} == {ir_measures.Metric}
        # the evaluator serves several runs on the same qrels
        ev = p.evaluator(measures, qrels)
        assert ev.calc_aggregate(run) == agg
        assert not p.supports(nDCG(gains={1: 2}, dcg="exp-log2"))
        assert not p.supports(ir_measures.P @ 10)
    finally:
        ir_measures_provider.unregister_ir_measures()
    assert p not in ir_measures.DefaultPipeline.providers and "fastndcg" not in ir_measures.providers.registry


# ----------------------------------------------------------------------------- inputs and shapes

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d9": -1}, "q2": {"d1": 1}, "q3": {"a": 1}}
RUN = {"q1": {"d1": 0.5, "d2": 0.9, "d3": 0.5, "d4": 0.1}, "q2": {"d1": 1.0, "d5": 2.0}, "q4": {"x": 1.0}}


def test_shapes_and_keys():
    # judged topic q3 has no results: an error by default (one default in every front-end), named
    with pytest.raises(ValueError, match=r"1 judged topic\(s\) have no results in run: 'q3'"):
        fastndcg.evaluate(["nDCG@2"], QRELS, RUN)
    ev = fastndcg.evaluate(["nDCG@2", "ndcg_cut.2", "Rndcg"], QRELS, RUN, missing="zero")
    assert ev.query_ids == ["q1", "q2", "q3"] and ev.missing_query_ids == ["q3"] and ev.ignored_query_ids == ["q4"]
    agg = ev.aggregated
    assert agg["nDCG@2"] == agg[nDCG @ 2] == agg[ev.measures[0]]
    assert list(map(str, agg)) == ["nDCG@2", "ndcg_cut_2", "Rndcg"]
    per = ev.per_query
    assert per[0] == Metric("q1", ev.measures[0], ev.values[0, 0]) and len(per) == 9
    assert ev.by_query["q2"]["ndcg_cut_2"] == pytest.approx(1 / math.log2(3) / 1.0)
    long = ev.to_frame()
    assert list(long.columns) == ["query_id", "measure", "value"] and len(long) == 9
    wide = ev.to_frame("wide")
    assert list(wide.columns) == ["query_id", "nDCG@2", "ndcg_cut_2", "Rndcg"]
    # by hand: q1 ranks d2 (0), then d3 and d1 tied at 0.5: docno descending -> d3 (1), d1 (2)
    d = [1 / math.log2(r + 1) for r in range(1, 4)]
    assert ev.by_query["q1"]["ndcg_cut_2"] == pytest.approx((1 * d[1]) / (2 + 1 * d[1]))
    assert ev.by_query["q3"]["nDCG@2"] == 0.0                        # judged, not retrieved
    assert fastndcg.calc_aggregate("nDCG@2", QRELS, RUN, missing="zero") == {ev.measures[0]: agg["nDCG@2"]}
    assert fastndcg.evaluate("nDCG@2", QRELS, RUN, missing="skip").query_ids == ["q1", "q2"]
    calc = _evaluation.calc(["nDCG@2"], QRELS, RUN, missing="zero")
    assert calc.aggregated["nDCG@2"] == agg["nDCG@2"] and len(calc.per_query) == 3


def _frames(lib):
    qrels = [(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()]
    run = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    if lib == "pandas":
        return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
                pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
                pd.DataFrame(qrels, columns=["qid", "docno", "label"]),
                pd.DataFrame(run, columns=["qid", "docno", "score"]))
    import polars as pl

    return (pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row"),
            pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row"),
            pl.DataFrame(qrels, schema=["query", "docid", "rel"], orient="row"),
            pl.DataFrame(run, schema=["topic", "doc", "sim"], orient="row"))


@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_frames_and_namedtuples_give_the_dict_result(lib):
    want = fastndcg.evaluate(["nDCG@2", "ndcg", "ndcg_rel.1=3"], QRELS, RUN, missing="zero").values
    q1, r1, q2, r2 = _frames(lib)
    for q, r in ((q1, r1), (q2, r2), (q1, r2)):
        np.testing.assert_array_equal(fastndcg.evaluate(["nDCG@2", "ndcg", "ndcg_rel.1=3"], q, r, missing="zero").values, want)
    nq = [ir_measures.Qrel(q, d, v) for q, docs in QRELS.items() for d, v in docs.items()]
    nr = [ir_measures.ScoredDoc(q, d, v) for q, docs in RUN.items() for d, v in docs.items()]
    np.testing.assert_array_equal(fastndcg.evaluate(["nDCG@2", "ndcg", "ndcg_rel.1=3"], iter(nq), iter(nr), missing="zero").values,
                                  want)
    # ir_datasets' namedtuples (TrecQrel has an iteration field; GenericScoredDoc-like runs)
    TrecQrel = collections.namedtuple("TrecQrel", "query_id doc_id relevance iteration")
    ScoredDoc = collections.namedtuple("GenericScoredDoc", "query_id doc_id score")
    got = fastndcg.evaluate(["nDCG@2", "ndcg", "ndcg_rel.1=3"], (TrecQrel(x.query_id, x.doc_id, x.relevance, "0") for x in nq),
                            (ScoredDoc(*x) for x in map(tuple, nr)), missing="zero").values
    np.testing.assert_array_equal(got, want)


def test_paths_equal_files(shared_data):
    base = shared_data / "trec_eval-test"
    by_path = fastndcg.evaluate(["nDCG@10", "Rndcg"], base / "qrels.rel_level", base / "results.test")
    by_tuples = fastndcg.evaluate(["nDCG@10", "Rndcg"], ir_measures.read_trec_qrels(str(base / "qrels.rel_level")),
                                  ir_measures.read_trec_run(str(base / "results.test")))
    np.testing.assert_array_equal(by_path.values, by_tuples.values)
    assert by_path.run_name == "STANDARD" and by_tuples.run_name == ""


@pytest.mark.parametrize("qrels, run, message", [
    ({"q": {"a": 1.5}}, {"q": {"a": 1}}, "qrels row 0: relevance 1.5 (query 'q', doc 'a') is not an integer"),
    ({"q": {"a": 1}}, {"q": {"a": float("nan")}}, "run row 0: score nan (query 'q', doc 'a') is not a finite number"),
    ({"q": {"a": 1}}, {"q": {"a b": 1.0}}, "run row 0: document id 'a b' is empty or has a space"),
    ({"q": {"a": 1}}, pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1.0, 2.0]}),
     "run rows 0 and 1: document 'a' is listed twice for query 'q'"),
    ({"q": {"a": 1}}, pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "rank": [1]}),
     "run: no score column; expected one of ['score', 'sim', 'similarity']"),
    ({"q": [1]}, {"q": {"a": 1.0}}, "qrels['q'] must be a dict {doc_id: relevance}"),
    ({"q": {"a": 1}}, [("q", "a", 1.0)], "run: item 0 is a tuple, not a namedtuple"),
    ({"q": {"a": 1}}, 3.0, "run must be a dict"),
])
def test_input_errors_name_the_row(qrels, run, message):
    with pytest.raises((ValueError, TypeError)) as exc:
        fastndcg.evaluate("nDCG@10", qrels, run)
    assert message in str(exc.value)


@pytest.mark.parametrize("empty", [{}, [], (), pd.DataFrame({"query_id": [], "doc_id": [], "score": []})],
                         ids=["dict", "list", "generator", "frame"])
@pytest.mark.parametrize("call", [fastndcg.evaluate, fastndcg.calc_aggregate, fastndcg.iter_calc])
def test_empty_qrels_or_run_is_an_error(empty, call):
    # pytrec_eval's evaluate returns {} on an empty run or empty qrels; fastndcg keeps the error (documented:
    # evaluate's docstring, docs/coming-from-trec-eval.md), as the command line does for an empty file
    empty = (x for x in ()) if isinstance(empty, tuple) else empty
    with pytest.raises(ValueError, match="^run: no rows$"):
        list(call("nDCG@10", {"q1": {"a": 1}}, empty))
    qrels = {} if isinstance(empty, dict) else pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []})
    with pytest.raises(ValueError, match="^qrels: no rows$"):
        list(call("nDCG@10", qrels, {"q1": {"a": 1.0}}))
    with pytest.raises(ValueError, match="^(qrels|run): no rows$"):
        list(call("nDCG@10", {}, {}))


def test_missing_error_and_rules():
    with pytest.raises(ValueError, match="1 judged topic"):
        fastndcg.evaluate("ndcg", QRELS, RUN, missing="error")
    a = fastndcg.evaluate("ndcg_cut.2", QRELS, {"q1": {"d1": 0.5, "d3": 0.5 + 1e-12}, "q2": {"d1": 1.0},
                                                 "q3": {"a": 0.0}})
    b = fastndcg.evaluate("ndcg_cut.2", QRELS, {"q1": {"d1": 0.5, "d3": 0.5 + 1e-12}, "q2": {"d1": 1.0},
                                                 "q3": {"a": 0.0}}, convention="pytrec_eval")
    # trec_eval 10 ranks d3 first (by score); trec_eval 9's float32 scores tie, docno descending: d3 too
    assert a.values[0, 0] == b.values[0, 0]
    c = fastndcg.evaluate("ndcg_cut.1", {"q": {"d1": 1, "d2": 0}}, {"q": {"d1": 0.5 + 1e-12, "d2": 0.5}},
                          convention="pytrec_eval")
    d = fastndcg.evaluate("ndcg_cut.1", {"q": {"d1": 1, "d2": 0}}, {"q": {"d1": 0.5 + 1e-12, "d2": 0.5}})
    assert c.values[0, 0] == 0.0 and d.values[0, 0] == 1.0


@pytest.mark.slow
def test_ir_measures_robust03(shared_data):
    """Two Robust 2003 runs (100 topics), every variant."""
    base = shared_data / "trectools-robust03"
    qrels = ir_measures.util.QrelsConverter(ir_measures.read_trec_qrels(str(base / "robust03_qrels.txt"))
                                            ).as_dict_of_dict()          # dicts: no conversion per call
    n = 0
    for name in ("humR03dc", "NLPR03vb10"):
        run = ir_measures.util.RunConverter(ir_measures.read_trec_run(str(base / "runs" / f"input.{name}.gz"))
                                            ).as_dict_of_dict()
        ours = (_evaluation.as_qrels(qrels), _evaluation.as_run(run))   # converted once
        for m in PYTREC_MEASURES:
            n += _compare(qrels, run, m, 1e-12, ours)
        n += _compare(qrels, run, nDCG(dcg="exp-log2") @ 10, 5e-6 + 1e-12, ours)
    assert n == 2 * 12 * 101


# ----------------------------------------------------------------------------- the conversion of in-memory inputs


def _table_arrays(t):
    out = [t.topics.tolist(), t.offsets.tolist(), t.docnos().tolist()]
    return out + [t.relevance.tolist() if hasattr(t, "relevance") and t.relevance is not None else t.scores.tolist()]


def test_in_memory_tables_equal_the_file_readers_tables(tmp_path):
    """Every in-memory shape gives the table the file reader gives for the same lines: topics and
    docnos bytewise (non-ASCII ids, topics in several stretches, ids given as ints)."""
    from fastndcg.io import read_qrels, read_run
    from fastndcg.measures._evaluation import as_qrels, as_run

    rng = np.random.default_rng(5)
    topics = ["10", "9", "é1", "a\x01b", "Z"]
    qrows, rrows = [], []
    for t in topics:
        docs = [f"d{k}" for k in rng.permutation(40)[:25]] + ["ü-doc", "Ω"]
        qrows += [(t, d, int(rng.integers(-1, 3))) for d in docs[:15]]
        rrows += [(t, d, float(np.round(rng.random(), 2))) for d in docs]
    rrows = rrows[60:] + rrows[:60]                                    # topics in two stretches
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrows), encoding="utf-8")
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, d, s in rrows), encoding="utf-8")
    want_q, want_r = _table_arrays(read_qrels(tmp_path / "q")), _table_arrays(read_run(tmp_path / "r"))
    qd: dict = {}
    rd: dict = {}
    for q, d, r in qrows:
        qd.setdefault(q, {})[d] = r
    for q, d, s in rrows:
        rd.setdefault(q, {})[d] = s
    nq = [ir_measures.Qrel(*x) for x in qrows]
    nr = [ir_measures.ScoredDoc(*x) for x in rrows]
    shapes = [(qd, rd), (nq, nr), (iter(nq), iter(nr)), (pd.DataFrame(nq), pd.DataFrame(nr))]
    for q, r in shapes:
        assert _table_arrays(as_qrels(q)) == want_q
        assert _table_arrays(as_run(r)) == want_r
    # integer ids are their str(): 1 and 1.0 and True are three queries, not one
    mixed = as_run([ir_measures.ScoredDoc(q, d, 1.0) for q, d in ((1, "a"), (1.0, "a"), (True, "a"), (1, 7))])
    assert mixed.topics.tolist() == ["1", "1.0", "True"] and mixed.docnos().tolist() == ["7", "a", "a", "a"]


@pytest.mark.parametrize("run, message", [
    # the first bad row, found after the vectorised check failed
    ({"q": {"a": 1.0, "b\u00a0c": 1.0}}, "run row 1: document id 'b\\xa0c' is empty or has a space or NUL"),
    ({"q": {"a": 1.0, "b\nc": 1.0}}, "run row 1: document id 'b\\nc' is empty or has a space or NUL"),
    ({"q": {"a": 1.0, "": 1.0}}, "run row 1: document id '' is empty or has a space or NUL"),
    ({"q": {"a": 1.0}, "p q": {"b": 1.0}}, "run row 1: query id 'p q' is empty or has a space or NUL"),
    ({"q": {"a": 1.0, "b": 2.0}, "": {"b": 1.0}}, "run row 2: query id '' is empty or has a space or NUL"),
    ({"q": {"a": 1.0, "b\udc80": 1.0, "c\ud800": 1.0}}, "run row 2: document id 'c\\ud800' is not encodable as UTF-8"),
    ([ir_measures.ScoredDoc("q", "a", 1.0), ir_measures.ScoredDoc("q", "b", 1.0), ir_measures.Qrel("q", "c", 1)],
     "run: item 2 lacks a field of ['query_id', 'doc_id', 'score'] (item 0 is a ScoredDoc"),
    (iter([ir_measures.ScoredDoc("q", "a", 1.0), ("q", "c", 1.0)]), "run: item 1 lacks a field of"),
    ([ir_measures.ScoredDoc("q", "a", 1.0), ir_measures.ScoredDoc("q", "b", 1.0), ir_measures.ScoredDoc("q", "a", 3.0)],
     "run rows 0 and 2: document 'a' is listed twice for query 'q'"),
])
def test_input_errors_name_the_first_bad_row(run, message):
    with pytest.raises(ValueError) as exc:
        _evaluation.as_run(run)
    assert message in str(exc.value)


def test_relevance_beyond_int64_is_an_error():
    with pytest.raises(ValueError, match=r"qrels row 1: relevance 9223372036854775808 \(query 'q', doc 'b'\) is not an "
                                         r"integer \(int64\)"):
        _evaluation.as_qrels({"q": {"a": 1, "b": 2**63}})


def test_empty_run_topics_as_pytrec_eval():
    """A run topic given as {} is an empty ranking to pytrec_eval (scored 0, reported) and an
    absent one is skipped; fastndcg took {} for absent (issue 33 item 10). Against
    pytrec_eval-terrier itself, and through the ir_measures provider (which scores every judged
    topic: missing="zero")."""
    pytrec_eval = require("pytrec_eval")
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}, "q3": {"d": 1}, "q4": {"e": 0, "f": 1}}
    run = {"q1": {"a": 0.5, "b": 0.9}, "q2": {}, "q4": {"e": 2.0, "f": 1.0}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.1,3"}).evaluate(run)
    assert sorted(theirs) == ["q1", "q2", "q4"] and theirs["q2"]["ndcg"] == 0.0
    ours = fastndcg.evaluate(["ndcg", "ndcg_cut.1,3"], qrels, run, convention="pytrec_eval", missing="skip").by_query
    assert sorted(ours) == sorted(theirs)
    for q in theirs:
        for name in ("ndcg", "ndcg_cut_1", "ndcg_cut_3"):
            assert ours[q][name] == pytest.approx(theirs[q][name], abs=1e-12), (q, name)
    irm = ir_measures.calc_aggregate([nDCG @ 3], qrels, run)
    ir_measures_provider.register_ir_measures()
    try:
        ours_irm = ir_measures.calc_aggregate([nDCG @ 3], qrels, run)
    finally:
        ir_measures_provider.unregister_ir_measures()
    assert ours_irm[nDCG @ 3] == pytest.approx(irm[nDCG @ 3], abs=1e-12)


# ----------------------------------------------------------------------------- reprs (issue 35)

def _two_thousand_topics():
    rng = np.random.default_rng(35)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(4)} for i in range(2000)}
    run = {f"q{i}": {f"d{j}": float(rng.random()) for j in range(4)} for i in range(2000)}
    return qrels, run


def test_evaluation_repr_is_a_summary_and_the_data_stays():
    qrels, run = _two_thousand_topics()
    ev = fastndcg.evaluate("ndcg_cut.10,20", qrels, run)
    a, b = ev.aggregated.values()
    text = repr(ev)
    assert text == f"Evaluation(2 measures, 2,000 topics, mean ndcg_cut_10={a:.4f}, ndcg_cut_20={b:.4f})"
    assert "q1999" not in text and "Convention" not in text
    # the full data: attributes, to_dict(), to_frame()
    assert len(ev.query_ids) == 2000 and ev.values.shape == (2000, 2)
    assert ev.to_dict() == ev.by_query and ev.to_dict()["q7"]["ndcg_cut_10"] == ev.values[ev.query_ids.index("q7"), 0]
    many = repr(fastndcg.evaluate("ndcg_cut.1,2,3,5,10,20", qrels, run))
    assert many.startswith("Evaluation(6 measures, 2,000 topics, mean ndcg_cut_1=") and many.endswith("(2 more))")
    assert len(many) < 160
    calc = repr(_evaluation.calc("nDCG@10", qrels, run))
    assert calc.startswith("CalcResults(aggregated={nDCG@10: 0.") and calc.endswith("per_query=[2,000 metrics])")


def test_evaluation_repr_counts_missing_and_ignored_topics():
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 1.0}, "q9": {"d1": 1.0}}
    ev = fastndcg.evaluate("ndcg", qrels, run, missing="skip")
    assert repr(ev) == "Evaluation(1 measure, 1 topic, mean ndcg=1.0000, 1 missing, 1 ignored)"


# ----------------------------------------------------------------------------- pytrec_eval's dicts, joined (issue 36)


def _dict_inputs():
    """pytrec_eval-shaped dicts (defaultdicts outside, as its parse_run / parse_qrel give) with
    ties (exact, and in float32 only), scores beyond float32, judged topics without results, run
    topics without judgments, empty rankings (judged and not) and negative judgments."""
    rng = np.random.default_rng(36)
    qrels: dict = collections.defaultdict(dict)
    run: dict = collections.defaultdict(dict)
    for t in range(40):
        docs = [f"clueweb09-en00{t % 3}-{k:05d}" for k in rng.permutation(300)[:60]]
        if t % 7 != 3:                                          # topics 3, 10, ...: no judgments
            for d in docs[:25] + [f"other-{k}" for k in range(5)]:
                qrels[str(t)][d] = int(rng.integers(-1, 4))
        if t % 9 == 4:                                          # judged, without results
            continue
        if t % 11 == 5:                                         # an empty ranking
            run[str(t)] = {}
            continue
        scores = np.round(rng.random(len(docs)) * 4, 1)         # many exact ties
        scores[::13] += 1e-12                                   # ties in float32 only
        for d, s in zip(docs, scores.tolist()):
            run[str(t)][d] = s
    run["5"]["big-1"] = 3e39
    run["5"]["big-2"] = -2e39
    run["unjudged-and-empty"] = {}
    return qrels, run


@pytest.mark.parametrize("convention, missing, max_docs", [("trec_eval", "zero", None), ("pytrec_eval", "skip", None),
                                                           ("trec_eval", "zero", 17)])
def test_dict_run_is_joined_without_a_run_table(monkeypatch, convention, missing, max_docs):
    """Issue 36: pytrec_eval's dicts are read in one compiled walk and the run joined as a run
    file is (hash lookups, tie keys among equal scores), without the Run table whose docnos
    were sorted within topics (the table took 4/5 of the time of 2M entries). The same
    values, topics and messages as the general path (here, the same dicts as an OrderedDict,
    which the walk leaves to it)."""
    import warnings
    from fastndcg.io import _memory_runs

    qrels, run = _dict_inputs()
    measures = ["ndcg", "ndcg_cut.3,10", "nDCG@5", "ndcg_rel", "Rndcg"]
    kw = dict(convention=convention, missing=missing, max_docs=max_docs)
    with warnings.catch_warnings(record=True) as want_warnings:
        warnings.simplefilter("always")
        want = fastndcg.evaluate(measures, qrels, collections.OrderedDict(run), **kw)
    monkeypatch.setattr(_memory_runs, "ROWS_PIECE", 97)             # many pieces, topics across their ends
    monkeypatch.setattr(_evaluation, "as_run", lambda run: pytest.fail("a Run table was built"))
    with warnings.catch_warnings(record=True) as got_warnings:
        warnings.simplefilter("always")
        got = fastndcg.evaluate(measures, qrels, run, **kw)
    assert got.query_ids == want.query_ids
    assert got.values.tobytes() == want.values.tobytes()
    assert (got.missing_query_ids, got.ignored_query_ids) == (want.missing_query_ids, want.ignored_query_ids)
    assert "unjudged-and-empty" in got.ignored_query_ids and "4" in got.missing_query_ids + got.query_ids
    assert [str(w.message) for w in got_warnings] == [str(w.message) for w in want_warnings]


def test_dict_inputs_the_walk_does_not_take_go_the_general_way():
    # ids that are not plain ASCII str, int scores, dict subclasses: the general path, same values
    qrels = {"q": {"a": 1, "b": 2, "é": 1}, 7: {"x": 1}}
    run = {"q": {"a": 1, "b": 0.5, "é": 2.0}, 7: {"x": 1.0}}
    plain = fastndcg.evaluate("ndcg", {"q": {"a": 1, "b": 2, "e": 1}, "7": {"x": 1}},
                              {"q": {"a": 1.0, "b": 0.5, "e": 2.0}, "7": {"x": 1.0}})
    other = fastndcg.evaluate("ndcg", qrels, run)
    assert other.values.tobytes() == plain.values.tobytes() and other.query_ids == plain.query_ids
    ordered = collections.OrderedDict(run)
    assert fastndcg.evaluate("ndcg", qrels, ordered).values.tobytes() == plain.values.tobytes()


def test_rows_and_frames_are_joined_without_a_run_table(monkeypatch):
    """Issue 36: ir_measures' own parsed rows (namedtuples) and frames whose queries come
    together are joined as pytrec_eval's dicts are; the same values and messages as a Run
    table gives (rows whose queries come in two stretches keep the table)."""
    import warnings
    from fastndcg.io import _memory_runs

    qrels, run = _dict_inputs()
    run = {q: docs for q, docs in run.items() if docs}                  # rows cannot hold an empty ranking
    Row = collections.namedtuple("Row", "query_id doc_id score")
    rows = [Row(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    frame = pd.DataFrame(rows)
    measures = ["ndcg", "ndcg_cut.3,10", "nDCG@5"]
    outs = {}
    for name, data in (("table", collections.OrderedDict(run)), ("two stretches", rows[40:] + rows[:40]),
                       ("rows", rows), ("frame", frame), ("generator", iter(rows))):
        if name == "rows":
            monkeypatch.setattr(_memory_runs, "ROWS_PIECE", 97)
            monkeypatch.setattr(_evaluation, "_run_table", lambda *a: pytest.fail("a Run table was built"))
            monkeypatch.setattr(_evaluation, "as_run", lambda *a: pytest.fail("a Run table was built"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ev = fastndcg.evaluate(measures, qrels, data, convention="pytrec_eval", missing="zero")
        outs[name] = (ev.query_ids, ev.values.tobytes(), ev.ignored_query_ids, [str(w.message) for w in caught])
    for name in ("two stretches", "rows", "frame", "generator"):
        assert outs[name][:3] == outs["table"][:3], name
    assert outs["rows"][3] == outs["frame"][3] == outs["generator"][3] == outs["table"][3] != []
