"""The package as it is imported and installed: one version, and an unbuilt source tree says so."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import fastndcg

PACKAGE = Path(fastndcg.__file__).resolve().parent
ROOT = Path(__file__).resolve().parents[1]


def test_importing_an_unbuilt_source_tree_says_what_to_do(tmp_path):
    # `python -c "import fastndcg"` in a checkout's root after `pip install .`:
    # the checkout's fastndcg/ hides the installed package. It said
    # "cannot import name '_aggregate' from 'fastndcg._core'" (issue 24).
    shutil.copytree(PACKAGE, tmp_path / "fastndcg",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", "import fastndcg"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: fastndcg has not been built correctly")
    assert str(tmp_path / "fastndcg") in last
    assert "run Python from another directory" in last and "pip install -e ." in last


def test_one_version():
    # pyproject.toml reads the version from fastndcg/_version.py (dynamic), so the two cannot drift
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text
    assert 'version = { attr = "fastndcg._version.__version__" }' in text
    from importlib import metadata

    try:
        installed = metadata.version("fastndcg")
    except metadata.PackageNotFoundError:      # imported from a built checkout, not installed
        return
    assert installed == fastndcg.__version__
