"""trec_eval's alignment rules on joined rows (fastndcg/io/_alignment.py): ``-M`` (``max_docs``)
ranks through the one comparator of the kernels (``fastndcg/_core/_rank.pxd``) and keeps the very
rows the former ``np.lexsort`` of its own kept (issue 35)."""
from __future__ import annotations

import numpy as np
import pytest

import fastndcg.io
from fastndcg.io import _alignment
from fastndcg.io._alignment import PlacedRows, keep_top


def lexsort_kept(scores, tie_key, sizes, max_docs, float32_scores):
    """The rows -M kept before issue 35: its own np.lexsort (topic, score descending, tie key
    descending; stable: position last)."""
    qtopic = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
    with np.errstate(over="ignore"):
        ranked = scores.astype(np.float32) if float32_scores else scores
    by_rank = np.lexsort((-tie_key, -ranked.astype(np.float64), qtopic))
    first = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=first[1:])
    pos = np.empty_like(by_rank)
    pos[by_rank] = np.arange(by_rank.size)
    return (pos - first[qtopic]) < max_docs


def tied_rows(rng, n_topics, distinct_keys=True):
    """Topics heavy with ties: few distinct scores (0.0 and -0.0, values equal only in float32,
    values beyond float32's range); tie keys a permutation within each topic (as a join gives
    them), or with repeats (the position decides)."""
    sizes = rng.integers(1, 150, n_topics).astype(np.int64)
    pool = np.array([0.0, -0.0, 1.0, 1.0 + 2.0 ** -40, 0.5, -3.0, 1e39, -1e39, 3.4028235e38, 2.0])
    scores = pool[rng.integers(0, pool.size, int(sizes.sum()))]
    keys = [rng.permutation(s) if distinct_keys else rng.integers(0, 3, s) for s in sizes.tolist()]
    return scores, np.concatenate(keys).astype(np.int64), sizes


@pytest.mark.parametrize("distinct_keys", [True, False])
@pytest.mark.parametrize("float32_scores", [False, True])
def test_max_docs_keeps_the_rows_of_the_former_lexsort(distinct_keys, float32_scores):
    rng = np.random.default_rng(35 + distinct_keys + 2 * float32_scores)
    for _ in range(5):
        scores, tie_key, sizes = tied_rows(rng, 40, distinct_keys)
        placed = PlacedRows(np.arange(sizes.shape[0], dtype=np.int64), sizes, scores, tie_key,
                            np.zeros(scores.shape[0], np.int32), np.zeros(scores.shape[0], np.int8))
        for max_docs in (1, 2, 3, 5, 17, 33, 40, 149, 150, 10 ** 30):
            want = lexsort_kept(scores, tie_key, sizes, max_docs, float32_scores)
            for n_threads in (1, 2):
                got = keep_top(placed, max_docs, float32_scores, n_threads)
                np.testing.assert_array_equal(got, want, err_msg=f"max_docs={max_docs} threads={n_threads}")


def test_max_docs_of_a_run_file_heavy_with_ties(tmp_path):
    # end to end: a run whose topics tie on few scores, -M cutting through the ties; the kept
    # rows are those of the former lexsort over the whole aligned run
    rng = np.random.default_rng(7)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {d % 3}\n" for t in range(1, 9) for d in range(0, 40, 2)))
    values = ["1", "0.5", "-0", "0", "1e39", "2.0000000001", "2"]
    run.write_text("".join(f"{t} Q0 d{d} 0 {values[rng.integers(len(values))]} r\n"
                           for t in range(1, 9) for d in rng.permutation(40)))
    for float32_scores in (False, True):
        whole = fastndcg.io.align_run(str(run), str(qrels), missing="zero", float32_scores=float32_scores)
        sizes = np.diff(whole.offsets)
        for max_docs in (1, 4, 9, 25):
            want = lexsort_kept(whole.scores, whole.tie_key, sizes, max_docs, float32_scores)
            for source in (str(run), fastndcg.io.read_run(run)):
                got = fastndcg.io.align_run(source, str(qrels), missing="zero", max_docs=max_docs,
                                            float32_scores=float32_scores)
                np.testing.assert_array_equal(got.scores, whole.scores[want])
                np.testing.assert_array_equal(got.tie_key, whole.tie_key[want])
                np.testing.assert_array_equal(got.labels, whole.labels[want])


def test_max_docs_has_no_comparator_of_its_own():
    import inspect

    assert "lexsort" not in inspect.getsource(_alignment) and "argsort(-" not in inspect.getsource(_alignment)


def _kept_by_rank(whole, depth, key_order, round_f32):
    """Each topic's ``depth`` best rows of a whole aligned run, by a sort of their own (score
    descending, then the tie key ascending / descending / not at all, then the position)."""
    sizes = np.diff(whole.offsets)
    qtopic = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
    ranked = whole.scores.astype(np.float32).astype(np.float64) if round_f32 else whole.scores
    keys = (key_order * whole.tie_key, -ranked, qtopic) if key_order else (-ranked, qtopic)
    by_rank = np.lexsort(keys)
    pos = np.empty_like(by_rank)
    pos[by_rank] = np.arange(by_rank.size)
    return (pos - whole.offsets[qtopic]) < depth


