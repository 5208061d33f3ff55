"""Joining a run while it is read (issue 27 item 1, two threads): a run read whole on
several threads has each piece joined on a helper thread while the blocks after it are
parsed (``RunJoiner._overlap_threads``; the parser hands the piece's arrays over,
``TrecParser.split_front``). The joined arrays, the values and every error are those of
the one-thread path, which joins each piece in turn; a reader stopped early leaves the
joiner usable. (A run that splits into two halves of whole topics is read as such on two
threads, tests/io/test_join_halves.py; here no run splits, so join() takes this pipeline.)"""
from __future__ import annotations

import numpy as np
import pytest

import fastndcg.io as readers
from fastndcg.io import _joining as align
from fastndcg.io._trec import TrecParser
from fastndcg.io._pages import PAGE_ARRAY_MIN_BYTES
from fastndcg.measures._trec_measures import evaluate_trec

from join_cases import DOCS, SCORES, mapped


@pytest.fixture(autouse=True)
def no_halves(monkeypatch):
    """No run splits into halves (RunJoiner._join_halves): join() takes the pipeline tested here."""
    monkeypatch.setattr(align, "split_point", lambda path: None)


def _run_text(rng, n_topics=40, contiguous=True, duplicate_at=None, malformed_at=None):
    rows = []
    for t in range(n_topics):
        n = int(rng.integers(1, len(DOCS) + 1))
        for i in rng.choice(len(DOCS), n, replace=False):
            rows.append((str(t).encode(), DOCS[int(i)], SCORES[int(rng.integers(len(SCORES)))]))
    if not contiguous:
        rows = [rows[i] for i in rng.permutation(len(rows))]
    lines = [t + b" Q0 " + d + b" 1 " + s.encode() + b" tag\n" for t, d, s in rows]
    if duplicate_at is not None:
        lines.insert(duplicate_at + 1, lines[duplicate_at])
    if malformed_at is not None:
        lines.insert(malformed_at, b"7 Q0 broken-line\n")
    return b"".join(lines)


def _qrels(tmp_path, rng):
    q = tmp_path / "q.txt"
    q.write_bytes(b"".join(str(t).encode() + b" 0 " + DOCS[int(i)] + b" " + str(int(rng.integers(-1, 4))).encode()
                           + b"\n" for t in range(0, 44, 1) for i in rng.choice(len(DOCS), 5, replace=False)))
    return readers.read_qrels(q)


def _joined(qrels, path, n_threads):
    return align.RunJoiner(qrels, chunk_rows=8, block_size=256, n_threads=n_threads).join(path)


def _files(tmp_path, seed):
    """Qrels and a run of 40 topics, read in 256-byte blocks: a large run (many pieces)."""
    rng = np.random.default_rng(seed)
    qrels = _qrels(tmp_path, rng)
    r = tmp_path / "r.txt"
    r.write_bytes(_run_text(rng))
    return qrels, r, align.RunJoiner(qrels, chunk_rows=8, block_size=256, n_threads=2)


def test_a_long_run_is_joined_while_it_is_read_on_two_threads(tmp_path):
    qrels, r, joiner = _files(tmp_path, 0)
    assert joiner._large(r) and joiner._overlap_threads() == (1, 1)
    assert align.RunJoiner(qrels, n_threads=4)._overlap_threads() == (2, 2)
    assert align.RunJoiner(qrels, chunk_rows=8, block_size=256, n_threads=1)._overlap_threads() is None
    assert not align.RunJoiner(qrels, chunk_rows=8, block_size=r.stat().st_size, n_threads=2)._large(r)
    assert not align.RunJoiner(qrels, n_threads=4)._large(r)           # under four 4 MiB blocks
    joined = joiner.join(r)
    assert len(joined.pieces) > 3 and all(mapped(pc.scores) or pc.scores.nbytes < PAGE_ARRAY_MIN_BYTES
                                          for pc in joined.pieces)
    small = align.RunJoiner(qrels, chunk_rows=8, n_threads=2).join(r)   # not large: heap arrays
    assert not any(mapped(pc.scores) for pc in small.pieces)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("contiguous", [True, False])
def test_joined_while_read_equals_joined_in_turn(tmp_path, seed, contiguous):
    rng = np.random.default_rng(seed)
    qrels = _qrels(tmp_path, rng)
    r = tmp_path / "r.txt"
    r.write_bytes(_run_text(rng, contiguous=contiguous))
    one, two = _joined(qrels, r, 1), _joined(qrels, r, 2)
    assert len(two.pieces) == len(one.pieces) and (len(one.pieces) > 3 or not contiguous)
    np.testing.assert_array_equal(one.qidx, two.qidx)
    for a, b in zip(one.pieces, two.pieces):
        for f in ("qidx", "sizes", "scores", "match", "tie_key"):
            np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert (one.ignored_qids, one.run_name) == (two.ignored_qids, two.run_name)
    measures = ["ndcg_cut.5", "ndcg"]
    np.testing.assert_array_equal(evaluate_trec(one, qrels, measures, missing="zero").values,
                                  evaluate_trec(two, qrels, measures, missing="zero").values)


@pytest.mark.parametrize("where", ["duplicate", "malformed", "both"])
def test_errors_are_those_of_the_join_in_turn(tmp_path, where):
    rng = np.random.default_rng(5)
    qrels = _qrels(tmp_path, rng)
    r = tmp_path / "r.txt"
    r.write_bytes(_run_text(rng, duplicate_at=20 if where != "malformed" else None,
                            malformed_at=200 if where != "duplicate" else None))
    messages = []
    for n_threads in (1, 2):
        with pytest.raises(ValueError) as info:
            _joined(qrels, r, n_threads)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert ("duplicate docno" in messages[0]) == (where == "duplicate")     # a malformed line further on first
    assert ("expected 6 fields" in messages[0]) == (where != "duplicate")


def test_a_reader_stopped_early_leaves_the_joiner_usable(tmp_path):
    qrels, r, joiner = _files(tmp_path, 7)
    pieces = joiner.pieces(r, stream=False)
    next(pieces)
    next(pieces)
    pieces.close()          # a piece was being joined on the helper: waited for
    again = joiner.join(r)
    one = _joined(qrels, r, 1)
    for a, b in zip(one.pieces, again.pieces):
        np.testing.assert_array_equal(a.scores, b.scores)
        np.testing.assert_array_equal(a.tie_key, b.tie_key)


def test_split_front_hands_over_the_rows_and_goes_on_in_other_arrays(tmp_path):
    r = tmp_path / "r.txt"
    text = b"".join(f"{t} Q0 d{i} 1 {i} tag\n".encode() for t in (1, 2, 3) for i in range(4))
    r.write_bytes(text)
    p = TrecParser(r, True, 1)
    p.parse(text[: text.index(b"3 Q0 d2")])
    front = p.split_front(4)
    assert front.n_rows == 4 and front.seg_topics.tolist() == [b"1"]
    assert bytes(front.pool[front.dstart[0]:front.pool_end]) == b"d0d1d2d3"
    p.parse(text[text.index(b"3 Q0 d2"):])
    spare_pool = front.pool
    second = p.split_front(4, front)        # front's arrays take the rows after these
    assert second.seg_topics.tolist() == [b"2"] and second.values[:4].tolist() == [0, 1, 2, 3]
    assert p.pool.a is spare_pool and p.values.n == 4
    rest = p.front(4)
    assert set(rest.seg_topics.tolist()) == {b"3"} and bytes(rest.pool[:rest.pool_end]) == b"d0d1d2d3"
    assert rest.lines[:4].tolist() == [9, 10, 11, 12]
