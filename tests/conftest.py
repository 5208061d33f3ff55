"""Shared fixtures: seeded CSR batch generators heavy with ties and edge cases."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def make_batch(rng: np.random.Generator, n_queries: int = 20, max_docs: int = 30,
               n_score_values: int = 4, n_labels: int = 5, dtype=np.float64,
               p_empty_query: float = 0.1, p_single: float = 0.1, p_all_zero: float = 0.1):
    """A CSR batch with ties (scores drawn from few values), empty queries,
    single-document queries and all-zero-label queries."""
    sizes = rng.integers(2, max_docs + 1, size=n_queries)
    u = rng.random(n_queries)
    sizes[u < p_empty_query] = 0
    sizes[(u >= p_empty_query) & (u < p_empty_query + p_single)] = 1
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    n = int(offsets[-1])
    scores = (rng.integers(0, n_score_values, size=n) / 2.0).astype(dtype)
    labels = rng.integers(0, n_labels, size=n).astype(np.int64)
    for q in np.flatnonzero(rng.random(n_queries) < p_all_zero):
        labels[offsets[q]:offsets[q + 1]] = 0
    return scores, labels, offsets


# ----------------------------------------------------------------------------- fuzz tier
# Hypothesis profiles of the differential fuzz tier (tests marked ``fuzz``; see
# tests/fuzz/test_fuzz_differential.py and docs/testing.md). A profile gives the
# number of cases of a weight-1 test; each test scales it by its cost weight.
#   quick  the default: the tier runs in well under a minute on a busy 2-core machine
#   ci     selected when CI is set (CI=true): the tier in about 1.5 minutes on CI's 2 cores,
#          inside its 3-minute budget
#   deep   FASTNDCG_FUZZ=deep: a long local run (about an hour on 2 cores)
# FASTNDCG_FUZZ=quick|ci|deep overrides the choice.
FUZZ_EXAMPLES = {"quick": 12, "ci": 60, "deep": 2000}
_FUZZ_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
for _name, _n in FUZZ_EXAMPLES.items():
    settings.register_profile(f"fastndcg-fuzz-{_name}", max_examples=_n, deadline=None,
                              suppress_health_check=_FUZZ_HEALTH, print_blob=True)


def fuzz_profile_name() -> str:
    """quick, ci or deep (see above)."""
    chosen = os.environ.get("FASTNDCG_FUZZ", "").strip().lower()
    if chosen:
        if chosen not in FUZZ_EXAMPLES:
            raise pytest.UsageError(f"FASTNDCG_FUZZ must be one of {sorted(FUZZ_EXAMPLES)}; got {chosen!r}")
        return chosen
    return "ci" if os.environ.get("CI") else "quick"


FUZZ_PROFILE = fuzz_profile_name()


def fuzz_settings(weight: float = 1.0) -> settings:
    """Settings of one fuzz test: the selected profile, with ``weight`` times
    its number of cases (weights < 1 for tests whose cases are expensive)."""
    parent = settings.get_profile(f"fastndcg-fuzz-{FUZZ_PROFILE}")
    return settings(parent, max_examples=max(2, round(parent.max_examples * weight)))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def shared_data():
    if not SHARED_DATA.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"shared data folder missing in CI: {SHARED_DATA}")
        pytest.skip(f"shared data folder not found: {SHARED_DATA}")
    return SHARED_DATA


def read_svmlight_dense(path):
    """Dense (X, y, qid or None) from an SVMlight/LETOR file; features are 1-based.

    A plain test-side parser, so the exactness tests do not depend on fastndcg.io.readers."""
    labels, qids, rows = [], [], []
    with open(path) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            labels.append(float(parts[0]))
            feats = {}
            for item in parts[1:]:
                key, value = item.split(":", 1)
                if key == "qid":
                    qids.append(int(value))
                else:
                    feats[int(key)] = float(value)
            rows.append(feats)
    width = max((max(r) for r in rows if r), default=0)
    X = np.zeros((len(rows), width))
    for i, r in enumerate(rows):
        for k, v in r.items():
            X[i, k - 1] = v
    return X, np.array(labels), (np.array(qids) if qids else None)


def _group_sizes(qid):
    change = np.flatnonzero(np.diff(qid)) + 1
    return np.diff(np.concatenate([[0], change, [len(qid)]]))


_RANKING_CACHE = {}


def load_ranking_dataset(shared_data, name):
    """(X_train, y_train, group_train, X_test, y_test, group_test)."""
    if name not in _RANKING_CACHE:
        if name == "lightgbm-rank":
            d = shared_data / "lightgbm-rank"
            Xtr, ytr, _ = read_svmlight_dense(d / "rank.train")
            Xte, yte, _ = read_svmlight_dense(d / "rank.test")
            width = max(Xtr.shape[1], Xte.shape[1])
            Xtr = np.pad(Xtr, ((0, 0), (0, width - Xtr.shape[1])))
            Xte = np.pad(Xte, ((0, 0), (0, width - Xte.shape[1])))
            gtr = np.loadtxt(d / "rank.train.query", dtype=np.int64)
            gte = np.loadtxt(d / "rank.test.query", dtype=np.int64)
        else:   # mq2008: Fold1 vali to train on, test to evaluate
            d = shared_data / "mq2008"
            Xtr, ytr, qtr = read_svmlight_dense(d / "vali.txt")
            Xte, yte, qte = read_svmlight_dense(d / "test.txt")
            gtr, gte = _group_sizes(qtr), _group_sizes(qte)
        _RANKING_CACHE[name] = (Xtr, ytr, gtr, Xte, yte, gte)
    return _RANKING_CACHE[name]


def scattered_frame(seed: int, n: int = 4000, n_queries: int = 250, str_ids: bool = True) -> "pd.DataFrame":
    """Rows in random order (every partition of a Dask/Spark frame made from it
    holds pieces of many queries), string or integer query ids, ties, all-zero
    queries, a query weight column and doc ids. Shared by test_dask and test_spark."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    q = rng.integers(0, n_queries, n)
    labels = rng.integers(0, 4, n)
    labels[np.isin(q, np.arange(0, n_queries, 17))] = 0        # some all-zero queries (IDCG = 0)
    weights = rng.random(n_queries) + 0.5
    return pd.DataFrame({
        "qid": [f"q{v:03d}" for v in q] if str_ids else q * 3,
        "label": labels,
        "score": rng.integers(0, 6, n) / 2.0,                   # many ties
        "doc": [f"d{v:05d}" for v in rng.permutation(n)],
        "w": weights[q],
    })


@pytest.fixture
def force_threads(monkeypatch):
    """Let every kernel call use the threads it is given, whatever its size:
    the thread policy (fastndcg._core.threads.threads_for) runs small inputs
    serially, which would make a thread-count comparison compare 1 with 1."""
    import fastndcg._core.threads as threads

    monkeypatch.setattr(threads, "MIN_WORK_PER_THREAD", 1)
