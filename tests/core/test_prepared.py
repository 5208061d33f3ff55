"""The prepared-queries layer (issue 13): one aggregation, checks inside the
kernels, errors that name the argument at fault, the thread policy, coalesced
streaming, and the same bits from every front-end."""
import io
import json
import math
from contextlib import redirect_stderr, redirect_stdout

import numpy as np

from fastndcg.measures._aligned import aligned_mean_ndcg
import pytest

import fastndcg
from fastndcg import Convention, NDCGScorer, reference
from fastndcg import compare
from fastndcg.stream import frame_mean_ndcg
import fastndcg.io as readers
from fastndcg.stream import Chunk
from fastndcg.stream._chunks import NDCGAccumulator, evaluate_chunks
from fastndcg.measures._ndcg import ndcg_and_mean
from fastndcg._core._exact import ExactSum, column_sums, exact_sum
from fastndcg._core.prepared import aggregate
from conftest import require, make_batch

SKIP = Convention(empty="skip", gain="linear", name="skip")


def weighted_batch(seed=3):
    rng = np.random.default_rng(seed)
    s, y, off = make_batch(rng, n_queries=60, max_docs=40, p_empty_query=0.1, p_all_zero=0.2)
    w = rng.uniform(0.25, 3.0, size=len(off) - 1)
    return s, y, off, w


# ----------------------------------------------------------------------------- one aggregation


@pytest.mark.peers
def test_means_are_bit_identical_across_front_ends():
    """mean_ndcg, NDCGScorer.mean/evaluate, the summands, ndcg_and_mean,
    streaming (one query per chunk, in any order, either keep mode), compare
    and the DataFrame front-end give the same float, with weights and skipped
    queries (empty="skip" leaves the all-zero queries out)."""
    s, y, off, w = weighted_batch()
    ks = [1, 3, 10, None]
    want = fastndcg.mean_ndcg(s, y, off, ks, convention=SKIP, weights=w)
    assert np.isnan(fastndcg.ndcg(s, y, off, 3, convention=SKIP)).any()      # some queries skipped
    scorer = NDCGScorer(y, off, ks, convention=SKIP, weights=w)
    got = {"NDCGScorer.mean": scorer.mean(s),
           "NDCGScorer.evaluate": scorer.evaluate(s)[1],
           "ndcg_and_mean": ndcg_and_mean(s, y, off, ks, convention=SKIP, weights=w)[1],
           "summands": aggregate(*scorer.summands(s)[1:], SKIP, False)}
    nq = len(off) - 1
    chunks = [Chunk(s[off[q]:off[q + 1]], y[off[q]:off[q + 1]], np.array([0, off[q + 1] - off[q]]),
                    weights=w[q:q + 1]) for q in range(nq)]
    for keep in ("queries", "sums"):
        got[f"stream keep={keep}"] = evaluate_chunks(chunks, ks, convention=SKIP, keep=keep).mean
        got[f"stream reversed keep={keep}"] = evaluate_chunks(chunks[::-1], ks, convention=SKIP, keep=keep).mean
        acc = NDCGAccumulator(ks, convention=SKIP, keep=keep)
        for ch in chunks:
            acc.add(ch)
        got[f"NDCGAccumulator.add keep={keep}"] = acc.result().mean
    cmp = compare(s, y, off, k=ks, presets=[SKIP], weights=w)
    got["compare"] = cmp.mean[0, cmp.presets.index("skip")]
    df = frames_frame(s, y, off, w)
    got["frames"] = np.array(list(frame_mean_ndcg(df, ks, convention=SKIP, weight="w").values()))
    for name, value in got.items():
        np.testing.assert_array_equal(value, want, err_msg=name)


def frames_frame(s, y, off, w):
    pd = require("pandas")

    sizes = np.diff(off)
    q = np.repeat(np.arange(len(sizes)), sizes)
    return pd.DataFrame({"qid": q, "label": y, "score": s, "w": np.repeat(w, sizes)})


