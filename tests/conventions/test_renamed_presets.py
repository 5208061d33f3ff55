"""Every preset, renamed, computes what it computes and fails as it fails, through every door.

A convention's name is a label for reports (issue 34, item 1): what it computes follows its
fields. Each preset of :func:`fastndcg.list_presets` is renamed
(``get_preset(p).replace(name="mine")``) and asked the same questions as the preset itself, on
small inputs heavy with ties and on trec_eval's own test files: the answers must be bit-identical
and the errors and warnings the same (type and message, the name aside: the renamed convention's
messages are read with ``mine`` put back to the preset's name). The doors: the array functions
(``ndcg``, ``mean_ndcg``, ``NDCGScorer``, ``dcg``, ``lambda_gradients`` in every mode,
``delta_ndcg_pairs``, ``soft_ndcg``, ``measurement=``), ``fastndcg.evaluate`` (measurements
built with ``convention=``, and trec_eval / ir_measures strings with ``convention=``), streaming
(``fastndcg.stream.evaluate_stream``: TREC runs, arrays, SVMlight files), the CLI (``eval``,
``compare``, ``test``; a renamed preset reaches it by being registered, below),
``fastndcg.compare`` (the report, beside another preset: its baseline too) and the ir_measures
provider (peers tier); whole real data sets (Robust 2003, LightGBM's rank.test) in the slow tier. trec_eval's custom gains are in every door that takes them
(``gains=``, ``--gain``, ``-m ndcg.L=G``), with a gain for level -1 under ``missing="zero"`` /
``-c``: trec_eval 10 ranks a judged topic without results as one unjudged document
(``missing_ranking="unjudged"``), and ``trec_eval_cut`` refuses gains
(``custom_gains="refuse"``).

The CLI takes a preset by name only, and there is no public way to register one:
:func:`registered` adds the renamed convention to the two registries the CLI reads
(``fastndcg.PRESETS`` and the preset records, ``fastndcg.conventions._presets.RECORDS``, the
record being the preset's own with the renamed convention), as ``_register`` does for the
built-in presets. :func:`test_cli_signatures_do_not_carry_the_name` checks the supported route
too: a measurement's signature (``-m <signature>``) is the same for a preset and its renamed copy.
"""
from __future__ import annotations

import dataclasses
import json
import re
import warnings
from pathlib import Path
from typing import Any, Callable, List, NamedTuple, Optional, Tuple

import numpy as np
import pytest

import fastndcg
from fastndcg.stream import evaluate_stream

from conftest import make_batch, require, run_cli

NAME = "mine"
#: Three presets run in the fast tier (trec_eval 10's and 9's rules, a gain table with unknown
#: labels at 0; trec_eval_cut's refusal of gains has its own fast test below); every preset runs
#: in the slow tier, which CI runs too.
FAST_PRESETS = ("trec_eval", "pytrec_eval", "letor4")
PRESETS = [p if p in FAST_PRESETS else pytest.param(p, marks=pytest.mark.slow) for p in fastndcg.list_presets()]
ALL_PRESETS = fastndcg.list_presets()
_RENAMED_WORD = re.compile(rf"(?<![\w.-]){NAME}(?![\w])")


def renamed(preset: str) -> fastndcg.Convention:
    return fastndcg.get_preset(preset).replace(name=NAME)


def as_original(text: str, preset: str) -> str:
    """A renamed convention's message with the preset's name put back."""
    return _RENAMED_WORD.sub(preset, text)


# ----------------------------------------------------------------------------- outcomes


class Outcome(NamedTuple):
    value: Any
    error: Optional[Tuple[type, str]]
    warnings: List[Tuple[type, str]]


def outcome(call: Callable[[], Any], preset: Optional[str] = None) -> Outcome:
    """What ``call`` returns, raises and warns; ``preset``: the messages are a renamed
    convention's, read with the preset's name put back."""
    def text(message: Any) -> str:
        return as_original(str(message), preset) if preset is not None else str(message)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value, error = call(), None
        except Exception as exc:        # compared below: the same type and message
            value, error = None, (type(exc), text(exc))
    return Outcome(value, error, [(w.category, text(w.message)) for w in caught])


