"""Opening inputs (fastndcg.io._files): pipes, FIFOs and standard input read once from their
start, without seeking; a UTF-8 byte-order mark at the start of a file."""
from __future__ import annotations

import gzip
import io
import os
import sys
import threading
import warnings
from contextlib import contextmanager
from typing import Iterator

import numpy as np
import pytest

import fastndcg
import fastndcg.io as readers
from fastndcg.io import _files, _joining, _trec
from fastndcg.io._files import BOM, ByteOrderMarkWarning

QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n2 0 d 1\n"
#: topic 1 comes back after topic 2: a join by pieces would have to read the file again
RUN = b"1 Q0 a 1 0.5 r\n2 Q0 a 1 0.2 r\n1 Q0 c 2 0.9 r\n2 Q0 d 2 0.1 r\n1 Q0 b 3 0.9 r\n"


def _writer(data: bytes, open_write) -> threading.Thread:
    """Write ``data`` on a thread (a pipe holds 64 KiB: the reader must run meanwhile)."""
    def write() -> None:
        with open_write() as f:
            try:
                f.write(data)
            except BrokenPipeError:     # the reader stopped early (an error): nothing to do
                pass

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


@contextmanager
def os_pipe(data: bytes) -> Iterator[str]:
    """A real pipe's read end as ``/dev/fd/N`` (as ``<(command)`` gives it)."""
    r, w = os.pipe()
    t = _writer(data, lambda: open(w, "wb"))
    try:
        yield f"/dev/fd/{r}"
    finally:
        os.close(r)
        t.join(5)


@contextmanager
def fifo(tmp_path, data: bytes) -> Iterator[str]:
    path = tmp_path / f"fifo{len(list(tmp_path.iterdir()))}"
    os.mkfifo(path)
    t = _writer(data, lambda: open(path, "wb"))
    try:
        yield str(path)
    finally:
        if t.is_alive():            # the reader never opened it: let the writer's open return
            # without blocking: the writer may have finished writing and be ending, and a
            # blocking open of a FIFO nobody writes to waits for ever
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        t.join(5)


