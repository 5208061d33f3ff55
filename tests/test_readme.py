"""The README runs as written: every ```python snippet in a fresh interpreter
in an empty directory, and every indented `fastndcg ...` command after
`fastndcg demo --write-examples examples-data` (what a new user does, with no
../shared/data). A snippet importing a library other than numpy, fastndcg and
the standard library is in the peers tier; the rest stay fast.

docs/*.md are not run: their snippets continue an example across a page or
stand for the reader's own data (a Spark session, a file of theirs)."""
from __future__ import annotations

import ast
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import List, Tuple

import pytest

import fastndcg
from conftest import require
from fastndcg.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
#: modules a fast-tier snippet may import (the fast tier needs numpy + pytest + hypothesis only)
FAST_MODULES = {"numpy", "fastndcg"} | set(sys.stdlib_module_names)
#: a snippet that takes longer hangs or is not a README example
SNIPPET_TIMEOUT_S = 120


def python_snippets(path: Path) -> List[Tuple[int, str]]:
    """(line of the opening fence, code) of every ```python block of a Markdown file."""
    snippets, code, start = [], None, 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if code is None and line.strip() == "```python":
            code, start = [], number
        elif code is not None and line.strip() == "```":
            snippets.append((start, "\n".join(code) + "\n"))
            code = None
        elif code is not None:
            code.append(line)
    assert code is None, f"{path.name}: the ```python block of line {start} is not closed"
    return snippets


def imported_modules(code: str) -> set:
    """Top-level names of the modules a snippet imports."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.partition(".")[0])
    return names


def _snippet_params():
    params = []
    for line, code in python_snippets(README):
        peers = sorted(imported_modules(code) - FAST_MODULES)
        marks = [pytest.mark.peers] if peers else []
        params.append(pytest.param(code, id=f"README.md:{line}", marks=marks))
    return params


def _package_env() -> dict:
    """The environment of a subprocess that imports the same fastndcg as the tests."""
    package_root = str(Path(fastndcg.__file__).resolve().parents[1])
    inherited = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=os.pathsep.join([package_root] + ([inherited] if inherited else [])))


def test_readme_has_python_snippets():
    assert len(python_snippets(README)) >= 2


@pytest.mark.parametrize("code", _snippet_params())
def test_readme_snippet_runs_as_written(code, tmp_path):
    for module in sorted(imported_modules(code) - FAST_MODULES):
        require(module)
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_package_env(),
                          capture_output=True, text=True, timeout=SNIPPET_TIMEOUT_S)
    assert proc.returncode == 0, f"snippet failed:\n{code}\n--- stderr ---\n{proc.stderr}"


def test_readme_calls_the_demo_data_generated():
    """`fastndcg demo` generates its data from a seed; nothing is embedded."""
    text = README.read_text()
    assert "embedded" not in text.lower()
    assert "generated from a fixed seed" in text


def test_test_extra_lets_pip_choose_the_torch_build():
    """`pip install ".[test]"` works on a stock machine: the test extra does not pin
    torch to one release (on Linux, PyPI serves it as the CUDA build) but takes a
    range, which a CPU build installed first from PyTorch's own index satisfies; the
    README says how (before: `torch==2.13.0`, and no word on where the CPU build is)."""
    from packaging.requirements import Requirement

    project = tomllib.loads((README.parent / "pyproject.toml").read_text())["project"]
    torch = [Requirement(r) for r in project["optional-dependencies"]["test"] if Requirement(r).name == "torch"]
    assert len(torch) == 1
    assert not any(spec.operator in ("==", "===") for spec in torch[0].specifier), str(torch[0])
    # torch 2.3 is the first built for NumPy 2; the CPU wheel of this machine and newer 2.x releases fit
    assert all(torch[0].specifier.contains(v) for v in ("2.3.0", "2.13.0+cpu", "2.15.0"))
    assert "PyTorch's CPU wheel index" in README.read_text()


def _readme_commands():
    """The README's indented `fastndcg ...` command lines (what a new user runs)."""
    return [line.strip() for line in README.read_text().splitlines()
            if line.startswith("    fastndcg ") and "demo" not in line.split()[1:2]]


def test_readme_examples_run_from_a_plain_clone(tmp_path, capsys):
    """Every fastndcg command of the README runs in an empty directory after
    `fastndcg demo --write-examples examples-data` (no ../shared/data needed)."""
    commands = _readme_commands()
    assert len(commands) >= 3 and all("shared/data" not in c for c in commands)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["demo", "--write-examples", "examples-data"]) == 0
        for name in ("qrels.txt", "run_a.txt", "run_b.txt", "data.svm", "pred.txt"):
            assert (tmp_path / "examples-data" / name).stat().st_size > 1000
        for command in commands:
            capsys.readouterr()
            assert main(shlex.split(command)[1:]) == 0, command
            assert "ndcg" in capsys.readouterr().out.lower(), command
    finally:
        os.chdir(old)


DOCS = [README] + sorted((README.parent / "docs").glob("*.md"))
_NUMBERS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def test_docs_name_public_paths_and_say_true_things():
    """Issue 33 item 9: a module named twice ("`fastndcg.integrations` and
    `fastndcg.integrations`"), imports through private modules, "four subcommands" (there
    are five), "before 0.2" in 0.1, and LightGBM's ndcg@k "to the bit" without the one
    thread it needs."""
    import re

    from fastndcg.cli._app import SUBCOMMANDS

    private_import = re.compile(r"^\s*(from fastndcg(\.\w+)*\._\w+ import|import fastndcg(\.\w+)*\._\w+)", re.M)
    for path in DOCS:
        text = path.read_text()
        assert not re.search(r"`(fastndcg[\w.]*)`(?: and |, )`\1`", text), path.name
        assert not private_import.search(text), (path.name, private_import.search(text))
        if tuple(int(x) for x in fastndcg.__version__.split(".")[:2]) < (0, 2):
            assert "before 0.2" not in text, path.name
        for n, word in _NUMBERS.items():
            if n != len(SUBCOMMANDS):
                assert f"{word} subcommands" not in text, path.name
    cli = (README.parent / "docs" / "files-and-cli.md").read_text()
    assert f"has {_NUMBERS[len(SUBCOMMANDS)]} subcommands" in cli
    assert all(f"`{name}`" in cli.partition("subcommands")[2][:200] for name, _ in SUBCOMMANDS)
    # python -m fastndcg in a checkout's root imports the unbuilt tree: said where -m is
    assert "root of a source checkout" in cli and "python -m fastndcg" in README.read_text()
    lambdamart = (README.parent / "docs" / "lambdamart.md").read_text()
    assert "to the bit **when LightGBM evaluates on one thread**" in lambdamart
