"""trec_eval's NDCG family (issue 15): ndcg, ndcg_cut, ndcg_rel, Rndcg, dcg,
ideal_dcg, ndcg_p with custom gains and -c, -J, -M, -l.

* Golden outputs of the real trec_eval 10.0 (tests/data/trec_eval_golden.json,
  see its "source"): for every case, ``fastndcg eval --format trec -q`` with
  the same options and measures is byte for byte trec_eval's stdout (its
  SHA-256) -- tie-heavy generated runs (tests/trec_cases.py), trec_eval's own
  test files, all 17 Robust 2003 runs.
* trec_eval's expected outputs in ../shared/data/trec_eval-test (out.test.*):
  the NDCG lines, byte for byte.
* pytrec_eval (pytrec-eval-terrier 0.5.11, trec_eval 9 inside) to 1e-12:
  ndcg, ndcg_cut, ndcg_rel, Rndcg with gains, -J and -l, per topic and mean.
* The compiled path against the pure-Python spec (fastndcg.reference._trec_ndcg),
  and the same bits on one or two threads.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import fastndcg.io as readers
from fastndcg.reference import _trec_ndcg as ref
from fastndcg.cli import main
from fastndcg.measures import TrecGainQuirkWarning
from fastndcg.measures._trec_gain_specs import parse_gains
from fastndcg.measures._trec_measures import evaluate_trec

from trec_cases import GAIN_SETS, generated_trec
from conftest import require

pytestmark = [pytest.mark.peers]

pytrec_eval = require("pytrec_eval")

GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "data" / "trec_eval_golden.json").read_text())


def _cli(*argv) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main([str(a) for a in argv])
    assert code == 0, err.getvalue()
    return out.getvalue()


def _golden_check(cases, paths):
    """Run every case through the CLI; return (lines compared, failures)."""
    lines, failures = 0, []
    for case in cases:
        q, r = paths(case)
        argv = ["eval", q, r, "--format", "trec", "-q", *case["options"]]
        for m in case["measures"]:
            argv += ["-m", m]
        out = _cli(*argv)
        got = hashlib.sha256(out.encode()).hexdigest()[:32]
        lines += case["lines"]
        if got != case["sha256"]:
            ours = " ".join(f"{ln.split(chr(9))[0].strip()}={ln.split(chr(9))[2]}" for ln in out.splitlines()
                            if ln.split("\t")[1] == "all" and ln.split("\t")[0].strip() not in ("runid", "num_q"))
            failures.append((case["qrels"], case["run"], case["options"], case["measures"], case["all"], ours))
    return lines, failures


def test_golden_generated(tmp_path):
    """Tie-heavy generated runs, every gain set and option set (-c, -J, -M, -l)."""
    cases = [c for c in GOLDEN["cases"] if c["qrels"].startswith("gen")]
    files = {}
    for seed in sorted({int(c["qrels"][3:-6]) for c in cases}):
        files[seed] = generated_trec(tmp_path, seed)
    lines, failures = _golden_check(cases, lambda c: files[int(c["qrels"][3:-6])])
    assert len(cases) >= 280 and lines > 15000
    assert not failures, failures[:3]


def test_golden_trec_eval_test_files(shared_data):
    cases = [c for c in GOLDEN["cases"] if c["qrels"].startswith("trec_eval-test")]
    lines, failures = _golden_check(cases, lambda c: (shared_data / c["qrels"], shared_data / c["run"]))
    assert len(cases) == 64 and lines > 1400
    assert not failures, failures[:3]


@pytest.mark.slow
def test_golden_robust03(shared_data):
    """All 17 Robust 2003 runs (MU03rob01 and rutcor03100 are full of ties)."""
    cases = [c for c in GOLDEN["cases"] if c["qrels"].startswith("trectools")]
    lines, failures = _golden_check(cases, lambda c: (shared_data / c["qrels"], shared_data / c["run"]))
    assert len(cases) == 17 * 5 and lines > 20000
    assert not failures, failures[:3]


# ----------------------------------------------------------------------------- trec_eval's expected outputs

NDCG_FAMILY = ("runid", "num_q", "ndcg", "ndcg_rel", "Rndcg", "dcg", "ideal_dcg")

# (expected output, fastndcg options for trec_eval's, qrels, run)
EXPECTED = [
    ("out.test.a", [], "qrels.test", "results.test"),
    ("out.test.aq", ["-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aqcM", ["-q", "-c", "-M", "100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-q", "-l", "2"], "qrels.rel_level", "results.test"),
]


def _ndcg_lines(text: str) -> str:
    keep = [ln for ln in text.splitlines(keepends=True)
            if ln.split("\t")[0].strip() in NDCG_FAMILY or ln.startswith("ndcg_cut_") or ln.startswith("ndcg_1=")]
    return "".join(keep)


@pytest.mark.parametrize("expected, options, qrels, run", EXPECTED)
def test_expected_outputs_byte_for_byte(shared_data, expected, options, qrels, run):
    """trec_eval -m all_trec: its runid, num_q, ndcg, ndcg_rel, Rndcg and ndcg_cut
    lines are what fastndcg prints for -m runid -m num_q -m ndcg ... (-l 2 of
    out.test.aql changes Rndcg)."""
    base = shared_data / "trec_eval-test"
    want = _ndcg_lines((base / expected).read_text())
    assert "Rndcg" in want and "ndcg_rel" in want and "ndcg_cut_1000" in want
    got = _cli("eval", base / qrels, base / run, "--format", "trec", *options, "-m", "runid", "-m", "num_q",
               "-m", "ndcg", "-m", "ndcg_rel", "-m", "Rndcg", "-m", "ndcg_cut")
    assert got == want


def test_expected_output_measure_parameters(shared_data):
    """out.test.meas_params: -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 (trec_eval reads 23.4 as 23)."""
    base = shared_data / "trec_eval-test"
    want = _ndcg_lines((base / "out.test.meas_params").read_text())
    assert want.count("ndcg_cut_23 ") == 4
    got = _cli("eval", base / "qrels.test", base / "results.test", "--format", "trec", "-q",
               "-m", "ndcg.1=3,2=9,4=4.5", "-m", "ndcg_cut.10,20,23.4")
    assert got == want


# ----------------------------------------------------------------------------- pytrec_eval


class _Pytrec(pytrec_eval.RelevanceEvaluator):
    """pytrec_eval given trec_eval measure strings as they are (its wrapper
    rewrites "ndcg.1=3" to "ndcg.1")."""

    def _combine_measures(self, measures):
        return set(measures)


def _dicts(qrels_path, run_path):
    qrels, run = {}, {}
    for line in readers_lines(qrels_path):
        t, _, d, v = line.split()
        qrels.setdefault(t, {})[d] = int(v)
    for line in readers_lines(run_path):
        t, _, d, _, s, _ = line.split()
        run.setdefault(t, {})[d] = float(s)
    return qrels, run


def readers_lines(path):
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as fh:
        return [ln for ln in fh if ln.strip() and not ln.lstrip().startswith("#")]


def _compare_pytrec(qrels_path, run_path, gains, judged_only, level):
    qrels, run = _dicts(qrels_path, run_path)
    sfx = f".{gains}" if gains else ""
    te_measures = {f"ndcg{sfx}", f"ndcg_rel{sfx}", f"Rndcg{sfx}", "ndcg_cut.1,3,10,20"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecGainQuirkWarning)
        res = evaluate_trec(run_path, qrels_path, [f"ndcg{sfx}", f"ndcg_rel{sfx}", f"Rndcg{sfx}",
                                                   "ndcg_cut.1,3,10,20"],
                            convention="pytrec_eval", missing="skip", judged_only=judged_only, relevance_level=level)
    want = _Pytrec(qrels, te_measures, relevance_level=level, judged_docs_only_flag=judged_only).evaluate(run)
    assert sorted(want) == sorted(res.qids.tolist())
    keys = ["ndcg", "ndcg_rel", "Rndcg", "ndcg_cut_1", "ndcg_cut_3", "ndcg_cut_10", "ndcg_cut_20"]
    w = np.array([[want[q][k] for k in keys] for q in res.qids.tolist()])
    np.testing.assert_allclose(res.values, w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res.means, w.mean(axis=0), rtol=1e-12, atol=1e-12)
    return w.size + w.shape[1]


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_pytrec_eval_generated(tmp_path, seed):
    q, r = generated_trec(tmp_path, seed)
    n = 0
    for gains in [""] + GAIN_SETS:
        for judged_only, level in ((False, 1), (True, 1), (True, 2), (False, 3)):
            n += _compare_pytrec(q, r, gains, judged_only, level)
    assert n > 2000


def test_pytrec_eval_real_files(shared_data):
    base = shared_data / "trec_eval-test"
    for qrels in ("qrels.test", "qrels.rel_level"):
        for gains in ("", "1=3,2=9,4=4.5", "-1=1,3=0.5"):
            for judged_only, level in ((False, 1), (True, 2)):
                _compare_pytrec(base / qrels, base / "results.test", gains, judged_only, level)
    robust = shared_data / "trectools-robust03"
    for run in ("MU03rob01", "rutcor03100"):
        _compare_pytrec(robust / "robust03_qrels.txt", robust / "runs" / f"input.{run}.gz", "", True, 1)


# ----------------------------------------------------------------------------- the spec and the threads


def _spec_values(q, r, pairs, level, max_docs, judged_only, missing, float32=False):
    a = readers.align_run(r, q, missing=missing)
    return a.qids, ref.trec_measures(a.scores, a.trec_levels(), a.offsets, a.tie_key, a.trec_judged(),
                                     a.ideal_offsets, pairs=pairs, relevance_level=level, cutoffs=(1, 3, 10),
                                     score_precision="float32" if float32 else "native", max_docs=max_docs,
                                     judged_only=judged_only, missing_as_unjudged=missing == "zero" and not float32)


@pytest.mark.parametrize("seed", [20, 21])
def test_compiled_equals_spec_and_threads(tmp_path, seed, force_threads):
    """Per topic: the prefix measures (ndcg_rel, Rndcg, ndcg_p) bit for bit,
    the kernel-summed ones (gain times 1/log2, not gain / log2) to 1e-15; and
    one thread gives what two give, bit for bit."""
    q, r = generated_trec(tmp_path, seed, n_topics=30)
    names = ["ndcg", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg", "ndcg_p"]
    for gains in [""] + GAIN_SETS:
        pairs = parse_gains(gains).pairs if gains else ()
        sfx = f".{gains}" if gains else ""
        for level, max_docs, judged_only in ((1, None, False), (2, 6, True), (0, None, True)):
            for rules in ("trec_eval", "pytrec_eval"):
                ms = [f"{n}{sfx}" for n in names] + ["ndcg_cut.1,3,10"]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", TrecGainQuirkWarning)
                    got = [evaluate_trec(r, q, ms, convention=rules, missing="zero", max_docs=max_docs,
                                         judged_only=judged_only, relevance_level=level, n_threads=t)
                           for t in (1, 2)]
                np.testing.assert_array_equal(got[0].values, got[1].values)
                np.testing.assert_array_equal(got[0].means, got[1].means)
                qids, want = _spec_values(q, r, pairs, level, max_docs, judged_only, "zero",
                                          float32=rules == "pytrec_eval")
                assert got[0].qids.tolist() == qids.tolist()
                for j, n in enumerate(names):
                    if n in ("ndcg_rel", "Rndcg", "ndcg_p"):
                        np.testing.assert_array_equal(got[0].values[:, j], want[n], err_msg=f"{n}{sfx} {rules}")
                    else:
                        np.testing.assert_allclose(got[0].values[:, j], want[n], rtol=1e-14, atol=1e-14)
                np.testing.assert_allclose(got[0].values[:, 6:], want["ndcg_cut"], rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("rules", ["trec_eval", "pytrec_eval"])
def test_judged_only_with_topics_missing_first_and_last(tmp_path, rules):
    """-c -J when judged topics without results come first and last (empty topics at
    the ends of the offsets): the spec's values, not an IndexError."""
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 1\n2 0 a 1\n2 0 b 2\n3 0 c 1\n3 0 d -1\n4 0 e 3\n")
    r = tmp_path / "r.txt"
    r.write_text("2 Q0 z 1 3 t\n2 Q0 b 2 2 t\n2 Q0 a 3 1 t\n3 Q0 d 1 2 t\n3 Q0 c 2 1 t\n")
    names = ["ndcg", "dcg", "ndcg_rel", "Rndcg", "ndcg_p"]
    got = evaluate_trec(r, q, names + ["ndcg_cut.1,3,10"], convention=rules, missing="zero", judged_only=True)
    qids, want = _spec_values(q, r, (), 1, None, True, "zero", float32=rules == "pytrec_eval")
    assert got.qids.tolist() == qids.tolist() == ["1", "2", "3", "4"]
    for j, n in enumerate(names):
        np.testing.assert_allclose(got.values[:, j], want[n], rtol=1e-14, atol=1e-14, err_msg=n)
    np.testing.assert_allclose(got.values[:, 5:], want["ndcg_cut"], rtol=1e-14, atol=1e-14)
    assert got.values[1, 0] > 0 and got.values[3, 0] == 0
    ir = evaluate_trec(r, q, "nDCG(judged_only=True)@10", missing="zero")
    assert ir.values[:, 0].tolist()[::3] == [0.0, 0.0] and ir.values[1, 0] > 0


