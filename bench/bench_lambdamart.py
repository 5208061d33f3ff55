"""LambdaMART: gradient calls against the libraries' own gradient steps, the
objective's glue, end-to-end LightGBM training, one very long query.

Groups (``--benchmark-group-by=group``):

* ``gradient-step`` (rows ``-1t`` and ``-all``): on the 10,000-query MSLR-like
  workload (~1.2M documents, truncation 30), 1 thread / every core:
  - LightGBM's own lambdarank gradient step, measured directly: a Booster whose
    trees cannot split (``min_data_in_leaf`` above the data size), with the
    workload's scores as ``init_score``, so that each ``update()`` is one
    gradient step plus a one-leaf round; the same round with L2 regression
    (the one-leaf round alone, ~2 ms) is timed next to it and subtracted in
    the summary;
  - the fastndcg gradient call per mode (lightgbm, xgboost, default), and the
    position-debiased ones (LightGBM's factors, XGBoost's unbiased ratios);
  - the memory-pass floor (bench/roofline.py), each mode's time over it in the summary;
  - LightGBM's own position-debiased step (Dataset ``position``), same trick;
  - XGBoost's own rank:ndcg step (and with ``lambdarank_unbiased``): a depth-1
    round that cannot split (``min_child_weight`` huge) minus the same round
    with squared error.
* ``objective-glue``: everything in the LightGBM / XGBoost objective call but
  the kernel (the kernel replaced by a no-op): reading the cache, checking the
  scores, the output buffers.
* ``lightgbm-train``: ``lightgbm.train`` for FASTNDCG_BENCH_ROUNDS (default 50)
  rounds with the built-in lambdarank and with the fastndcg objective in
  ``mode="lightgbm"`` (bit-identical models), same data, same parameters.
* ``large-query``: one query of 200,000 documents (LightGBM refuses queries of
  more than 10,000), truncation 30, per mode, 1 thread.

A summary with the ratios of this run is printed at the end (run with ``-s``):

    pytest bench/bench_lambdamart.py --benchmark-only -s --benchmark-json=lm.json
    python bench/summarize.py lm.json

``python bench/bench_lambdamart.py [rounds]`` instead interleaves the calls
(issue 36 item 3; one call of each per round, on ``mslr10k``, and prints the
min / median over the rounds of each time and of each round's ratios):

* LightGBM's own gradient step at one thread, truncation 30 and the whole list
  (``lambdarank_truncation_level`` above the longest query): the no-split
  lambdarank round minus the no-split L2 round of the same round number;
* ``LambdaMART(...).gradients`` (the ideal DCG cached, as LightGBM caches its
  own) and the one-shot ``fastndcg.lambda_gradients``, ``mode="default"`` and
  ``mode="lightgbm"``, truncation 30 and None, at one thread and at all cores;
* the memory-pass floor (bench/roofline.py: one read of the scores and
  labels, one value per query) at the same thread counts: each gradient row's
  time over the floor's.
* LightGBM mode's floor (bench/roofline.py ``table_reads``): the entries of
  LightGBM's 8 MiB sigmoid table that its pairs read, in its loop order, and
  nothing else: LightGBM's step over it is the most a bit-exact LightGBM mode
  could reach.

``python bench/bench_lambdamart.py --train [rounds]`` interleaves 100-round
(FASTNDCG_BENCH_TRAIN_ROUNDS) ``lightgbm.train`` runs on the first
FASTNDCG_BENCH_TRAIN_QUERIES queries (1.2M documents): the built-in
lambdarank, the fastndcg objective (``mode="lightgbm"``; the model dumps are
compared, they must be equal) and a zero-cost objective that returns the same
precomputed gradient arrays every round (what any custom objective costs at
the least: LightGBM's tree building and its copy of the arrays), at one thread
and at all cores. Their ratios to the built-in are printed, and the time the
fastndcg objective spends in its calls.

Sizes: FASTNDCG_BENCH_TRAIN_QUERIES (default 10000) queries for training,
FASTNDCG_BENCH_ROUNDS (default 50) rounds, FASTNDCG_BENCH_THREADS (default: all
cores) threads for the training group. On a shared machine the ratios move
with the load (the LightGBM table reads are cache misses for both sides):
repeat the run and report ranges. Benchmarks only: nothing here asserts on time.
"""
import os

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb

import fastndcg
from fastndcg.measures import PositionBiasedLambdaMART
from fastndcg.integrations._xgboost_ranking import XGBoostRankNDCG
from fastndcg import LambdaMART
from fastndcg.integrations import LightGBMObjective as LambdarankObjective
from fastndcg.integrations import XGBoostObjective as RankNDCGObjective

ALL = os.cpu_count() or 1
TRAIN_QUERIES = int(os.environ.get("FASTNDCG_BENCH_TRAIN_QUERIES", "10000"))
ROUNDS = int(os.environ.get("FASTNDCG_BENCH_ROUNDS", "50"))
TRAIN_THREADS = int(os.environ.get("FASTNDCG_BENCH_THREADS", str(ALL)))
N_FEATURES = 16
_TIMES = {}


def _info(benchmark, n_docs, **extra):
    benchmark.extra_info.update(n_docs=n_docs, openmp=fastndcg.openmp_enabled(), **extra)


def _record(name, benchmark, per=1):
    stats = getattr(benchmark, "stats", None)
    if stats is not None and getattr(stats, "stats", None) is not None:
        _TIMES[name] = stats.stats.min / per


@pytest.fixture(scope="module", autouse=True)
def _summary():
    yield
    lines = []
    for threads in ("1t", "all"):
        step = _TIMES.get(f"lgb-lambdarank-{threads}")
        base = _TIMES.get(f"lgb-l2-{threads}")
        if step is None or base is None:
            continue
        step -= base
        lines.append(f"[{threads}] LightGBM lambdarank gradient step {step * 1e3:.1f} ms "
                     f"(no-split round {(step + base) * 1e3:.1f} - L2 round {base * 1e3:.1f})")
        floor = _TIMES.get(f"floor-{threads}")
        for mode in ("lightgbm", "xgboost", "default"):
            t = _TIMES.get(f"fastndcg-{mode}-{threads}")
            if t:
                lines.append(f"    fastndcg mode={mode:<9} {t * 1e3:7.1f} ms   {step / t:5.2f}x faster than LightGBM's step"
                             + (f", {t / floor:6.1f}x the floor ({floor * 1e3:.2f} ms)" if floor else ""))
        pos_step = _TIMES.get(f"lgb-lambdarank-position-{threads}")
        t = _TIMES.get(f"fastndcg-position-{threads}")
        if pos_step and t:
            pos_step -= base
            lines.append(f"    position-debiased: LightGBM {pos_step * 1e3:.1f} ms, fastndcg {t * 1e3:.1f} ms: "
                         f"{pos_step / t:5.2f}x")
        xbase = _TIMES.get(f"xgb-l2-{threads}")
        for xname, ours in (("ndcg", "xgboost"), ("unbiased", "unbiased")):
            xstep, t = _TIMES.get(f"xgb-{xname}-{threads}"), _TIMES.get(f"fastndcg-{ours}-{threads}")
            if xstep and xbase and t:
                xs = xstep - xbase
                lines.append(f"    XGBoost rank:ndcg{' unbiased' if xname == 'unbiased' else ''} step "
                             f"{xs * 1e3:.1f} ms (depth-1 round - L2 round): fastndcg {t * 1e3:.1f} ms, "
                             f"{xs / t:5.2f}x")
    for name in ("lightgbm", "xgboost"):
        if f"glue-{name}" in _TIMES:
            lines.append(f"objective glue ({name}): {_TIMES[f'glue-{name}'] * 1e3:.3f} ms per round")
    if "train-builtin" in _TIMES and "train-fastndcg" in _TIMES:
        a, b = _TIMES["train-builtin"], _TIMES["train-fastndcg"]
        lines.append(f"lightgbm.train {ROUNDS} rounds, {TRAIN_THREADS} thread(s): built-in {a:.2f} s, "
                     f"fastndcg objective {b:.2f} s: fastndcg / built-in = {b / a:.3f}")
    for mode in ("lightgbm", "xgboost", "default"):
        if f"large-{mode}" in _TIMES:
            lines.append(f"one query of 200,000 documents, mode={mode}: {_TIMES[f'large-{mode}'] * 1e3:.1f} ms")
    if lines:
        print("\n[lambdamart]\n" + "\n".join(lines))


