"""Inputs from pipes, FIFOs and standard input (``<(zcat run.gz)``, ``mkfifo``, ``-``): the
output of the regular files, byte for byte; errors name the input and the line."""
from __future__ import annotations

import gzip
import io
import os
import re
import sys
import threading

import pytest

from fastndcg.cli import main
from fastndcg.cli._options import EXIT_DATA, EXIT_USAGE, Progress

QRELS = "".join(f"{t} 0 d{d} {(t * d) % 3}\n" for t in (1, 2, 3) for d in range(8))
RUN_A = "".join(f"{t} Q0 d{d} {d} {(d * 7 + t) % 5 / 4} a\n" for t in (3, 1, 2) for d in range(10))
# topic 1 comes back after topic 2 (a file is read again as one piece; a pipe is read once)
RUN_B = "".join(f"{t} Q0 d{d} {d} {(d * 3 + t) % 4 / 3} b\n" for d in range(10) for t in (1, 2, 3))


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _fifo(path, data: bytes) -> threading.Thread:
    """A FIFO at ``path`` whose writer (a thread) writes ``data`` once a reader opens it."""
    os.mkfifo(path)

    def write() -> None:
        try:
            with open(path, "wb") as f:
                f.write(data)
        except BrokenPipeError:         # the reader stopped early (an error)
            pass

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


@pytest.fixture
def files(tmp_path):
    """Regular files, and FIFOs of the same content and base name (the run column names the file)."""
    out = {}
    for name, text in (("qrels.txt", QRELS), ("a.txt", RUN_A), ("b.txt.gz", RUN_B)):
        data = gzip.compress(text.encode(), mtime=0) if name.endswith(".gz") else text.encode()
        (tmp_path / name).write_bytes(data)
        out[name] = str(tmp_path / name)
    threads = []

    def fifo(name):
        folder = tmp_path / f"fifo{len(threads)}"
        folder.mkdir()
        threads.append((folder / name, _fifo(folder / name, (tmp_path / name).read_bytes())))
        return str(folder / name)

    yield out, fifo
    for path, t in threads:             # a FIFO nobody opened: open it, so that its writer ends
        if t.is_alive():
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        t.join(5)


def same_files(text: str) -> str:
    """Output naming FIFOs, as it names the files of the same base name."""
    return re.sub(r"/fifo[0-9]+/", "/", text)


@pytest.mark.parametrize("options", [["-k", "10"], ["-k", "5,all", "--stream"], ["-m", "ndcg_cut.5", "-q"],
                                     ["-k", "3", "--format", "json", "-q"], ["-k", "3", "--format", "trec", "-c"]])
def test_eval_reads_fifos_as_files(capsys, files, options):
    f, fifo = files
    runs = ["a.txt"] if "--stream" in options else ["a.txt", "b.txt.gz"]     # --stream: topics contiguous
    want = run_cli(capsys, "eval", f["qrels.txt"], *[f[r] for r in runs], *options)
    assert want[0] == 0, want[2]
    got = run_cli(capsys, "eval", fifo("qrels.txt"), *[fifo(r) for r in runs], *options)
    assert got[0] == 0, got[2]
    assert same_files(got[1]) == want[1]


@pytest.mark.parametrize("which", [1, 2])
def test_eval_reads_standard_input(capsys, monkeypatch, files, which):
    f, _ = files
    argv = ["eval", f["qrels.txt"], f["a.txt"], "-k", "5", "--format", "trec", "-q"]
    want = run_cli(capsys, *argv)
    data = open(argv[which], "rb").read()
    argv[which] = "-"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    got = run_cli(capsys, *argv)
    assert got[0] == 0 and got[1] == want[1]


@pytest.mark.parametrize("argv", [["test", "Q", "a.txt", "B"], ["compare", "Q", "B", "--format", "json"]])
def test_test_and_compare_read_a_pipe(capsys, files, argv):
    f, fifo = files
    argv = [f["qrels.txt"] if a == "Q" else f["a.txt"] if a == "a.txt" else a for a in argv]
    want = run_cli(capsys, *[f["b.txt.gz"] if a == "B" else a for a in argv])
    assert want[0] == 0, want[2]
    got = run_cli(capsys, *[fifo("b.txt.gz") if a == "B" else a for a in argv])
    assert got[0] == 0, got[2]
    assert same_files(got[1]) == want[1]


def test_standard_input_is_read_once(capsys, files):
    f, _ = files
    code, out, err = run_cli(capsys, "eval", "-", "-", "-k", "5")
    assert code == EXIT_USAGE and out == ""
    assert err == ("fastndcg: error: '-' (standard input) is given 2 times (FILE 1, FILE 2); it can be read only "
                   "once: give the other inputs as files (or as <(command)) (see fastndcg eval --help)\n")
    code, _, err = run_cli(capsys, "eval", "--data", "-", "-")
    assert code == EXIT_USAGE and "(FILE 1, --data)" in err


def test_errors_on_a_pipe_name_it_and_the_line(capsys, monkeypatch, files):
    f, fifo = files
    bad = RUN_A + "2 Q0 d99 1 high a\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bad.encode())))
    code, _, err = run_cli(capsys, "eval", f["qrels.txt"], "-", "-k", "5")
    assert code == EXIT_DATA
    assert err == "fastndcg: error: <stdin>:31: the score (5th field) is not a finite number\n"
    r, w = os.pipe()
    t = threading.Thread(target=lambda: open(w, "wb").write(bad.encode()), daemon=True)
    t.start()
    try:
        code, _, err = run_cli(capsys, "eval", f["qrels.txt"], f"/dev/fd/{r}", "-k", "5", "--stream")
    finally:
        os.close(r)
        t.join(5)
    assert code == EXIT_DATA and err == f"fastndcg: error: /dev/fd/{r}:31: the score (5th field) is not a finite number\n"


def test_byte_order_mark_is_skipped_with_a_warning(capsys, tmp_path, files):
    # was: "1 judged topic(s) have no results in ...: '\ufeff1'"
    f, _ = files
    want = run_cli(capsys, "eval", f["qrels.txt"], f["a.txt"], "-k", "5")
    (tmp_path / "bom").mkdir()
    (tmp_path / "bom" / "qrels.txt").write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    (tmp_path / "bom" / "a.txt").write_bytes(gzip.compress(b"\xef\xbb\xbf" + RUN_A.encode()))
    for extra in ([], ["--stream"]):
        code, out, err = run_cli(capsys, "eval", tmp_path / "bom" / "qrels.txt", tmp_path / "bom" / "a.txt",
                                 "-k", "5", *extra)
        assert code == 0 and out == want[1]
        assert err.splitlines() == [
            f"fastndcg: warning: {tmp_path}/bom/{name}: skipped the UTF-8 byte-order mark at the start of the file"
            for name in ("qrels.txt", "a.txt")]


def test_progress_of_a_pipe_shows_the_bytes_read():
    stream = io.StringIO()
    bar = Progress(True, delay=0.0, stream=stream).start("/dev/fd/63")
    bar(5_000_000, 0)           # a pipe's size is unknown (was: a full bar at 100.0%)
    assert stream.getvalue().endswith("     5.0 MB read") and "%" not in stream.getvalue()