def test_spec_by_hand():
    """One topic worked by hand: levels ranked 2, 0, -1, 1; judged 2, 1, 1, 0."""
    d = [1 / math.log2(r + 1) for r in range(1, 6)]
    got = ref.trec_topic_measures([2, 0, -1, 1], [2, 1, 1, 0], cutoffs=(1, 3))
    dcg = 2 * d[0] + 1 * d[3]
    idcg = 2 * d[0] + d[1] + d[2]
    assert got["dcg"] == pytest.approx(dcg) and got["ideal_dcg"] == pytest.approx(idcg)
    assert got["ndcg"] == pytest.approx(dcg / idcg)
    # ndcg_rel: at ranks 1 and 4 (gain > 0), then one relevant not retrieved... L = 3, 2 retrieved
    s = (2 * d[0]) / (2 * d[0]) + dcg / idcg + (3 - 2) * dcg / idcg
    assert got["ndcg_rel"] == pytest.approx(s / 3)
    # Rndcg: boundaries at 1 (gain 2 -> 1) and 3 (walk's end); n = 4 = L + 1: no extra point
    assert got["Rndcg"] == pytest.approx(((2 * d[0]) / (2 * d[0]) + (2 * d[0]) / idcg) / 2)
    # ndcg_p: D'(1) = 1, D'(r) = 1/log2(r)
    assert got["ndcg_p"] == pytest.approx((2 + 1 / math.log2(4)) / (2 + 1 + 1 / math.log2(3)))
    assert got["ndcg_cut"] == [pytest.approx(1.0), pytest.approx(2 * d[0] / idcg)]
    # -l 3: no judged document at level >= 3, Rndcg is 0; ndcg_p needs a retrieved one too
    assert ref.trec_topic_measures([2, 0, -1, 1], [2, 1, 1, 0], relevance_level=3)["Rndcg"] == 0.0
    assert ref.trec_topic_measures([2, 0, -1, 1], [2, 1, 1, 0], relevance_level=3)["ndcg_p"] == 0.0
    # gains that leave no positive ideal gain: Rndcg is 0/0 (trec_eval prints -nan)
    nan = ref.trec_topic_measures([2, 1], [2, 1], pairs=[(1, 0.0), (2, 0.0)])["Rndcg"]
    assert math.isnan(nan) and math.copysign(1.0, nan) < 0


