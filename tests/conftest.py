"""Shared fixtures: seeded CSR batch generators heavy with ties and edge cases."""
from __future__ import annotations

import ast
import importlib
import itertools
import os
import shutil
from pathlib import Path
from types import ModuleType
from typing import FrozenSet, List, Optional, Set

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

TESTS = Path(__file__).resolve().parent
SHARED_DATA = TESTS.parents[1] / "shared" / "data"
IN_CI = bool(os.environ.get("CI"))

# ----------------------------------------------------------------------------- tiers
# Every test is in the fast tier (kernels against the reference, validation,
# small conformance cases; numpy, pytest and hypothesis only) unless its file or
# the test itself carries a tier marker. The other tiers are pytest markers:
#   peers        needs another library: the tools compared against (LightGBM, XGBoost,
#                scikit-learn, pytrec_eval, ir_measures, ranx, torchmetrics), scipy,
#                pandas/polars/pyarrow
#   distributed  Dask and Spark
#   slow         whole real data sets, long trainings, exhaustive grids, memory bounds
#   fuzz         the differential and parser fuzz tiers (hypothesis / atheris)
# A file wholly in other tiers says so at module level, as a plain list
# (``pytestmark = [pytest.mark.peers]``), so that pytest_ignore_collect can read
# it without importing the file; a single test takes a decorator
# (``@pytest.mark.peers``). The marker is in the test file, so it moves with a
# renamed or moved test. tests/test_tiers.py checks the rules statically.
# Run one: pytest -m fast | peers | distributed | slow | fuzz (README, "Test tiers").
TIERS = ("peers", "distributed", "slow", "fuzz")


def tier_of_marker(node: ast.AST) -> Optional[str]:
    """The tier ``node`` names when it is ``pytest.mark.<tier>``, else None."""
    if (isinstance(node, ast.Attribute) and node.attr in TIERS and isinstance(node.value, ast.Attribute)
            and node.value.attr == "mark" and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "pytest"):
        return node.attr
    return None


def module_tiers(tree: ast.Module) -> FrozenSet[str]:
    """The tiers a file's module-level ``pytestmark`` gives each of its tests
    (empty without one).

    Raises
    ------
    ValueError
        When ``pytestmark`` is not a plain list of tier markers
        (``[pytest.mark.peers, pytest.mark.slow]``), naming its line: anything
        else cannot be read without importing the file.
    """
    tiers: Set[str] = set()
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
        if not any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
            continue
        value = stmt.value if isinstance(stmt, ast.Assign) else None
        names = [tier_of_marker(e) for e in value.elts] if isinstance(value, ast.List) else [None]
        if None in names or tiers:
            raise ValueError(f"line {stmt.lineno}: pytestmark must be assigned once, a plain list of tier "
                             f"markers (pytest.mark.{'|'.join(TIERS)}); got {ast.unparse(stmt)!r}")
        tiers.update(names)
    return frozenset(tiers)


def tier_sets(tree: ast.Module) -> List[FrozenSet[str]]:
    """Every set of tiers a test of a file wholly outside the fast tier can have:
    its module's tiers plus any combination of the tiers named anywhere else in
    the file (decorators, class marks, parameter marks); [] for a file with fast
    tests. A superset is safe: it only makes a file be imported."""
    base = module_tiers(tree)
    if not base:
        return []
    extra = sorted({t for node in ast.walk(tree) for t in [tier_of_marker(node)] if t} - base)
    return [base | set(c) for r in range(len(extra) + 1) for c in itertools.combinations(extra, r)]


