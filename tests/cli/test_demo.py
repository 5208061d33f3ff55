from fastndcg.measures._aligned import aligned_mean_ndcg

from fastndcg.cli import main
from conftest import run_cli


def test_demo_runs_and_prints_conventions(capsys):
    assert main(["demo", "--queries", "300", "-k", "1,5"]) == 0
    out = capsys.readouterr().out
    for name in ("standard", "linear-avg", "letor4", "NDCG@1", "NDCG@5", "M docs/s"):
        assert name in out


def test_demo_rejects_bad_cutoffs(capsys):
    # in this process (python -m fastndcg itself: tests/cli/test_cli.py::test_python_dash_m_and_formats)
    code, _, err = run_cli(capsys, "demo", "-k", "0,3")
    assert code == 2
    assert "cutoffs must be integers >= 1" in err


def test_example_files_are_deterministic_and_evaluable(tmp_path):
    import fastndcg.io as readers
    from fastndcg.io._example_files import write_examples

    a = write_examples(tmp_path / "a")
    b = write_examples(tmp_path / "b")
    for name in a:
        assert a[name].read_bytes() == b[name].read_bytes()
    qrels = readers.read_qrels(a["qrels.txt"])
    aligned = readers.align_run(a["run_b.txt"], qrels, missing="zero")
    assert aligned.missing_qids == ["316"]          # run_b misses one judged topic (-c matters)
    assert 0.0 < aligned_mean_ndcg(aligned, 10) < 1.0


def test_demo_says_its_data_is_generated(capsys):
    """The demo's data is generated from a seed, not embedded: its help and its
    output say so (before: "embedded synthetic data", "MSLR-like synthetic data")."""
    from fastndcg.cli._app import build_parser

    assert "NDCG of generated (seeded) MSLR-like data" in build_parser().format_help()
    assert main(["demo", "--queries", "20", "--seed", "3", "-k", "1"]) == 0
    assert "demo: generated MSLR-like data, seed 3" in capsys.readouterr().out