def assert_bits(a: Any, b: Any, where: str = "") -> None:
    """``a`` and ``b`` hold the same values bit for bit (NaNs included)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert a.tobytes() == b.tobytes(), f"{where}: {a!r} != {b!r}"
    elif isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating)):
        assert type(a) is type(b), where
        assert np.float64(a).tobytes() == np.float64(b).tobytes(), f"{where}: {a!r} != {b!r}"
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_bits(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert type(a) is type(b) and list(a) == list(b), where
        for key in a:
            assert_bits(a[key], b[key], f"{where}[{key!r}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def same_outcome(preset: str, call: Callable[[fastndcg.Convention], Any],
                 view: Callable[[Any], Any] = lambda v: v, where: str = "") -> Outcome:
    """``call`` under the preset and under its renamed copy: the same values (``view`` of
    them), errors and warnings. Returns the preset's outcome."""
    want = outcome(lambda: view(call(fastndcg.get_preset(preset))))
    got = outcome(lambda: view(call(renamed(preset))), preset)
    assert got.error == want.error, where
    assert got.warnings == want.warnings, where
    assert_bits(got.value, want.value, where)
    return want


# ----------------------------------------------------------------------------- array inputs


class Batch(NamedTuple):
    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    tie_key: Optional[np.ndarray]
    weights: np.ndarray

    def key(self, conv: fastndcg.Convention) -> Optional[np.ndarray]:
        """The tie key where the convention's ties read one (by its fields)."""
        return self.tie_key if conv.uses_tie_key else None


def _batch(seed: int = 7, dtype: Any = np.float64) -> Batch:
    rng = np.random.default_rng(seed)
    s, y, off = make_batch(rng, n_queries=12, max_docs=9, n_score_values=3, n_labels=4, dtype=dtype,
                           p_empty_query=0.15, p_single=0.15, p_all_zero=0.15)
    key = np.concatenate([rng.permutation(int(b - a)) for a, b in zip(off[:-1], off[1:])]).astype(np.int64)
    return Batch(s, y, off, key, rng.random(len(off) - 1) + 0.5)


def _array_cases() -> dict:
    base = _batch()
    cases = {"ties": base, "ties_float32": _batch(dtype=np.float32), "no_tie_key": base._replace(tie_key=None)}
    y = base.labels.copy()
    y[::5] = 40                                       # beyond every gain table
    cases["labels_beyond_tables"] = base._replace(labels=y)
    y = base.labels.astype(np.float64)
    y[3] = 1.5                                        # not an integer
    cases["fractional_label"] = base._replace(labels=y)
    y = base.labels.copy()
    y[4] = -1
    cases["negative_label"] = base._replace(labels=y)
    s = base.scores.copy()
    s[2], s[6] = 1e39, -1e39                          # beyond float32
    cases["beyond_float32"] = base._replace(scores=s)
    s = base.scores.copy()
    s[5] = np.nan
    cases["nan_score"] = base._replace(scores=s)
    return cases


ARRAY_CASES = _array_cases()
CUTOFFS = [1, 3, 5, None]


def _scorer(c: fastndcg.Convention, b: Batch) -> Any:
    scorer = fastndcg.NDCGScorer(b.labels, b.offsets, CUTOFFS, convention=c, weights=b.weights, tie_key=b.key(c))
    return scorer.evaluate(b.scores), scorer.dcg(b.scores), scorer.ideal_dcg


ARRAY_DOORS = {
    "ndcg": lambda c, b: fastndcg.ndcg(b.scores, b.labels, b.offsets, CUTOFFS, convention=c, tie_key=b.key(c)),
    "ndcg_measurement": lambda c, b: fastndcg.ndcg(b.scores, b.labels, b.offsets,
                                                   measurement=fastndcg.measurement(5, convention=c),
                                                   tie_key=b.key(c)),
    "mean_ndcg": lambda c, b: fastndcg.mean_ndcg(b.scores, b.labels, b.offsets, CUTOFFS, convention=c,
                                                 weights=b.weights, tie_key=b.key(c)),
    "NDCGScorer": _scorer,
    "dcg": lambda c, b: fastndcg.dcg(b.scores, b.labels, b.offsets, CUTOFFS, convention=c, tie_key=b.key(c)),
    "lambda_gradients_default": lambda c, b: fastndcg.lambda_gradients(
        b.scores, b.labels, b.offsets, convention=c, tie_key=b.key(c), query_weights=b.weights),
    "lambda_gradients_lightgbm": lambda c, b: fastndcg.lambda_gradients(
        b.scores, b.labels, b.offsets, mode="lightgbm", convention=c, tie_key=b.key(c)),
    "lambda_gradients_xgboost": lambda c, b: fastndcg.lambda_gradients(
        b.scores, b.labels, b.offsets, mode="xgboost", convention=c, tie_key=b.key(c)),
    "delta_ndcg_pairs": lambda c, b: tuple(fastndcg.delta_ndcg_pairs(
        b.scores, b.labels, b.offsets, convention=c, truncation=4, cut_discount=True, tie_key=b.key(c))),
    "soft_ndcg": lambda c, b: fastndcg.soft_ndcg(b.scores, b.labels, b.offsets, sigma=0.5, k=3, convention=c),
}