def test_eval_paths_are_bit_identical(tmp_path):
    """fastndcg eval on TREC files (in memory and --stream) and on SVMlight data
    + predictions prints the aggregate of the API on the same data, bit for
    bit (JSON carries the full float)."""
    from fastndcg.cli import main

    rng = np.random.default_rng(5)
    s, y, off = make_batch(rng, n_queries=40, max_docs=30, p_all_zero=0.25)
    s = s + rng.integers(0, 3, len(s)) * 1e-3            # some ties remain
    nq = len(off) - 1
    qrels, run, data, pred = (tmp_path / n for n in ("qrels", "run", "data.txt", "pred.txt"))
    with open(qrels, "w") as fq, open(run, "w") as fr, open(data, "w") as fd, open(pred, "w") as fp:
        for q in range(nq):
            for i in range(off[q], off[q + 1]):
                sc = repr(float(s[i]))
                fq.write(f"q{q} 0 d{i} {y[i]}\n")
                fr.write(f"q{q} Q0 d{i} 0 {sc} tag\n")
                fd.write(f"{y[i]} qid:{q} 1:{sc}\n")
                fp.write(f"{sc}\n")

    def eval_json(*args):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["eval", *args, "--format", "json", "-k", "3,10"])
        assert code == 0, err.getvalue()
        return json.loads(out.getvalue())["runs"][0]["mean"]

    for preset in ("gdeval", "trec_eval_cut", "standard"):
        aligned = readers.align_run(run, readers.read_qrels(qrels))
        want = aligned_mean_ndcg(aligned, [3, 10], convention=preset)
        for extra in ([], ["--stream"]):
            got = eval_json(str(qrels), str(run), "--preset", preset, *extra)
            assert [got["ndcg@3"], got["ndcg@10"]] == want.tolist(), (preset, extra)
    keep = off[1:] > off[:-1]                          # SVMlight cannot hold empty queries
    off_data = np.concatenate([[0], off[1:][keep]])
    for preset in ("standard", "letor4"):
        want = fastndcg.mean_ndcg(s, y, off_data, [3, 10], convention=preset)
        got = eval_json("--data", str(data), str(pred), "--preset", preset)
        assert [got["ndcg@3"], got["ndcg@10"]] == want.tolist(), preset


# ----------------------------------------------------------------------------- exact sums


