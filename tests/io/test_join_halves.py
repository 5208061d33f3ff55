"""A large plain run on two threads is read as two halves of whole topics side by side
(issue 36: ``RunJoiner._join_halves``, ``fastndcg.io._files.split_point``): each thread parses
and joins its half. The aligned run, the values, the lines of scores beyond float32 and every
error are those of the one-thread path; a run whose halves share a topic, or a half with an
error, is read as one."""
from __future__ import annotations

import gzip

import numpy as np
import pytest

import fastndcg.io as readers
from fastndcg.io import _joining as align
from fastndcg.io._alignment import TopRows
from fastndcg.io._files import BOM, split_point
from fastndcg.measures._trec_measures import evaluate_trec

from join_cases import DOCS, SCORES


def _run_text(rng, n_topics=40, *, again_at=None, malformed_at=None, big_at=None):
    lines = []
    for t in range(n_topics):
        n = int(rng.integers(1, len(DOCS) + 1))
        for i in rng.choice(len(DOCS), n, replace=False):
            lines.append(str(t).encode() + b" Q0 " + DOCS[int(i)] + b" 1 "
                         + SCORES[int(rng.integers(len(SCORES)))].encode() + b" tag\n")
    if again_at is not None:            # topic 0 comes back in the second half
        lines.insert(again_at, b"0 Q0 late-doc 1 0.5 tag\n")
    if malformed_at is not None:
        lines.insert(malformed_at, b"7 Q0 broken-line\n")
    if big_at is not None:              # a score beyond float32, deep in its topic
        lines.insert(big_at, lines[big_at].split(b" ")[0] + b" Q0 big-doc 1 -1e39 tag\n")
    return b"".join(lines)


def _qrels(tmp_path, rng):
    q = tmp_path / "q.txt"
    q.write_bytes(b"".join(str(t).encode() + b" 0 " + DOCS[int(i)] + b" " + str(int(rng.integers(-1, 4))).encode()
                           + b"\n" for t in range(0, 44) for i in rng.choice(len(DOCS), 5, replace=False)))
    return readers.read_qrels(q)


def _join(qrels, path, n_threads, top=None):
    return align.RunJoiner(qrels, chunk_rows=8, block_size=256, n_threads=n_threads, top=top).join(path)


def _same_alignment(a, b, **kw):
    x, y = a.aligned(missing="zero", **kw), b.aligned(missing="zero", **kw)
    for f in ("scores", "tie_key", "labels", "status", "offsets"):
        np.testing.assert_array_equal(getattr(x, f), getattr(y, f), err_msg=f)
    assert list(x.qids) == list(y.qids) and x.ignored_qids == y.ignored_qids and x.run_name == y.run_name
    assert x.score_lines is None and y.score_lines is None or all(
        np.array_equal(u, v) for u, v in zip(x.score_lines, y.score_lines))


def _spy_halves(monkeypatch):
    calls = []
    halves = align.RunJoiner._join_halves

    def spied(self, path, top):
        out = halves(self, path, top)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(align.RunJoiner, "_join_halves", spied)
    return calls


def test_split_point_is_the_first_new_topic_after_the_middle(tmp_path):
    p = tmp_path / "r.txt"
    lines = [f"{t} Q0 d{i} {i} 1.0 x\n" for t in (1, 2, 3) for i in range(50)]
    p.write_text("".join(lines))
    at = split_point(p)
    data = p.read_bytes()
    assert data[at - 1:at] == b"\n" and data[at:].startswith(b"3 Q0 d0 ")      # topic 2 holds the middle
    p.write_text("# a comment\n\n" * 3 + "".join(f"1 Q0 d{i} 1 1 x\n" for i in range(100)))
    assert split_point(p) is None                                             # one topic past the middle
    p.write_bytes(BOM + data)
    assert split_point(p) is None
    p.write_bytes(gzip.compress(data))
    assert split_point(p) is None


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("top", [None, TopRows(3, -1, False)])
def test_halves_give_the_run_of_one_thread(tmp_path, seed, top, monkeypatch):
    calls = _spy_halves(monkeypatch)
    rng = np.random.default_rng(seed)
    qrels = _qrels(tmp_path, rng)
    r = tmp_path / "r.txt"
    r.write_bytes(_run_text(rng))
    one, two = _join(qrels, r, 1, top), _join(qrels, r, 2, top)
    assert calls == [False, True]     # one thread: no halves; two, a large plain file: halves
    assert len(two.pieces) > 3 and two.top == top
    _same_alignment(one, two, top=top)
    measures = ["ndcg_cut.3", "ndcg_cut.1"] if top is not None else ["ndcg_cut.5", "ndcg"]
    np.testing.assert_array_equal(evaluate_trec(one, qrels, measures, missing="zero").values,
                                  evaluate_trec(two, qrels, measures, missing="zero").values)