@pytest.mark.parametrize("door", sorted(ARRAY_DOORS))
@pytest.mark.parametrize("preset", PRESETS)
def test_array_doors(preset, door):
    computed = 0
    for case, batch in ARRAY_CASES.items():
        got = same_outcome(preset, lambda c: ARRAY_DOORS[door](c, batch), where=f"{door}, {case}")
        computed += got.error is None
    if not door.startswith(("lambda_gradients", "delta_ndcg")):      # (LambdaMART takes some presets only)
        assert computed, f"{door} under {preset} computed nothing: the comparison compared errors only"


def test_a_measurement_keeps_its_convention():
    for preset in ALL_PRESETS:
        conv = renamed(preset)
        m = fastndcg.measurement(10, convention=conv)
        assert m.convention.name == NAME and m.convention == conv, preset
        assert m.signature == fastndcg.measurement(10, convention=preset).signature


# ----------------------------------------------------------------------------- fastndcg.evaluate


# Ties across levels, unjudged documents (u*), judgments below 0, a topic without a relevant
# document, a judged topic missing from the run (t3) and a run topic without judgments (t9).
HAND_QRELS = {
    "t1": {"a": 2, "b": 1, "c": 0, "d": -1, "e": 3, "z": 1},
    "t2": {"a": 0, "b": 0},
    "t3": {"x": 1, "y": 2},
    "t4": {"a": -2, "b": 1, "c": 2},
}
HAND_RUN = {
    "t1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5, "u1": 1.0, "u2": 0.5, "e": 0.5},
    "t2": {"a": 2.0, "b": 2.0, "u": 2.0},
    "t4": {"a": 1.0, "b": 1.0, "u": 1.0, "c": 0.25},
    "t9": {"a": 1.0},
}
GAINS = ["1=3,2=9", "-1=2,1=3,2=9", "-2=1,-1=-0.5,0=0.25"]
TREC_STRINGS = ["ndcg", "ndcg_cut.1,5,10", "ndcg.1=3,2=9", "ndcg.-1=2,1=3,2=9", "ndcg_rel.-1=1", "Rndcg",
                "ndcg_p.-1=2", "dcg.-1=1", "ideal_dcg", "nDCG@5", "nDCG(dcg='exp-log2')@5",
                "nDCG(gains={0:1,1:3})@5", "nDCG(judged_only=True)@5"]


def _trec_inputs(shared_data: Optional[Path], which: str) -> Tuple[Any, Any]:
    if which == "hand":
        return HAND_QRELS, HAND_RUN
    base = shared_data / "trec_eval-test"
    return base / "qrels.test", base / ("results.trunc" if which == "trunc" else "results.test")


def _evaluation_view(ev: Any) -> Any:
    """What an Evaluation says, its measurements' conventions by their fields."""
    return (ev.values, [str(m) for m in ev.measures], ev.query_ids, [float(v) for v in ev.aggregated.values()],
            ev.run_name, ev.missing_query_ids, ev.ignored_query_ids,
            [(m.signature, m.label, m.name) for m in ev.measurements])


def _evaluate_both(preset: str, qrels: Any, run: Any, measures: Callable[[Any], Any], where: str, **kw: Any):
    got = same_outcome(preset, lambda c: fastndcg.evaluate(measures(c), qrels, run, **kw), _evaluation_view,
                       where)
    return got


@pytest.fixture
def trec_data(request, shared_data):
    return _trec_inputs(shared_data, request.param)


