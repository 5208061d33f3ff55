"""fastndcg.compare and fastndcg.report.Comparison: NDCG under every preset side by side, diagnostics, rankings, flips, outputs."""
from __future__ import annotations

import csv
import io
import json
import math
import os

import numpy as np
import pytest

import fastndcg
from fastndcg import reference
from fastndcg.report import Comparison, RunData
from conftest import require

# Two tiny queries from the conventions notes (observed tool outputs there).
# Query A: y = [2,1,0], s = [0.1,0.2,0.3]; query B: y = [0,2,1,0], s = [0.7,0.7,0.2,0.1],
# d1 and d2 tie. Doc ids d1..dn, so the docno rank is the position.
SCORES = np.array([0.1, 0.2, 0.3, 0.7, 0.7, 0.2, 0.1])
LABELS = np.array([2, 1, 0, 0, 2, 1, 0])
OFFSETS = np.array([0, 3, 7])
DOCNO_RANK = np.array([0, 1, 2, 0, 1, 2, 3])

# (A@2, A full, B@2, B full) per preset, from ../shared/docs/conventions.md "Golden values"
GOLDEN = {
    "standard": (0.173765342871440, 0.586882671435720, 0.521296028614320, 0.659001804802413),   # = RankLib
    "sklearn": (0.239812466568131, 0.619906233284066, 0.619906233284066, 0.809953116642033),
    "catboost": (0.239812466568131, 0.619906233284066, 0.479624933136263, 0.669671816494230),
    "trec_eval_cut": (0.239812466568131, 0.619906233284066, 0.760187533431869, 0.950234416789836),
    "letor4": (0.25, 0.723197315179, 0.75, 0.907732438393),
}


def tiny(presets=tuple(GOLDEN), **kw):
    return fastndcg.compare(SCORES, LABELS, OFFSETS, k=[2, None], presets=list(presets), **kw)


# ----------------------------------------------------------------------------- values


def test_means_are_the_tools_golden_values():
    r = tiny(tie_key=DOCNO_RANK)
    assert r.presets == list(GOLDEN) and r.cutoffs == [2, None] and r.measures == ["ndcg@2", "ndcg"]
    for j, p in enumerate(r.presets):
        a2, afull, b2, bfull = GOLDEN[p]
        np.testing.assert_allclose(r.mean[0, j], [(a2 + b2) / 2, (afull + bfull) / 2], rtol=1e-11, err_msg=p)
    assert r.reasons == {}


def test_per_query_values_match_the_reference_spec():
    r = tiny(tie_key=DOCNO_RANK, per_query=True)
    for p in r.presets:
        conv = fastndcg.get_preset(p)
        key = DOCNO_RANK if conv.uses_tie_key else None
        want = reference.ndcg(SCORES, LABELS, OFFSETS, [2, None], conv, tie_key=key)
        np.testing.assert_allclose(r.per_query["run"][p], want, rtol=1e-12, err_msg=p)
        a2, afull, b2, bfull = GOLDEN[p]
        np.testing.assert_allclose(r.per_query["run"][p], [[a2, afull], [b2, bfull]], rtol=1e-11)


def test_tie_range_is_worst_and_best_tie_order():
    r = tiny(tie_key=DOCNO_RANK)
    j = r.presets.index("standard")
    # B@2 worst: d1 (label 0) before d2 (label 2): 3/log2(3) / (3 + 1/log2(3)); best: 3 / (3 + 1/log2(3))
    idcg_b2 = 3 + 1 / math.log2(3)
    a2 = GOLDEN["standard"][0]
    np.testing.assert_allclose(r.tie_worst[0, j, 0], (a2 + 3 / math.log2(3) / idcg_b2) / 2, rtol=1e-12)
    np.testing.assert_allclose(r.tie_best[0, j, 0], (a2 + 3 / idcg_b2) / 2, rtol=1e-12)
    # every preset's value lies inside its own range; sklearn (average) strictly inside
    assert np.all(r.tie_worst <= r.mean + 1e-15) and np.all(r.mean <= r.tie_best + 1e-15)
    s = r.presets.index("sklearn")
    assert r.tie_worst[0, s, 0] < r.mean[0, s, 0] < r.tie_best[0, s, 0]
    # catboost *is* the worst case
    c = r.presets.index("catboost")
    np.testing.assert_array_equal(r.mean[0, c], r.tie_worst[0, c])


