"""fastndcg eval with scores beyond float32: pytrec_eval's value and a warning naming run lines."""
from __future__ import annotations

import csv
import io

import pytest

from fastndcg.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n"
RUN = "1 Q0 x 1 0.5 r\n1 Q0 a 2 2e39 r\n1 Q0 b 3 1e39 r\n"


def _files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS + "1 0 x 0\n")
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def test_pytrec_eval_preset_ranks_overflow_as_inf_and_warns(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    assert main(["eval", qrels, run, "--preset", "pytrec_eval", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    # a and b tie at +inf, b first (docno descending), a second, x third: 1/log2(3), as pytrec_eval
    row = next(csv.DictReader(io.StringIO(out)))
    assert row["query"] == "all" and row["ndcg"] == "0.6309297535714575" and "|prec:f32,inf|" in row["signatures"]
    assert err.count("fastndcg: warning:") == 1
    # the file's lines, as --data names them (a run joined while read keeps the lines of such scores)
    # (was: "run.txt: 2 scores overflow float32 ...: scores[1]=2e+39 (query 0, row 1 of rows 0:3), ...")
    assert err == (f"fastndcg: warning: {run}:2, {run}:3: 2 score(s) overflow float32 and rank as +-inf "
                   "(float32_overflow='inf', the tool's C cast; equal infinities tie)\n")


def test_trec_measures_path_warns_too(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    assert main(["eval", qrels, run, "--preset", "pytrec_eval", "-m", "ndcg"]) == 0
    out, err = capsys.readouterr()
    assert "0.6309" in out
    assert err.startswith(f"fastndcg: warning: {run}:2, {run}:3: 2 score(s) overflow float32") and err.count("\n") == 1


@pytest.mark.parametrize("options", [["-k", "10", "--stream"], ["-k", "10", "-M", "2"], ["-m", "ndcg", "-J"],
                                     ["-m", "ndcg_cut.10", "-c"], ["-k", "5", "--preset", "torchmetrics"]])
def test_every_path_names_the_run_lines(tmp_path, capsys, options):
    qrels, run = _files(tmp_path)
    argv = ["eval", qrels, run, "--preset", "pytrec_eval", *options]
    assert main(argv) == 0
    err = capsys.readouterr().err
    # no stray numpy "overflow encountered in cast" either (-M ranks in float32)
    assert err.startswith(f"fastndcg: warning: {run}:2, {run}:3: 2 score(s) overflow float32") and err.count("\n") == 1


@pytest.mark.parametrize("command", [["test"], ["compare", "--preset", "pytrec_eval"]])
def test_test_and_compare_name_the_run_lines(tmp_path, capsys, command):
    qrels, run = _files(tmp_path)
    (tmp_path / "run2.txt").write_text(RUN.replace("0.5 r", "0.7 r"))
    argv = [command[0], qrels, run, str(tmp_path / "run2.txt"), *command[1:]]
    if command[0] == "test":
        argv += ["--preset", "pytrec_eval"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"fastndcg: warning: {run}:2, {run}:3: 2 score(s) overflow float32" in err


def test_float32_error_names_the_run_line(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    for extra in ([], ["--stream"]):
        assert main(["eval", qrels, run, "--preset", "xgboost", *extra]) == 4
        err = capsys.readouterr().err
        assert err.startswith(f"fastndcg: error: {run}:2: scores must stay finite when rounded to float32") \
            and err.rstrip().endswith("got 2e+39"), err


def test_other_presets_keep_the_error_or_read_doubles(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    assert main(["eval", qrels, run, "--preset", "xgboost"]) != 0
    assert "scores must stay finite when rounded to float32" in capsys.readouterr().err
    # trec_eval 10 reads doubles: a (2e39) first, NDCG 1, no warning
    assert main(["eval", qrels, run, "--preset", "trec_eval", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert next(csv.DictReader(io.StringIO(out)))["ndcg"] == "1.0"
    assert "warning" not in err
