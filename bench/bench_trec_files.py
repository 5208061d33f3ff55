"""Evaluating TREC run files, whole process, against the tools people use (issue 27).

Files (bench/trec_files_data.py, seeded, written once per session to a temp dir): a run of
1,000 or 5,000 topics x 1,000 results (1M / 5M lines, 53 / 267 MB; ClueWeb-like docnos, 2%
tied scores, topics in numeric order), qrels of 120 judgments per topic (120k / 600k lines);
2% of the run's topics are not judged and 2% of the judged topics have no results. ``5M-short``:
the 5M-line run with the short lines of issue 27's own file (about 31 bytes; memory is per
result, so the peak against the file's size is highest there).

Every tool computes ``ndcg_cut.10`` (ir_measures ``nDCG@10``, ranx ``ndcg@10``) with judged
topics missing from the run counted as 0 (trec_eval ``-c``), in a fresh process, interleaved
round by round, so that all rows of a table are measured in the same run under the same load:

* ``fastndcg eval`` (all threads, and ``--threads 1``) and ``trec_eval`` (when a ``trec_eval``
  binary is on PATH): wall time of the whole process; fastndcg's ``--format trec`` output is
  checked byte for byte against trec_eval's;
* ``fastndcg.evaluate``, pytrec_eval (``parse_qrel``/``parse_run`` + ``RelevanceEvaluator``),
  ir_measures ``calc_aggregate`` and ranx (``Qrels/Run.from_file`` + ``evaluate``): the time of
  the call in the process ("in-process"; imports excluded) and the whole process;
* peak RSS of every process (``ru_maxrss``, the interpreter and imports included);
* the file floor (issue 36): a fresh process that reads the run file's bytes (4 MiB
  ``preadv`` blocks from the page cache) and finds its line ends (numpy ``== 10`` and
  ``count_nonzero`` per block), on 1 and on 2 threads (blocks dealt round-robin): the least any
  tool must do with the file. Its whole process (Python and numpy started) and its pass alone
  are printed beside the rows, with ``fastndcg eval`` ÷ floor (whole processes, the same
  threads) and ``fastndcg.evaluate`` in-process ÷ the pass.

Each round starts one tool later than the round before (no tool always follows the same one),
and fastndcg's modules are compiled to bytecode first, as pip installs them.

Also: 100 runs of 100,000 lines against one qrels (cost per extra run / its parse time), a
gzip run against the plain file (ISA-L and the zlib fallback), and ``--stream`` against the
in-memory path. Each test prints a table of min and median times and the ratios, and stores
them in ``extra_info``. Run (about 4 minutes with 5M lines; ranx needs 2 GB there)::

    PATH=/path/to/trec_eval/dir:$PATH pytest bench/bench_trec_files.py --benchmark-only -s

``FASTNDCG_BENCH_TREC_SIZES=1M`` runs the small file only (sizes: 1M, 5M, 5M-short); ``FASTNDCG_BENCH_ROUNDS`` sets the
rounds (3). ranx runs one round on the 5M-line file (33 s, 2.2 GB); ``FASTNDCG_BENCH_TREC_SKIP=ranx,ir_measures``
leaves those tools out (fastndcg, trec_eval, pytrec_eval and the floor always run).
"""
from __future__ import annotations

import gzip
import os
import shutil
import statistics
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from trec_files_data import write_trec_files  # noqa: E402

#: topics (of 1,000 results) and short lines (issue 27's own file: about 31 bytes a line)
SIZES = {"1M": (1000, False), "5M": (5000, False), "5M-short": (5000, True)}
CHOSEN = [s.strip() for s in os.environ.get("FASTNDCG_BENCH_TREC_SIZES", "1M,5M,5M-short").split(",")
          if s.strip()]
ROUNDS = int(os.environ.get("FASTNDCG_BENCH_ROUNDS", "3"))
#: leave out these in-process tools (comma-separated names of _API, e.g. "ranx,ir_measures")
SKIP_TOOLS = {s.strip() for s in os.environ.get("FASTNDCG_BENCH_TREC_SKIP", "").split(",") if s.strip()}
TREC_EVAL = shutil.which("trec_eval")