def test_all_registered_presets_by_default():
    r = fastndcg.compare(SCORES, LABELS, OFFSETS, k=3, tie_key=DOCNO_RANK)
    assert r.presets == fastndcg.list_presets()
    assert set(r.to_dict()["presets"]) == set(fastndcg.list_presets())
    for j, p in enumerate(r.presets):       # each equals the plain API under that preset
        conv = fastndcg.get_preset(p)
        key = DOCNO_RANK if conv.uses_tie_key else None
        want = fastndcg.mean_ndcg(SCORES, LABELS, OFFSETS, [3], convention=conv, tie_key=key)
        np.testing.assert_array_equal(r.mean[0, j], want, err_msg=p)


# ----------------------------------------------------------------------------- presets that need a tie key


def test_key_tie_presets_are_not_computable_without_a_tie_key():
    key_presets = [p for p in fastndcg.list_presets() if fastndcg.get_preset(p).uses_tie_key]
    assert "trec_eval" in key_presets
    r = fastndcg.compare(SCORES, LABELS, OFFSETS, k=[2, 3], presets=key_presets + ["standard"])
    for j, p in enumerate(r.presets):
        if p == "standard":
            assert r.computable("run", p) and not np.isnan(r.mean[0, j]).any()
            continue
        assert not r.computable("run", p)
        assert "tie key" in r.reasons["run"][p] and "not substituted" in r.reasons["run"][p]
        assert np.isnan(r.mean[0, j]).all()
        # what does not need the key is still reported
        assert np.isfinite(r.tie_worst[0, j]).all() and np.isfinite(r.tie_best[0, j]).all()
        assert r.empty_queries[0, j] == 0
    text = r.to_text()
    assert "n/a" in text and "input order is not substituted" in text
    doc = json.loads(r.to_json())
    assert doc["systems"][0]["presets"]["trec_eval"]["computable"] is False
    assert doc["systems"][0]["presets"]["trec_eval"]["mean"]["ndcg@2"] is None


def test_preset_specific_label_error_is_reported_not_raised():
    labels = np.array([40, 1, 0])           # beyond LightGBM's label_gain (0..30); fine for 2**l - 1
    r = fastndcg.compare([3.0, 2.0, 1.0], labels, [0, 3], k=1, presets=["standard", "lightgbm"])
    assert r.computable("run", "standard") and r.mean[0, 0, 0] == 1.0
    assert not r.computable("run", "lightgbm")
    assert "40" in r.reasons["run"]["lightgbm"]
    assert r.empty_queries[0, 1] == -1 and r.tied_queries[0, 1, 0] == -1
    assert json.loads(r.to_json())["systems"][0]["presets"]["lightgbm"]["empty_queries"] is None


# ----------------------------------------------------------------------------- diagnostics


def diag_case():
    """Q0 no documents; Q1 all zero; Q2 only label 3 (gain 0 in LETOR's table); Q3 a tie group
    at ranks 2-4 holding gains 0, 1, 0; Q4 ties among equal labels only; Q5 scores that tie in
    float32 only."""
    rows = [
        ([], []),
        ([1.0, 2.0], [0, 0]),
        ([3.0, 2.0, 1.0], [3, 3, 0]),
        ([5.0, 4.0, 4.0, 4.0, 1.0], [2, 0, 1, 0, 0]),
        ([2.0, 2.0, 1.0, 1.0], [1, 1, 0, 0]),
        ([1.0, 1.0 + 1e-12, 0.5, 0.25, 0.125, 0.0625], [1, 0, 0, 0, 0, 0]),
    ]
    scores = np.concatenate([np.asarray(s, dtype=np.float64) for s, _ in rows])
    labels = np.concatenate([np.asarray(lab, dtype=np.int64) for _, lab in rows])
    offsets = np.concatenate([[0], np.cumsum([len(lab) for _, lab in rows])])
    return scores, labels, offsets


