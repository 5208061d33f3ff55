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
    # the default also leaves out CPUs other work holds now (tested below with a fake /proc)
    assert 1 <= fastndcg.effective_n_threads(None) <= max(1, min(omp_max_threads(), cpus))
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
        monkeypatch.setattr(threads, "_busy_elsewhere", lambda n: 0)     # a quiet machine
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


# ------------------------------------------------------------------ the machine's load


def _fake_proc(monkeypatch, running, worker_states):
    """/proc as the thread policy reads it: ``running`` runnable threads machine-wide,
    and our known OpenMP workers in the given states (R running, S sleeping)."""
    from fastndcg._core import threads

    tids = list(range(900001, 900001 + len(worker_states)))
    files = {"/proc/loadavg": f"0.50 0.40 0.30 {running}/123 4567\n".encode()}
    for tid, state in zip(tids, worker_states):
        files[f"/proc/self/task/{tid}/stat"] = f"{tid} (py thread) {state} 1 2 3".encode()
    monkeypatch.setattr(threads, "_proc_read", lambda path: files.get(path, b""))
    monkeypatch.setattr(threads, "_workers", frozenset(tids))
    monkeypatch.setattr(threads, "_learn_workers", lambda n: None)
    monkeypatch.setattr(threads, "_load_read", (float("-inf"), 0))
    monkeypatch.setattr(threads, "_cpu_count", lambda: 2)
    monkeypatch.setattr(threads, "omp_max_threads", lambda: 2)


@pytest.mark.skipif(not fastndcg.openmp_enabled(), reason="a serial build always uses one thread")
@pytest.mark.parametrize("running, workers, expected", [
    (1, [], 2),             # only the calling thread runs: both CPUs
    (2, ["R"], 2),          # our own idle worker, still spinning, is ours to reuse
    (2, ["S"], 1),          # another runnable thread (a busy loop, a host library's spinning worker)
    (3, ["S"], 1),          # two of them: never below one thread
    (9, ["R"], 1),
])
def test_the_default_leaves_out_the_cpus_other_work_holds(monkeypatch, running, workers, expected):
    from fastndcg._core import threads

    _fake_proc(monkeypatch, running, workers)
    assert fastndcg.effective_n_threads(None) == expected
    assert threads.threads_for(100 * threads.MIN_WORK_PER_THREAD) == expected
    # an explicit count is the caller's, whatever the load
    assert fastndcg.effective_n_threads(2) == 2
    assert threads.threads_for(100 * threads.MIN_WORK_PER_THREAD, 2) == 2


@pytest.mark.skipif(not fastndcg.openmp_enabled(), reason="a serial build always uses one thread")
def test_one_reading_of_the_load_serves_the_calls_after_it(monkeypatch):
    from fastndcg._core import threads

    _fake_proc(monkeypatch, 1, [])
    monkeypatch.setattr(threads, "LOAD_TTL", 3600.0)     # a descheduled test must not see the reading expire
    reads = []
    real = threads._proc_read
    monkeypatch.setattr(threads, "_proc_read", lambda path: reads.append(path) or real(path))
    for _ in range(50):
        fastndcg.effective_n_threads(None)
    assert reads.count("/proc/loadavg") == 1
    monkeypatch.setattr(threads, "_load_read", (float("-inf"), 0))       # stale: read again
    fastndcg.effective_n_threads(None)
    assert reads.count("/proc/loadavg") == 2


@pytest.mark.skipif(not fastndcg.openmp_enabled(), reason="a serial build always uses one thread")
def test_without_proc_the_default_is_every_cpu(monkeypatch):
    from fastndcg._core import threads

    _fake_proc(monkeypatch, 5, [])
    monkeypatch.setattr(threads, "_proc_read", lambda path: b"")
    assert fastndcg.effective_n_threads(None) == 2


@pytest.mark.skipif(not fastndcg.openmp_enabled() or not os.path.exists("/proc/self/task"),
                    reason="needs OpenMP and Linux's /proc")
def test_the_workers_of_this_threads_team_are_known_from_the_real_runtime():
    import threading

    from fastndcg._core import threads
    from fastndcg._core._openmp import team_thread_ids

    ids = team_thread_ids(2)
    assert ids[0] == threading.get_native_id()
    threads._learn_workers(2)
    assert set(team_thread_ids(2)[1:]) <= threads._workers      # the runtime keeps them between regions
    assert threading.get_native_id() not in threads._workers
    stat = threads._proc_read(f"/proc/self/task/{ids[1]}/stat")
    assert stat.rpartition(b")")[2][1:2] in (b"R", b"S", b"D")
    assert 1 <= fastndcg.effective_n_threads(None) <= 2


def test_threads_within_a_host_library_cap_only_the_default(monkeypatch):
    from fastndcg._core import threads
    
    monkeypatch.setattr(threads, "effective_n_threads", lambda n=None: 2 if n is None else n)
    assert threads.threads_within(None) is None           # no host count: the default as it is
    assert threads.threads_within(0) is None              # <= 0: the library's own default
    assert threads.threads_within(1) == 1
    assert threads.threads_within(8) == 2                 # a cap, not a count
    assert threads.threads_within(1, 2) == 2              # the caller's count stands


def test_the_load_is_read_safely_from_many_threads(monkeypatch):
    """Eight threads asking for the default at once, the reading never reused
    (LOAD_TTL 0): each learns its own team once, and every answer is a count
    between 1 and the CPUs."""
    import threading

    from fastndcg._core import threads

    monkeypatch.setattr(threads, "LOAD_TTL", 0.0)
    cpus = max(1, min(omp_max_threads(), len(os.sched_getaffinity(0))))
    got, errors = [], []
    barrier = threading.Barrier(8)

    def ask():
        try:
            barrier.wait()
            for _ in range(200):
                got.append(fastndcg.effective_n_threads(None))
        except Exception as e:           # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=ask) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    assert len(got) == 1600 and all(1 <= n <= cpus for n in got)
