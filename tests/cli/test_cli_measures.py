"""The command line as a trec_eval user meets it (issue 15): -m in both syntaxes,
-J, -l, -q, cutoffs of TREC files, --format trec, runid, compare --help, the
table header, the long CSV, misspelled presets, one error prefix."""
from __future__ import annotations

import csv
import io
import json
import subprocess

import numpy as np
import pytest

import fastndcg
from fastndcg.cli._options import EXIT_DATA, EXIT_USAGE
from conftest import run_cli


@pytest.fixture
def te(shared_data):
    return shared_data / "trec_eval-test"


def test_cutoffs_of_trec_files_are_ndcg_cut(te, capsys):
    """The README's line: trec_eval's ndcg_cut_5 0.2768 and ndcg_cut_10 0.3016."""
    code, out, _ = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-k", "5,10")
    assert code == 0 and "0.2768" in out and "0.3016" in out
    code, out, _ = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-k", "5,10,all",
                           "--format", "trec")
    assert out == ("runid                 \tall\tSTANDARD\nnum_q                 \tall\t3\n"
                   "ndcg_cut_5            \tall\t0.2768\nndcg_cut_10           \tall\t0.3016\n"
                   "ndcg                  \tall\t0.4021\n")
    # the same under pytrec_eval, and with -m
    code, out2, _ = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-m", "ndcg_cut.5,10",
                            "--format", "trec")
    assert out2 == "ndcg_cut_5            \tall\t0.2768\nndcg_cut_10           \tall\t0.3016\n"
    # custom gains have no cutoff in trec_eval: a warning names what is computed
    code, out, err = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-k", "10", "--gain", "1=3")
    assert code == 0 and "fastndcg: warning: --gain 1=3 with cutoffs: trec_eval has no cutoff for ndcg" in err


def test_measures_in_both_syntaxes(te, capsys):
    code, out, err = run_cli(capsys, "eval", te / "qrels.rel_level", te / "results.test", "-m", "ndcg_cut.5,10",
                             "-m", "ndcg.0=0,1=1,2=3", "-m", "nDCG@10", "-m", "nDCG(dcg='exp-log2')@20",
                             "-m", "nDCG(gains={0:0,1:1,2:3})@10", "-m", "nDCG(judged_only=True)@10",
                             "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["measures"] == ["ndcg_cut_5", "ndcg_cut_10", "ndcg_0=0,1=1,2=3", "nDCG@10", "nDCG(dcg='exp-log2')@20",
                               "nDCG(gains={2:3})@10", "nDCG(judged_only=True)@10"]
    mean = doc["runs"][0]["mean"]
    ev = fastndcg.evaluate(doc["measures"], te / "qrels.rel_level", te / "results.test", missing="error")
    assert [mean[m] for m in doc["measures"]] == [ev.aggregated[m] for m in doc["measures"]]
    assert doc["runs"][0]["runid"] == "STANDARD" and doc["runs"][0]["name"] == "results.test"
    # trec format: trec_eval's measure order (ndcg before ndcg_cut), ir_measures' names after
    code, out, _ = run_cli(capsys, "eval", te / "qrels.rel_level", te / "results.test", "-m", "ndcg_cut.5",
                           "-m", "nDCG@10", "-m", "ndcg", "--format", "trec")
    assert [ln.split("\t")[0].strip() for ln in out.splitlines()] == ["ndcg", "ndcg_cut_5", "nDCG@10"]


def test_judged_only_and_level(te, capsys):
    """-J and -l without -m apply to the -k measures (trec_eval -J -l)."""
    code, out, _ = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-J", "--format", "trec")
    assert code == 0 and out.splitlines()[-1] == "ndcg                  \tall\t0.4065"   # trec_eval -J -m ndcg
    code, out, _ = run_cli(capsys, "eval", te / "qrels.rel_level", te / "results.test", "-m", "Rndcg",
                           "-l", "2", "-q", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["query"] for r in rows] == ["301", "302", "303", "all"] and "Rndcg" in rows[0]


def test_measure_errors_are_usage_errors(te, capsys):
    q, r = te / "qrels.test", te / "results.test"
    for argv, message in (
            (["-m", "ndgc"], "fastndcg: error: measure 'ndgc': unknown measure name 'ndgc'"),
            (["-m", "nDCG(dgc='exp-log2')@10"], "nDCG has no parameter 'dgc' (did you mean 'dcg'?)"),
            (["-m", "ndcg", "-k", "10"], "-m replaces -k and --gain"),
            (["-m", "ndcg", "--preset", "lightgbm"], "--preset lightgbm does not go with -m"),
            (["-m", "ndcg", "--stream"], "--stream does not apply with -m"),
            (["--layout", "long"], "--layout long applies to --format csv"),
            (["-J", "--preset", "letor4"], "-J and -l apply to trec_eval's measures")):
        code, out, err = run_cli(capsys, "eval", q, r, *argv)
        assert code == EXIT_USAGE and out == "" and message in err, (argv, err)


