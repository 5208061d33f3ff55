"""fastndcg.report._identify: which preset / variant of NDCG reproduces a reported number."""
from __future__ import annotations

import json

import numpy as np

from fastndcg.measures._aligned import aligned_mean_ndcg
import pytest

import fastndcg.io as readers
from fastndcg import from_signature
from fastndcg.measures._trec_measures import evaluate_trec
from fastndcg.report import identify, identify_data


def trec_eval_value(path, measure, qid="all"):
    for line in path.read_text().splitlines():
        parts = [p.strip() for p in line.split("\t")]
        if len(parts) == 3 and parts[0] == measure and parts[1] == qid:
            return parts[2]
    raise AssertionError(f"{measure} {qid} not in {path}")


def matched_presets(found):
    return {p for c in found.matches for p in c.presets}


# ----------------------------------------------------------------------------- trec_eval's own outputs


@pytest.mark.parametrize("measure, k", [("ndcg", None), ("ndcg_cut_5", 5), ("ndcg_cut_10", 10),
                                        ("ndcg_cut_100", 100)])
def test_trec_eval_printed_mean_is_found_as_trec_eval(shared_data, measure, k):
    base = shared_data / "trec_eval-test"
    reported = trec_eval_value(base / "out.test.a", measure)
    found = identify(base / "qrels.test", base / "results.test", value=reported, k=k)
    assert {"trec_eval", "trec_eval_cut"} <= matched_presets(found)
    sig = from_signature(next(c for c in found.matches if "trec_eval" in c.presets).signature)
    assert sig.cutoff == k


def test_trec_eval_graded_per_query_output_is_found(shared_data):
    """out.test.aql: graded qrels (levels 0..4?), trec_eval -q; lin gain is told apart from exp."""
    base = shared_data / "trec_eval-test"
    found = identify(base / "qrels.rel_level", base / "results.test", per_query=base / "out.test.aql",
                     measure="ndcg_cut_10", k=10)
    assert "trec_eval" in matched_presets(found)
    for c in found.matches:
        assert all("|gain:lin|" in s for s in c.signatures)
        assert c.matching_queries == len(found.reported.values)


def test_missing_topic_rule_is_identified_from_trec_eval_c(shared_data):
    """out.test.aqc: trec_eval -c -q on a run without topic 302: missing topics counted as 0."""
    base = shared_data / "trec_eval-test"
    found = identify(base / "qrels.test", base / "results.trunc", per_query=base / "out.test.aqc",
                     measure="ndcg")
    assert "trec_eval" in matched_presets(found)
    assert any("302" in n for n in found.notes)
    sigs = [s for c in found.matches for s in c.signatures]
    assert sigs and all("|missing:zero|" in s for s in sigs)


@pytest.mark.slow      # a real run of Robust 2003 (10,000 results), aligned and searched: about 0.7 s
def test_robust03_eval_numbers_are_found_as_trec_eval(shared_data):
    base = shared_data / "trectools-robust03"
    qrels = readers.read_qrels(base / "robust03_qrels.txt")
    run = base / "runs" / "input.MU03rob01.gz"
    mean = aligned_mean_ndcg(readers.align_run(run, qrels), 10, convention="trec_eval_cut")
    found = identify(qrels, run, value=f"{float(np.asarray(mean).reshape(-1)[0]):.4f}", k=10)
    assert "trec_eval" in matched_presets(found)
    # a TREC run has tied scores: the tie rules are told apart, so trec_eval's key_desc is not "standard"
    trec = next(c for c in found.matches if "trec_eval" in c.presets)
    assert any("|ties:key_desc|" in s for s in trec.signatures)
    assert found.n_measurements > len(found.candidates)


# ----------------------------------------------------------------------------- generated: one variant


QRELS = """\
t1 0 d1 1
t1 0 d2 2
t1 0 d3 2
t1 0 d4 1
t1 0 d5 0
t1 0 d9 1
t1 0 d7 0
t2 0 e1 1
t2 0 e2 0
t3 0 f1 1
t4 0 g1 0
"""
# t1: a three-way tie (d1 1, d7 0, d2 2) that every tie rule orders differently, a float32-only tie
# (d3, d4), a relevant document not retrieved (d9) and more relevant documents than k = 3;
# t2: fewer than k results, none relevant; t3: judged, not retrieved; t4: nothing relevant.
RUN = """\
t1 Q0 d1 1 1.0 r
t1 Q0 d7 2 1.0 r
t1 Q0 d2 3 1.0 r
t1 Q0 d3 4 0.5 r
t1 Q0 d4 5 0.500000000001 r
t1 Q0 d5 6 0.1 r
t1 Q0 d6 7 0.05 r
t2 Q0 e2 1 0.9 r
t2 Q0 e3 2 0.8 r
t4 Q0 g1 1 0.3 r
t4 Q0 g2 2 0.2 r
t4 Q0 g3 3 0.1 r
"""


