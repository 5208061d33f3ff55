"""Thread safety of the shared state (issue 24): every public call kind, from 8
Python threads at once with 2 OpenMP threads per call, gives the bits of a
single-threaded run and raises nothing.

The calls share what users share: Convention objects (whose resolution is
cached on them), an NDCGScorer, LambdaMART models, one SoftNDCG objective fed
several datasets, and the module caches (LightGBM's sigmoid tables, discount
tables). LambdaMART runs with more distinct sigmas than the sigmoid-table cache
keeps, so that every thread keeps evicting and inserting; a 1 microsecond GIL
switch interval makes threads interleave inside those few bytecodes. Before the
cache had a lock, this raised ``RuntimeError: dictionary changed size during
iteration`` or ``KeyError`` in most runs.

The LightGBM / XGBoost objectives and metrics (tier peers, at the end) are
shared by 8 trainings at once, each on its own Dataset / DMatrix, and must give
what each training gives alone with its own objects.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np
import pytest

import fastndcg
from fastndcg import Convention
from fastndcg.measures import _lambdamart_checks as lambdamart_checks
from fastndcg.measures import PositionBiasedLambdaMART
from fastndcg.integrations._xgboost_ranking import XGBoostRankNDCG
from fastndcg.measures._softrank import SoftNDCGObjective
from fastndcg import rankdcg

from conftest import make_batch, require
import fastndcg.integrations
import fastndcg.measures

PYTHON_THREADS = 8
OPENMP_THREADS = 2
ROUNDS = 4
#: Twice as many sigmas as the cache keeps: the tables are evicted all the time.
SIGMAS = tuple(0.5 + 0.25 * i for i in range(2 * lambdamart_checks.SIGMOID_TABLES_KEPT))
N_VARIANTS = len(SIGMAS)


@contextmanager
def switching_often(seconds: float = 1e-6):
    """Let the interpreter hand the GIL over every ``seconds``: races that
    need a switch between two bytecodes show up in a short run."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def run_threads(worker: Callable[[int], None]) -> None:
    """worker(0) .. worker(PYTHON_THREADS - 1) at once, switching threads often."""
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(PYTHON_THREADS)]
    with switching_often():
        for th in threads:
            th.start()
        for th in threads:
            th.join()