def test_empty_short_and_tie_counts_on_constructed_queries():
    scores, labels, offsets = diag_case()
    f32 = fastndcg.Convention(score_precision="float32", name="f32")
    r = fastndcg.compare(scores, labels, offsets, k=[1, 3, 5, None], presets=["standard", "letor4", "mslr", f32])
    assert list(r.n_queries) == [6] and list(r.zero_doc_queries) == [1] and r.n_docs[0] == labels.size
    assert r.short_queries[0].tolist() == [1, 2, 4, 0]          # n < k: Q0 | Q0,Q1 | Q0,Q1,Q2,Q4 | never
    # empty: Q0, Q1 everywhere; Q2 too under letor4 (label 3 -> gain 0), not under mslr (3 -> 7)
    assert dict(zip(r.presets, r.empty_queries[0].tolist())) == {"standard": 2, "letor4": 3, "mslr": 2, "f32": 2}
    std, f = r.presets.index("standard"), r.presets.index("f32")
    # Q3's tied group starts at rank 2: not in the top 1; inside the top 3 and crossing rank 3;
    # inside the top 5 without crossing
    assert r.tied_queries[0, std].tolist() == [0, 1, 1, 1]
    assert r.tie_crossing_queries[0, std].tolist() == [0, 1, 0, 0]
    # float32 rounding makes Q5's top two tie (labels 1 and 0): at k = 1 it crosses the cutoff
    assert r.tied_queries[0, f].tolist() == [1, 2, 2, 2]
    assert r.tie_crossing_queries[0, f].tolist() == [1, 1, 0, 0]
    # ... and a tie that can move a relevant document changes the range
    assert r.tie_worst[0, std, 1] < r.tie_best[0, std, 1]
    assert r.tie_worst[0, f, 0] < r.tie_best[0, f, 0] and r.tie_worst[0, std, 0] == r.tie_best[0, std, 0]


def test_spread_between_presets():
    r = tiny(tie_key=DOCNO_RANK)
    sp = r.spread()[0][0]            # ndcg@2
    means = dict(zip(r.presets, r.mean[0, :, 0]))
    assert sp["min_presets"] == ["standard"] and "letor4" in sp["max_presets"]
    assert sp["max"] == max(means.values()) == means["letor4"] and sp["min"] == means["standard"]
    assert sp["spread"] == means["letor4"] - means["standard"]


# ----------------------------------------------------------------------------- several systems


def flip_case():
    """One query, labels [3, 1, 1, 0, 0]. A ranks the label-3 document first, then the zeros;
    B ranks the two 1s first. 2**l - 1 gives label 3 gain 7 (A ahead); LETOR's table gives it
    gain 0 (B ahead). C scores as A."""
    labels = np.array([3, 1, 1, 0, 0])
    a = np.array([5.0, 2.0, 1.0, 4.0, 3.0])
    b = np.array([3.0, 5.0, 4.0, 2.0, 1.0])
    return {"A": a, "B": b, "C": a.copy()}, labels, np.array([0, 5])


def test_flip_between_two_systems_is_flagged():
    runs, labels, offsets = flip_case()
    r = fastndcg.compare(runs, labels, offsets, k=[1, 3], presets=["standard", "letor4", "sklearn"])
    assert r.systems == ["A", "B", "C"]
    ranks = r.rankings()
    assert ranks["standard"][0] == [["A", "C"], ["B"]]          # A and C tie exactly
    assert ranks["letor4"][0] == [["B"], ["A", "C"]]
    assert r.order_changed()["letor4"] == [True, True] and r.order_changed()["standard"] == [False, False]
    flips = r.flips()
    ab = [f for f in flips if (f["a"], f["b"]) == ("A", "B") and f["measure"] == "ndcg@1"]
    assert len(ab) == 1
    assert ab[0]["a_ahead"] == ["standard", "sklearn"] and ab[0]["b_ahead"] == ["letor4"]
    assert ab[0]["max_b_lead"] == pytest.approx(1.0)             # letor4: B@1 = 1/1, A@1 = 0
    assert not [f for f in flips if {f["a"], f["b"]} == {"A", "C"}]
    text = r.to_text()
    assert "B > A = C *" in text and "A ahead under standard, sklearn" in text
    doc = json.loads(r.to_json())
    assert doc["rankings"]["ndcg@1"]["letor4"] == {"order": [["B"], ["A", "C"]], "differs_from_baseline": True}
    assert any(f["a"] == "A" and f["b"] == "B" for f in doc["flips"])


