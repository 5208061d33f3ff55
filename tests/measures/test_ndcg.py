"""The compiled NDCG path equals the reference under every convention."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import math

import fastndcg
import fastndcg.measures._ndcg
from fastndcg._core.prepared import aggregate
from fastndcg import Convention, NDCGScorer, reference
from fastndcg.reference import _ndcg as reference_ndcg
from conftest import require, make_batch

CUTOFF_SETS = [None, 1, 3, [1, 2, 3, 5, 10], [10, 1, None, 3, 3]]
CONVENTIONS = [
    Convention(),
    Convention(gain="linear", ties="average"),
    Convention(ties="worst", empty="one"),
    Convention(ties="best", empty="skip", discount="reciprocal"),
    Convention(ties="key", short="zero"),
    Convention(ties="key_desc", gain="linear", ideal="full"),
    Convention(gain=(0.0, 1.0, 3.0), unknown_label="zero", discount="letor", short="zero"),
    Convention(discount="jk", discount_base=3.0),          # Jarvelin-Kekalainen, log base 3
    Convention(gain="linear", discount="jk", discount_base=10.0, short="zero"),   # Sakai: b = 10
    Convention(score_precision="float32", gain=(0.0, 2.5, 2.5, 7.0, 1.0)),
    Convention(ties="average", aggregation="ratio", ideal="full"),
]


def _tie_key(conv, rng, n):
    return rng.integers(0, 3, size=n) if conv.uses_tie_key else None


def assert_same(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.describe()[:60])
@pytest.mark.parametrize("k", CUTOFF_SETS, ids=str)
def test_kernel_equals_reference_random(rng, dtype, conv, k):
    for _ in range(4):
        s, y, off = make_batch(rng, n_queries=15, max_docs=40, dtype=dtype)
        key = _tie_key(conv, rng, len(s))
        got = fastndcg.ndcg(s, y, off, k, convention=conv, tie_key=key)
        assert got.dtype == np.float64
        assert_same(got, reference.ndcg(s, y, off, k, conv, tie_key=key))
        assert_same(fastndcg.dcg(s, y, off, k, convention=conv, tie_key=key),
                    reference.dcg(s, y, off, k, conv, tie_key=key))
        assert_same(fastndcg.ideal_dcg(y, off, k, convention=conv), reference.ideal_dcg(y, off, k, conv))
        assert_same(fastndcg.mean_ndcg(s, y, off, k, convention=conv, tie_key=key),
                    reference.mean_ndcg(s, y, off, k, conv, tie_key=key))


@pytest.mark.parametrize("ties", ["stable", "average", "worst", "best", "key_desc"])
def test_long_queries_use_selection_and_gather_straddling_ties(rng, ties):
    # Queries much longer than k take the bounded-heap path; few distinct
    # scores make the last tie group extend far beyond k.
    conv = Convention(ties=ties, gain="linear")
    for n_values in (2, 7, 10**6):
        s, y, off = make_batch(rng, n_queries=6, max_docs=700, n_score_values=n_values)
        key = rng.permutation(len(s)) if conv.uses_tie_key else None
        for k in ([1, 2, 5, 10], 7, [3, None]):
            assert_same(fastndcg.ndcg(s, y, off, k, convention=conv, tie_key=key),
                        reference.ndcg(s, y, off, k, conv, tie_key=key))


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 9, 10, 16, 31, 32, 33, 50])
@pytest.mark.parametrize("ties", ["stable", "key", "key_desc"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_selection_path_gives_the_comparator_order(rng, m, ties, dtype):
    # Distinct real labels with linear gain make DCG@1..m spell out the exact
    # ranking, so any slip of a selection path (full sort for n <= 2m or
    # n <= 16, scan for m <= 2, branch-free filter for 3 <= m <= 32, heap
    # above) shows up. Query sizes straddle each switch; scores come from few
    # values (ties everywhere), many values, or rounding to float32 makes
    # distinct doubles tie.
    conv = Convention(gain="linear", ties=ties)
    sizes = np.array([0, 1, m, 2 * m, 2 * m + 1, 16, 17, 3 * m + 5, 200, 700])
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(off[-1])
    labels = rng.permutation(n).astype(np.float64) + 0.5
    for scores in (rng.integers(0, 3, size=n).astype(dtype),
                   rng.integers(0, 40, size=n).astype(dtype),
                   rng.standard_normal(n).astype(dtype),
                   1.0 + rng.integers(0, 4, size=n) * 2.0**-30):
        for conv_i in (conv, conv.replace(score_precision="float32")):
            key = rng.integers(0, 5, size=n) if conv.uses_tie_key else None
            k = list(range(1, m + 1))
            assert_same(fastndcg.dcg(scores, labels, off, k, convention=conv_i, tie_key=key),
                        reference.dcg(scores, labels, off, k, conv_i, tie_key=key))


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_counting_ideal_of_small_labels_in_long_queries(rng, label_dtype):
    # Labels below 8 are counted in packed bytes that are emptied every 510
    # rows: queries of one label repeated past that (and past 255 in one
    # word), labels whose bound from the check is 7 or 15 (largest 4, 7, 8),
    # and cutoffs down to the whole list, where every count matters.
    sizes = np.array([509, 510, 511, 1021, 1300, 3, 0, 600, 600, 600])
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(off[-1])
    for top in (1, 4, 7, 8):
        labels = rng.integers(0, top + 1, size=n)
        labels[off[0]:off[4]] = top                      # one label in the first four queries
        labels[off[7]:off[8]] = rng.integers(0, 2, size=sizes[7]) * top
        labels = labels.astype(label_dtype)
        scores = rng.standard_normal(n)
        for conv in (Convention(), Convention(gain="linear"), Convention(ideal="full")):
            k = [1, 10, 255, 256, 511, None]
            assert_same(fastndcg.ideal_dcg(labels, off, k, convention=conv),
                        reference.ideal_dcg(labels, off, k, conv))
            assert_same(fastndcg.ndcg(scores, labels, off, k, convention=conv),
                        reference.ndcg(scores, labels, off, k, conv))


def test_large_label_tables_use_sorting_ideal(rng):
    # More than 64 levels: the ideal is selected, not counted.
    s, y, off = make_batch(rng, n_queries=10, max_docs=200, n_labels=300)
    conv = Convention(gain=tuple(float(v) for v in rng.random(300) * 5))
    assert_same(fastndcg.ndcg(s, y, off, [1, 10, None], convention=conv),
                reference.ndcg(s, y, off, [1, 10, None], conv))
    y2 = np.minimum(y, 100)
    assert_same(fastndcg.ndcg(s, y2, off, [1, 10], convention=Convention(gain="exponential")),
                reference.ndcg(s, y2, off, [1, 10], Convention()))


@st.composite
def batches(draw):
    n_queries = draw(st.integers(0, 6))
    sizes = draw(st.lists(st.integers(0, 12), min_size=n_queries, max_size=n_queries))
    n = sum(sizes)
    scores = draw(st.lists(st.sampled_from([-1.0, 0.0, -0.0, 0.5, 1.0, 2.0, 1e-300]), min_size=n, max_size=n))
    labels = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    conv = Convention(
        gain=draw(st.sampled_from(["exponential", "linear", (0.0, 1.0, 3.0, 7.0, 15.0)])),
        discount=draw(st.sampled_from(["log2", "letor", "reciprocal"])),
        ties=draw(st.sampled_from(["stable", "key", "key_desc", "average", "worst", "best"])),
        empty=draw(st.sampled_from(["zero", "one", "skip"])),
        short=draw(st.sampled_from(["clamp", "zero"])),
        ideal=draw(st.sampled_from(["cut", "full"])),
        aggregation=draw(st.sampled_from(["mean", "ratio"])),
    )
    k = draw(st.sampled_from([None, 1, 2, 5, 13, [1, 4, None], [3, 1]]))
    key = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)) if conv.uses_tie_key else None
    return np.array(scores), np.array(labels), offsets, conv, k, key


# 100 cases here; the fuzz tier checks the same property (ndcg and mean_ndcg against the reference,
# on conventions generated over every field) in test_fuzz_differential.py::test_ndcg_entry_points_equal_the_reference
@settings(max_examples=100, deadline=None)
@given(batches())
def test_kernel_equals_reference_hypothesis(batch):
    s, y, off, conv, k, key = batch
    assert_same(fastndcg.ndcg(s, y, off, k, convention=conv, tie_key=key),
                reference.ndcg(s, y, off, k, conv, tie_key=key))
    assert_same(fastndcg.mean_ndcg(s, y, off, k, convention=conv, tie_key=key),
                reference.mean_ndcg(s, y, off, k, conv, tie_key=key))


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64, np.float32, np.float64, np.uint8, np.int16, bool])
def test_label_dtypes(rng, label_dtype):
    s, y, off = make_batch(rng, n_labels=2 if label_dtype is bool else 5)
    expected = reference.ndcg(s, y, off, [1, 5])
    assert_same(fastndcg.ndcg(s, y.astype(label_dtype), off, [1, 5]), expected)


def test_no_copies_of_kernel_ready_inputs(rng, monkeypatch):
    s, y, off = make_batch(rng)
    y = y.astype(np.int32)
    from fastndcg._core import prepared as _prepared

    seen = {}

    class Spy(_prepared.NDCGKernel):
        def __init__(self, labels, offsets, *args):
            seen.update(labels=labels, offsets=offsets)
            super().__init__(labels, offsets, *args)

        def score(self, scores, *args):
            seen["scores"] = scores
            return super().score(scores, *args)

    monkeypatch.setattr(_prepared, "NDCGKernel", Spy)
    fastndcg.ndcg(s, y, off, 3)
    assert seen["scores"] is s and seen["labels"] is y and seen["offsets"] is off


@pytest.mark.parametrize("how", ["flag", "memmap"])
def test_read_only_inputs(rng, tmp_path, how):
    s, y, off = make_batch(rng, dtype=np.float32)
    expected = reference.ndcg(s, y, off, [1, 3])
    if how == "flag":
        arrays = [a.copy() for a in (s, y, off)]
        for a in arrays:
            a.setflags(write=False)
    else:
        arrays = []
        for i, a in enumerate((s, y, off)):
            path = tmp_path / f"a{i}.npy"
            np.save(path, a)
            arrays.append(np.load(path, mmap_mode="r"))
    got = fastndcg.ndcg(*arrays, [1, 3])
    assert_same(got, expected)
    assert_same(NDCGScorer(arrays[1], arrays[2], [1, 3]).ndcg(arrays[0]), expected)


@pytest.mark.parametrize("conv", CONVENTIONS[:5], ids=lambda c: c.ties)
@pytest.mark.usefixtures("force_threads")
def test_bit_identical_for_any_thread_count(conv):
    from fastndcg.io import mslr_like

    data = mslr_like(600, seed=3)
    key = np.arange(data.n_docs)[::-1].copy() if conv.uses_tie_key else None
    # every selection path: full sort (None), scan (m <= 2), filter (3..32), heap (> 32);
    # one-shot (fused ideal) and cached scorer
    for ks in ([1, 2], [1, 3, 10], [20, 40], [1, 3, 10, None]):
        one = fastndcg.ndcg(data.scores, data.labels, data.offsets, ks, convention=conv, tie_key=key, n_threads=1)
        scorer = NDCGScorer(data.labels, data.offsets, ks, convention=conv)
        for n_threads in (2, 3, 4):
            many = fastndcg.ndcg(data.scores, data.labels, data.offsets, ks, convention=conv, tie_key=key,
                                 n_threads=n_threads)
            assert one.tobytes() == many.tobytes()
            assert one.tobytes() == scorer.ndcg(data.scores, tie_key=key, n_threads=n_threads).tobytes()
    k = [1, 3, 10, None]
    m1 = fastndcg.mean_ndcg(data.scores, data.labels, data.offsets, k, convention=conv, tie_key=key, n_threads=1)
    m2 = fastndcg.mean_ndcg(data.scores, data.labels, data.offsets, k, convention=conv, tie_key=key, n_threads=2)
    assert m1.tobytes() == m2.tobytes()


def test_scorer_caches_ideal_and_matches_one_shot(rng):
    s, y, off = make_batch(rng, n_queries=30)
    scorer = NDCGScorer(y, off, [1, 5, None], convention=Convention(empty="one"))
    ideal_before = scorer.ideal_dcg.copy()
    for _ in range(3):
        s = rng.normal(size=len(s))
        assert_same(scorer.ndcg(s), fastndcg.ndcg(s, y, off, [1, 5, None], convention=Convention(empty="one")))
        assert_same(scorer.mean(s), fastndcg.mean_ndcg(s, y, off, [1, 5, None], convention=Convention(empty="one")))
        assert_same(scorer(s), scorer.mean(s))
    np.testing.assert_array_equal(scorer.ideal_dcg, ideal_before)


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.describe()[:60])
def test_one_shot_fused_ideal_is_bit_identical_to_cached_ideal(rng, conv):
    # One-shot calls compute each query's ideal inside the scoring kernel;
    # the scorer computes it beforehand. Same function, same bits.
    s, y, off = make_batch(rng, n_queries=40, max_docs=60)
    key = _tie_key(conv, rng, len(s))
    for k in ([1, 3, 10], None, 5):
        scorer = NDCGScorer(y, off, k, convention=conv)
        np.testing.assert_array_equal(fastndcg.ndcg(s, y, off, k, convention=conv, tie_key=key),
                                      scorer.ndcg(s, tie_key=key))
        np.testing.assert_array_equal(fastndcg.mean_ndcg(s, y, off, k, convention=conv, tie_key=key),
                                      scorer.mean(s, tie_key=key))


def test_one_shot_empty_error_names_the_query():
    s = np.array([1.0, 2.0, 3.0, 0.5])
    y = np.array([1, 0, 0, 0])
    off = np.array([0, 2, 4])
    with pytest.raises(ValueError, match=r"query 1 \(rows 2:4\) has ideal DCG 0"):
        fastndcg.ndcg(s, y, off, 2, convention=Convention(empty="error"))
    with pytest.raises(ValueError, match=r"query 1 \(rows 2:4\)"):
        fastndcg.mean_ndcg(s, y, off, 2, convention=Convention(empty="error"))


@pytest.mark.parametrize("preset", fastndcg.list_presets())
def test_summands_add_up_to_mean_in_any_split(rng, preset):
    # summands()/finish() are what out-of-core and distributed evaluation
    # combine. The aggregate's sums are exact and correctly rounded, so the
    # whole set, the terms in reverse order and two halves summed with
    # math.fsum all give mean() to the bit.
    import math

    conv = fastndcg.get_preset(preset)
    s, y, off = make_batch(rng, n_queries=30, max_docs=40)
    y = np.minimum(y, 2)
    key = np.arange(len(s)) if conv.uses_tie_key else None
    w = rng.uniform(0.5, 2.0, size=len(off) - 1)
    ks = [1, 3, None]
    scorer = NDCGScorer(y, off, ks, convention=conv, weights=w)
    nd, num, den = scorer.summands(s, tie_key=key)
    np.testing.assert_array_equal(nd, scorer.ndcg(s, tie_key=key))

    def fsums(x):
        return [math.fsum(x[:, j]) for j in range(x.shape[1])]

    try:
        expected = scorer.mean(s, tie_key=key)
    except ValueError as err:          # xgboost's above_one="check" on a mean above 1
        with pytest.raises(ValueError, match=str(err)[:30]):
            scorer.finish(fsums(num), fsums(den))
        return
    np.testing.assert_array_equal(scorer.finish(fsums(num), fsums(den)), expected)
    np.testing.assert_array_equal(scorer.finish(fsums(num[::-1]), fsums(den[::-1])), expected)
    np.testing.assert_array_equal(aggregate(num, den, conv, False), expected)
    half = 15
    parts = [(NDCGScorer(y[: off[half]], off[: half + 1], ks, convention=conv, weights=w[:half]),
              s[: off[half]], None if key is None else key[: off[half]]),
             (NDCGScorer(y[off[half]:], off[half:] - off[half], ks, convention=conv, weights=w[half:]),
              s[off[half]:], None if key is None else key[off[half]:])]
    terms = [p.summands(sc, tie_key=kk) for p, sc, kk in parts]
    num2 = fsums(np.concatenate([t[1] for t in terms]))
    den2 = fsums(np.concatenate([t[2] for t in terms]))
    np.testing.assert_array_equal(scorer.finish(num2, den2), expected)


def test_output_shapes_and_column_order(rng):
    s, y, off = make_batch(rng, n_queries=7)
    assert fastndcg.ndcg(s, y, off).shape == (7,)
    assert fastndcg.ndcg(s, y, off, 3).shape == (7,)
    assert fastndcg.ndcg(s, y, off, [3]).shape == (7, 1)
    many = fastndcg.ndcg(s, y, off, [5, 1, 5, None])
    assert many.shape == (7, 4)
    np.testing.assert_array_equal(many[:, 0], many[:, 2])
    np.testing.assert_array_equal(many[:, 1], fastndcg.ndcg(s, y, off, 1))
    np.testing.assert_array_equal(many[:, 3], fastndcg.ndcg(s, y, off))
    assert isinstance(fastndcg.mean_ndcg(s, y, off, 3), float)
    assert fastndcg.mean_ndcg(s, y, off, [3, 1]).shape == (2,)


def test_no_queries_and_no_documents():
    assert fastndcg.ndcg(np.zeros(0), np.zeros(0, dtype=int), [0], [1, 2]).shape == (0, 2)
    got = fastndcg.ndcg(np.zeros(0), np.zeros(0, dtype=int), [0, 0, 0], 3)
    np.testing.assert_array_equal(got, [0.0, 0.0])
    assert np.isnan(fastndcg.mean_ndcg(np.zeros(0), np.zeros(0, dtype=int), [0], 3))


def test_external_ideal_dcg(rng):
    s, y, off = make_batch(rng, n_queries=8)
    nq = len(off) - 1
    ideal_1d = rng.random(nq) * 10 + 1
    got = fastndcg.ndcg(s, y, off, [1, 3], ideal_dcg=ideal_1d)
    assert_same(got, reference.ndcg(s, y, off, [1, 3], None, ideal_dcg_values=ideal_1d))
    ideal_2d = rng.random((nq, 3)) * 10 + 1
    ideal_2d[:, 2] = ideal_2d[:, 0]           # k=3 twice: one ideal for it
    got = fastndcg.ndcg(s, y, off, [3, 1, 3], ideal_dcg=ideal_2d)
    assert_same(got[:, 0], fastndcg.dcg(s, y, off, 3) / ideal_2d[:, 0])
    assert_same(got[:, 1], fastndcg.dcg(s, y, off, 1) / ideal_2d[:, 1])
    assert_same(got[:, 2], got[:, 0])
    assert_same(got, reference.ndcg(s, y, off, [3, 1, 3], None, ideal_dcg_values=ideal_2d))
    ideal_2d[0, 2] += 1.0                     # two ideals for one cutoff: an error, not the first one
    with pytest.raises(ValueError, match="columns 0 and 2 are for the same cutoff but differ"):
        fastndcg.ndcg(s, y, off, [3, 1, 3], ideal_dcg=ideal_2d)


def test_external_ideal_labels(rng):
    s, y, off = make_batch(rng, n_queries=8)
    _, iy, ioff = make_batch(rng, n_queries=8, max_docs=10)
    for conv in (Convention(gain="linear"), Convention(ideal="full")):
        got = fastndcg.ndcg(s, y, off, [1, 4, None], convention=conv, ideal_labels=iy, ideal_offsets=ioff)
        exp = reference.ndcg(s, y, off, [1, 4, None], conv, ideal_labels=iy, ideal_offsets=ioff)
        assert_same(got, exp)


def test_float32_precision_makes_close_scores_tie():
    s = np.array([1.0, 1.0 + 1e-12])
    y = [1, 0]
    # Natively the second doc ranks first; rounded to float32 they tie and input order wins.
    assert fastndcg.ndcg(s, y, [0, 2], 1)[0] == 0.0
    assert fastndcg.ndcg(s, y, [0, 2], 1, convention=Convention(score_precision="float32"))[0] == 1.0


def test_negative_zero_ties_with_zero():
    s = np.array([-0.0, 0.0])
    assert fastndcg.ndcg(s, [1, 0], [0, 2], 1)[0] == 1.0
    assert fastndcg.ndcg(s, [0, 1], [0, 2], 1)[0] == 0.0


# ------------------------------------------------------------------------------------ peers


def _dense(s, y, off):
    sizes = np.diff(off)
    n = int(sizes[0])
    assert (sizes == n).all()
    return np.asarray(y, dtype=float).reshape(-1, n), np.asarray(s, dtype=float).reshape(-1, n)


@pytest.mark.peers
@pytest.mark.parametrize("k", [None, 1, 3, 7, 50])
def test_sklearn_ndcg_score(rng, k):
    ndcg_score = require("sklearn.metrics").ndcg_score

    n_q, n = 40, 12
    off = np.arange(0, (n_q + 1) * n, n)
    y = rng.integers(0, 4, size=n_q * n).astype(float)
    conv = Convention(gain="linear", ties="average")
    # tie-free: both ignore_ties settings agree with ours
    s = rng.normal(size=n_q * n)
    Y, S = _dense(s, y, off)
    ours = fastndcg.ndcg(s, y, off, k, convention=conv)
    for ignore_ties in (False, True):
        per_row = [ndcg_score(Y[i:i + 1], S[i:i + 1], k=k, ignore_ties=ignore_ties) for i in range(n_q)]
        np.testing.assert_allclose(ours, per_row, rtol=0, atol=1e-12)
    assert fastndcg.mean_ndcg(s, y, off, k, convention=conv) == pytest.approx(ndcg_score(Y, S, k=k), abs=1e-12)
    # ties: tie-averaged
    s = rng.integers(0, 3, size=n_q * n).astype(float)
    Y, S = _dense(s, y, off)
    per_row = [ndcg_score(Y[i:i + 1], S[i:i + 1], k=k) for i in range(n_q)]
    np.testing.assert_allclose(fastndcg.ndcg(s, y, off, k, convention=conv), per_row, rtol=0, atol=1e-12)
    w = rng.random(n_q)
    assert fastndcg.mean_ndcg(s, y, off, k, convention=conv, weights=w) == pytest.approx(
        ndcg_score(Y, S, k=k, sample_weight=w), abs=1e-12)


def test_mean_does_not_depend_on_other_cutoffs():
    # Regression: summing a 2-D array down axis 0 differs in the last bit from
    # the 1-D sum of a column (it did on most of these small batches).
    rng = np.random.default_rng(1)
    for _ in range(100):
        n_queries = int(rng.integers(9, 60))
        offsets = np.concatenate([[0], np.cumsum(rng.integers(1, 30, n_queries))])
        s, y = rng.random(offsets[-1]), rng.integers(0, 5, offsets[-1])
        for conv in (Convention(), Convention(aggregation="ratio")):
            together = fastndcg.mean_ndcg(s, y, offsets, [10, None, 1], convention=conv)
            assert together[1] == fastndcg.mean_ndcg(s, y, offsets, None, convention=conv)
            assert together[0] == fastndcg.mean_ndcg(s, y, offsets, 10, convention=conv)


def test_jk_discount_with_base_2_is_letor_bit_for_bit(rng):
    """Jarvelin and Kekalainen's discount is a parameter of the log base; b = 2 is LETOR's."""
    s, y, off = make_batch(rng, n_queries=60, max_docs=40, n_score_values=5, n_labels=3)
    for k in (None, 1, 2, 3, 10, [1, 5, None]):
        letor = fastndcg.ndcg(s, y, off, k, convention=Convention(discount="letor"))
        jk2 = fastndcg.ndcg(s, y, off, k, convention=Convention(discount="jk", discount_base=2))
        assert letor.tobytes() == jk2.tobytes()
    conv10 = Convention(discount="jk", discount_base=10)
    d10 = fastndcg.measures._ndcg.discount_table(conv10, 12)
    # 1 before rank b = 10 (and at it: log_10(10) = 1), then 1/log_10(r), as the reference computes it
    assert d10[:10].tolist() == [1.0] * 10
    assert d10[10:12].tolist() == [reference_ndcg.discount_of(r, conv10) for r in (11, 12)]
    assert d10[10] == pytest.approx(1.0 / math.log10(11), rel=1e-15)
    with pytest.raises(ValueError, match="discount_base must be a finite number > 1"):
        Convention(discount="jk", discount_base=1.0)
    with pytest.raises(ValueError, match="discount_base=10.0 applies to discount='jk' only"):
        Convention(discount="log2", discount_base=10)


# ----------------------------------------------------------------------------- the AVX2 path


def _simd_batch(rng, n_queries=24):
    sizes = rng.integers(0, 260, n_queries)
    sizes[:4] = (0, 17, 21, 65)                  # empty, at the thresholds, past one 64-bit mask
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(off[-1])
    kinds = rng.integers(0, 5, n_queries)
    parts = []
    for q in range(n_queries):
        m = int(sizes[q])
        if kinds[q] == 0:
            parts.append(rng.normal(size=m))
        elif kinds[q] == 1:
            parts.append(np.round(rng.normal(size=m), 1))            # many ties
        elif kinds[q] == 2:
            parts.append(rng.integers(0, 2, m) * 1.0)                # two levels
        elif kinds[q] == 3:
            parts.append(np.where(rng.random(m) < 0.5, 0.0, -0.0))   # signed zeros tie
        else:
            parts.append(-np.arange(m, dtype=np.float64))            # already ranked
    return np.concatenate(parts), off


def test_avx2_top_k_and_label_count_give_the_same_bits(rng):
    # The NDCG kernel's AVX2 path (top-k selection of float64 scores, one-pass
    # label screen and count of int32 labels) against the portable path, forced
    # with simd_level(0): same bits at every k, thread count and label range.
    from fastndcg._core import _ndcg
    if _ndcg.simd_level(1) != 1:
        _ndcg.simd_level(-1)
        pytest.skip("this CPU has no AVX2: only the portable path can run")
    s, off = _simd_batch(rng)
    n = s.shape[0]
    labels = {"int32": rng.integers(0, 5, n).astype(np.int32),
              "int32 >= 8": rng.integers(0, 12, n).astype(np.int32),
              "int64": rng.integers(0, 5, n)}
    convs = [Convention(), Convention(gain="linear"),
             Convention(gain=(0.0, 1.0, 3.0, 7.0, 15.0), unknown_label="zero")]
    ks = [1, 2, 3, 5, 9, 10, 12, 20, 32, 33, [1, 3, 5, 10, 20], None]
    try:
        out = {}
        for level in (0, 1):
            assert _ndcg.simd_level(level) == level
            res = []
            for y in labels.values():
                for conv in convs:
                    for k in ks:
                        res.append(fastndcg.ndcg(s, y, off, k, convention=conv, n_threads=1 + level))
                        res.append(np.asarray(fastndcg.mean_ndcg(s, y, off, k, convention=conv)))
            out[level] = res
        for a, b in zip(out[0], out[1]):
            assert a.tobytes() == b.tobytes()
        # and a bad int32 label, a NaN or an infinite score (screened by the
        # selection's own pass on the AVX2 path) are reported the same way
        y = labels["int32"].copy()
        y[int(off[3]) + 40] = -3
        bad_s = s.copy()
        bad_s[int(off[3]) + 7] = np.nan
        inf_s = s.copy()
        inf_s[int(off[2]) + 20] = -np.inf
        for args, what in (((s, y), "-3"), ((bad_s, labels["int32"]), "nan"), ((inf_s, labels["int32"]), "inf"),
                           ((bad_s, y), "nan")):
            msgs = []
            for level in (0, 1):
                _ndcg.simd_level(level)
                with pytest.raises(ValueError) as err:
                    fastndcg.ndcg(args[0], args[1], off, 10)
                msgs.append(str(err.value))
            assert msgs[0] == msgs[1] and what in msgs[0]
    finally:
        _ndcg.simd_level(-1)


def test_no_avx2_environment_variable_forces_the_portable_top_k(monkeypatch):
    # FASTNDCG_NO_AVX2=1 forces the portable path, as it does for LambdaMART's kernels.
    from fastndcg._core import _ndcg
    try:
        monkeypatch.setenv("FASTNDCG_NO_AVX2", "1")
        assert _ndcg.simd_level(-1) == 0 and _ndcg.simd_level(1) == 0
        monkeypatch.setenv("FASTNDCG_NO_AVX2", "0")
        assert _ndcg.simd_level(-1) in (0, 1)
    finally:
        monkeypatch.delenv("FASTNDCG_NO_AVX2", raising=False)
        _ndcg.simd_level(-1)
