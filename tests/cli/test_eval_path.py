"""The straight TREC path (issue 26 item 4): ``fastndcg eval QRELS RUN`` reaches the compiled
kernels through at most 8 files of the package and never turns back into a file it left.

The files are counted on the Python stack at each call into a compiled kernel (spied on from
the Python side: every function of the compiled parser ``fastndcg.io._parse``, and the NDCG
kernel ``NDCGKernel`` of ``fastndcg._core.prepared``), plus the compiled module itself."""
from __future__ import annotations

import traceback
from pathlib import Path
from typing import Dict, List, Set

import pytest

import fastndcg
from fastndcg.cli import main

PACKAGE = Path(fastndcg.__file__).resolve().parent
MAX_FILES = 8


def _package_files(stack) -> List[str]:
    out: List[str] = []
    for frame in stack:
        path = Path(frame.filename).resolve()
        if PACKAGE in path.parents:
            out.append(str(path.relative_to(PACKAGE)))
    return out


class _Recorder:
    def __init__(self) -> None:
        self.stacks: Dict[str, List[List[str]]] = {}

    def record(self, kernel: str) -> None:
        self.stacks.setdefault(kernel, []).append(_package_files(traceback.extract_stack()[:-2]) + [kernel])


class _ModuleSpy:
    """A compiled module whose functions record the caller's stack, then run."""

    def __init__(self, module, name: str, rec: _Recorder) -> None:
        self._module, self._name, self._rec = module, name, rec

    def __getattr__(self, attr):
        value = getattr(self._module, attr)
        if not callable(value) or isinstance(value, type):
            return value
        rec, name = self._rec, self._name

        def spy(*args, **kwargs):
            rec.record(name)
            return value(*args, **kwargs)
        return spy


@pytest.fixture
def recorder(monkeypatch):
    from fastndcg._core import prepared
    from fastndcg.io import _alignment, _joining, _parse, _trec

    rec = _Recorder()
    for module in (_alignment, _joining, _trec):
        monkeypatch.setattr(module, "_parse", _ModuleSpy(_parse, "io/_parse.pyx", rec))

    class SpyKernel(prepared.NDCGKernel):     # a real kernel (the Cython type checks pass)
        def compute_ideal(self, *args):
            rec.record("_core/_ndcg.pyx")
            return super().compute_ideal(*args)

        def score(self, *args):
            rec.record("_core/_ndcg.pyx")
            return super().score(*args)

    monkeypatch.setattr(prepared, "NDCGKernel", SpyKernel)
    return rec


def _files(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(1, 6) for d in range(8)))
    r = tmp_path / "run.txt"
    r.write_text("".join(f"{t} Q0 d{d} {d} {1.0 / (1 + (d * 7 + t) % 5)} tag\n" for t in range(1, 7) for d in range(10)))
    return str(q), str(r)


def _turns_back(stack: List[str]) -> Set[str]:
    """Files a stack enters again after leaving them for another file."""
    left: Set[str] = set()
    back: Set[str] = set()
    for prev, cur in zip(stack, stack[1:]):
        if cur != prev:
            left.add(prev)
            if cur in left:
                back.add(cur)
    return back


@pytest.mark.parametrize("measure", [[], ["-k", "5,10"], ["-m", "ndcg_cut.10", "-m", "ndcg"]],
                         ids=["default", "-k", "-m"])
def test_eval_reaches_the_kernels_through_at_most_8_files(tmp_path, recorder, capsys, measure):
    q, r = _files(tmp_path)
    assert main(["eval", q, r, "-c", *measure]) == 0
    assert "ndcg" in capsys.readouterr().out
    stacks = recorder.stacks
    assert set(stacks) == {"io/_parse.pyx", "_core/_ndcg.pyx"}, set(stacks)
    every: Set[str] = set()
    for kernel, seen in stacks.items():
        for stack in seen:
            assert stack[0] == "cli/_app.py", stack
            assert _turns_back(stack) == set(), stack
            every.update(stack)
    ndcg_path = {f for s in stacks["_core/_ndcg.pyx"] for f in s}
    # the NDCG kernel: the command, the measures (the measurement model's evaluation), the prepared
    # queries, the kernel; the join: the command, io's join and parser, the compiled parser
    assert ndcg_path <= {"cli/_app.py", "cli/_eval.py", "measures/_trec_measures.py", "_core/prepared.py",
                         "_core/_ndcg.pyx"}, sorted(ndcg_path)
    assert len(every) <= MAX_FILES, sorted(every)


def test_the_path_check_can_fail():
    assert _turns_back(["cli/_app.py", "cli/_eval.py", "io/_joining.py", "cli/_eval.py"]) == {"cli/_eval.py"}
    assert _turns_back(["cli/_app.py", "cli/_app.py", "cli/_eval.py"]) == set()
