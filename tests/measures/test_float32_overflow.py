"""float32_overflow: scores beyond float32 under the presets whose tool casts them
to float32 (pytrec_eval, torchmetrics): +-inf, ties, a warning; "error" elsewhere."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fastndcg
from fastndcg import Convention, NDCGScorer, reference
from fastndcg.conventions import ScoreOverflowWarning
from fastndcg import get_preset
from fastndcg import LambdaMART

BIG = 1e39          # finite double, +inf as float32
LABELS, OFFSETS, KEY = np.array([1, 0]), np.array([0, 2]), np.array([0, 1])   # docs "a" (key 0), "b" (key 1)


def _quiet_ndcg(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScoreOverflowWarning)
        return fastndcg.ndcg(*args, **kwargs)


@pytest.mark.parametrize("scores", [[BIG, 2 * BIG], [2 * BIG, BIG], [np.inf, BIG], [-BIG, -2 * BIG]])
def test_pytrec_eval_ties_equal_infinities_by_docno_descending(scores):
    # pytrec_eval gives 0.6309 for all four (checked with pytrec_eval 0.5): both scores are
    # the same infinity, the tie falls to docno descending: b first, a (relevant) second
    got = _quiet_ndcg(np.array(scores), LABELS, OFFSETS, convention="pytrec_eval", tie_key=KEY)
    assert got[0] == pytest.approx(1 / np.log2(3), abs=0, rel=1e-15)
    assert got[0] == reference.ndcg(np.array(scores), LABELS, OFFSETS, convention="pytrec_eval", tie_key=KEY)[0]


def test_torchmetrics_averages_the_tie():
    # torchmetrics 1.9.0: retrieval_normalized_dcg(torch.tensor([1e39, 2e39]), torch.tensor([1, 0])) = 0.8155
    got = _quiet_ndcg(np.array([BIG, 2 * BIG]), LABELS, OFFSETS, convention="torchmetrics")
    assert got[0] == pytest.approx((1 + 1 / np.log2(3)) / 2, rel=1e-15)


def test_warning_names_rows_once_per_call():
    s = np.array([1.0, 2.0, BIG, -BIG, 3.0, 5e38, 7e38, 9e38])
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    off = np.array([0, 2, 5, 8])
    with pytest.warns(ScoreOverflowWarning) as rec:
        fastndcg.ndcg(s, y, off, convention="pytrec_eval_cut", k=3, tie_key=np.arange(8))
    assert len(rec) == 1
    msg = str(rec[0].message)
    assert msg.startswith("5 scores overflow float32")
    assert "scores[2]=1e+39 (query 1, row 0 of rows 2:5)" in msg and "scores[3]=-1e+39" in msg
    assert "scores[5]=5e+38 (query 2" in msg and "and 2 more" in msg
    assert list(rec[0].message.rows) == [2, 3, 5] and rec[0].message.count == 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no overflow: no warning
        fastndcg.ndcg(s[:2], y[:2], off[:2], convention="pytrec_eval", tie_key=np.arange(2))


def test_literal_infinity_passes_silently_and_nan_stays_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = fastndcg.ndcg(np.array([np.inf, 1.0]), LABELS, OFFSETS, convention="pytrec_eval", tie_key=KEY)
        assert got[0] == 1.0
        got = fastndcg.ndcg(np.array([-np.inf, 1.0], dtype=np.float32), LABELS, OFFSETS, convention="pytrec_eval",
                            tie_key=KEY)
        assert got[0] == pytest.approx(1 / np.log2(3))
    for dtype in (np.float64, np.float32):
        with pytest.raises(ValueError, match=r"scores must be finite; got scores\[1\]=nan"):
            fastndcg.ndcg(np.array([BIG if dtype == np.float64 else 1.0, np.nan], dtype=dtype), LABELS, OFFSETS,
                          convention="pytrec_eval", tie_key=KEY)
    with pytest.raises(ValueError, match="NaN"):
        reference.ndcg(np.array([BIG, np.nan]), LABELS, OFFSETS, convention="pytrec_eval", tie_key=KEY)


@pytest.mark.parametrize("conv", ["xgboost", Convention(score_precision="float32"),
                                  get_preset("pytrec_eval").replace(float32_overflow="error")])
def test_other_conventions_still_raise(conv):
    tie = KEY if isinstance(conv, Convention) and conv.uses_tie_key else None
    with pytest.raises(ValueError, match="must stay finite when rounded to float32"):
        fastndcg.ndcg(np.array([1.0, BIG]), LABELS, OFFSETS, convention=conv, tie_key=tie)
    with pytest.raises(ValueError, match="rounded to float32"):
        reference.ndcg(np.array([1.0, BIG]), LABELS, OFFSETS, convention=conv, tie_key=tie)


def test_field_validation_and_presets():
    assert get_preset("pytrec_eval").float32_overflow == "inf"
    assert get_preset("pytrec_eval_cut").float32_overflow == "inf"
    assert get_preset("torchmetrics").float32_overflow == "inf"
    for name in ("trec_eval", "trec_eval_cut", "xgboost", "standard"):
        assert get_preset(name).float32_overflow == "error"
    with pytest.raises(ValueError, match="float32_overflow must be one of"):
        Convention(score_precision="float32", float32_overflow="nan")
    with pytest.raises(ValueError, match="float32_overflow='inf' applies to score_precision='float32' only"):
        Convention(float32_overflow="inf")


def test_lambdamart_refuses_infinite_scores_clearly():
    model = LambdaMART(LABELS, OFFSETS, convention=get_preset("pytrec_eval"), tie_key=KEY)
    with pytest.raises(ValueError, match="float32_overflow='inf' does not apply: LambdaMART"):
        model.gradients(np.array([BIG, 2 * BIG]))


def _random_case(rng, dtype):
    n_q = int(rng.integers(1, 30))
    sizes = rng.integers(0, 12, n_q)
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(off[-1])
    pool = np.array([0.5, -0.5, 1.0, 3e38, -3e38, 3.5e38, -3.5e38, 1e39, -1e39, 2e39, np.inf, -np.inf])
    if dtype == np.float32:
        pool = pool[np.abs(pool) < 3.4e38].tolist() + [np.inf, -np.inf]
    s = rng.choice(pool, n).astype(dtype)
    y = rng.integers(0, 4, n)
    key = rng.permutation(n).astype(np.int64)
    return s, y, off, key


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("ties", ["key_desc", "stable", "average", "worst", "best"])
def test_kernel_equals_reference_and_is_thread_independent(dtype, ties):
    rng = np.random.default_rng(13)
    base = get_preset("pytrec_eval").replace(ties=ties)
    for ideal in ("full", "cut"):
        conv = base.replace(ideal=ideal)
        for _ in range(25):
            s, y, off, key = _random_case(rng, dtype)
            tie = key if conv.uses_tie_key else None
            ks = [1, 3, None]
            want = reference.ndcg(s, y, off, ks, conv, tie_key=tie)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ScoreOverflowWarning)
                got1 = NDCGScorer(y, off, ks, convention=conv, tie_key=tie).ndcg(s, n_threads=1)
                got2 = NDCGScorer(y, off, ks, convention=conv, tie_key=tie).ndcg(s, n_threads=2)
            np.testing.assert_allclose(got1, want, rtol=1e-12, atol=0)
            assert got1.tobytes() == got2.tobytes()


def _trec_files(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 x 0\n2 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 0.5 r\n# a comment\n2 Q0 c 1 3e39 r\n1 Q0 a 2 2e39 r\n1 Q0 b 3 1e39 r\n")
    return str(tmp_path / "q"), str(tmp_path / "r")


def test_warnings_point_at_the_callers_line_and_name_the_run_lines(tmp_path):
    # was: the warning pointed at fastndcg's own files (validation.py, ...), and named
    # internal rows (scores[2]=1e+39 (query 1, row 0 of rows 2:4)) instead of the run's lines
    from fastndcg.io import align_run, read_qrels, read_run
    from fastndcg.measures._aligned import aligned_ndcg

    q, r = _trec_files(tmp_path)
    lines = f"{r}:4, {r}:5, {r}:3: 3 score(s) overflow float32 and rank as +-inf"     # topic 1, then 2
    calls = [
        (lambda: fastndcg.evaluate("ndcg", q, r, convention="pytrec_eval"), lines),
        (lambda: aligned_ndcg(align_run(r, read_qrels(q)), 10, convention="pytrec_eval_cut"), lines),
        (lambda: aligned_ndcg(align_run(read_run(r), read_qrels(q)), None, convention="pytrec_eval"), lines),
        (lambda: fastndcg.ndcg(np.array([BIG, 2 * BIG]), LABELS, OFFSETS, convention="pytrec_eval", tie_key=KEY),
         "2 scores overflow float32"),
        (lambda: NDCGScorer(LABELS, OFFSETS, None, convention="pytrec_eval", tie_key=KEY).ndcg(np.array([BIG, 1.0])),
         "1 scores overflow float32"),
    ]
    for call, start in calls:
        with pytest.warns(ScoreOverflowWarning) as rec:
            call()
        assert len(rec) == 1 and str(rec[0].message).startswith(start), str(rec[0].message)
        assert rec[0].filename == __file__, rec[0].filename


def test_joined_and_table_runs_keep_the_lines_of_scores_beyond_float32(tmp_path):
    from fastndcg.io import align_run, read_qrels, read_run
    from fastndcg.io._joining import join_run_file

    q, r = _trec_files(tmp_path)
    qrels = read_qrels(q)
    for a in (align_run(r, qrels), align_run(read_run(r), qrels),
              join_run_file(r, qrels, chunk_rows=1, block_size=16).aligned()):
        # topic 1 (x, a, b: rows 0-2), then topic 2 (c: row 3)
        assert [a.score_line(i) for i in range(4)] == [None, 4, 5, 3]
    cut = align_run(r, qrels, max_docs=2, float32_scores=True)      # b (1e39) and a tie at +inf: x drops
    assert [cut.score_line(i) for i in range(3)] == [4, 5, 3]