# In-process scripts: argv = qrels run; print the seconds of the evaluation call.
_API = {
    "fastndcg.evaluate": """
import sys, time, fastndcg
evaluate = fastndcg.evaluate        # imported here (the top level imports a name's module on first use)
t = time.perf_counter()
ev = evaluate("ndcg_cut.10", sys.argv[1], sys.argv[2], missing="zero")
print(time.perf_counter() - t, ev.aggregated["ndcg_cut_10"] if "ndcg_cut_10" in ev.aggregated else list(ev.aggregated.values())[0])
""",
    "pytrec_eval": """
import sys, time, pytrec_eval
t = time.perf_counter()
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
# judged topics without results count as 0 (trec_eval -c): sum over the results, divide by all judged topics
mean = sum(v["ndcg_cut_10"] for v in res.values()) / len(qrels)
print(time.perf_counter() - t, mean)
""",
    "ir_measures": """
import sys, time, ir_measures
from ir_measures import nDCG
t = time.perf_counter()
agg = ir_measures.calc_aggregate([nDCG@10], ir_measures.read_trec_qrels(sys.argv[1]), ir_measures.read_trec_run(sys.argv[2]))
print(time.perf_counter() - t, agg[nDCG@10])
""",
    "ranx": """
import sys, time
from ranx import Qrels, Run, evaluate
t = time.perf_counter()
q = Qrels.from_file(sys.argv[1], kind="trec")
r = Run.from_file(sys.argv[2], kind="trec")
v = evaluate(q, r, "ndcg@10", make_comparable=True)
print(time.perf_counter() - t, v)
""",
}

# The file floor: read the run's bytes and find its line ends, on argv[2] threads; prints the
# seconds of the pass (numpy imported before the clock) and the number of lines.
_FLOOR = """
import os, sys, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np
path, threads, block = sys.argv[1], int(sys.argv[2]), 4 << 20
t = time.perf_counter()
fd = os.open(path, os.O_RDONLY)
starts = range(0, os.fstat(fd).st_size, block)
def part(k):
    buf = bytearray(block)
    a = np.frombuffer(buf, dtype=np.uint8)
    n = 0
    for at in starts[k::threads]:
        got = os.preadv(fd, [buf], at)
        n += int(np.count_nonzero(a[:got] == 10))
    return n
if threads == 1:
    lines = part(0)
else:
    with ThreadPoolExecutor(threads) as ex:
        lines = sum(ex.map(part, range(threads)))
os.close(fd)
print(time.perf_counter() - t, lines)
"""
FLOOR_ROWS = ("file floor, 2 threads", "file floor, 1 thread")

# fastndcg's CLI with ISA-L disabled (the standard library's zlib): the fallback path of .gz files
_CLI_ZLIB = """
import sys, zlib
from fastndcg.io import _files as files
files._gzip_impl = zlib
from fastndcg.cli import main
sys.argv = ["fastndcg"] + sys.argv[1:]
sys.exit(main())
"""


def _run(cmd: Sequence[str], out_path: Optional[str] = None) -> Tuple[float, int, str]:
    """(wall seconds, peak RSS bytes, stdout) of one process."""
    out = open(out_path, "wb") if out_path else subprocess.PIPE
    t = time.perf_counter()
    proc = subprocess.Popen(list(cmd), stdout=out, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = ""
    if out_path:
        out.close()
    else:
        text = proc.stdout.read().decode() if proc.stdout else ""
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} ... exited with {proc.returncode}")
    return wall, usage.ru_maxrss * 1024, text


def _cli(qrels: str, runs: Sequence[str], *extra: str) -> List[str]:
    return [sys.executable, "-m", "fastndcg", "eval", "-c", "-m", "ndcg_cut.10", "--format", "trec", *extra,
            qrels, *runs]