@pytest.mark.parametrize("trec_data", ["hand", "trunc", "full"], indirect=True)
@pytest.mark.parametrize("preset", PRESETS)
def test_evaluate_measurements(preset, trec_data):
    qrels, run = trec_data
    for missing in ("error", "zero", "skip"):
        _evaluate_both(preset, qrels, run,
                       lambda c: [fastndcg.measurement(k, convention=c, missing=missing) for k in (None, 1, 5, 10)],
                       f"missing={missing}")
    for gains in GAINS:
        for k in (None, 5):
            _evaluate_both(preset, qrels, run,
                           lambda c: [fastndcg.measurement(k, convention=c, gains=gains, missing="zero")],
                           f"gains={gains}, k={k}")
    # the measurements an Evaluation reports are the ones asked for: the renamed convention's
    conv = renamed(preset)
    ev = outcome(lambda: fastndcg.evaluate([fastndcg.measurement(5, convention=conv, missing="zero")],
                                           qrels, run)).value
    if ev is not None:
        assert ev.measurements[0].convention is conv


@pytest.mark.parametrize("missing", ["zero", "skip", "error"])
@pytest.mark.parametrize("trec_data", ["hand", "trunc"], indirect=True)
@pytest.mark.parametrize("preset", PRESETS)
def test_evaluate_measure_strings(preset, trec_data, missing):
    qrels, run = trec_data
    for text in TREC_STRINGS:
        same_outcome(preset, lambda c: fastndcg.evaluate(text, qrels, run, convention=c, missing=missing),
                     _evaluation_view, f"{text}, missing={missing}")
    same_outcome(preset, lambda c: fastndcg.evaluate(TREC_STRINGS, qrels, run, convention=c, missing=missing,
                                                     judged_only=True, max_docs=3, relevance_level=2),
                 _evaluation_view, "-J -M 3 -l 2")
    # trec_eval-syntax measures under the renamed convention report it as theirs
    ev = outcome(lambda: fastndcg.evaluate("ndcg_cut.5", qrels, run, convention=renamed(preset),
                                           missing=missing)).value
    if ev is not None:
        assert ev.measurements[0].convention.name == NAME


def test_renamed_presets_keep_trec_eval_10s_ranking_of_a_missing_topic_and_ndcg_cuts_refusal(shared_data):
    """What trec_eval's presets implied by name is in their fields: a renamed ``trec_eval`` ranks a
    judged topic without results as one unjudged document under ``missing="zero"`` (trec_eval 10's
    ``-c``: with a gain for level -1 it scores), a renamed ``pytrec_eval`` ranks nothing (0), and a
    renamed ``trec_eval_cut`` refuses custom gains, naming itself by its label."""
    base = shared_data / "trec_eval-test"

    def topic_302(conv: Any) -> float:          # judged in qrels.test, not in results.trunc
        ev = fastndcg.evaluate([fastndcg.measurement(None, convention=conv, gains="-1=2,1=3,2=9", missing="zero")],
                               base / "qrels.test", base / "results.trunc")
        return ev.values[ev.query_ids.index("302"), 0]

    assert topic_302(renamed("trec_eval")) == topic_302("trec_eval") > 0
    assert topic_302(renamed("pytrec_eval")) == topic_302("pytrec_eval") == 0
    with pytest.raises(ValueError, match="custom gains do not apply to convention 'mine' \\(custom_gains='refuse'\\)"):
        fastndcg.measurement(5, convention=renamed("trec_eval_cut"), gains="1=3")


# ----------------------------------------------------------------------------- streaming


def _stream_view(res: Any) -> Any:
    return (res.mean, res.ndcg, None if res.query_ids is None else [str(q) for q in res.query_ids.tolist()],
            res.n_queries, res.n_rows, res.signatures, getattr(res, "run_name", None),
            [str(q) for q in getattr(res, "missing_qids", []) or []])


def _write_hand_trec(tmp_path: Path) -> Tuple[Path, Path]:
    q, r = tmp_path / "hand.qrels", tmp_path / "hand.run"
    q.write_text("".join(f"{t} 0 {d} {lv}\n" for t, docs in HAND_QRELS.items() for d, lv in docs.items()))
    r.write_text("".join(f"{t} Q0 {d} {i} {s} hand\n" for t, docs in HAND_RUN.items()
                         for i, (d, s) in enumerate(docs.items())))
    return q, r