def test_rndcg_nan_printed_as_trec_eval(tmp_path):
    """trec_eval prints 0/0 as -nan (glibc), and the mean is then -nan too."""
    q = tmp_path / "q"
    r = tmp_path / "r"
    q.write_text("1 0 a 1\n1 0 b 2\n2 0 c 1\n")
    r.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n")
    out = _cli("eval", q, r, "--format", "trec", "-q", "-m", "Rndcg.1=0,2=0")
    assert out == ("Rndcg_1=0,2=0         \t1\t  -nan\nRndcg_1=0,2=0         \t2\t  -nan\n"
                   "Rndcg_1=0,2=0         \tall\t  -nan\n")


def test_trec_result_repr_is_a_summary(tmp_path):
    (tmp_path / "q").write_text("a 0 x 1\na 0 y 0\nb 0 z 1\n")
    (tmp_path / "r").write_text("a Q0 x 1 2.0 tag\na Q0 y 2 1.0 tag\nc Q0 z 1 3.0 tag\n")
    res = evaluate_trec(str(tmp_path / "r"), str(tmp_path / "q"), ["ndcg_cut_10"], missing="skip")
    assert repr(res) == "TrecResult(run 'tag', 1 measure, 1 topic, mean ndcg_cut_10=1.0000, 1 missing, 1 ignored)"