def same_bits(a: Any, b: Any) -> bool:
    """Equal to the bit: arrays by dtype, shape and bytes (NaN included), floats by value and sign."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_bits(a[k], b[k]) for k in a)
    if isinstance(a, float):
        return isinstance(b, float) and np.float64(a).tobytes() == np.float64(b).tobytes()
    return bool(a == b)


Task = Tuple[str, Callable[[int], Any]]


def run_concurrently(tasks: Sequence[Task], expected: Dict[Tuple[str, int], Any],
                     rounds: int = ROUNDS) -> List[str]:
    """Run every task from PYTHON_THREADS threads (each thread in its own task
    and variant order) and list what went wrong: exceptions and results that
    differ from ``expected[(task, variant)]``."""
    problems: List[str] = []
    lock = threading.Lock()
    start = threading.Barrier(PYTHON_THREADS)

    def worker(t: int) -> None:
        start.wait()
        for r in range(rounds):
            for j in range(len(tasks)):
                name, call = tasks[(t + j) % len(tasks)]
                variant = (2 * t + r + j) % N_VARIANTS     # threads on one task: 8 sigmas at once
                try:
                    got = call(variant)
                except Exception as exc:        # every exception is a finding
                    with lock:
                        problems.append(f"{name}[{variant}] raised {type(exc).__name__}: {exc}")
                    continue
                if not same_bits(got, expected[(name, variant)]):
                    with lock:
                        problems.append(f"{name}[{variant}] differs from the single-threaded run")

    run_threads(worker)
    return problems


class FakeLightGBMDataset:
    """What the LightGBM-shaped objectives read from a Dataset (``get_field``),
    without LightGBM (weak-referenceable, as the real one)."""

    def __init__(self, labels: np.ndarray, offsets: np.ndarray) -> None:
        self.fields = {"label": labels.astype(np.float32), "group": offsets.astype(np.int32),
                       "weight": None, "position": None}

    def construct(self) -> "FakeLightGBMDataset":
        return self

    def get_field(self, name: str):
        return self.fields[name]


def batches(seed: int) -> List[Tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [make_batch(rng, n_queries=12, max_docs=24, n_score_values=6, p_all_zero=0.0)
            for _ in range(N_VARIANTS)]


def call_kinds(data, fresh_conventions: Callable[[], List[Convention]], n: int = OPENMP_THREADS) -> List[Task]:
    """Every public call kind, as ``(name, call(variant))``, each call with ``n``
    OpenMP threads. Objects users share are built here, once, and shared by every
    thread that runs the calls."""
    conventions = fresh_conventions()            # new objects: their resolution is not cached yet
    scores0, labels0, offsets0 = data[0]
    scorer = fastndcg.NDCGScorer(labels0, offsets0, [1, 3, 10], n_threads=n)
    models = {mode: fastndcg.LambdaMART(labels0, offsets0, mode=mode, n_threads=n)
              for mode in lambdamart_checks.MODES}
    soft_objective = SoftNDCGObjective(sigma=0.5, k=10, n_threads=n)
    lightgbm_soft = fastndcg.integrations.LightGBMObjective("softndcg", sigma=0.5, k=10, n_threads=n)
    datasets = [FakeLightGBMDataset(lab, off) for _, lab, off in data]
    qrels, runs = trec_inputs(data)

    def lightgbm_rounds(v: int):
        s, lab, off = data[v]
        pos = np.concatenate([np.arange(b - a) for a, b in zip(off[:-1], off[1:])])
        biased = PositionBiasedLambdaMART(lab, off, pos, sigma=SIGMAS[v], n_threads=n)
        return [biased.gradients(s + 0.01 * r, n_threads=n) + (biased.position_factors,) for r in range(3)]

    def xgboost_rounds(v: int):
        s, lab, off = data[v]
        unbiased = XGBoostRankNDCG(lab, off, pair_method="mean", unbiased=True, n_threads=n)
        return [unbiased.gradients(s + 0.01 * r, n_threads=n) + (unbiased.t_plus,) for r in range(3)]

    return [
        ("ndcg", lambda v: fastndcg.ndcg(*data[v], k=[1, 5], convention=conventions[v], n_threads=n)),
        ("mean_ndcg", lambda v: fastndcg.mean_ndcg(*data[v], k=5, convention=conventions[v], n_threads=n)),
        ("NDCGScorer.ndcg", lambda v: scorer.ndcg(data[0][0] * (v + 1) % 7, n_threads=n)),
        ("NDCGScorer.mean", lambda v: scorer.mean(data[0][0] * (v + 1) % 5, n_threads=n)),
        ("lambda_gradients[lightgbm]", lambda v: fastndcg.lambda_gradients(
            *data[v], mode="lightgbm", sigma=SIGMAS[v], n_threads=n)),
        ("lambda_gradients[default]", lambda v: fastndcg.lambda_gradients(
            *data[v], mode="default", sigma=SIGMAS[v], convention=conventions[v], n_threads=n)),
        ("lambda_gradients[xgboost]", lambda v: fastndcg.lambda_gradients(*data[v], mode="xgboost", n_threads=n)),
        ("LambdaMART[lightgbm]", lambda v: fastndcg.LambdaMART(
            data[v][1], data[v][2], mode="lightgbm", sigma=SIGMAS[-1 - v]).gradients(data[v][0], n_threads=n)),
        *[(f"LambdaMART[{mode}] shared", lambda v, m=model: m.gradients(data[0][0] + v, n_threads=n))
          for mode, model in models.items()],
        ("delta_ndcg_pairs", lambda v: tuple(fastndcg.delta_ndcg_pairs(
            *data[v], convention=conventions[v], truncation=5, n_threads=n))),
        ("PositionBiasedLambdaMART", lightgbm_rounds),
        ("XGBoostRankNDCG", xgboost_rounds),
        ("soft_ndcg_grad", lambda v: fastndcg.soft_ndcg_grad(
            *data[v], sigma=SIGMAS[v], k=10, convention=conventions[v], n_threads=n)),
        ("SoftNDCGObjective", lambda v: soft_objective.grad_hess(*data[v])),
        ("LightGBMSoftNDCGObjective shared", lambda v: lightgbm_soft(data[v][0], datasets[v])),
        ("rankdcg", lambda v: rankdcg(data[v][1], data[v][0], data[v][2], n_threads=n)),
        ("evaluate", lambda v: evaluation_values(fastndcg.evaluate(
            ["ndcg", "ndcg_cut.5", "nDCG@3", "ndcg_rel"], qrels[v], runs[v], n_threads=n))),
    ]


def trec_inputs(data):
    qrels, runs = [], []
    for scores, labels, offsets in data:
        q = {f"q{i}": {f"d{j}": int(labels[j]) for j in range(a, b)}
             for i, (a, b) in enumerate(zip(offsets[:-1], offsets[1:]))}
        r = {f"q{i}": {f"d{j}": float(scores[j]) for j in range(a, b)}
             for i, (a, b) in enumerate(zip(offsets[:-1], offsets[1:]))}
        qrels.append(q)
        runs.append(r)
    return qrels, runs


def evaluation_values(ev) -> Tuple[Any, ...]:
    return (ev.values, list(ev.query_ids), {m.name: v for m, v in ev.aggregated.items()})


def conventions_factory() -> List[Convention]:
    return [Convention(gain="linear" if v % 2 else "exponential", discount=("log2", "reciprocal")[v % 3 == 0],
                       ties=("stable", "worst")[v % 2], name=f"c{v}")
            for v in range(N_VARIANTS)]


def test_every_call_kind_from_8_threads_matches_one_thread(force_threads):
    data = batches(24)
    # the reference is single-threaded through and through (results do not depend on the
    # thread count): 152 tiny calls with 2 OpenMP threads each took seconds on a busy 2-core box
    reference = call_kinds(data, conventions_factory, n=1)
    expected = {(name, v): call(v) for name, call in reference for v in range(N_VARIANTS)}
    lambdamart_checks._SIGMOID_TABLES.clear()   # start the threaded run on an empty cache
    problems = run_concurrently(call_kinds(data, conventions_factory), expected)
    assert not problems, f"{len(problems)} problem(s); first ones: {problems[:5]}"
    assert len(lambdamart_checks._SIGMOID_TABLES) <= lambdamart_checks.SIGMOID_TABLES_KEPT


def test_sigmoid_table_cache_stays_bounded_and_is_read_only():
    lambdamart_checks._SIGMOID_TABLES.clear()
    first = lambdamart_checks.sigmoid_table(SIGMAS[0])
    assert lambdamart_checks.sigmoid_table(SIGMAS[0]) is first          # a hit is the cached tuple
    for sigma in SIGMAS:
        lambdamart_checks.sigmoid_table(sigma)
    assert len(lambdamart_checks._SIGMOID_TABLES) == lambdamart_checks.SIGMOID_TABLES_KEPT
    assert list(lambdamart_checks._SIGMOID_TABLES) == list(SIGMAS[-lambdamart_checks.SIGMOID_TABLES_KEPT:])
    assert not first[0].flags.writeable                                   # shared by every model


# ----------------------------------------------------------------------------- LightGBM / XGBoost (tier peers)


def peer_inputs(seed: int):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(PYTHON_THREADS):
        scores, labels, offsets = make_batch(rng, n_queries=10, max_docs=20, p_empty_query=0.0, p_all_zero=0.0)
        features = rng.standard_normal((scores.shape[0], 3))
        positions = np.concatenate([np.arange(b - a) for a, b in zip(offsets[:-1], offsets[1:])])
        out.append((scores, labels, offsets, features, positions))
    return out


def rounds_of(objective, metric, data, preds: np.ndarray, n_rounds: int = 4):
    """What a training asks of its objective and metric over a few rounds."""
    got = []
    for r in range(n_rounds):
        grad, hess = objective(preds + 0.01 * r, data)
        got.append((grad.copy(), hess.copy(), metric(preds + 0.01 * r, data)))
    return got


def trainings_at_once(make_objective, make_metric, datasets, scores) -> List[str]:
    """One objective and one metric shared by PYTHON_THREADS trainings, each on
    its own dataset, against each training alone with its own objects."""
    expected = [rounds_of(make_objective(), make_metric(), d, s) for d, s in zip(datasets, scores)]
    objective, metric = make_objective(), make_metric()
    problems: List[str] = []
    start = threading.Barrier(PYTHON_THREADS)

    def worker(t: int) -> None:
        start.wait()
        try:
            got = rounds_of(objective, metric, datasets[t], scores[t])
        except Exception as exc:
            problems.append(f"training {t} raised {type(exc).__name__}: {exc}")
            return
        if not same_bits(got, expected[t]):
            problems.append(f"training {t} differs from the same training alone")

    run_threads(worker)
    return problems


@pytest.mark.peers
def test_lightgbm_objectives_and_metric_shared_by_8_trainings(force_threads):
    lgb = require("lightgbm")
    from fastndcg.integrations import LightGBMObjective as LambdarankObjective, LightGBMNDCGMetric as NDCGMetric

    inputs = peer_inputs(7)
    datasets = []
    for scores, labels, offsets, features, positions in inputs:
        ds = lgb.Dataset(features, labels, group=np.diff(offsets), position=positions,
                         params={"verbosity": -1}, free_raw_data=False)
        datasets.append(ds.construct())
    scores = [s for s, *_ in inputs]
    for make_objective in (lambda: LambdarankObjective(sigma=1.5, n_threads=OPENMP_THREADS),
                           lambda: LambdarankObjective(mode="default", n_threads=OPENMP_THREADS),
                           lambda: fastndcg.integrations.LightGBMObjective("softndcg", sigma=0.5, k=10, n_threads=OPENMP_THREADS)):
        problems = trainings_at_once(make_objective, lambda: NDCGMetric([1, 5], n_threads=OPENMP_THREADS),
                                     datasets, scores)
        assert not problems, problems[:3]


@pytest.mark.peers
def test_xgboost_objectives_and_metric_shared_by_8_trainings(force_threads):
    xgb = require("xgboost")
    from fastndcg.integrations import XGBoostNDCGMetric as NDCGMetric, XGBoostObjective as RankNDCGObjective

    inputs = peer_inputs(8)
    dmats = []
    for scores, labels, offsets, features, positions in inputs:
        qid = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
        dmats.append(xgb.DMatrix(features, labels, qid=qid))
    scores = [s.astype(np.float32) for s, *_ in inputs]
    for make_objective in (lambda: RankNDCGObjective(pair_method="mean", unbiased=True, n_threads=OPENMP_THREADS),
                           lambda: RankNDCGObjective(n_threads=OPENMP_THREADS),
                           lambda: fastndcg.integrations.XGBoostObjective("softndcg", sigma=0.5, k=10, n_threads=OPENMP_THREADS)):
        problems = trainings_at_once(make_objective, lambda: NDCGMetric([1, 5], n_threads=OPENMP_THREADS),
                                     dmats, scores)
        assert not problems, problems[:3]


@pytest.mark.peers
@pytest.mark.parametrize("attempt", range(10))
def test_ir_measures_provider_registered_once_from_8_threads(monkeypatch, attempt):
    irm = require("ir_measures")
    from fastndcg.integrations import _ir_measures as provider_module

    def ours() -> List[Any]:
        return [p for p in irm.DefaultPipeline.providers if type(p).__name__ == "FastNDCGProvider"]

    fastndcg.integrations.unregister_ir_measures()
    monkeypatch.setattr(provider_module, "_PROVIDER", None)       # the first use happens in the threads
    got: List[Any] = []
    start = threading.Barrier(PYTHON_THREADS)

    def worker() -> None:
        start.wait()
        got.append(fastndcg.integrations.register_ir_measures())

    threads = [threading.Thread(target=worker) for _ in range(PYTHON_THREADS)]
    try:
        with switching_often():
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        assert len({id(p) for p in got}) == 1 and got[0] is fastndcg.integrations.ir_measures_provider()
        assert ours() == [got[0]]
    finally:
        for stray in ours():               # leave ir_measures as it was, whatever happened
            irm.DefaultPipeline.providers.remove(stray)
        fastndcg.integrations.unregister_ir_measures()


class ScikitLearnCalls:
    """A training as LightGBM's scikit-learn API (LGBMRanker) calls its objective
    and metric: f(y_true, y_pred, weight, group), new arrays every round."""

    def __init__(self, labels: np.ndarray, offsets: np.ndarray) -> None:
        self.labels, self.group = labels.astype(np.float64), np.diff(offsets)


def sklearn_rounds_of(objective, metric, data: ScikitLearnCalls, preds: np.ndarray, n_rounds: int = 4):
    got = []
    for r in range(n_rounds):
        y_pred = preds + 0.01 * r
        grad, hess = objective(data.labels.copy(), y_pred, None, data.group.copy())
        got.append((grad.copy(), hess.copy(), metric(data.labels.copy(), y_pred, None, data.group.copy())))
    return got


@pytest.mark.peers
def test_lightgbm_scikit_learn_calls_shared_by_8_trainings(force_threads, monkeypatch):
    # one objective and one metric shared by 8 LGBMRanker fits at once: each fit's
    # state is found by the content of its arrays (a new copy every call)
    require("lightgbm")
    from fastndcg.integrations import LightGBMObjective as LambdarankObjective, LightGBMNDCGMetric as NDCGMetric

    inputs = peer_inputs(9)
    datasets = [ScikitLearnCalls(labels, offsets) for _, labels, offsets, _, _ in inputs]
    scores = [s for s, *_ in inputs]
    monkeypatch.setattr(sys.modules[__name__], "rounds_of", sklearn_rounds_of)
    for make_objective in (lambda: LambdarankObjective(sigma=1.5, n_threads=OPENMP_THREADS),
                           lambda: fastndcg.integrations.LightGBMObjective("softndcg", sigma=0.5, k=10, n_threads=OPENMP_THREADS)):
        problems = trainings_at_once(make_objective, lambda: NDCGMetric([1, 5], n_threads=OPENMP_THREADS),
                                     datasets, scores)
        assert not problems, problems[:3]


def test_measurement_and_jk_discount_caches_from_8_threads():
    """The jk discount table cached on a shared Convention (grown on demand) is replaced whole:
    8 threads building measurements and growing one table see whole, equal results. (A
    measurement keeps the convention it is given: no table of preset keys is shared.)"""
    from fastndcg import Convention
    from fastndcg._core import resolve

    conv = Convention(discount="jk", discount_base=10)
    want_sig = fastndcg.measurement(10, convention="trec_eval").signature
    want_table = np.array([resolve.discount(Convention(discount="jk", discount_base=10), 5000)]).ravel()
    errors: List[str] = []

    def worker(t: int) -> None:
        for i in range(200):
            m = fastndcg.measurement(10, convention="trec_eval")
            if m.signature != want_sig or m.convention is not fastndcg.get_preset("trec_eval"):
                errors.append(f"thread {t}: {m.signature}")
            n = 100 + (t * 997 + i * 131) % 4900            # tables grown by several threads
            table = resolve.discount(conv, n)
            if table.shape[0] < n or table[:n].tobytes() != want_table[:n].tobytes():
                errors.append(f"thread {t}: discount table of {table.shape[0]} for {n}")

    run_threads(worker)
    assert errors == []