# ----------------------------------------------------------------------------- the libraries' own steps


@pytest.fixture(scope="module")
def step_data(mslr10k):
    """Workload scores as init_score; two constant features (no useful split)."""
    d = mslr10k
    X = np.zeros((d.n_docs, 2), dtype=np.float32)
    X[:, 1] = np.arange(d.n_docs) % 7
    positions = np.concatenate([np.arange(n) for n in np.diff(d.offsets)]).astype(np.int32)
    return d, X, positions


def _lgb_booster(step_data, objective, threads, position=False):
    d, X, positions = step_data
    ds = lgb.Dataset(X, d.labels.astype(np.float64), group=np.diff(d.offsets), init_score=d.scores,
                     position=positions if position else None, free_raw_data=False,
                     params={"verbose": -1}).construct()
    params = dict(objective=objective, num_threads=threads, min_data_in_leaf=d.n_docs + 1,
                  min_data_in_bin=1, verbose=-1, force_row_wise=True, deterministic=True)
    if position:
        params["lambdarank_position_bias_regularization"] = 0.5
    return lgb.Booster(params, ds)


def _xgb_booster(step_data, objective, threads, unbiased=False):
    d, X, _ = step_data
    qid = np.repeat(np.arange(d.n_queries), np.diff(d.offsets))
    dm = xgb.DMatrix(X, d.labels.astype(np.float32), qid=qid, base_margin=d.scores.astype(np.float32))
    params = dict(objective=objective, nthread=threads, tree_method="hist", max_depth=1,
                  min_child_weight=1e30, base_score=0.0)
    if unbiased:
        params["lambdarank_unbiased"] = True
    booster = xgb.Booster(params, [dm])
    return booster, dm


THREADS = [pytest.param(1, id="1t"), pytest.param(ALL, id="all")]


def _tag(threads):
    return "1t" if threads == 1 else "all"


@pytest.mark.benchmark(group="gradient-step")
@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("objective, position", [("lambdarank", False), ("regression", False),
                                                 ("lambdarank", True)],
                         ids=["lambdarank", "l2", "lambdarank-position"])
def test_lightgbm_builtin_step(benchmark, step_data, objective, position, threads):
    booster = _lgb_booster(step_data, objective, threads, position)
    booster.update()
    name = {"regression": "l2"}.get(objective, objective) + ("-position" if position else "")
    _info(benchmark, step_data[0].n_docs, impl=f"lightgbm {name} no-split round", n_threads=threads)
    benchmark.pedantic(booster.update, rounds=5, iterations=1)
    _record(f"lgb-{name}-{_tag(threads)}", benchmark)


@pytest.mark.benchmark(group="gradient-step")
@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("objective, unbiased", [("rank:ndcg", False), ("rank:ndcg", True),
                                                 ("reg:squarederror", False)], ids=["ndcg", "unbiased", "l2"])
def test_xgboost_builtin_step(benchmark, step_data, objective, unbiased, threads):
    booster, dm = _xgb_booster(step_data, objective, threads, unbiased)
    booster.update(dm, 0)
    it = iter(range(1, 10_000))
    name = "unbiased" if unbiased else "ndcg" if objective == "rank:ndcg" else "l2"
    _info(benchmark, step_data[0].n_docs, impl=f"xgboost {name} depth-1 round", n_threads=threads)
    benchmark.pedantic(lambda: booster.update(dm, next(it)), rounds=5, iterations=1)
    _record(f"xgb-{name}-{_tag(threads)}", benchmark)


