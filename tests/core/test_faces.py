"""Lazy public faces (fastndcg/_core/faces.py): a room's names are imported on first use, the
same objects from any thread, and ``import fastndcg`` does not import every room's modules."""
from __future__ import annotations

import doctest
import importlib
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import List, Tuple

import pytest

from conftest import require
from fastndcg._core import faces

LAZY = ("fastndcg", "fastndcg.conventions", "fastndcg.io", "fastndcg.measures", "fastndcg.report",
        "fastndcg.integrations", "fastndcg.stream")
#: every public face: the lazy ones, and the plain ``__init__.py`` of the reference and the CLI
FACES = LAZY + ("fastndcg.reference", "fastndcg.cli")
API = Path(__file__).resolve().parents[2] / "docs" / "api.md"
#: the budget of issue 35: a face that fits on one page
MAX_PUBLIC_NAMES = 100


def api_names() -> List[Tuple[str, str]]:
    """``(face, name)`` of each row of docs/api.md's tables, in order, under its face's heading
    (``## `fastndcg.io`: ...``); the table of doors before the first face is not a face's."""
    rows: List[Tuple[str, str]] = []
    face = None
    for line in API.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"## `(fastndcg(?:\.\w+)?)`", line)
        if heading:
            face = heading.group(1)
        elif face and line.startswith("| `"):
            rows.append((face, re.match(r"\| `(\w+)` \|", line).group(1)))
    return rows


def _run(code: str, where) -> str:
    # from another directory than the checkout's root, whose fastndcg/ would hide the installed package
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                         cwd=where)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_fastndcg_leaves_the_other_modules_of_the_rooms_unloaded(tmp_path):
    out = _run("""
        import sys, fastndcg
        print(sorted(m for m in sys.modules if m.startswith(("fastndcg.report._", "fastndcg.integrations._",
                                                             "fastndcg.stream._"))))
    """, tmp_path)
    # the headline API needs compare (report/_compare_render, _compare_compute and what they use), nothing of identify,
    # statistics, Parquet, streaming, or the integrations
    loaded = eval(out)
    assert not any(m.rpartition(".")[2] in ("_identify", "_significance") for m in loaded), loaded
    assert not any(m.startswith("fastndcg.stream._") for m in loaded), loaded
    assert not any(m.startswith("fastndcg.integrations._") for m in loaded), loaded


def test_first_use_from_8_threads_gives_one_object_per_name(tmp_path):
    out = _run(f"""
        import importlib, threading
        faces = [importlib.import_module(f) for f in {LAZY!r}]
        barrier = threading.Barrier(8)
        seen = [None] * 8
        def work(i):
            barrier.wait()
            seen[i] = {{(f.__name__, n): id(getattr(f, n)) for f in faces for n in f.__all__}}
        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(all(s == seen[0] for s in seen), len(seen[0]))
    """, tmp_path)
    same, n = out.split()
    # every public name of the lazy faces was resolved, each to one object for all 8 threads
    assert same == "True" and int(n) == sum(face in LAZY for face, _ in api_names())


def test_docs_api_lists_every_public_name_once_and_at_most_100():
    rows = api_names()
    assert len(rows) == len(set(rows)), sorted({r for r in rows if rows.count(r) > 1})
    faces = {(face, name) for face in FACES for name in importlib.import_module(face).__all__}
    assert set(rows) == faces, (f"in docs/api.md, not public: {sorted(set(rows) - faces)}; "
                                f"public, not in docs/api.md: {sorted(faces - set(rows))}")
    assert len(faces) <= MAX_PUBLIC_NAMES


def test_the_api_check_reads_the_tables_under_each_face():
    rows = api_names()
    assert ("fastndcg", "ndcg") in rows and ("fastndcg.reference", "ndcg") in rows
    assert ("fastndcg.io", "read_qrels") in rows and ("fastndcg.cli", "main") in rows


#: the libraries a face's example trains with (its example runs in the peers tier)
EXAMPLE_NEEDS = {"fastndcg.integrations": "lightgbm"}


@pytest.mark.parametrize("face", [pytest.param(f, marks=[pytest.mark.peers]) if f in EXAMPLE_NEEDS else f
                                  for f in FACES])
def test_each_face_says_its_purpose_and_its_example_runs(face):
    if face in EXAMPLE_NEEDS:
        require(EXAMPLE_NEEDS[face])
    module = importlib.import_module(face)
    doc = module.__doc__
    assert doc and len(doc.splitlines()[0]) > 20, face          # the room's purpose, first
    test = doctest.DocTestParser().get_doctest(doc, {}, face, module.__file__, 0)
    assert len(test.examples) >= 2, face
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # an example uses no deprecated name
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0, face


@pytest.mark.parametrize("face", LAZY)
def test_every_listed_name_resolves_and_others_raise(face):
    import importlib

    module = importlib.import_module(face)
    assert module.__all__ == sorted(faces.stub_names(face, module.__file__))
    assert set(module.__all__) <= set(dir(module)) and "__file__" in dir(module)
    for name in module.__all__:
        getattr(module, name)
    with pytest.raises(AttributeError, match=f"module '{face}' has no attribute 'nope'"):
        getattr(module, "nope")


def test_a_deprecated_name_resolves_with_a_warning_that_names_its_replacement(tmp_path):
    import warnings

    stub = tmp_path / "face.pyi"
    stub.write_text("from fastndcg._core.summary import short_list\n")
    getattr_, dir_, all_ = faces.attach_stub(
        "fastndcg", str(tmp_path / "face.py"),
        deprecated={"old_threads": ("fastndcg._core.threads", "effective_n_threads", "fastndcg.effective_n_threads")})
    assert all_ == ["short_list"] and "old_threads" not in dir_()
    with pytest.warns(DeprecationWarning, match=r"fastndcg\.old_threads is deprecated .* use fastndcg\.effective_n_threads"):
        assert getattr_("old_threads").__name__ == "effective_n_threads"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DeprecationWarning):     # every use warns: the old name is never stored
            getattr_("old_threads")
    with pytest.raises(AttributeError):
        getattr_("nope")
    with pytest.raises(ImportError, match="both public and deprecated"):
        faces.attach_stub("fastndcg", str(tmp_path / "face.py"),
                          deprecated={"short_list": ("fastndcg._core.summary", "short_list", "x")})