class _Rows:
    """Timings of several commands, measured round-robin."""

    def __init__(self) -> None:
        self.wall: Dict[str, List[float]] = {}
        self.inner: Dict[str, List[float]] = {}
        self.rss: Dict[str, int] = {}

    def add(self, name: str, wall: float, rss: int, inner: Optional[float] = None) -> None:
        self.wall.setdefault(name, []).append(wall)
        self.rss[name] = max(self.rss.get(name, 0), rss)
        if inner is not None:
            self.inner.setdefault(name, []).append(inner)

    def best(self, name: str, inner: bool = False) -> float:
        return min((self.inner if inner else self.wall)[name])

    def median(self, name: str, inner: bool = False) -> float:
        return statistics.median((self.inner if inner else self.wall)[name])

    def table(self, title: str, file_bytes: int) -> str:
        lines = [f"\n{title}", f"{'tool':<28}{'wall min':>10}{'median':>9}{'in-proc min':>13}{'median':>9}"
                 f"{'peak RSS':>10}{'x file':>8}"]
        for name in self.wall:
            inner = (f"{self.best(name, True):13.3f}{self.median(name, True):9.3f}" if name in self.inner
                     else " " * 22)
            lines.append(f"{name:<28}{self.best(name):10.3f}{self.median(name):9.3f}{inner}"
                         f"{self.rss[name] / 2**20:9.0f}M{self.rss[name] / file_bytes:8.2f}")
        return "\n".join(lines)

    def info(self) -> Dict[str, Dict[str, float]]:
        return {n: dict(wall_min=self.best(n), wall_median=self.median(n), peak_rss_mb=self.rss[n] / 2**20,
                        **({"inproc_min": self.best(n, True), "inproc_median": self.median(n, True)}
                           if n in self.inner else {}))
                for n in self.wall}


@pytest.fixture(scope="session", autouse=True)
def compiled_package():
    """fastndcg's modules compiled to bytecode, as pip installs them (and as the other tools,
    installed from wheels, are): a source checkout run with PYTHONDONTWRITEBYTECODE=1 would
    compile every module in every process, about 50 ms of each fastndcg process on this VM."""
    import compileall

    import fastndcg

    compileall.compile_dir(os.path.dirname(fastndcg.__file__), quiet=1)


@pytest.fixture(scope="session")
def trec_dirs(tmp_path_factory):
    made: Dict[str, Tuple[str, str]] = {}

    def get(size: str) -> Tuple[str, str]:
        if size not in made:
            d = tmp_path_factory.mktemp(f"trec{size}")
            n_topics, short = SIZES[size]
            made[size] = write_trec_files(str(d), n_topics=n_topics, short=short)
        return made[size]
    return get


def _ratio(a: float, b: float) -> float:
    return round(a / b, 2)