@pytest.fixture
def generated(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path


def per_query_file(path, result):
    lines = [f"ndcg_cut_3\t{q}\t{float(v)!r}" for q, v in zip(result.qids, result.values[:, 0])]
    lines.append(f"ndcg_cut_3\tall\t{float(result.means[0])!r}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow      # each case searches the whole grid of variants (about 0.5 s)
@pytest.mark.parametrize("target", [
    "nDCG@3|gain:exp|disc:letor|ties:worst|empty:one|short:zero|ideal:full,run|prec:f32,inf|agg:mean|missing:skip",
    "nDCG@3|gain:lin|disc:log2|ties:key|empty:skip|short:clamp|ideal:cut,qrels|agg:mean|missing:zero",
    "nDCG@3|gain:exp|disc:log2|ties:average|empty:zero|short:zero|ideal:full,qrels|agg:mean|missing:zero",
    "nDCG@3|gain:lin|disc:letor|ties:stable|empty:one|short:clamp|ideal:cut,run|agg:mean|missing:skip",
])
def test_exactly_one_variant_reproduces_generated_per_query_values(generated, target):
    m = from_signature(target + "|fastndcg:0.1.0")
    res = evaluate_trec(generated / "run", generated / "qrels", [m])
    found = identify(generated / "qrels", generated / "run",
                     per_query=per_query_file(generated / "pq.txt", res), k=3)
    assert len(found.matches) == 1
    assert m.signature in found.matches[0].signatures
    # the variants behind it give the same bits (letor's D(1) = D(2) = 1 can make tie rules agree)
    assert len(found.matches[0].signatures) < 10 < len(found.candidates)


def test_fields_that_cannot_differ_are_listed_as_equivalent(generated, tmp_path):
    """No ties, labels 0/1, every topic long enough: ties, gain and short collapse (one
    evaluation each) but every signature is still listed with the match."""
    (tmp_path / "q2").write_text("a 0 x 1\na 0 y 0\nb 0 z 1\n")
    (tmp_path / "r2").write_text("a Q0 x 1 2.0 r\na Q0 y 2 1.0 r\nb Q0 z 1 3.0 r\nb Q0 w 2 1.0 r\n")
    found = identify(tmp_path / "q2", tmp_path / "r2", value="1.0", k=1)
    assert any("tie rules are equivalent" in n for n in found.notes)
    assert any("exp (2**l - 1) and lin (l) are equivalent" in n for n in found.notes)
    sigs = [s for c in found.matches for s in c.signatures]
    for ties in ("key_desc", "key", "stable", "average", "worst", "best"):
        assert any(f"|ties:{ties}|" in s for s in sigs)
    assert any("|gain:exp|" in s for s in sigs) and any("|gain:lin|" in s for s in sigs)


# ----------------------------------------------------------------------------- none matches


def test_none_matches_lists_the_nearest(shared_data):
    base = shared_data / "trec_eval-test"
    found = identify(base / "qrels.test", base / "results.test", value="0.9999", k=10, n_nearest=3)
    assert found.matches == [] and len(found.nearest) == 3
    d = [abs(c.difference) for c in found.nearest]
    assert d == sorted(d) and d[0] == min(abs(c.difference) for c in found.candidates)


def test_nearest_per_query_names_the_first_mismatch(shared_data, tmp_path):
    base = shared_data / "trec_eval-test"
    text = (base / "out.test.aq").read_text().replace("ndcg_cut_10           \t301\t0.1518",
                                                      "ndcg_cut_10           \t301\t0.9518")
    assert "0.9518" in text
    path = tmp_path / "aq"
    path.write_text(text)
    found = identify(base / "qrels.test", base / "results.test", per_query=path, measure="ndcg_cut_10", k=10)
    assert found.matches == []
    best = found.nearest[0]
    assert "trec_eval" in best.presets and best.matching_queries == len(found.reported.values) - 1
    line = text.splitlines().index("ndcg_cut_10           \t301\t0.9518") + 1
    assert best.first_mismatch.startswith(f"{path}:{line}: query '301' is 0.9518")


def test_value_or_per_query_one_of_them(shared_data):
    base = shared_data / "trec_eval-test"
    with pytest.raises(ValueError, match="give value= .* or per_query="):
        identify(base / "qrels.test", base / "results.test")
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        identify(base / "qrels.test", base / "results.test", value="0.4", k=0)


# ----------------------------------------------------------------------------- data + predictions


def test_data_and_predictions_standard_is_found(shared_data, tmp_path):
    import fastndcg

    data = shared_data / "lightgbm-rank" / "rank.test"
    d = readers.read_svmlight(data)
    rng = np.random.default_rng(7)
    scores = np.round(d.labels + rng.normal(0, 1, d.n_rows), 2)      # 2 decimals: tied scores
    pred = tmp_path / "pred.txt"
    np.savetxt(pred, scores, fmt="%.2f")
    want = fastndcg.mean_ndcg(d.grouped(scores), d.grouped(d.labels).astype(np.int64), d.offsets, 10,
                              convention="standard")
    found = identify_data(data, pred, value=f"{float(want):.5f}", k=10)
    assert "standard" in matched_presets(found)
    # no docnos: the docno tie rules are not tried
    assert not any("|ties:key" in s for c in found.matches for s in c.signatures)
    assert any("trec_eval" in n and "no docnos" in n for n in found.notes)


def test_fractional_labels_are_not_binary_and_refusals_are_one_note(tmp_path):
    """Labels 0, 0.5 and 1 (none above 1): exp gain refuses them (one note for all such variants
    and presets), and gain exp/lin are not declared equivalent (2**0.5 - 1 != 0.5)."""
    rows = [(0.5, 1), (0, 1), (1, 1), (1, 2), (0, 2), (0.5, 2)]
    (tmp_path / "d.svm").write_text("".join(f"{lab} qid:{q} 1:0.1\n" for lab, q in rows))
    (tmp_path / "p.txt").write_text("0.3\n0.2\n0.1\n0.9\n0.8\n0.7\n")
    found = identify_data(tmp_path / "d.svm", tmp_path / "p.txt", value="0.5", k=2)
    assert not any("exp (2**l - 1) and lin (l) are equivalent" in n for n in found.notes)
    refusals = [n for n in found.notes if "cannot evaluate these inputs" in n]
    assert len(refusals) == 2 and all("labels must be non-negative integers" in n for n in refusals)
    assert all("|gain:lin|" in s for c in found.candidates for s in c.signatures)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["generated", "trunc"])
def test_every_variant_listed_with_a_candidate_computes_its_bits(case, generated, shared_data):
    """Soundness of the fields skipped as unable to differ: each grid variant, evaluated on its own,
    gives exactly the per-topic values of the candidate it is listed under. Tier slow: it
    evaluates all 4,608 variants one by one (about 1 s a case on two cores)."""
    from fastndcg import Measurement
    from fastndcg.report._identify import SOURCE_CHOICES, TIE_CHOICES, _grid, _variant

    if case == "generated":
        q, r, k = generated / "qrels", generated / "run", 3
    else:
        base = shared_data / "trec_eval-test"
        q, r, k = base / "qrels.test", base / "results.trunc", 10
    found = identify(q, r, value="0.5", k=k)
    where = {key: c for c in found.candidates for key in c.variants}
    grid = _grid(SOURCE_CHOICES, TIE_CHOICES)
    for rule in ("zero", "skip"):          # both runs miss a judged topic
        ms = [Measurement("ndcg", kk, conv, missing=rule) for kk in (k, None) for conv in grid]
        res = evaluate_trec(r, q, ms)
        for j, m in enumerate(ms):
            c = where[_variant(grid[j % len(grid)], m.cutoff, rule)[1:]]
            np.testing.assert_array_equal(res.values[:, j], c.values, err_msg=m.signature)
            assert m.signature in c.signatures


def test_labels_outside_a_preset_table_are_a_note_not_a_warning(tmp_path):
    """identify tries every preset: letor3/letor4 dropping labels 3 and 4 (issue 33 item 6) is a
    note on those presets, not an UnknownLabelWarning about a convention the user did not choose."""
    import warnings

    from fastndcg.conventions import UnknownLabelWarning

    (tmp_path / "d.svm").write_text("3 qid:1 1:0\n1 qid:1 1:0\n0 qid:2 1:0\n4 qid:2 1:0\n")
    (tmp_path / "p.txt").write_text("0.9\n0.1\n0.8\n0.2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnknownLabelWarning)
        found = identify_data(tmp_path / "d.svm", tmp_path / "p.txt", value="0.5", k=2)
    note = [n for n in found.notes if "outside their gain table" in n]
    assert note == ["presets that give labels outside their gain table gain 0 on these inputs: letor4, letor3 "
                    "(labels 3, 4: 2 of 4 documents)"], found.notes


def test_identification_and_candidate_reprs_are_summaries(tmp_path):
    (tmp_path / "q").write_text("a 0 x 1\na 0 y 0\nb 0 z 1\n")
    (tmp_path / "r").write_text("a Q0 x 1 2.0 r\na Q0 y 2 1.0 r\nb Q0 z 1 3.0 r\nb Q0 w 2 1.0 r\n")
    found = identify(tmp_path / "q", tmp_path / "r", value="1.0", k=1)
    text = repr(found)
    assert text.startswith(f"Identification({len(found.matches):,} match") and "presets ['" in text
    assert f"of {found.n_measurements:,} measurements" in text and len(text) < 200
    assert repr(found.matches[0]).startswith("Candidate(presets [") and \
        repr(found.matches[0]).endswith(", 2 topics, mean 1.0000, matches)")