def _contiguous_trunc(shared_data: Path, tmp_path: Path) -> Path:
    """trec_eval's results.trunc (topic 302 judged, not retrieved) with each topic's lines together,
    as streaming reads them."""
    lines = (shared_data / "trec_eval-test" / "results.trunc").read_text().splitlines(keepends=True)
    path = tmp_path / "results.trunc.sorted"
    path.write_text("".join(sorted(lines, key=lambda line: line.split()[0])))
    return path


def _write_svmlight(tmp_path: Path, batch: Batch) -> Tuple[Path, List[Path]]:
    """The batch as an SVMlight file (its empty queries left out) and two prediction files."""
    data, preds = tmp_path / "tied.svm", [tmp_path / "a.pred", tmp_path / "b.pred"]
    lines = []
    for q, (a, b) in enumerate(zip(batch.offsets[:-1], batch.offsets[1:])):
        lines += [f"{int(batch.labels[i])} qid:{q + 1} 1:{batch.scores[i]:g}\n" for i in range(a, b)]
    data.write_text("".join(lines))
    n = int(batch.offsets[-1])
    preds[0].write_text("".join(f"{v:g}\n" for v in batch.scores[:n]))
    preds[1].write_text("".join(f"{v:g}\n" for v in np.round(batch.scores[:n][::-1] * 3) / 3))
    return data, preds


@pytest.mark.parametrize("preset", PRESETS)
def test_streaming(preset, shared_data, tmp_path):
    hand_q, hand_r = _write_hand_trec(tmp_path)
    runs = [(shared_data / "trec_eval-test" / "qrels.test", _contiguous_trunc(shared_data, tmp_path)),
            (hand_q, hand_r)]
    for qrels, run in runs:
        for options in (dict(missing="zero"), dict(missing="skip"), dict(missing="error"),
                        dict(missing="zero", gains="-1=2,1=3,2=9"), dict(missing="zero", gains="1=3,2=9", ideal="run"),
                        dict(missing="skip", max_docs=2)):
            got = same_outcome(preset, lambda c: evaluate_stream(run, [1, 5, None], convention=c, qrels=qrels,
                                                                 chunk_rows=4, **options),
                               _stream_view, f"{run.name} {options}")
            if options == dict(missing="zero"):
                assert got.error is None, got.error
    batch = ARRAY_CASES["ties"]
    same_outcome(preset, lambda c: evaluate_stream((batch.scores, batch.labels, batch.offsets), CUTOFFS,
                                                   convention=c, chunk_rows=10, tie_key=batch.key(c)),
                 _stream_view, "arrays")
    data, preds = _write_svmlight(tmp_path, batch)
    same_outcome(preset, lambda c: evaluate_stream(data, CUTOFFS, convention=c, predictions=preds[0],
                                                   chunk_rows=10), _stream_view, "svmlight")


# ----------------------------------------------------------------------------- the CLI


@pytest.fixture
def registered(monkeypatch):
    """``register(preset)``: the preset renamed, registered as ``mine`` (for ``--preset mine``)."""
    from fastndcg.conventions import _presets

    def register(preset: str) -> None:
        monkeypatch.setitem(fastndcg.PRESETS, NAME, renamed(preset))
        monkeypatch.setitem(_presets.RECORDS, NAME,
                            dataclasses.replace(_presets.RECORDS[preset], convention=renamed(preset)))
    return register


def _cli_both(capsys, register, preset: str, argv: List[Any]) -> Tuple[int, str, str]:
    """The CLI with ``{preset}`` in ``argv`` as the preset, then as its renamed copy: the same
    exit code, and the same output and messages with ``mine`` read as the preset's name."""
    want = run_cli(capsys, *[str(a).format(preset=preset) for a in argv])
    register(preset)
    code, out, err = run_cli(capsys, *[str(a).format(preset=NAME) for a in argv])
    assert code == want[0], (want, err)
    assert as_original(err, preset) == want[2]
    assert as_original(out, preset) == want[1]
    return want


def _json_numbers(out: str) -> Any:
    return json.loads(out) if out.strip() else None