def test_repeated_measure_note(te, capsys):
    code, out, err = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-m", "ndcg_cut.5",
                             "-m", "ndcg_cut.10", "--format", "trec")
    assert code == 0 and out.count("ndcg_cut_") == 2
    assert "trec_eval would compute only the first" in err


def test_runid_rule(te, capsys):
    """Runs are named by their file (base name when unique), the runid line is the tag, whatever the count."""
    one = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "--format", "trec", "-c")[1]
    two = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", te / "results.trunc", "--format", "trec",
                  "-c")[1]
    assert one.count("runid                 \tall\tSTANDARD") == 1 and two.count("\tall\tSTANDARD") == 2
    table = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", te / "results.trunc", "-c")[1]
    assert "results.test " in table and "results.trunc " in table and "STANDARD" not in table


def test_table_footer_and_verbose(te, capsys):
    """The table opens with its data; the preset (and with --verbose every field of
    its convention) follows it (issue 25 item 5: it used to open the table)."""
    out = run_cli(capsys, "eval", te / "qrels.test", te / "results.test")[1]
    table, _, footer = out.partition("\nsignatures:\n")     # a signature is one unbreakable token
    lines = table.splitlines()
    assert lines[0].split() == ["run", "query", "ndcg"] and lines[-2:] == ["", "preset trec_eval"]
    assert max(len(x) for x in lines) < 80
    assert footer.split() == ["ndcg", "nDCG|gain:lin|disc:log2|ties:key_desc|empty:zero|short:clamp|ideal:cut,qrels"
                              "|agg:mean|missing:error|fastndcg:" + fastndcg.__version__]
    out = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "--verbose")[1]
    lines = out.partition("\nsignatures:\n")[0].splitlines()
    assert lines[0].split() == ["run", "query", "ndcg"]
    at = lines.index("preset trec_eval")
    assert lines[at - 1] == "" and lines[at + 1].split() == ["gain", "linear"]
    assert any(x.split() == ["ties", "key_desc"] for x in lines[at:]) and max(len(x) for x in lines) < 80


def test_long_csv(te, capsys):
    out = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-k", "5,10", "--format", "csv",
                  "--layout", "long", "-q")[1]
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["run", "query", "measure", "value", "signature"] and len(rows) == 4 * 2
    assert rows[-1] == {"run": "results.test", "query": "all", "measure": "ndcg@10", "value": rows[-1]["value"],
                        "signature": rows[-1]["signature"]}
    assert rows[-1]["signature"].startswith("nDCG@10|gain:lin|") and rows[0]["signature"].startswith("nDCG@5|")
    assert round(float(rows[-1]["value"]), 4) == 0.3016
    wide = list(csv.DictReader(io.StringIO(run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-k",
                                                   "5,10", "--format", "csv", "-q")[1])))
    assert [float(r["ndcg@5"]) for r in wide] == [float(r["value"]) for r in rows if r["measure"] == "ndcg@5"]


def test_preset_did_you_mean_and_one_error_prefix(te, capsys, tmp_path):
    code, out, err = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "--preset", "trec_evl")
    assert code == EXIT_USAGE and "did you mean 'trec_eval'?" in err
    for argv in (["eval", te / "qrels.test", te / "results.test", "--bogus"],           # argparse
                 ["eval", te / "qrels.test"],                                          # after parsing
                 ["eval", te / "qrels.test", te / "results.trunc"],                    # data (exit 4)
                 ["compare", te / "qrels.test", te / "results.test", "--stream"],
                 ["test", te / "qrels.test", te / "results.test"]):
        code, out, err = run_cli(capsys, *argv)
        assert code in (EXIT_USAGE, EXIT_DATA) and out == ""
        assert err.splitlines()[-1].startswith("fastndcg: error: ") and "fastndcg eval: error" not in err


def test_compare_help_lists_only_its_options(capsys):
    code, out, _ = run_cli(capsys, "compare", "--help")
    assert code == 0 and "--preset" in out
    for opt in ("--stream", "--gain", "-m MEASURE", "--layout"):
        assert opt not in out
    code, out, _ = run_cli(capsys, "eval", "--help")
    for opt in ("--stream", "--gain", "-m MEASURE", "-J", "-l L", "--layout", "--verbose"):
        assert opt in out


