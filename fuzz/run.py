#!/usr/bin/env python
"""Fuzz fastndcg's file parsers (see docs/fuzzing.md).

    python fuzz/run.py --target all --runs 100000              # atheris, normal build
    bash fuzz/build_asan.sh && python fuzz/run.py --asan --target run --runs 200000
    python fuzz/run.py --engine mutate --target all --runs 5000  # no atheris needed

Each target runs in its own process (libFuzzer owns the process); the seed
corpus is made at run time, in a temporary folder, from ../shared/data (or
--data) and the hand-made seeds in harness.py. Exit status 0 only if every
target finished its executions without a finding. Artifacts (the inputs that
failed) go to --artifacts.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ASAN_LIB = ROOT / "build" / "fuzz-asan" / "src"        # made by fuzz/build_asan.sh
DEFAULT_DATA = ROOT.parent / "shared" / "data"


def _scratch() -> str:
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix="fastndcg-fuzz-", dir=base)


# ----------------------------------------------------------------------------- worker (one target)


def worker(args) -> None:
    """Runs inside the fuzzing process: libFuzzer (through atheris) takes over."""
    import atheris

    sys.path.insert(0, str(HERE))
    # Python coverage for the code under test only: fastndcg.io (the
    # package's other modules and the oracle would slow the fuzzer down).
    import fastndcg  # noqa: F401  (imported first, so not instrumented; it does not import readers)

    with atheris.instrument_imports(include=["fastndcg"]):
        import fastndcg.io  # noqa: F401
    import harness
    import fastndcg.io._parse as _parse

    print(f"fuzz worker: target={args.worker} fastndcg.io._parse={_parse.__file__}", file=sys.stderr, flush=True)
    if args.asan and not _parse.__file__.startswith(str(ASAN_LIB)):
        sys.exit(f"--asan but fastndcg.io._parse comes from {_parse.__file__}")
    scratch = _scratch()
    target = args.worker

    def test_one(data: bytes) -> None:
        harness.run_one(target, data, scratch)

    argv = [sys.argv[0], *args.libfuzzer]
    try:
        atheris.Setup(argv, test_one)
        atheris.Fuzz()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# ----------------------------------------------------------------------------- driver


def _stale_asan_copy() -> str:
    """Bring the ASan copy's Python files up to date with the checkout (they
    are not compiled) and return the first compiled source (.pyx/.pxd) whose
    copy is missing or differs (a rebuild is needed), or ""."""
    if not (ASAN_LIB / "fastndcg").is_dir():
        return "no build"
    for src in sorted((ROOT / "fastndcg").iterdir()):
        copy = ASAN_LIB / "fastndcg" / src.name
        if src.suffix in (".py", ".pyx", ".pxd") and \
                (not copy.is_file() or copy.read_bytes() != src.read_bytes()):
            if src.suffix != ".py":
                return f"fastndcg/{src.name}"
            shutil.copyfile(src, copy)
    return ""


def _seed_corpus(target: str, data_root, corpus: Path, max_len: int) -> int:
    sys.path.insert(0, str(HERE))
    import harness

    seeds = harness.seed_inputs(data_root, target, max_len=max_len)
    corpus.mkdir(parents=True, exist_ok=True)
    for i, s in enumerate(seeds):
        (corpus / f"seed-{i:04d}").write_bytes(s)
    return len(seeds)


def _dictionary(path: Path) -> None:
    sys.path.insert(0, str(HERE))
    import harness

    with open(path, "w") as fh:
        for tok in harness._TOKENS:
            fh.write('"' + "".join(f"\\x{b:02x}" for b in tok) + '"\n')


def _env(asan: bool) -> dict:
    env = dict(os.environ)
    if asan:
        import atheris

        runtime = os.path.join(atheris.path(), "asan_with_fuzzer.so")
        env["LD_PRELOAD"] = runtime
        env["PYTHONPATH"] = os.pathsep.join([str(ASAN_LIB)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        # Python's small-object allocator hides overflows from ASan: use malloc.
        env["PYTHONMALLOC"] = "malloc"
        # malloc_context_size: shorter allocation stacks; every Python object
        # is a malloc here, and the default (30 frames) triples the run time.
        env.setdefault("ASAN_OPTIONS", "detect_leaks=0:allocator_may_return_null=1:abort_on_error=0"
                                       ":strict_string_checks=1:malloc_context_size=3")
        env.setdefault("UBSAN_OPTIONS", "halt_on_error=1:abort_on_error=0:print_stacktrace=1")
    env["OMP_NUM_THREADS"] = env.get("OMP_NUM_THREADS", "2")
    return env


_STAT = re.compile(r"stat::number_of_executed_units:\s*(\d+)")
_DONE = re.compile(r"Done (\d+) runs in (\d+) second")
_BAD = re.compile(r"ERROR: AddressSanitizer|runtime error:|ERROR: UndefinedBehaviorSanitizer|"
                  r"Uncaught Python exception|ERROR: libFuzzer|==\d+==ERROR|timeout after|"
                  r"out-of-memory|deadly signal")


def run_atheris(target: str, args, data_root) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"fuzz-{target}-"))
    try:
        corpus = work / "corpus"
        n_seeds = _seed_corpus(target, data_root, corpus, args.max_len)
        if args.corpus:
            extra = Path(args.corpus) / target
            extra.mkdir(parents=True, exist_ok=True)
            corpora = [str(extra), str(corpus)]
        else:
            corpora = [str(corpus)]
        dict_path = work / "tokens.dict"
        _dictionary(dict_path)
        artifacts = Path(args.artifacts) / target
        artifacts.mkdir(parents=True, exist_ok=True)
        lf = [*corpora, f"-max_len={args.max_len}", f"-timeout={args.timeout}", f"-rss_limit_mb={args.rss_mb}",
              f"-artifact_prefix={artifacts}/", f"-dict={dict_path}", "-print_final_stats=1",
              f"-seed={args.seed}"]
        if args.runs is not None:
            lf.append(f"-runs={args.runs}")
        if args.seconds is not None:
            lf.append(f"-max_total_time={args.seconds}")
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", target]
        if args.asan:
            cmd.append("--asan")
        cmd += ["--", *lf]
        log = work / "log.txt"
        t0 = time.time()
        with open(log, "wb") as fh:
            rc = subprocess.call(cmd, stdout=fh, stderr=subprocess.STDOUT, env=_env(args.asan))
        elapsed = time.time() - t0
        text = log.read_text(errors="replace")
        keep = Path(args.artifacts) / f"{target}.log"
        keep.write_text(text)
        m = _STAT.search(text) or _DONE.search(text)
        execs = int(m.group(1)) if m else 0
        bad = sorted(set(_BAD.findall(text)))
        ok = rc == 0 and not bad
        if not ok:
            tail = "\n".join(text.splitlines()[-60:])
            print(f"--- {target}: exit {rc}, log {keep}\n{tail}", file=sys.stderr)
        return dict(target=target, execs=execs, seconds=elapsed, ok=ok, rc=rc, seeds=n_seeds, bad=bad)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_mutate(target: str, args, data_root) -> dict:
    sys.path.insert(0, str(HERE))
    import harness

    scratch = _scratch()
    t0 = time.time()
    seeds, done = [], 0
    try:
        seeds = harness.seed_inputs(data_root, target, max_len=args.max_len)
        runs = args.runs if args.runs is not None else 10 ** 12
        deadline = None if args.seconds is None else t0 + args.seconds
        done = harness.mutation_loop(target, seeds, runs, scratch, rng_seed=args.seed,
                                     max_len=args.max_len, deadline=deadline)
        ok, err = True, ""
    except harness.Finding as exc:
        ok, err = False, str(exc)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not ok:
        print(f"--- {target}: finding\n{err}", file=sys.stderr)
    return dict(target=target, execs=done, seconds=time.time() - t0, ok=ok, rc=0 if ok else 1,
                seeds=len(seeds), bad=[] if ok else ["finding"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", default="all",
                    help="a target name, 'all' (one multiplexed target), 'each' (every target in turn)")
    ap.add_argument("--runs", type=int, default=None, help="executions per target")
    ap.add_argument("--seconds", type=int, default=None, help="time budget per target")
    ap.add_argument("--engine", choices=("atheris", "mutate"), default="atheris")
    ap.add_argument("--asan", action="store_true", help="use the ASan/UBSan build (fuzz/build_asan.sh)")
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="shared data folder for the seeds")
    ap.add_argument("--corpus", default=None, help="keep the evolving corpus here (per target)")
    ap.add_argument("--artifacts", default=str(ROOT / "build" / "fuzz-artifacts"))
    ap.add_argument("--max-len", type=int, default=4096)
    ap.add_argument("--timeout", type=int, default=20, help="seconds per input before a hang is reported")
    ap.add_argument("--rss-mb", type=int, default=3072)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="targets run at once")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("libfuzzer", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args)
        return 0
    if args.runs is None and args.seconds is None:
        ap.error("give --runs and/or --seconds")
    sys.path.insert(0, str(HERE))
    import harness

    data_root = Path(args.data) if args.data and Path(args.data).is_dir() else None
    if data_root is None:
        print(f"warning: no shared data at {args.data}; hand-made seeds only", file=sys.stderr)
    if args.asan:
        stale = _stale_asan_copy()
        if stale:
            print(f"the ASan build in {ASAN_LIB} is missing or older than the checkout ({stale}): "
                  "run `bash fuzz/build_asan.sh`", file=sys.stderr)
            return 2
    targets = harness.NAMES if args.target == "each" else [args.target]
    for t in targets:
        if t != "all" and t not in harness.TARGETS:
            ap.error(f"unknown target {t!r}; choose from all, each, {', '.join(harness.NAMES)}")
    Path(args.artifacts).mkdir(parents=True, exist_ok=True)
    runner = run_atheris if args.engine == "atheris" else run_mutate
    results = []
    if args.jobs > 1 and args.engine == "atheris":
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(args.jobs) as ex:
            results = list(ex.map(lambda t: runner(t, args, data_root), targets))
    else:
        for t in targets:
            results.append(runner(t, args, data_root))
            r = results[-1]
            print(f"{r['target']:<22} {r['execs']:>10} execs {r['seconds']:8.1f} s  "
                  f"{'ok' if r['ok'] else 'FAILED ' + ','.join(r['bad'])}", flush=True)
    total = sum(r["execs"] for r in results)
    secs = sum(r["seconds"] for r in results)
    print(f"{'total':<22} {total:>10} execs {secs:8.1f} s  engine={args.engine} asan={args.asan}")
    if args.jobs > 1:
        for r in results:
            print(f"{r['target']:<22} {r['execs']:>10} execs {r['seconds']:8.1f} s  "
                  f"{'ok' if r['ok'] else 'FAILED ' + ','.join(r['bad'])}")
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
