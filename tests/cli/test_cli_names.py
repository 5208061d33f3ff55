"""Names a user reads on the command line (issue 25 item 5): several runs in
``--format trec`` told apart by their ``runid`` line, notes after the data,
errors naming the command line's options (not Python's arguments)."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli


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


@pytest.mark.parametrize("measures", [["-m", "ndcg"], []])
def test_runs_sharing_a_tag_get_a_note(te, capsys, measures):
    code, out, err = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", te / "results.trunc", "-c",
                             *measures, "--format", "trec")
    assert code == 0 and out.count("runid ") == 2
    assert "fastndcg: note: runs results.test, results.trunc share the run tag 'STANDARD'" in err


# ----------------------------------------------------------------------------- notes after the data


def test_measures_table_opens_with_its_data(te, capsys):
    code, out, _ = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-m", "ndcg_cut.10", "-J")
    table, _, signatures = out.partition("\nsignatures:\n")      # what was measured closes the output
    lines = table.splitlines()
    assert code == 0 and lines[0].split() == ["run", "query", "ndcg_cut_10"] and "|judged:only|" in signatures
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


# ----------------------------------------------------------------------------- errors name options


@pytest.fixture
def bad_inputs(te, tmp_path):
    """Small files that make the library raise an error naming a setting."""
    def write(name, text):
        (tmp_path / name).write_text(text)
        return tmp_path / name
    f = {"data": write("data.svm", "1 qid:1 1:0.1\n0 qid:1 1:0.2\n2 qid:2 1:0.3\n0 qid:2 1:0.4\n"),
         "pred": write("pred.txt", "0.1\n0.2\n0.3\n0.4\n"),
         "pred3": write("pred3.txt", "1 a 0.1\n1 b 0.2\n2 c 0.3\n2 d 0.4\n"),
         "again": write("again.svm", "1 qid:1 1:0.1\n2 qid:2 1:0.3\n0 qid:1 1:0.2\n0 qid:2 1:0.4\n"),
         "again_group": write("again.group", "1\n1\n1\n1\n"),
         "unsorted": write("unsorted.svm", "2 qid:2 1:0.3\n0 qid:2 1:0.4\n1 qid:1 1:0.1\n0 qid:1 1:0.2\n"),
         "noqid": write("noqid.svm", "1 1:0.1\n0 1:0.2\n2 1:0.3\n0 1:0.4\n"),
         "group": write("data.groups", "2\n2\n"),
         "qrels": te / "qrels.test", "run": te / "results.test", "trunc": te / "results.trunc",
         # results.test without topic 302, each topic's lines contiguous (for --stream)
         "no302": write("no302.txt", "".join(line + "\n" for line in (te / "results.test").read_text().splitlines()
                                              if not line.startswith("302")))}
    return f


#: (command line with {file} fields, what the error must name, the Python names it must not)
OPTION_CASES = [
    ("eval --data {data} {pred3}", "--pred-column N", ("column=",)),
    ("eval --data {data} {pred3} --stream", "--pred-column N", ("column=",)),
    ("compare --data {data} {pred3}", "--pred-column N", ("column=",)),
    ("eval {qrels} {trunc}", "Use --missing zero (-c) (as trec_eval -c", ("missing=",)),
    ("eval {qrels} {trunc}", "or --missing skip (trec_eval 9.x", ("missing=",)),
    ("eval {qrels} {trunc} -m ndcg_cut.10", "Use --missing zero (-c) (as trec_eval -c", ("missing=",)),
    ("eval {qrels} {no302} --stream", "Use --missing zero (-c) (as trec_eval -c", ("missing=",)),
    ("test {qrels} {run} {trunc}", "Use --missing zero (-c) (as trec_eval -c", ("missing=",)),
    ("compare {qrels} {trunc}", "Use --missing zero (-c) (as trec_eval -c", ("missing=",)),
    ("eval --data {again} {pred}", "pass --qid-order any to group them", ("qid_order",)),
    ("eval --data {unsorted} {pred} --qid-order sorted", "qids must be sorted (--qid-order sorted)", ("qid_order",)),
    ("eval --data {again} {pred} --group {again_group} --qid-order any", "cannot be combined with --qid-order any",
     ("qid_order",)),
    ("eval --data {noqid} {pred} --stream", "give the query sizes with --group FILE", ("group=",)),
    ("eval --data {data} {pred} --group {group} --stream", "this row has a qid: field and --group was given too",
     ("iter_svmlight", "group=")),
    ("eval {qrels} {run} --threads 0", "--threads must not be 0", ("n_threads", "None")),
    ("eval {qrels} {run} -m ndcg --threads 0", "--threads must not be 0", ("n_threads", "None")),
    ("test {qrels} {run} {run} --threads 0", "--threads must not be 0", ("n_threads", "None")),
    ("compare {qrels} {run} --threads 0", "--threads must not be 0", ("n_threads", "None")),
    ("demo --queries 5 --threads 0", "or no --threads for the default", ("n_threads", "None")),
    ("eval {qrels} {run} -M 0", "-M must be an integer >= 1; got 0", ("max_docs",)),
    ("eval {qrels} {run} -m ndcg -M 0", "-M must be an integer >= 1; got 0", ("max_docs",)),
    ("eval {qrels} {run} --stream -M 0", "-M must be an integer >= 1; got 0", ("max_docs",)),
    ("compare {qrels} {run} -M 0", "-M must be an integer >= 1; got 0", ("max_docs",)),
    ("eval {qrels} {run} --preset standard --gain 1=-3", "error: --gain: level 1 has gain -3", ("gains:",)),
    ("eval {qrels} {run} --preset standard --gain=-1=3", "error: --gain: level -1 ('-1=3')", ("gains:",)),
]


@pytest.mark.parametrize("command, option, python_names", OPTION_CASES)
def test_errors_name_command_line_options(bad_inputs, capsys, command, option, python_names):
    argv = [word.format(**bad_inputs) for word in command.split()]
    code, out, err = run_cli(capsys, *argv)
    assert code in (2, 4), err
    assert out == "" or argv[0] == "demo", out      # demo prints its title line before it evaluates
    assert err.startswith("fastndcg: error: ") and option in err, err
    for name in python_names:
        assert name not in err, err


def test_python_messages_keep_python_names(bad_inputs):
    """The same errors from Python name Python's arguments."""
    import fastndcg
    import fastndcg.io as readers

    with pytest.raises(ValueError, match=r"\(pass column=N to take field N, 0-based\)"):
        readers.read_predictions(bad_inputs["pred3"])
    with pytest.raises(ValueError, match=r"\(pass prediction_column=N to take field N"):
        list(readers.iter_svmlight(bad_inputs["data"], bad_inputs["pred3"]))
    with pytest.raises(ValueError, match=r"Use missing='zero' \(as trec_eval -c: they count as 0\) or missing='skip'"):
        fastndcg.evaluate("ndcg", bad_inputs["qrels"], bad_inputs["trunc"], missing="error")
    with pytest.raises(ValueError, match=r"pass qid_order='any' to group them"):
        readers.read_svmlight(bad_inputs["again"])
    with pytest.raises(ValueError, match=r"n_threads must not be 0; .* or n_threads=None for the default"):
        fastndcg.ndcg([1.0, 2.0], [0, 1], [0, 2], n_threads=0)
    with pytest.raises(ValueError, match=r"max_docs must be an integer >= 1; got 0"):
        fastndcg.evaluate("ndcg", bad_inputs["qrels"], bad_inputs["run"], max_docs=0)