@pytest.mark.benchmark(group="trec-files")
@pytest.mark.parametrize("size", [s for s in SIZES if s in CHOSEN])
def test_trec_tools(benchmark, trec_dirs, size, tmp_path):
    """fastndcg eval / fastndcg.evaluate against trec_eval, pytrec_eval, ir_measures, ranx."""
    run, qrels = trec_dirs(size)
    rows = _Rows()
    fast_out, te_out = str(tmp_path / "fastndcg.txt"), str(tmp_path / "trec_eval.txt")
    # (name, command, output file, in-process timing printed); each round starts one tool later,
    # so that no tool always follows the same one (the one before may leave the machine busy)
    tools: List[Tuple[str, List[str], Optional[str], bool]] = [
        ("fastndcg eval", _cli(qrels, [run]), fast_out, False),
        ("fastndcg eval --threads 1", _cli(qrels, [run], "--threads", "1"), fast_out, False)]
    if TREC_EVAL:
        tools.append(("trec_eval", [TREC_EVAL, "-c", "-m", "ndcg_cut.10", qrels, run], te_out, False))
    tools += [(name, [sys.executable, "-c", script, qrels, run], None, True) for name, script in _API.items()
              if name not in SKIP_TOOLS]
    tools += [(name, [sys.executable, "-c", _FLOOR, run, str(th)], None, True) for name, th in zip(FLOOR_ROWS, (2, 1))]
    for r in range(ROUNDS):
        for name, cmd, out, inner in tools[r % len(tools):] + tools[:r % len(tools)]:
            if name == "ranx" and size.startswith("5M") and r > 0:
                continue                        # 20-30 s and 2-3 GB a round: one round
            w, m, text = _run(cmd, out)
            rows.add(name, w, m, float(text.split()[0]) if inner else None)
    if TREC_EVAL:
        with open(fast_out, "rb") as f, open(te_out, "rb") as g:
            assert f.read() == g.read(), "fastndcg eval --format trec differs from trec_eval"
    file_bytes = os.path.getsize(run)
    ratios = {}
    if TREC_EVAL:
        for k in ("best", "median"):
            pick = rows.best if k == "best" else rows.median
            ratios[f"trec_eval / fastndcg eval ({k})"] = _ratio(pick("trec_eval"), pick("fastndcg eval"))
            ratios[f"trec_eval / fastndcg eval --threads 1 ({k})"] = _ratio(pick("trec_eval"),
                                                                            pick("fastndcg eval --threads 1"))
    for k in ("best", "median"):
        pick = rows.best if k == "best" else rows.median
        ratios[f"pytrec_eval / fastndcg.evaluate, in-process ({k})"] = _ratio(pick("pytrec_eval", True),
                                                                             pick("fastndcg.evaluate", True))
        ratios[f"pytrec_eval / fastndcg.evaluate, whole process ({k})"] = _ratio(pick("pytrec_eval"),
                                                                                pick("fastndcg.evaluate"))
    ratios["fastndcg eval peak RSS / run file"] = _ratio(rows.rss["fastndcg eval"], file_bytes)
    lines = sum(1 for _ in open(run, "rb"))
    floor = {}
    for k in ("best", "median"):
        pick = rows.best if k == "best" else rows.median
        for name, suffix in zip(FLOOR_ROWS, ("", " --threads 1")):
            ratios[f"fastndcg eval{suffix} / {name}, whole process ({k})"] = _ratio(pick("fastndcg eval" + suffix),
                                                                                    pick(name))
        ratios[f"fastndcg.evaluate in-process / file floor pass, 2 threads ({k})"] = _ratio(
            pick("fastndcg.evaluate", True), pick(FLOOR_ROWS[0], True))
    for name in ("fastndcg eval", "fastndcg eval --threads 1") + FLOOR_ROWS:
        floor[name] = dict(bytes_per_line=round(file_bytes / lines, 1),
                           gb_per_s_whole_process=round(file_bytes / rows.best(name) / 1e9, 3),
                           ns_per_line=round(rows.best(name) / lines * 1e9, 1))
    for name in FLOOR_ROWS:
        floor[name]["gb_per_s_pass"] = round(file_bytes / rows.best(name, True) / 1e9, 3)
    print(rows.table(f"{size} lines ({file_bytes / 1e6:.0f} MB run), ndcg_cut.10 -c, {ROUNDS} rounds", file_bytes))
    for k, v in ratios.items():
        print(f"  {k}: {v}")
    print(f"  {file_bytes / lines:.1f} bytes a line; best GB/s (whole process) and ns a line:")
    for name, f in floor.items():
        print(f"    {name:<28}{f['gb_per_s_whole_process']:7.3f} GB/s{f['ns_per_line']:8.1f} ns/line"
              + (f"   (the pass alone {f['gb_per_s_pass']:.2f} GB/s)" if "gb_per_s_pass" in f else ""))
    benchmark.extra_info.update(rows=rows.info(), ratios=ratios, run_bytes=file_bytes, floor=floor)
    benchmark.pedantic(_run, args=(_cli(qrels, [run]), fast_out), rounds=1, iterations=1)


