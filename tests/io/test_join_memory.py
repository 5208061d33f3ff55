"""A joined run's memory (issue 27 item 1, short lines): each result kept in 16 bytes while
the run is read (score; judgment row and tie key in 32 bits), in pages of its own
(``io/_pages.py``); ``JoinedRun.aligned(consume=True)`` frees the pieces one by one as they
are placed; gain levels are int32 unless a judgment needs 64 bits. Every value is that of
the path that keeps the pieces, bit for bit; a consumed run says so when used again; the
32-bit limits are errors, not wrapped numbers."""
from __future__ import annotations

import numpy as np
import pytest

import fastndcg.io as readers
from fastndcg.io import _joined_runs
from fastndcg.io import _joining as align
from fastndcg.io._pages import PAGE_ARRAY_MIN_BYTES, page_array
from fastndcg.measures._trec_measures import evaluate_trec

from join_cases import mapped, random_files

FIELDS = ("scores", "labels", "offsets", "tie_key", "ideal_labels", "ideal_offsets", "n_retrieved", "status",
          "ideal_status")


def _same(a, b):
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        assert x.dtype == y.dtype, f
        np.testing.assert_array_equal(x, y, err_msg=f)
    assert a.qids.tolist() == b.qids.tolist()
    assert (a.missing_qids, a.ignored_qids, a.run_name) == (b.missing_qids, b.ignored_qids, b.run_name)


def test_page_array_maps_large_arrays_and_leaves_small_ones_to_numpy():
    n = PAGE_ARRAY_MIN_BYTES // 8 + 1
    big = page_array(n, np.float64)
    assert big.shape == (n,) and big.dtype == np.float64 and big.flags.writeable and big.flags.c_contiguous
    assert mapped(big)
    big[:] = np.arange(n)
    assert big[-1] == n - 1
    small = page_array(10, np.int32)
    assert small.shape == (10,) and small.dtype == np.int32 and not mapped(small)
    assert page_array(0, np.int8).shape == (0,)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("options", [dict(missing="zero"), dict(missing="skip", max_docs=3),
                                     dict(missing="zero", max_docs=2, float32_scores=True)])
def test_consuming_a_joined_run_gives_the_same_alignment(tmp_path, seed, options):
    r, q, _ = random_files(tmp_path, np.random.default_rng(seed))
    qrels = readers.read_qrels(q)
    joiner = align.RunJoiner(qrels, chunk_rows=2, block_size=64)      # many pieces
    try:
        kept = joiner.join(r)
    except ValueError:
        return      # a duplicate docno: the join's own tests cover the error
    expected = kept.aligned(**options)
    _same(kept.aligned(**options), expected)            # kept: aligned again, the same
    consumed = joiner.join(r)
    n_pieces = len(consumed.pieces)
    got = consumed.aligned(consume=True, **options)
    _same(got, expected)
    assert n_pieces >= 1 and consumed.pieces == [] and consumed.consumed
    with pytest.raises(ValueError, match=r"^run: this JoinedRun of .* was consumed by aligned\(consume=True\)"):
        consumed.aligned(**options)
    assert got.labels.dtype == np.int32 and got.tie_key.dtype == np.int64


def test_evaluate_trec_frees_the_run_at_its_last_alignment(tmp_path):
    # three groups: the plain ndcg_cut (alignment X), relabelled judgments (Y), judged-only
    # (X again, aligned already): the run is freed by Y's alignment, the last new one
    r, q, _ = random_files(tmp_path, np.random.default_rng(3))
    qrels = readers.read_qrels(q)
    measures = ["ndcg_cut.10", "nDCG(gains={0:0,1:1,2:5})@10", "nDCG(judged_only=True)@10", "ndcg"]
    expected = evaluate_trec(align.join_run_file(r, qrels), qrels, measures, missing="zero")
    joined = align.join_run_file(r, qrels)
    got = evaluate_trec(joined, qrels, measures, missing="zero", consume_run=True)
    assert joined.consumed
    np.testing.assert_array_equal(got.values, expected.values)
    np.testing.assert_array_equal(got.means, expected.means)
    kept = align.join_run_file(r, qrels)
    evaluate_trec(kept, qrels, measures, missing="zero")
    assert not kept.consumed                             # the caller's run stays usable
    np.testing.assert_array_equal(evaluate_trec(kept, qrels, measures, missing="zero").values, expected.values)
    from_path = evaluate_trec(r, qrels, measures, missing="zero")
    np.testing.assert_array_equal(from_path.values, expected.values)


