"""Names a user reads on the command line (issue 25 item 5): several runs in
``--format trec`` told apart by their ``runid`` line, notes after the data,
errors naming the command line's options (not Python's arguments)."""
from __future__ import annotations

import pytest

from fastndcg.cli.main import main


def run_cli(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:          # argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def te(shared_data):
    return shared_data / "trec_eval-test"


@pytest.fixture
def other_run(te, tmp_path):
    """results.test under another run tag (trec_eval's runid: the last field)."""
    path = tmp_path / "other.txt"
    path.write_text("".join(line.rsplit(None, 1)[0] + " OTHER\n"
                            for line in (te / "results.test").read_text().splitlines()))
    return path


# ----------------------------------------------------------------------------- --format trec, several runs


@pytest.mark.parametrize("options", [["-m", "ndcg_cut.10"], ["-m", "ndcg_cut.10", "-q"],
                                     ["-m", "num_q", "-m", "ndcg", "-m", "nDCG@10", "-q"]])
def test_several_runs_in_trec_format_carry_their_runid(te, other_run, capsys, options):
    """Each run's block is what `trec_eval -m runid <options>` prints for that run
    (its runid line first of its `all` lines), also when -m runid was not asked."""
    code, out, err = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", other_run, "--format", "trec",
                             *options)
    assert code == 0, err
    blocks = [run_cli(capsys, "eval", te / "qrels.test", run, "--format", "trec", "-m", "runid", *options)[1]
              for run in (te / "results.test", other_run)]
    assert out == blocks[0] + blocks[1]
    assert [line.split("\t")[2] for line in out.splitlines() if line.startswith("runid ")] == ["STANDARD", "OTHER"]
    if "-q" not in options:      # without per-query lines each block opens with its runid line
        assert out.splitlines()[0] == "runid                 \tall\tSTANDARD"


def test_one_run_in_trec_format_stays_trec_eval_byte_for_byte(te, capsys):
    code, out, _ = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-m", "ndcg_cut.10",
                           "--format", "trec")
    assert out == "ndcg_cut_10           \tall\t0.3016\n"      # trec_eval -m ndcg_cut.10: no runid line
    code, out, _ = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-m", "runid", "-m",
                           "ndcg_cut.10", "--format", "trec")
    assert out.count("runid") == 1


def test_several_runs_in_trec_format_without_m(te, other_run, capsys):
    """The preset path prints runid (and num_q) for every run, as trec_eval without -m."""
    out = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", other_run, "--format", "trec",
                  "-k", "10,all")[1]
    lines = out.splitlines()
    assert [ln.split("\t")[0].strip() for ln in lines] == ["runid", "num_q", "ndcg_cut_10", "ndcg"] * 2
    assert lines[0].endswith("\tSTANDARD") and lines[4].endswith("\tOTHER")


def test_runs_sharing_a_tag_get_a_note(te, capsys):
    code, out, err = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", te / "results.trunc", "-c",
                             "-m", "ndcg", "--format", "trec")
    assert code == 0 and out.count("runid ") == 2
    assert "fastndcg: note: runs results.test, results.trunc share the run tag 'STANDARD'" in err


# ----------------------------------------------------------------------------- notes after the data


def test_measures_table_opens_with_its_data(te, capsys):
    code, out, _ = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-m", "ndcg_cut.10", "-J")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["run", "query", "ndcg_cut_10"]
    assert lines[-2] == "" and lines[-1].startswith("measures: trec_eval syntax by trec_eval 10's rules")
    assert lines[-1].endswith("; -J: judged documents only")


def test_test_table_opens_with_its_data(te, other_run, capsys):
    code, out, _ = run_cli(capsys, "test", te / "qrels.test", te / "results.test", other_run, "-k", "5,10",
                           "--resamples", "50")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "ndcg@5" and lines[1].split()[:2] == ["system", "mean"]
    assert lines[-2] == "" and lines[-1] == ("preset trec_eval; 3 queries; winner by the t test at alpha 0.05 "
                                             "(holm correction)")
    assert sum(line.startswith("preset ") for line in lines) == 1
