"""Presets against the real tools, on seeded random CSR batches.

Every batch has ties (or is tie-free where the tool's tie order is not a rule),
queries with zero documents, single-document queries, all-zero-label queries,
short queries (n < k) and cutoffs beyond every query. Each test states what a
tool cannot express (e.g. a query with zero documents) and checks the rest.

Tolerance: 1e-12 everywhere except torchmetrics (float32 arithmetic; see its
test). XGBoost and LightGBM read float32 predictions / weights; the presets
round the same values, so their remaining difference is the summation order.
The largest differences measured are recorded in docs/presets.md.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fastndcg
from conftest import require

pytestmark = [pytest.mark.peers]

lgb = require("lightgbm")
pytrec_eval = require("pytrec_eval")
xgb = require("xgboost")
Qrels = require("ranx").Qrels
Run = require("ranx").Run
ranx_evaluate = require("ranx").evaluate
ndcg_score = require("sklearn.metrics").ndcg_score

ATOL = 1e-12
K = [1, 2, 3, 5, 10, 40]          # 40 > every query (k > n)


def make_case(seed: int, ties: bool, n_queries: int = 36, dtype=np.float64, max_docs: int = 25,
              sizes=None):
    """(scores, labels, offsets): sizes 0, 1, 2 and random; labels 0..4 with all-zero queries.

    ``ties``: scores from 4 values (many ties); else distinct within a query
    (and exact in float32, so float32 tools see no new ties)."""
    rng = np.random.default_rng(seed)
    if sizes is None:
        sizes = rng.integers(2, max_docs + 1, size=n_queries)
        sizes[:4] = [0, 1, 2, 0]
        sizes[4] = 1
    sizes = np.asarray(sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offsets[-1])
    labels = rng.integers(0, 5, size=n)
    for q in (5, 6, 2):                     # all-zero-label queries (q 2 has two docs)
        labels[offsets[q]:offsets[q + 1]] = 0
    if ties:
        scores = rng.integers(0, 4, size=n) / 2.0
    else:
        scores = np.empty(n)
        for q in range(len(sizes)):
            a, b = offsets[q], offsets[q + 1]
            scores[a:b] = rng.permutation(b - a) / 4.0 - 3.0
    return scores.astype(dtype), labels, offsets


def near_ties(seed: int):
    """Doubles closer than float32 precision: distinct in float64, tied in float32."""
    s, y, off = make_case(seed, ties=True)
    rng = np.random.default_rng(seed + 1)
    return s + rng.integers(0, 3, size=s.size) * 1e-12, y, off


def queries(offsets):
    return [(int(offsets[q]), int(offsets[q + 1])) for q in range(len(offsets) - 1)]


def report(name, per_query_diff, mean_diff):
    """Largest differences, printed for docs/presets.md (pytest -s shows them)."""
    print(f"\n[{name}] max |ours - tool| per query {per_query_diff:.3g}, mean {mean_diff:.3g}")


# ----------------------------------------------------------------------------- scikit-learn


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [None] + K)
def test_sklearn(seed, k):
    """ndcg_score per row (n >= 2; sklearn rejects one document and cannot hold zero)
    and its weighted mean over equal-length rows."""
    sizes = np.random.default_rng(seed).choice([2, 3, 5, 8], size=48)
    sizes[:3] = [1, 0, 1]                      # ours only; sklearn cannot take these rows
    worst = 0.0
    for ties in (False, True):
        s, y, off = make_case(seed, ties, sizes=sizes)
        ours = fastndcg.ndcg(s, y, off, k, convention="sklearn")
        assert ours[1] == 0.0 and ours[0] == (1.0 if y[off[0]] > 0 else 0.0)
        settings = (False, True) if not ties else (False,)   # ignore_ties: numpy's unstable argsort
        for q, (a, b) in enumerate(queries(off)):
            if b - a < 2:
                continue
            for ignore_ties in settings:
                theirs = ndcg_score(y[None, a:b], s[None, a:b], k=k, ignore_ties=ignore_ties)
                worst = max(worst, abs(ours[q] - theirs))
                assert ours[q] == pytest.approx(theirs, abs=ATOL), (q, ignore_ties)
        w = np.random.default_rng(seed + 7).random(len(sizes)) + 0.1
        mean_worst = 0.0
        for n in (2, 3, 5, 8):
            rows = np.flatnonzero(np.diff(off) == n)
            Y = np.stack([y[off[q]:off[q + 1]] for q in rows])
            S = np.stack([s[off[q]:off[q + 1]] for q in rows])
            theirs = ndcg_score(Y, S, k=k, sample_weight=w[rows])
            mask = np.zeros(len(sizes))
            mask[rows] = w[rows]
            mine = fastndcg.mean_ndcg(s, y, off, k, convention="sklearn", weights=mask)
            mean_worst = max(mean_worst, abs(mine - theirs))
            assert mine == pytest.approx(theirs, abs=ATOL)
    report(f"sklearn k={k}", worst, mean_worst)


# ----------------------------------------------------------------------------- pytrec_eval


def _trec_dicts(s, y, off):
    qrels, run = {}, {}
    for q, (a, b) in enumerate(queries(off)):
        qrels[f"q{q:03d}"] = {f"d{i:04d}": int(y[i]) for i in range(a, b)}
        run[f"q{q:03d}"] = {f"d{i:04d}": float(s[i]) for i in range(a, b)}
    return qrels, run


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("data", ["ties", "tie_free", "near_ties"])
def test_pytrec_eval(data, dtype):
    """pytrec_eval ndcg and ndcg_cut.k; docno = d<row>, so tie_key = row, descending.
    A query with no judged and no retrieved document is left out of pytrec_eval's
    output: our mean leaves it out with weight 0."""
    if data == "near_ties":
        s, y, off = near_ties(3)
        # the float32 rounding matters here: the float64 trec_eval 10 rule differs
        assert not np.array_equal(fastndcg.ndcg(s, y, off, 5, convention="trec_eval_cut", tie_key=np.arange(s.size)),
                                  fastndcg.ndcg(s, y, off, 5, convention="pytrec_eval_cut", tie_key=np.arange(s.size)))
    else:
        s, y, off = make_case(4, ties=data == "ties")
    s = s.astype(dtype)                   # float32 near-ties: tied before any rounding
    qrels, run = _trec_dicts(s, y, off)
    cuts = [1, 2, 3, 5, 10, 40]
    result = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut." + ",".join(map(str, cuts))}).evaluate(run)
    sizes = np.diff(off)
    assert sorted(result) == [f"q{q:03d}" for q in np.flatnonzero(sizes > 0)]
    key = np.arange(s.size)
    worst = mean_worst = 0.0
    for name, measure, ks in (("pytrec_eval", "ndcg", [None]),
                              ("pytrec_eval_cut", "ndcg_cut_{}", cuts)):
        ours = fastndcg.ndcg(s, y, off, ks, convention=name, tie_key=key)
        means = fastndcg.mean_ndcg(s, y, off, ks, convention=name, tie_key=key, weights=sizes > 0)
        for j, k in enumerate(ks):
            m = measure.format(k)
            theirs = np.array([result[qid][m] for qid in sorted(result)])
            mine = ours[sizes > 0, j]
            worst = max(worst, float(np.max(np.abs(mine - theirs))))
            np.testing.assert_allclose(mine, theirs, rtol=0, atol=ATOL, err_msg=m)
            mean_worst = max(mean_worst, abs(means[j] - float(np.mean(theirs))))
            assert means[j] == pytest.approx(float(np.mean(theirs)), abs=ATOL)
    report(f"pytrec_eval {data}", worst, mean_worst)


# ----------------------------------------------------------------------------- LightGBM


def _lgb_booster():
    X = np.zeros((2, 1))
    ref = lgb.Dataset(X, np.array([1.0, 0.0]), group=[2], params={"verbose": -1}).construct()
    return ref, lambda eval_at: lgb.Booster({"objective": "lambdarank", "metric": "ndcg", "eval_at": eval_at,
                                             "verbose": -1, "num_threads": 1}, ref)


def _lgb_eval(s, y, off, eval_at, weight=None):
    """LightGBM's ndcg@k of the scores given as init_score (no tree is trained)."""
    ref, make = _lgb_booster()
    booster = make(eval_at)
    valid = lgb.Dataset(np.zeros((y.size, 1)), y.astype(np.float64), group=np.diff(off), init_score=s,
                        weight=weight, reference=ref)
    booster.add_valid(valid, "v")
    return np.array([r[2] for r in booster.eval_valid()])


