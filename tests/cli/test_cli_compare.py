"""``fastndcg compare`` end to end: TREC qrels + runs, LETOR/LightGBM data + predictions, formats, errors.

Runs ``fastndcg compare`` in this process, from a temporary working folder (``python -m
fastndcg`` itself is run by tests/cli/test_cli.py::test_python_dash_m_and_formats): a new
interpreter per command cost about 0.3 s of the fast tier each.
"""
from __future__ import annotations

import csv
import io
import json
import os

import numpy as np
import pytest

import fastndcg
import fastndcg.io as readers
from fastndcg.cli._options import EXIT_DATA, EXIT_IO, EXIT_OK, EXIT_USAGE
from conftest import require, run_cli


@pytest.fixture
def cli(capsys, tmp_path, monkeypatch):
    """``fastndcg compare --no-progress ARGV`` in this process, in ``tmp_path`` (relative
    paths and left-over files land there): (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    return lambda *argv: run_cli(capsys, "compare", "--no-progress", *argv)


@pytest.fixture
def trec(shared_data):
    return shared_data / "trec_eval-test"


def ltr_predictions(tmp_path, data_path, n_files=2, seed=0, group=None):
    """Prediction files for a data file: close to the labels (with coarse ties) and noise."""
    d = readers.read_svmlight(data_path, group=group)
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(n_files):
        noise = rng.normal(0, 0.6 + i, d.n_rows)
        p = tmp_path / f"model{i}.pred"
        np.savetxt(p, np.round(d.labels + noise, 1), fmt="%.17g")
        paths.append(p)
    return d, paths


# ----------------------------------------------------------------------------- TREC files


def test_trec_one_run_json_reproduces_trec_eval(trec, cli):
    code, out, err = cli(trec / "qrels.test", trec / "results.test", "-k", "5,10,all", "--format", "json")
    assert code == EXIT_OK, err
    doc = json.loads(out)
    assert set(doc["presets"]) == set(fastndcg.list_presets())
    run = doc["systems"][0]
    assert run["name"] == "results.test" or run["name"] == "STANDARD"
    # out.test.a: ndcg 0.4021, ndcg_cut_5 0.2768, ndcg_cut_10 0.3016 (docno tie key from the reader)
    assert round(run["presets"]["trec_eval"]["mean"]["ndcg"], 4) == 0.4021
    assert round(run["presets"]["trec_eval_cut"]["mean"]["ndcg@5"], 4) == 0.2768
    assert round(run["presets"]["trec_eval_cut"]["mean"]["ndcg@10"], 4) == 0.3016
    assert all(p["computable"] for p in run["presets"].values())
    assert doc["presets"]["trec_eval"]["ideal_source"] == "qrels" and doc["presets"]["letor4"]["ideal_source"] == "run"
    assert run["n_queries"] == 3 and run["short_queries"]["ndcg@10"] == 0


def test_trec_several_runs_table_rankings_and_flips(trec, cli):
    args = [trec / "qrels.test", trec / "results.test", trec / "results.trunc", "-c", "-k", "5,10"]
    code, out, err = cli(*args)
    assert code == EXIT_OK, err
    assert "judged topic(s) without results counted as 0" in err
    assert "Order of the systems, best first" in out and "Flips: pairs whose order depends on the preset" in out
    code, out, err = cli(*args, "--format", "json")
    doc = json.loads(out)
    names = [s["name"] for s in doc["systems"]]
    assert len(names) == 2
    trunc = doc["systems"][1]
    # out.test.aqc (-c, results.trunc): ndcg_cut_5 0.1490, ndcg_cut_10 0.1717
    assert round(trunc["presets"]["trec_eval_cut"]["mean"]["ndcg@5"], 4) == 0.1490
    assert round(trunc["presets"]["trec_eval_cut"]["mean"]["ndcg@10"], 4) == 0.1717
    assert trunc["zero_doc_queries"] == 1
    # the topic without results: IDCG 0 for presets that take the ideal from the run; 1 where empty = one
    assert trunc["presets"]["catboost"]["empty_queries"] == 1 and doc["presets"]["catboost"]["empty"] == "one"
    # trec_eval_cut puts results.test ahead; presets scoring the empty topic 1 put results.trunc ahead
    flip = [f for f in doc["flips"] if f["measure"] == "ndcg@5"]
    assert len(flip) == 1
    ahead = {flip[0]["a"]: flip[0]["a_ahead"], flip[0]["b"]: flip[0]["b_ahead"]}
    assert "trec_eval_cut" in ahead[names[0]] and "catboost" in ahead[names[1]]
    order = doc["rankings"]["ndcg@5"]["catboost"]
    assert order["order"] == [[names[1]], [names[0]]] and order["differs_from_baseline"] is True


def test_trec_preset_selection_csv_and_atomic_output(trec, tmp_path, cli):
    out_path = tmp_path / "report.csv"
    code, out, err = cli(trec / "qrels.rel_level", trec / "results.test", "--presets",
                         "trec_eval_cut,standard,letor4", "-k", "5,10", "--format", "csv", "-o", out_path)
    assert code == EXIT_OK, err
    assert out == ""
    rows = list(csv.DictReader(io.StringIO(out_path.read_text())))
    assert [r["preset"] for r in rows] == ["trec_eval_cut"] * 2 + ["standard"] * 2 + ["letor4"] * 2
    got = {(r["preset"], r["measure"]): float(r["ndcg"]) for r in rows}
    # out.test.aql (graded qrels): ndcg_cut_5 0.2768, ndcg_cut_10 0.2656
    assert round(got[("trec_eval_cut", "ndcg@5")], 4) == 0.2768
    assert round(got[("trec_eval_cut", "ndcg@10")], 4) == 0.2656
    assert sorted(os.listdir(tmp_path)) == ["report.csv"]          # no temporary file left


# ----------------------------------------------------------------------------- data + predictions


@pytest.mark.peers
def test_mq2008_predictions_table_json_and_plot(shared_data, tmp_path, cli):
    require("matplotlib")
    data = shared_data / "mq2008" / "test.txt"
    d, preds = ltr_predictions(tmp_path, data)
    png = tmp_path / "curves.png"
    code, out, err = cli("--data", data, *preds, "-k", "1,5,10", "--format", "json", "--plot", png,
                         "--plot-max-k", "12")
    assert code == EXIT_OK, err
    assert "no doc ids" in err
    doc = json.loads(out)
    labels = d.grouped(d.labels).astype(np.int64)
    for s, pred in zip(doc["systems"], preds):
        scores = readers.read_predictions(pred, n=d.n_rows)
        for p in ("standard", "letor4", "lightgbm"):
            want = fastndcg.mean_ndcg(d.grouped(scores), labels, d.offsets, [1, 5, 10], convention=p)
            assert [s["presets"][p]["mean"][m] for m in ("ndcg@1", "ndcg@5", "ndcg@10")] == want.tolist()
        # SVMlight data has no doc ids: presets that break ties by one are reported, not computed
        assert s["presets"]["trec_eval"]["computable"] is False and "tie key" in s["presets"]["trec_eval"]["reason"]
        # MQ2008 test: 156 queries, 51 all-zero, 76 shorter than 10 documents (SOURCE.md)
        assert s["n_queries"] == 156 and s["presets"]["standard"]["empty_queries"] == 51
        assert s["short_queries"]["ndcg@10"] == 76
        assert s["presets"]["standard"]["tied_queries"]["ndcg@10"] > 0     # rounded scores tie
        lo, hi = s["presets"]["standard"]["tie_range"]["ndcg@10"]
        assert lo < s["presets"]["standard"]["mean"]["ndcg@10"] < hi
    blob = png.read_bytes()
    assert blob[:8] == b"\x89PNG\r\n\x1a\n" and len(blob) > 20_000
    code, out, err = cli("--data", data, *preds, "-k", "1,5,10", "--presets", "standard,letor4,trec_eval")
    assert code == EXIT_OK, err
    assert "System model0.pred: 156 queries, 2874 documents" in out and "trec_eval [1]" in out and "n/a" in out


def test_lightgbm_rank_data_uses_its_query_file(shared_data, tmp_path, cli):
    data = shared_data / "lightgbm-rank" / "rank.test"
    d, preds = ltr_predictions(tmp_path, data, n_files=1, group=str(data) + ".query")
    code, out, err = cli("--data", data, *preds, "-k", "1,3,5", "--presets", "lightgbm,standard",
                         "--format", "json")
    assert code == EXIT_OK, err
    run = json.loads(out)["systems"][0]
    assert run["n_queries"] == 50 and run["short_queries"]["ndcg@5"] == 0
    scores = readers.read_predictions(preds[0], n=d.n_rows)
    want = fastndcg.mean_ndcg(scores, d.labels.astype(np.int64), d.offsets, [1, 3, 5], convention="lightgbm")
    assert [run["presets"]["lightgbm"]["mean"][m] for m in ("ndcg@1", "ndcg@3", "ndcg@5")] == want.tolist()


# ----------------------------------------------------------------------------- errors and exit codes


def test_usage_errors_exit_2(trec, tmp_path, cli):
    q, r = trec / "qrels.test", trec / "results.test"
    code, out, err = cli(q, r, "--presets", "standard,nope")
    assert code == EXIT_USAGE and out == "" and "--preset" in err and "unknown preset 'nope'" in err
    code, out, err = cli(q, r, "-k", "5,0")
    assert code == EXIT_USAGE and "-k" in err and "'5,0'" in err
    code, out, err = cli(q, r, "--gain", "1=3")
    # issue 15: compare does not offer --gain / --stream (its --help lists only what it accepts)
    assert code == EXIT_USAGE and "unrecognized arguments: --gain" in err
    code, out, err = cli(q, r, "--plot-max-k", "0", "--plot", "x.png")
    assert code == EXIT_USAGE and "--plot-max-k" in err and "'0'" in err
    code, out, err = cli(q)
    assert code == EXIT_USAGE and "at least one RUN" in err
    assert os.listdir(tmp_path) == []


@pytest.mark.peers
def test_io_errors_exit_3_and_leave_no_file(trec, tmp_path, cli):
    require("matplotlib")
    q, r = trec / "qrels.test", trec / "results.test"
    code, out, err = cli(q, r, "-o", tmp_path / "nowhere" / "report.txt")
    assert code == EXIT_IO and out == "" and "nowhere" in err
    code, out, err = cli(q, r, "--plot", tmp_path / "nowhere" / "curves.png")
    assert code == EXIT_IO and "--plot" in err
    code, out, err = cli(q, tmp_path / "missing.run")
    assert code == EXIT_IO and "missing.run" in err
    assert os.listdir(tmp_path) == []


@pytest.mark.peers
def test_unwritable_output_exit_3(trec, tmp_path, cli):
    require("matplotlib")
    q, r = trec / "qrels.test", trec / "results.test"
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        target = locked / "report.txt"
        if os.access(locked, os.W_OK):          # root ignores permissions; /proc refuses new files
            if not os.path.isdir("/proc/self"):
                pytest.skip("no folder this user cannot write to")
            target = "/proc/fastndcg-report.txt"
        for option in ("-o", "--plot"):
            code, out, err = cli(q, r, option, target)
            assert code == EXIT_IO and out == "" and "report.txt" in err, err
    finally:
        locked.chmod(0o700)
    assert os.listdir(tmp_path) == ["locked"] and os.listdir(locked) == []


def test_data_errors_exit_4_with_file_and_line(shared_data, trec, tmp_path, cli):
    data = shared_data / "mq2008" / "test.txt"
    short = tmp_path / "short.pred"
    short.write_text("0.5\n" * 100)
    existing = tmp_path / "report.txt"
    existing.write_text("previous report\n")
    code, out, err = cli("--data", data, short, "-o", existing)
    assert code == EXIT_DATA and out == ""
    assert f"{short}:" in err and "2874" in err
    assert existing.read_text() == "previous report\n"             # untouched
    # a judged topic missing from a run, without -c: trec_eval 10 stops too
    code, out, err = cli(trec / "qrels.test", trec / "results.test", trec / "results.trunc")
    assert code == EXIT_DATA and "results.trunc" in err and "-c" in err
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 doc1 1 0.5 tag\n301 Q0 doc2 2 high tag\n")
    code, out, err = cli(trec / "qrels.test", bad, "-c")
    assert code == EXIT_DATA and f"{bad}:2:" in err