@contextmanager
def stdin_of(monkeypatch, data: bytes) -> Iterator[str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    yield "-"


def _same_table(a, b) -> None:
    assert a.topics.tolist() == b.topics.tolist()
    assert a.docnos().tolist() == b.docnos().tolist()
    for name in ("offsets", "lines") + (("scores", "file_row") if hasattr(a, "scores") else ("relevance",)):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def _same_aligned(a, b) -> None:
    for name in ("scores", "labels", "offsets", "tie_key", "ideal_labels", "ideal_offsets", "qids", "status"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("how", ["pipe", "fifo", "stdin"])
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_readers_take_a_pipe_a_fifo_and_stdin(tmp_path, monkeypatch, how, gz):
    # was: "Illegal seek" (the reader sniffed the magic bytes, then seeked back)
    def source(data):
        data = gzip.compress(data, mtime=0) if gz else data
        if how == "pipe":
            return os_pipe(data)
        if how == "fifo":
            return fifo(tmp_path, data)
        return stdin_of(monkeypatch, data)

    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "r.txt").write_bytes(RUN)
    qrels, run = readers.read_qrels(tmp_path / "q.txt"), readers.read_run(tmp_path / "r.txt")
    with source(QRELS) as path:
        _same_table(readers.read_qrels(path), qrels)
    with source(RUN) as path:
        _same_table(readers.read_run(path), run)
    # joined while read: topic 1 comes back, so a file is read again as one piece; a pipe is read once
    want = readers.align_run(str(tmp_path / "r.txt"), qrels)
    with source(RUN) as path:
        _same_aligned(readers.align_run(path, qrels), want)
    with source(RUN) as path:
        assert _joining.join_run_file(path, qrels).n_results == 5
    with source(RUN) as path:
        _same_aligned(fastndcg.io.align_run(path, qrels, n_threads=2), want)


def test_a_large_pipe_is_read_whole_block_by_block(tmp_path):
    # many blocks, each filled from several 64 KiB pipe reads; equal to the file, line for line
    lines = b"".join(b"%d Q0 d%d %d %r tag\n" % (i // 1000, i, i % 1000, (i * 7919 % 1000) / 7) for i in range(20000))
    (tmp_path / "r.txt").write_bytes(lines)
    with os_pipe(lines) as path:
        got = b"".join(bytes(b) for b in _files.iter_line_blocks(path, 1 << 15))
    assert got == lines
    with os_pipe(lines) as path:
        _same_table(readers.read_run(path), readers.read_run(tmp_path / "r.txt"))
    with os_pipe(lines) as path:
        pieces = list(_trec.iter_run(path, chunk_rows=3000, block_size=1 << 14))
    assert sum(len(p) for p in pieces) == 20000 and len(pieces) > 5


def test_errors_on_a_pipe_name_it_and_the_line(tmp_path, monkeypatch):
    bad = RUN + b"3 Q0 z 1 x r\n"
    with os_pipe(bad) as path:
        with pytest.raises(ValueError, match=f"^{path}:6: the score"):
            readers.read_run(path)
    with stdin_of(monkeypatch, bad):
        with pytest.raises(ValueError, match="^<stdin>:6: the score"):
            readers.read_run("-")
    with stdin_of(monkeypatch, gzip.compress(bad)[:-12]):
        with pytest.raises(ValueError, match="^<stdin>:[0-9]+: cannot decompress"):
            readers.read_run("-")
    with stdin_of(monkeypatch, b"# nothing\n"):
        with pytest.raises(ValueError, match=r"^<stdin>:2: no results in the file"):
            readers.read_run("-")
    (tmp_path / "q.txt").write_bytes(QRELS)
    with stdin_of(monkeypatch, RUN + b"1 Q0 a 9 0.3 r\n"):
        with pytest.raises(ValueError, match=r"^<stdin>:6: duplicate docno 'a' for topic '1' \(also on line 1\)"):
            readers.align_run("-", readers.read_qrels(tmp_path / "q.txt"))


def test_open_binary_reads_a_pipe(tmp_path):
    with os_pipe(gzip.compress(RUN)) as path:
        stream, raw = _files.open_binary(path)
        with stream:
            assert stream.read() == RUN
        assert raw.tell() > 0
    with os_pipe(RUN) as path:
        stream, _ = _files.open_binary(path)
        with stream:
            assert stream.read() == RUN


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_byte_order_mark_is_skipped_with_one_warning(tmp_path, gz):
    # was: topic '\ufeff1' (missing from the run, or a topic of its own)
    def put(name, data):
        (tmp_path / name).write_bytes(gzip.compress(data) if gz else data)
        return str(tmp_path / name)

    q, r = put("q", QRELS), put("r", RUN)
    qb, rb = put("qb", BOM + QRELS), put("rb", BOM + RUN)
    with pytest.warns(ByteOrderMarkWarning) as rec:
        qrels = readers.read_qrels(qb)
    assert [str(w.message) for w in rec] == [f"{qb}: skipped the UTF-8 byte-order mark at the start of the file"]
    _same_table(qrels, readers.read_qrels(q))
    with pytest.warns(ByteOrderMarkWarning, match="rb: skipped"):
        _same_table(readers.read_run(rb), readers.read_run(r))
    with pytest.warns(ByteOrderMarkWarning):
        _same_aligned(readers.align_run(rb, readers.read_qrels(q)), readers.align_run(r, readers.read_qrels(q)))
    with pytest.warns(ByteOrderMarkWarning):
        assert [len(p) for p in _trec.iter_run(put("sorted", BOM + b"".join(sorted(RUN.splitlines(True)))))] == [5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no mark: no warning; a mark further on is data
        readers.read_qrels(q)
        assert readers.read_qrels(put("mid", QRELS + BOM + b"3 0 x 1\n")).topics.tolist()[-1] == "\ufeff3"
    with pytest.warns(ByteOrderMarkWarning), pytest.raises(ValueError, match="qb2:2: the relevance"):
        readers.read_qrels(put("qb2", BOM + b"1 0 a 1\n1 0 b x\n"))     # line numbers unchanged


@pytest.mark.parametrize("block_size", [1, 2, 4, 1 << 16])
def test_byte_order_mark_with_small_blocks(tmp_path, block_size):
    (tmp_path / "q").write_bytes(BOM + QRELS)
    with pytest.warns(ByteOrderMarkWarning):
        got = b"".join(bytes(b) for b in _files.iter_line_blocks(tmp_path / "q", block_size))
    assert got == QRELS
    (tmp_path / "e").write_bytes(BOM)
    with pytest.warns(ByteOrderMarkWarning):
        assert b"".join(bytes(b) for b in _files.iter_line_blocks(tmp_path / "e", block_size)) == b""


def test_byte_order_mark_in_svmlight_predictions_and_group_files(tmp_path):
    (tmp_path / "d.svm").write_bytes(BOM + b"1 qid:1 1:0.5\n0 qid:1 1:0.1\n2 qid:2 1:0.3\n")
    (tmp_path / "p").write_bytes(BOM + b"0.5\n0.1\n0.3\n")
    (tmp_path / "g").write_bytes(BOM + b"2\n1\n")
    with pytest.warns(ByteOrderMarkWarning):
        d = readers.read_svmlight(tmp_path / "d.svm")
    assert d.labels.tolist() == [1, 0, 2] and d.qid.tolist() == [1, 1, 2]
    with pytest.warns(ByteOrderMarkWarning):
        assert readers.read_predictions(tmp_path / "p").tolist() == [0.5, 0.1, 0.3]
    with pytest.warns(ByteOrderMarkWarning):
        assert readers.read_group_file(tmp_path / "g").tolist() == [2, 1]


def test_byte_order_mark_warning_points_at_the_caller(tmp_path):
    (tmp_path / "q").write_bytes(BOM + QRELS)
    with pytest.warns(ByteOrderMarkWarning) as rec:
        readers.read_qrels(tmp_path / "q")
    assert rec[0].filename == __file__


def test_range_blocks_keep_long_lines_whole_and_grow_the_buffer(tmp_path):
    # Lines longer than the block: the buffer grows (and is kept in `buffers`), each block
    # ends a line, and the blocks of a range are its bytes (a missing final newline added).
    lines = [b"q1 0 d%d %d 1.0 r" % (i, i) + b"x" * (i * 7) for i in range(12)]
    data = b"\n".join(lines) + b"\n"
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    start = len(lines[0]) + 1
    stop = start + sum(len(x) + 1 for x in lines[1:8])
    buffers = [bytearray(4)]
    got = []
    for block in _files.iter_range_blocks(path, start, stop, block_size=4, buffers=buffers):
        assert bytes(block).endswith(b"\n")
        got.append(bytes(block))
    assert b"".join(got) == data[start:stop]
    assert len(buffers[0]) > max(len(x) for x in lines[1:8])
    tail = b"".join(bytes(b) for b in _files.iter_range_blocks(path, stop, None, block_size=4))
    assert tail == data[stop:]
    path.write_bytes(data[:-1])                          # no final newline
    tail = b"".join(bytes(b) for b in _files.iter_range_blocks(path, stop, None, block_size=4))
    assert tail == data[stop:]