@pytest.mark.needs_binary("trec_eval")   # deselected unless a real trec_eval is on PATH (a local check)
def test_against_the_binary_on_path(te, capsys):
    """Local only (CI has no trec_eval; the golden file covers it): byte for byte."""
    for opts in (["-q", "-c", "-m", "ndcg_cut.5,10", "-m", "ndcg.1=3,2=9", "-m", "Rndcg", "-m", "ndcg_rel"],
                 ["-q", "-J", "-m", "ndcg", "-m", "dcg", "-M", "50"]):
        want = subprocess.run(["trec_eval", *opts, str(te / "qrels.rel_level"), str(te / "results.test")],
                              capture_output=True, text=True).stdout
        got = run_cli(capsys, "eval", te / "qrels.rel_level", te / "results.test", "--format", "trec", *opts)[1]
        assert got == want


@pytest.mark.parametrize("expected, options, qrels, run", [
    ("out.test.a", [], "qrels.test", "results.test"),
    ("out.test.aqcM", ["-q", "-c", "-M", "100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-q", "-l", "2"], "qrels.rel_level", "results.test"),
])
def test_all_trec_prints_the_ndcg_lines_of_trec_eval_all_trec(te, capsys, expected, options, qrels, run):
    """Issue 33 item 7: -m all_trec was "unknown measure"; its output is trec_eval -m all_trec's
    own expected output, byte for byte, without the lines of measures outside the NDCG family."""
    code, out, err = run_cli(capsys, "eval", te / qrels, te / run, "-m", "all_trec", "--format", "trec", *options)
    names = ("runid", "num_q", "ndcg", "ndcg_rel", "Rndcg")
    want = "".join(ln for ln in (te / expected).read_text().splitlines(keepends=True)
                   if ln.split("\t")[0].strip() in names or ln.startswith("ndcg_cut_"))
    assert code == 0 and out == want and "ndcg_cut_1000" in want
    assert "fastndcg: note: -m all_trec is trec_eval's all_trec for the NDCG family: runid, num_q, ndcg" in err


def test_all_trec_in_test_and_a_measure_set_without_ndcg(te, capsys):
    code, out, err = run_cli(capsys, "test", te / "qrels.test", te / "results.test", te / "results.trunc", "-c",
                             "-m", "all_trec", "--resamples", "20", "--format", "json")
    assert code == 0 and [m["measure"] for m in json.loads(out)["measures"]][:3] == ["ndcg", "ndcg_rel", "Rndcg"]
    code, out, err = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-m", "official")
    assert code == EXIT_USAGE and "trec_eval's set of measures 'official' has no NDCG measure" in err


def test_a_signature_states_its_rule_for_missing_topics(tmp_path, capsys):
    """A signature printed with missing:zero, given back to -m, was refused unless --missing zero
    was given too (issue 33 item 8): the signature is the whole measurement; a contradicting
    --missing is an error naming both."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    run.write_text("1 Q0 b 1 2.0 r\n1 Q0 a 2 1.0 r\n")
    zero = fastndcg.measurement(10, convention="trec_eval", missing="zero").signature
    skip = fastndcg.measurement(10, convention="trec_eval", missing="skip").signature
    assert "|missing:zero|" in zero
    one = 1 / np.log2(3)            # topic 1: a at rank 2; topic 2 missing
    code, out, err = run_cli(capsys, "eval", qrels, run, "-m", zero, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    (mean,) = doc["runs"][0]["mean"].values()
    assert mean == pytest.approx(one / 2) and "1 judged topic(s) without results counted as 0" in err
    # the measures written without a rule follow the signature's; --missing equal to it is fine
    code, out2, err = run_cli(capsys, "eval", qrels, run, "-m", zero, "-m", "ndcg", "-c", "--format", "json")
    assert code == 0, err
    assert list(json.loads(out2)["runs"][0]["mean"].values()) == pytest.approx([one / 2, one / 2])
    code, out3, err = run_cli(capsys, "eval", qrels, run, "-m", "ndcg", "-m", zero, "--format", "json")
    assert code == 0 and json.loads(out3)["runs"][0]["mean"] == json.loads(out2)["runs"][0]["mean"]
    code, out, err = run_cli(capsys, "eval", qrels, run, "-m", zero, "--skip-missing")
    assert code == EXIT_USAGE and out == ""
    assert "--missing skip contradicts the signature given with -m, which states missing:zero" in err
    code, out, err = run_cli(capsys, "eval", qrels, run, "-m", zero, "-m", skip)
    assert code == EXIT_USAGE and "different rules for missing topics (missing:zero" in err