@pytest.mark.benchmark(group="gradient-step")
@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("mode", ["lightgbm", "xgboost", "default"])
def test_fastndcg_gradient_call(benchmark, mslr10k, mode, threads):
    d = mslr10k
    model = LambdaMART(d.labels, d.offsets, mode=mode, truncation=30)
    # XGBoost hands its objective float32 predictions; LightGBM float64 scores.
    scores = d.scores.astype(np.float32) if mode == "xgboost" else d.scores
    dtype = np.float64 if mode == "default" else np.float32
    grad = np.empty(d.n_docs, dtype=dtype)
    hess = np.empty(d.n_docs, dtype=dtype)
    _info(benchmark, d.n_docs, impl=f"fastndcg[{mode}]", n_threads=threads, truncation=30,
          vs="lightgbm lambdarank no-split round")
    benchmark.pedantic(model.gradients, args=(scores,),
                       kwargs=dict(grad_out=grad, hess_out=hess, n_threads=threads),
                       rounds=5, iterations=1, warmup_rounds=1)
    _record(f"fastndcg-{mode}-{_tag(threads)}", benchmark)


@pytest.mark.benchmark(group="gradient-step")
@pytest.mark.parametrize("threads", THREADS)
def test_floor(benchmark, mslr10k, threads):
    # The memory-pass floor (bench/roofline.py) next to the gradient rows: one read of the
    # scores and labels, one value per query; the summary prints each row's time over it.
    from roofline import compile_floor, floor_pass

    d = mslr10k
    compile_floor(d.scores, d.labels)
    _info(benchmark, d.n_docs, impl="floor", n_threads=threads)
    benchmark.pedantic(floor_pass, args=(d.scores, d.labels, d.offsets, threads), rounds=10, iterations=1,
                       warmup_rounds=1)
    _record(f"floor-{_tag(threads)}", benchmark)


@pytest.mark.benchmark(group="gradient-step")
@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("kind", ["position", "unbiased", "mean"])
def test_fastndcg_stateful_gradient_call(benchmark, step_data, kind, threads):
    d, _, positions = step_data
    if kind == "position":
        model = PositionBiasedLambdaMART(d.labels, d.offsets, positions, regularization=0.5)
        scores = d.scores
    else:
        model = XGBoostRankNDCG(d.labels, d.offsets, unbiased=kind == "unbiased",
                                pair_method="mean" if kind == "mean" else "topk")
        scores = d.scores.astype(np.float32)
    _info(benchmark, d.n_docs, impl=f"fastndcg[{kind}]", n_threads=threads)
    benchmark.pedantic(model.gradients, args=(scores,), kwargs=dict(n_threads=threads),
                       rounds=5, iterations=1, warmup_rounds=1)
    _record(f"fastndcg-{kind}-{_tag(threads)}", benchmark)


# ----------------------------------------------------------------------------- glue


def _stub_kernel(obj, data, scores):
    obj(scores, data)                         # builds and caches the model
    model = obj._model
    model._run = lambda *args, **kwargs: None  # the objective call minus the kernel
    return lambda: obj(scores, data)


@pytest.mark.benchmark(group="objective-glue")
def test_lightgbm_objective_glue(benchmark, step_data):
    d, X, _ = step_data
    ds = lgb.Dataset(X, d.labels.astype(np.float64), group=np.diff(d.offsets), free_raw_data=False,
                     params={"verbose": -1}).construct()
    call = _stub_kernel(LambdarankObjective(n_threads=1), ds, d.scores)
    _info(benchmark, d.n_docs, impl="LambdarankObjective glue", n_threads=1)
    benchmark.pedantic(call, rounds=50, iterations=1, warmup_rounds=2)
    _record("glue-lightgbm", benchmark)


@pytest.mark.benchmark(group="objective-glue")
def test_xgboost_objective_glue(benchmark, step_data):
    d, X, _ = step_data
    dm = xgb.DMatrix(X, d.labels.astype(np.float32), qid=np.repeat(np.arange(d.n_queries), np.diff(d.offsets)))
    call = _stub_kernel(RankNDCGObjective(n_threads=1), dm, d.scores.astype(np.float32))
    _info(benchmark, d.n_docs, impl="RankNDCGObjective glue", n_threads=1)
    benchmark.pedantic(call, rounds=50, iterations=1, warmup_rounds=2)
    _record("glue-xgboost", benchmark)