def run_cli(capsys, *argv):
    """``fastndcg`` with ``argv`` in this process: (exit code, stdout, stderr); argparse's
    exits give their code."""
    from fastndcg.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:          # argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def require(module: str) -> ModuleType:
    """Import an optional test dependency. Missing: in CI a failure (CI installs
    the test extra, so every tier must run), locally a skip with the reason.
    A file outside the selected tiers is not imported at all (see
    :func:`pytest_ignore_collect`), so ``pytest -m fast`` never needs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        why = f"needs {module} ({exc}); install the test extras: pip install \".[test]\""
        if IN_CI:
            pytest.fail(f"CI: {why}", pytrace=False)
        pytest.skip(why, allow_module_level=True)


def _selects_any(expr: str, sets: List[FrozenSet[str]]) -> bool:
    """Whether the ``-m`` expression selects a test with one of these tier sets.
    Other marker names in it (``needs_binary``) may be either: a file is kept
    when some choice selects it. Raises on an expression Python cannot read."""
    code = compile(expr, "<-m>", "eval")
    others = sorted(set(code.co_names) - set(TIERS) - {"fast"})
    for tiers in sets:
        for values in itertools.product((False, True), repeat=len(others)):
            names = dict(zip(others, values), fast=False, **{t: t in tiers for t in TIERS})
            if eval(code, {"__builtins__": {}}, names):
                return True
    return False


def pytest_ignore_collect(collection_path, config):
    """Do not import a test file none of whose tests the ``-m`` expression selects:
    ``pytest -m fast`` then needs numpy, pytest and hypothesis only, even in CI,
    where a missing peer library of a selected test fails the run. The file's
    tiers are read from its source (``tier_sets``), not by importing it."""
    expr = config.getoption("markexpr", None)
    if not expr or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    try:
        sets = tier_sets(ast.parse(collection_path.read_bytes(), str(collection_path)))
        if sets and not _selects_any(expr, sets):
            return True
    except Exception:       # unreadable source, pytestmark or expression: collect as usual (and fail there)
        return None
    return None


def pytest_collection_modifyitems(config, items):
    keep, dropped = [], []
    for item in items:
        if not any(item.get_closest_marker(t) for t in TIERS):
            item.add_marker(pytest.mark.fast)
        # a test of a local tool that CI cannot have (the trec_eval binary) is
        # deselected, not skipped, when the tool is absent
        needs = item.get_closest_marker("needs_binary")
        if needs is not None and shutil.which(needs.args[0]) is None:
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


_SKIPPED = []


def pytest_runtest_logreport(report):
    if report.skipped and IN_CI:
        _SKIPPED.append(f"{report.nodeid}: {report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr}")


def pytest_sessionfinish(session, exitstatus):
    # CI runs every tier with every tool installed: a skipped test means a tier did not run
    if IN_CI and _SKIPPED and exitstatus == 0:
        session.exitstatus = 1
        tr = session.config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None:
            tr.write_line(f"CI: {len(_SKIPPED)} test(s) skipped; every tier must run in CI:", red=True)
            for line in _SKIPPED[:20]:
                tr.write_line("  " + line)


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


def bits(a):
    """The bit patterns of a float array (uint32 for float32, uint64 for float64)."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def assert_bitwise(a, b):
    """Same dtype and the same bits in every entry (NaNs included)."""
    assert a.dtype == b.dtype
    diff = np.flatnonzero(bits(a) != bits(b))
    assert diff.size == 0, f"{diff.size} entries differ, first at {diff[:5]}: {a[diff[:5]]} vs {b[diff[:5]]}"


def assert_gradients_match(mode, got, want):
    """LambdaMART (grad, hess) against the reference's: bit for bit in the exact modes, to
    rounding (1e-12 relative) in the default mode, whose double sums may associate otherwise."""
    for a, b in zip(got, want):
        if mode == "default":
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
        else:
            assert_bitwise(a, b)


def click_batch(rng, n_queries=25, max_docs=40):
    """Ties, empty and one-document queries, binary clicks at displayed positions
    (scores in display order, clicks, offsets, positions)."""
    from fastndcg.io import cascade_clicks

    s, y, off = make_batch(rng, n_queries=n_queries, max_docs=max_docs, n_score_values=6)
    s = s + np.where(rng.random(len(s)) < 0.6, rng.normal(0, 0.6, len(s)), 0.0)
    log = cascade_clicks(y, off, seed=int(rng.integers(1 << 30)), continue_after_click=0.7)
    return s[log.order], log.click, off, log.position


# ----------------------------------------------------------------------------- fuzz tier
# Hypothesis profiles of the differential fuzz tier (tests marked ``fuzz``; see
# tests/fuzz/test_fuzz_differential.py and docs/testing.md). A profile gives the
# number of cases of a weight-1 test; each test scales it by its cost weight.
#   quick  the default: the tier runs in well under a minute on a busy 2-core machine
#   ci     selected when CI is set (CI=true): 3,500 differential cases, the tier in about
#          30 s on CI's 2 cores, inside its 3-minute budget
#   deep   FASTNDCG_FUZZ=deep: 14,000 differential cases, about 2 minutes (repeat it: it
#          draws afresh every run)
# FASTNDCG_FUZZ=quick|ci|deep overrides the choice.
FUZZ_EXAMPLES = {"quick": 12, "ci": 500, "deep": 2000}
_FUZZ_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# quick and ci are derandomized: the same cases every run, so a failure there is
# a change in the code, not a new draw (no flaky CI); deep draws afresh and keeps
# what it finds in the local example database.
for _name, _n in FUZZ_EXAMPLES.items():
    settings.register_profile(f"fastndcg-fuzz-{_name}", max_examples=_n, deadline=None,
                              suppress_health_check=_FUZZ_HEALTH, print_blob=True,
                              derandomize=_name != "deep")


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


@pytest.fixture(scope="session")      # session: module fixtures that read a data set once use it
def shared_data():
    if not SHARED_DATA.is_dir():
        if IN_CI:
            pytest.fail(f"shared data folder missing in CI: {SHARED_DATA}")
        pytest.skip(f"shared data folder not found: {SHARED_DATA}")
    return SHARED_DATA


def read_svmlight_dense(path):
    """Dense (X, y, qid or None) from an SVMlight/LETOR file; features are 1-based.

    A plain test-side parser, so the exactness tests do not depend on fastndcg.io."""
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


def told_unknown_labels(call):
    """The :class:`fastndcg.conventions.UnknownLabelWarning` s that calling ``call`` twice
    gives (a library objective or metric seeing its data set again tells no more)."""
    import warnings

    from fastndcg.conventions import UnknownLabelWarning

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        call()
        call()
    return [w for w in record if issubclass(w.category, UnknownLabelWarning)]


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
