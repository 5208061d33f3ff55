"""Command line: trec_eval reproduction, LTR files, formats, exit codes, test subcommand."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import warnings
from types import SimpleNamespace

import numpy as np

from fastndcg.measures._aligned import aligned_mean_ndcg, aligned_ndcg
import pytest

import fastndcg
import fastndcg.io as readers
from fastndcg.cli import main
from fastndcg.cli._options import EXIT_DATA, EXIT_IO, EXIT_USAGE, Progress
from conftest import read_svmlight_dense, require, run_cli as run_cli_exits


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def ndcg_lines(text: str, measures=("ndcg", "ndcg_cut_", "ndcg_1=")):
    """{(measure, query): value} of trec_eval-format lines whose measure is an NDCG one."""
    out = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) != 3:
            continue
        m = parts[0].strip()
        if m == "ndcg" or any(m.startswith(p) for p in measures[1:]):
            out[(m, parts[1])] = parts[2]
    return out


# (expected output, trec_eval options as fastndcg options, qrels, run)
TREC_EVAL_CASES = [
    ("out.test.a", [], "qrels.test", "results.test"),
    ("out.test.aq", ["--per-query"], "qrels.test", "results.test"),
    ("out.test.aqc", ["--per-query", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aqcM", ["--per-query", "-c", "-M", "100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["--per-query"], "qrels.rel_level", "results.test"),
]


@pytest.mark.parametrize("expected, options, qrels, run", TREC_EVAL_CASES)
def test_reproduces_trec_eval_ndcg_lines(shared_data, capsys, expected, options, qrels, run):
    base = shared_data / "trec_eval-test"
    want = ndcg_lines((base / expected).read_text())
    assert any(m == "ndcg" for m, _ in want) and any(m.startswith("ndcg_cut_") for m, _ in want)
    got = {}
    for preset in ("trec_eval", "trec_eval_cut"):
        code, out, err = run_cli(capsys, "eval", base / qrels, base / run, "--preset", preset,
                                 "--format", "trec", *options)
        assert code == 0, err
        got.update(ndcg_lines(out))
    assert got == want


def test_reproduces_trec_eval_measure_parameters(shared_data, capsys):
    """out.test.meas_params: -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4"""
    base = shared_data / "trec_eval-test"
    want = ndcg_lines((base / "out.test.meas_params").read_text())
    code, out, _ = run_cli(capsys, "eval", base / "qrels.test", base / "results.test", "--format", "trec",
                           "--per-query", "--gain", "1=3,2=9,4=4.5")
    code2, out2, _ = run_cli(capsys, "eval", base / "qrels.test", base / "results.test", "--format", "trec",
                             "--per-query", "--preset", "trec_eval_cut", "-k", "10,20,23")
    assert code == code2 == 0
    got = ndcg_lines(out)
    got.update(ndcg_lines(out2))
    assert got == want
    assert ("ndcg_1=3,2=9,4=4.5", "all") in got


def test_trec_eval_missing_topic_is_an_error_without_c(shared_data, capsys):
    base = shared_data / "trec_eval-test"
    code, out, err = run_cli(capsys, "eval", base / "qrels.test", base / "results.trunc")
    assert code == EXIT_DATA and out == ""
    assert "qrels.test:1709: 1 judged topic(s) have no results" in err and "'302'" in err and "-c" in err
    code, out, err = run_cli(capsys, "eval", base / "qrels.test", base / "results.trunc", "--skip-missing",
                             "--format", "json")
    assert code == 0 and json.loads(out)["runs"][0]["n_queries"] == 2
    assert "left out" in err


@pytest.mark.slow
def test_robust03_all_runs(shared_data, capsys, tmp_path):
    base = shared_data / "trectools-robust03"
    runs = sorted((base / "runs").glob("input.*.gz"))
    out_file = tmp_path / "all.json"
    code, out, err = run_cli(capsys, "eval", base / "robust03_qrels.txt", *runs, "-k", "10,all",
                             "--format", "json", "-o", out_file, "--per-query")
    assert code == 0 and out == ""
    doc = json.loads(out_file.read_text())
    assert len(doc["runs"]) == 17 and doc["measures"] == ["ndcg@10", "ndcg"]
    qrels = readers.read_qrels(base / "robust03_qrels.txt")
    for run_doc, path in zip(doc["runs"], runs):
        assert run_doc["n_queries"] == 100 and len(run_doc["per_query"]) == 100
        a = readers.align_run(path, qrels)
        # issue 15: a cutoff of the trec_eval preset is trec_eval's ndcg_cut (the ideal cut at k too)
        api = aligned_ndcg(a, [10, None], convention="trec_eval_cut")
        got = np.array([[r["ndcg@10"], r["ndcg"]] for r in run_doc["per_query"]])
        np.testing.assert_array_equal(got, api)
        assert [run_doc["mean"]["ndcg@10"], run_doc["mean"]["ndcg"]] == aligned_mean_ndcg(a, [10, None],
                                                                                    convention="trec_eval_cut").tolist()
        assert run_doc["mean"]["ndcg"] == pytest.approx(aligned_mean_ndcg(a, None), rel=1e-14)
        # issue 15: one rule for names: the run is its file, runid its tag
        assert run_doc["name"] == path.name and run_doc["runid"] == a.run_name
    tags = [r["runid"] for r in doc["runs"]]
    assert "MU03rob01" in tags and "rutcor03100" in tags


def _ltr_arrays(path, group=None):
    # an independent parser (tests/conftest.py), not fastndcg.io's
    _, y, qid = read_svmlight_dense(path)
    if group is None:
        offsets = fastndcg.offsets_from_qid(qid).offsets
    else:
        offsets = fastndcg.offsets_from_group_sizes(np.loadtxt(group, dtype=np.int64))
    return y.astype(np.int64), offsets


@pytest.mark.parametrize("dataset", ["mq2008", "lightgbm-rank"])
@pytest.mark.parametrize("preset", ["letor4", "lightgbm", "standard"])
def test_ltr_data_and_predictions(shared_data, capsys, tmp_path, dataset, preset):
    if dataset == "mq2008":
        data, group = shared_data / "mq2008" / "test.txt", None
    else:
        data = shared_data / "lightgbm-rank" / "rank.test"
        group = shared_data / "lightgbm-rank" / "rank.test.query"   # found next to the data file
    labels, offsets = _ltr_arrays(data, group)
    scores = np.round(np.random.default_rng(1).random(labels.size), 2)   # rounded: ties on purpose
    pred = tmp_path / "model.pred"
    np.savetxt(pred, scores, fmt="%.2f")
    code, out, err = run_cli(capsys, "eval", "--data", data, pred, "--preset", preset, "-k", "1,3,5,10",
                             "--format", "csv", "--per-query")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[-1]["query"] == "all" and len(rows) == offsets.size
    expected = fastndcg.ndcg(scores, labels, offsets, [1, 3, 5, 10], convention=preset)
    got = np.array([[float(r[f"ndcg@{k}"]) for k in (1, 3, 5, 10)] for r in rows[:-1]])
    np.testing.assert_array_equal(got, expected)
    mean = fastndcg.mean_ndcg(scores, labels, offsets, [1, 3, 5, 10], convention=preset)
    np.testing.assert_array_equal([float(rows[-1][f"ndcg@{k}"]) for k in (1, 3, 5, 10)], mean)
    # streaming gives the same per-query values
    code, out_stream, _ = run_cli(capsys, "eval", "--data", data, pred, "--preset", preset, "-k", "1,3,5,10",
                                  "--format", "csv", "--per-query", "--stream")
    assert code == 0
    assert list(csv.DictReader(io.StringIO(out_stream)))[:-1] == rows[:-1]


@pytest.mark.peers
def test_lightgbm_preset_matches_lightgbm_itself(shared_data, capsys, tmp_path):
    lgb = require("lightgbm")
    load_svmlight_file = require("sklearn.datasets").load_svmlight_file

    base = shared_data / "lightgbm-rank"
    X, y = load_svmlight_file(str(base / "rank.test"))
    group = np.loadtxt(base / "rank.test.query", dtype=np.int64)
    scores = np.random.default_rng(2).random(y.size)
    pred = tmp_path / "p.txt"
    np.savetxt(pred, scores, fmt="%.17g")
    # LightGBM evaluates init_score when the single tree adds (almost) nothing
    ds = lgb.Dataset(X, y, group=group, init_score=scores)
    record = {}
    lgb.train({"objective": "lambdarank", "metric": "ndcg", "eval_at": [1, 3, 5], "learning_rate": 1e-300,
               "verbose": -1, "num_leaves": 2, "min_data_in_leaf": 1, "num_threads": 1}, ds, num_boost_round=1,
              valid_sets=[ds], valid_names=["v"], callbacks=[lgb.record_evaluation(record)])
    code, out, _ = run_cli(capsys, "eval", "--data", base / "rank.test", pred, "--preset", "lightgbm",
                           "-k", "1,3,5", "--format", "json")
    assert code == 0
    mean = json.loads(out)["runs"][0]["mean"]
    for k in (1, 3, 5):
        assert mean[f"ndcg@{k}"] == pytest.approx(record["v"][f"ndcg@{k}"][0], abs=1e-12)


def test_default_cutoffs_and_table(shared_data, capsys):
    base = shared_data / "trec_eval-test"
    code, out, _ = run_cli(capsys, "eval", base / "qrels.test", base / "results.test")
    # issue 15: the run column is the file (its tag is the runid of --format trec)
    assert code == 0 and "ndcg" in out and "results.test" in out and "0.4021" in out and "all (3)" in out
    code, out, _ = run_cli(capsys, "eval", base / "qrels.test", base / "results.test", "--preset", "trec_eval_cut",
                           "--format", "csv")
    assert out.splitlines()[0] == "run,query," + ",".join(f"ndcg@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)) \
        + ",signatures"


@pytest.mark.parametrize("argv, code, message", [
    (["eval", "{q}", "{r}", "-k", "0"], EXIT_USAGE, "cutoffs must be integers >= 1"),
    (["eval", "{q}", "{r}", "--preset", "nope"], EXIT_USAGE, "unknown preset 'nope'"),
    (["eval", "{q}"], EXIT_USAGE, "needs QRELS and at least one RUN"),
    (["eval", "{q}", "{r}", "--group", "x"], EXIT_USAGE, "--group only applies with --data"),
    (["eval", "{q}", "{r}", "--gain", "1=x"], EXIT_USAGE, "LEVEL=GAIN"),
    (["eval", "{q}", "{r}", "-c", "--skip-missing"], EXIT_USAGE, "not allowed with"),
    (["test", "{q}", "{r}"], EXIT_USAGE, "at least two runs"),
    (["test", "{q}", "{r}", "{r}", "--alpha", "2"], EXIT_USAGE, "strictly between 0 and 1"),
    (["eval", "{q}", "/nonexistent/run.txt"], EXIT_IO, "cannot access '/nonexistent/run.txt'"),
    (["eval", "--data", "/nonexistent/d.svm", "{r}"], EXIT_IO, "No such file"),
])
def test_exit_codes(shared_data, capsys, argv, code, message):
    base = shared_data / "trec_eval-test"
    argv = [a.format(q=base / "qrels.test", r=base / "results.test") for a in argv]
    try:
        got = main(argv)
    except SystemExit as exc:      # argparse usage errors
        got = exc.code
    out, err = capsys.readouterr()
    assert got == code
    assert message in err
    assert out == ""


def test_malformed_inputs_name_file_and_line(capsys, tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n1 0 b 1\n")
    bad_run = tmp_path / "bad.run"
    bad_run.write_text("1 Q0 a 1 0.5 t\n1 Q0 b 2 x t\n")
    code, out, err = run_cli(capsys, "eval", qrels, bad_run)
    assert code == EXIT_DATA and f"{bad_run}:2: the score (5th field) is not a finite number" in err and out == ""
    data = tmp_path / "d.svm"
    data.write_text("1 qid:1 1:0\n0 qid:1 1:0\n2 qid:2 1:0\n")
    pred = tmp_path / "p.txt"
    pred.write_text("0.1\n0.2\n")
    code, _, err = run_cli(capsys, "eval", "--data", data, pred)
    assert code == EXIT_DATA and f"{pred}:3: the prediction file ends after 2 scores but the data file {data} has 3 rows" in err
    pred.write_text("0.1\n0.2\n0.3\n0.4\n")
    code, _, err = run_cli(capsys, "eval", "--data", data, pred)
    assert code == EXIT_DATA and f"{pred}:4:" in err
    pred.write_text("0.1\nabc\n0.3\n")
    code, _, err = run_cli(capsys, "eval", "--data", data, pred)
    assert code == EXIT_DATA and f"{pred}:2: not a finite number" in err
    data.write_text("1 qid:1 1:0\n0 qid:2 1:0\n2 qid:1 1:0\n")
    pred.write_text("0.1\n0.2\n0.3\n")
    code, _, err = run_cli(capsys, "eval", "--data", data, pred)
    assert code == EXIT_DATA and f"{data}:3: qid 1 appears again" in err
    code, out, _ = run_cli(capsys, "eval", "--data", data, pred, "--qid-order", "any")
    assert code == 0 and "all (2)" in out
    nogroup = tmp_path / "n.svm"
    nogroup.write_text("1 1:0\n")
    code, _, err = run_cli(capsys, "eval", "--data", nogroup, pred)
    assert code == EXIT_DATA and "no qid" in err


def test_output_file_is_atomic(shared_data, capsys, tmp_path):
    base = shared_data / "trec_eval-test"
    target = tmp_path / "result.csv"
    code, _, _ = run_cli(capsys, "eval", base / "qrels.test", base / "results.trunc", "--format", "csv", "-o", target)
    assert code == EXIT_DATA and not target.exists()
    assert os.listdir(tmp_path) == []                       # no temporary file left either
    target.write_text("previous\n")
    code, _, _ = run_cli(capsys, "eval", base / "qrels.test", base / "results.trunc", "-o", target)
    assert code == EXIT_DATA and target.read_text() == "previous\n"
    code, out, _ = run_cli(capsys, "eval", base / "qrels.test", base / "results.test", "--format", "csv", "-o", target)
    assert code == 0 and out == "" and target.read_text().startswith("run,query,ndcg,signatures\n")


def test_progress_bar(shared_data, capsys):
    base = shared_data / "trec_eval-test"
    code, _, err = run_cli(capsys, "eval", base / "qrels.test", base / "results.test")
    assert code == 0 and "%" not in err                      # not a terminal: no bar
    code, _, err = run_cli(capsys, "eval", base / "qrels.test", base / "results.test", "--progress")
    assert code == 0 and "100.0%" in err and "results.test" in err
    stream = io.StringIO()
    bar = Progress(True, delay=0.0, stream=stream).start("file")
    bar(50, 100)
    bar.done()
    assert "50.0%" in stream.getvalue() and stream.getvalue().endswith("\r")


def test_python_dash_m_and_formats(shared_data, tmp_path):
    base = shared_data / "trec_eval-test"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(fastndcg.__file__)))
    proc = subprocess.run([sys.executable, "-m", "fastndcg", "eval", str(base / "qrels.test"), str(base / "results.test"),
                           "-k", "10,all", "--format", "json", "--per-query"],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["cutoffs"] == [10, None]
    assert [r["query"] for r in doc["runs"][0]["per_query"]] == ["301", "302", "303"]
    assert round(doc["runs"][0]["mean"]["ndcg"], 4) == 0.4021
    proc = subprocess.run([sys.executable, "-m", "fastndcg", "eval", str(base / "qrels.test"), "missing.run"],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == EXIT_IO and proc.stdout == "" and "missing.run" in proc.stderr


def _python(code: str, tmp_path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(fastndcg.__file__)))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)


def test_python_dash_m_eval_skips_the_interpreter_teardown(shared_data, tmp_path):
    """`python -m fastndcg eval` ends with os._exit once its output is flushed (no teardown of
    the modules: about 4% of a 5M-line run): the output whole, main's exit code (an error's:
    test_python_dash_m_and_formats), no atexit."""
    base = shared_data / "trec_eval-test"
    run = ("import atexit, runpy, sys\n"
           "atexit.register(lambda: print('teardown', file=sys.stderr))\n"
           "sys.argv = ['fastndcg', 'eval', '-m', 'ndcg_cut.10', '--format', 'trec', {!r}, {!r}]\n"
           "runpy.run_module('fastndcg', run_name='__main__')\n")
    proc = _python(run.format(str(base / "qrels.test"), str(base / "results.test")), tmp_path)
    assert proc.returncode == 0 and "teardown" not in proc.stderr, proc.stderr
    assert proc.stdout.splitlines() == ["ndcg_cut_10           \tall\t0.3016"]       # trec_eval's bytes
    # the other commands keep the interpreter's exit
    proc = _python(run.replace("'eval', '-m', 'ndcg_cut.10', '--format', 'trec', {!r}, {!r}", "'--version'"), tmp_path)
    assert proc.returncode == 0 and "teardown" in proc.stderr


def test_the_console_script_takes_the_python_dash_m_path(shared_data, tmp_path):
    """The ``fastndcg`` console script is ``fastndcg.__main__:run``, the function ``python -m
    fastndcg`` runs: `fastndcg eval` starts and ends as the measured `python -m` does."""
    import tomllib

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # the checkout
    with open(os.path.join(root, "pyproject.toml"), "rb") as f:
        target = tomllib.load(f)["project"]["scripts"]["fastndcg"]
    assert target == "fastndcg.__main__:run"
    module, func = target.split(":")
    base = shared_data / "trec_eval-test"
    proc = _python("import atexit, importlib, sys\n"
                   "atexit.register(lambda: print('teardown', file=sys.stderr))\n"
                   f"sys.argv = ['fastndcg', 'eval', '-m', 'ndcg_cut.10', '--format', 'trec', "
                   f"{str(base / 'qrels.test')!r}, {str(base / 'results.test')!r}]\n"
                   f"getattr(importlib.import_module({module!r}), {func!r})()\n", tmp_path)
    assert proc.returncode == 0 and "teardown" not in proc.stderr, proc.stderr
    assert proc.stdout.splitlines() == ["ndcg_cut_10           \tall\t0.3016"]


def test_eval_to_stdout_imports_no_module_it_does_not_use(shared_data, tmp_path):
    """`fastndcg eval` to stdout: tempfile (an output file), json (--format json) and difflib (a
    suggestion for an unknown name) are imported where they are used, not on every run."""
    base = shared_data / "trec_eval-test"
    proc = _python("import contextlib, io, sys\n"
                   "from fastndcg.cli import main\n"
                   "with contextlib.redirect_stdout(io.StringIO()):\n"
                   f"    main(['eval', '-m', 'ndcg_cut.10', {str(base / 'qrels.test')!r}, {str(base / 'results.test')!r}])\n"
                   "print(sorted(m for m in ('tempfile', 'json', 'difflib') if m in sys.modules))\n", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_test_subcommand(shared_data, capsys, tmp_path):
    data = shared_data / "mq2008" / "test.txt"
    labels, offsets = _ltr_arrays(data)
    rng = np.random.default_rng(0)
    good = labels + rng.normal(0, 0.3, labels.size)          # close to the labels
    bad = rng.random(labels.size)
    paths = []
    for name, s in (("good.pred", good), ("bad.pred", bad), ("bad2.pred", bad + 1e-3 * rng.random(labels.size))):
        np.savetxt(tmp_path / name, s, fmt="%.17g")
        paths.append(tmp_path / name)
    code, out, err = run_cli(capsys, "test", "--data", data, *paths, "-k", "10", "--format", "json",
                             "--resamples", "2000")
    assert code == 0, err
    doc = json.loads(out)
    m = doc["measures"][0]
    assert m["measure"] == "ndcg@10" and doc["n_queries"] == 156
    pairs = {(p["a"], p["b"]): p for p in m["pairs"]}
    assert pairs[("good.pred", "bad.pred")]["winner"] == "good.pred"
    assert pairs[("good.pred", "bad2.pred")]["winner"] == "good.pred"
    assert pairs[("bad.pred", "bad2.pred")]["winner"] in ("", None)
    per = {n: fastndcg.ndcg(s, labels, offsets, 10) for n, s in (("good.pred", good), ("bad.pred", bad))}
    import fastndcg.report as stats

    ref = stats.paired_t_test(per["good.pred"], per["bad.pred"])
    assert pairs[("good.pred", "bad.pred")]["p_t"] == pytest.approx(ref.pvalue, rel=1e-12)
    sys_means = {s["name"]: s for s in m["systems"]}
    assert sys_means["good.pred"]["ci_low"] < sys_means["good.pred"]["mean"] < sys_means["good.pred"]["ci_high"]
    code, out, _ = run_cli(capsys, "test", "--data", data, *paths, "-k", "10", "--resamples", "500",
                           "--baseline", "bad.pred")
    assert code == 0 and "winner" in out and "good.pred" in out and "95% CI" in out
    code, out, _ = run_cli(capsys, "test", "--data", data, *paths[:2], "-k", "5,10", "--format", "csv",
                           "--resamples", "500", "--test", "wilcoxon")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["measure"] for r in rows] == ["ndcg@5", "ndcg@10"] and rows[1]["winner"] == "good.pred"


def test_test_subcommand_trec_runs(shared_data, capsys):
    base = shared_data / "trectools-robust03"
    runs = [base / "runs" / f"input.{n}.gz" for n in ("humR03dc", "NLPR03vb10", "pircRBa1")]
    code, out, err = run_cli(capsys, "test", base / "robust03_qrels.txt", *runs, "-k", "10", "--resamples", "500")
    assert code == 0, err
    assert "humR03dc" in out and "p(adj)" in out and "100 queries" in out


def test_demo_still_works(capsys):
    assert main(["demo", "--queries", "50", "-k", "1,5"]) == 0
    assert "standard" in capsys.readouterr().out


def _finished(capsys, *argv):
    """``fastndcg ARGV`` in this process, as a finished ``python -m fastndcg`` gives it:
    ``returncode`` and the bytes of ``stdout`` and ``stderr`` (one interpreter per command
    cost about 0.3 s each; test_python_dash_m_and_formats runs ``python -m`` itself).
    Python warnings the command leaves unhandled are printed on its stderr, as an
    interpreter of its own would, not kept by pytest."""
    def show(message, category, filename, lineno, file=None, line=None):
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = show
        code, out, err = run_cli_exits(capsys, *argv)
    return SimpleNamespace(returncode=code, stdout=out.encode(), stderr=err.encode())


STREAM_CASES = [
    ("trec_eval-test", "qrels.test", ["results.test"], ["--per-query", "--format", "trec"]),
    ("trec_eval-test", "qrels.test", ["results.test"], ["--per-query", "--format", "trec", "--preset",
                                                        "trec_eval_cut", "-M", "100"]),
    ("trec_eval-test", "qrels.rel_level", ["results.test"], ["--per-query", "--format", "csv", "-k", "5,10,all",
                                                             "--gain", "1=3,2=9,4=4.5"]),
    ("trec_eval-test", "qrels.comment.test", ["results.comment.test"], ["--per-query", "--format", "json",
                                                                        "--preset", "pytrec_eval_cut"]),
    ("trectools-robust03", "robust03_qrels.txt", ["runs/input.MU03rob01.gz", "runs/input.humR03dc.gz"],
     ["--per-query", "--format", "csv", "-k", "1,10,100,all"]),
    ("trectools-robust03", "robust03_qrels.txt", ["runs/input.rutcor03100.gz", "runs/input.NLPR03vb10.gz"],
     ["--preset", "lightgbm", "-k", "5,10"]),
]


@pytest.mark.parametrize("folder, qrels, runs, options", STREAM_CASES)
def test_stream_trec_runs_same_output(shared_data, capsys, folder, qrels, runs, options):
    """--stream reads each run by whole topics: stdout and stderr byte for byte
    those of the in-memory evaluation (per-query values, means, names, notes)."""
    base = shared_data / folder
    argv = ["eval", base / qrels, *[base / r for r in runs], *options]
    memory = _finished(capsys, *argv)
    streamed = _finished(capsys, *argv, "--stream")
    assert memory.returncode == 0, memory.stderr
    assert streamed.returncode == 0, streamed.stderr
    assert streamed.stdout == memory.stdout and streamed.stderr == memory.stderr
    assert len(memory.stdout) > 150


def test_stream_trec_errors(shared_data, capsys, tmp_path):
    base = shared_data / "trec_eval-test"
    target = tmp_path / "out.csv"
    # results.trunc interleaves topics 301 and 303: a stream cannot regroup them
    proc = _finished(capsys, "eval", base / "qrels.test", base / "results.trunc", "-c", "--stream",
                     "--format", "csv", "-o", target)
    assert proc.returncode == EXIT_DATA and proc.stdout == b""
    assert f"{base / 'results.trunc'}:3: topic '301' appears again after other topics".encode() in proc.stderr
    assert not target.exists() and os.listdir(tmp_path) == []
    # a judged topic without results, without -c: trec_eval 10's error, after the whole run
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 0.5 t\n1 Q0 c 2 0.4 t\n3 Q0 a 1 0.1 t\n")
    proc = _finished(capsys, "eval", qrels, run, "--stream", "-o", target)
    assert proc.returncode == EXIT_DATA and b"1 judged topic(s) have no results" in proc.stderr
    assert b"'2'" in proc.stderr and not target.exists()
    for flag, value in (("-c", b"0.5000"), ("--skip-missing", b"1.0000")):
        memory = _finished(capsys, "eval", qrels, run, flag, "-k", "all")
        streamed = _finished(capsys, "eval", qrels, run, flag, "-k", "all", "--stream")
        assert streamed.returncode == 0 and (streamed.stdout, streamed.stderr) == (memory.stdout, memory.stderr)
        assert value in streamed.stdout and b"1 topic(s) without judgments ignored" in streamed.stderr
    run.write_text("1 Q0 a 1 0.5 t\n1 Q0 c 2 nan t\n")
    proc = _finished(capsys, "eval", qrels, run, "-c", "--stream")
    assert proc.returncode == EXIT_DATA and f"{run}:2: the score".encode() in proc.stderr


def test_stream_test_subcommand_trec_runs(shared_data, capsys):
    base = shared_data / "trectools-robust03"
    argv = ["test", base / "robust03_qrels.txt", *[base / "runs" / f"input.{n}.gz" for n in ("humR03dc", "NLPR03vb10")],
            "-k", "10", "--resamples", "300", "--format", "json"]
    memory, streamed = _finished(capsys, *argv), _finished(capsys, *argv, "--stream")
    assert memory.returncode == streamed.returncode == 0, streamed.stderr
    assert streamed.stdout == memory.stdout and b"humR03dc" in streamed.stdout


# ----------------------------------------------------------------------------- readers' errors (issue 24)


def _letor(tmp_path, labels_text: str, preds_text: str):
    data = tmp_path / "d.txt"
    data.write_text(labels_text)
    pred = tmp_path / "p.txt"
    pred.write_text(preds_text)
    return str(data), str(pred)


@pytest.mark.parametrize("command, extra", [("eval", []), ("eval", ["--stream"]), ("test", []),
                                            ("test", ["--stream"]), ("compare", [])])
def test_bad_label_names_the_data_file_and_line(tmp_path, capsys, command, extra):
    # before: "labels must be ...; got labels[1]=-1 (query 0, row 1 of rows 0:2)", no file
    data, pred = _letor(tmp_path, "1 qid:1 1:0.5\n-1 qid:1 1:0.3\n0 qid:2 1:0.1\n", "0.5\n0.3\n0.1\n")
    # two systems for test: two files (one file given twice is a usage error)
    preds = [pred, str(tmp_path / "p2.txt")] if command == "test" else [pred]
    (tmp_path / "p2.txt").write_text("0.5\n0.3\n0.1\n")
    code, out, err = run_cli(capsys, command, "--data", data, *preds, *extra)
    assert code == EXIT_DATA and out == ""
    assert err.startswith(f"fastndcg: error: {data}:2: labels must be ") and "got -1" in err, err
    assert "labels[" not in err and "row 1 of rows" not in err


@pytest.mark.parametrize("extra", [[], ["--stream"], ["--qid-order", "any"]])
def test_label_invalid_under_the_convention_names_its_line(tmp_path, capsys, extra):
    # 2.5 is a number, but not a label of an exponential gain: an error, at its line
    data, pred = _letor(tmp_path, "1 qid:1\n0 qid:2\n2.5 qid:1\n0 qid:2\n" if "any" in extra else
                        "1 qid:1\n0 qid:1\n2.5 qid:2\n0 qid:2\n", "0.5\n0.3\n0.1\n0.2\n")
    code, out, err = run_cli(capsys, "eval", "--data", data, pred, "--preset", "lightgbm", *extra)
    assert code == EXIT_DATA
    assert err.startswith(f"fastndcg: error: {data}:3: labels must be non-negative integers "
                          "(the gain is exponential or a table); got 2.5"), err


@pytest.mark.parametrize("extra", [[], ["--stream"], ["--qid-order", "any"]])
def test_bad_prediction_names_the_prediction_file_and_line(tmp_path, capsys, extra):
    # 1e39 is finite as a double but not as xgboost's float32 scores
    data, pred = _letor(tmp_path, "1 qid:1\n0 qid:2\n2 qid:1\n0 qid:2\n" if "any" in extra else
                        "1 qid:1\n0 qid:1\n2 qid:2\n0 qid:2\n", "0.5\n0.3\n1e39\n0.2\n")
    code, out, err = run_cli(capsys, "eval", "--data", data, pred, "--preset", "xgboost", *extra)
    assert code == EXIT_DATA
    assert err.startswith(f"fastndcg: error: {pred}:3: scores must stay finite when rounded to float32"), err
    assert err.rstrip().endswith("got 1e+39"), err


@pytest.mark.parametrize("which", ["data", "pred"])
def test_binary_input_is_a_nul_byte_as_for_trec_files(tmp_path, capsys, which):
    # before (--data): "the label (first field) is not a finite number"
    data, pred = _letor(tmp_path, "1 qid:1\n0 qid:1\n", "0.5\n0.3\n")
    target = data if which == "data" else pred
    with open(target, "rb") as f:
        text = f.read().decode()
    with open(target, "wb") as f:
        f.write(text.encode("utf-16"))
    code, out, err = run_cli(capsys, "eval", "--data", data, pred)
    assert code == EXIT_DATA
    assert err == f"fastndcg: error: {target}:1: a NUL byte in a field (a binary or UTF-16 file?)\n"


def test_eval_data_side_files_follow_read_svmlight(tmp_path, capsys):
    data, pred = _letor(tmp_path, "1 1:0.5\n0 1:0.3\n2 1:0.1\n", "0.5\n0.3\n0.1\n")
    (tmp_path / "d.txt.query").write_text("2\n1\n")
    (tmp_path / "d.txt.group").write_text("1\n2\n")
    code, out, err = run_cli(capsys, "eval", "--data", data, pred)
    assert code == EXIT_DATA
    assert err == (f"fastndcg: error: {data}.query and {data}.group both give the query sizes of {data} and "
                   "disagree (line 1: 2 vs 1); name the one to use with --group FILE\n")
    code, out, err = run_cli(capsys, "eval", "--data", data, pred, "--group", str(tmp_path / "d.txt.group"),
                             "--format", "json", "-q")
    assert code == 0, err
    assert [q["query"] for q in json.loads(out)["runs"][0]["per_query"]] == [0, 1]
    assert readers.read_svmlight(data, group=str(tmp_path / "d.txt.group")).offsets.tolist() == [0, 1, 3]


@pytest.mark.parametrize("argv", [["eval"], ["eval", "-m", "ndcg"], ["eval", "--stream"], ["compare"], ["test"]])
def test_swapped_qrels_and_run(tmp_path, capsys, argv):
    # before: "RUN:1: expected 4 fields (topic iteration docno relevance); got more"
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run = tmp_path / "r.txt"
    run.write_text("# a run\n1 Q0 d1 1 0.5 t\n1 Q0 d2 2 0.3 t\n")
    runs = [qrels, qrels] if argv[0] == "test" else [qrels]
    code, out, err = run_cli(capsys, *argv, run, *runs)
    assert code == EXIT_DATA and out == ""
    assert err == (f"fastndcg: error: the first file ({run}) looks like a run and the second ({qrels}) like qrels: "
                   f"fastndcg {argv[0]} QRELS RUN [RUN ...]\n")
    run2 = tmp_path / "r2.txt"
    run2.write_text("1 Q0 d1 1 0.3 t\n1 Q0 d2 2 0.5 t\n")
    code, out, err = run_cli(capsys, *argv, qrels, run, *([run2] if argv[0] == "test" else []))
    assert code == 0, err


def test_compare_reason_of_one_preset_names_the_data_line(tmp_path, capsys):
    # 2.5 is a label of linear gains, not of exponential ones: those presets' reason names the line
    # (before: "labels must be ...; got labels[1]=2.5 (query 0, row 1 of rows 0:2)")
    data, pred = _letor(tmp_path, "1 qid:1\n2.5 qid:1\n0 qid:2\n", "0.5\n0.3\n0.1\n")
    code, out, err = run_cli(capsys, "compare", "--data", data, pred, "--presets", "ranx,standard")
    assert code == 0, err
    assert (f"[1] {data}:2: labels must be non-negative integers (the gain is exponential or a table); "
            "got 2.5") in out, out


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag_prints_the_version(capsys, flag):
    # a usage error before (issue 24)
    with pytest.raises(SystemExit) as info:
        main([flag])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"fastndcg {fastndcg.__version__}\n"


# ----------------------------------------------------------------------------- a repeated cutoff (issue 33 item 1)


@pytest.mark.parametrize("ks, distinct", [("5,10,5", "5,10"), ("10,10", "10"), ("10,all,all", "10,all"),
                                          ("all,full,5", "all,5")])
@pytest.mark.parametrize("argv", [
    ["eval"], ["eval", "--format", "json", "-q"], ["eval", "--format", "csv", "-q"],
    ["eval", "--format", "csv", "--layout", "long"], ["eval", "--format", "trec", "-q"],
    ["eval", "--stream", "--format", "csv"], ["eval", "-J", "--format", "csv"],
    ["test", "--resamples", "50"], ["test", "--resamples", "50", "--format", "json"],
    ["test", "--resamples", "50", "--format", "csv"],
    ["compare", "--presets", "trec_eval,standard"], ["compare", "--presets", "trec_eval", "--format", "json"],
    ["compare", "--presets", "trec_eval", "--format", "csv"],
])
def test_a_repeated_cutoff_is_one_column(shared_data, capsys, argv, ks, distinct):
    """It was an IndexError traceback (table), 5 CSV header fields over 4 values, a JSON run
    whose cutoffs outnumber its values: ``-k 5,10,5`` is ``-k 5,10`` in every command and format."""
    base = shared_data / "trec_eval-test"
    files = [base / "qrels.test", base / "results.test"]
    if "--stream" not in argv:      # results.trunc's topics are not contiguous
        files += [base / "results.trunc", "-c"]
    code, out, err = run_cli(capsys, argv[0], *files, "-k", ks, *argv[1:])
    assert code == 0, err
    want = run_cli(capsys, argv[0], *files, "-k", distinct, *argv[1:])
    assert (out, err) == want[1:]


def test_a_repeated_cutoff_of_identify_and_demo(capsys):
    from fastndcg.cli._identify import _one_cutoff

    assert _one_cutoff("10,10") == 10 and _one_cutoff("all,full") is None      # identify's one cutoff
    code, out, err = run_cli(capsys, "demo", "--queries", "5", "-k", "3,1,3")
    assert code == 0 and "NDCG@3    NDCG@1  rule" in out and out.count("NDCG@3") == 1


# ----------------------------------------------------------------------------- usage errors: one line (issue 33 item 4)


@pytest.mark.parametrize("argv, prog, message", [
    (["eval", "{q}", "{r}", "--preset", "trec_evl"], "fastndcg eval", "did you mean 'trec_eval'?"),
    (["eval", "{q}", "{r}", "-k", "0"], "fastndcg eval", "argument -k: cutoffs must be integers >= 1"),
    (["eval", "{q}", "{r}", "--gain", "1=3x"], "fastndcg eval", "argument --gain: '1=3x' is not LEVEL=GAIN"),
    (["eval", "{q}", "{r}", "--bogus"], "fastndcg eval", "unrecognized arguments: --bogus"),
    (["eval", "{q}", "{r}", "--layout", "long"], "fastndcg eval", "--layout long applies to --format csv"),
    (["eval"], "fastndcg eval", "the following arguments are required: FILE"),
    (["identify", "{q}", "{r}", "--value", "39.14"], "fastndcg identify", "a percentage? give 0.3914"),
    (["test", "{q}", "{r}", "{r}", "--alpha", "2"], "fastndcg test", "strictly between 0 and 1"),
    (["compare", "{q}", "{r}", "--format", "xml"], "fastndcg compare", "invalid choice: 'xml'"),
    (["demo", "--queries", "x"], "fastndcg demo", "argument --queries: expected an integer"),
    (["bogus"], "fastndcg", "invalid choice: 'bogus'"),
    ([], "fastndcg", "the following arguments are required: command"),
])
def test_a_usage_error_is_one_line_with_a_help_hint(shared_data, capsys, argv, prog, message):
    """It was argparse's 3-11 line usage block, then the error line."""
    base = shared_data / "trec_eval-test"
    argv = [a.format(q=base / "qrels.test", r=base / "results.test") for a in argv]
    code, out, err = run_cli_exits(capsys, *argv)
    assert code == EXIT_USAGE and out == ""
    assert err.count("\n") == 1 and err.startswith("fastndcg: error: ") and message in err, err
    assert err.endswith(f" (see {prog} --help)\n") and "usage:" not in err, err