CLI_CASES = {
    "eval_default_cutoffs": ["eval", "{Q}", "{R}", "--preset", "{preset}", "--format", "json"],
    "eval_cutoffs": ["eval", "{Q}", "{R}", "--preset", "{preset}", "-k", "1,5,all", "--format", "json", "-q"],
    "eval_c": ["eval", "{Q}", "{T}", "-c", "--preset", "{preset}", "-k", "3,all", "--format", "json", "-q"],
    "eval_missing_error": ["eval", "{Q}", "{T}", "--preset", "{preset}", "-k", "3"],
    "eval_gain_c": ["eval", "{Q}", "{T}", "-c", "--preset", "{preset}", "--gain=-1=2,1=3,2=9", "--format", "json",
                    "-q"],
    "eval_gain_table": ["eval", "{Q}", "{R}", "--preset", "{preset}", "--gain", "1=3,2=9", "-k", "all",
                        "--format", "json", "-q"],
    "eval_m": ["eval", "{Q}", "{T}", "-c", "--preset", "{preset}", "-m", "ndcg.-1=2,1=3,2=9", "-m",
               "ndcg_cut.5,10", "-m", "Rndcg", "-m", "nDCG@5", "--format", "json", "-q"],
    "eval_J": ["eval", "{Q}", "{R}", "--preset", "{preset}", "-J", "-k", "all", "--format", "json"],
    "eval_stream": ["eval", "{Q}", "{T}", "-c", "--stream", "--preset", "{preset}", "-k", "1,5,all",
                    "--format", "json", "-q"],
    "eval_trec_format": ["eval", "{Q}", "{R}", "--preset", "{preset}", "-k", "5,10,all", "--format", "trec", "-q"],
    "eval_table_verbose": ["eval", "{Q}", "{R}", "--preset", "{preset}", "-k", "5,all", "-v"],
    "eval_data": ["eval", "--data", "{D}", "{P}", "--preset", "{preset}", "-k", "1,3,all", "--format", "json",
                  "-q"],
    "eval_data_stream": ["eval", "--data", "{D}", "{P}", "--stream", "--preset", "{preset}", "-k", "1,3,all",
                         "--format", "json", "-q"],
    "compare": ["compare", "{Q}", "{R}", "{T}", "-c", "--presets", "{preset}", "-k", "1,5,all", "--format",
                "json", "--per-query"],
    "compare_two_presets": ["compare", "{Q}", "{R}", "{T}", "-c", "--presets", "{other},{preset}", "-k", "1,5",
                            "--format", "json", "--per-query"],
    "compare_two_presets_data": ["compare", "--data", "{D}", "{P}", "{P2}", "--presets", "{other},{preset}", "-k",
                                 "1,3", "--format", "json"],
    "compare_data": ["compare", "--data", "{D}", "{P}", "{P2}", "--presets", "{preset}", "-k", "1,3",
                     "--format", "json", "--per-query"],
    "test": ["test", "{Q}", "{R}", "{T}", "-c", "--preset", "{preset}", "-k", "5,all", "--resamples", "200",
             "--format", "json"],
    "test_data": ["test", "--data", "{D}", "{P}", "{P2}", "--preset", "{preset}", "-k", "3", "--resamples",
                  "200", "--format", "json"],
}


def _other(preset: str) -> str:
    """A preset to compare beside ``preset``, listed first (the baseline is chosen among them)."""
    return "letor4" if preset != "letor4" else "sklearn"


def _cli_files(shared_data: Path, tmp_path: Path, hand: bool) -> dict:
    base = shared_data / "trec_eval-test"
    data, preds = _write_svmlight(tmp_path, ARRAY_CASES["ties"])
    files = dict(Q=base / "qrels.test", R=base / "results.test", T=_contiguous_trunc(shared_data, tmp_path),
                 D=data, P=preds[0], P2=preds[1])
    if hand:
        files["Q"], run = _write_hand_trec(tmp_path)
        files["R"] = tmp_path / "hand_all.run"       # every judged topic retrieved
        files["R"].write_text(run.read_text() + "t3 Q0 y 0 1 hand\nt3 Q0 u 1 1 hand\nt3 Q0 x 2 1 hand\n")
        files["T"] = tmp_path / "hand2.run"          # t1 and t2 only: t3 and t4 judged, missing
        files["T"].write_text("t1 Q0 e 0 1 other\nt1 Q0 a 1 1 other\nt1 Q0 u 2 1 other\nt2 Q0 b 0 3 other\n")
    return files


@pytest.mark.parametrize("case, hand", [(case, hand) for case in sorted(CLI_CASES) for hand in (False, True)
                                        if not (hand and "data" in case)])     # (one set of SVMlight files)