def test_baseline_is_a_preset_with_values():
    runs, labels, offsets = flip_case()
    r = fastndcg.compare(runs, labels, offsets, k=1, presets=["trec_eval", "letor4", "sklearn"])
    assert r.baseline == "letor4"                               # trec_eval: no tie key, no values
    assert r.order_changed() == {"trec_eval": [False], "letor4": [False], "sklearn": [True]}
    assert r.rankings()["trec_eval"] == [[]]


def test_baseline_is_the_textbook_convention_by_its_fields():
    """A renamed copy of ``standard`` is the baseline as ``standard`` is (the name is a label, issue 34)."""
    runs, labels, offsets = flip_case()
    mine = fastndcg.get_preset("standard").replace(name="mine")
    named = fastndcg.compare(runs, labels, offsets, k=[1, 3], presets=["letor4", "standard", "sklearn"])
    renamed = fastndcg.compare(runs, labels, offsets, k=[1, 3], presets=["letor4", mine, "sklearn"])
    assert (named.baseline, renamed.baseline) == ("standard", "mine")
    assert named.order_changed()["letor4"] == [True, True]       # (the baseline decides what differs)
    assert renamed.order_changed() == {"mine" if p == "standard" else p: v for p, v in named.order_changed().items()}


def test_no_flip_when_presets_agree():
    runs, labels, offsets = flip_case()
    r = fastndcg.compare(runs, labels, offsets, k=1, presets=["standard", "lightgbm"])
    assert r.flips() == [] and "Flips: pairs whose order depends on the preset: none" in r.to_text()


def test_runs_with_their_own_documents_and_judgments():
    """RunData / AlignedRun values: each run its own list; the qrels feed the ideal."""
    qrels_labels, qrels_offsets = np.array([2, 1, 1]), np.array([0, 3])
    a = RunData([2.0, 1.0], [2, 0], [0, 2], ideal_labels=qrels_labels, ideal_offsets=qrels_offsets)
    b = RunData([2.0, 1.0, 0.5], [1, 1, 2], [0, 3], ideal_labels=qrels_labels, ideal_offsets=qrels_offsets)
    r = fastndcg.compare({"a": a, "b": b}, k=[None], presets=["standard", "letor4"])
    assert r.ideal_sources == {"standard": "qrels", "letor4": "run"}
    j = r.presets.index("standard")
    want_a = fastndcg.mean_ndcg([2.0, 1.0], [2, 0], [0, 2], convention="standard",
                                ideal_labels=qrels_labels, ideal_offsets=qrels_offsets)
    assert r.mean[0, j, 0] == want_a and want_a < 1
    # the letor4 ideal is the run's own list: b's order 1, 1, 2 against its own 2, 1, 1
    want_b = fastndcg.mean_ndcg([2.0, 1.0, 0.5], [1, 1, 2], [0, 3], convention="letor4")
    assert r.mean[1, r.presets.index("letor4"), 0] == want_b
    r2 = fastndcg.compare({"a": a, "b": b}, k=[None], presets=["standard", "letor4"], ideal="run")
    assert r2.ideal_sources == {"standard": "run", "letor4": "run"}
    assert r2.mean[0, j, 0] == 1.0


