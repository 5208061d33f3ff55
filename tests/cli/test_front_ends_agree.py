"""One measurement, one number: the same measurement through every front-end gives the same bits.

Each measurement is asked for in every way a user can ask for it (Python: ``evaluate`` with a
trec_eval string, a signature, ``mean_ndcg`` on the aligned arrays with ``k=`` and ``preset=``;
command line: ``eval -m``, ``eval -k --preset``, ``eval -m SIGNATURE``, ``eval --stream``,
``compare``, ``test -m``, ``test -k``), and every answer must be bit-identical, with the same
signature wherever one is printed.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import fastndcg
from fastndcg.cli import main
from fastndcg.io import align_run
from fastndcg import measurement as measurement_for
from fastndcg.stream import evaluate_stream

# (trec_eval-syntax string or None, preset, k): the same measurement
CASES = [("ndcg_cut.10", "trec_eval", 10), ("ndcg", "trec_eval", None), ("ndcg_cut.5", "pytrec_eval", 5),
         (None, "standard", 5), (None, "gdeval", 10), (None, "ranx", 3)]


def _cli(capsys, *argv) -> dict:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def files(shared_data):
    base = shared_data / "trec_eval-test"
    return base / "qrels.test", base / "results.test", base / "results.trunc"


@pytest.mark.parametrize("string, preset, k", CASES)
@pytest.mark.parametrize("missing", ["zero", "skip"])
def test_every_front_end_gives_the_same_bits(files, capsys, tmp_path, string, preset, k, missing):
    qrels, run, run2 = files
    m = measurement_for(k, convention=preset, missing=missing)
    sig = m.signature
    got = {}
    ev = fastndcg.evaluate(sig, qrels, run)
    got["evaluate(signature)"] = list(ev.aggregated.values())[0]
    assert ev.signature == sig
    if string is not None:
        rules = "pytrec_eval" if preset.startswith("pytrec") else "trec_eval"
        ev2 = fastndcg.evaluate(string, qrels, run, missing=missing, convention=rules)
        got["evaluate(string)"] = list(ev2.aggregated.values())[0]
        assert ev2.signature == sig
        np.testing.assert_array_equal(ev2.values, ev.values)
    # the arrays API with k= and the preset, on the run aligned with the qrels
    a = align_run(run, qrels, missing=missing)
    arrays = dict(scores=a.scores, labels=a.labels, offsets=a.offsets)
    if m.convention.uses_tie_key:
        arrays.update(tie_key=a.tie_key)
    if m.convention.ideal_source == "qrels":
        arrays.update(ideal_labels=a.ideal_labels, ideal_offsets=a.ideal_offsets)
    got["mean_ndcg(k=, convention=preset)"] = float(fastndcg.mean_ndcg(k=k, convention=preset, **arrays))
    np.testing.assert_array_equal(fastndcg.ndcg(k=k, convention=preset, **arrays), ev.values[:, 0])
    got["mean_ndcg(measurement=signature)"] = float(fastndcg.mean_ndcg(measurement=sig, **arrays))
    np.testing.assert_array_equal(fastndcg.ndcg(measurement=m, **arrays), ev.values[:, 0])

    # streaming: the run read by whole topics
    res = evaluate_stream(run, k, qrels=qrels, convention=preset, missing=missing)
    got["evaluate_stream (streaming)"] = float(res.mean)
    assert res.signatures == [sig]

    common = [qrels, run, run2, "--missing", missing, "--format", "json"]
    kflag = ["-k", "all" if k is None else k, "--preset", preset]
    doc = _cli(capsys, "eval", *common[:2], *common[3:], *kflag)
    got["eval -k --preset"] = doc["runs"][0]["mean"][doc["measures"][0]]
    assert list(doc["signatures"].values()) == [sig]
    doc = _cli(capsys, "eval", *common[:2], *common[3:], *kflag, "--stream")
    got["eval -k --preset --stream"] = doc["runs"][0]["mean"][doc["measures"][0]]
    doc = _cli(capsys, "eval", *common[:2], *common[3:], "-m", sig)
    got["eval -m SIGNATURE"] = doc["runs"][0]["mean"][doc["measures"][0]]
    assert list(doc["signatures"].values()) == [sig]
    if string is not None:
        pflag = ["--preset", "pytrec_eval"] if preset.startswith("pytrec") else []
        doc = _cli(capsys, "eval", *common[:2], *common[3:], "-m", string, *pflag)
        got["eval -m STRING"] = doc["runs"][0]["mean"][doc["measures"][0]]
        assert list(doc["signatures"].values()) == [sig]
    doc = _cli(capsys, "compare", *common, "-k", "all" if k is None else k, "--presets", preset)
    name = doc["measures"][0]
    got["compare"] = doc["systems"][0]["presets"][preset]["mean"][name]
    assert doc["signatures"][preset][name] == sig
    # test: the systems' means over the queries every run has (a copy of the run: the same topics)
    copy = tmp_path / "copy.txt"
    copy.write_bytes(run.read_bytes())
    common = [qrels, run, copy] + common[3:]
    doc = _cli(capsys, "test", *common, *kflag, "--resamples", "10")
    got["test -k --preset"] = doc["measures"][0]["systems"][0]["mean"]
    assert doc["measures"][0]["signature"] == sig
    doc = _cli(capsys, "test", *common, "-m", sig, "--resamples", "10")
    got["test -m SIGNATURE"] = doc["measures"][0]["systems"][0]["mean"]
    values = set(got.values())
    assert len(values) == 1, "\n".join(f"{v!r}: {w}" for w, v in got.items())