def lightgbm_query_weights(row_weights, off):
    """LightGBM's query weight: the row weights summed in float32, divided by n in float32."""
    out = []
    for a, b in queries(off):
        total = np.float32(0.0)
        for w in row_weights[a:b].astype(np.float32):
            total = np.float32(total + w)
        out.append(np.float32(total / np.float32(b - a)))
    return np.array(out, dtype=np.float64)


@pytest.mark.parametrize("ties", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lightgbm(ties, dtype):
    s, y, off = make_case(5, ties, dtype=dtype)
    ours = fastndcg.ndcg(s, y, off, K, convention="lightgbm")
    worst = 0.0
    for q, (a, b) in enumerate(queries(off)):
        if a == b:            # a Dataset cannot have zero rows; the mean below covers such queries
            continue
        theirs = _lgb_eval(s[a:b], y[a:b], np.array([0, b - a]), K)
        worst = max(worst, float(np.max(np.abs(ours[q] - theirs))))
        np.testing.assert_allclose(ours[q], theirs, rtol=0, atol=ATOL, err_msg=f"query {q}")
    theirs = _lgb_eval(s, y, off, K)
    mine = fastndcg.mean_ndcg(s, y, off, K, convention="lightgbm")
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=ATOL)
    mean_worst = float(np.max(np.abs(mine - theirs)))
    # Row weights, constant within a query but not float32 numbers. A query with zero rows
    # has weight 0/0 = NaN in LightGBM (its result is NaN: see the next test), so drop those.
    keep = np.flatnonzero(np.diff(off) > 0)
    s2 = np.concatenate([s[off[q]:off[q + 1]] for q in keep])
    y2 = np.concatenate([y[off[q]:off[q + 1]] for q in keep])
    off2 = np.concatenate([[0], np.cumsum(np.diff(off)[keep])])
    qw = np.random.default_rng(6).uniform(0.5, 3.0, size=keep.size)
    row_w = np.repeat(qw, np.diff(off2))
    theirs = _lgb_eval(s2, y2, off2, K, weight=row_w)
    mine = fastndcg.mean_ndcg(s2, y2, off2, K, convention="lightgbm", weights=lightgbm_query_weights(row_w, off2))
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=ATOL)
    mean_worst = max(mean_worst, float(np.max(np.abs(mine - theirs))))
    report(f"lightgbm ties={ties} {np.dtype(dtype).name}", worst, mean_worst)