@pytest.mark.benchmark(group="trec-files")
def test_many_runs_one_qrels(benchmark, tmp_path):
    """100 runs of 100,000 lines against one qrels: the cost of each extra run in one
    ``fastndcg eval`` call, (time(100 runs) - time(1 run)) / 99, against the time to parse
    that run (``iter_line_blocks`` + ``TrecParser.parse``, default threads, in this process).
    The same at ``--threads 1`` (same denominator; the 1-thread parse is printed too)."""
    from fastndcg.io._files import iter_line_blocks
    from fastndcg.io._trec import TrecParser

    run, qrels = write_trec_files(str(tmp_path), n_topics=100)
    rows = _Rows()
    out = str(tmp_path / "out.txt")
    parse: List[float] = []
    parse1: List[float] = []
    for _ in range(ROUNDS):
        w, m, _ = _run(_cli(qrels, [run]), out)
        rows.add("1 run", w, m)
        w, m, _ = _run(_cli(qrels, [run] * 100), out)
        rows.add("100 runs", w, m)
        w, m, _ = _run(_cli(qrels, [run], "--threads", "1"), out)
        rows.add("1 run --threads 1", w, m)
        w, m, _ = _run(_cli(qrels, [run] * 100, "--threads", "1"), out)
        rows.add("100 runs --threads 1", w, m)
        for threads, into in ((None, parse), (1, parse1)):
            for _ in range(3):
                t = time.perf_counter()
                p = TrecParser(run, True, threads)
                for block in iter_line_blocks(run):
                    p.parse(block)
                into.append(time.perf_counter() - t)
    ratios = {}
    per_run = {}
    for suffix in ("", " --threads 1"):
        for k in ("best", "median"):
            pick = rows.best if k == "best" else rows.median
            per_run[suffix + k] = (pick("100 runs" + suffix) - pick("1 run" + suffix)) / 99
            ratios[f"per extra run{suffix} / parse ({k})"] = _ratio(
                per_run[suffix + k], min(parse) if k == "best" else statistics.median(parse))
    print(rows.table("100 runs x 100,000 lines, one qrels (12,000 judgments)", os.path.getsize(run)))
    for suffix in ("", " --threads 1"):
        print(f"  per extra run{suffix}: {per_run[suffix + 'best'] * 1e3:.1f} ms (best), "
              f"{per_run[suffix + 'median'] * 1e3:.1f} ms (median)")
    print(f"  parse alone {min(parse) * 1e3:.1f} / {statistics.median(parse) * 1e3:.1f} ms (1 thread: "
          f"{min(parse1) * 1e3:.1f} / {statistics.median(parse1) * 1e3:.1f} ms)")
    for k, v in ratios.items():
        print(f"  {k}: {v}")
    benchmark.extra_info.update(rows=rows.info(), ratios=ratios, parse_min=min(parse), parse_1thread_min=min(parse1))
    benchmark.pedantic(_run, args=(_cli(qrels, [run] * 100), out), rounds=1, iterations=1)


@pytest.mark.benchmark(group="trec-files")
@pytest.mark.parametrize("size", [s for s in SIZES if s in CHOSEN])
def test_gzip_and_stream(benchmark, trec_dirs, size, tmp_path):
    """A gzip run against the plain file (ISA-L; the zlib fallback), and --stream against
    the in-memory path (``eval -c -k 10``, whose only path --stream is)."""
    run, qrels = trec_dirs(size)
    gz = str(tmp_path / "run.txt.gz")
    with open(run, "rb") as f, gzip.open(gz, "wb", compresslevel=6) as g:
        shutil.copyfileobj(f, g, 1 << 22)
    rows = _Rows()
    out = str(tmp_path / "out.txt")
    k10 = [sys.executable, "-m", "fastndcg", "eval", "-c", "-k", "10", "--format", "trec", qrels, run]
    for _ in range(ROUNDS):
        w, m, _ = _run(_cli(qrels, [run]), out)
        rows.add("plain", w, m)
        w, m, _ = _run(_cli(qrels, [gz]), out)
        rows.add(".gz (isal)", w, m)
        w, m, _ = _run([sys.executable, "-c", _CLI_ZLIB] + _cli(qrels, [gz])[3:], out)
        rows.add(".gz (zlib)", w, m)
        w, m, _ = _run(k10, out)
        rows.add("-k 10 in memory", w, m)
        w, m, _ = _run(k10[:-2] + ["--stream"] + k10[-2:], out)
        rows.add("-k 10 --stream", w, m)
    ratios = {}
    for k in ("best", "median"):
        pick = rows.best if k == "best" else rows.median
        ratios[f".gz (isal) / plain ({k})"] = _ratio(pick(".gz (isal)"), pick("plain"))
        ratios[f".gz (zlib) / plain ({k})"] = _ratio(pick(".gz (zlib)"), pick("plain"))
        ratios[f"--stream / in memory ({k})"] = _ratio(pick("-k 10 --stream"), pick("-k 10 in memory"))
    print(rows.table(f"{size} lines: gzip and --stream", os.path.getsize(run)))
    for k, v in ratios.items():
        print(f"  {k}: {v}")
    benchmark.extra_info.update(rows=rows.info(), ratios=ratios)
    benchmark.pedantic(_run, args=(_cli(qrels, [gz]), out), rounds=1, iterations=1)