def test_a_score_beyond_float32_in_the_second_half_keeps_its_file_line(tmp_path, monkeypatch):
    calls = _spy_halves(monkeypatch)
    rng = np.random.default_rng(11)
    qrels = _qrels(tmp_path, rng)
    r = tmp_path / "r.txt"
    text = _run_text(rng)
    r.write_bytes(_run_text(np.random.default_rng(11), big_at=text.count(b"\n") - 30))
    one, two = _join(qrels, r, 1), _join(qrels, r, 2)
    assert calls == [False, True]
    _same_alignment(one, two)
    lines = two.aligned(missing="zero").score_lines[1]
    assert lines.size == 1 and r.read_bytes().split(b"\n")[int(lines[0]) - 1].split(b" ")[2] == b"big-doc"
    # cut to the top rows, the same run is joined again whole (the row is named by its line)
    cut = _join(qrels, r, 2, TopRows(3, -1, True))
    assert cut.top is None
    _same_alignment(one, cut)


def test_a_topic_in_both_halves_is_read_as_one(tmp_path, monkeypatch):
    calls = _spy_halves(monkeypatch)
    rng = np.random.default_rng(3)
    qrels = _qrels(tmp_path, rng)
    r = tmp_path / "r.txt"
    n = _run_text(np.random.default_rng(3)).count(b"\n")
    r.write_bytes(_run_text(rng, again_at=n - 5))
    one, two = _join(qrels, r, 1), _join(qrels, r, 2)
    assert split_point(r) is not None and calls == [False, False]
    _same_alignment(one, two)


@pytest.mark.parametrize("where", [0.2, 0.8])
def test_an_error_in_either_half_is_reported_as_one_thread_reports_it(tmp_path, where, monkeypatch):
    calls = _spy_halves(monkeypatch)
    rng = np.random.default_rng(5)
    qrels = _qrels(tmp_path, rng)
    r = tmp_path / "r.txt"
    n = _run_text(np.random.default_rng(5)).count(b"\n")
    r.write_bytes(_run_text(rng, malformed_at=int(n * where)))
    messages = []
    for n_threads in (1, 2):
        with pytest.raises(ValueError) as info:
            _join(qrels, r, n_threads)
        messages.append(str(info.value))
    assert split_point(r) is not None and calls == [False, False]
    assert messages[0] == messages[1] and f":{int(n * where) + 1}:" in messages[0]


def test_eight_threads_join_halves_at_once(tmp_path, monkeypatch):
    # eight callers, each its own joiner, share the helper pool for their second halves and the
    # qrels' docno index: each gets the run of one thread
    import threading

    calls = _spy_halves(monkeypatch)
    rng = np.random.default_rng(8)
    qrels = _qrels(tmp_path, rng)
    r = tmp_path / "r.txt"
    r.write_bytes(_run_text(rng))
    one = _join(qrels, r, 1)
    got = [None] * 8
    threads = [threading.Thread(target=lambda i=i: got.__setitem__(i, _join(qrels, r, 2))) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls.count(True) == 8
    for two in got:
        _same_alignment(one, two)
