"""OpenMP build guard and thread-count semantics."""
import os

import pytest

import fastndcg
from fastndcg._core._openmp import omp_max_threads


@pytest.mark.skipif(os.environ.get("FASTNDCG_SKIP_OPENMP_TEST") == "1",
                    reason="serial build requested (FASTNDCG_NO_OPENMP=1)")
def test_openmp_enabled():
    # Fails on a silent serial build: set FASTNDCG_SKIP_OPENMP_TEST=1 only for
    # builds made with FASTNDCG_NO_OPENMP=1 on purpose.
    assert fastndcg.openmp_enabled()


def test_effective_n_threads():
    if not fastndcg.openmp_enabled():
        assert fastndcg.effective_n_threads(8) == 1
        return
    cpus = len(os.sched_getaffinity(0))
    assert fastndcg.effective_n_threads(None) == max(1, min(omp_max_threads(), cpus))
    assert fastndcg.effective_n_threads(3) == 3
    assert fastndcg.effective_n_threads(-1) == cpus
    assert fastndcg.effective_n_threads(-cpus - 5) == 1
    with pytest.raises(ValueError):
        fastndcg.effective_n_threads(0)
    with pytest.raises(TypeError):
        fastndcg.effective_n_threads("2")


def test_threads_follow_the_work(monkeypatch):
    import fastndcg._core.threads as threads

    m = threads.MIN_WORK_PER_THREAD
    assert threads.threads_for(0) == 1
    assert threads.threads_for(2 * m - 1, 8) == 1          # small work: serial, no team
    if fastndcg.openmp_enabled():
        assert threads.threads_for(2 * m, 8) == 2
        assert threads.threads_for(100 * m, 3) == 3          # n_threads is an upper bound
        assert threads.threads_for(100 * m, None) == fastndcg.effective_n_threads(None)
    with pytest.raises(ValueError):                          # bad arguments still fail on small work
        threads.threads_for(1, 0)


def test_the_helper_pool_is_one_per_process_and_a_forked_child_starts_its_own():
    import sys
    import threading

    from fastndcg._core import threads

    got = []
    ts = [threading.Thread(target=lambda: got.append(threads.helper_pool())) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len({id(p) for p in got}) == 1 and got[0] is threads.helper_pool()
    assert got[0].submit(lambda: 41 + 1).result() == 42
    if not hasattr(os, "fork") or sys.platform == "darwin":
        return
    import warnings

    r, w = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # 3.12: fork() with threads running
        pid = os.fork()
    if pid == 0:        # the child: the parent's pool threads are not here; a new pool works
        try:
            ok = threads.helper_pool() is not got[0] and threads.helper_pool().submit(lambda: 7).result(timeout=10) == 7
            os.write(w, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(w)
    assert os.read(r, 1) == b"1"
    os.waitpid(pid, 0)