@pytest.mark.parametrize("argv, message", [
    (["eval", "{q}", "{r}", "-M", "0"], "-M must be an integer >= 1; got 0"),
    (["eval", "{q}", "{r}", "-m", "ndcg", "-M", "0"], "-M must be an integer >= 1; got 0"),
    (["compare", "{q}", "{r}", "-M", "0"], "-M must be an integer >= 1; got 0"),
    (["test", "{q}", "{r}", "{t}", "-M", "0"], "-M must be an integer >= 1; got 0"),
    (["eval", "{q}", "{r}", "--threads", "0"], "--threads must not be 0"),
    (["eval", "{q}", "{r}", "--stream", "--threads", "0"], "--threads must not be 0"),
    (["test", "{q}", "{r}", "{t}", "--threads", "0"], "--threads must not be 0"),
    (["compare", "{q}", "{r}", "--threads", "0"], "--threads must not be 0"),
    (["identify", "{q}", "{r}", "--value", "0.3", "--threads", "0"], "--threads must not be 0"),
    (["demo", "--queries", "3", "--threads", "0"], "or no --threads for the default"),
    (["demo", "--queries", "0"], "argument --queries: expected an integer >= 1; got '0'"),
    (["demo", "--seed", "-1"], "argument --seed: expected an integer >= 0; got '-1'"),
    (["test", "{q}", "{r}", "{t}", "--seed", "-1"], "argument --seed: expected an integer >= 0; got '-1'"),
    (["test", "{q}", "{r}", "{t}", "--resamples", "0"], "argument --resamples: expected an integer >= 1"),
    (["identify", "{q}", "{r}", "--value", "0.3", "--nearest", "-1"], "argument --nearest: expected an integer >= 0"),
    (["eval", "--data", "{q}", "{r}", "--pred-column", "-1"], "argument --pred-column: expected an integer >= 0"),
    (["identify", "--data", "{q}", "{r}", "--value", "0.3", "--pred-column", "-1"], "argument --pred-column"),
])
def test_a_bad_number_option_is_a_usage_error(shared_data, capsys, argv, message):
    """Issue 33 item 7: -M 0 and --threads 0 exited 4 (invalid data) once the library met them;
    demo --queries 0 printed a table of NaN; --seed -1 was numpy's 'expected non-negative
    integer' (exit 4 from test); --pred-column -1 was read as no column. Now exit 2 before any
    work, naming the option."""
    base = shared_data / "trec_eval-test"
    argv = [a.format(q=base / "qrels.test", r=base / "results.test", t=base / "results.trunc") for a in argv]
    code, out, err = run_cli_exits(capsys, *argv)
    assert code == EXIT_USAGE and out == "" and err.count("\n") == 1 and message in err, err


