"""mypy over the package (settings in pyproject.toml's [tool.mypy]): the
public API and its .pyi stubs of the compiled modules type-check clean."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require

pytestmark = [pytest.mark.peers]

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_clean(tmp_path):
    require("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(tmp_path / "cache"), str(ROOT / "fastndcg")],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout
