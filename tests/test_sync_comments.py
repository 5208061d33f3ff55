"""A "kept in sync with" comment names its counterpart so that it can be found:
by full dotted name (``fastndcg._core.resolve.TIE_CODES``) or by file name
(``_ndcg.pyx``), and the named thing exists. Such comments went stale when
modules were renamed (``_api.EMPTY_CODES``, ``_prepared.TIE_CODES``)."""
from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import List

PACKAGE = Path(__file__).resolve().parents[1] / "fastndcg"
SOURCES = ("*.py", "*.pyx", "*.pxi", "*.pxd")
COUPLING = re.compile(r"(kept|keep) in sync|mirrors|same as in", re.IGNORECASE)
DOTTED = re.compile(r"\bfastndcg(?:\.\w+)+")
SOURCE_FILE = re.compile(r"\b\w+\.(?:pyx|pxi|pxd|py)\b")


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):        # the longest importable prefix, then attributes
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = getattr(obj, name)
        except AttributeError:
            return False
        return True
    return False


def _comment_block(lines: List[str], i: int) -> str:
    """The comment of line ``i``, with the ``#`` lines that follow a whole-line comment."""
    block = [lines[i].split("#", 1)[1].strip()]
    for line in lines[i + 1:] if lines[i].lstrip().startswith("#") else []:
        text = line.strip()
        if not text.startswith("#"):
            break
        block.append(text.lstrip("#").strip())
    return " ".join(block)


def sync_comment_problems(root: Path) -> List[str]:
    problems = []
    for path in sorted(p for pattern in SOURCES for p in root.rglob(pattern)):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if "#" not in line or not COUPLING.search(line.split("#", 1)[1]):
                continue
            block = _comment_block(lines, i)
            where = f"{path.relative_to(root.parent)}:{i + 1}"
            names = DOTTED.findall(block)
            # a file name inside a dotted name (fastndcg.io._files) is not a file reference
            files = SOURCE_FILE.findall(DOTTED.sub("", block))
            if not names and not files:
                problems.append(f"{where}: names neither fastndcg.<module>... nor a source file: {block!r}")
            problems += [f"{where}: {name} does not exist" for name in names if not _resolves(name)]
            problems += [f"{where}: {name} is not a file of {path.parent.name}/" for name in files
                         if not (path.parent / name).is_file()]
    return problems


def test_sync_comments_name_what_exists():
    problems = sync_comment_problems(PACKAGE)
    assert not problems, "\n".join(problems)


def test_the_check_can_fail(tmp_path):
    pkg = tmp_path / "fastndcg"
    pkg.mkdir()
    (pkg / "_k.pyx").write_text(
        "# Codes (kept in sync with _api.EMPTY_CODES).\n"
        "cdef enum:\n"
        "    A = 0  # keep in sync with fastndcg._core.resolve.NO_SUCH_CODES\n"
        "# Flags (kept in sync with the bits read by\n"
        "# _gone.pyx).\n"
        "x = 1\n"
        "# Ties (kept in sync with fastndcg._core.resolve.TIE_CODES and\n"
        "# _k.pyx).\n")
    assert sync_comment_problems(pkg) == [
        "fastndcg/_k.pyx:1: names neither fastndcg.<module>... nor a source file: "
        "'Codes (kept in sync with _api.EMPTY_CODES).'",
        "fastndcg/_k.pyx:3: fastndcg._core.resolve.NO_SUCH_CODES does not exist",
        "fastndcg/_k.pyx:4: _gone.pyx is not a file of fastndcg/",
    ]