@pytest.mark.parametrize("preset", PRESETS)
def test_cli(preset, case, hand, shared_data, tmp_path, capsys, registered):
    files = {k: str(v) for k, v in _cli_files(shared_data, tmp_path, hand).items()}
    argv = [a.format(preset="{preset}", other=_other(preset), **files) for a in CLI_CASES[case]]
    code, out, err = _cli_both(capsys, registered, preset, argv)
    if "json" in argv and code == 0:
        assert _json_numbers(out) is not None


@pytest.mark.parametrize("preset", PRESETS)
def test_report_compare(preset):
    """``fastndcg.compare`` with the preset (or its renamed copy) beside another: the same report,
    the name aside (values, tie ranges, orders of the systems, flips and the baseline)."""
    b = ARRAY_CASES["ties"]
    runs = {"a": b.scores, "b": np.round(b.scores[::-1] * 3) / 3, "c": b.scores * 0}
    for per_query in (False, True):
        same_outcome(preset, lambda c: fastndcg.compare(runs, b.labels, b.offsets, k=CUTOFFS,
                                                        presets=[_other(preset), c], tie_key=b.tie_key,
                                                        per_query=per_query),
                     lambda r: as_original(r.to_json(), preset) if r.presets[1] == NAME else r.to_json(),
                     f"per_query={per_query}")


def test_cli_compares_a_preset_and_its_renamed_copy_side_by_side(shared_data, capsys, registered):
    """``compare --presets P,mine``: the two columns are the same numbers, for every preset."""
    base = shared_data / "trec_eval-test"
    for preset in ALL_PRESETS:
        registered(preset)
        code, out, err = run_cli(capsys, "compare", base / "qrels.test", base / "results.trunc", "-c",
                                 "--presets", f"{preset},{NAME}", "-k", "1,5,all", "--format", "json",
                                 "--per-query")
        assert code == 0, err
        got = json.loads(out)
        text = json.dumps(got)
        assert NAME in text
        pairs = _preset_pairs(got, preset)
        assert pairs, f"{preset}: no per-preset values found in compare's JSON"
        for a, b in pairs:
            assert_bits(a, b, preset)


def _preset_pairs(obj: Any, preset: str) -> List[Tuple[Any, Any]]:
    """Every (value under ``preset``, value under ``mine``) pair of a dict keyed by both, anywhere."""
    pairs = []
    if isinstance(obj, dict):
        if preset in obj and NAME in obj:
            a, b = obj[preset], obj[NAME]
            if isinstance(a, dict) and "describe" in a:          # the fields shown: the name aside
                a, b = {**a, "describe": ""}, {**b, "describe": ""}
            pairs.append((a, b))
        for v in obj.values():
            pairs += _preset_pairs(v, preset)
    elif isinstance(obj, list):
        for v in obj:
            pairs += _preset_pairs(v, preset)
    return pairs


def test_cli_signatures_do_not_carry_the_name():
    """The supported way to hand the CLI a convention that is no registered preset: ``-m`` with a
    measurement's signature. It names the fields, never the name: a preset and its renamed copy
    give the same signature (so the same numbers)."""
    for preset in ALL_PRESETS:
        for kw in (dict(), dict(missing="zero"), dict(gains="-1=2,1=3", missing="zero")):
            want = outcome(lambda: fastndcg.measurement(5, convention=preset, **kw).signature)
            got = outcome(lambda: fastndcg.measurement(5, convention=renamed(preset), **kw).signature, preset)
            assert got == want, (preset, kw)


# ----------------------------------------------------------------------------- ir_measures


def _trec_dict(path: Path, column: int, kind: type) -> dict:
    """A qrels or run file as ir_measures' dicts (results.trunc has more columns than its reader takes)."""
    out: dict = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        out.setdefault(parts[0], {})[parts[2]] = kind(parts[column])
    return out