# ----------------------------------------------------------------------------- a run given twice (issue 33 item 5)


@pytest.mark.parametrize("argv", [["test"], ["test", "-m", "ndcg"], ["test", "--stream"], ["compare"],
                                  ["compare", "--format", "json"]])
def test_a_run_given_twice_is_named(shared_data, capsys, argv):
    """It was "need at least two systems to compare; got 1" (test, exit 4) and one system
    (compare). eval evaluates each file it is given (tests/io/test_join_index.py gives one twice)."""
    base = shared_data / "trec_eval-test"
    run = base / "results.test"
    code, out, err = run_cli(capsys, argv[0], base / "qrels.test", run, base / "results.trunc", run, "-c", *argv[1:])
    assert code == EXIT_USAGE and out == ""
    assert err == f"fastndcg: error: {run} is given twice (RUN 1 and RUN 3): give each run once " \
                  f"(see fastndcg {argv[0]} --help)\n"


def test_a_prediction_file_given_twice_is_named(tmp_path, capsys):
    data, pred = _letor(tmp_path, "1 qid:1\n0 qid:1\n", "0.5\n0.3\n")
    other = os.path.join(os.path.dirname(pred), ".", os.path.basename(pred))     # another spelling
    code, out, err = run_cli(capsys, "test", "--data", data, pred, other)
    assert code == EXIT_USAGE and f"{pred} (as {other}) is given twice (PRED 1 and PRED 2)" in err, err