# ----------------------------------------------------------------------------- LightGBM training


@pytest.fixture(scope="module")
def train_set(mslr10k):
    return train_dataset(mslr10k)


def train_dataset(d):
    """A LightGBM Dataset on the first TRAIN_QUERIES queries of the workload:
    noisy features of the label (a few integer-valued, so tree scores tie)."""
    nq = min(TRAIN_QUERIES, d.n_queries)
    n = int(d.offsets[nq])
    rng = np.random.default_rng(1)
    y = d.labels[:n].astype(np.float64)
    X = np.empty((n, N_FEATURES), dtype=np.float32)
    for j in range(N_FEATURES):
        X[:, j] = rng.uniform(0.2, 1.0) * y + rng.normal(0.0, 1.0 + 0.1 * j, size=n)
    X[:, :5] = np.round(X[:, :5])
    group = np.diff(d.offsets[: nq + 1])
    ds = lgb.Dataset(X, y, group=group, free_raw_data=False, params={"verbose": -1}).construct()
    return ds, n, nq


PARAMS = dict(learning_rate=0.1, num_leaves=31, min_data_in_leaf=20, force_row_wise=True,
              deterministic=True, verbose=-1, num_threads=TRAIN_THREADS)


def _train(ds, objective):
    return lgb.train(dict(PARAMS, objective=objective), ds, ROUNDS)


@pytest.mark.benchmark(group="lightgbm-train")
def test_train_builtin_lambdarank(benchmark, train_set):
    ds, n, nq = train_set
    _info(benchmark, n, impl="lightgbm lambdarank", n_threads=TRAIN_THREADS, rounds=ROUNDS, n_queries=nq)
    benchmark.pedantic(_train, args=(ds, "lambdarank"), rounds=3, iterations=1)
    _record("train-builtin", benchmark)


@pytest.mark.benchmark(group="lightgbm-train")
def test_train_fastndcg_objective(benchmark, train_set):
    ds, n, nq = train_set
    obj = LambdarankObjective(n_threads=TRAIN_THREADS)
    _info(benchmark, n, impl="fastndcg LambdarankObjective(mode='lightgbm')", n_threads=TRAIN_THREADS,
          rounds=ROUNDS, n_queries=nq, vs="lightgbm lambdarank")
    benchmark.pedantic(_train, args=(ds, obj), rounds=3, iterations=1, warmup_rounds=1)
    _record("train-fastndcg", benchmark)


# ----------------------------------------------------------------------------- a very long query


@pytest.fixture(scope="module")
def large_query():
    rng = np.random.default_rng(11)
    n = 200_000
    y = rng.choice(5, size=n, p=[0.6, 0.25, 0.1, 0.04, 0.01]).astype(np.int32)
    s = 0.5 * y + rng.normal(size=n)
    return s, y, np.array([0, n])


@pytest.mark.benchmark(group="large-query")
@pytest.mark.parametrize("mode", ["lightgbm", "xgboost", "default"])
def test_one_query_of_200000_documents(benchmark, large_query, mode):
    s, y, off = large_query
    model = LambdaMART(y, off, mode=mode, truncation=30)
    scores = s.astype(np.float32) if mode == "xgboost" else s
    _info(benchmark, len(s), impl=f"fastndcg[{mode}] one query", n_threads=1, truncation=30)
    benchmark.pedantic(model.gradients, args=(scores,), kwargs=dict(n_threads=1), rounds=5,
                       iterations=1, warmup_rounds=1)
    _record(f"large-{mode}", benchmark)


# ----------------------------------------------------------------------------- interleaved (python bench/...)


