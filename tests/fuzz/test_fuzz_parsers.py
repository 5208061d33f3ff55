"""Short runs of the file-parser fuzz harness (fuzz/harness.py; docs/fuzzing.md).

The deep run (AddressSanitizer build, 10^5-10^6 executions per target) is the
documented command ``python fuzz/run.py --asan ...``; here the same harness
runs for a few seconds on the normal build: once through a deterministic
pure-Python mutation loop (no extra dependency) and once through atheris.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "fuzz"))

import harness  # noqa: E402
import fastndcg.io as readers  # noqa: E402

pytestmark = [pytest.mark.fuzz]


@pytest.fixture
def scratch():
    with tempfile.TemporaryDirectory() as d:
        yield d


@pytest.mark.parametrize("target", harness.NAMES)
def test_mutation_short_run(target, shared_data, scratch):
    """Seeds from the shared data and the hand-made seeds, then 250
    deterministic mutants: every outcome is the oracle's."""
    seeds = harness.seed_inputs(shared_data, target, n_per_file=4)
    assert len(seeds) >= 6
    runs = len(seeds) + 250
    assert harness.mutation_loop(target, seeds, runs, scratch, rng_seed=12) == runs


def test_atheris_short_run(shared_data, tmp_path):
    """atheris (libFuzzer) on every target at once, ~3000 executions."""
    try:
        import atheris  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("atheris is missing in CI (it is in the test extras)")
        pytest.skip("atheris is not installed")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "run.py"), "--target", "all", "--runs", "3000",
         "--data", str(shared_data), "--artifacts", str(tmp_path), "--timeout", "60"],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("all ")][0]
    assert int(line.split()[1]) >= 3000, proc.stdout


# ----------------------------------------------------------------------------- the oracle can fail


def _one(target, opts, *files):
    return opts + harness.SEP.join(files)


def test_harness_flags_a_wrong_result(monkeypatch, scratch):
    data = _one("qrels", b"\x00\x00", b"1 0 a 1\n1 0 b 0\n")
    harness.run_one("qrels", data, scratch)
    real = readers.read_qrels

    def drops_a_row(path, **kw):
        q = real(path, **kw)
        q.relevance = q.relevance.copy()
        q.relevance[-1] += 1
        return q

    monkeypatch.setattr(readers, "read_qrels", drops_a_row)
    with pytest.raises(harness.Finding, match="relevance"):
        harness.run_one("qrels", data, scratch)


@pytest.mark.parametrize("exc, match", [
    (ValueError("bad size"), "does not start with an input path"),
    (TypeError("oops"), "TypeError instead of ValueError"),
    (IndexError("x"), "IndexError instead of ValueError"),
])
def test_harness_flags_unclear_errors(monkeypatch, scratch, exc, match):
    def fails(path, **kw):
        raise exc

    monkeypatch.setattr(readers, "read_group_file", fails)
    with pytest.raises(harness.Finding, match=match):
        harness.run_one("group", _one("group", b"\x00\x00", b"1\n-2\n"), scratch)


def test_harness_flags_a_wrong_line(monkeypatch, scratch):
    def wrong_line(path, **kw):
        raise ValueError(f"{path}:1: a query size must be >= 0; got -2")

    monkeypatch.setattr(readers, "read_group_file", wrong_line)
    with pytest.raises(harness.Finding, match="the oracle expects"):
        harness.run_one("group", _one("group", b"\x00\x00", b"1\n-2\n"), scratch)


def test_harness_flags_a_silent_truncation(monkeypatch, scratch):
    real = readers.iter_svmlight

    def truncating(*a, **kw):
        chunks = list(real(*a, **kw))
        return iter(chunks[:-1])

    monkeypatch.setattr(readers, "iter_svmlight", truncating)
    data = _one("svmlight", b"\x00\x00", b"1 qid:1\n0 qid:2\n")
    with pytest.raises(harness.Finding, match="iter"):
        harness.run_one("svmlight", data, scratch)


def test_spec_numbers_follow_strtod():
    import spec

    assert spec.parse_double(b"0x1p-3") == 0.125 and spec.parse_double(b"1e-400") == 0.0
    for bad in (b"1e400", b"nan", b"inf", b"1_0", b"", b"-", b"1e", b"0x", b"1.5x"):
        assert spec.parse_double(bad) is None, bad
    assert spec.parse_int(b"-9223372036854775807") == -(2 ** 63 - 1)
    assert spec.parse_int(b"-9223372036854775808") is None and spec.parse_int(b"1_0") is None
    values = [b"0.1", b"123456789012345678", b"4.9e-324", b"1.7976931348623157e308", b"-0"]
    np.testing.assert_array_equal([spec.parse_double(v) for v in values], [float(v) for v in values])


def test_spec_skips_a_byte_order_mark_as_the_readers_do(scratch):
    import spec

    body = b"1 0 a 1\n2 0 b 0\n"
    for data in (body, b"\xef\xbb\xbf" + body):
        assert spec.read_trec(data, False) == spec.read_trec(body, False)
        for block_size in range(8):         # BLOCK_SIZES: the default, then 1, 2, 3, ... bytes
            harness.TARGETS["qrels"](bytes([block_size, 0]) + data, scratch)
            harness.TARGETS["run"](bytes([block_size, 0]) + data.replace(b" 0 ", b" Q0 ").replace(b"\n", b" 1 t\n"),
                                   scratch)
