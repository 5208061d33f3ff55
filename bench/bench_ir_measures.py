"""fastndcg through ir_measures' inputs, against ir_measures itself (issue 25, item 6).

The inputs ir_measures users hold: the namedtuples of ``ir_measures.read_trec_qrels`` /
``read_trec_run`` (as lists, and as the generators themselves: then each call parses the files
again, the same parse for every row), pandas DataFrames with ir_measures' columns, and
pytrec_eval dicts. The data: Robust 2003 (``../shared/data/trectools-robust03``: 128,796
judgments of 100 topics, the run ``input.SABIR03BASE``, 100,000 results) and a generated run of
250 topics x 1,000 results with 120 judgments a topic (bench/trec_files_data.py).

Calls, each computing ``nDCG@10`` (judged topics without results count 0, as ir_measures does):

* ``ir_measures``: ``ir_measures.calc_aggregate`` with its default pipeline (pytrec_eval);
* ``fastndcg.calc_aggregate`` and ``fastndcg.iter_calc`` (consumed into a list);
* ``provider``: ``fastndcg.integrations.register_ir_measures()`` first, then
  ``ir_measures.calc_aggregate`` (the provider's evaluator converts the qrels and the run).

The rows are timed round by round, interleaved, in this process (imports excluded), so that
every ratio compares calls made under the same load. Each test prints min and median times
and the ratios ``ir_measures / row`` (> 1: faster than ir_measures), stores them in
``extra_info``, and checks that fastndcg's aggregate equals ir_measures' to 1e-12. Run::

    pytest bench/bench_ir_measures.py --benchmark-only -s

``FASTNDCG_BENCH_ROUNDS`` sets the rounds (15; 5 for the generators, which parse the files).

``test_pytrec_eval_dicts_2m`` (issue 36): pytrec_eval's own dicts of a generated run of 2,000
topics x 1,000 results (2M entries) and 240,000 judgments (``pytrec_eval.parse_run`` /
``parse_qrel``), ``ndcg_cut.10``: ``pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})``
and its ``evaluate(run)`` (the evaluator is built in the timed call, as each new qrels needs),
against ``fastndcg.evaluate("ndcg_cut.10", qrels, run, convention="pytrec_eval",
missing="skip")`` (the same numbers: float32 scores, judged topics without results left out),
and ``ir_measures.calc_aggregate`` against ``fastndcg.calc_aggregate`` on the same dicts
(``missing="zero"``, ir_measures' rule). Rounds interleaved as above (``FASTNDCG_BENCH_ROUNDS``,
at most 7 here)::

    pytest bench/bench_ir_measures.py -k dicts_2m --benchmark-only -s
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

import fastndcg
import fastndcg.integrations as provider

ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")

sys.path.insert(0, os.path.dirname(__file__))
from trec_files_data import write_trec_files  # noqa: E402

ROUNDS = int(os.environ.get("FASTNDCG_BENCH_ROUNDS", "15"))
ROBUST03 = Path(__file__).resolve().parents[2] / "shared" / "data" / "trectools-robust03"
MEASURES = [ir_measures.nDCG @ 10]
KINDS = ("lists", "generators", "pandas", "dicts")


def _provider_calc_aggregate(measures, qrels, run):
    provider.register_ir_measures()
    try:
        return ir_measures.calc_aggregate(measures, qrels, run)
    finally:
        provider.unregister_ir_measures()


# judged topics without results count 0, as ir_measures counts them (fastndcg's default is an error)
CALLS: Dict[str, Callable[..., Any]] = {
    "ir_measures": ir_measures.calc_aggregate,
    "fastndcg.calc_aggregate": lambda m, q, r: fastndcg.calc_aggregate(m, q, r, missing="zero"),
    "fastndcg.iter_calc": lambda m, q, r: list(fastndcg.iter_calc(m, q, r, missing="zero")),
    "provider": _provider_calc_aggregate,
}


def _inputs(qrels_path: str, run_path: str) -> Dict[str, Callable[[], Tuple[Any, Any]]]:
    """For each kind, a function returning fresh (qrels, run) of that kind."""
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    run = list(ir_measures.read_trec_run(run_path))
    frames = (pd.DataFrame(qrels), pd.DataFrame(run))
    dicts = (ir_measures.util.QrelsConverter(qrels).as_dict_of_dict(),
             ir_measures.util.RunConverter(run).as_dict_of_dict())
    return {"lists": lambda: (qrels, run),
            "generators": lambda: (ir_measures.read_trec_qrels(qrels_path), ir_measures.read_trec_run(run_path)),
            "pandas": lambda: frames, "dicts": lambda: dicts}


def _compare(inputs: Dict[str, Callable[[], Tuple[Any, Any]]], title: str) -> Dict[str, Any]:
    times: Dict[str, Dict[str, List[float]]] = {k: {c: [] for c in CALLS} for k in KINDS}
    for kind in KINDS:
        rounds = max(1, ROUNDS // 3) if kind == "generators" else ROUNDS
        for _ in range(rounds):
            for name, call in CALLS.items():
                qrels, run = inputs[kind]()
                t = time.perf_counter()
                out = call(MEASURES, qrels, run)
                times[kind][name].append(time.perf_counter() - t)
                if name != "fastndcg.iter_calc":
                    value = out[MEASURES[0]]
                    if name == "ir_measures":
                        want = value
                    assert abs(value - want) <= 1e-12, (kind, name, value, want)
    lines = [f"\n{title}", f"{'input':<12}{'call':<26}{'min ms':>9}{'median':>9}{'ir_measures / row':>19}"]
    ratios: Dict[str, float] = {}
    for kind in KINDS:
        base = times[kind]["ir_measures"]
        for name, ts in times[kind].items():
            r_min, r_med = min(base) / min(ts), statistics.median(base) / statistics.median(ts)
            lines.append(f"{kind:<12}{name:<26}{min(ts) * 1e3:9.1f}{statistics.median(ts) * 1e3:9.1f}"
                         f"{r_min:10.2f} /{r_med:6.2f}")
            if name != "ir_measures":
                ratios[f"{kind}: ir_measures / {name} (best)"] = round(r_min, 2)
                ratios[f"{kind}: ir_measures / {name} (median)"] = round(r_med, 2)
    print("\n".join(lines))
    return {"ratios": ratios, "times": {k: {c: dict(min=min(v), median=statistics.median(v)) for c, v in d.items()}
                                        for k, d in times.items()}}


@pytest.mark.benchmark(group="ir_measures")
def test_robust03(benchmark):
    """Robust 2003, input.SABIR03BASE (100,000 results) against 128,796 judgments."""
    if not ROBUST03.is_dir():
        pytest.skip(f"shared data not found: {ROBUST03}")
    qrels_path, run_path = str(ROBUST03 / "robust03_qrels.txt"), str(ROBUST03 / "runs" / "input.SABIR03BASE.gz")
    inputs = _inputs(qrels_path, run_path)
    info = _compare(inputs, "Robust 2003, input.SABIR03BASE, nDCG@10")
    benchmark.extra_info.update(info)
    benchmark.pedantic(CALLS["fastndcg.calc_aggregate"], args=(MEASURES, *inputs["lists"]()), rounds=3, iterations=1)


@pytest.mark.benchmark(group="ir_measures")
def test_generated_250k(benchmark, tmp_path):
    """A generated run of 250 topics x 1,000 results, 30,000 judgments."""
    run_path, qrels_path = write_trec_files(str(tmp_path), n_topics=250)
    inputs = _inputs(qrels_path, run_path)
    info = _compare(inputs, "generated, 250 topics x 1,000 results, nDCG@10")
    benchmark.extra_info.update(info)
    benchmark.pedantic(CALLS["fastndcg.calc_aggregate"], args=(MEASURES, *inputs["lists"]()), rounds=3, iterations=1)


@pytest.mark.benchmark(group="ir_measures")
def test_pytrec_eval_dicts_2m(benchmark, tmp_path):
    """pytrec_eval's dicts of 2M results: RelevanceEvaluator against fastndcg.evaluate, and
    ir_measures.calc_aggregate against fastndcg.calc_aggregate."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run_path, qrels_path = write_trec_files(str(tmp_path), n_topics=2000)
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    n_run, n_qrels = sum(map(len, run.values())), sum(map(len, qrels.values()))

    def pytrec(q, r):
        res = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10"}).evaluate(r)
        return sum(v["ndcg_cut_10"] for v in res.values()) / len(res)

    def fast(q, r):
        return fastndcg.evaluate("ndcg_cut.10", q, r, convention="pytrec_eval", missing="skip"
                                 ).aggregated["ndcg_cut_10"]

    calls = {"pytrec_eval RelevanceEvaluator": pytrec, "fastndcg.evaluate": fast,
             "ir_measures.calc_aggregate": lambda q, r: ir_measures.calc_aggregate(MEASURES, q, r)[MEASURES[0]],
             "fastndcg.calc_aggregate": lambda q, r: CALLS["fastndcg.calc_aggregate"](MEASURES, q, r)[MEASURES[0]]}
    times: Dict[str, List[float]] = {c: [] for c in calls}
    values: Dict[str, float] = {}
    names = list(calls)
    for k in range(min(ROUNDS, 7)):
        for name in names[k % len(names):] + names[:k % len(names)]:      # each round starts one call later
            t = time.perf_counter()
            values[name] = calls[name](qrels, run)
            times[name].append(time.perf_counter() - t)
    assert abs(values["fastndcg.evaluate"] - values["pytrec_eval RelevanceEvaluator"]) <= 1e-12, values
    assert abs(values["fastndcg.calc_aggregate"] - values["ir_measures.calc_aggregate"]) <= 1e-12, values
    ratios = {}
    lines = [f"\npytrec_eval dicts: {n_run:,} results, {n_qrels:,} judgments, ndcg_cut.10",
             f"{'call':<34}{'min ms':>9}{'median':>9}{'baseline / row':>17}"]
    for name, base in (("fastndcg.evaluate", "pytrec_eval RelevanceEvaluator"),
                       ("fastndcg.calc_aggregate", "ir_measures.calc_aggregate")):
        for row in (base, name):
            ts, bs = times[row], times[base]
            r_min, r_med = min(bs) / min(ts), statistics.median(bs) / statistics.median(ts)
            lines.append(f"{row:<34}{min(ts) * 1e3:9.1f}{statistics.median(ts) * 1e3:9.1f}{r_min:10.2f} /{r_med:6.2f}")
            if row != base:
                ratios[f"{base} / {row} (best)"] = round(r_min, 2)
                ratios[f"{base} / {row} (median)"] = round(r_med, 2)
    print("\n".join(lines))
    benchmark.extra_info.update(ratios=ratios, times={c: dict(min=min(v), median=statistics.median(v))
                                                      for c, v in times.items()})
    benchmark.pedantic(fast, args=(qrels, run), rounds=1, iterations=1)