def _summary_rows(times, rows):
    """Print min / median of each time and of each (label, numerator, denominator) ratio per round."""
    t = {name: np.array(v) for name, v in times.items()}
    for name, v in t.items():
        print(f"  {name:<34} min {v.min() * 1e3:9.1f} ms  median {np.median(v) * 1e3:9.1f} ms")
    print("ratios per round:")
    for label, num, den in rows:
        r = num(t) / den(t)
        print(f"  {label:<52} min {r.min():6.2f}  median {np.median(r):6.2f}")


def interleaved_gradients(rounds: int = 9) -> None:
    """Issue 36 item 3: the gradient calls against LightGBM's own step and the memory-pass floor."""
    from fastndcg.io import mslr_like
    from roofline import compile_floor, floor_pass, lightgbm_table_bins, table_reads, time_interleaved
    from fastndcg.measures._lambdamart_checks import sigmoid_table

    d = mslr_like(10_000, seed=0)
    max_n = int(np.diff(d.offsets).max())
    print(f"mslr10k: {d.n_queries} queries, {d.n_docs} documents (longest {max_n}); {rounds} rounds; "
          f"OpenMP {fastndcg.openmp_enabled()}, {ALL} cores")
    compile_floor(d.scores, d.labels)
    X = np.zeros((d.n_docs, 2), dtype=np.float32)
    X[:, 1] = np.arange(d.n_docs) % 7

    def booster(objective, level):
        ds = lgb.Dataset(X, d.labels.astype(np.float64), group=np.diff(d.offsets), init_score=d.scores,
                         free_raw_data=False, params={"verbose": -1}).construct()
        params = dict(objective=objective, num_threads=1, min_data_in_leaf=d.n_docs + 1, min_data_in_bin=1,
                      verbose=-1, force_row_wise=True, deterministic=True, lambdarank_truncation_level=level)
        b = lgb.Booster(params, ds)
        b.update()
        return b

    levels = {"30": 30, "all": max_n + 1}
    calls = {"lgb l2 step 1T": booster("regression", 30).update}
    for tn, level in levels.items():
        calls[f"lgb lambdarank T={tn} 1T"] = booster("lambdarank", level).update
    threads = sorted({1, ALL})
    for n in threads:
        calls[f"floor {n}T"] = lambda n=n: floor_pass(d.scores, d.labels, d.offsets, n)
    # LightGBM mode's floor: the sigmoid-table entries its pairs read, nothing else
    table = sigmoid_table(1.0)[0]
    for tn, level in levels.items():
        bins = lightgbm_table_bins(d.scores, d.labels, d.offsets, level)
        table_reads(table, bins[:16])                 # compiled before the rounds
        calls[f"table reads T={tn} 1T"] = lambda bins=bins: table_reads(table, bins)
    for tn in levels:
        trunc = 30 if tn == "30" else None
        for mode in ("default", "lightgbm"):
            model = LambdaMART(d.labels, d.offsets, mode=mode, truncation=trunc)
            dtype = np.float64 if mode == "default" else np.float32
            g, h = np.empty(d.n_docs, dtype), np.empty(d.n_docs, dtype)
            for n in threads:
                calls[f"{mode} T={tn} {n}T"] = (lambda m=model, g=g, h=h, n=n:
                                                m.gradients(d.scores, grad_out=g, hess_out=h, n_threads=n))
            calls[f"lambda_gradients {mode} T={tn} 1T"] = (
                lambda mode=mode, trunc=trunc: fastndcg.lambda_gradients(d.scores, d.labels, d.offsets, mode=mode,
                                                                         truncation=trunc, n_threads=1))
    times, _ = time_interleaved(calls, rounds)

    def step(tn):
        return lambda t: t[f"lgb lambdarank T={tn} 1T"] - t["lgb l2 step 1T"]

    def row(name):
        return lambda t: t[name]

    rows = []
    for tn in levels:
        for mode in ("default", "lightgbm"):
            rows.append((f"LightGBM step / {mode} T={tn} 1T", step(tn), row(f"{mode} T={tn} 1T")))
            rows.append((f"LightGBM step / lambda_gradients {mode} T={tn}", step(tn),
                         row(f"lambda_gradients {mode} T={tn} 1T")))
    for tn in levels:
        rows.append((f"LightGBM step T={tn} / floor 1T", step(tn), row("floor 1T")))
        rows.append((f"LightGBM step T={tn} / its table reads", step(tn), row(f"table reads T={tn} 1T")))
        rows.append((f"lightgbm T={tn} 1T / its table reads", row(f"lightgbm T={tn} 1T"),
                     row(f"table reads T={tn} 1T")))
        for mode in ("default", "lightgbm"):
            for n in threads:
                rows.append((f"{mode} T={tn} {n}T / floor {n}T", row(f"{mode} T={tn} {n}T"), row(f"floor {n}T")))
    if ALL > 1:
        for tn in levels:
            for mode in ("default", "lightgbm"):
                rows.append((f"{mode} T={tn} 1T / {ALL}T (scaling)", row(f"{mode} T={tn} 1T"),
                             row(f"{mode} T={tn} {ALL}T")))
    _summary_rows(times, rows)