def test_letor_presets_say_which_labels_get_gain_0(shared_data, tmp_path, capsys):
    """LightGBM's example data has labels 0-4: --preset letor4 gave 3 and 4 gain 0 without a word
    (issue 33 item 6); one warning per command, in the command line's terms."""
    from conftest import run_cli

    data = shared_data / "lightgbm-rank"
    n = sum(1 for _ in open(data / "rank.test"))
    pred = tmp_path / "pred.txt"
    pred.write_text("".join(f"{(i % 7) / 10}\n" for i in range(n)))
    for preset in ("letor3", "letor4"):
        code, out, err = run_cli(capsys, "eval", "--data", data / "rank.test", pred, "--group",
                                 data / "rank.test.query", "--preset", preset, "-k", "5,10")
        assert code == 0 and "ndcg@10" in out
        lines = [ln for ln in err.splitlines() if ln.startswith("fastndcg: warning:")]
        assert lines == ["fastndcg: warning: 54 of 768 documents have a label outside the gain table of --preset "
                         f"{preset} (3, 4) and get gain 0 (its unknown_label='zero'); to count them, use a preset "
                         "whose gain table covers them or, with TREC files, give every label a gain with "
                         "--gain L=G,..."], err
    code, out, err = run_cli(capsys, "eval", "--data", data / "rank.test", pred, "--group",
                             data / "rank.test.query", "--preset", "mslr", "-k", "10")
    assert code == 0 and "warning" not in err