def test_judgments_beyond_int32_keep_64_bit_levels(tmp_path):
    big = 3_000_000_000
    q = tmp_path / "q.txt"
    q.write_text(f"1 0 a {big}\n1 0 b 1\n2 0 c 2\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n2 Q0 c 1 1 t\n")
    qrels = readers.read_qrels(q)
    a = readers.align_run(r, qrels)
    assert a.labels.dtype == np.int64 and a.labels.tolist() == [1, big, 2]
    from_table = readers.align_run(readers.read_run(r), qrels)
    _same(a, from_table)
    q.write_text("1 0 a 3\n1 0 b 1\n2 0 c 2\n")
    small = readers.align_run(r, readers.read_qrels(q))
    assert small.labels.dtype == np.int32 and small.labels.tolist() == [1, 3, 2]


def test_the_32_bit_limits_are_errors(tmp_path, monkeypatch):
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 1\n1 0 b 1\n2 0 c 2\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n1 Q0 z 3 0 t\n2 Q0 c 1 1 t\n")
    monkeypatch.setattr(align, "INT32_MAX", 2)
    with pytest.raises(ValueError, match=r"q\.txt: 3 judgments; a run is joined with up to 2$"):
        readers.align_run(r, readers.read_qrels(q))
    q.write_text("1 0 a 1\n2 0 c 2\n")
    with pytest.raises(ValueError, match=r"r\.txt: topic '1' has 3 results; the join handles up to 2 a topic$"):
        readers.align_run(r, readers.read_qrels(q))


def test_growable_arrays_from_page_array():
    from fastndcg.io._files import Growable

    g = Growable(np.int64, allocate=page_array)
    g.reserve(100_000)
    g.a[:100_000] = np.arange(100_000)
    g.n = 100_000
    assert mapped(g.a)
    out = g.finish()            # a mapping is not resized: a view of the rows in use
    assert out.shape == (100_000,) and out[-1] == 99_999
    plain = Growable(np.int64)
    plain.reserve(10)
    plain.a[:3] = [1, 2, 3]
    plain.n = 3
    assert plain.finish().tolist() == [1, 2, 3] and plain.a.flags.owndata


def test_the_joiners_parser_keeps_its_rows_in_pages_of_their_own(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 1\n")
    r = tmp_path / "r.txt"
    r.write_text("".join(f"1 Q0 d{i} {i} {i} t\n" for i in range(50_000)))
    joiner = align.RunJoiner(readers.read_qrels(q), block_size=64 << 10)      # a large run: 4 blocks or more
    joined = joiner.join(r)
    assert mapped(joiner._parser.values.a) and mapped(joiner._parser.dstart.a)
    assert mapped(joined.pieces[0].scores) and joined.n_results == 50_000


def test_a_large_runs_rows_are_placed_on_the_calls_threads_with_the_same_arrays(tmp_path, monkeypatch):
    """The placement into fresh pages (a run of PAGED_RESULTS results or more) runs on the
    call's threads, as the heap arrays of smaller runs do (two threads on two free cores
    fault the pages in faster than one); the arrays are those of one thread, bit for bit."""
    q = tmp_path / "q.txt"
    q.write_text("".join(f"{t} 0 d{i} {i % 3}\n" for t in range(8) for i in range(0, 5000, 7)))
    r = tmp_path / "r.txt"
    r.write_text("".join(f"{t} Q0 d{i} 1 {(i * 7919) % 1000 / 10} t\n" for t in range(8) for i in range(5000)))
    qrels = readers.read_qrels(q)
    monkeypatch.setattr(_joined_runs, "PAGED_RESULTS", 1)     # page arrays for this small run
    seen = []
    place = align._parse.place_topics

    def recorded(*args):
        seen.append((mapped(args[5]), args[-1]))     # (the output in pages of its own, threads)
        return place(*args)

    monkeypatch.setattr(align._parse, "place_topics", recorded)
    one = align.join_run_file(r, qrels, n_threads=1).aligned(missing="zero", n_threads=1, consume=True)
    two = align.join_run_file(r, qrels, n_threads=2).aligned(missing="zero", n_threads=2, consume=True)
    assert all(paged for paged, _ in seen) and seen[0][1] == 1 and max(t for _, t in seen[1:]) == 2
    _same(one, two)
