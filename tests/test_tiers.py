"""Test tiers are markers in the test files, and the fast tier needs numpy, pytest
and hypothesis only (README, "Test tiers"; docs/testing.md).

Static checks, so they cost nothing and never import a test file:

(a) a file with fast tests imports no peer library at module level (``import`` or
    ``require(...)``);
(b) a module-level ``pytestmark`` is a plain list of tier markers, which
    ``conftest.pytest_ignore_collect`` reads from the source to leave files wholly
    outside the ``-m`` selection unimported (``pytest -m fast`` imports no peer);
(c) a test that uses a peer library is not in the fast tier: it imports the library
    or calls ``require`` on it, itself or through a helper or fixture of its module
    or of conftest.py that it names. A computed ``require(name)`` is the test's own
    rule (tests/test_readme.py marks those parameters ``peers``).

A tier marker sits on the test or on its file, so it moves with a renamed or moved
test: there is no table of names to fall out of.
"""
from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace
from typing import Dict, List, Set, Union

import pytest

import conftest
from conftest import TESTS, module_tiers, tier_of_marker

#: what the fast tier must not need (the test extra's other libraries)
PEERS = {"lightgbm", "xgboost", "sklearn", "scipy", "pandas", "polars", "pyarrow", "torch", "torchmetrics",
         "pytrec_eval", "ir_measures", "ranx", "dask", "distributed", "pyspark", "matplotlib", "numba", "atheris",
         "ir_datasets"}

Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def _peer_imports(node: ast.AST) -> List[str]:
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Import):
            found += [a.name for a in sub.names if a.name.split(".")[0] in PEERS]
        elif isinstance(sub, ast.ImportFrom) and sub.module and sub.module.split(".")[0] in PEERS:
            found.append(sub.module)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "require":
            arg = sub.args[0] if sub.args else None
            if isinstance(arg, ast.Constant):     # require is for optional test libraries only
                found.append(f"require({arg.value!r})")
    return found