def test_a_wrapped_error_names_options_too(tmp_path):
    """A wrapper that prefixes the message (``type(exc)(f"...: {exc}")``) keeps the original as
    its context: the command line still spells its settings as options."""
    from fastndcg._core.arguments import NamedArgumentError, literal
    from fastndcg.cli._messages import error_message

    try:
        try:
            raise NamedArgumentError(literal("{odd}.txt: ") + "use {0}", [("missing", "'zero'")])
        except ValueError as exc:
            raise ValueError(f"system 'a': {exc}") from None
    except ValueError as wrapped:
        assert str(wrapped) == "system 'a': {odd}.txt: use missing='zero'"
        assert error_message(wrapped) == "system 'a': {odd}.txt: use --missing zero (-c)"


@pytest.mark.parametrize("command", ["eval", "test", "compare"])
def test_negative_digits_is_a_usage_error_naming_the_option(te, capsys, command):
    """It was 'fastndcg: error: Format specifier missing precision' (exit 4)."""
    code, out, err = run_cli(capsys, command, te / "qrels.test", te / "results.test", te / "results.test",
                             "--digits", "-1")
    assert code == 2 and out == "" and "argument --digits: expected an integer >= 0; got '-1'" in err


@pytest.mark.parametrize("measure", ["map", "P.10", "P@10", "RR"])
def test_a_measure_outside_the_ndcg_family_is_told_so(te, capsys, measure):
    """It was 'unknown measure name' for map, and 'fastndcg computes ir_measures' nDCG only' for P@10."""
    code, out, err = run_cli(capsys, "eval", te / "qrels.test", te / "results.test", "-m", measure)
    assert code == 2 and out == ""
    assert f"fastndcg: error: measure {measure!r}: not an NDCG measure. fastndcg computes the NDCG family" in err


# ----------------------------------------------------------------------------- column names (issue 33 item 7)


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "trec"])
def test_one_naming_rule_for_k_and_m(te, capsys, fmt):
    """A column is named as it was asked (fastndcg.cli._systems.column_names): -k 10 is ndcg@10
    and -m ndcg_cut.10 is ndcg_cut_10 (both documented and relied on), except in --format trec,
    where both are trec_eval's ndcg_cut_10, byte for byte; the signature says they are one
    measurement. -J and -l keep the -k names and order (they were -m's: ndcg_cut_10, ndcg first)."""
    files = [te / "qrels.test", te / "results.test"]
    by_k = run_cli(capsys, "eval", *files, "-k", "10", "--format", fmt, "--signature" if fmt == "trec" else "-q")
    by_m = run_cli(capsys, "eval", *files, "-m", "ndcg_cut.10", "--format", fmt,
                   "--signature" if fmt == "trec" else "-q")
    assert by_k[0] == by_m[0] == 0
    if fmt == "trec":
        assert by_m[1] in by_k[1] and by_m[1].startswith("ndcg_cut_10           \tall\t0.3016\n")
        return
    k_name, m_name = ("ndcg@10", "ndcg_cut_10")
    assert k_name in by_k[1] and m_name not in by_k[1] and m_name in by_m[1] and k_name not in by_m[1]
    signature = "nDCG@10|gain:lin|disc:log2|ties:key_desc|empty:zero|short:clamp|ideal:cut,qrels|agg:mean|"
    assert signature in by_k[1] and signature in by_m[1]
    judged = run_cli(capsys, "eval", *files, "-k", "10,all", "-J", "--format", fmt)[1]
    plain = run_cli(capsys, "eval", *files, "-k", "10,all", "--format", fmt)[1]
    if fmt == "json":
        assert json.loads(judged)["measures"] == json.loads(plain)["measures"] == ["ndcg@10", "ndcg"]
    else:
        assert judged.splitlines()[0] == plain.splitlines()[0] and "ndcg@10" in plain.splitlines()[0]