@pytest.mark.parametrize("key_order", [1, -1, 0])
@pytest.mark.parametrize("round_f32", [False, True])
def test_top_rows_are_placed_in_file_order(tmp_path, key_order, round_f32, force_threads):
    # a run heavy with ties (scores equal as doubles, equal only in float32, +-0), topics of 1 to
    # 60 results: placing only each topic's best rows keeps the rows a sort of the whole run ranks
    # first, in file order, on one thread or two
    from fastndcg.io._alignment import TopRows
    from fastndcg.io._joining import join_run_file

    rng = np.random.default_rng(36 + key_order + 3 * round_f32)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {d % 4 - 1}\n" for t in range(1, 31) for d in range(0, 60, 3)))
    values = ["1", "0.5", "-0", "0", "2.0000000001", "2", "3.4e38"]
    run.write_text("".join(f"{t} Q0 d{d} 0 {values[rng.integers(len(values))]} r\n"
                           for t in range(1, 31) for d in rng.permutation(60)[:rng.integers(1, 61)]))
    q = fastndcg.io.read_qrels(str(qrels))
    joined = join_run_file(str(run), q)
    whole = joined.aligned(missing="zero")
    for depth in (1, 2, 5, 10, 59, 60, 1000):
        want = _kept_by_rank(whole, depth, key_order, round_f32)
        for n_threads in (1, 2):
            got = joined.aligned(missing="zero", top=TopRows(depth, key_order, round_f32), n_threads=n_threads)
            np.testing.assert_array_equal(np.diff(got.offsets), np.minimum(np.diff(whole.offsets), depth))
            for column in ("scores", "tie_key", "labels", "status"):
                np.testing.assert_array_equal(getattr(got, column), getattr(whole, column)[want],
                                              err_msg=f"{column} depth={depth} threads={n_threads}")
            assert list(got.qids) == list(whole.qids) and list(got.missing_qids) == list(whole.missing_qids)


@pytest.mark.parametrize("block_size", [1 << 22, 256])
def test_a_run_joined_with_top_rows_keeps_what_placing_would_keep(tmp_path, block_size, force_threads):
    # joined with top=: each topic cut as the join goes (in pieces of a few topics, and with
    # block_size 256 read in many blocks, joined on a helper while the next are read); the same
    # aligned run as joining every row and cutting while placing
    from fastndcg.io._alignment import TopRows
    from fastndcg.io._joining import join_run_file

    rng = np.random.default_rng(361)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {d % 4 - 1}\n" for t in range(1, 41) for d in range(0, 60, 3)))
    values = ["1", "0.5", "-0", "0", "2.0000000001", "2", "3.4e38"]
    run.write_text("".join(f"{t} Q0 d{d} 0 {values[rng.integers(len(values))]} r\n"
                           for t in list(range(1, 41)) + [77] for d in rng.permutation(60)[:rng.integers(1, 61)]))
    q = fastndcg.io.read_qrels(str(qrels))
    for top in (TopRows(1, -1, True), TopRows(7, 1, False), TopRows(20, 0, True), TopRows(100, -1, False)):
        for n_threads in (1, 2):
            want = join_run_file(str(run), q, chunk_rows=64).aligned(missing="zero", top=top, n_threads=n_threads)
            joined = join_run_file(str(run), q, chunk_rows=64, block_size=block_size, n_threads=n_threads, top=top)
            assert joined.top == top and (len(joined.pieces) > 3 or block_size > run.stat().st_size)
            assert int(joined.sizes.max()) <= top.depth
            got = joined.aligned(missing="zero", top=top, n_threads=n_threads)
            for column in ("scores", "tie_key", "labels", "status", "offsets"):
                np.testing.assert_array_equal(getattr(got, column), getattr(want, column), err_msg=f"{column} {top}")
            assert list(got.qids) == list(want.qids) and got.ignored_qids == want.ignored_qids == ["77"]
            with pytest.raises(ValueError, match="top 1? ?.*results only"):
                joined.aligned(missing="zero")


def test_a_run_joined_with_top_rows_keeps_every_row_past_float32(tmp_path):
    # a score beyond float32 is named by its line wherever it ranks: the run is joined again whole
    from fastndcg.io._alignment import TopRows
    from fastndcg.io._joining import join_run_file

    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 2\n2 0 d1 1\n")
    run.write_text("1 Q0 d1 0 2 r\n1 Q0 d2 0 1 r\n2 Q0 d1 0 3 r\n2 Q0 d2 0 1 r\n2 Q0 d3 0 -1e39 r\n")
    joined = join_run_file(str(run), fastndcg.io.read_qrels(str(qrels)), top=TopRows(1, -1, True))
    assert joined.top is None
    got = joined.aligned(missing="zero", top=TopRows(1, -1, True))
    np.testing.assert_array_equal(got.scores, [2.0, 1.0, 3.0, 1.0, -1e39])
    assert got.score_line(4) == 5


def test_top_rows_place_every_row_when_a_score_is_beyond_float32(tmp_path):
    # such a score's row is named by its file line (warned about or refused): every row stays
    from fastndcg.io._alignment import TopRows
    from fastndcg.io._joining import join_run_file

    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 2\n")
    run.write_text("1 Q0 d1 0 2 r\n1 Q0 d2 0 1 r\n1 Q0 d3 0 -1e39 r\n")
    joined = join_run_file(str(run), fastndcg.io.read_qrels(str(qrels)))
    got = joined.aligned(missing="zero", top=TopRows(1, -1, True))
    np.testing.assert_array_equal(got.scores, [2.0, 1.0, -1e39])
    assert got.score_line(2) == 3
