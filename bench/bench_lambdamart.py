"""LambdaMART: gradient-kernel throughput and end-to-end LightGBM training.

Two groups:

* ``lambdamart-gradients``: the gradient + hessian call on the 10,000-query
  MSLR-like workload (~1.2M docs, truncation 30), per mode, 1 and 2 threads.
* ``lightgbm-train``: ``lightgbm.train`` on the same workload (features
  derived from the labels, seeded) with the built-in ``lambdarank``, with the
  fastndcg objective in ``mode="lightgbm"`` (bit-identical models), and with
  the built-in L2 regression, same parameters, same run. LightGBM's own
  gradient step is estimated as (lambdarank round - L2 round); the fastndcg
  gradient call on the same training set is timed next to it. A summary line
  is printed at the end of the module (run with ``-s`` to see it).

Run:

    pytest bench/bench_lambdamart.py --benchmark-only --benchmark-json=lm.json -s
    python bench/summarize.py lm.json

Sizes: FASTNDCG_BENCH_TRAIN_QUERIES (default 10000) queries,
FASTNDCG_BENCH_ROUNDS (default 20) boosting rounds and FASTNDCG_BENCH_THREADS
(default 2) threads (LightGBM's and the objective's) for the training group.
On a shared machine, time it when nothing else runs: LightGBM's many short
parallel regions slow down badly when a core is taken.
Benchmarks only: nothing here asserts on time.
"""
import os

import lightgbm as lgb
import numpy as np
import pytest

import fastndcg
from fastndcg.lambdamart import LambdaMART

TRAIN_QUERIES = int(os.environ.get("FASTNDCG_BENCH_TRAIN_QUERIES", "10000"))
ROUNDS = int(os.environ.get("FASTNDCG_BENCH_ROUNDS", "20"))
TRAIN_THREADS = int(os.environ.get("FASTNDCG_BENCH_THREADS", "2"))
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
    need = {"lambdarank", "regression", "fastndcg", "gradient call"}
    if need <= _TIMES.keys():
        step = _TIMES["lambdarank"] - _TIMES["regression"]
        print(f"\n[lambdamart] per boosting round (min over runs, {ROUNDS} rounds): "
              f"built-in lambdarank {_TIMES['lambdarank'] * 1e3:.1f} ms, L2 regression "
              f"{_TIMES['regression'] * 1e3:.1f} ms, fastndcg objective {_TIMES['fastndcg'] * 1e3:.1f} ms")
        print(f"[lambdamart] LightGBM gradient step (lambdarank - L2): {step * 1e3:.1f} ms; "
              f"fastndcg gradient call: {_TIMES['gradient call'] * 1e3:.1f} ms; end-to-end "
              f"fastndcg / built-in: {_TIMES['fastndcg'] / _TIMES['lambdarank']:.3f}")


# ----------------------------------------------------------------------------- gradient kernel


@pytest.mark.benchmark(group="lambdamart-gradients")
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("mode", ["lightgbm", "default", "xgboost"])
def test_gradient_kernel(benchmark, mslr10k, mode, n_threads):
    d = mslr10k
    model = LambdaMART(d.labels, d.offsets, mode=mode, truncation=30)
    # XGBoost hands its objective float32 predictions; LightGBM float64 scores.
    scores = d.scores.astype(np.float32) if mode == "xgboost" else d.scores
    dtype = np.float64 if mode == "default" else np.float32
    grad = np.empty(d.n_docs, dtype=dtype)
    hess = np.empty(d.n_docs, dtype=dtype)
    _info(benchmark, d.n_docs, impl=f"lambdamart[{mode}]", n_threads=n_threads, truncation=30)
    benchmark.pedantic(model.gradients, args=(scores,),
                       kwargs=dict(grad_out=grad, hess_out=hess, n_threads=n_threads),
                       rounds=5, iterations=1, warmup_rounds=1)


# ----------------------------------------------------------------------------- LightGBM training


@pytest.fixture(scope="module")
def train_set(mslr10k):
    """A LightGBM Dataset on the first TRAIN_QUERIES queries of the workload:
    noisy features of the label (a few integer-valued, so tree scores tie)."""
    d = mslr10k
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
    _info(benchmark, n, impl="lightgbm lambdarank", n_threads=PARAMS["num_threads"], rounds=ROUNDS,
          n_queries=nq)
    benchmark.pedantic(_train, args=(ds, "lambdarank"), rounds=3, iterations=1)
    _record("lambdarank", benchmark, ROUNDS)


@pytest.mark.benchmark(group="lightgbm-train")
def test_train_fastndcg_objective(benchmark, train_set):
    from fastndcg.lightgbm import LambdarankObjective

    ds, n, nq = train_set
    obj = LambdarankObjective(n_threads=PARAMS["num_threads"])
    _info(benchmark, n, impl="fastndcg LambdarankObjective(mode='lightgbm')",
          n_threads=PARAMS["num_threads"], rounds=ROUNDS, n_queries=nq)
    benchmark.pedantic(_train, args=(ds, obj), rounds=3, iterations=1, warmup_rounds=1)
    _record("fastndcg", benchmark, ROUNDS)


@pytest.mark.benchmark(group="lightgbm-train")
def test_train_builtin_l2_regression(benchmark, train_set):
    """The same trees without a ranking gradient: (lambdarank - this) estimates
    LightGBM's own lambdarank gradient step."""
    ds, n, nq = train_set
    _info(benchmark, n, impl="lightgbm regression (L2)", n_threads=PARAMS["num_threads"],
          rounds=ROUNDS, n_queries=nq)
    benchmark.pedantic(_train, args=(ds, "regression"), rounds=3, iterations=1)
    _record("regression", benchmark, ROUNDS)


@pytest.mark.benchmark(group="lightgbm-train")
def test_fastndcg_gradient_call_on_train_set(benchmark, train_set):
    """The fastndcg gradient call alone, on the training set, at the scores of a
    partly trained model (tied tree scores, as during training)."""
    ds, n, nq = train_set
    from fastndcg.lightgbm import LambdarankObjective

    obj = LambdarankObjective(n_threads=PARAMS["num_threads"])
    booster = lgb.train(dict(PARAMS, objective="lambdarank"), ds, max(ROUNDS // 2, 1))
    scores = booster.predict(ds.get_data(), raw_score=True)
    model = obj.model_for(ds)
    grad = np.empty(n, dtype=np.float32)
    hess = np.empty(n, dtype=np.float32)
    _info(benchmark, n, impl="fastndcg gradients (lightgbm mode)", n_threads=PARAMS["num_threads"],
          n_queries=nq)
    benchmark.pedantic(model.gradients, args=(scores,),
                       kwargs=dict(grad_out=grad, hess_out=hess, n_threads=PARAMS["num_threads"]),
                       rounds=10, iterations=1, warmup_rounds=1)
    _record("gradient call", benchmark)