def test_lightgbm_weighted_quirks():
    """The empty query adds a bare 1 (the mean exceeds 1), weights are float32,
    and a query with zero rows makes the weighted metric NaN."""
    s, y, off = np.array([0.1, 0.2, 0.1, 0.2]), np.array([0, 0, 1, 0]), np.array([0, 2, 4])
    theirs = _lgb_eval(s, y, off, [1, 2], weight=np.array([0.1, 0.1, 1.0, 1.0]))
    mine = fastndcg.mean_ndcg(s, y, off, [1, 2], convention="lightgbm", weights=[0.1, 1.0])
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=ATOL)
    # conventions.md (observed): 1/1.1 with 0.1 in float32, and (1 + 1/log2 3)/1.1 > 1
    np.testing.assert_allclose(mine, [0.9090909078594082, 1.4826634103291971], rtol=0, atol=1e-15)
    exact = fastndcg.get_preset("lightgbm").replace(weight_precision="native", empty_weight="weighted")
    assert fastndcg.mean_ndcg(s, y, off, 2, convention=exact, weights=[0.1, 1.0]) == pytest.approx(0.6644815941558704, abs=1e-15)
    assert np.isnan(_lgb_eval(s, y, np.array([0, 0, 2, 4]), [1], weight=np.full(4, 2.0))).all()
    # (with weights all 1, LightGBM drops them and the metric is the unweighted one)
    assert _lgb_eval(s, y, np.array([0, 0, 2, 4]), [1], weight=np.ones(4))[0] == pytest.approx(2 / 3, abs=1e-15)


# ----------------------------------------------------------------------------- XGBoost


def _xgb_eval(s, y, off, metrics, weights=None):
    """XGBoost's metrics of the scores given as base_margin (no tree is trained).
    XGBoost prints 17 significant digits, which round-trip a double."""
    d = xgb.DMatrix(np.zeros((y.size, 1)), y.astype(np.float64))
    d.set_group(np.diff(off))
    d.set_base_margin(s)
    if weights is not None:
        d.set_weight(weights)
    params = {"objective": "rank:ndcg", "base_score": 0.0, "eval_metric": metrics, "nthread": 1}
    text = xgb.train(params, d, 0).eval(d)
    return np.array([float(item.split(":")[1]) for item in text.split("\t")[1:]])