def _trees(model: str) -> str:
    """The trees of a LightGBM model string (split features, thresholds, leaf values with 17
    digits): the model without its header's and parameters' ``objective`` lines, which name
    ``custom`` for a callable objective."""
    return model[model.index("Tree=0"):model.index("end of trees")]


def interleaved_training(rounds: int = 3) -> None:
    """Issue 36 item 3: 100-round trainings, built-in lambdarank vs the fastndcg objective vs a
    zero-cost objective, at one thread and at all cores."""
    import time

    from fastndcg.io import mslr_like
    from roofline import time_interleaved

    n_rounds = int(os.environ.get("FASTNDCG_BENCH_TRAIN_ROUNDS", "100"))
    d = mslr_like(10_000, seed=0)
    ds, n, nq = train_dataset(d)
    print(f"training: {nq} queries, {n} documents, {N_FEATURES} features, {n_rounds} boosting rounds, "
          f"{rounds} interleaved rounds; LightGBM {lgb.__version__}")
    base = dict(PARAMS)
    threads = sorted({1, ALL})
    # the zero-cost objective: the first round's gradients, returned every round
    g0, h0 = (a.copy() for a in LambdarankObjective(n_threads=1)(np.zeros(n), ds))
    spent = {}

    def zero_cost(preds, data):
        return g0, h0

    def ours_timed(obj, key):
        def call(preds, data):
            start = time.perf_counter()
            out = obj(preds, data)
            spent[key] = spent.get(key, 0.0) + time.perf_counter() - start
            return out
        return call

    def train(objective, n_threads):
        return lgb.train(dict(base, objective=objective, num_threads=n_threads), ds, n_rounds)

    calls = {}
    for nt in threads:
        calls[f"built-in {nt}T"] = lambda nt=nt: train("lambdarank", nt)
        obj = LambdarankObjective(n_threads=nt)
        calls[f"fastndcg {nt}T"] = lambda nt=nt, obj=obj: train(ours_timed(obj, f"fastndcg {nt}T"), nt)
        calls[f"zero-cost {nt}T"] = lambda nt=nt: train(zero_cost, nt)
    times, boosters = time_interleaved(calls, rounds)
    models = {name: _trees(booster.model_to_string()) for name, booster in boosters.items()}
    for nt in threads:
        same = models[f"built-in {nt}T"] == models[f"fastndcg {nt}T"]
        print(f"  {nt}T: fastndcg trees == built-in trees (model_to_string, every tree): {same}")
    for key, total in spent.items():
        print(f"  {key}: {total / rounds / n_rounds * 1e3:.1f} ms per boosting round in the objective call")
    rows = []
    for nt in threads:
        for impl in ("fastndcg", "zero-cost"):
            rows.append((f"{impl} / built-in, {nt}T", (lambda t, k=f"{impl} {nt}T": t[k]),
                         (lambda t, k=f"built-in {nt}T": t[k])))
    _summary_rows(times, rows)


if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    if args[:1] == ["--train"]:
        interleaved_training(int(args[1]) if len(args) > 1 else 3)
    else:
        interleaved_gradients(int(args[0]) if args else 9)