def test_json_output_of_topic_ids_that_are_not_utf8_is_valid_json(tmp_path, capsys):
    # was: "query": "1\udcff" (a lone surrogate, which strict JSON parsers reject)
    (tmp_path / "q.txt").write_bytes(b"1\xff 0 a 1\n1\xff 0 b 0\n2 0 a 1\n")
    (tmp_path / "r.txt").write_bytes(b"1\xff Q0 a 1 0.5 r\n1\xff Q0 b 2 0.9 r\n2 Q0 a 1 1 r\n")
    code, out, err = run_cli(capsys, "eval", tmp_path / "q.txt", tmp_path / "r.txt", "-k", "10", "-q",
                             "--format", "json")
    assert code == 0 and "\\ud" not in out
    assert [q["query"] for q in json.loads(out)["runs"][0]["per_query"]] == ["1\\xff", "2"]
    assert err.count("fastndcg: warning:") == 1 and 'not UTF-8 (e.g. "1\\xff")' in err
    code, out, err = run_cli(capsys, "compare", tmp_path / "q.txt", tmp_path / "r.txt", "--format", "json",
                             "--per-query", "--preset", "trec_eval")
    assert code == 0 and "\\ud" not in out and "1\\\\xff" in out and err.count("fastndcg: warning:") == 1



def test_ids_that_are_not_utf8_are_written_as_their_bytes(tmp_path, capsysbinary, monkeypatch):
    # was: exit 4 "'utf-8' codec can't encode character '\udcff'" when stdout's errors handler is strict
    # (most UTF-8 locales; C.UTF-8 has surrogateescape), and with -o FILE in any locale
    (tmp_path / "q.txt").write_bytes(b"1\xff 0 a 1\n1\xff 0 b 0\n2 0 a 1\n")
    (tmp_path / "r.txt").write_bytes(b"1\xff Q0 a 1 0.5 r\n1\xff Q0 b 2 0.9 r\n2 Q0 a 1 1 r\n")
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict"))
    for fmt in ("csv", "table", "trec"):
        argv = ["eval", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-k", "10", "-q", "--format", fmt]
        assert main(argv) == 0
        out = sys.stdout.buffer.getvalue()
        assert b"1\xff" in out and b"\xef\xbf\xbd" not in out
        assert main(argv + ["-o", str(tmp_path / f"out.{fmt}")]) == 0
        assert (tmp_path / f"out.{fmt}").read_bytes() == out
        sys.stdout.buffer.seek(0)
        sys.stdout.buffer.truncate()
    assert capsysbinary.readouterr().err == b""