def _xgb_metrics(minus):
    suffix = "-" if minus else ""
    return ["ndcg" + suffix] + [f"ndcg@{k}{suffix}" for k in K]


@pytest.mark.parametrize("ties", [True, False, "near"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_xgboost(ties, dtype):
    """ndcg (= ndcg@32), ndcg@k and the '-' variants; per query and the (weighted) mean."""
    s, y, off = near_ties(8) if ties == "near" else make_case(8, ties, max_docs=45)
    s = s.astype(dtype)
    if ties == "near" and dtype == np.float64:    # the float32 rounding is exercised
        native = fastndcg.get_preset("xgboost").replace(score_precision="native")
        assert not np.array_equal(fastndcg.ndcg(s, y, off, 3, convention="xgboost"),
                                  fastndcg.ndcg(s, y, off, 3, convention=native))
    if ties != "near":
        assert np.diff(off).max() > 32                # so that ndcg@32 differs from the whole list
    worst = mean_worst = 0.0
    for minus in (False, True):
        name = "xgboost_minus" if minus else "xgboost"
        ks = [None] + K
        ours = fastndcg.ndcg(s, y, off, ks, convention=name)
        for q, (a, b) in enumerate(queries(off)):
            if a == b:        # XGBoost would score this group alone as 1 (or 0); covered by the mean
                continue
            theirs = _xgb_eval(s[a:b], y[a:b], np.array([0, b - a]), _xgb_metrics(minus))
            worst = max(worst, float(np.max(np.abs(ours[q] - theirs))))
            np.testing.assert_allclose(ours[q], theirs, rtol=0, atol=ATOL, err_msg=f"query {q}")
        w = np.random.default_rng(9).uniform(0.9, 3.0, size=len(off) - 1)   # >= 0.9: mean stays <= 1
        for weights in (None, w):
            theirs = _xgb_eval(s, y, off, _xgb_metrics(minus), weights)
            mine = fastndcg.mean_ndcg(s, y, off, ks, convention=name, weights=weights)
            mean_worst = max(mean_worst, float(np.max(np.abs(mine - theirs))))
            np.testing.assert_allclose(mine, theirs, rtol=0, atol=ATOL, err_msg=f"{name} weights={weights is not None}")
    report(f"xgboost ties={ties} {np.dtype(dtype).name}", worst, mean_worst)


def test_xgboost_plain_ndcg_is_ndcg_at_32():
    """40 documents, the only relevant one at position 36 (conventions.md, observed)."""
    s = -np.arange(40.0)
    y = np.zeros(40, dtype=int)
    y[35] = 1
    off = np.array([0, 40])
    theirs = _xgb_eval(s, y, off, ["ndcg", "ndcg@40"])
    assert theirs[0] == 0.0 and theirs[1] == pytest.approx(0.19195872000656014, abs=1e-16)
    np.testing.assert_allclose(fastndcg.ndcg(s, y, off, [None, 40], convention="xgboost")[0], theirs, atol=ATOL)
    # without the default cutoff (XGBoost 1.x's whole list)
    assert fastndcg.ndcg(s, y, off, None, convention=fastndcg.get_preset("xgboost").replace(default_k=None))[0] > 0


def test_xgboost_unweighted_empty_queries_and_check():
    """Group weights (0.1, 1) with the first group empty: the empty group adds a bare 1
    and the float32 weight 0.1 divides (conventions.md: 0.90909090785940816). Weights
    (0.3, 0.3) push the mean above 1 + 1e-6: XGBoost aborts, the preset raises."""
    s, y, off = np.array([0.1, 0.2, 0.1, 0.2]), np.array([0, 0, 1, 0]), np.array([0, 2, 4])
    theirs = _xgb_eval(s, y, off, ["ndcg@1"], np.array([0.1, 1.0]))
    mine = fastndcg.mean_ndcg(s, y, off, 1, convention="xgboost", weights=[0.1, 1.0])
    assert mine == theirs[0] == pytest.approx(0.90909090785940816, abs=1e-16)
    with pytest.raises(xgb.core.XGBoostError, match="Invalid output score"):
        _xgb_eval(s, y, off, ["ndcg@1"], np.array([0.3, 0.3]))
    with pytest.raises(ValueError, match="above_one='check'"):
        fastndcg.mean_ndcg(s, y, off, 1, convention="xgboost", weights=[0.3, 0.3])
    clamped = fastndcg.get_preset("xgboost").replace(above_one="clamp")
    assert fastndcg.mean_ndcg(s, y, off, 1, convention=clamped, weights=[0.3, 0.3]) == 1.0


def test_xgboost_label_range():
    """Exponential gain for labels 0..31 only, as XGBoost."""
    s, off = np.array([0.5, 0.1]), np.array([0, 2])
    assert fastndcg.ndcg(s, np.array([31, 0]), off, 1, convention="xgboost")[0] == 1.0
    with pytest.raises(ValueError, match="32"):
        fastndcg.ndcg(s, np.array([32, 0]), off, 1, convention="xgboost")
    with pytest.raises(xgb.core.XGBoostError):
        _xgb_eval(s, np.array([32, 0]), off, ["ndcg@1"])


# ----------------------------------------------------------------------------- ranx


def _ranx(s, y, off, metrics):
    qrels, run = _trec_dicts(s, y, off)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # numba's type-safety warning on hashed doc ids
        out = ranx_evaluate(Qrels.from_dict(qrels), Run.from_dict(run), metrics, return_mean=False)
    return {m: np.asarray(out[m]) for m in metrics}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("ties", [False, "small"])
def test_ranx(ties, dtype):
    """ranx ndcg / ndcg_burges with Qrels/Run objects. Ties only in queries of at most
    15 documents ("small"), where numba's sort keeps insertion order; larger tied
    queries have no simple rule. Queries with zero documents score 0 in ranx too."""
    s, y, off = make_case(10, ties=bool(ties), max_docs=15 if ties else 25, dtype=dtype)
    metrics = [f"{m}@{k}" for m in ("ndcg", "ndcg_burges") for k in K] + ["ndcg", "ndcg_burges"]
    theirs = _ranx(s, y, off, metrics)
    worst = mean_worst = 0.0
    for preset, m in (("ranx", "ndcg"), ("ranx_burges", "ndcg_burges")):
        ours = fastndcg.ndcg(s, y, off, K + [None], convention=preset)
        means = fastndcg.mean_ndcg(s, y, off, K + [None], convention=preset)
        for j, k in enumerate(K + [None]):
            t = theirs[m if k is None else f"{m}@{k}"]
            worst = max(worst, float(np.max(np.abs(ours[:, j] - t))))
            np.testing.assert_allclose(ours[:, j], t, rtol=0, atol=ATOL, err_msg=f"{m}@{k}")
            mean_worst = max(mean_worst, abs(means[j] - float(np.mean(t))))
            assert means[j] == pytest.approx(float(np.mean(t)), abs=ATOL)
    report(f"ranx ties={ties}", worst, mean_worst)


# ----------------------------------------------------------------------------- trec_eval's own outputs


def _read_qrels(path):
    qrels = {}
    for line in open(path):
        if line.strip():
            topic, _, docno, rel = line.split()
            qrels.setdefault(topic, {})[docno] = int(rel)
    return qrels


def _read_run(path):
    run = {}
    for line in open(path):
        if line.strip():
            topic, _, docno, _, score = line.split()[:5]      # trailing text after the tag is allowed
            run.setdefault(topic, {})[docno] = float(score)
    return run


def _expected_ndcg_lines(path):
    """{(measure, topic): printed value} for ndcg and ndcg_cut_* lines."""
    out = {}
    for line in open(path):
        parts = [p.strip() for p in line.split("\t")]
        if len(parts) == 3 and (parts[0] == "ndcg" or parts[0].startswith("ndcg_cut_") or parts[0].startswith("ndcg_1=")):
            out[(parts[0], parts[1])] = parts[2]
    return out


def trec_eval_csr(qrels, run, complete=False, max_docs=None):
    """CSR arrays for trec_eval's rules, built here without fastndcg.io:
    the run's documents with their qrels level (unjudged or negative: 0), docno
    byte rank as tie_key (the presets break ties by it, descending), the qrels'
    levels as the external ideal, topics of run and qrels (``-c``: every qrels
    topic, a missing one with no documents), and ``-M`` applied after sorting."""
    topics = sorted(qrels) if complete else sorted(set(run) & set(qrels))
    docnos = sorted({d for t in topics for d in run.get(t, {})}, key=lambda d: d.encode())
    key_of = {d: i for i, d in enumerate(docnos)}
    scores, labels, keys, sizes, ideal, ideal_sizes = [], [], [], [], [], []
    for t in topics:
        docs = sorted(run.get(t, {}).items(), key=lambda item: (-item[1], [-b for b in item[0].encode()]))
        docs = docs[:max_docs] if max_docs else docs
        scores += [score for _, score in docs]
        labels += [max(qrels[t].get(d, 0), 0) for d, _ in docs]
        keys += [key_of[d] for d, _ in docs]
        sizes.append(len(docs))
        ideal += [max(level, 0) for level in qrels[t].values()]
        ideal_sizes.append(len(qrels[t]))
    offsets = lambda n: np.concatenate([[0], np.cumsum(n)]).astype(np.int64)
    return (topics, np.array(scores), np.array(labels), offsets(sizes), np.array(keys),
            np.array(ideal), offsets(ideal_sizes))


TREC_EVAL_TEST = [   # expected output, qrels, run, -c, -M (see ../shared/data/trec_eval-test/SOURCE.md)
    ("out.test.a", "qrels.test", "results.test", False, None),
    ("out.test.aq", "qrels.test", "results.test", False, None),
    ("out.test.aqc", "qrels.test", "results.trunc", True, None),
    ("out.test.aqcM", "qrels.test", "results.trunc", True, 100),
    ("out.test.aql", "qrels.rel_level", "results.test", False, None),   # -l2 does not touch ndcg
]
TREC_CUTS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]


@pytest.mark.parametrize("expected, qrels_file, run_file, complete, max_docs", TREC_EVAL_TEST)
def test_trec_eval_expected_outputs(shared_data, expected, qrels_file, run_file, complete, max_docs):
    """trec_eval 10.0's own expected outputs (ndcg, ndcg_cut_k per topic and all),
    through the Python API with the trec_eval / trec_eval_cut presets, at the
    printed precision (%.4f)."""
    base = shared_data / "trec_eval-test"
    want = _expected_ndcg_lines(base / expected)
    topics, s, y, off, key, iy, ioff = trec_eval_csr(_read_qrels(base / qrels_file), _read_run(base / run_file),
                                                     complete, max_docs)
    got = {}
    for preset, ks, names in (("trec_eval", [None], ["ndcg"]),
                              ("trec_eval_cut", TREC_CUTS, [f"ndcg_cut_{k}" for k in TREC_CUTS])):
        per_query = fastndcg.ndcg(s, y, off, ks, convention=preset, tie_key=key, ideal_labels=iy, ideal_offsets=ioff)
        means = fastndcg.mean_ndcg(s, y, off, ks, convention=preset, tie_key=key, ideal_labels=iy, ideal_offsets=ioff)
        for j, name in enumerate(names):
            got[(name, "all")] = f"{means[j]:.4f}"
            for q, t in enumerate(topics):
                got[(name, t)] = f"{per_query[q, j]:.4f}"
    if not any(t != "all" for _, t in want):         # out.test.a: only the "all" lines
        got = {key_: v for key_, v in got.items() if key_[1] == "all"}
    assert len(want) >= 10 and got == want


def test_trec_eval_custom_gains_expected_output(shared_data):
    """out.test.meas_params: -mndcg.1=3,2=9,4=4.5 (a gain table; level 3 keeps gain 3)
    and -mndcg_cut.10,20,23."""
    base = shared_data / "trec_eval-test"
    want = _expected_ndcg_lines(base / "out.test.meas_params")
    topics, s, y, off, key, iy, ioff = trec_eval_csr(_read_qrels(base / "qrels.test"), _read_run(base / "results.test"))
    gains = fastndcg.get_preset("trec_eval").replace(gain={0: 0, 1: 3, 2: 9, 3: 3, 4: 4.5})
    got = {}
    for conv, ks, names in ((gains, [None], ["ndcg_1=3,2=9,4=4.5"]),
                            ("trec_eval_cut", [10, 20, 23], ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"])):
        per_query = fastndcg.ndcg(s, y, off, ks, convention=conv, tie_key=key, ideal_labels=iy, ideal_offsets=ioff)
        means = fastndcg.mean_ndcg(s, y, off, ks, convention=conv, tie_key=key, ideal_labels=iy, ideal_offsets=ioff)
        for j, name in enumerate(names):
            got[(name, "all")] = f"{means[j]:.4f}"
            got.update({(name, t): f"{per_query[q, j]:.4f}" for q, t in enumerate(topics)})
    assert len(want) == 16 and got == want