def test_aligned_run_reproduces_trec_eval(shared_data):
    import fastndcg.io as readers

    base = shared_data / "trec_eval-test"
    a = readers.align_run(base / "results.test", base / "qrels.test")
    r = fastndcg.compare({"STANDARD": a}, k=[5, 10, None], presets=["trec_eval", "trec_eval_cut"])
    # out.test.a: ndcg 0.4021, ndcg_cut_5 0.2768, ndcg_cut_10 0.3016
    assert round(r.mean[0, 0, 2], 4) == 0.4021
    assert [round(v, 4) for v in r.mean[0, 1, :2]] == [0.2768, 0.3016]


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kwargs, match", [
    (dict(presets=["standard", "nope"]), "unknown preset 'nope'"),
    (dict(presets=[]), "at least one preset"),
    (dict(presets=["standard", "standard"]), "'standard' is given twice"),
    (dict(k=0), r"k must be >= 1; got 0"),
    (dict(k=[1, 0]), r"k\[1\] must be >= 1; got 0"),
    (dict(ideal="both"), "ideal must be one of"),
    (dict(ideal="qrels"), "needs judgments"),
    (dict(weights=[1.0]), "system 'run'"),
])
def test_bad_arguments_name_the_argument_and_value(kwargs, match):
    args = dict(k=[2], presets=["standard"])
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        fastndcg.compare(SCORES, LABELS, OFFSETS, **args)


def test_mismatched_runs_are_an_error_naming_the_system():
    with pytest.raises(ValueError, match=r"scores\['b'\] has 6 entries but its labels have 7"):
        fastndcg.compare({"a": SCORES, "b": SCORES[:6]}, LABELS, OFFSETS)
    with pytest.raises(ValueError, match="empty mapping"):
        fastndcg.compare({}, LABELS, OFFSETS)
    with pytest.raises(ValueError, match="labels and offsets are needed"):
        fastndcg.compare(SCORES)
    with pytest.raises(ValueError, match="system 'a'"):
        fastndcg.compare({"a": SCORES}, LABELS, [0, 3, 8])
    with pytest.raises(ValueError, match="system 'run'.*finite"):
        fastndcg.compare(np.where(SCORES > 0.6, np.nan, SCORES), LABELS, OFFSETS)


# ----------------------------------------------------------------------------- outputs


def test_json_round_trip():
    runs, labels, offsets = flip_case()
    r = fastndcg.compare(runs, labels, offsets, k=[1, 3, None], presets=["standard", "letor4", "trec_eval"],
                         per_query=True, qids=["q7"])
    doc = json.loads(r.to_json())
    assert doc["cutoffs"] == [1, 3, None] and doc["measures"] == ["ndcg@1", "ndcg@3", "ndcg"]
    assert doc["presets"]["letor4"]["gain"] == "{0:0,1:1,2:3}" and doc["presets"]["letor4"]["short"] == "zero"
    for s, sysdoc in enumerate(doc["systems"]):
        assert sysdoc["name"] == r.systems[s]
        for j, p in enumerate(r.presets):
            got = [sysdoc["presets"][p]["mean"][m] for m in r.measures]
            want = [None if np.isnan(v) else float(v) for v in r.mean[s, j]]
            assert got == want
        assert sysdoc["per_query"]["standard"][0]["query"] == "q7"
        assert sysdoc["per_query"]["standard"][0]["ndcg@1"] == r.per_query[sysdoc["name"]]["standard"][0, 0]
    assert doc["systems"][0]["presets"]["trec_eval"]["reason"].startswith("ties='key_desc'")


def test_csv_round_trip():
    runs, labels, offsets = flip_case()
    r = fastndcg.compare(runs, labels, offsets, k=[1, 3], presets=["standard", "letor4", "trec_eval"])
    rows = list(csv.DictReader(io.StringIO(r.to_csv())))
    assert len(rows) == 3 * 3 * 2
    for row in rows:
        s, j = r.systems.index(row["system"]), r.presets.index(row["preset"])
        c = r.measures.index(row["measure"])
        assert row["cutoff"] == str(r.cutoffs[c]) and row["query"] == "all"
        if row["preset"] == "trec_eval":
            assert row["ndcg"] == "" and row["rank"] == "" and "tie key" in row["reason"]
            continue
        assert float(row["ndcg"]) == r.mean[s, j, c]          # full precision
        assert float(row["tie_worst"]) == r.tie_worst[s, j, c]
        assert row["reason"] == ""
    first = {(row["system"], row["preset"], row["measure"]): row["rank"] for row in rows}
    assert first[("B", "letor4", "ndcg@1")] == "1" and first[("A", "letor4", "ndcg@1")] == "2"
    assert first[("C", "letor4", "ndcg@1")] == "2"          # shares A's rank
    r2 = fastndcg.compare(runs, labels, offsets, k=[1], presets=["standard"], per_query=True)
    rows2 = list(csv.DictReader(io.StringIO(r2.to_csv())))
    assert [row["query"] for row in rows2] == ["0", "all"] * 3