@pytest.mark.peers
def test_ir_measures_provider(shared_data):
    """The provider takes no convention: ir_measures' ``nDCG`` is pytrec_eval's ``ndcg`` /
    ``ndcg_cut`` (``dcg='log2'``), scored with ``missing="zero"``. Its numbers equal
    ``fastndcg.evaluate`` of the measurements under the renamed ``pytrec_eval`` and
    ``pytrec_eval_cut`` presets, bit for bit, and ir_measures' measures handed to
    ``fastndcg.evaluate`` with any renamed preset as ``convention=`` stay ir_measures'."""
    ir_measures = require("ir_measures")
    from fastndcg.integrations import register_ir_measures, unregister_ir_measures

    nDCG = ir_measures.nDCG
    base = shared_data / "trec_eval-test"
    measures = [nDCG, nDCG @ 1, nDCG @ 5, nDCG @ 10, nDCG(dcg="exp-log2") @ 5, nDCG(judged_only=True) @ 5]
    for qrels, run in ((HAND_QRELS, HAND_RUN), (_trec_dict(base / "qrels.test", 3, int),
                                                 _trec_dict(base / "results.trunc", 4, float))):
        register_ir_measures()
        try:
            agg = ir_measures.calc_aggregate(measures, qrels, run)
            per = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
        finally:
            unregister_ir_measures()
        for preset in ALL_PRESETS:
            ev = same_outcome(preset, lambda c: fastndcg.evaluate(measures, qrels, run, convention=c,
                                                                  missing="zero"), _evaluation_view).value
            assert ev[3] == [agg[m] for m in measures], preset
        for preset, ks in (("pytrec_eval", (None, 1, 5, 10)), ("pytrec_eval_cut", (1, 5, 10))):
            conv = renamed(preset)
            ev = fastndcg.evaluate([fastndcg.measurement(k, convention=conv, missing="zero") for k in ks],
                                   qrels, run)
            for j, k in enumerate(ks):
                m = nDCG if k is None else nDCG @ k
                assert ev.aggregated[ev.measures[j]] == agg[m], (preset, k)
                assert [ev.values[i, j] for i in range(len(ev.query_ids))] == \
                    [per[(q, m)] for q in ev.query_ids], (preset, k)


# ----------------------------------------------------------------------------- whole real data sets (slow)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_cli_robust03(preset, shared_data, tmp_path, capsys, registered):
    """Robust 2003 (three runs, one of them missing judged topics) through ``eval`` (``-c``, with
    custom gains giving levels -1 and -2 a gain) and ``compare``, the preset against its renamed copy."""
    base = shared_data / "trectools-robust03"
    qrels = base / "robust03_qrels.txt"
    runs = [base / "runs" / f"input.{r}.gz" for r in ("MU03rob01", "NLPR03vb10", "InexpC2")]
    for argv in (["eval", qrels, *runs, "-c", "--preset", "{preset}", "-k", "5,10,all", "--format", "json", "-q"],
                 ["eval", qrels, *runs, "-c", "--preset", "{preset}", "--gain=-1=1,-2=2,1=3", "--format", "json",
                  "-q"],
                 ["eval", qrels, *runs, "-c", "--preset", "{preset}", "-m", "ndcg.-1=1,-2=2", "-m",
                  "ndcg_cut.10", "-m", "ndcg_p.-1=1", "--format", "json", "-q"],
                 ["compare", qrels, *runs, "-c", "--presets", "{preset}", "-k", "5,10", "--format", "json"]):
        _cli_both(capsys, registered, preset, argv)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_cli_lightgbm_rank_data(preset, shared_data, tmp_path, capsys, registered):
    """LightGBM's rank.test with predictions heavy with ties (one feature, rounded) through ``eval``
    (in memory and streamed), ``compare`` and ``test``."""
    base = shared_data / "lightgbm-rank"
    rows = (base / "rank.test").read_text().splitlines()
    preds = [tmp_path / "a.pred", tmp_path / "b.pred"]
    for path, feature in zip(preds, ("1:", "6:")):
        values = [next((p.split(":")[1] for p in r.split()[1:] if p.startswith(feature)), "0") for r in rows]
        path.write_text("".join(f"{round(float(v) * 4) / 4}\n" for v in values))
    data = base / "rank.test"
    for argv in (["eval", "--data", data, *preds, "--preset", "{preset}", "-k", "1,5,10,all", "--format", "json",
                  "-q"],
                 ["eval", "--data", data, *preds, "--stream", "--preset", "{preset}", "-k", "1,5,10,all",
                  "--format", "json", "-q"],
                 ["compare", "--data", data, *preds, "--presets", "{preset}", "-k", "5,10", "--format", "json"],
                 ["test", "--data", data, *preds, "--preset", "{preset}", "-k", "10", "--resamples", "500",
                  "--format", "json"]):
        _cli_both(capsys, registered, preset, argv)
