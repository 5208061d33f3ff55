"""The fast tier needs numpy, pytest and hypothesis only (README, "Test tiers").

A static check, so it costs nothing: in a test file whose tests can be in the fast
tier, no peer library is imported at module level, and a test that imports one (or
calls ``require``) is put in another tier (``TIER_OF_TEST`` or a tier marker).
``pytest -m fast`` does not import the files wholly in other tiers
(``conftest.pytest_ignore_collect``).
"""
from __future__ import annotations

import ast
from pathlib import Path

from conftest import TIER_OF_TEST, TIERS, TESTS, _tier_sets

#: what the fast tier must not need (the test extra's other libraries)
PEERS = {"lightgbm", "xgboost", "sklearn", "scipy", "pandas", "polars", "pyarrow", "torch", "torchmetrics",
         "pytrec_eval", "ir_measures", "ranx", "dask", "distributed", "pyspark", "matplotlib", "numba", "atheris",
         "ir_datasets"}


def _peer_imports(node: ast.AST) -> list:
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Import):
            found += [a.name for a in sub.names if a.name.split(".")[0] in PEERS]
        elif isinstance(sub, ast.ImportFrom) and sub.module and sub.module.split(".")[0] in PEERS:
            found.append(sub.module)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "require":
            # require(name) of a named library; a computed name is the test's own tier
            # rule per parameter (tests/test_readme.py marks those parameters peers)
            arg = sub.args[0] if sub.args else None
            if isinstance(arg, ast.Constant):
                found.append(f"require({arg.value!r})")
    return found


def _has_tier_marker(fn: ast.FunctionDef) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute) and target.attr in TIERS:
            return True
    return False


def _fast_tier_needs():
    problems = []
    for path in sorted(TESTS.rglob("test_*.py")):
        rel = path.relative_to(TESTS).as_posix()
        if _tier_sets(rel):
            continue                    # the whole file is in other tiers
        tree = ast.parse(path.read_text(), str(path))
        file_marked = any(isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                             for t in s.targets) for s in tree.body)
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if isinstance(stmt, ast.ClassDef) or not stmt.name.startswith("test"):
                    continue
                needs = _peer_imports(stmt)
                if needs and not file_marked and not _has_tier_marker(stmt) \
                        and f"{rel}::{stmt.name}" not in TIER_OF_TEST:
                    problems.append(f"{rel}::{stmt.name} is in the fast tier but needs {', '.join(needs)}")
            else:
                needs = _peer_imports(stmt)
                if needs and not file_marked:
                    problems.append(f"{rel}:{stmt.lineno}: module-level {', '.join(needs)} in a file with fast tests")
    return problems


def test_the_fast_tier_needs_no_peer_library():
    problems = _fast_tier_needs()
    assert not problems, "\n".join(problems)


def test_the_check_can_fail(tmp_path, monkeypatch):
    # a fast-tier test that imports LightGBM is caught
    import test_tiers

    fake = tmp_path / "tests"
    (fake / "measures").mkdir(parents=True)
    (fake / "measures" / "test_new.py").write_text("def test_x():\n    import lightgbm\n")
    monkeypatch.setattr(test_tiers, "TESTS", Path(fake))
    assert test_tiers._fast_tier_needs() == ["measures/test_new.py::test_x is in the fast tier but needs lightgbm"]
