"""Lazy public faces (fastndcg/_core/faces.py): a room's names are imported on first use, the
same objects from any thread, and ``import fastndcg`` does not import every room's modules."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from fastndcg._core import faces

LAZY = ("fastndcg", "fastndcg.io", "fastndcg.measures", "fastndcg.report", "fastndcg.integrations", "fastndcg.stream")


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
    assert same == "True" and int(n) > 100


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