def test_exact_sums_are_fsum():
    rng = np.random.default_rng(0)
    for t in range(300):
        n = int(rng.integers(0, 60))
        kind = t % 4
        if kind == 0:
            x = rng.random(n)
        elif kind == 1:
            x = rng.normal(size=n) * 10.0 ** rng.integers(-250, 250, n)
        elif kind == 2:
            x = np.tile([1.0, 1e100, 1.0, -1e100, 2.0 ** -1074], n // 5 + 1)[:n]
        else:
            x = (rng.random(n) - 0.5) * 2.0 ** rng.integers(-60, 60, n)
        want = math.fsum(x)
        assert exact_sum(np.ascontiguousarray(x)) == want
        m = np.ascontiguousarray(np.stack([x, x[::-1]], axis=1))
        for threads in (1, 2):
            np.testing.assert_array_equal(column_sums(m, threads), [want, want])
        parts = ExactSum(1)
        for piece in np.array_split(x, 3):
            other = ExactSum(1)
            other.add(piece.reshape(-1, 1))
            parts.add_partials(0, other.partials(0))
        assert parts.values()[0] == want
    # the half-way case fsum corrects: 1 + 2**-53 + 2**-105 rounds up
    assert exact_sum(np.array([1.0, 2.0 ** -53, 2.0 ** -105])) == math.fsum([1.0, 2.0 ** -53, 2.0 ** -105])
    big = rng.random(100_003)                        # many blocks, merged exactly
    assert column_sums(big.reshape(-1, 1).copy(), 2)[0] == math.fsum(big) == column_sums(big.reshape(-1, 1).copy(), 1)[0]


def test_mean_differs_from_pairwise_sum_only_by_exactness():
    # the aggregate is the correctly rounded mean of the terms
    s, y, off, w = weighted_batch(11)
    nd = fastndcg.ndcg(s, y, off, 5)
    assert fastndcg.mean_ndcg(s, y, off, 5) == math.fsum(nd) / len(nd)
    got = fastndcg.mean_ndcg(s, y, off, 5, weights=w)
    assert got == math.fsum(w * nd) / math.fsum(w)


# ----------------------------------------------------------------------------- checks in the kernels


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bad_scores_are_found_in_the_kernel_pass(dtype):
    s, y, off, _ = weighted_batch()
    s = s.astype(dtype)
    q = 7
    bad_row = int(off[q]) + 1
    s[bad_row] = np.nan
    s[int(off[20])] = np.inf                           # a later query too: the first one is named
    msg = rf"scores must be finite; got scores\[{bad_row}\]=nan \(query {q}, row 1 of"
    for call in (lambda: fastndcg.ndcg(s, y, off, 5), lambda: fastndcg.mean_ndcg(s, y, off, [1, 5]),
                 lambda: NDCGScorer(y, off, 5).mean(s), lambda: fastndcg.dcg(s, y, off, 3),
                 lambda: NDCGScorer(y, off, 5).evaluate(s)):
        with pytest.raises(ValueError, match=msg):
            call()


def test_score_errors_come_before_label_errors():
    s, y, off, _ = weighted_batch()
    y = y.copy()
    y[int(off[3])] = -1                                # a bad label in an early query
    s = s.copy()
    s[int(off[40])] = np.nan                           # and a bad score in a later one
    with pytest.raises(ValueError, match=r"scores must be finite.*query 40"):
        fastndcg.ndcg(s, y, off, 5)
    s[int(off[40])] = 0.0
    with pytest.raises(ValueError, match=r"labels must be non-negative integers .*labels\[\d+\]=-1 \(query 3, row 0"):
        fastndcg.ndcg(s, y, off, 5)
    with pytest.raises(ValueError, match=r"labels\[\d+\]=-1 \(query 3, row 0"):
        NDCGScorer(y, off, 5)


def test_length_mismatch_names_the_argument_at_fault():
    y = np.array([1, 0, 2, 0, 1, 3])
    off = np.array([0, 3, 6])
    # scores shorter than labels (which the offsets agree with): the scores are at fault
    with pytest.raises(ValueError, match=r"scores must have the same length as labels \(6\); got length 5"):
        fastndcg.ndcg(np.zeros(5), y, off)
    with pytest.raises(ValueError, match=r"scores must have the same length as labels \(6\); got length 5"):
        fastndcg.mean_ndcg(np.zeros(5), y, off, weights=[1, 1])
    # labels shorter than scores (which the offsets agree with): the labels are
    with pytest.raises(ValueError, match=r"labels must have the same length as scores \(6\); got length 5"):
        fastndcg.ndcg(np.zeros(6), y[:5], off)
    # both agree, the offsets do not: the offsets are
    with pytest.raises(ValueError, match=r"offsets must end at the number of documents \(6\); got offsets\[-1\]=7"):
        fastndcg.ndcg(np.zeros(6), y, [0, 3, 7])


def test_kernel_checks_every_label_rule():
    off = np.array([0, 2, 4])
    s = np.array([0.5, 0.25, 1.0, 0.0])
    cases = [
        (np.array([1, 0, 0, 1024]), None, r"labels must be <= 1023 .*labels\[3\]=1024 \(query 1"),
        (np.array([1.0, 0.0, 2.5, 1.0]), None, r"labels\[2\]=2\.5 \(query 1"),
        (np.array([1.0, np.inf, 2.0, 1.0]), Convention(gain="linear"), r"finite and >= 0; got labels\[1\]=inf"),
        (np.array([1, 0, 5, 1]), Convention(gain={0: 0.0, 1: 1.0, 3: 7.0}), r"labels\[2\]=5 is outside the gain table"),
        (np.array([1, 0, 2, 1]), Convention(gain={0: 0.0, 1: 1.0, 3: 7.0}), r"labels\[2\]=2 is outside the gain table \(labels \[0, 1, 3\]"),
    ]
    for y, conv, msg in cases:
        with pytest.raises(ValueError, match=msg):
            fastndcg.ndcg(s, y, off, convention=conv)
        with pytest.raises(ValueError, match=msg):
            NDCGScorer(y, off, convention=conv)
    # unknown_label="zero": labels above or inside holes of the table have gain 0
    zero = Convention(gain={0: 0.0, 1: 1.0, 3: 7.0}, unknown_label="zero")
    y = np.array([1, 2, 5, 3])
    np.testing.assert_array_equal(fastndcg.ndcg(s, y, off, convention=zero), reference.ndcg(s, y, off, convention=zero))


# ----------------------------------------------------------------------------- one-shot == prepared


@pytest.mark.parametrize("preset", ["standard", "lightgbm", "letor4", "sklearn", "xgboost", "trec_eval_cut"])
def test_one_shot_fused_equals_prepared(preset):
    conv = fastndcg.get_preset(preset)
    rng = np.random.default_rng(1)
    s, y, off = make_batch(rng, n_queries=80, max_docs=60)
    y = np.minimum(y, 3)
    key = rng.permutation(len(s)) if conv.uses_tie_key else None
    ks = [1, 3, 10, None]
    one = fastndcg.ndcg(s, y, off, ks, convention=conv, tie_key=key)
    scorer = NDCGScorer(y, off, ks, convention=conv, tie_key=key)
    assert one.tobytes() == scorer.ndcg(s).tobytes()
    assert one.tobytes() == NDCGScorer(y, off, ks, convention=conv).ndcg(s, tie_key=key).tobytes()


# ----------------------------------------------------------------------------- streaming


def test_coalesced_stream_names_the_chunk_at_fault():
    s, y, off, _ = weighted_batch()
    nq = len(off) - 1
    chunks = [(s[off[q]:off[q + 1]].copy(), y[off[q]:off[q + 1]], np.array([0, off[q + 1] - off[q]]))
              for q in range(nq)]
    bad = next(q for q in range(10, nq) if off[q + 1] > off[q])
    chunks[bad][0][0] = np.nan
    with pytest.raises(ValueError, match=rf"^chunk {bad} \(queries from number {bad}.*scores must be finite"):
        evaluate_chunks(chunks, 5)
    # a malformed chunk cannot be hidden by its neighbours' lengths
    chunks[bad][0][0] = 0.0
    s2, y2, o2 = chunks[bad]
    chunks[bad] = (s2, y2, np.array([1, len(s2)]))
    with pytest.raises(ValueError, match=rf"^chunk {bad} .*offsets must start at 0"):
        evaluate_chunks(chunks, 5)


def test_coalesced_stream_keeps_counts():
    s, y, off, _ = weighted_batch()
    nq = len(off) - 1
    chunks = [(s[off[q]:off[q + 1]], y[off[q]:off[q + 1]], np.array([0, off[q + 1] - off[q]])) for q in range(nq)]
    res = evaluate_chunks(chunks, [1, 5])
    assert res.n_chunks == nq and res.n_queries == nq and res.n_rows == len(s)
    assert res.max_chunk_rows == int(np.diff(off).max())
    np.testing.assert_array_equal(res.ndcg, fastndcg.ndcg(s, y, off, [1, 5]))


# ----------------------------------------------------------------------------- a missing tie_key (issue 35)

@pytest.mark.parametrize("convention, start", [
    ("trec_eval", "the trec_eval preset breaks ties by docno (ties='key_desc' needs a tie_key array): "),
    ("gdeval", "the gdeval preset breaks ties by docno (ties='key_desc' needs a tie_key array): "),
    (Convention(ties="key"), "ties='key' needs a tie_key array: "),
    # renamed, a preset is told the same advice under its own name (the name is a label, issue 34)
    (fastndcg.get_preset("trec_eval").replace(name="mine"),
     "the mine preset breaks ties by docno (ties='key_desc' needs a tie_key array): "),
])
def test_missing_tie_key_says_what_to_pass_at_every_door(convention, start):
    s, y, off = np.array([0.5, 0.5, 0.2]), np.array([1, 0, 2]), np.array([0, 3])
    doors = [lambda: fastndcg.ndcg(s, y, off, convention=convention),
             lambda: fastndcg.mean_ndcg(s, y, off, convention=convention),
             lambda: NDCGScorer(y, off, convention=convention).ndcg(s),
             lambda: NDCGScorer(y, off, convention=convention).mean(s)]
    for door in doors:
        with pytest.raises(ValueError) as err:
            door()
        text = str(err.value)
        assert text.startswith(start), text
        assert "pass tie_key=... (one value per document, e.g. docno ranks" in text
        assert text.endswith('or use .replace(ties="stable") to keep the input order')