def test_text_table_is_aligned():
    r = tiny(tie_key=DOCNO_RANK)
    text = r.to_text(digits=4)
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("preset") and "ndcg@2" in line)
    table = lines[head:head + 2 + len(r.presets) + 1]               # header, rule, presets, spread
    assert table[1].startswith("---")
    assert len({len(line) for line in table}) == 1                  # right-aligned numbers: equal widths
    col = table[0].index("ndcg@2") + len("ndcg@2")
    for line, p in zip(table[2:], r.presets):
        assert line.startswith(p)
        assert line[col - 6:col] == f"{r.mean[0, r.presets.index(p), 0]:.4f}"
    assert "Presets (the fields" in text and "letor" in text
    assert "[worst, best]" in text


@pytest.mark.peers
def test_plot_writes_a_png(tmp_path):
    require("matplotlib")
    runs, labels, offsets = flip_case()
    r = fastndcg.compare(runs, labels, offsets, k=[1, 3], presets=["standard", "letor4", "sklearn"])
    path = tmp_path / "curves.png"
    assert r.plot(path, max_k=5) == str(path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    assert os.listdir(tmp_path) == ["curves.png"]                 # no temporary file left
    curves = r.curves(5)
    np.testing.assert_array_equal(curves[:, :, [0, 2]], r.mean)   # k = 1 and 3 are the table's
    with pytest.raises(ValueError, match="max_k must be an int >= 1; got 0"):
        r.plot(tmp_path / "x.png", max_k=0)
    with pytest.raises(OSError):
        r.plot(tmp_path / "missing" / "x.png")
    assert sorted(os.listdir(tmp_path)) == ["curves.png"]


def test_result_type():
    r = tiny()
    assert isinstance(r, Comparison) and str(r) == r.to_text()


def test_compare_tells_labels_outside_a_preset_table_once_per_preset():
    """letor3/letor4 on labels 0-4 (issue 33 item 6): one UnknownLabelWarning per preset that drops
    labels, naming it, at the caller's line (not one more per tie bound)."""
    import warnings

    from fastndcg.conventions import UnknownLabelWarning

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        fastndcg.compare(np.array([.3, .9, .1, .8]), np.array([3, 1, 0, 4]), np.array([0, 2, 4]),
                         presets=["letor4", "standard", "letor3", "mslr"])
    got = [w for w in record if issubclass(w.category, UnknownLabelWarning)]
    assert sorted(w.message.convention for w in got) == ["letor3", "letor4"]
    assert all(w.filename == __file__ and w.message.labels == (3, 4) and w.message.count == 2 for w in got)


def test_comparison_repr_is_a_summary():
    """A notebook shows what was compared, not every value (issue 35); print() gives the table."""
    rng = np.random.default_rng(35)
    labels, offsets = rng.integers(0, 3, 10_000), np.arange(0, 10_001, 5)
    r = fastndcg.compare({"a": rng.random(10_000), "b": rng.random(10_000)}, labels, offsets, k=[5, 10],
                         presets=["standard", "lightgbm", "sklearn", "letor4", "mslr"])
    assert repr(r) == ("Comparison(systems ['a', 'b'], presets ['standard', 'lightgbm', 'sklearn', 'letor4', "
                       "... (1 more)], measures ['ndcg@5', 'ndcg@10'], 2,000 queries)")
    assert str(r) == r.to_text() and r.mean.shape == (2, 5, 2)
