"""fastndcg identify: output, formats, exit codes, errors naming the CLI options."""
from __future__ import annotations

import json

from fastndcg.cli import main
from fastndcg.cli._options import EXIT_DATA, EXIT_IO, EXIT_USAGE


def run_cli(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:       # argparse's usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_identify_finds_trec_eval_for_its_printed_ndcg_cut(shared_data, capsys):
    base = shared_data / "trec_eval-test"
    code, out, err = run_cli(capsys, "identify", base / "qrels.test", base / "results.test", "--value", "0.3016",
                             "-k", "10")
    assert code == 0, err
    assert "MATCH: 1 distinct result(s) reproduce it" in out
    assert "trec_eval" in out and "nDCG@10|" in out and "--all-signatures" in out
    assert "fastndcg: note: every topic has at least 10 results" in err


def test_identify_json_lists_every_signature(shared_data, capsys):
    base = shared_data / "trec_eval-test"
    code, out, err = run_cli(capsys, "identify", base / "qrels.test", base / "results.test", "--per-query",
                             base / "out.test.aq", "--measure", "ndcg", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["matched"] is True and doc["reported"]["measure"] == "ndcg"
    sigs = [s for m in doc["matches"] for s in m["signatures"]]
    assert "nDCG|gain:lin|disc:log2|ties:key_desc|empty:zero|short:clamp|ideal:cut,qrels|agg:mean|" \
           "missing:error|fastndcg:0.1.0" in sigs
    assert any("trec_eval" in m["presets"] for m in doc["matches"])


def test_identify_no_match_exits_0_and_lists_the_nearest(shared_data, capsys, tmp_path):
    base = shared_data / "trec_eval-test"
    code, out, err = run_cli(capsys, "identify", base / "qrels.test", base / "results.test", "--value", "0.9999",
                             "--nearest", "2", "-o", tmp_path / "out.txt")
    assert code == 0 and out == ""
    text = (tmp_path / "out.txt").read_text()
    assert "NO MATCH: no preset or variant reproduces it; the nearest 2:" in text
    assert "#1 presets:" in text and "#2 presets:" in text and "#3" not in text
    assert "no preset or variant reproduces the reported value" in err


def test_identify_data_and_predictions(shared_data, capsys, tmp_path):
    data = shared_data / "lightgbm-rank" / "rank.test"
    n = sum(1 for line in data.read_text().splitlines() if line.strip())
    pred = tmp_path / "pred"
    pred.write_text("".join(f"{(i * 7919) % 1000 / 1000:.3f}\n" for i in range(n)))
    code, out, err = run_cli(capsys, "identify", "--data", data, pred, "--value", "0.5", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["n_distinct"] > 1 and "matched" in doc


def test_identify_bad_input_names_the_option(shared_data, capsys, tmp_path):
    base = shared_data / "trec_eval-test"
    q, r = base / "qrels.test", base / "results.test"
    code, out, err = run_cli(capsys, "identify", q, r, "--value", "0,39")
    assert code == EXIT_USAGE and out == "" and "argument --value: '0,39' is not a number" in err
    code, out, err = run_cli(capsys, "identify", q, r, "--value", "39.14")
    assert code == EXIT_USAGE and "argument --value: '39.14' is outside [0, 1]" in err and "give 0.3914" in err
    code, out, err = run_cli(capsys, "identify", q, r)
    assert code == EXIT_USAGE and "--value" in err and "--per-query" in err
    code, out, err = run_cli(capsys, "identify", q, r, "--value", "0.4", "-k", "5,10")
    assert code == EXIT_USAGE and "-k takes one cutoff" in err
    code, out, err = run_cli(capsys, "identify", q, r, "--per-query", base / "out.test.aq")
    assert code == EXIT_DATA and "choose one with --measure" in err
    code, out, err = run_cli(capsys, "identify", q, r, "--value", "0.4", "--measure", "ndcg")
    assert code == EXIT_USAGE and "--measure names a measure of --per-query FILE" in err
    code, out, err = run_cli(capsys, "identify", q, r, "--per-query", tmp_path / "absent")
    assert code == EXIT_IO and "absent" in err
    code, out, err = run_cli(capsys, "identify", q, tmp_path / "absent", "--value", "0.4")
    assert code == EXIT_IO and "absent" in err
    code, out, err = run_cli(capsys, "identify", q, r, r, "--value", "0.4")
    assert code == EXIT_USAGE and "identify takes QRELS RUN" in err