def _functions(tree: ast.Module) -> Dict[str, Function]:
    return {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _needs(fn: Function, helpers: Dict[str, Function], seen: Set[str]) -> List[str]:
    """The peer libraries ``fn`` uses, itself or through the helpers and fixtures it names."""
    found = _peer_imports(fn)
    args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
    names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | {a.arg for a in args}
    for name in sorted(names - seen):
        if name in helpers:
            seen.add(name)
            found += [f"{need} (via {name})" for need in _needs(helpers[name], helpers, seen)]
    return found


def _decorator_tiers(decorators: List[ast.expr]) -> Set[str]:
    return {t for d in decorators for t in [tier_of_marker(d.func if isinstance(d, ast.Call) else d)] if t}


def _tests(tree: ast.Module):
    """(name, function, tiers of its decorators and class) of each test."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name.startswith("test"):
            yield stmt.name, stmt, _decorator_tiers(stmt.decorator_list)
        elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
            marks = [s.value for s in stmt.body if isinstance(s, ast.Assign)
                     and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in s.targets)]
            class_tiers = _decorator_tiers(stmt.decorator_list) | \
                {t for m in marks for n in ast.walk(m) for t in [tier_of_marker(n)] if t}
            for sub in stmt.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name.startswith("test"):
                    yield f"{stmt.name}::{sub.name}", sub, class_tiers | _decorator_tiers(sub.decorator_list)


def tier_problems(tests: Path) -> List[str]:
    """Every breach of rules (a), (b) and (c) in the test files under ``tests``."""
    conftest_path = tests / "conftest.py"
    shared = _functions(ast.parse(conftest_path.read_text())) if conftest_path.is_file() else {}
    problems = []
    for path in sorted(tests.rglob("test_*.py")):
        rel = path.relative_to(tests).as_posix()
        tree = ast.parse(path.read_text(), str(path))
        try:
            base = module_tiers(tree)
        except ValueError as exc:                                               # (b)
            problems.append(f"{rel}: {exc}")
            continue
        if base:
            continue                    # no test of this file is in the fast tier
        for stmt in tree.body:                                                  # (a)
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                needs = _peer_imports(stmt)
                if needs:
                    problems.append(f"{rel}:{stmt.lineno}: module-level {', '.join(needs)} in a file with fast "
                                    "tests; mark the file (pytestmark = [pytest.mark.peers]) or import in the tests")
        helpers = {**shared, **_functions(tree)}
        for name, fn, tiers in _tests(tree):                                    # (c)
            needs = _needs(fn, helpers, {fn.name})
            if needs and not tiers:
                problems.append(f"{rel}::{name} is in the fast tier but needs {', '.join(needs)}; "
                                "mark it (@pytest.mark.peers)")
    return problems


def test_the_fast_tier_needs_no_peer_library():
    problems = tier_problems(TESTS)
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------- the checks can fail

def _suite(tmp_path: Path, files: Dict[str, str]) -> Path:
    tests = tmp_path / "tests"
    for rel, text in files.items():
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        (tests / rel).write_text(text)
    return tests


def test_a_fast_file_importing_a_peer_at_module_level_fails(tmp_path):
    tests = _suite(tmp_path, {
        "measures/test_new.py": "import numpy\nimport lightgbm as lgb\n\ndef test_x():\n    pass\n",
        "io/test_other.py": "from conftest import require\npd = require('pandas')\n\ndef test_y():\n    pass\n",
        "io/test_peers.py": "import pytest\nimport pandas\npytestmark = [pytest.mark.peers]\n\ndef test_z():\n    pass\n",
    })
    problems = tier_problems(tests)
    assert len(problems) == 2
    assert problems[0].startswith("io/test_other.py:2: module-level require('pandas') in a file with fast tests")
    assert problems[1].startswith("measures/test_new.py:2: module-level lightgbm in a file with fast tests")


@pytest.mark.parametrize("line", [
    "pytestmark = pytest.mark.peers",                           # not a list
    "pytestmark = [pytest.mark.pears]",                         # not a tier (a typo)
    "pytestmark = [pytest.mark.peers, pytest.mark.skipif(True, reason='x')]",
    "pytestmark = (pytest.mark.peers,)",
    "pytestmark = PEER_MARKS",                                  # cannot be read without importing
    "pytestmark = [pytest.mark.peers]\npytestmark += [pytest.mark.slow]",
], ids=["not-a-list", "typo", "not-a-tier", "tuple", "a-name", "augmented"])
def test_a_module_pytestmark_that_is_not_a_plain_list_of_tiers_fails(tmp_path, line):
    tests = _suite(tmp_path, {"test_new.py": f"import pytest\n{line}\n\ndef test_x():\n    pass\n"})
    problems = tier_problems(tests)
    assert len(problems) == 1 and problems[0].startswith("test_new.py: line "), problems
    assert "pytestmark must be assigned once, a plain list of tier markers" in problems[0]


def test_a_fast_test_using_a_peer_fails(tmp_path):
    tests = _suite(tmp_path, {
        "conftest.py": "def frame():\n    import pandas\n    return pandas.DataFrame()\n",
        "measures/test_new.py": (
            "import pytest\nfrom conftest import require, frame\n\n"
            "def _booster():\n    return require('xgboost.core')\n\n"
            "@pytest.fixture\ndef table():\n    import polars\n\n"
            "def test_import():\n    import lightgbm\n\n"
            "def test_require():\n    require('sklearn.metrics')\n\n"
            "def test_helper():\n    _booster()\n\n"
            "def test_fixture(table):\n    pass\n\n"
            "def test_conftest_helper():\n    frame()\n\n"
            "class TestGroup:\n    def test_method(self):\n        from scipy import stats\n\n"
            "@pytest.mark.peers\ndef test_marked():\n    import lightgbm\n\n"
            "@pytest.mark.distributed\n@pytest.mark.parametrize('n', [1, 2])\ndef test_marked_too(n):\n"
            "    import dask\n\n"
            "@pytest.mark.peers\nclass TestMarked:\n    def test_method(self):\n        import ranx\n\n"
            "def test_fast():\n    require(name_of_the_parameter)\n"),
    })
    assert tier_problems(tests) == [
        "measures/test_new.py::test_import is in the fast tier but needs lightgbm; mark it (@pytest.mark.peers)",
        "measures/test_new.py::test_require is in the fast tier but needs require('sklearn.metrics'); "
        "mark it (@pytest.mark.peers)",
        "measures/test_new.py::test_helper is in the fast tier but needs require('xgboost.core') (via _booster); "
        "mark it (@pytest.mark.peers)",
        "measures/test_new.py::test_fixture is in the fast tier but needs polars (via table); "
        "mark it (@pytest.mark.peers)",
        "measures/test_new.py::test_conftest_helper is in the fast tier but needs pandas (via frame); "
        "mark it (@pytest.mark.peers)",
        "measures/test_new.py::TestGroup::test_method is in the fast tier but needs scipy; "
        "mark it (@pytest.mark.peers)",
    ]


def test_a_renamed_test_keeps_its_tier(tmp_path):
    # the marker is on the test, not in a table of names: a new name changes nothing
    for name in ("test_lightgbm_agrees", "test_lightgbm_agrees_renamed"):
        tests = _suite(tmp_path / name, {"test_new.py": (
            f"import pytest\n\n@pytest.mark.peers\ndef {name}():\n    import lightgbm\n")})
        assert tier_problems(tests) == []


# ----------------------------------------------------------------------------- -m leaves files unimported

def _ignored(tmp_path: Path, source: str, expr: str) -> bool:
    path = tmp_path / "test_new.py"
    path.write_text(source)
    config = SimpleNamespace(getoption=lambda name, default=None: expr if name == "markexpr" else default)
    return conftest.pytest_ignore_collect(path, config) is True


PEER_FILE = "import pytest\nimport lightgbm\npytestmark = [pytest.mark.peers]\n\ndef test_x():\n    pass\n"
PEER_FILE_WITH_A_SLOW_TEST = PEER_FILE + "\n@pytest.mark.slow\ndef test_y():\n    pass\n"


SELECTIONS = [   # (source, -m expression, whether the file is left unimported)
    (PEER_FILE, "fast", True),
    (PEER_FILE, "peers", False),
    (PEER_FILE, "not fast", False),
    (PEER_FILE, "slow", True),
    (PEER_FILE, "fast or fuzz", True),
    (PEER_FILE_WITH_A_SLOW_TEST, "slow", False),
    (PEER_FILE_WITH_A_SLOW_TEST, "peers and not slow", False),
    (PEER_FILE_WITH_A_SLOW_TEST, "fast", True),
    (PEER_FILE, "needs_binary", False),             # not a tier: the file may have one
    (PEER_FILE, "fast and not needs_binary", True),
    ("import pytest\n\ndef test_x():\n    pass\n", "peers", False),       # fast tests: always imported
    (PEER_FILE.replace("[pytest.mark.peers]", "pytest.mark.peers"), "fast", False),   # unreadable: imported
    (PEER_FILE, "peers(", False),                   # an expression Python cannot read: imported
]


@pytest.mark.parametrize("source, expr, ignored", SELECTIONS, ids=[f"{i}-{c[1]}" for i, c in enumerate(SELECTIONS)])
def test_files_wholly_outside_the_selection_are_not_imported(tmp_path, source, expr, ignored):
    assert _ignored(tmp_path, source, expr) is ignored
